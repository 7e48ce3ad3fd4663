//! The numbers of GEM-Bench's tables. The rows come from the tally's
//! cells; with the suite's per-item results (`add_results`) each mean and
//! interval is recomputed over items (see [`crate::interval`]), and cost,
//! agreement and the rewrite failures are read from them
//! (`Output.meta.calls` and `meta.rewrite_failed` of the responses, the
//! judges' verdicts of each).
//!
//! Definitions. Overall (Table 4) is the mean of the six judge metrics'
//! means (accuracy, naturalness, personality, trust, notice, click) of one
//! solution, dataset and judge, as the paper averages them; it is undefined
//! unless all six have a mean. Table 3's Overall is the mean of RF, RC, AF,
//! AC and IR (and CTR on CA-Prod), likewise. Cost Overall is
//! `input_ratio`·ITTFT + OTTFT per response (the sweep's
//! `cost_input_ratio`, 0.5 by default). Agreement pools the six metrics'
//! verdicts of every response: Cohen's κ and ordinal Krippendorff's α per
//! judge pair, α over all judges; Kendall's τ-b ranks the ad-injecting
//! solutions (the no-ads control left out) by each judge's Overall per
//! dataset both judges judged, and reports each dataset's τ and their mean.

use super::ablation::{self, Ablation};
use super::layout;
use super::{is_judge, is_solve};
use crate::agreement::{self, Level};
use crate::cost;
use crate::interval;
use crate::judge_prompts::JUDGE_METRICS;
use adfarm_proto::report::{CellRow, Estimate, Section};
use adfarm_proto::tally::NO_JUDGE;
use adfarm_proto::Verdict;
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
    /// Mean of RF, RC, AF, AC and IR (and CTR on CA-Prod); `None` unless
    /// all have a mean.
    pub overall: Option<f64>,
    /// Responses whose GIR rewrite came back empty (`None`: no responses
    /// were read).
    pub rewrite_failed: Option<i64>,
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
    /// Kendall's τ-b of the two judges' Overall per ad-injecting solution,
    /// per dataset both judged.
    pub tau_by_dataset: BTreeMap<String, Option<f64>>,
    /// Mean of the defined per-dataset τ.
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
    /// The metric-embedder re-scoring, when the sweep has ablation
    /// embedders.
    pub ablation: Option<Ablation>,
    /// Solutions left out of the judges' rankings (the no-ads control).
    pub controls: Vec<String>,
}

/// The cluster of each (dataset, item): the distinct prompt it asks (the
/// first item with its text). An item not listed is its own cluster.
pub type Clusters = BTreeMap<(String, String), String>;

