//! The gauntlet's report section: one row per task, one column per agent,
//! each cell whether the agent passed the task and how many of its
//! predicates held (`pass 3/3`, `fail 1/3`, with `+collateral`, `wrong
//! cause` or `no cause` when that is what failed it).

use super::grade::TaskVerdict;
use adfarm_proto::report::{Column, ColumnKind, Key, Section, Table, Value};
use adfarm_proto::SOLVE;
use adfarm_suite::ReportInput;
use std::collections::BTreeMap;

/// The section's id.
pub const GAUNTLET: &str = "gauntlet";

/// A verdict as a cell.
fn cell(v: &TaskVerdict) -> String {
    let held = v.predicates.iter().filter(|(_, h)| *h).count();
    let mut out = format!(
        "{} {held}/{}",
        if v.passed { "pass" } else { "fail" },
        v.predicates.len()
    );
    if !v.collateral.is_empty() {
        out.push_str(" +collateral");
    }
    match (v.diagnosis_correct, &v.diagnosis) {
        (Some(false), None) => out.push_str(" no cause"),
        (Some(false), Some(_)) => out.push_str(" wrong cause"),
        _ => {}
    }
    out
}

/// The section, or none before any task has a verdict. The first seed's
/// run of each agent on each task (a scripted agent's episode does not
/// depend on the sweep's seed).
pub fn section(input: &ReportInput<'_>) -> Option<Section> {
    let mut agents: Vec<String> = Vec::new();
    let mut cells: BTreeMap<(String, String), String> = BTreeMap::new();
    for r in input.results.iter().filter(|r| r.stage == SOLVE) {
        let Some(v) = r
            .output
            .as_ref()
            .and_then(|o| o.meta.get("verdict"))
            .and_then(|v| serde_json::from_value::<TaskVerdict>(v.clone()).ok())
        else {
            continue;
        };
        if !agents.contains(&r.cell.solution) {
            agents.push(r.cell.solution.clone());
        }
        cells
            .entry((r.item.clone(), r.cell.solution.clone()))
            .or_insert_with(|| cell(&v));
    }
    if cells.is_empty() {
        return None;
    }
    let order = |a: &String| {
        input
            .spec
            .solutions
            .iter()
            .position(|s| &s.name == a)
            .unwrap_or(usize::MAX)
    };
    agents.sort_by_key(order);
    let tasks: Vec<String> = {
        let mut t: Vec<String> = cells.keys().map(|(task, _)| task.clone()).collect();
        t.dedup();
        t
    };
    let rows = tasks
        .iter()
        .map(|task| {
            let mut row = vec![Some(Value::Text(task.clone()))];
            row.extend(agents.iter().map(|a| {
                cells
                    .get(&(task.clone(), a.clone()))
                    .map(|c| Value::Text(c.clone()))
            }));
            row
        })
        .collect();
    let mut columns = vec![Column::new("task", "Task", ColumnKind::Text)];
    columns.extend(
        agents
            .iter()
            .map(|a| Column::key(a.clone(), a.clone(), Key::Solution)),
    );
    Some(Section {
        suite: input.suite.name.clone(),
        id: GAUNTLET.into(),
        title: "Ads-Bench: gauntlet tasks".into(),
        intro: Some(
            "Each agent on each task: pass or fail, and how many of the task's predicates held \
             on the end state and the KPIs. A task passes when every predicate holds, no \
             committed change falls outside its scope (`+collateral`) and, for an analysis \
             task, the diagnosis names the injected cause (`wrong cause`; `no cause` when the \
             agent gave none)."
                .into(),
        ),
        tables: vec![Table {
            id: GAUNTLET.into(),
            title: None,
            scorer: None,
            columns,
            rows,
            notes: Vec::new(),
        }],
        notes: Vec::new(),
        plots: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(diagnosis_correct: Option<bool>, diagnosis: Option<&str>) -> TaskVerdict {
        TaskVerdict {
            predicates: vec![("spend".into(), true), ("paused".into(), false)],
            collateral: Vec::new(),
            diagnosis_correct,
            passed: false,
            diagnosis: diagnosis.map(str::to_string),
        }
    }

    #[test]
    fn a_cell_tells_a_wrong_cause_from_none_given() {
        assert_eq!(cell(&verdict(None, None)), "fail 1/2");
        assert_eq!(
            cell(&verdict(Some(false), Some("bid-too-low"))),
            "fail 1/2 wrong cause"
        );
        assert_eq!(cell(&verdict(Some(false), None)), "fail 1/2 no cause");
    }
}
