//! The suite's off-policy evaluation section: the classic experiment on
//! the Open Bandit Dataset sample ([`crate::ope::classic`]), one row per
//! estimator with its estimate, its relative error against the on-policy
//! value and both bootstrap intervals, and the OPE gate's verdict.
//!
//! Computed from the pinned asset the first time a report is built (about
//! a second in a release build) and kept for the process's life: it reads
//! no job result, and the host fetches the asset before any sweep of the
//! suite runs. Without the asset the section says how to fetch it instead
//! of failing the report (and tries again on the next report).

use crate::ope::classic::{self, Classic, ClassicError};
use adfarm_proto::report::{Column, ColumnKind, Section, Table, Value};

/// The section's id.
pub const OPE_OBD: &str = "ope-obd";

/// The section, from the experiment's outcome on the logs of the host's
/// assets directory (or why it could not run).
pub fn section(suite: &str, outcome: Result<&Classic, ClassicError>) -> Section {
    let mut s = Section {
        suite: suite.into(),
        id: OPE_OBD.into(),
        title: "Ads-Bench: off-policy evaluation on the Open Bandit Dataset".into(),
        intro: Some(
            "The classic experiment on the Open Bandit Dataset sample shipped in the pinned \
             obp==0.5.7 sdist (ZOZOTOWN, campaign `all`): Bernoulli TS's value estimated from \
             the uniformly random policy's logs by each estimator, against the on-policy value \
             of TS's own logs. TS's action distribution and the cross-fitted reward model are \
             obp's, so the estimates are comparable with obp's on the same rows."
                .into(),
        ),
        tables: Vec::new(),
        notes: Vec::new(),
        plots: Vec::new(),
    };
    match outcome {
        Ok(c) => {
            s.tables.push(table(c));
            s.notes = notes(c);
        }
        Err(e) => s.notes.push(format!("Not computed: {e}")),
    }
    s
}

fn table(c: &Classic) -> Table {
    let num = |v: f64| Some(Value::Number(v));
    let value = ColumnKind::Number { decimals: 6 };
    let error = ColumnKind::Number { decimals: 3 };
    Table {
        id: "ope-obd-relative-error".into(),
        title: Some(format!(
            "Bernoulli TS from {} random-policy rounds; on-policy value {:.6}",
            c.rounds, c.on_policy
        )),
        scorer: None,
        columns: vec![
            Column::new("estimator", "Estimator", ColumnKind::Text),
            Column::new("estimate", "Estimate", value),
            Column::new("estimate-lower", "Estimate 95% CI low", value),
            Column::new("estimate-upper", "Estimate 95% CI high", value),
            Column::new("relative-error", "Relative error", error),
            Column::new("relative-error-lower", "Error 95% CI low", error),
            Column::new("relative-error-upper", "Error 95% CI high", error),
        ],
        rows: c
            .rows
            .iter()
            .map(|r| {
                vec![
                    Some(Value::Text(r.estimator.to_string())),
                    num(r.estimate),
                    num(r.interval.lower),
                    num(r.interval.upper),
                    num(r.relative_error),
                    num(r.relative_error_interval.0),
                    num(r.relative_error_interval.1),
                ]
            })
            .collect(),
        notes: vec![format!(
            "Percentile bootstrap, {} resamples (seed {}), shared by every estimator.",
            c.resamples,
            classic::SEED
        )],
    }
}

fn notes(c: &Classic) -> Vec<String> {
    vec![
        format!(
            "Largest relative gap between these estimates and obp's: {:.1e}.",
            c.largest_gap_to_obp
        ),
        format!(
            "OPE gate: DR's lower bound {:.6} {} the random policy's value {:.6}, so it {}.",
            c.gate.dr_lower,
            if c.gate.passed {
                "is above"
            } else {
                "is not above"
            },
            c.gate.baseline,
            if c.gate.passed { "passes" } else { "fails" }
        ),
    ]
}
