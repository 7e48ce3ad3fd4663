//! What GEM-Bench puts on a leaderboard: Table 3's Overall and Table 4's
//! Overall, per response (item × seed), so the leaderboard can resample
//! items.
//!
//! Per response, Table 3's Overall is the mean of the response's RF, RC,
//! AF, AC and IR (and CTR on CA-Prod when the response carries an ad), and
//! Table 4's the mean over the sweep's judges of each judge's mean of the
//! six judge metrics (a judge with one of the six unscored is left out of
//! that response). The paper averages metric means instead; the two agree
//! whenever every part is scored on every response (always on MT-Human
//! without judges failing), and differ only by which responses a missing
//! part leaves out.

use crate::item::Dataset;
use crate::judge::Protocol;
use crate::report::judge_metrics;
use crate::{EMBED_STAGE, JUDGE_STAGE};
use adfarm_proto::{SweepSpec, Verdict, SOLVE};
use adfarm_suite::{Benchmark, Headline, HeadlineValue, Headlines, ReportInput};
use std::collections::BTreeMap;

/// The benchmark's version: datasets, solutions' prompts, metrics.
pub const BENCHMARK_VERSION: &str = "1.0.0";

/// The scorer's version: embedding metrics, judge parsing, Overall.
pub const SCORER_VERSION: &str = "gem-scorer-1";

/// Table 3's parts.
const EFFECTIVENESS: [&str; 5] = [
    "response-flow",
    "response-coherence",
    "ad-flow",
    "ad-coherence",
    "injection-rate",
];

/// The benchmark version parts of a sweep judged with `protocol`.
pub fn benchmark(spec: &SweepSpec, protocol: Protocol) -> Benchmark {
    let models: Vec<&str> = spec
        .judges
        .iter()
        .filter_map(|j| spec.provider(j).map(|p| p.model.as_str()))
        .collect();
    Benchmark {
        version: BENCHMARK_VERSION,
        scorer: SCORER_VERSION,
        judges: (!models.is_empty())
            .then(|| format!("gem-judge {} · {}", protocol.as_str(), models.join(", "))),
        hidden: false,
    }
}

/// One response's scores: Table 3's parts, and each judge's metrics.
#[derive(Default)]
struct Response {
    parts: BTreeMap<String, f64>,
    judges: BTreeMap<String, BTreeMap<String, f64>>,
}