/// Table 3's Overall components: RF, RC, AF, AC, IR, and CTR on CA-Prod.
fn effectiveness_overall(dataset: &str, metrics: &BTreeMap<String, Estimate>) -> Option<f64> {
    let mut parts = vec![
        "response-flow",
        "response-coherence",
        "ad-flow",
        "ad-coherence",
        "injection-rate",
    ];
    if dataset == crate::item::Dataset::CaProd.as_str() {
        parts.push("ctr");
    }
    let means: Option<Vec<f64>> = parts
        .iter()
        .map(|m| metrics.get(*m).and_then(|e| e.mean))
        .collect();
    means.map(|v| v.iter().sum::<f64>() / v.len() as f64)
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
    /// embedders: cells scored by an ablation embedder go to the
    /// metric-embedder re-scoring, never to the judge tables.
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
                        overall: None,
                        rewrite_failed: None,
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
        let judge_scores: Vec<JudgeRow> = jud.into_values().collect();
        let mut all_judges: Vec<String> = judges.to_vec();
        for r in &judge_scores {
            if !all_judges.contains(&r.judge) {
                all_judges.push(r.judge.clone());
            }
        }
        let mut t = Tables {
            effectiveness: eff.into_values().collect(),
            judges: all_judges,
            judge_scores,
            cost: vec![],
            input_ratio: cost::DEFAULT_INPUT_RATIO,
            agreement: vec![],
            alpha_all: None,
            ablation: ablation::from_cells(cells, embedder, ablation),
            controls: vec!["no-ads".into()],
        };
        t.overalls();
        t
    }

    /// Both Overall columns from the current means.
    fn overalls(&mut self) {
        let six = judge_metrics();
        for row in &mut self.judge_scores {
            let means: Option<Vec<f64>> = six
                .iter()
                .map(|m| row.metrics.get(*m).and_then(|s| s.mean))
                .collect();
            row.overall = means.map(|v| v.iter().sum::<f64>() / v.len() as f64);
        }
        for row in &mut self.effectiveness {
            row.overall = effectiveness_overall(&row.dataset, &row.metrics);
        }
    }

    /// Recomputes every mean and interval over items: the scored values of
    /// each (dataset, solution, scorer, metric), averaged per cluster of
    /// `clusters` first. Counts (n, unscored) stay the cells'.
    fn cluster_estimates(&mut self, input: &ReportInput<'_>, clusters: &Clusters) {
        type Key = (String, String, String, String);
        let mut values: BTreeMap<Key, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
        for r in input.results {
            let Some(item) = input.item_of(r) else {
                continue;
            };
            let cluster = clusters
                .get(&(r.cell.dataset.clone(), item.to_string()))
                .map_or(item, String::as_str);
            let scorer = r.judge.as_deref().unwrap_or(NO_JUDGE);
            for s in &r.scores {
                if let Verdict::Score(v) = s.verdict {
                    values
                        .entry((
                            r.cell.dataset.clone(),
                            r.cell.solution.clone(),
                            scorer.to_string(),
                            s.metric.clone(),
                        ))
                        .or_default()
                        .entry(cluster.to_string())
                        .or_default()
                        .push(v);
                }
            }
        }
        let update = |ds: &str, sol: &str, scorer: &str, metric: &str, e: &mut Estimate| {
            let key = (ds.into(), sol.into(), scorer.into(), metric.into());
            if let Some(v) = values.get(&key) {
                let c = interval::clustered(v);
                e.mean = c.mean;
                e.ci95 = c.ci95;
            }
        };
        for r in &mut self.effectiveness {
            for (m, e) in r.metrics.iter_mut() {
                update(&r.dataset, &r.solution, NO_JUDGE, m, e);
            }
        }
        for r in &mut self.judge_scores {
            for (m, e) in r.metrics.iter_mut() {
                update(&r.dataset, &r.solution, &r.judge, m, e);
            }
        }
        if let Some(a) = &mut self.ablation {
            let primary = a.embedders.first().cloned().unwrap_or_default();
            for r in &mut a.rows {
                for (embedder, metrics) in r.metrics.iter_mut() {
                    let scorer = if *embedder == primary {
                        NO_JUDGE
                    } else {
                        embedder
                    };
                    for (m, e) in metrics.iter_mut() {
                        update(&r.dataset, &r.solution, scorer, m, e);
                    }
                }
            }
        }
        self.overalls();
    }

    /// Fills cost, agreement and rewrite failures from the suite's per-item
    /// results, and recomputes the estimates over items (`clusters`).
    pub fn add_results(&mut self, input: &ReportInput<'_>, clusters: &Clusters) {
        self.cluster_estimates(input, clusters);
        let mut failed: BTreeMap<(String, String), i64> = BTreeMap::new();
        let mut costs: BTreeMap<(String, String), CostSum> = BTreeMap::new();
        // (response, metric) → judge → category.
        let mut units: BTreeMap<(Response, String), BTreeMap<String, i64>> = BTreeMap::new();
        let six = judge_metrics();
        for r in input.results {
            if is_solve(r) {
                let Some(out) = &r.output else { continue };
                *failed
                    .entry((r.cell.dataset.clone(), r.cell.solution.clone()))
                    .or_default() += i64::from(out.meta["rewrite_failed"] == true);
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
        for row in &mut self.effectiveness {
            row.rewrite_failed = failed
                .get(&(row.dataset.clone(), row.solution.clone()))
                .copied();
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

    /// Judge `judge`'s Overall per ad-injecting solution on `dataset`.
    fn ranked_overall(&self, judge: &str, dataset: &str) -> BTreeMap<String, f64> {
        self.judge_scores
            .iter()
            .filter(|r| r.judge == judge && r.dataset == dataset)
            .filter(|r| !self.controls.contains(&r.solution))
            .filter_map(|r| Some((r.solution.clone(), r.overall?)))
            .collect()
    }

    /// Kendall's τ-b of judges `a` and `b` per dataset both judged (an
    /// Overall of some solution from each), and their mean.
    fn tau(&self, a: &str, b: &str) -> (BTreeMap<String, Option<f64>>, Option<f64>) {
        let mut datasets: Vec<&str> = self
            .judge_scores
            .iter()
            .map(|r| r.dataset.as_str())
            .collect();
        datasets.sort_unstable();
        datasets.dedup();
        let mut by_dataset = BTreeMap::new();
        for d in datasets {
            let (oa, ob) = (self.ranked_overall(a, d), self.ranked_overall(b, d));
            if oa.is_empty() || ob.is_empty() {
                continue;
            }
            let common: Vec<&String> = oa.keys().filter(|k| ob.contains_key(*k)).collect();
            let xa: Vec<f64> = common.iter().map(|k| oa[*k]).collect();
            let xb: Vec<f64> = common.iter().map(|k| ob[*k]).collect();
            by_dataset.insert(d.to_string(), agreement::kendall_tau_b(&xa, &xb));
        }
        let defined: Vec<f64> = by_dataset.values().flatten().copied().collect();
        let mean =
            (!defined.is_empty()).then(|| defined.iter().sum::<f64>() / defined.len() as f64);
        (by_dataset, mean)
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
                let (tau_by_dataset, tau) = self.tau(a, b);
                rows.push(Agreement {
                    judge_a: a.clone(),
                    judge_b: b.clone(),
                    paired: paired.count() as i64,
                    kappa: agreement::cohen_kappa(&va, &vb),
                    alpha: agreement::krippendorff_alpha(&pair_units, Level::Ordinal),
                    tau_by_dataset,
                    tau,
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
            prefix_cache_tokens: None,
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
    fn cost_and_agreement_come_from_the_results_read_in_one_pass() {
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
        t.add_results(&input, &Clusters::new());

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

    fn input<'a>(spec: &'a SweepSpec, c: &'a [CellRow], r: &'a [JobResult]) -> ReportInput<'a> {
        ReportInput {
            spec,
            suite: &spec.suites[0],
            cells: c,
            results: r,
        }
    }

    /// gi-r's response-flow on `item` with `seed`.
    fn flow(item: &str, seed: u64, v: f64) -> JobResult {
        let mut r = result(&format!("{item}-{seed}"), crate::EMBED_STAGE, "gi-r", None);
        r.item = item.into();
        r.cell.seed = seed;
        r.scores = vec![Score {
            metric: "response-flow".into(),
            verdict: Verdict::Score(v),
        }];
        r
    }

    #[test]
    fn intervals_are_over_prompts_with_seeds_and_repeats_averaged_first() {
        let c = cells();
        let mut t = Tables::from_cells(&c, &judges(), None, &[]);
        // i0 two seeds (10, 12); i1 two seeds (30, 32); i2 asks i1's
        // prompt again (31): two prompts, means 11 and 31.
        let results = vec![
            flow("i0", 1, 10.0),
            flow("i0", 2, 12.0),
            flow("i1", 1, 30.0),
            flow("i1", 2, 32.0),
            flow("i2", 1, 31.0),
        ];
        let clusters = Clusters::from([(("mt-human".into(), "i2".into()), "i1".into())]);
        let spec = spec();
        t.add_results(&input(&spec, &c, &results), &clusters);
        let rf = &t.effectiveness[1].metrics["response-flow"];
        assert_eq!(rf.mean, Some(21.0));
        // sd of {11, 31} = √200; t(0.975, 1) = 12.7062; / √2 clusters.
        let want = 12.7062 * 200f64.sqrt() / 2f64.sqrt();
        assert!(
            (rf.ci95.expect("two prompts") - want).abs() < 1e-2,
            "{rf:?}"
        );
        assert_eq!((rf.n, rf.unscored), (10, 2), "counts stay the cells'");
    }

    #[test]
    fn table_3_overall_is_the_mean_of_rf_rc_af_ac_ir_and_ctr_on_ca_prod() {
        let mut c = vec![];
        for (ds, extra) in [("mt-human", None), ("ca-prod", Some(("ctr", 70.0)))] {
            for (m, v) in [
                ("response-flow", 10.0),
                ("response-coherence", 20.0),
                ("ad-flow", 30.0),
                ("ad-coherence", 40.0),
                ("injection-rate", 100.0),
            ]
            .into_iter()
            .chain(extra)
            {
                let mut x = cell("gi-r", NO_JUDGE, m, v);
                x.dataset = ds.into();
                c.push(x);
            }
        }
        // no-ads has no ad metrics: no Overall.
        c.push(cell("no-ads", NO_JUDGE, "response-flow", 50.0));
        let t = Tables::from_cells(&c, &[], None, &[]);
        let overall = |ds: &str, sol: &str| {
            t.effectiveness
                .iter()
                .find(|r| r.dataset == ds && r.solution == sol)
                .and_then(|r| r.overall)
        };
        assert_eq!(overall("mt-human", "gi-r"), Some(40.0));
        assert_eq!(overall("ca-prod", "gi-r"), Some(45.0), "with CTR 70");
        assert_eq!(overall("mt-human", "no-ads"), None);
    }

    #[test]
    fn tau_ranks_the_ad_solutions_per_dataset_both_judged() {
        let mut c = vec![];
        let mut six = |ds: &str, sol: &str, judge: &str, v: f64| {
            for m in judge_metrics() {
                let mut x = cell(sol, judge, m, v);
                x.dataset = ds.into();
                c.push(x);
            }
        };
        // On mt-human both judges rank s1 < s2 < s3; they disagree only on
        // the control.
        for (sol, a, b) in [("s1", 10.0, 15.0), ("s2", 20.0, 25.0), ("s3", 30.0, 35.0)] {
            six("mt-human", sol, "j1", a);
            six("mt-human", sol, "j2", b);
        }
        six("mt-human", "no-ads", "j1", 90.0);
        six("mt-human", "no-ads", "j2", 0.0);
        // Only j1 judged lm-market, in the reverse order: not compared.
        for (sol, a) in [("s1", 90.0), ("s2", 50.0), ("s3", 0.0)] {
            six("lm-market", sol, "j1", a);
        }
        let mut t = Tables::from_cells(&c, &judges(), None, &[]);
        let spec = spec();
        t.add_results(&input(&spec, &c, &[]), &Clusters::new());
        let a = &t.agreement[0];
        assert_eq!(
            a.tau_by_dataset,
            BTreeMap::from([("mt-human".to_string(), Some(1.0))])
        );
        assert_eq!(a.tau, Some(1.0));
    }

    #[test]
    fn empty_rewrites_are_counted_per_solution() {
        let c = cells();
        let mut t = Tables::from_cells(&c, &judges(), None, &[]);
        let mut failed = response("r0", 10, 10);
        if let Some(o) = &mut failed.output {
            o.meta["rewrite_failed"] = true.into();
        }
        let results = vec![failed, response("r1", 10, 10)];
        let spec = spec();
        t.add_results(&input(&spec, &c, &results), &Clusters::new());
        let count = |sol: &str| {
            t.effectiveness
                .iter()
                .find(|r| r.solution == sol)
                .and_then(|r| r.rewrite_failed)
        };
        assert_eq!(count("gi-r"), Some(1));
        assert_eq!(count("ad-chat"), None, "no responses read");
    }

    /// The cost Overall weighs input tokens by the sweep's ratio, not a
    /// fixed 0.5.
    #[test]
    fn the_cost_overall_weighs_input_by_the_sweeps_ratio() {
        let mut spec = spec();
        spec.suites[0].params = serde_json::json!({ "cost_input_ratio": 0.25 });
        let c = cells();
        let results = vec![response("r0", 400, 100)];
        let sections = crate::report::sections(&input(&spec, &c, &results), None);
        let cost = sections
            .iter()
            .find(|s| s.id == "cost")
            .expect("a cost section");
        assert!(
            cost.intro
                .as_deref()
                .is_some_and(|i| i.contains("Overall = 0.25·ITTFT + OTTFT")),
            "{:?}",
            cost.intro
        );
        let row = &cost.tables[0].rows[0];
        assert_eq!(
            row[5],
            Some(adfarm_proto::report::Value::Number(0.25 * 400.0 + 100.0))
        );
    }
}
