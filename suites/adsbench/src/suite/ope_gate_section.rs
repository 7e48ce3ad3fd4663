//! The OPE gate's verdict for the bandit baselines in the report: per
//! bandit agent, its stored solves' logs pooled into one log, and from it
//! each constant bid multiplier's value estimated ([`ope_gate::evaluate`]:
//! DR with a bootstrap interval) against the logging policy's mean reward.
//!
//! Computed at report time from the solves' stored logs, so no job reruns
//! for it. An agent's episodes that repeat one another (one item's
//! episode under two sweep seeds whose draws led to the same play) enter
//! once: a log counts once per item and event-log digest, so repeats do
//! not narrow the interval.

use super::bandit::{BanditLog, ARMS, BASE_ARM};
use super::ope_gate::{self, AgentGate, GateSettings, Target};
use super::outcome::Outcome;
use adfarm_proto::report::{Column, ColumnKind, Key, Section, Table, Value};
use adfarm_proto::SOLVE;
use adfarm_suite::ReportInput;
use std::collections::{BTreeMap, BTreeSet};

/// The section's id.
pub const OPE_GATE: &str = "ope-gate";

/// Every bandit agent's solves' logs pooled into one, in the sweep's
/// solution order; see the module's documentation.
pub fn pooled_logs(input: &ReportInput<'_>) -> Vec<(String, BanditLog)> {
    let mut seen = BTreeSet::new();
    let mut pooled: BTreeMap<(usize, String), BanditLog> = BTreeMap::new();
    for r in input.results.iter().filter(|r| r.stage == SOLVE) {
        let Some(outcome) = Outcome::stored(r) else {
            continue;
        };
        let Some(log) = outcome.bandit else {
            continue;
        };
        let solution = r.cell.solution.clone();
        if !seen.insert((solution.clone(), r.item.clone(), outcome.digest)) {
            continue;
        }
        let order = input.solution_order(&solution);
        match pooled.entry((order, solution)) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(BanditLog {
                    weights: Vec::new(),
                    ..log
                });
            }
            std::collections::btree_map::Entry::Occupied(mut o) => {
                o.get_mut().rounds.extend(log.rounds);
            }
        }
    }
    pooled
        .into_iter()
        .map(|((_, name), log)| (name, log))
        .collect()
}

/// The targets, each constant arm, with their names in the table.
pub fn targets() -> Vec<(String, Target)> {
    ARMS.iter()
        .enumerate()
        .map(|(i, m)| {
            let name = if i == BASE_ARM {
                format!("constant ×{m} (the base bids)")
            } else {
                format!("constant ×{m}")
            };
            (name, Target::Arm(i))
        })
        .collect()
}

/// The section: one row per bandit agent and target. None when no stored
/// solve carries a bandit's log.
pub fn section(input: &ReportInput<'_>, settings: &GateSettings) -> Option<Section> {
    let logs = pooled_logs(input);
    if logs.is_empty() {
        return None;
    }
    let num = |v: f64| Some(Value::Number(v));
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for (agent, log) in &logs {
        for (name, target) in targets() {
            match ope_gate::evaluate(log, &target, settings) {
                Ok(AgentGate {
                    rounds,
                    estimate,
                    lower,
                    upper,
                    logging_mean,
                    passed,
                    ..
                }) => rows.push(vec![
                    Some(Value::Text(agent.clone())),
                    Some(Value::Text(name)),
                    Some(Value::Integer(rounds as i64)),
                    num(estimate),
                    num(lower),
                    num(upper),
                    num(logging_mean),
                    Some(Value::Text(if passed { "passes" } else { "fails" }.into())),
                ]),
                Err(e) => notes.push(format!("{agent}, {name}: no verdict: {e}")),
            }
        }
    }
    let value = ColumnKind::Number { decimals: 4 };
    let level = 100.0 * (1.0 - settings.alpha);
    Some(Section {
        suite: input.suite.name.clone(),
        id: OPE_GATE.into(),
        title: "Ads-Bench: the OPE gate on the bandit baselines".into(),
        intro: Some(format!(
            "From each bandit agent's logged rounds (context, arm, propensity, reward: the \
             interval's profit over its share of the budget), its episodes pooled, the value \
             of each constant bid multiplier is estimated with DR (a ridge reward model per \
             arm) and a {level:.0}% percentile bootstrap interval ({} resamples, seed {}). \
             The gate passes a target whose interval's lower end is above the logging \
             policy's value, its mean observed reward.",
            settings.resamples, settings.seed
        )),
        tables: vec![Table {
            id: OPE_GATE.into(),
            title: None,
            scorer: None,
            columns: vec![
                Column::key("solution", "Bandit agent", Key::Solution),
                Column::new("target", "Target policy", ColumnKind::Text),
                Column::new("rounds", "Rounds", ColumnKind::Integer),
                Column::new("estimate", "DR estimate", value),
                Column::new("lower", format!("{level:.0}% CI low"), value),
                Column::new("upper", format!("{level:.0}% CI high"), value),
                Column::new("logging", "Logging policy's value", value),
                Column::new("verdict", "Gate", ColumnKind::Text),
            ],
            rows,
            notes,
        }],
        notes: Vec::new(),
        plots: Vec::new(),
    })
}
