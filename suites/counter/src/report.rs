//! The suite's report section: one table of pass@1 and pass@k per dataset ×
//! solution, built from the `pass-at-k` jobs' results (their [`Runs`]).

use crate::pass_at_k::{Runs, PASS_AT_K};
use adfarm_proto::report::{Column, ColumnKind, Key, Section, Table, Value};
use adfarm_suite::ReportInput;
use std::collections::BTreeMap;

/// Sums over the items of one dataset × solution.
#[derive(Default)]
struct Sums {
    items: i64,
    runs: i64,
    failed: i64,
    pass_at_1: f64,
    pass_at_k: f64,
}

/// The section, or none before any `pass-at-k` job has a result.
pub fn sections(input: &ReportInput<'_>) -> Vec<Section> {
    let k = input.spec.seeds.len() as u64;
    let mut sums: BTreeMap<(usize, usize, &str, &str), Sums> = BTreeMap::new();
    for r in input.results.iter().filter(|r| r.stage == PASS_AT_K) {
        let Some(runs) = r
            .output
            .as_ref()
            .and_then(|o| serde_json::from_value::<Runs>(o.meta.clone()).ok())
        else {
            continue;
        };
        let (dataset, solution) = (r.cell.dataset.as_str(), r.cell.solution.as_str());
        // Rows in the sweep file's order of datasets and solutions.
        let d = input.suite.datasets.iter().position(|n| n == dataset);
        let (d, s) = (d.unwrap_or(usize::MAX), input.solution_order(solution));
        let row = sums.entry((d, s, dataset, solution)).or_default();
        row.items += 1;
        row.runs += runs.runs as i64;
        row.failed += runs.failed as i64;
        row.pass_at_1 += runs.pass_at(1);
        row.pass_at_k += runs.pass_at(k);
    }
    if sums.is_empty() {
        return Vec::new();
    }
    let share = |sum: f64, items: i64| Some(Value::Number(sum / items as f64));
    let rows = sums
        .into_iter()
        .map(|((_, _, dataset, solution), t)| {
            vec![
                Some(Value::Text(dataset.into())),
                Some(Value::Text(solution.into())),
                Some(Value::Integer(t.items)),
                Some(Value::Integer(t.runs)),
                Some(Value::Integer(t.failed)),
                share(t.pass_at_1, t.items),
                share(t.pass_at_k, t.items),
            ]
        })
        .collect();
    let percent = ColumnKind::Percent { decimals: 1 };
    vec![Section {
        suite: input.suite.name.clone(),
        id: PASS_AT_K.into(),
        title: "Counter: pass@k".into(),
        intro: Some(format!(
            "Each item runs once per seed ({k} runs). pass@1 is the mean share of an item's \
             runs whose counter ended on the target; pass@{k} the mean chance that at least \
             one of {k} runs did (the unbiased estimate of Chen et al. 2021). Failed runs \
             count as misses."
        )),
        tables: vec![Table {
            id: PASS_AT_K.into(),
            title: None,
            scorer: None,
            columns: vec![
                Column::key("dataset", "Dataset", Key::Dataset),
                Column::key("solution", "Solution", Key::Solution),
                Column::new("items", "Items", ColumnKind::Integer),
                Column::new("runs", "Runs", ColumnKind::Integer),
                Column::new("failed", "Failed runs", ColumnKind::Integer),
                Column::new("pass@1", "pass@1", percent),
                Column::new("pass@k", format!("pass@{k}"), percent),
            ],
            rows,
            notes: Vec::new(),
        }],
        notes: Vec::new(),
        plots: Vec::new(),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use adfarm_proto::{Cell, JobId, JobResult, SuiteSpec, SweepSpec, SOLVE};
    use serde_json::json;

    fn spec() -> SweepSpec {
        serde_json::from_value(json!({
            "name": "s",
            "seeds": [1, 2, 3],
            "suites": [{"name": "counter", "datasets": ["default"]}],
            "solutions": [
                {"name": "echo", "provider": "p"},
                {"name": "agent", "provider": "p"},
            ],
            "providers": [],
        }))
        .expect("a sweep spec")
    }

    fn result(stage: &str, solution: &str, item: &str, reached: u64, failed: u64) -> JobResult {
        let runs = Runs {
            runs: 3,
            reached,
            failed,
        };
        JobResult {
            id: JobId(format!("{solution}-{item}")),
            stage: stage.into(),
            cell: Cell {
                suite: "counter".into(),
                dataset: "default".into(),
                solution: solution.into(),
                seed: 0,
            },
            item: item.into(),
            judge: None,
            output: runs.output().output,
            scores: vec![],
            usage: vec![],
        }
    }

    fn report(spec: &SweepSpec, suite: &SuiteSpec, results: &[JobResult]) -> Vec<Section> {
        sections(&ReportInput {
            spec,
            suite,
            cells: &[],
            results,
        })
    }

    #[test]
    fn one_row_per_dataset_and_solution_in_sweep_order() {
        let spec = spec();
        let results = [
            result(PASS_AT_K, "agent", "0", 1, 0),
            result(PASS_AT_K, "agent", "1", 0, 1),
            result(PASS_AT_K, "echo", "0", 0, 0),
            // Solve results are not the section's.
            result(SOLVE, "agent", "2", 3, 0),
        ];
        let s = report(&spec, &spec.suites[0], &results);
        assert_eq!(s.len(), 1);
        assert_eq!(
            (s[0].suite.as_str(), s[0].id.as_str()),
            ("counter", "pass-at-k")
        );
        let t = &s[0].tables[0];
        assert_eq!(t.columns[6].header, "pass@3");
        let solutions: Vec<&Option<Value>> = t.rows.iter().map(|r| &r[1]).collect();
        assert_eq!(
            solutions,
            [
                &Some(Value::Text("echo".into())),
                &Some(Value::Text("agent".into()))
            ]
        );
        let agent = &t.rows[1];
        assert_eq!(
            agent[2..5],
            [
                Some(Value::Integer(2)),
                Some(Value::Integer(6)),
                Some(Value::Integer(1))
            ]
        );
        // Item 0: 1 of 3 (pass@1 1/3, pass@3 1); item 1: none.
        let Some(Value::Number(p1)) = agent[5] else {
            panic!("{agent:?}")
        };
        assert!((p1 - 1.0 / 6.0).abs() < 1e-12);
        assert_eq!(agent[6], Some(Value::Number(0.5)));
        assert_eq!(t.rows[0][5], Some(Value::Number(0.0)));
    }

    #[test]
    fn no_section_before_a_pass_at_k_result() {
        let spec = spec();
        assert!(report(&spec, &spec.suites[0], &[]).is_empty());
    }
}
