//! GEM-Bench's report sections (issue 4): effectiveness (paper Table 3),
//! the embedding-model ablation (Table 5), Overall per judge (Table 4) and
//! the judges' details (Tables 7–9), token cost (Table 6) and judge
//! agreement, with three plots (quality vs cost, per-metric bars, a Cohen's
//! κ heat map). The farm renders them in every format.
//!
//! - this file: [`sections`], and how the suite's results are told apart;
//! - `tables`: the numbers ([`Tables`]), from cells and per-item results;
//! - `ablation`: Table 5's numbers ([`Ablation`]);
//! - `layout`: the numbers as sections (columns, wording, order);
//! - `plots`: the plots' data.
//!
//! Design decision: the numbers are computed once into plain tables and
//! laid out afterwards, so what a table says and how it is shown are two
//! separate, separately tested steps.

mod ablation;
mod layout;
mod plots;
mod tables;

pub use ablation::{Ablation, AblationRow};
pub use tables::{judge_metrics, Agreement, CostRow, EffectivenessRow, JudgeRow, Tables};

use adfarm_proto::report::Section;
use adfarm_proto::{JobResult, SOLVE};
use adfarm_suite::ReportInput;

/// Whether `r` is a response: the result of running a solution.
fn is_solve(r: &JobResult) -> bool {
    r.stage == SOLVE
}

/// Whether `r` holds one judge's verdicts on a response.
fn is_judge(r: &JobResult) -> bool {
    r.stage == crate::JUDGE_STAGE
}

/// The embedding models that re-score the responses for Table 5 (the
/// suite's `embedding_ablation` parameter, checked when the sweep was read).
fn ablation_embedders(input: &ReportInput<'_>) -> Vec<String> {
    crate::suite_params(&input.suite.params)
        .map(|p| p.embedding_ablation)
        .unwrap_or_default()
}

/// GEM-Bench's sections of a sweep, from the suite's cells and results.
pub fn sections(input: &ReportInput<'_>) -> Vec<Section> {
    let mut t = Tables::from_cells(
        input.cells,
        &input.spec.judges,
        input.spec.embedder.as_deref(),
        &ablation_embedders(input),
    );
    t.add_results(input);
    t.sections(&input.suite.name)
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
