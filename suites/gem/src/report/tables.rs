//! The numbers of GEM-Bench's tables. Effectiveness and the judge tables
//! come from the tally's cells; cost and agreement from per-item results
//! (`Output.meta.calls` of the responses, the judges' verdicts of each).
//!
//! Definitions. Overall (Table 4) is the mean of the six judge metrics'
//! means (accuracy, naturalness, personality, trust, notice, click) of one
//! solution, dataset and judge, as the paper averages them; it is undefined
//! unless all six have a mean. Cost Overall is `input_ratio`·ITTFT + OTTFT
//! per response (ratio 0.5). Agreement pools the six metrics' verdicts of
//! every response: Cohen's κ and ordinal Krippendorff's α per judge pair,
//! α over all judges, and Kendall's τ-b between two judges' Overall per
//! solution (averaged over datasets).

use super::ablation::{self, Ablation};
use super::layout;
use super::{is_judge, is_solve};
use crate::agreement::{self, Level};
use crate::cost;
use crate::judge_prompts::JUDGE_METRICS;
use adfarm_proto::report::{CellRow, Estimate, Section};
use adfarm_proto::tally::NO_JUDGE;
use adfarm_suite::ReportInput;
use std::collections::BTreeMap;

/// The six judge metric names, in the paper's order.
pub fn judge_metrics() -> Vec<&'static str> {
    JUDGE_METRICS.iter().map(|m| m.name).collect()
}

/// Table 3: one dataset × solution's generation-time and embedding metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct EffectivenessRow {
    /// Dataset.
    pub dataset: String,
    /// Solution.
    pub solution: String,
    /// Estimates by metric name.
    pub metrics: BTreeMap<String, Estimate>,
}

/// Tables 4 and 7–9: one judge's scores of one solution on one dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeRow {
    /// Dataset.
    pub dataset: String,
    /// Solution.
    pub solution: String,
    /// Judge.
    pub judge: String,
    /// The six judge metrics (and moderate-good-rate), by name.
    pub metrics: BTreeMap<String, Estimate>,
    /// Mean of the six metrics' means; `None` unless all six have one.
    pub overall: Option<f64>,
}

/// Table 6: token cost of one solution on one dataset, per response.
#[derive(Debug, Clone, PartialEq)]
pub struct CostRow {
    /// Dataset.
    pub dataset: String,
    /// Solution.
    pub solution: String,
    /// Responses with recorded calls.
    pub responses: i64,
    /// Mean input tokens of the calls before the response is shown.
    pub ittft: f64,
    /// Mean output tokens of those calls.
    pub ottft: f64,
    /// input_ratio·ITTFT + OTTFT.
    pub overall: f64,
    /// Mean USD per response at the sweep's prices (cached calls included:
    /// they are the solution's cost).
    pub usd_per_response: f64,
    /// Mean seconds of those calls (cached calls count their original
    /// time); `None` for results from before latency was recorded.
    pub latency_s: Option<f64>,
}

/// Agreement of two judges.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    /// First judge.
    pub judge_a: String,
    /// Second judge.
    pub judge_b: String,
    /// Verdicts both judges scored.
    pub paired: i64,
    /// Cohen's κ on the verdict categories.
    pub kappa: Option<f64>,
    /// Ordinal Krippendorff's α of the two judges.
    pub alpha: Option<f64>,
    /// Kendall's τ-b of the two judges' Overall per solution.
    pub tau: Option<f64>,
}

/// Every GEM-Bench table of a sweep, as numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Tables {
    /// Table 3, per dataset × solution.
    pub effectiveness: Vec<EffectivenessRow>,
    /// Judges: the sweep's, in order, then any other the cells name.
    pub judges: Vec<String>,
    /// Tables 4 and 7–9, per dataset × solution × judge.
    pub judge_scores: Vec<JudgeRow>,
    /// Table 6, per dataset × solution.
    pub cost: Vec<CostRow>,
    /// Weight of input tokens in the cost Overall.
    pub input_ratio: f64,
    /// One row per judge pair.
    pub agreement: Vec<Agreement>,
    /// Ordinal Krippendorff's α over all judges' verdicts.
    pub alpha_all: Option<f64>,
    /// Table 5, when the sweep has ablation embedders.
    pub ablation: Option<Ablation>,
}

