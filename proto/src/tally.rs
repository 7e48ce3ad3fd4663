//! Aggregates as integer counters. A store keeps a flat map of named i64
//! counters per sweep and adds a result's increments in the same atomic step
//! that stores it; this module decides the names and reads them back.
//!
//! Scores are fixed point (1e-6 for sums, 1e-4 for sums of squares), so the
//! totals do not depend on the order jobs finished in: a distributed run and
//! an embedded run of one sweep give bit-identical aggregates.

use crate::outcome::{Failure, JobResult, Role, Usage, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Judge column for metrics that no judge produced. The judge column is
/// the scorer column: it also names the ablation embedder of an
/// `embedding_ablation` embed-metrics job, while the sweep's own embedder
/// scores under [`NO_JUDGE`] (so sweeps without an ablation read as before).
pub const NO_JUDGE: &str = "-";
/// Field separator in counter names; names in a sweep may not contain it.
pub const SEP: char = '|';

const SUM_SCALE: f64 = 1e6;
const SQ_SCALE: f64 = 1e4;
/// Stage field of failures whose message could not be read.
const UNKNOWN_STAGE: &str = "unknown";
/// Failure code of jobs not run because the sweep's budget was spent.
pub const BUDGET_CODE: &str = "budget";
/// Counter of the times a process found the sweep's earlier registration
/// lost by the store.
const LOST: &str = "store-lost";
/// Spend is counted in nano-USD.
pub const NANO: f64 = 1e9;

/// One leaderboard cell: a metric of a solution on a dataset by a judge.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    /// Suite.
    pub suite: String,
    /// Dataset.
    pub dataset: String,
    /// Solution.
    pub solution: String,
    /// Scorer: the judge, the ablation embedder, or [`NO_JUDGE`].
    pub judge: String,
    /// Metric.
    pub metric: String,
}

/// Running sums of one cell.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellSums {
    /// Scored values.
    pub n: i64,
    /// Sum of values × 1e6.
    pub sum: i64,
    /// Sum of squared values × 1e4.
    pub sum_sq: i64,
    /// Unscored values by reason.
    pub unscored: BTreeMap<String, i64>,
}

/// Usage totals of one model in one role, cached or not.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct UsageKey {
    /// Model.
    pub model: String,
    /// Role.
    pub role: Role,
    /// Served from the cache.
    pub cached: bool,
}

/// Usage sums.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageSums {
    /// Calls.
    pub requests: i64,
    /// Input tokens.
    pub input: i64,
    /// Output tokens.
    pub output: i64,
    /// Calls whose tokens were counted locally rather than reported.
    pub counted: i64,
}

/// Everything a store aggregates for one sweep.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Completed jobs per stage.
    pub completed: BTreeMap<String, i64>,
    /// Dead-lettered jobs per stage (unreadable messages under `None`).
    pub failed: BTreeMap<Option<String>, i64>,
    /// Jobs not run because the budget was spent, per stage.
    pub skipped: BTreeMap<String, i64>,
    /// Score sums per cell.
    pub cells: BTreeMap<CellKey, CellSums>,
    /// Usage per model, role and cache state, each call once per sweep
    /// (however often redeliveries repeated it): what the results cost.
    pub usage: BTreeMap<UsageKey, UsageSums>,
    /// Money spent, nano-USD, each call once (as `usage`).
    pub spend_nano_usd: i64,
    /// Calls that reached the provider per model and role, every one of
    /// them (redeliveries and lost results included): the provider's bill.
    pub billed: BTreeMap<UsageKey, UsageSums>,
    /// The provider's bill, nano-USD.
    pub billed_nano_usd: i64,
    /// A process found that the store had lost an earlier registration of
    /// the sweep (a Redis restarted empty): `billed` then covers only the
    /// requests sent since the present registration, as nothing a store
    /// loss erases can be counted again.
    pub store_lost: bool,
}

fn field(parts: &[&str]) -> String {
    parts.join(&SEP.to_string())
}

