//! GEM-Bench Table 5, the embedding-model ablation: the four embedding
//! metrics of each dataset × solution as scored by each embedding model,
//! with its Markdown, CSV and HTML forms.
//!
//! The responses are generated once; the sweep's `embedder` scores them
//! under the judge column [`NO_JUDGE`] (as in Table 3), and each
//! `embedding_ablation` embedder re-scores the same responses under its own
//! name in the judge column (the scorer column). So the table is read from
//! the cells alone, and the ablation names are kept out of the judge tables.

use crate::gem_report::{stat, stat_cell, SUITE};
use adfarm_proto::report::{CellRow, GemAblationRow, GemEmbeddingAblation};
use adfarm_proto::tally::NO_JUDGE;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The embedding metrics of Table 5: (metric, header), as scoring emits them.
pub const METRICS: [(&str, &str); 4] = [
    ("response-flow", "RF"),
    ("response-coherence", "RC"),
    ("ad-flow", "AF"),
    ("ad-coherence", "AC"),
];

/// Table 5 from the cells, or `None` without an ablation. `primary` is the
/// sweep's `embedder` (its provider name heads the table; `-` when unset),
/// `ablation` its `embedding_ablation`.
pub fn from_cells(
    cells: &[CellRow],
    primary: Option<&str>,
    ablation: &[String],
) -> Option<GemEmbeddingAblation> {
    if ablation.is_empty() {
        return None;
    }
    let primary = primary.unwrap_or(NO_JUDGE);
    let mut rows: BTreeMap<(String, String), GemAblationRow> = BTreeMap::new();
    for c in cells.iter().filter(|c| c.suite == SUITE) {
        if !METRICS.iter().any(|(m, _)| *m == c.metric) {
            continue;
        }
        let embedder = if c.judge == NO_JUDGE {
            primary
        } else if ablation.contains(&c.judge) {
            c.judge.as_str()
        } else {
            continue;
        };
        rows.entry((c.dataset.clone(), c.solution.clone()))
            .or_insert_with(|| GemAblationRow {
                dataset: c.dataset.clone(),
                solution: c.solution.clone(),
                metrics: BTreeMap::new(),
            })
            .metrics
            .entry(embedder.to_string())
            .or_default()
            .insert(c.metric.clone(), stat(c));
    }
    let mut embedders = vec![primary.to_string()];
    embedders.extend(ablation.iter().cloned());
    Some(GemEmbeddingAblation {
        embedders,
        rows: rows.into_values().collect(),
    })
}

/// Column headers after dataset and solution: `EMBEDDER METRIC` for each
/// embedder in order, then each metric.
pub fn headers(t: &GemEmbeddingAblation) -> Vec<String> {
    t.embedders
        .iter()
        .flat_map(|e| METRICS.iter().map(move |(_, h)| format!("{e} {h}")))
        .collect()
}

/// One row's cells after dataset and solution (mean ±95% CI or `-`), in
/// [`headers`] order.
pub fn cells(t: &GemEmbeddingAblation, r: &GemAblationRow) -> Vec<String> {
    t.embedders
        .iter()
        .flat_map(|e| {
            let by_metric = r.metrics.get(e);
            METRICS
                .iter()
                .map(move |(m, _)| stat_cell(by_metric.and_then(|x| x.get(*m))))
        })
        .collect()
}

/// The sentence under the table's title.
pub const CAPTION: &str = "The same responses scored by each embedding model (first the sweep's embedder, then each embedding_ablation one). RF/RC/AF/AC: embedding flow and coherence (0–100), mean ±95% CI.";

