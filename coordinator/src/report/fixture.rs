//! A report with a made-up suite's section, for the renderers' tests.

use adfarm_proto::report::{
    Axis, Bars, CellRow, Chart, Column, ColumnKind, Estimate, HeatMap, JobCounts, Key, Plot, Point,
    Report, Scatter, Section, Table, UsageRow, Value,
};
use adfarm_proto::{Failure, JobId, Role, FORMAT_VERSION};
use std::collections::BTreeMap;

fn text(s: &str) -> Option<Value> {
    Some(Value::Text(s.into()))
}

fn estimate(mean: Option<f64>, ci95: Option<f64>) -> Option<Value> {
    Some(Value::Estimate(Estimate {
        mean,
        ci95,
        n: 10,
        unscored: 2,
    }))
}

/// A section of a made-up suite with every shape a suite may use: an
/// introduction, a pivot table with a column per scorer, a scorer's
/// own table under a title repeating one of its values, a table keyed
/// by a pair of scorers, missing cells, notes and one plot of each
/// kind.
pub fn section() -> Section {
    let keys = || {
        vec![
            Column::key("dataset", "dataset", Key::Dataset),
            Column::key("solution", "solution", Key::Solution),
        ]
    };
    let two = ColumnKind::Number { decimals: 2 };
    let mut pivot = keys();
    pivot.push(Column::new("overall", "s1", two).scored_by("s1"));
    pivot.push(Column::new("overall", "s2", two).scored_by("s2"));
    let mut own = keys();
    own.extend([
        Column::new("pass-at-1", "pass@1", ColumnKind::Estimate { decimals: 2 }),
        Column::new("coverage", "coverage", ColumnKind::Percent { decimals: 1 }),
        Column::new("usd", "USD/run", ColumnKind::Usd { decimals: 4 }),
        Column::new("runs", "runs", ColumnKind::Integer),
        Column::new("overall", "Overall", two),
    ]);
    let pair = vec![
        Column::key("a", "scorer A", Key::Scorer),
        Column::key("b", "scorer B", Key::Scorer),
        Column::new("kappa", "κ", two),
    ];
    Section {
        suite: "demo".into(),
        id: "tiers".into(),
        title: "Demo: tiers".into(),
        intro: Some("Pass@1 per tier.".into()),
        tables: vec![
            Table {
                id: "pivot".into(),
                title: None,
                scorer: None,
                columns: pivot,
                rows: vec![
                    vec![
                        text("L1"),
                        text("agent<x>"),
                        Some(Value::Number(75.0)),
                        None,
                    ],
                    vec![
                        text("L1"),
                        text("b,c"),
                        Some(Value::Number(20.5)),
                        Some(Value::Number(1.0)),
                    ],
                ],
                notes: vec!["Overall per scorer.".into()],
            },
            Table {
                id: "s1".into(),
                title: Some("Scorer s1".into()),
                scorer: Some("s1".into()),
                columns: own,
                rows: vec![vec![
                    text("L1"),
                    text("agent<x>"),
                    estimate(Some(60.0), Some(0.5)),
                    Some(Value::Number(0.4567)),
                    Some(Value::Number(0.0001234)),
                    Some(Value::Integer(10)),
                    Some(Value::Number(75.0)),
                ]],
                notes: vec![],
            },
            Table {
                id: "pairs".into(),
                title: None,
                scorer: None,
                columns: pair,
                rows: vec![vec![text("s1"), text("s2"), Some(Value::Number(0.5))]],
                notes: vec![],
            },
        ],
        notes: vec!["α over all scorers: -.".into()],
        plots: vec![
            Plot {
                id: "scatter".into(),
                caption: "Quality vs cost.".into(),
                chart: Chart::Scatter(Scatter {
                    x: Axis {
                        label: "cost".into(),
                        min: 0.0,
                        max: None,
                    },
                    y: Axis {
                        label: "quality".into(),
                        min: 0.0,
                        max: Some(100.0),
                    },
                    points: vec![Point {
                        label: "agent<x>".into(),
                        x: 300.0,
                        y: 75.0,
                    }],
                }),
            },
            Plot {
                id: "bars".into(),
                caption: "Means.".into(),
                chart: Chart::Bars(Bars {
                    y: Axis {
                        label: "mean".into(),
                        min: 0.0,
                        max: Some(100.0),
                    },
                    groups: vec!["pass-at-1".into(), "coverage".into()],
                    series: vec!["agent<x>".into(), "b,c".into()],
                    values: vec![vec![Some(60.0), None], vec![Some(150.0), Some(10.0)]],
                }),
            },
            Plot {
                id: "heat".into(),
                caption: "Agreement.".into(),
                chart: Chart::HeatMap(HeatMap {
                    rows: vec!["s1".into(), "s2".into()],
                    columns: vec!["s1".into(), "s2".into()],
                    values: vec![vec![Some(1.0), None], vec![Some(-1.0), Some(1.0)]],
                    symbol: "κ".into(),
                    min: -1.0,
                    max: 1.0,
                }),
            },
        ],
    }
}

/// A report with one cell, one usage row, a dead letter and
/// [`section`].
pub fn report() -> Report {
    Report {
        format_version: FORMAT_VERSION,
        sweep: "demo-sweep".into(),
        sweep_id: "0123".into(),
        jobs: BTreeMap::from([(
            "solve".to_string(),
            JobCounts {
                planned: 4,
                completed: 3,
                failed: 1,
                skipped: 0,
            },
        )]),
        cells: vec![CellRow {
            suite: "demo".into(),
            dataset: "L1".into(),
            solution: "agent<x>".into(),
            judge: "-".into(),
            metric: "pass-at-1".into(),
            n: 10,
            unscored: BTreeMap::from([("timeout".to_string(), 2)]),
            mean: Some(60.0),
            std: Some(1.0),
            ci95: Some(0.5),
        }],
        usage: vec![UsageRow {
            model: "m".into(),
            role: Role::Generation,
            requests: 3,
            cached_requests: 1,
            input_tokens: 100,
            output_tokens: 50,
            cached_tokens: 20,
            estimated_requests: 0,
            cost_usd: 0.0012,
        }],
        cost_by_role: BTreeMap::from([(Role::Generation, 0.0012)]),
        cost_usd: 0.0012,
        budget_usd: None,
        stopped_by_budget: false,
        estimated_cost_usd: 0.5,
        billed: vec![],
        billed_since_unix: None,
        dead_letters: vec![Failure {
            id: JobId("job-1".into()),
            stage: Some("solve".into()),
            code: "http-4xx".into(),
            reason: "bad | request".into(),
            attempts: 3,
        }],
        sections: vec![section()],
    }
}