/// Counters never wrap: an absurd count stays the largest one.
fn saturating_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Tally {
    /// Counter increments for a newly stored result.
    pub fn result_fields(r: &JobResult) -> Vec<(String, i64)> {
        let mut out = vec![(field(&["done", &r.stage]), 1)];
        let judge = r.judge.as_deref().unwrap_or(NO_JUDGE);
        for s in &r.scores {
            let base = [
                "cell",
                &r.cell.suite,
                &r.cell.dataset,
                &r.cell.solution,
                judge,
                &s.metric,
            ];
            match &s.verdict {
                Verdict::Score(v) => {
                    out.push((field(&[&base[..], &["n"]].concat()), 1));
                    out.push((
                        field(&[&base[..], &["sum"]].concat()),
                        (v * SUM_SCALE).round() as i64,
                    ));
                    out.push((
                        field(&[&base[..], &["sq"]].concat()),
                        (v * v * SQ_SCALE).round() as i64,
                    ));
                }
                Verdict::Unscored(reason) => {
                    let tag = format!("x:{reason}");
                    out.push((field(&[&base[..], &[tag.as_str()]].concat()), 1));
                }
            }
        }
        out
    }

    /// Counter increments for a newly recorded failure. A job refused by
    /// the budget counts as skipped, not failed.
    pub fn failure_fields(f: &Failure) -> Vec<(String, i64)> {
        let stage = f.stage.as_deref().unwrap_or(UNKNOWN_STAGE);
        let state = if f.code == BUDGET_CODE {
            "skipped"
        } else {
            "failed"
        };
        vec![(field(&[state, stage]), 1)]
    }

    /// Counter increments for one model call charged to the sweep.
    pub fn charge_fields(u: &Usage, cost_usd: f64) -> Vec<(String, i64)> {
        let cached = if u.cached { "1" } else { "0" };
        let base = ["usage", u.model.as_str(), u.role.as_str(), cached];
        let mut out = vec![
            (field(&[&base[..], &["requests"]].concat()), 1),
            (
                field(&[&base[..], &["input"]].concat()),
                saturating_i64(u.input),
            ),
            (
                field(&[&base[..], &["output"]].concat()),
                saturating_i64(u.output),
            ),
        ];
        if u.source == crate::UsageSource::Counted {
            out.push((field(&[&base[..], &["counted"]].concat()), 1));
        }
        if !u.cached {
            out.push(("spend".to_string(), (cost_usd * NANO).round() as i64));
        }
        out
    }

    /// Counter increment for one request about to be sent to a provider
    /// (every attempt, counted before it leaves, so a worker killed while
    /// waiting for the answer leaves it on the bill).
    pub fn request_fields(model: &str, role: Role) -> Vec<(String, i64)> {
        vec![(field(&["billed", model, role.as_str(), "requests"]), 1)]
    }

    /// Counter increments for the usage of one answer a provider gave,
    /// added whether or not the sweep was already charged for the call.
    pub fn bill_fields(u: &Usage, cost_usd: f64) -> Vec<(String, i64)> {
        let base = ["billed", u.model.as_str(), u.role.as_str()];
        vec![
            (
                field(&[&base[..], &["input"]].concat()),
                saturating_i64(u.input),
            ),
            (
                field(&[&base[..], &["output"]].concat()),
                saturating_i64(u.output),
            ),
            ("billed-spend".to_string(), (cost_usd * NANO).round() as i64),
        ]
    }

    /// Counter increment a process adds when it finds that the store lost
    /// an earlier registration of the sweep (see [`Tally::store_lost`]).
    pub fn loss_fields() -> Vec<(String, i64)> {
        vec![(LOST.to_string(), 1)]
    }

    /// Reads counters back; fields this version does not know are ignored.
    pub fn from_fields<'a>(fields: impl IntoIterator<Item = (&'a str, i64)>) -> Tally {
        let mut t = Tally::default();
        for (name, v) in fields {
            let p: Vec<&str> = name.split(SEP).collect();
            match p.as_slice() {
                ["done", k] => *t.completed.entry(k.to_string()).or_default() += v,
                ["failed", k] => {
                    let k = (*k != UNKNOWN_STAGE).then(|| k.to_string());
                    *t.failed.entry(k).or_default() += v
                }
                ["skipped", k] => *t.skipped.entry(k.to_string()).or_default() += v,
                ["spend"] => t.spend_nano_usd = t.spend_nano_usd.saturating_add(v),
                ["billed-spend"] => t.billed_nano_usd = t.billed_nano_usd.saturating_add(v),
                [LOST] => t.store_lost |= v > 0,
                ["billed", model, role, what] => {
                    let Some(role) = Role::parse(role) else {
                        continue;
                    };
                    let key = UsageKey {
                        model: model.to_string(),
                        role,
                        cached: false,
                    };
                    let u = t.billed.entry(key).or_default();
                    match *what {
                        "requests" => u.requests = u.requests.saturating_add(v),
                        "input" => u.input = u.input.saturating_add(v),
                        "output" => u.output = u.output.saturating_add(v),
                        _ => {}
                    }
                }
                ["cell", suite, dataset, solution, judge, metric, what] => {
                    let key = CellKey {
                        suite: suite.to_string(),
                        dataset: dataset.to_string(),
                        solution: solution.to_string(),
                        judge: judge.to_string(),
                        metric: metric.to_string(),
                    };
                    let c = t.cells.entry(key).or_default();
                    match *what {
                        "n" => c.n += v,
                        "sum" => c.sum += v,
                        "sq" => c.sum_sq += v,
                        other => {
                            if let Some(reason) = other.strip_prefix("x:") {
                                *c.unscored.entry(reason.to_string()).or_default() += v;
                            }
                        }
                    }
                }
                ["usage", model, role, cached, what] => {
                    let Some(role) = Role::parse(role) else {
                        continue;
                    };
                    let key = UsageKey {
                        model: model.to_string(),
                        role,
                        cached: *cached == "1",
                    };
                    let u = t.usage.entry(key).or_default();
                    match *what {
                        "requests" => u.requests = u.requests.saturating_add(v),
                        "input" => u.input = u.input.saturating_add(v),
                        "output" => u.output = u.output.saturating_add(v),
                        "counted" => u.counted += v,
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        t
    }

    /// Money spent so far in USD.
    pub fn spend_usd(&self) -> f64 {
        self.spend_nano_usd as f64 / NANO
    }

    /// What the providers billed so far in USD.
    pub fn billed_usd(&self) -> f64 {
        self.billed_nano_usd as f64 / NANO
    }

    /// Completed jobs of `stage`.
    pub fn done(&self, stage: &str) -> i64 {
        self.completed.get(stage).copied().unwrap_or(0)
    }

    /// Failed jobs of `stage`.
    pub fn failures(&self, stage: &str) -> i64 {
        self.failed
            .get(&Some(stage.to_string()))
            .copied()
            .unwrap_or(0)
    }

    /// Jobs of `stage` skipped by the budget.
    pub fn skips(&self, stage: &str) -> i64 {
        self.skipped.get(stage).copied().unwrap_or(0)
    }

    /// Jobs of `stage` that are settled one way or another.
    pub fn settled(&self, stage: &str) -> i64 {
        self.done(stage) + self.failures(stage) + self.skips(stage)
    }
}

/// Statistics of one cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Scored values.
    pub n: i64,
    /// Unscored values (all reasons).
    pub n_unscored: i64,
    /// Mean (None when n = 0).
    pub mean: Option<f64>,
    /// Sample standard deviation (None when n < 2).
    pub std: Option<f64>,
    /// Half-width of the 95% confidence interval of the mean (Student t).
    pub ci95: Option<f64>,
}

impl CellSums {
    /// Mean, standard deviation and 95% CI of the cell.
    pub fn summary(&self) -> Summary {
        let n = self.n;
        let n_unscored = self.unscored.values().sum();
        if n == 0 {
            return Summary {
                n,
                n_unscored,
                mean: None,
                std: None,
                ci95: None,
            };
        }
        let nf = n as f64;
        let mean = self.sum as f64 / SUM_SCALE / nf;
        if n < 2 {
            return Summary {
                n,
                n_unscored,
                mean: Some(mean),
                std: None,
                ci95: None,
            };
        }
        let sq = self.sum_sq as f64 / SQ_SCALE;
        let var = ((sq - nf * mean * mean) / (nf - 1.0)).max(0.0);
        let std = var.sqrt();
        let ci = t_975(n - 1) * std / nf.sqrt();
        Summary {
            n,
            n_unscored,
            mean: Some(mean),
            std: Some(std),
            ci95: Some(ci),
        }
    }
}

/// 97.5% quantile of Student's t with `df` degrees of freedom.
fn t_975(df: i64) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        1..=30 => T[df as usize - 1],
        31..=60 => 2.042 - (df - 30) as f64 * (2.042 - 2.000) / 30.0,
        61..=120 => 2.000 - (df - 60) as f64 * (2.000 - 1.980) / 60.0,
        _ => 1.960,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absurd_usage_saturates_and_never_wraps() {
        let u = Usage {
            model: "m".into(),
            role: Role::Generation,
            input: u64::MAX,
            output: 1_000_000_000_000_000,
            cached: false,
            source: UsageSource::Reported,
            latency_ms: 0,
        };
        let fields = Tally::charge_fields(&u, 1e30);
        let value = |name: &str| fields.iter().find(|(f, _)| f.ends_with(name)).unwrap().1;
        assert_eq!(value("input"), i64::MAX);
        assert_eq!(value("spend"), i64::MAX);
        // Two such charges read back as the largest count, not a negative one.
        let t = Tally::from_fields(fields.iter().chain(&fields).map(|(f, v)| (f.as_str(), *v)));
        assert_eq!(t.spend_nano_usd, i64::MAX);
        assert!(t
            .usage
            .values()
            .all(|s| s.input == i64::MAX && s.output > 0));
    }
    use crate::job::{Cell, JobId};
    use crate::outcome::{Score, UsageSource};

    fn result(v: Verdict) -> JobResult {
        JobResult {
            id: JobId("j".into()),
            stage: "judge".into(),
            cell: Cell {
                suite: "s".into(),
                dataset: "d".into(),
                solution: "a".into(),
                seed: 0,
            },
            item: "0".into(),
            judge: Some("gpt".into()),
            output: None,
            scores: vec![Score {
                metric: "m".into(),
                verdict: v,
            }],
            usage: vec![],
        }
    }

    fn tally_of(rs: &[JobResult]) -> Tally {
        let fields: Vec<(String, i64)> = rs.iter().flat_map(Tally::result_fields).collect();
        Tally::from_fields(fields.iter().map(|(k, v)| (k.as_str(), *v)))
    }

    #[test]
    fn sums_give_mean_std_and_ci() {
        let t = tally_of(&[
            result(Verdict::Score(60.0)),
            result(Verdict::Score(90.0)),
            result(Verdict::Score(30.0)),
            result(Verdict::Unscored("parse-failure".into())),
        ]);
        assert_eq!(t.done("judge"), 4);
        let (key, sums) = t.cells.iter().next().unwrap();
        assert_eq!(key.judge, "gpt");
        let s = sums.summary();
        assert_eq!((s.n, s.n_unscored), (3, 1));
        assert!((s.mean.unwrap() - 60.0).abs() < 1e-9);
        assert!((s.std.unwrap() - 30.0).abs() < 1e-6);
        assert!((s.ci95.unwrap() - 4.303 * 30.0 / 3f64.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn order_does_not_change_the_tally() {
        let rs: Vec<JobResult> = (0..50)
            .map(|i| result(Verdict::Score(i as f64 * 1.37)))
            .collect();
        let mut rev = rs.clone();
        rev.reverse();
        assert_eq!(tally_of(&rs), tally_of(&rev));
    }

    #[test]
    fn cached_calls_cost_nothing() {
        let mut u = Usage {
            model: "m".into(),
            role: Role::Judge,
            input: 10,
            output: 5,
            cached: false,
            source: UsageSource::Counted,
            latency_ms: 0,
        };
        let mut fields = Tally::charge_fields(&u, 0.5);
        u.cached = true;
        fields.extend(Tally::charge_fields(&u, 0.5));
        let t = Tally::from_fields(fields.iter().map(|(k, v)| (k.as_str(), *v)));
        assert!((t.spend_usd() - 0.5).abs() < 1e-12);
        assert_eq!(t.usage.len(), 2);
        assert!(t.usage.values().all(|s| s.input == 10 && s.counted == 1));
    }
}