/// Table 5 as a Markdown section.
pub fn markdown(t: &GemEmbeddingAblation) -> String {
    let mut out = format!(
        "\n## GEM-Bench: embedding-model ablation (Table 5)\n\n{CAPTION}\n\n| dataset | solution |"
    );
    let head = headers(t);
    for h in &head {
        let _ = write!(out, " {h} |");
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---:|".repeat(head.len()));
    out.push('\n');
    for r in &t.rows {
        let _ = write!(out, "| {} | {} |", r.dataset, r.solution);
        for c in cells(t, r) {
            let _ = write!(out, " {c} |");
        }
        out.push('\n');
    }
    out
}

/// Table 5's CSV rows, `table` = `embedding-ablation` and the embedder in
/// the judge column: `(fields, mean)` for the caller's CSV writer.
pub fn csv_rows(t: &GemEmbeddingAblation) -> Vec<([String; 5], Option<f64>)> {
    let mut out = vec![];
    for r in &t.rows {
        for e in &t.embedders {
            let Some(by_metric) = r.metrics.get(e) else {
                continue;
            };
            for (m, _) in METRICS {
                if let Some(s) = by_metric.get(m) {
                    out.push((
                        [
                            "embedding-ablation".to_string(),
                            r.dataset.clone(),
                            r.solution.clone(),
                            e.clone(),
                            m.to_string(),
                        ],
                        s.mean,
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gem_report::{self, tests::cells as judge_cells};
    use crate::report::{render, Format};
    use adfarm_proto::report::Report;

    fn cell(solution: &str, scorer: &str, metric: &str, mean: f64) -> CellRow {
        CellRow {
            suite: SUITE.into(),
            dataset: "mt-human".into(),
            solution: solution.into(),
            judge: scorer.into(),
            metric: metric.into(),
            n: 4,
            unscored: BTreeMap::new(),
            mean: Some(mean),
            std: Some(2.0),
            ci95: Some(1.5),
        }
    }

    /// The judge cells of the report tests plus every embedding metric of
    /// gi-r by the primary (40 + i) and by `emb-b` (60 + i).
    fn ablated_cells() -> Vec<CellRow> {
        let mut v = judge_cells();
        for (i, (m, _)) in METRICS.iter().enumerate() {
            v.push(cell("gi-r", "emb-b", m, 60.0 + i as f64));
            if *m != "response-flow" {
                v.push(cell("gi-r", NO_JUDGE, m, 40.0 + i as f64));
            }
        }
        v
    }

    fn tables(ablation: &[String]) -> adfarm_proto::report::GemTables {
        gem_report::from_cells(
            &ablated_cells(),
            &["j1".into(), "j2".into()],
            Some("emb"),
            ablation,
        )
    }

    fn report(gem: adfarm_proto::report::GemTables) -> Report {
        let mut r = gem_report::tests::report(gem);
        r.cells = ablated_cells();
        r
    }

    #[test]
    fn table_5_lists_the_primary_then_each_ablation_embedder() {
        let t = tables(&["emb-b".into()]);
        let a = t.embedding_ablation.as_ref().expect("an ablation table");
        assert_eq!(a.embedders, ["emb", "emb-b"]);
        assert_eq!(a.rows.len(), 1, "only gi-r has embedding metrics");
        let gir = &a.rows[0];
        assert_eq!(
            (gir.dataset.as_str(), gir.solution.as_str()),
            ("mt-human", "gi-r")
        );
        // The primary's response-flow cell is the Table 3 one (40, n 10).
        assert_eq!(gir.metrics["emb"]["response-flow"].mean, Some(40.0));
        assert_eq!(gir.metrics["emb"]["ad-coherence"].mean, Some(43.0));
        assert_eq!(gir.metrics["emb-b"]["response-flow"].mean, Some(60.0));
        assert_eq!(gir.metrics["emb-b"]["ad-coherence"].ci95, Some(1.5));
        // The ablation embedder is neither a judge nor in the judge rows,
        // and Table 3 keeps the primary's values.
        assert_eq!(t.judges, ["j1", "j2"]);
        assert!(t.judge_scores.iter().all(|r| r.judge != "emb-b"));
        let eff = t.effectiveness.iter().find(|r| r.solution == "gi-r");
        assert_eq!(eff.expect("gi-r").metrics["response-flow"].mean, Some(40.0));
    }

    #[test]
    fn without_an_ablation_there_is_no_table_5() {
        let t = tables(&[]);
        assert_eq!(t.embedding_ablation, None);
        let r = gem_report::tests::report(t);
        for format in [Format::Markdown, Format::Csv, Format::Html, Format::Json] {
            let text = render(&r, format);
            assert!(!text.contains("Table 5"), "{format:?}");
            assert!(!text.contains("embedding-ablation"), "{format:?}");
            assert!(!text.contains("embedding_ablation"), "{format:?}");
        }
    }

    #[test]
    fn markdown_csv_html_and_json_carry_table_5() {
        let r = report(tables(&["emb-b".into()]));
        let md = render(&r, Format::Markdown);
        for want in [
            "## GEM-Bench: embedding-model ablation (Table 5)",
            "| dataset | solution | emb RF | emb RC | emb AF | emb AC | emb-b RF | emb-b RC | emb-b AF | emb-b AC |",
            "| mt-human | gi-r | 40.00 ±0.50 | 41.00 ±1.50 | 42.00 ±1.50 | 43.00 ±1.50 | 60.00 ±1.50 | 61.00 ±1.50 | 62.00 ±1.50 | 63.00 ±1.50 |",
        ] {
            assert!(md.contains(want), "{want:?} missing in\n{md}");
        }
        assert!(!md.contains("Judge emb-b"), "emb-b is not a judge");
        let csv = render(&r, Format::Csv);
        for want in [
            "embedding-ablation,mt-human,gi-r,emb,response-flow,40\n",
            "embedding-ablation,mt-human,gi-r,emb-b,ad-coherence,63\n",
        ] {
            assert!(csv.contains(want), "{want:?} missing in\n{csv}");
        }
        assert!(!csv.contains("judge,mt-human,gi-r,emb-b"), "{csv}");
        let html = render(&r, Format::Html);
        assert!(html.contains("<table id=\"gem-embedding-ablation\">"));
        assert!(html.contains("<th>emb-b AC</th>"));
        assert!(html.contains("<td class=\"n\">63.00 ±1.50</td>"));
        assert!(!html.contains("Judge emb-b"));
        let json = render(&r, Format::Json);
        let back: Report = serde_json::from_str(&json).expect("JSON round-trips");
        assert_eq!(back, r);
        // Reports written before Table 5 existed still parse.
        let mut old: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        old["gem"]
            .as_object_mut()
            .expect("gem tables")
            .remove("embedding_ablation");
        let back: Report = serde_json::from_value(old).expect("old reports parse");
        assert_eq!(back.gem.expect("gem").embedding_ablation, None);
    }
}
