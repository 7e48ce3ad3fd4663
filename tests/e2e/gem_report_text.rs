//! GEM-Bench's sections through the farm's renderers: the Markdown, CSV,
//! HTML and JSON of a report with every GEM-Bench table (and the
//! metric-embedder re-scoring) carry the lines the report has always had.
//! No service is needed.

use crate::sections::report_of;
use adfarm_coordinator::report::{render, Format};
use adfarm_gem::report::{judge_metrics, Agreement, CostRow, Tables};
use adfarm_proto::report::{CellRow, Report};
use adfarm_proto::tally::NO_JUDGE;
use std::collections::BTreeMap;

fn cell(solution: &str, judge: &str, metric: &str, mean: f64, n: i64, ci95: f64) -> CellRow {
    CellRow {
        suite: "gem".into(),
        dataset: "mt-human".into(),
        solution: solution.into(),
        judge: judge.into(),
        metric: metric.into(),
        n,
        unscored: BTreeMap::from([("no-ad".to_string(), 2)]),
        mean: Some(mean),
        std: Some(1.0),
        ci95: Some(ci95),
    }
}

/// Two solutions, two judges: judge j1 gives gi-r 60 + i·6 on metric i
/// (Overall 75) and ad-chat 30 on all six; j2 gives gi-r 20 and ad-chat
/// 50 on all but click.
fn cells() -> Vec<CellRow> {
    let mut v = vec![
        cell("gi-r", NO_JUDGE, "injection-rate", 100.0, 10, 0.5),
        cell("gi-r", NO_JUDGE, "response-flow", 40.0, 10, 0.5),
        cell("ad-chat", NO_JUDGE, "ctr", 12.5, 10, 0.5),
    ];
    for (i, m) in judge_metrics().into_iter().enumerate() {
        v.push(cell("gi-r", "j1", m, 60.0 + 6.0 * i as f64, 10, 0.5));
        v.push(cell("ad-chat", "j1", m, 30.0, 10, 0.5));
        v.push(cell("gi-r", "j2", m, 20.0, 10, 0.5));
        if m != "click" {
            v.push(cell("ad-chat", "j2", m, 50.0, 10, 0.5));
        }
    }
    v.push(cell("gi-r", "j1", "moderate-good-rate", 5.0, 10, 0.5));
    v
}

/// [`cells`] plus every embedding metric of gi-r by the primary (40 + i)
/// and by the ablation embedder `emb-b` (60 + i).
fn ablated_cells() -> Vec<CellRow> {
    let mut v = cells();
    for (i, m) in [
        "response-flow",
        "response-coherence",
        "ad-flow",
        "ad-coherence",
    ]
    .into_iter()
    .enumerate()
    {
        v.push(cell("gi-r", "emb-b", m, 60.0 + i as f64, 4, 1.5));
        if m != "response-flow" {
            v.push(cell("gi-r", NO_JUDGE, m, 40.0 + i as f64, 4, 1.5));
        }
    }
    v
}

fn report(cells: Vec<CellRow>, t: &Tables) -> Report {
    report_of("t", cells, t.sections("gem"))
}

fn judges() -> Vec<String> {
    vec!["j1".into(), "j2".into()]
}

#[test]
fn one_judge_says_why_there_is_no_agreement_table() {
    let one: Vec<CellRow> = cells().into_iter().filter(|c| c.judge != "j2").collect();
    let r = report(
        one.clone(),
        &Tables::from_cells(&one, &["j1".into()], None, &[]),
    );
    let md = render(&r, Format::Markdown);
    assert!(md.contains("this sweep has one"), "{md}");
    assert!(!md.contains("| judge A | judge B |"), "{md}");
    let html = render(&r, Format::Html);
    assert!(html.contains("this sweep has one"));
    assert!(!html.contains("gem-agreement-heatmap"));
}