/// The headline metrics over a sweep's results.
pub fn headlines(input: &ReportInput<'_>) -> Headlines {
    let mut responses: BTreeMap<(String, String, String, u64), Response> = BTreeMap::new();
    for r in input.results {
        let Some(item) = input.item_of(r) else {
            continue;
        };
        let key = (
            r.cell.solution.clone(),
            r.cell.dataset.clone(),
            item.to_string(),
            r.cell.seed,
        );
        let scored = r.scores.iter().filter_map(|s| match s.verdict {
            Verdict::Score(v) => Some((s.metric.clone(), v)),
            Verdict::Unscored(_) => None,
        });
        match (r.stage.as_str(), &r.judge) {
            (SOLVE, _) | (EMBED_STAGE, None) => {
                responses.entry(key).or_default().parts.extend(scored);
            }
            (JUDGE_STAGE, Some(judge)) => {
                let resp = responses.entry(key).or_default();
                resp.judges.entry(judge.clone()).or_default().extend(scored);
            }
            _ => {}
        }
    }
    let six = judge_metrics();
    let (mut table3, mut table4) = (vec![], vec![]);
    for ((solution, dataset, item, seed), resp) in responses {
        let value = |v: f64| HeadlineValue {
            solution: solution.clone(),
            item: format!("{dataset}/{item}"),
            seed: Some(seed),
            value: v,
        };
        let mut parts: Vec<&str> = EFFECTIVENESS.to_vec();
        if dataset == Dataset::CaProd.as_str() && resp.parts.contains_key("ctr") {
            parts.push("ctr");
        }
        let got: Option<Vec<f64>> = parts.iter().map(|m| resp.parts.get(*m).copied()).collect();
        if let Some(v) = got {
            table3.push(value(v.iter().sum::<f64>() / v.len() as f64));
        }
        let per_judge: Vec<f64> = resp
            .judges
            .values()
            .filter_map(|m| {
                let v: Option<Vec<f64>> = six.iter().map(|x| m.get(*x).copied()).collect();
                v.map(|v| v.iter().sum::<f64>() / v.len() as f64)
            })
            .collect();
        if !per_judge.is_empty() {
            table4.push(value(
                per_judge.iter().sum::<f64>() / per_judge.len() as f64,
            ));
        }
    }
    let mut metrics = vec![Headline {
        metric: "overall".into(),
        title: "Overall (Table 3)".into(),
        description: "Per response, the mean of RF, RC, AF, AC and IR (and CTR on CA-Prod when \
                      the response carries an ad); the paper averages the metric means instead, \
                      which agrees when every part is scored on every response."
            .into(),
        values: table3,
    }];
    if !table4.is_empty() {
        metrics.push(Headline {
            metric: "judge-overall".into(),
            title: "Judge Overall (Table 4)".into(),
            description: "Per response, the mean over the sweep's judges of each judge's mean \
                          of the six LLM-judge metrics (Table 4's Overall, averaged over judges)."
                .into(),
            values: table4,
        });
    }
    metrics.retain(|h| !h.values.is_empty());
    Headlines {
        metrics,
        protocols: BTreeMap::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adfarm_proto::{Cell, JobId, JobResult, Score, SuiteSpec};

    fn result(stage: &str, judge: Option<&str>, item: &str, scores: &[(&str, f64)]) -> JobResult {
        JobResult {
            id: JobId(format!("{stage}-{judge:?}-{item}")),
            stage: stage.into(),
            cell: Cell {
                suite: "gem".into(),
                dataset: "mt-human".into(),
                solution: "gi-r".into(),
                seed: 0,
            },
            item: item.into(),
            judge: judge.map(str::to_string),
            output: None,
            scores: scores
                .iter()
                .map(|(m, v)| Score {
                    metric: m.to_string(),
                    verdict: Verdict::Score(*v),
                })
                .collect(),
            usage: vec![],
        }
    }

    #[test]
    fn overall_per_response_averages_its_parts_and_each_judges_six_metrics() {
        let spec: SweepSpec = serde_json::from_value(serde_json::json!({
            "name": "g", "suites": [{"name": "gem", "datasets": ["mt-human"]}],
            "solutions": [], "providers": []
        }))
        .expect("a spec");
        let suite: SuiteSpec = spec.suites[0].clone();
        let six: Vec<(&str, f64)> = judge_metrics().into_iter().map(|m| (m, 60.0)).collect();
        let low: Vec<(&str, f64)> = judge_metrics().into_iter().map(|m| (m, 30.0)).collect();
        let results = vec![
            result(SOLVE, None, "1", &[("injection-rate", 100.0)]),
            result(
                EMBED_STAGE,
                None,
                "1",
                &[
                    ("response-flow", 80.0),
                    ("response-coherence", 60.0),
                    ("ad-flow", 40.0),
                    ("ad-coherence", 20.0),
                ],
            ),
            result(JUDGE_STAGE, Some("j1"), "1", &six),
            result(JUDGE_STAGE, Some("j2"), "1", &low),
            // Item 2 lacks its embedding metrics: no Table 3 value.
            result(SOLVE, None, "2", &[("injection-rate", 0.0)]),
        ];
        let input = ReportInput {
            spec: &spec,
            suite: &suite,
            cells: &[],
            results: &results,
        };
        let h = headlines(&input);
        let t3 = &h.metrics[0];
        assert_eq!(t3.metric, "overall");
        assert_eq!(t3.values.len(), 1);
        assert_eq!(
            (t3.values[0].item.as_str(), t3.values[0].value),
            ("mt-human/1", 60.0)
        );
        let t4 = &h.metrics[1];
        assert_eq!(t4.metric, "judge-overall");
        assert_eq!(t4.values[0].value, 45.0, "the mean of 60 and 30");
    }
}
