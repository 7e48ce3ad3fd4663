//! The report's table of what the API refused the model agents: per
//! agent, each Google error code its calls were answered with and how
//! often, over all its stored episodes. Malformed GAQL, unknown fields and
//! refused values show here by name, so a reader sees what an agent got
//! wrong without reading transcripts.

use std::collections::BTreeMap;

use adfarm_proto::report::{Column, ColumnKind, Key, Section, Table, Value};
use adfarm_proto::SOLVE;
use adfarm_suite::ReportInput;

use super::solution::Transcript;

/// The section's id.
pub const API_ERRORS: &str = "api-errors";

/// One agent's episodes and how often each error code answered it.
#[derive(Default)]
struct Refusals {
    episodes: u64,
    by_code: BTreeMap<String, u64>,
}

/// The section, or none when no stored episode is a model agent's.
pub fn section(input: &ReportInput<'_>) -> Option<Section> {
    let mut counts: BTreeMap<(usize, &str), Refusals> = BTreeMap::new();
    for r in input.results.iter().filter(|r| r.stage == SOLVE) {
        let Some(t) = r
            .output
            .as_ref()
            .and_then(|o| o.meta.get("transcript"))
            .and_then(|t| serde_json::from_value::<Transcript>(t.clone()).ok())
        else {
            continue;
        };
        let solution = r.cell.solution.as_str();
        let order = input.solution_order(solution);
        let agent = counts.entry((order, solution)).or_default();
        agent.episodes += 1;
        for code in t.decisions.iter().flat_map(|d| &d.errors) {
            *agent.by_code.entry(code.clone()).or_default() += 1;
        }
    }
    if counts.is_empty() {
        return None;
    }
    let mut rows = Vec::new();
    for ((_, solution), agent) in &counts {
        let text = |s: &str| Some(Value::Text(s.to_string()));
        if agent.by_code.is_empty() {
            rows.push(vec![
                text(solution),
                text("none"),
                Some(Value::Integer(0)),
                None,
            ]);
        }
        for (code, n) in &agent.by_code {
            rows.push(vec![
                text(solution),
                text(code),
                Some(Value::Integer(*n as i64)),
                Some(Value::Number(*n as f64 / agent.episodes as f64)),
            ]);
        }
    }
    Some(Section {
        suite: input.suite.name.clone(),
        id: API_ERRORS.into(),
        title: "Ads-Bench: what the API refused the model agents".into(),
        intro: Some(
            "Every Google Ads error code the simulated API answered a model agent's calls \
             with, over all its stored episodes: malformed GAQL (QueryError), unknown or \
             immutable fields and values out of range (FieldError, RequestError, \
             MutateError), faults and quotas (InternalError, QuotaError)."
                .into(),
        ),
        tables: vec![Table {
            id: API_ERRORS.into(),
            title: None,
            scorer: None,
            columns: vec![
                Column::key("solution", "Agent", Key::Solution),
                Column::new("code", "Error code", ColumnKind::Text),
                Column::new("count", "Count", ColumnKind::Integer),
                Column::new(
                    "per-episode",
                    "Per episode",
                    ColumnKind::Number { decimals: 2 },
                ),
            ],
            rows,
            notes: Vec::new(),
        }],
        notes: Vec::new(),
        plots: Vec::new(),
    })
}