/// Per-response cost sums of one (dataset, solution).
#[derive(Default)]
struct CostSum {
    n: i64,
    ittft: u64,
    ottft: u64,
    latency_ms: u64,
    usd: f64,
}

/// A response: dataset, solution, seed and item.
type Response = (String, String, u64, String);

impl Tables {
    /// The tables that need only the cells (cost and agreement left empty).
    /// `embedder` and `ablation` are the sweep's embedder and ablation
    /// embedders: cells scored by an ablation embedder go to Table 5, never
    /// to the judge tables.
    pub fn from_cells(
        cells: &[CellRow],
        judges: &[String],
        embedder: Option<&str>,
        ablation: &[String],
    ) -> Tables {
        let mut eff: BTreeMap<(String, String), EffectivenessRow> = BTreeMap::new();
        let mut jud: BTreeMap<(String, String, String), JudgeRow> = BTreeMap::new();
        for c in cells.iter().filter(|c| !ablation.contains(&c.judge)) {
            let key = (c.dataset.clone(), c.solution.clone());
            if c.judge == NO_JUDGE {
                eff.entry(key)
                    .or_insert_with(|| EffectivenessRow {
                        dataset: c.dataset.clone(),
                        solution: c.solution.clone(),
                        metrics: BTreeMap::new(),
                    })
                    .metrics
                    .insert(c.metric.clone(), c.into());
            } else {
                jud.entry((key.0, key.1, c.judge.clone()))
                    .or_insert_with(|| JudgeRow {
                        dataset: c.dataset.clone(),
                        solution: c.solution.clone(),
                        judge: c.judge.clone(),
                        metrics: BTreeMap::new(),
                        overall: None,
                    })
                    .metrics
                    .insert(c.metric.clone(), c.into());
            }
        }
        let six = judge_metrics();
        let mut judge_scores: Vec<JudgeRow> = jud.into_values().collect();
        for row in &mut judge_scores {
            let means: Option<Vec<f64>> = six
                .iter()
                .map(|m| row.metrics.get(*m).and_then(|s| s.mean))
                .collect();
            row.overall = means.map(|v| v.iter().sum::<f64>() / v.len() as f64);
        }
        let mut all_judges: Vec<String> = judges.to_vec();
        for r in &judge_scores {
            if !all_judges.contains(&r.judge) {
                all_judges.push(r.judge.clone());
            }
        }
        Tables {
            effectiveness: eff.into_values().collect(),
            judges: all_judges,
            judge_scores,
            cost: vec![],
            input_ratio: cost::DEFAULT_INPUT_RATIO,
            agreement: vec![],
            alpha_all: None,
            ablation: ablation::from_cells(cells, embedder, ablation),
        }
    }

