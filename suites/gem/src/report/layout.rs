//! GEM-Bench's tables as report sections: which columns each table has,
//! where its values sit (dataset, solution, judge or embedder), and the
//! sentences around it. The wording and order are the paper's tables as
//! the report has always shown them.

use super::ablation::{Ablation, METRICS};
use super::plots;
use super::tables::{judge_metrics, Tables};
use adfarm_proto::report::{Column, ColumnKind, Estimate, Key, Section, Table, Value};

/// Columns of the effectiveness table: (metric, header).
const EFFECTIVENESS: [(&str, &str); 7] = [
    ("injection-rate", "IR"),
    ("ad-selected", "ad selected"),
    ("ctr", "CTR"),
    ("response-flow", "RF"),
    ("response-coherence", "RC"),
    ("ad-flow", "AF"),
    ("ad-coherence", "AC"),
];

pub(super) const TWO: ColumnKind = ColumnKind::Number { decimals: 2 };
const MEAN_CI: ColumnKind = ColumnKind::Estimate { decimals: 2 };

/// A number with two decimals, or `-`, as the tables show them.
fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"))
}

pub(super) fn text(s: &str) -> Option<Value> {
    Some(Value::Text(s.to_string()))
}

pub(super) fn number(v: Option<f64>) -> Option<Value> {
    v.map(Value::Number)
}

fn estimate(e: Option<&Estimate>) -> Option<Value> {
    e.cloned().map(Value::Estimate)
}

/// The dataset and solution columns every table starts with.
pub(super) fn row_keys() -> Vec<Column> {
    vec![
        Column::key("dataset", "dataset", Key::Dataset),
        Column::key("solution", "solution", Key::Solution),
    ]
}

pub(super) fn section(suite: &str, id: &str, title: &str) -> Section {
    Section {
        suite: suite.to_string(),
        id: id.to_string(),
        title: title.to_string(),
        intro: None,
        tables: vec![],
        notes: vec![],
        plots: vec![],
    }
}

pub(super) fn table(id: &str, columns: Vec<Column>, rows: Vec<Vec<Option<Value>>>) -> Table {
    Table {
        id: id.to_string(),
        title: None,
        scorer: None,
        columns,
        rows,
        notes: vec![],
    }
}

/// Every GEM-Bench section of `suite`, in the paper's reading order:
/// effectiveness, the ablation (when there is one), the judge tables, cost,
/// agreement.
pub(crate) fn sections(suite: &str, t: &Tables) -> Vec<Section> {
    let mut out = vec![effectiveness(suite, t)];
    out.extend(t.ablation.as_ref().map(|a| ablation(suite, a)));
    out.push(judges(suite, t));
    out.push(cost(suite, t));
    out.push(agreement(suite, t));
    out
}

fn effectiveness(suite: &str, t: &Tables) -> Section {
    let mut columns = row_keys();
    columns.extend(
        EFFECTIVENESS
            .iter()
            .map(|(m, h)| Column::new(*m, *h, MEAN_CI)),
    );
    columns.push(Column::new("overall", "Overall", TWO));
    columns.push(Column::new(
        "rewrite-failed",
        "rewrite failed",
        ColumnKind::Integer,
    ));
    let rows = t
        .effectiveness
        .iter()
        .map(|r| {
            let mut row = vec![text(&r.dataset), text(&r.solution)];
            row.extend(
                EFFECTIVENESS
                    .iter()
                    .map(|(m, _)| estimate(r.metrics.get(*m))),
            );
            row.push(number(r.overall));
            row.push(r.rewrite_failed.map(Value::Integer));
            row
        })
        .collect();
    let mut table = table("effectiveness", columns, rows);
    table.notes.push("IR: ad present in the text; ad selected: an ad was chosen; CTR: CA-Prod selection accuracy, over responses that carry an ad (a response without one is unscored `no-ad`, counted apart: read it beside ad selected); RF/RC/AF/AC: embedding flow and coherence (0–100); Overall: mean of RF, RC, AF, AC and IR (and CTR on CA-Prod); rewrite failed: GIR responses whose rewrite came back empty, scored as the empty response they are. Mean ±95% CI over distinct prompts (an item's seeds averaged first).".into());
    Section {
        tables: vec![table],
        ..section(suite, "effectiveness", "GEM-Bench: effectiveness (Table 3)")
    }
}