#[test]
fn markdown_csv_html_and_json_carry_every_table() {
    let mut t = Tables::from_cells(&cells(), &judges(), None, &[]);
    t.cost.push(CostRow {
        dataset: "mt-human".into(),
        solution: "gi-r".into(),
        responses: 10,
        ittft: 400.0,
        ottft: 100.0,
        overall: 300.0,
        usd_per_response: 0.0001,
        latency_s: Some(1.5),
    });
    t.agreement.push(Agreement {
        judge_a: "j1".into(),
        judge_b: "j2".into(),
        paired: 4,
        kappa: Some(0.5),
        alpha: Some(0.6),
        tau_by_dataset: BTreeMap::from([("mt-human".to_string(), Some(-1.0))]),
        tau: Some(-1.0),
    });
    let r = report(cells(), &t);
    let md = render(&r, Format::Markdown);
    for want in [
        "effectiveness (Table 3)",
        "| mt-human | gi-r | 100.00 ±0.50 | - | - | 40.00 ±0.50 |",
        "Overall per judge (Table 4)",
        "| mt-human | gi-r | 75.00 | 20.00 |",
        "Judge j2: details",
        "cost (Table 6)",
        "| mt-human | gi-r | 10 | 400.00 | 100.00 | 300.00 | 0.000100 |",
        "| j1 | j2 | 4 | 0.50 | 0.60 | -1.00 | -1.00 |",
    ] {
        assert!(md.contains(want), "{want:?} missing in\n{md}");
    }
    let csv = render(&r, Format::Csv);
    assert!(csv.contains("judge,mt-human,gi-r,j1,overall,75\n"), "{csv}");
    assert!(csv.contains("cost,mt-human,gi-r,-,overall,300\n"), "{csv}");
    assert!(csv.contains("agreement,-,-,j1~j2,kappa,0.5\n"), "{csv}");
    let json = render(&r, Format::Json);
    let back: Report = serde_json::from_str(&json).expect("JSON round-trips");
    assert_eq!(back, r);
    let html = render(&r, Format::Html);
    for want in [
        "<table id=\"gem-effectiveness\">",
        "<table id=\"gem-overall\">",
        "<table id=\"gem-judge-1\">",
        "<table id=\"gem-cost\">",
        "<table id=\"gem-agreement\">",
        "<svg id=\"gem-quality-cost\"",
        "<circle class=\"point\"",
        "<svg id=\"gem-metric-bars\"",
        "<rect class=\"bar\"",
        "<svg id=\"gem-agreement-heatmap\"",
        "<rect class=\"heat\"",
    ] {
        assert!(html.contains(want), "{want:?} missing");
    }
    assert!(!html.contains("<script"), "no script in the page");
}

#[test]
fn without_an_ablation_there_is_no_metric_embedder_table() {
    let t = Tables::from_cells(&ablated_cells(), &judges(), Some("emb"), &[]);
    let r = report(cells(), &t);
    for format in [Format::Markdown, Format::Csv, Format::Html, Format::Json] {
        let text = render(&r, format);
        assert!(!text.contains("metric embedders"), "{format:?}");
        assert!(!text.contains("metric-embedders"), "{format:?}");
        assert!(!text.contains("embedding_ablation"), "{format:?}");
    }
}

#[test]
fn markdown_csv_html_and_json_carry_the_metric_embedder_table() {
    let t = Tables::from_cells(&ablated_cells(), &judges(), Some("emb"), &["emb-b".into()]);
    let r = report(ablated_cells(), &t);
    let md = render(&r, Format::Markdown);
    for want in [
        "## GEM-Bench: the responses re-scored by other metric embedders",
        "| dataset | solution | emb RF | emb RC | emb AF | emb AC | emb-b RF | emb-b RC | emb-b AF | emb-b AC |",
        "| mt-human | gi-r | 40.00 ±0.50 | 41.00 ±1.50 | 42.00 ±1.50 | 43.00 ±1.50 | 60.00 ±1.50 | 61.00 ±1.50 | 62.00 ±1.50 | 63.00 ±1.50 |",
    ] {
        assert!(md.contains(want), "{want:?} missing in\n{md}");
    }
    assert!(!md.contains("Judge emb-b"), "emb-b is not a judge");
    let csv = render(&r, Format::Csv);
    for want in [
        "metric-embedders,mt-human,gi-r,emb,response-flow,40\n",
        "metric-embedders,mt-human,gi-r,emb-b,ad-coherence,63\n",
    ] {
        assert!(csv.contains(want), "{want:?} missing in\n{csv}");
    }
    assert!(!csv.contains("judge,mt-human,gi-r,emb-b"), "{csv}");
    let html = render(&r, Format::Html);
    assert!(html.contains("<table id=\"gem-metric-embedders\">"));
    assert!(html.contains("<th>emb-b AC</th>"));
    assert!(html.contains("<td class=\"n\">63.00 ±1.50</td>"));
    assert!(!html.contains("Judge emb-b"));
    let json = render(&r, Format::Json);
    let back: Report = serde_json::from_str(&json).expect("JSON round-trips");
    assert_eq!(back, r);
}
