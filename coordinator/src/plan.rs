//! Expands a sweep lazily into generate jobs (follow-ups are derived from
//! them), counts the jobs per kind and estimates the cost before anything
//! runs. Nothing here holds more than one item at a time, so planning a
//! million-job sweep takes constant memory.

use adfarm_llm::estimate_tokens;
use adfarm_proto::expand::{follow_up_count, generate_job};
use adfarm_proto::sweep::Sampling;
use adfarm_proto::{Envelope, Item, JobKind, Role, SolutionSpec, SuiteSpec, SweepSpec};
use adfarm_suites::SuiteContext;
use adfarm_suites::{DataError, ItemIter, Suite};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A planning failure: a dataset could not be read.
#[derive(Debug, Clone, thiserror::Error)]
#[error("suite {suite}, dataset {dataset}: {source}")]
pub struct PlanError {
    /// Suite.
    pub suite: String,
    /// Dataset.
    pub dataset: String,
    /// The dataset problem (boxed: keeps `Result<_, PlanError>` small).
    pub source: Box<DataError>,
}

/// Job counts and cost estimate of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// Jobs per kind, follow-ups included.
    pub planned: BTreeMap<JobKind, i64>,
    /// Items per (suite, dataset).
    pub items: BTreeMap<String, u64>,
    /// Pre-run cost estimate.
    pub estimate: CostEstimate,
}

/// Estimated traffic and cost per provider and role.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CostEstimate {
    /// One row per (provider, role).
    pub rows: Vec<EstimateRow>,
    /// Sum of the rows.
    pub total_usd: f64,
}

/// Estimated traffic of one provider in one role.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EstimateRow {
    /// Provider name.
    pub provider: String,
    /// Model.
    pub model: String,
    /// Role.
    pub role: Role,
    /// Calls.
    pub calls: u64,
    /// Input tokens (text length / 4 plus prompt overhead).
    pub input_tokens: u64,
    /// Output tokens (at max_tokens: an upper bound).
    pub output_tokens: u64,
    /// USD at the provider's prices.
    pub usd: f64,
}

fn suite_of(spec: &SuiteSpec, ctx: &SuiteContext) -> Arc<dyn Suite> {
    adfarm_suites::suite(&spec.name, ctx).expect("sweep file validation checked suite names")
}

fn plan_err(suite: &SuiteSpec, dataset: &str) -> impl Fn(DataError) -> PlanError {
    let (suite, dataset) = (suite.name.clone(), dataset.to_string());
    move |source| PlanError {
        suite: suite.clone(),
        dataset: dataset.clone(),
        source: Box::new(source),
    }
}

/// splitmix64: a tiny seeded generator, enough to sample item indices.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `k` distinct indices below `n` (Floyd's algorithm), seeded.
fn sample_indices(n: u64, k: u64, seed: u64) -> BTreeSet<u64> {
    let mut state = seed;
    let mut chosen = BTreeSet::new();
    for j in n.saturating_sub(k)..n {
        let t = splitmix(&mut state) % (j + 1);
        if !chosen.insert(t) {
            chosen.insert(j);
        }
    }
    chosen
}

/// The items of `dataset` after the suite spec's limit and sampling.
///
/// # Errors
/// When the dataset cannot be read.
pub fn items(suite: &dyn Suite, spec: &SuiteSpec, dataset: &str) -> Result<ItemIter, PlanError> {
    let err = plan_err(spec, dataset);
    let all = suite.items(dataset, &spec.params).map_err(&err)?;
    Ok(match (spec.limit, spec.sample) {
        (None, _) => all,
        (Some(limit), Sampling::First) => Box::new(all.take(limit as usize)),
        (Some(limit), Sampling::Random { seed }) => {
            let n = suite.items(dataset, &spec.params).map_err(&err)?.count() as u64;
            let keep = sample_indices(n, limit.min(n), seed);
            Box::new(
                all.enumerate()
                    .filter(move |(i, _)| keep.contains(&(*i as u64)))
                    .map(|(_, it)| it),
            )
        }
    })
}

fn solutions_of<'a>(spec: &'a SweepSpec, suite: &dyn Suite) -> Vec<&'a SolutionSpec> {
    let names = suite.solutions();
    spec.solutions
        .iter()
        .filter(|s| names.contains(&s.name))
        .collect()
}

