//! The metric-embedder re-scoring (AdFarm's check, not the paper's
//! Table 5, which swaps the retrieval embedder: see `retrieval`): the four
//! embedding metrics of each dataset × solution as scored by each
//! embedding model.
//!
//! The responses are generated once; the sweep's embedder scores them
//! under the judge column [`NO_JUDGE`] (as in Table 3), and each ablation
//! embedder re-scores the same responses under its own name in the judge
//! column (the scorer column). So the table is read from the cells alone,
//! and the ablation names are kept out of the judge tables.

use adfarm_proto::report::{CellRow, Estimate};
use adfarm_proto::tally::NO_JUDGE;
use std::collections::BTreeMap;

/// The embedding metrics: (metric, header), as scoring emits them.
pub(crate) const METRICS: [(&str, &str); 4] = [
    ("response-flow", "RF"),
    ("response-coherence", "RC"),
    ("ad-flow", "AF"),
    ("ad-coherence", "AC"),
];

/// The same responses scored by each metric embedder.
#[derive(Debug, Clone, PartialEq)]
pub struct Ablation {
    /// Embedders (provider names): the sweep's embedder first, then the
    /// ablation ones in sweep order.
    pub embedders: Vec<String>,
    /// One row per dataset × solution.
    pub rows: Vec<AblationRow>,
}

/// One dataset × solution of the ablation.
#[derive(Debug, Clone, PartialEq)]
pub struct AblationRow {
    /// Dataset.
    pub dataset: String,
    /// Solution.
    pub solution: String,
    /// Embedder → embedding metric → estimate.
    pub metrics: BTreeMap<String, BTreeMap<String, Estimate>>,
}

/// The re-scoring from the cells, or `None` without ablation embedders.
/// `primary` is the sweep's embedder (its provider name heads the table;
/// `-` when unset), `ablation` the ablation embedders.
pub(crate) fn from_cells(
    cells: &[CellRow],
    primary: Option<&str>,
    ablation: &[String],
) -> Option<Ablation> {
    if ablation.is_empty() {
        return None;
    }
    let primary = primary.unwrap_or(NO_JUDGE);
    let mut rows: BTreeMap<(String, String), AblationRow> = BTreeMap::new();
    for c in cells {
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
            .or_insert_with(|| AblationRow {
                dataset: c.dataset.clone(),
                solution: c.solution.clone(),
                metrics: BTreeMap::new(),
            })
            .metrics
            .entry(embedder.to_string())
            .or_default()
            .insert(c.metric.clone(), c.into());
    }
    let mut embedders = vec![primary.to_string()];
    embedders.extend(ablation.iter().cloned());
    Some(Ablation {
        embedders,
        rows: rows.into_values().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::cell;
    use crate::report::Tables;

    /// gi-r's embedding metrics by the primary (40 + i, response-flow
    /// missing) and by `emb-b` (60 + i), and a judge's verdict.
    fn cells() -> Vec<CellRow> {
        let mut v = vec![cell("gi-r", "j1", "accuracy", 70.0)];
        for (i, (m, _)) in METRICS.iter().enumerate() {
            v.push(cell("gi-r", "emb-b", m, 60.0 + i as f64));
            if *m != "response-flow" {
                v.push(cell("gi-r", NO_JUDGE, m, 40.0 + i as f64));
            }
        }
        v
    }

    #[test]
    fn the_rescoring_lists_the_primary_then_each_ablation_embedder() {
        let a = from_cells(&cells(), Some("emb"), &["emb-b".into()]).expect("a table");
        assert_eq!(a.embedders, ["emb", "emb-b"]);
        assert_eq!(a.rows.len(), 1);
        let gir = &a.rows[0];
        assert_eq!(
            (gir.dataset.as_str(), gir.solution.as_str()),
            ("mt-human", "gi-r")
        );
        assert!(!gir.metrics["emb"].contains_key("response-flow"));
        assert_eq!(gir.metrics["emb"]["ad-coherence"].mean, Some(43.0));
        assert_eq!(gir.metrics["emb-b"]["response-flow"].mean, Some(60.0));
        assert_eq!(gir.metrics["emb-b"]["ad-coherence"].ci95, Some(0.5));
        assert_eq!(
            from_cells(&cells(), None, &["emb-b".into()])
                .expect("a table")
                .embedders,
            ["-", "emb-b"]
        );
    }

    #[test]
    fn without_ablation_embedders_there_is_no_rescoring_and_they_are_never_judges() {
        assert_eq!(from_cells(&cells(), Some("emb"), &[]), None);
        let t = Tables::from_cells(&cells(), &["j1".into()], Some("emb"), &["emb-b".into()]);
        assert_eq!(t.judges, ["j1"]);
        assert!(t.judge_scores.iter().all(|r| r.judge != "emb-b"));
        let eff = &t.effectiveness[0];
        assert_eq!(
            eff.metrics["ad-coherence"].mean,
            Some(43.0),
            "Table 3 keeps the primary's"
        );
        assert!(t.ablation.is_some());
    }
}
