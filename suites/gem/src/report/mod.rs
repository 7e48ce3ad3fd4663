//! GEM-Bench's report sections (issues 4 and 11): the data they rest on,
//! effectiveness (paper Table 3), the retrieval-embedder ablation (the
//! paper's Table 5), the metric-embedder re-scoring (AdFarm's, not the
//! paper's), Overall per judge (Table 4) and the judges' details
//! (Tables 7–9), token cost (Table 6) and judge agreement, with three plots
//! (quality vs cost, per-metric bars, a Cohen's κ heat map). The farm
//! renders them in every format.
//!
//! - this file: [`sections`], and how the suite's results are told apart;
//! - `tables`: the numbers ([`Tables`]), from cells and per-item results;
//! - `ablation`: the metric-embedder re-scoring's numbers ([`Ablation`]);
//! - `retrieval`: Table 5's numbers and layout ([`Retrieval`]);
//! - `summary`: the dataset summary section (counts, CA-Prod's conflicts);
//! - `layout`: the numbers as sections (columns, wording, order);
//! - `plots`: the plots' data.
//!
//! Design decision: the numbers are computed once into plain tables and
//! laid out afterwards, so what a table says and how it is shown are two
//! separate, separately tested steps.

mod ablation;
mod layout;
mod plots;
mod retrieval;
mod summary;
mod tables;

pub use ablation::{Ablation, AblationRow};
pub use retrieval::{Retrieval, RetrievalRow};
pub use tables::{judge_metrics, Agreement, Clusters, CostRow, EffectivenessRow, JudgeRow, Tables};

use crate::data::GemData;
use crate::item::Dataset;
use adfarm_proto::report::Section;
use adfarm_proto::{JobResult, SOLVE};
use adfarm_suite::ReportInput;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Whether `r` is a response: the result of running a solution.
fn is_solve(r: &JobResult) -> bool {
    r.stage == SOLVE
}

/// Whether `r` holds one judge's verdicts on a response.
fn is_judge(r: &JobResult) -> bool {
    r.stage == crate::JUDGE_STAGE
}

/// The cluster of every item of `data`: the first item of its dataset
/// asking the same prompt (LM-Market repeats 7 of its prompts).
pub fn clusters(data: &Arc<GemData>) -> Clusters {
    let mut out = Clusters::new();
    for ds in Dataset::ALL {
        let mut first: BTreeMap<String, String> = BTreeMap::new();
        for item in crate::item::items(data.clone(), ds, Default::default()).flatten() {
            let cluster = first.entry(item.input).or_insert_with(|| item.id.clone());
            out.insert((ds.as_str().to_string(), item.id), cluster.clone());
        }
    }
    out
}

/// GEM-Bench's sections of a sweep, from the suite's cells and results.
/// With `data`, the report opens with the dataset summary and items that
/// ask one prompt share one cluster of the intervals; without it (the data
/// not at hand), each item is its own cluster.
pub fn sections(input: &ReportInput<'_>, data: Option<&Arc<GemData>>) -> Vec<Section> {
    let params = crate::suite_params(&input.suite.params).unwrap_or_default();
    let mut t = Tables::from_cells(
        input.cells,
        &input.spec.judges,
        input.spec.embedder.as_deref(),
        &params.embedding_ablation,
    );
    t.input_ratio = params.cost_input_ratio;
    let runs = input.spec.solutions.iter().filter(|s| {
        s.suite.as_deref().is_none_or(|n| n == input.suite.name)
            && crate::SOLUTIONS.contains(&s.name.as_str())
    });
    t.controls = runs
        .clone()
        .filter(|s| s.name == "no-ads")
        .map(|s| s.label().to_string())
        .collect();
    let gi_r: Vec<(String, String)> = runs
        .filter(|s| s.name == "gi-r")
        .map(|s| {
            let e = s
                .embedder(input.spec)
                .unwrap_or(adfarm_proto::tally::NO_JUDGE);
            (s.label().to_string(), e.to_string())
        })
        .collect();
    t.add_results(input, &data.map(clusters).unwrap_or_default());
    let mut out = vec![];
    if let Some(d) = data {
        out.push(summary::section(
            &input.suite.name,
            &crate::summary::dataset_summary(d),
            &input.suite.datasets,
        ));
    }
    let retrieval = retrieval::from_tables(&t, &gi_r);
    let mut rest = t.sections(&input.suite.name);
    if let Some(r) = retrieval {
        rest.insert(1, retrieval::section(&input.suite.name, &r));
    }
    out.extend(rest);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use adfarm_proto::report::CellRow;
    use adfarm_proto::tally::NO_JUDGE;
    use std::collections::BTreeMap;

    /// A cell of `solution` on mt-human (n 10, two unscored, ±0.5).
    pub(crate) fn cell(solution: &str, judge: &str, metric: &str, mean: f64) -> CellRow {
        CellRow {
            suite: "gem".into(),
            dataset: "mt-human".into(),
            solution: solution.into(),
            judge: judge.into(),
            metric: metric.into(),
            n: 10,
            unscored: BTreeMap::from([("no-ad".to_string(), 2)]),
            mean: Some(mean),
            std: Some(1.0),
            ci95: Some(0.5),
        }
    }

    /// Two solutions, two judges: judge j1 gives gi-r 60 + i·6 on metric i
    /// (Overall 75) and ad-chat 30 on all six; j2 gives gi-r 20 and
    /// ad-chat 50 on every metric but click (so no Overall).
    pub(crate) fn cells() -> Vec<CellRow> {
        let mut v = vec![
            cell("gi-r", NO_JUDGE, "injection-rate", 100.0),
            cell("gi-r", NO_JUDGE, "response-flow", 40.0),
            cell("ad-chat", NO_JUDGE, "ctr", 12.5),
        ];
        for (i, m) in super::judge_metrics().into_iter().enumerate() {
            v.push(cell("gi-r", "j1", m, 60.0 + 6.0 * i as f64));
            v.push(cell("ad-chat", "j1", m, 30.0));
            v.push(cell("gi-r", "j2", m, 20.0));
            if m != "click" {
                v.push(cell("ad-chat", "j2", m, 50.0));
            }
        }
        v.push(cell("gi-r", "j1", "moderate-good-rate", 5.0));
        v
    }
}