    /// Fills cost and agreement from the suite's per-item results.
    pub fn add_results(&mut self, input: &ReportInput<'_>) {
        let mut costs: BTreeMap<(String, String), CostSum> = BTreeMap::new();
        // (response, metric) → judge → category.
        let mut units: BTreeMap<(Response, String), BTreeMap<String, i64>> = BTreeMap::new();
        let six = judge_metrics();
        for r in input.results {
            if is_solve(r) {
                let Some(out) = &r.output else { continue };
                let calls = cost::calls_from_meta(&out.meta);
                if calls.is_empty() {
                    continue;
                }
                let c = costs
                    .entry((r.cell.dataset.clone(), r.cell.solution.clone()))
                    .or_default();
                c.n += 1;
                c.ittft += cost::ittft(&calls);
                c.ottft += cost::ottft(&calls);
                c.latency_ms += cost::latency_ms(&calls);
                c.usd += calls
                    .iter()
                    .filter_map(|k| {
                        let p = input.spec.provider_for_model(&k.model)?;
                        Some(p.cost_usd(k.input, k.output))
                    })
                    .sum::<f64>();
            } else if is_judge(r) {
                let (Some(judge), Some(item)) = (&r.judge, input.item_of(r)) else {
                    continue;
                };
                let response: Response = (
                    r.cell.dataset.clone(),
                    r.cell.solution.clone(),
                    r.cell.seed,
                    item.to_string(),
                );
                for s in r.scores.iter().filter(|s| six.contains(&s.metric.as_str())) {
                    if let Some(v) = agreement::verdict_category(&s.verdict) {
                        units
                            .entry((response.clone(), s.metric.clone()))
                            .or_default()
                            .insert(judge.clone(), v);
                    }
                }
            }
        }
        self.cost = costs
            .into_iter()
            .map(|((dataset, solution), c)| {
                let n = c.n as f64;
                let (i, o) = (c.ittft as f64 / n, c.ottft as f64 / n);
                CostRow {
                    dataset,
                    solution,
                    responses: c.n,
                    ittft: i,
                    ottft: o,
                    overall: self.input_ratio * i + o,
                    usd_per_response: c.usd / n,
                    latency_s: (c.latency_ms > 0).then(|| c.latency_ms as f64 / 1000.0 / n),
                }
            })
            .collect();
        let units: Vec<&BTreeMap<String, i64>> = units.values().collect();
        self.agreement = self.agreement_rows(&units);
        let all: Vec<Vec<Option<f64>>> = units
            .iter()
            .map(|m| {
                self.judges
                    .iter()
                    .map(|j| m.get(j).map(|v| *v as f64))
                    .collect()
            })
            .collect();
        self.alpha_all = agreement::krippendorff_alpha(&all, Level::Ordinal);
    }

    /// Each judge's Overall per solution, averaged over datasets.
    fn solution_overall(&self, judge: &str) -> BTreeMap<String, f64> {
        let mut acc: BTreeMap<String, (f64, f64)> = BTreeMap::new();
        for r in self.judge_scores.iter().filter(|r| r.judge == judge) {
            if let Some(o) = r.overall {
                let e = acc.entry(r.solution.clone()).or_default();
                e.0 += o;
                e.1 += 1.0;
            }
        }
        acc.into_iter().map(|(k, (s, n))| (k, s / n)).collect()
    }

    /// One row per judge pair, over `units` (judge → category per response
    /// and metric).
    fn agreement_rows(&self, units: &[&BTreeMap<String, i64>]) -> Vec<Agreement> {
        let mut rows = vec![];
        for (i, a) in self.judges.iter().enumerate() {
            for b in &self.judges[i + 1..] {
                let va: Vec<Option<i64>> = units.iter().map(|m| m.get(a).copied()).collect();
                let vb: Vec<Option<i64>> = units.iter().map(|m| m.get(b).copied()).collect();
                let paired = va
                    .iter()
                    .zip(&vb)
                    .filter(|(x, y)| x.is_some() && y.is_some());
                let pair_units: Vec<Vec<Option<f64>>> = va
                    .iter()
                    .zip(&vb)
                    .map(|(x, y)| vec![x.map(|v| v as f64), y.map(|v| v as f64)])
                    .collect();
                let (oa, ob) = (self.solution_overall(a), self.solution_overall(b));
                let common: Vec<&String> = oa.keys().filter(|k| ob.contains_key(*k)).collect();
                let xa: Vec<f64> = common.iter().map(|k| oa[*k]).collect();
                let xb: Vec<f64> = common.iter().map(|k| ob[*k]).collect();
                rows.push(Agreement {
                    judge_a: a.clone(),
                    judge_b: b.clone(),
                    paired: paired.count() as i64,
                    kappa: agreement::cohen_kappa(&va, &vb),
                    alpha: agreement::krippendorff_alpha(&pair_units, Level::Ordinal),
                    tau: agreement::kendall_tau_b(&xa, &xb),
                });
            }
        }
        rows
    }

    /// The tables as report sections of suite `suite`.
    pub fn sections(&self, suite: &str) -> Vec<Section> {
        layout::sections(suite, self)
    }

