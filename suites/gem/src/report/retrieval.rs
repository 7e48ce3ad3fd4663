//! Table 5, the paper's embedding-model ablation: GI-R run with each
//! retrieval embedder E (one `gi-r` entry per E, each with its own
//! `embedder` and `label`), so E chooses the ad, and the responses judged.
//! The table shows each variant's six judge metrics and Overall, each the
//! mean over the judges; the per-judge numbers are in Tables 4 and 7–9
//! under the variant's label.

use super::layout::{number, row_keys, section as empty_section, table, text, TWO};
use super::tables::{judge_metrics, Tables};
use adfarm_proto::report::{Column, ColumnKind, Section};
use adfarm_suite::stats::mean;
use std::collections::BTreeMap;

/// One GI-R variant on one dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct RetrievalRow {
    /// Dataset.
    pub dataset: String,
    /// The variant's label.
    pub solution: String,
    /// Provider name of its retrieval embedder.
    pub embedder: String,
    /// Judge metric → mean over the judges of each judge's mean.
    pub metrics: BTreeMap<String, f64>,
    /// Mean over the judges of each judge's Overall.
    pub overall: Option<f64>,
}

/// Table 5.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieval {
    /// Per dataset, the variants in sweep order.
    pub rows: Vec<RetrievalRow>,
}

/// Table 5 from the judge tables, for `variants` (label, retrieval
/// embedder) of GI-R; `None` with fewer than two variants.
pub(crate) fn from_tables(t: &Tables, variants: &[(String, String)]) -> Option<Retrieval> {
    if variants.len() < 2 {
        return None;
    }
    let mut datasets: Vec<&str> = t.judge_scores.iter().map(|r| r.dataset.as_str()).collect();
    datasets.sort_unstable();
    datasets.dedup();
    let mut rows = vec![];
    for d in datasets {
        for (label, embedder) in variants {
            let judged: Vec<_> = t
                .judge_scores
                .iter()
                .filter(|r| r.dataset == d && &r.solution == label)
                .collect();
            let metrics = judge_metrics()
                .into_iter()
                .filter_map(|m| {
                    let means: Vec<f64> = judged
                        .iter()
                        .filter_map(|r| r.metrics.get(m).and_then(|e| e.mean))
                        .collect();
                    Some((m.to_string(), mean(means.iter().copied())?))
                })
                .collect();
            let overalls: Vec<f64> = judged.iter().filter_map(|r| r.overall).collect();
            rows.push(RetrievalRow {
                dataset: d.to_string(),
                solution: label.clone(),
                embedder: embedder.clone(),
                metrics,
                overall: mean(overalls.iter().copied()),
            });
        }
    }
    Some(Retrieval { rows })
}

/// Table 5 as a section of `suite`.
pub(crate) fn section(suite: &str, r: &Retrieval) -> Section {
    let six = judge_metrics();
    let mut columns = row_keys();
    columns.push(Column::new(
        "retrieval-embedder",
        "retrieval embedder",
        ColumnKind::Text,
    ));
    columns.extend(six.iter().map(|m| Column::new(*m, *m, TWO)));
    columns.push(Column::new("overall", "Overall", TWO));
    let rows = r
        .rows
        .iter()
        .map(|x| {
            let mut row = vec![text(&x.dataset), text(&x.solution), text(&x.embedder)];
            row.extend(six.iter().map(|m| number(x.metrics.get(*m).copied())));
            row.push(number(x.overall));
            row
        })
        .collect();
    Section {
        intro: Some(
            "GI-R with each retrieval embedder (the model that chooses the ad), judged: each \
             judge metric and Overall is the mean over the judges."
                .into(),
        ),
        tables: vec![table("retrieval-ablation", columns, rows)],
        ..empty_section(
            suite,
            "retrieval-ablation",
            "GEM-Bench: retrieval-embedder ablation (Table 5)",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::cells;
    use adfarm_proto::report::Value;

    #[test]
    fn table_5_compares_gi_r_variants_by_their_retrieval_embedder() {
        // cells(): j1 gives gi-r Overall 75, j2 gives it 20 (all six);
        // "ad-chat" plays a second GI-R variant here (j1: 30, j2: -).
        let t = Tables::from_cells(&cells(), &["j1".into(), "j2".into()], None, &[]);
        let variants = [
            ("gi-r".to_string(), "emb-a".to_string()),
            ("ad-chat".to_string(), "emb-b".to_string()),
        ];
        assert_eq!(
            from_tables(&t, &variants[..1]),
            None,
            "one variant: no table"
        );
        let r = from_tables(&t, &variants).expect("two variants");
        assert_eq!(r.rows.len(), 2);
        let a = &r.rows[0];
        assert_eq!(
            (a.solution.as_str(), a.embedder.as_str()),
            ("gi-r", "emb-a")
        );
        // accuracy: j1 60, j2 20 → 40; Overall (75 + 20) / 2.
        assert_eq!(a.metrics["accuracy"], 40.0);
        assert_eq!(a.overall, Some(47.5));
        // j2 has no click for ad-chat: its Overall is undefined, j1's counts.
        assert_eq!(r.rows[1].overall, Some(30.0));
        let s = section("gem", &r);
        let table = &s.tables[0];
        assert_eq!(table.id, "retrieval-ablation");
        assert_eq!(table.rows[0][2], text("emb-a"));
        assert_eq!(table.rows[0][9], Some(Value::Number(47.5)));
    }
}