/// Every generate job of the sweep, lazily, in a stable order.
pub fn generate_jobs(
    spec: &SweepSpec,
    ctx: &SuiteContext,
) -> impl Iterator<Item = Result<Envelope, PlanError>> + Send + 'static {
    let spec = spec.clone();
    let ctx = ctx.clone();
    let sweep = spec.id();
    let mut work: Vec<(SuiteSpec, String)> = Vec::new();
    for s in &spec.suites {
        for d in &s.datasets {
            work.push((s.clone(), d.clone()));
        }
    }
    work.into_iter().flat_map(move |(suite_spec, dataset)| {
        let suite = suite_of(&suite_spec, &ctx);
        let sols: Vec<SolutionSpec> = solutions_of(&spec, suite.as_ref())
            .into_iter()
            .cloned()
            .collect();
        let spec = spec.clone();
        let sweep = sweep.clone();
        let iter: Box<dyn Iterator<Item = Result<Envelope, PlanError>> + Send> =
            match items(suite.as_ref(), &suite_spec, &dataset) {
                Err(e) => Box::new(std::iter::once(Err(e))),
                Ok(items) => {
                    let err_suite = suite_spec.clone();
                    let err_dataset = dataset.clone();
                    Box::new(
                        items.flat_map(
                            move |item: Result<Item, DataError>| -> Box<
                                dyn Iterator<Item = Result<Envelope, PlanError>> + Send,
                            > {
                                match item {
                                    Err(source) => Box::new(std::iter::once(Err(PlanError {
                                        suite: err_suite.name.clone(),
                                        dataset: err_dataset.clone(),
                                        source: Box::new(source),
                                    }))),
                                    Ok(item) => {
                                        let mut jobs =
                                            Vec::with_capacity(sols.len() * spec.seeds.len());
                                        for sol in &sols {
                                            for &seed in &spec.seeds {
                                                jobs.push(Ok(generate_job(
                                                    &sweep,
                                                    &spec,
                                                    &suite_spec,
                                                    &dataset,
                                                    item.clone(),
                                                    sol,
                                                    seed,
                                                )));
                                            }
                                        }
                                        Box::new(jobs.into_iter())
                                    }
                                }
                            },
                        ),
                    )
                }
            };
        iter
    })
}