fn ablation(suite: &str, a: &Ablation) -> Section {
    let mut columns = row_keys();
    for e in &a.embedders {
        columns.extend(
            METRICS
                .iter()
                .map(|(m, h)| Column::new(*m, format!("{e} {h}"), MEAN_CI).scored_by(e)),
        );
    }
    let rows = a
        .rows
        .iter()
        .map(|r| {
            let mut row = vec![text(&r.dataset), text(&r.solution)];
            for e in &a.embedders {
                let by_metric = r.metrics.get(e);
                row.extend(
                    METRICS
                        .iter()
                        .map(|(m, _)| estimate(by_metric.and_then(|x| x.get(*m)))),
                );
            }
            row
        })
        .collect();
    Section {
        intro: Some("The same responses scored by each metric embedder (first the sweep's embedder, then each embedding_ablation one); the ads were chosen by the retrieval embedder alone, so this is not the paper's Table 5. RF/RC/AF/AC: embedding flow and coherence (0–100), mean ±95% CI.".into()),
        tables: vec![table("metric-embedders", columns, rows)],
        ..section(suite, "metric-embedders", "GEM-Bench: the responses re-scored by other metric embedders")
    }
}

fn judges(suite: &str, t: &Tables) -> Section {
    let mut columns = row_keys();
    columns.extend(
        t.judges
            .iter()
            .map(|j| Column::new("overall", j.as_str(), TWO).scored_by(j)),
    );
    let rows = t
        .keys()
        .into_iter()
        .map(|(d, s)| {
            let mut row = vec![text(&d), text(&s)];
            row.extend(t.judges.iter().map(|j| number(t.overall(&d, &s, j))));
            row
        })
        .collect();
    let mut tables = vec![table("overall", columns, rows)];
    let six = judge_metrics();
    for (i, j) in t.judges.iter().enumerate() {
        let mut columns = row_keys();
        columns.extend(six.iter().map(|m| Column::new(*m, *m, MEAN_CI)));
        columns.push(Column::new("overall", "Overall", TWO));
        columns.push(Column::new("moderate-good-rate", "moderate+good", TWO));
        let rows = t
            .judge_scores
            .iter()
            .filter(|r| &r.judge == j)
            .map(|r| {
                let mut row = vec![text(&r.dataset), text(&r.solution)];
                row.extend(six.iter().map(|m| estimate(r.metrics.get(*m))));
                row.push(number(r.overall));
                row.push(number(
                    r.metrics.get("moderate-good-rate").and_then(|s| s.mean),
                ));
                row
            })
            .collect();
        tables.push(Table {
            title: Some(format!("Judge {j}: details (Tables 7–9)")),
            scorer: Some(j.clone()),
            ..table(&format!("judge-{i}"), columns, rows)
        });
    }
    Section {
        intro: Some("Overall = mean of the six judge metrics (accuracy, naturalness, personality, trust, notice, click).".into()),
        tables,
        plots: vec![plots::metric_bars(t)],
        ..section(suite, "judge", "GEM-Bench: Overall per judge (Table 4)")
    }
}

fn cost(suite: &str, t: &Tables) -> Section {
    let mut columns = row_keys();
    columns.extend([
        Column::new("responses", "responses", ColumnKind::Integer),
        Column::new("ittft", "ITTFT", TWO),
        Column::new("ottft", "OTTFT", TWO),
        Column::new("overall", "Overall", TWO),
        Column::new(
            "usd-per-response",
            "USD/response",
            ColumnKind::Usd { decimals: 6 },
        ),
        Column::new("latency-s", "latency (s)", TWO),
    ]);
    let rows = t
        .cost
        .iter()
        .map(|c| {
            vec![
                text(&c.dataset),
                text(&c.solution),
                Some(Value::Integer(c.responses)),
                number(Some(c.ittft)),
                number(Some(c.ottft)),
                number(Some(c.overall)),
                number(Some(c.usd_per_response)),
                number(c.latency_s),
            ]
        })
        .collect();
    Section {
        intro: Some(format!(
            "Tokens per response of all calls before the response is shown; Overall = {}·ITTFT + OTTFT; latency: seconds of those calls (measured, so it varies between runs).",
            t.input_ratio
        )),
        tables: vec![table("cost", columns, rows)],
        plots: vec![plots::quality_vs_cost(t)],
        ..section(suite, "cost", "GEM-Bench: cost (Table 6)")
    }
}