    /// Every (dataset, solution) in the tables, sorted.
    pub fn keys(&self) -> Vec<(String, String)> {
        let mut keys: Vec<(String, String)> = self
            .effectiveness
            .iter()
            .map(|r| (r.dataset.clone(), r.solution.clone()))
            .chain(
                self.judge_scores
                    .iter()
                    .map(|r| (r.dataset.clone(), r.solution.clone())),
            )
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// Every solution in the tables, sorted.
    pub fn solutions(&self) -> Vec<String> {
        let mut s: Vec<String> = self.keys().into_iter().map(|(_, s)| s).collect();
        s.sort();
        s.dedup();
        s
    }

    /// Judge `judge`'s Overall of `solution` on `dataset`.
    pub fn overall(&self, dataset: &str, solution: &str, judge: &str) -> Option<f64> {
        self.judge_scores
            .iter()
            .find(|x| x.dataset == dataset && x.solution == solution && x.judge == judge)
            .and_then(|x| x.overall)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::{cell, cells};
    use crate::JUDGE_STAGE;
    use adfarm_proto::{
        Cell, JobId, JobResult, Output, ProviderKind, ProviderSpec, Score, SuiteSpec, SweepSpec,
        Verdict, SOLVE,
    };

    fn judges() -> Vec<String> {
        vec!["j1".into(), "j2".into()]
    }

    #[test]
    fn overall_is_the_mean_of_the_six_judge_metrics_and_needs_all_six() {
        let t = Tables::from_cells(&cells(), &judges(), None, &[]);
        // 60, 66, 72, 78, 84, 90 → 75.
        assert_eq!(t.overall("mt-human", "gi-r", "j1"), Some(75.0));
        assert_eq!(t.overall("mt-human", "ad-chat", "j1"), Some(30.0));
        assert_eq!(
            t.overall("mt-human", "ad-chat", "j2"),
            None,
            "click is missing"
        );
        assert_eq!(t.effectiveness.len(), 2);
        let gir = &t.effectiveness[1];
        assert_eq!(gir.solution, "gi-r");
        assert_eq!(gir.metrics["injection-rate"].mean, Some(100.0));
        assert_eq!(gir.metrics["injection-rate"].unscored, 2);
        assert_eq!(t.judges, ["j1", "j2"]);
        assert_eq!(t.solutions(), ["ad-chat", "gi-r"]);
    }

    #[test]
    fn judges_the_sweep_does_not_list_follow_its_own() {
        let mut c = cells();
        c.push(cell("gi-r", "j3", "accuracy", 1.0));
        let t = Tables::from_cells(&c, &["j2".into()], None, &[]);
        assert_eq!(t.judges, ["j2", "j1", "j3"]);
    }

    fn spec() -> SweepSpec {
        let provider = |name: &str, model: &str| ProviderSpec {
            name: name.into(),
            kind: ProviderKind::OpenaiCompatible,
            base_url: None,
            model: model.into(),
            api_key_env: None,
            requests_per_minute: 60.0,
            tokens_per_minute: None,
            max_concurrency: 1,
            timeout_secs: 1.0,
            max_attempts: 1,
            input_usd_per_mtok: Some(0.25),
            output_usd_per_mtok: Some(1.0),
            limit_group: None,
        };
        SweepSpec {
            name: "t".into(),
            suites: vec![SuiteSpec {
                name: "gem".into(),
                datasets: vec!["mt-human".into()],
                limit: None,
                sample: Default::default(),
                params: serde_json::json!({}),
            }],
            solutions: vec![],
            providers: vec![provider("gen", "gen-1")],
            judges: judges(),
            embedder: None,
            seeds: vec![0],
            budget_usd: None,
        }
    }

    fn result(id: &str, stage: &str, solution: &str, judge: Option<&str>) -> JobResult {
        JobResult {
            id: JobId(id.into()),
            stage: stage.into(),
            item: String::new(),
            cell: Cell {
                suite: "gem".into(),
                dataset: "mt-human".into(),
                solution: solution.into(),
                seed: 0,
            },
            judge: judge.map(str::to_string),
            output: None,
            scores: vec![],
            usage: vec![],
        }
    }

    /// A response of gi-r whose calls took `input` and `output` tokens
    /// (split over two calls, one cached) and 750 ms each.
    fn response(id: &str, input: u64, output: u64) -> JobResult {
        let calls = serde_json::json!([
            {"step": "answer", "model": "gen-1", "input": input / 2, "output": output / 2, "cached": true, "latency_ms": 750},
            {"step": "rewrite", "model": "gen-1", "input": input / 2, "output": output / 2, "cached": false, "latency_ms": 750},
        ]);
        JobResult {
            output: Some(Output {
                text: "an answer".into(),
                meta: serde_json::json!({ "calls": calls }),
            }),
            ..result(id, SOLVE, "gi-r", None)
        }
    }

    /// Judge `judge`'s accuracy verdict on item `item`'s response.
    fn verdict(id: &str, judge: &str, v: Verdict) -> JobResult {
        JobResult {
            scores: vec![Score {
                metric: "accuracy".into(),
                verdict: v,
            }],
            ..result(id, JUDGE_STAGE, "gi-r", Some(judge))
        }
    }

    #[test]
    fn issue_9_cost_and_agreement_come_from_the_results_read_in_one_pass() {
        let mut c = cells();
        // j2's Overall of ad-chat is defined here, so both judges rank both.
        c.push(cell("ad-chat", "j2", "click", 50.0));
        let mut t = Tables::from_cells(&c, &judges(), None, &[]);
        let mut results = vec![
            response("r0", 400, 100),
            response("r1", 600, 300),
            // A response without recorded calls has no cost.
            result("r2", SOLVE, "gi-r", None),
        ];
        for (u, (a, b)) in [(0, 0), (30, 30), (60, 60), (90, 60)]
            .into_iter()
            .enumerate()
        {
            for (judge, v) in [("j1", a), ("j2", b)] {
                let id = format!("{judge}-{u}");
                let mut r = verdict(&id, judge, Verdict::Score(f64::from(v)));
                r.item = format!("item-{u}");
                results.push(r);
            }
        }
        // Unpaired, unscored, or about no known item: none is a pair.
        let mut r = verdict("j1-9", "j1", Verdict::Score(30.0));
        r.item = "item-9".into();
        results.push(r);
        let mut r = verdict("j2-9", "j2", Verdict::Unscored("parse-failure".into()));
        r.item = "item-9".into();
        results.push(r);
        results.push(verdict("j2-x", "j2", Verdict::Score(30.0)));
        let spec = spec();
        let input = ReportInput {
            spec: &spec,
            suite: &spec.suites[0],
            cells: &c,
            results: &results,
        };
        t.add_results(&input);

        assert_eq!(t.cost.len(), 1, "{:?}", t.cost);
        let cost = &t.cost[0];
        assert_eq!((cost.solution.as_str(), cost.responses), ("gi-r", 2));
        assert_eq!((cost.ittft, cost.ottft), (500.0, 200.0));
        assert_eq!(cost.overall, 0.5 * 500.0 + 200.0);
        // 500 input at 0.25 and 200 output at 1.0 USD per million, cached
        // calls included.
        assert!((cost.usd_per_response - 0.000325).abs() < 1e-12);
        assert_eq!(cost.latency_s, Some(1.5));

        assert_eq!(t.agreement.len(), 1);
        let a = &t.agreement[0];
        assert_eq!(
            (a.judge_a.as_str(), a.judge_b.as_str(), a.paired),
            ("j1", "j2", 4)
        );
        // po = 3/4; marginals j1 {0,30,60,90} ¼ each, j2 {0:¼,30:¼,60:½}
        // → pe = 1/16 + 1/16 + 1/8 = 1/4; κ = (3/4 − 1/4)/(3/4) = 2/3.
        assert!((a.kappa.expect("defined") - 2.0 / 3.0).abs() < 1e-12);
        assert!(a.alpha.expect("defined") > 0.5);
        // j1 ranks gi-r (75) over ad-chat (30), j2 the reverse (20 < 50).
        assert_eq!(a.tau, Some(-1.0));
        assert!(t.alpha_all.expect("defined") > 0.5);
    }
}