/// Counts the jobs of `spec` and estimates its cost, reading each dataset
/// once.
///
/// # Errors
/// When a dataset cannot be read.
pub fn plan(spec: &SweepSpec, ctx: &SuiteContext) -> Result<Plan, PlanError> {
    let mut planned: BTreeMap<JobKind, i64> = JobKind::ALL.into_iter().map(|k| (k, 0)).collect();
    let mut items_per = BTreeMap::new();
    // (provider, role) -> (calls, input, output)
    let mut traffic: BTreeMap<(String, Role), (u64, u64, u64)> = BTreeMap::new();
    let seeds = spec.seeds.len() as u64;
    for s in &spec.suites {
        let suite = suite_of(s, ctx);
        let follow = suite.follow_ups();
        let sols = solutions_of(spec, suite.as_ref());
        for d in &s.datasets {
            let (mut n, mut input_tokens) = (0u64, 0u64);
            for item in items(suite.as_ref(), s, d)? {
                let item = item.map_err(plan_err(s, d))?;
                n += 1;
                input_tokens += estimate_tokens(&item.input);
            }
            items_per.insert(format!("{}/{d}", s.name), n);
            for sol in &sols {
                let jobs = n * seeds;
                *planned.entry(JobKind::Generate).or_default() += jobs as i64;
                for kind in [JobKind::Judge, JobKind::EmbedMetrics] {
                    *planned.entry(kind).or_default() +=
                        (jobs * follow_up_count(spec, &follow, kind)) as i64;
                }
                let est = suite.calls_per_item(sol);
                let calls = jobs * est.generation_calls as u64;
                let t = traffic
                    .entry((sol.provider.clone(), Role::Generation))
                    .or_default();
                t.0 += calls;
                t.1 += seeds
                    * est.generation_calls as u64
                    * (input_tokens + n * est.generation_overhead_tokens as u64);
                t.2 += calls * sol.max_tokens as u64;
                if follow.contains(&JobKind::Judge) {
                    for judge in &spec.judges {
                        let calls = jobs * est.judge_calls as u64;
                        let t = traffic.entry((judge.clone(), Role::Judge)).or_default();
                        t.0 += calls;
                        t.1 += seeds
                            * est.judge_calls as u64
                            * (input_tokens
                                + n * (sol.max_tokens as u64 + est.judge_overhead_tokens as u64));
                        t.2 += calls * est.judge_output_tokens as u64;
                    }
                }
            }
        }
    }
    let mut estimate = CostEstimate::default();
    for ((provider, role), (calls, input, output)) in traffic {
        let p = spec.provider(&provider).expect("validated provider name");
        let usd = p.cost_usd(input, output);
        estimate.total_usd += usd;
        estimate.rows.push(EstimateRow {
            provider,
            model: p.model.clone(),
            role,
            calls,
            input_tokens: input,
            output_tokens: output,
            usd,
        });
    }
    Ok(Plan {
        planned,
        items: items_per,
        estimate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep_file;
    use std::path::Path;

    fn spec(items: u64, extra: &str) -> SweepSpec {
        let text = format!(
            r#"
name = "t"
seeds = [1, 2, 3]
judges = ["a", "b"]
[[suites]]
name = "synthetic"
datasets = ["default"]
params = {{ items = {items} }}
{extra}
[[solutions]]
name = "answer"
provider = "a"
max_tokens = 100
[[providers]]
name = "a"
kind = "openai-compatible"
base_url = "http://x/v1"
model = "m-a"
requests_per_minute = 60
input_usd_per_mtok = 1.0
output_usd_per_mtok = 2.0
[[providers]]
name = "b"
kind = "openai-compatible"
base_url = "http://x/v1"
model = "m-b"
requests_per_minute = 60
"#
        );
        sweep_file::parse(
            Path::new("t.toml"),
            &text,
            &SuiteContext::default(),
            &|_| None,
        )
        .unwrap()
    }

    #[test]
    fn counts_follow_items_solutions_seeds_and_judges() {
        let s = spec(10, "");
        let p = plan(&s, &SuiteContext::default()).unwrap();
        assert_eq!(p.planned[&JobKind::Generate], 30);
        assert_eq!(p.planned[&JobKind::Judge], 60);
        assert_eq!(p.planned[&JobKind::EmbedMetrics], 0);
        assert_eq!(generate_jobs(&s, &SuiteContext::default()).count(), 30);
        let gen = p
            .estimate
            .rows
            .iter()
            .find(|r| r.role == Role::Generation)
            .unwrap();
        assert_eq!((gen.calls, gen.output_tokens), (30, 3000));
        assert!(p.estimate.total_usd > 0.006, "{:?}", p.estimate);
    }

    #[test]
    fn job_ids_are_unique_and_stable() {
        let s = spec(20, "");
        let a: Vec<_> = generate_jobs(&s, &SuiteContext::default())
            .map(|j| j.unwrap().id)
            .collect();
        let b: Vec<_> = generate_jobs(&s, &SuiteContext::default())
            .map(|j| j.unwrap().id)
            .collect();
        assert_eq!(a, b);
        assert_eq!(a.iter().collect::<BTreeSet<_>>().len(), 60);
    }

    #[test]
    fn random_sampling_is_seeded_and_limited() {
        let s = spec(100, "limit = 7\nsample = { kind = \"random\", seed = 5 }");
        let ids = |s: &SweepSpec| -> Vec<String> {
            generate_jobs(s, &SuiteContext::default())
                .map(|j| j.unwrap().job.item().id.clone())
                .collect()
        };
        let first = ids(&s);
        assert_eq!(first.len(), 7 * 3);
        assert_eq!(first, ids(&s));
        let distinct: BTreeSet<&String> = first.iter().collect();
        let head: Vec<String> = (0..7).map(|i| i.to_string()).collect();
        assert_ne!(
            distinct.into_iter().cloned().collect::<Vec<_>>(),
            head,
            "a sample, not the head"
        );
    }
}