fn agreement(suite: &str, t: &Tables) -> Section {
    let base = section(suite, "agreement", "GEM-Bench: judge agreement");
    if t.judges.len() < 2 {
        return Section {
            intro: Some(format!(
                "Agreement compares judges (pairwise Cohen's κ, Krippendorff's α, Kendall's τ); \
                 this sweep has {}. List two or more in `judges` to see it.",
                if t.judges.is_empty() { "none" } else { "one" }
            )),
            ..base
        };
    }
    let mut datasets: Vec<&String> = t
        .agreement
        .iter()
        .flat_map(|a| a.tau_by_dataset.keys())
        .collect();
    datasets.sort();
    datasets.dedup();
    let mut columns = vec![
        Column::key("judge-a", "judge A", Key::Scorer),
        Column::key("judge-b", "judge B", Key::Scorer),
        Column::new("paired", "paired verdicts", ColumnKind::Integer),
        Column::new("kappa", "Cohen's κ", TWO),
        Column::new("alpha", "Krippendorff's α (ordinal)", TWO),
        Column::new("tau", "Kendall's τ (mean over datasets)", TWO),
    ];
    columns.extend(
        datasets
            .iter()
            .map(|d| Column::new(format!("tau-{d}"), format!("τ {d}"), TWO)),
    );
    let rows = t
        .agreement
        .iter()
        .map(|a| {
            let mut row = vec![
                text(&a.judge_a),
                text(&a.judge_b),
                Some(Value::Integer(a.paired)),
                number(a.kappa),
                number(a.alpha),
                number(a.tau),
            ];
            row.extend(
                datasets
                    .iter()
                    .map(|d| number(a.tau_by_dataset.get(*d).copied().flatten())),
            );
            row
        })
        .collect();
    Section {
        tables: vec![table("agreement", columns, rows)],
        notes: vec![
            format!("α over all judges: {}.", num(t.alpha_all)),
            "τ ranks the ad-injecting solutions (the no-ads control left out) by each judge's Overall on one dataset; the mean is over the datasets both judges judged.".into(),
        ],
        plots: vec![plots::agreement_heatmap(t)],
        ..base
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::{cell, cells};
    use crate::report::{Agreement, CostRow};
    use adfarm_proto::report::Chart;
    use adfarm_proto::tally::NO_JUDGE;
    use std::collections::BTreeMap;

    /// The tables of [`cells`] with j2's Overall of ad-chat, a cost row per
    /// solution and the judges' agreement.
    fn tables() -> Tables {
        let mut c = cells();
        c.push(cell("ad-chat", "j2", "click", 50.0));
        let mut t = Tables::from_cells(&c, &["j1".into(), "j2".into()], None, &[]);
        for (solution, ittft) in [("ad-chat", 900.0), ("gi-r", 400.0)] {
            t.cost.push(CostRow {
                dataset: "mt-human".into(),
                solution: solution.into(),
                responses: 10,
                ittft,
                ottft: 100.0,
                overall: 0.5 * ittft + 100.0,
                usd_per_response: 0.0001,
                latency_s: None,
            });
        }
        t.agreement.push(Agreement {
            judge_a: "j1".into(),
            judge_b: "j2".into(),
            paired: 4,
            kappa: Some(0.5),
            alpha: Some(0.6),
            tau_by_dataset: BTreeMap::from([("mt-human".into(), Some(-1.0))]),
            tau: Some(-1.0),
        });
        t.alpha_all = Some(0.55);
        t
    }

    fn ids(s: &[Section]) -> Vec<&str> {
        s.iter().map(|s| s.id.as_str()).collect()
    }

    fn headers(t: &Table) -> Vec<&str> {
        t.columns.iter().map(|c| c.header.as_str()).collect()
    }

    #[test]
    fn sections_come_in_the_papers_order_under_the_suites_name() {
        let s = sections("gem", &tables());
        assert_eq!(ids(&s), ["effectiveness", "judge", "cost", "agreement"]);
        assert!(s.iter().all(|s| s.suite == "gem"));
        let titles: Vec<&str> = s.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "GEM-Bench: effectiveness (Table 3)",
                "GEM-Bench: Overall per judge (Table 4)",
                "GEM-Bench: cost (Table 6)",
                "GEM-Bench: judge agreement"
            ]
        );
    }

    #[test]
    fn effectiveness_shows_every_metric_as_mean_and_ci_with_its_counts() {
        let s = sections("gem", &tables());
        let t = &s[0].tables[0];
        assert_eq!(t.id, "effectiveness");
        assert_eq!(
            headers(t),
            [
                "dataset",
                "solution",
                "IR",
                "ad selected",
                "CTR",
                "RF",
                "RC",
                "AF",
                "AC",
                "Overall",
                "rewrite failed"
            ]
        );
        assert_eq!(t.columns[0].key, Some(Key::Dataset));
        assert_eq!(t.columns[2].id, "injection-rate");
        let gir = &t.rows[1];
        assert_eq!(gir[1], text("gi-r"));
        let Some(Value::Estimate(ir)) = &gir[2] else {
            panic!("an estimate: {gir:?}");
        };
        assert_eq!(
            (ir.mean, ir.ci95, ir.n, ir.unscored),
            (Some(100.0), Some(0.5), 10, 2)
        );
        assert_eq!(gir[3], None, "gi-r has no ad-selected cell");
        assert!(t.notes[0].starts_with("IR: ad present in the text"));
    }

    #[test]
    fn the_judge_tables_pivot_overall_and_give_each_judge_its_details() {
        let s = sections("gem", &tables());
        let judge = &s[1];
        assert!(judge
            .intro
            .as_deref()
            .is_some_and(|i| i.starts_with("Overall = mean of the six")));
        let pivot = &judge.tables[0];
        assert_eq!(pivot.id, "overall");
        assert_eq!(headers(pivot), ["dataset", "solution", "j1", "j2"]);
        assert_eq!(pivot.columns[3].scorer.as_deref(), Some("j2"));
        assert_eq!(pivot.columns[3].id, "overall");
        assert_eq!(
            pivot.rows[1],
            [
                text("mt-human"),
                text("gi-r"),
                Some(Value::Number(75.0)),
                Some(Value::Number(20.0))
            ]
        );
        let details: Vec<(&str, Option<&str>, Option<&str>)> = judge.tables[1..]
            .iter()
            .map(|t| (t.id.as_str(), t.title.as_deref(), t.scorer.as_deref()))
            .collect();
        assert_eq!(
            details,
            [
                (
                    "judge-0",
                    Some("Judge j1: details (Tables 7–9)"),
                    Some("j1")
                ),
                (
                    "judge-1",
                    Some("Judge j2: details (Tables 7–9)"),
                    Some("j2")
                )
            ]
        );
        let j1 = &judge.tables[1];
        assert_eq!(
            headers(j1),
            [
                "dataset",
                "solution",
                "accuracy",
                "naturalness",
                "personality",
                "trust",
                "notice",
                "click",
                "Overall",
                "moderate+good"
            ]
        );
        let gir = &j1.rows[1];
        assert_eq!(gir[8], Some(Value::Number(75.0)));
        assert_eq!(gir[9], Some(Value::Number(5.0)), "moderate+good: the mean");
        assert_eq!(judge.plots[0].id, "metric-bars");
    }

    #[test]
    fn cost_states_its_input_ratio_and_shows_usd_to_six_decimals() {
        let s = sections("gem", &tables());
        let cost = &s[2];
        assert!(cost
            .intro
            .as_deref()
            .is_some_and(|i| i.contains("Overall = 0.5·ITTFT + OTTFT")));
        let t = &cost.tables[0];
        assert_eq!(t.columns[6].kind, ColumnKind::Usd { decimals: 6 });
        assert_eq!(
            t.rows[1],
            [
                text("mt-human"),
                text("gi-r"),
                Some(Value::Integer(10)),
                Some(Value::Number(400.0)),
                Some(Value::Number(100.0)),
                Some(Value::Number(300.0)),
                Some(Value::Number(0.0001)),
                None
            ]
        );
        assert_eq!(cost.plots[0].id, "quality-cost");
    }

    #[test]
    fn agreement_needs_two_judges_and_says_why_otherwise() {
        let s = sections("gem", &tables());
        let a = &s[3];
        let t = &a.tables[0];
        assert_eq!(t.columns[0].key, Some(Key::Scorer));
        assert_eq!(t.columns[1].key, Some(Key::Scorer));
        assert_eq!(t.rows[0][3], Some(Value::Number(0.5)));
        assert_eq!(a.notes[0], "α over all judges: 0.55.");
        assert_eq!(
            headers(t)[5..],
            ["Kendall's τ (mean over datasets)", "τ mt-human"]
        );
        assert_eq!(t.rows[0][6], Some(Value::Number(-1.0)));
        assert_eq!(a.plots[0].id, "agreement-heatmap");

        for (judges, says) in [
            (vec!["j1".to_string()], "this sweep has one"),
            (vec![], "this sweep has none"),
        ] {
            let c: Vec<_> = cells()
                .into_iter()
                .filter(|c| judges.contains(&c.judge) || c.judge == NO_JUDGE)
                .collect();
            let s = sections("gem", &Tables::from_cells(&c, &judges, None, &[]));
            let a = s.last().expect("an agreement section");
            assert!(
                a.intro.as_deref().is_some_and(|i| i.contains(says)),
                "{a:?}"
            );
            assert!(a.tables.is_empty() && a.plots.is_empty(), "{a:?}");
        }
    }

    #[test]
    fn metric_embedders_have_a_column_per_embedder_and_metric_scored_by_it() {
        let mut c = cells();
        c.push(cell("gi-r", "emb-b", "response-flow", 60.0));
        let t = Tables::from_cells(
            &c,
            &["j1".into(), "j2".into()],
            Some("emb"),
            &["emb-b".into()],
        );
        let s = sections("gem", &t);
        assert_eq!(
            ids(&s),
            [
                "effectiveness",
                "metric-embedders",
                "judge",
                "cost",
                "agreement"
            ]
        );
        let ab = &s[1];
        assert!(ab
            .intro
            .as_deref()
            .is_some_and(|i| i.starts_with("The same responses scored by each metric embedder")));
        let table = &ab.tables[0];
        assert_eq!(table.id, "metric-embedders");
        assert_eq!(
            headers(table),
            [
                "dataset", "solution", "emb RF", "emb RC", "emb AF", "emb AC", "emb-b RF",
                "emb-b RC", "emb-b AF", "emb-b AC"
            ]
        );
        assert_eq!(table.columns[6].scorer.as_deref(), Some("emb-b"));
        assert_eq!(table.columns[6].id, "response-flow");
        let Some(Value::Estimate(rf)) = &table.rows[0][6] else {
            panic!("an estimate: {:?}", table.rows[0]);
        };
        assert_eq!(rf.mean, Some(60.0));
        let Some(Value::Estimate(primary)) = &table.rows[0][2] else {
            panic!("the primary's response-flow: {:?}", table.rows[0]);
        };
        assert_eq!(primary.mean, Some(40.0), "Table 3's cell");
        assert_eq!(table.rows[0][3], None, "no primary response-coherence cell");
        assert!(!s[2]
            .tables
            .iter()
            .any(|t| t.scorer.as_deref() == Some("emb-b")));
    }

    #[test]
    fn plots_carry_quality_and_cost_metric_means_and_kappa() {
        let t = tables();
        let Chart::Scatter(sc) = plots::quality_vs_cost(&t).chart else {
            panic!("a scatter");
        };
        let points: Vec<(&str, f64, f64)> = sc
            .points
            .iter()
            .map(|p| (p.label.as_str(), p.x, p.y))
            .collect();
        // ad-chat: Overall 30 (j1) and 50 (j2) → 40 at 550 tokens; gi-r:
        // 75 and 20 → 47.5 at 300.
        assert_eq!(points, [("ad-chat", 550.0, 40.0), ("gi-r", 300.0, 47.5)]);
        assert_eq!(sc.y.max, Some(100.0));
        let Chart::Bars(b) = plots::metric_bars(&t).chart else {
            panic!("bars");
        };
        assert_eq!(b.groups.len(), 10);
        assert_eq!(b.series, ["ad-chat", "gi-r"]);
        // accuracy: ad-chat (30 + 50) / 2, gi-r (60 + 20) / 2.
        assert_eq!(b.values[0], [Some(40.0), Some(40.0)]);
        // response-flow: only gi-r, from Table 3.
        assert_eq!(b.groups[6], "response-flow");
        assert_eq!(b.values[6], [None, Some(40.0)]);
        let Chart::HeatMap(h) = plots::agreement_heatmap(&t).chart else {
            panic!("a heat map");
        };
        assert_eq!(h.values, [[Some(1.0), Some(0.5)], [Some(0.5), Some(1.0)]]);
        assert_eq!((h.min, h.max, h.symbol.as_str()), (-1.0, 1.0, "κ"));
    }
}
