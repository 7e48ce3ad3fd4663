//! Expands a sweep lazily into the jobs that read nothing (solve jobs and
//! the item-level stages without inputs; every other job is released by
//! whoever settles its inputs), counts the jobs per stage and estimates the
//! cost before anything runs. Nothing here holds more than one item at a
//! time, so planning a million-job sweep takes constant memory, and every
//! walk over items checks a stop token, so a signal interrupts it at the
//! next item.

use adfarm_llm::estimate_tokens;
use adfarm_proto::expand::SuitePlan;
use adfarm_proto::leaderboard::BenchmarkVersion;
use adfarm_proto::sweep::Sampling;
use adfarm_proto::{Envelope, Pipeline, Role, Scope, SolutionSpec, SuiteSpec, SweepSpec, SOLVE};
use adfarm_suites::{DataError, ItemIter, Suite, SuiteContext, SweepView};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A planning failure: a suite's stages or a dataset could not be read.
#[derive(Debug, Clone, thiserror::Error)]
#[error("suite {suite}{}: {source}", dataset.as_ref().map(|d| format!(", dataset {d}")).unwrap_or_default())]
pub struct PlanError {
    /// Suite.
    pub suite: String,
    /// Dataset, when the problem is in one.
    pub dataset: Option<String>,
    /// The problem (boxed: keeps `Result<_, PlanError>` small).
    pub source: Box<DataError>,
}

/// Job counts and cost estimate of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// Jobs per stage.
    pub planned: BTreeMap<String, i64>,
    /// Items per (suite, dataset).
    pub items: BTreeMap<String, u64>,
    /// What each suite runs.
    pub pipelines: BTreeMap<String, Pipeline>,
    /// Pre-run cost estimate.
    pub estimate: CostEstimate,
    /// What each suite's entry measures (suites on leaderboards only).
    pub benchmarks: BTreeMap<String, BenchmarkVersion>,
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

fn plan_err(suite: &SuiteSpec, dataset: Option<&str>) -> impl Fn(DataError) -> PlanError {
    let (suite, dataset) = (suite.name.clone(), dataset.map(str::to_string));
    move |source| PlanError {
        suite: suite.clone(),
        dataset: dataset.clone(),
        source: Box::new(source),
    }
}

/// What each suite of `spec` runs: the solutions it offers (all of the
/// sweep's of that name, unless a solution names another suite) and the
/// stages it declares.
///
/// # Errors
/// A suite rejects its parameters or declares an invalid pipeline.
pub fn pipelines(
    spec: &SweepSpec,
    ctx: &SuiteContext,
) -> Result<BTreeMap<String, Pipeline>, PlanError> {
    let mut out = BTreeMap::new();
    for s in &spec.suites {
        let suite = suite_of(s, ctx);
        let offered = suite.solutions();
        let solutions = spec
            .solutions
            .iter()
            .enumerate()
            .filter(|(_, sol)| {
                sol.suite.as_deref().is_none_or(|n| n == s.name) && offered.contains(&sol.name)
            })
            .map(|(i, _)| i)
            .collect();
        let stages = suite
            .stages(SweepView { spec, suite: s })
            .map_err(plan_err(s, None))?;
        let pipeline = Pipeline { solutions, stages };
        pipeline.check().map_err(|e| {
            plan_err(s, None)(DataError::Param {
                field: "stages".into(),
                reason: e.to_string(),
            })
        })?;
        out.insert(s.name.clone(), pipeline);
    }
    Ok(out)
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

/// Most jobs one sweep may plan. Expansion is lazy, so memory does not
/// grow with it, but every job is published and settled one by one: a
/// sweep past this would not finish, and is better split.
pub const MAX_JOBS: i64 = 100_000_000;

/// Largest item, serialised as JSON: an item travels in every job that
/// reads it, so one oversized row would be copied into each of them (and
/// into prompts). Real items are a few KiB.
pub const MAX_ITEM_BYTES: usize = 1024 * 1024;

fn bounded_item(item: adfarm_proto::Item) -> Result<adfarm_proto::Item, DataError> {
    let size = serde_json::to_vec(&item).map_or(usize::MAX, |b| b.len());
    if size > MAX_ITEM_BYTES {
        return Err(DataError::Param {
            field: format!("item {:?}", item.id),
            reason: format!("is {size} bytes as JSON; at most {MAX_ITEM_BYTES} are allowed"),
        });
    }
    Ok(item)
}

/// The items of `dataset` after the suite spec's limit and sampling; the
/// walk ends early (short) once `stop` fires, so a caller that needs every
/// item checks `stop` after it.
///
/// # Errors
/// When the dataset cannot be read.
pub fn items(
    suite: &dyn Suite,
    spec: &SuiteSpec,
    dataset: &str,
    stop: &CancellationToken,
) -> Result<ItemIter, PlanError> {
    let err = plan_err(spec, Some(dataset));
    let running = {
        let stop = stop.clone();
        move |_: &Result<adfarm_proto::Item, DataError>| !stop.is_cancelled()
    };
    let all: ItemIter = Box::new(
        suite
            .items(dataset, &spec.params)
            .map_err(&err)?
            .take_while(running.clone())
            .map(|r| r.and_then(bounded_item)),
    );
    Ok(match (spec.limit, spec.sample) {
        (None, _) => all,
        (Some(limit), Sampling::First) => Box::new(all.take(limit as usize)),
        (Some(limit), Sampling::Random { seed }) => {
            let n = suite
                .items(dataset, &spec.params)
                .map_err(&err)?
                .take_while(running)
                .count() as u64;
            let keep = sample_indices(n, limit.min(n), seed);
            Box::new(
                all.enumerate()
                    .filter(move |(i, _)| keep.contains(&(*i as u64)))
                    .map(|(_, it)| it),
            )
        }
    })
}

/// Every job of the sweep that reads nothing, lazily, in a stable order:
/// per suite, dataset and item, its solve jobs (solution × seed) and its
/// item-level stages without inputs. It ends early once `stop` fires.
pub fn root_jobs(
    spec: &SweepSpec,
    pipelines: &BTreeMap<String, Pipeline>,
    ctx: &SuiteContext,
    stop: &CancellationToken,
) -> impl Iterator<Item = Result<Envelope, PlanError>> + Send + 'static {
    let stop = stop.clone();
    let spec = spec.clone();
    let pipelines = pipelines.clone();
    let ctx = ctx.clone();
    let sweep = spec.id();
    let work: Vec<(SuiteSpec, String)> = spec
        .suites
        .iter()
        .flat_map(|s| s.datasets.iter().map(move |d| (s.clone(), d.clone())))
        .collect();
    work.into_iter().flat_map(move |(suite_spec, dataset)| {
        let suite = suite_of(&suite_spec, &ctx);
        let pipeline = pipelines.get(&suite_spec.name).cloned().unwrap_or_default();
        let (spec, sweep) = (spec.clone(), sweep.clone());
        let iter: Box<dyn Iterator<Item = Result<Envelope, PlanError>> + Send> =
            match items(suite.as_ref(), &suite_spec, &dataset, &stop) {
                Err(e) => Box::new(std::iter::once(Err(e))),
                Ok(items) => {
                    let err = plan_err(&suite_spec, Some(&dataset));
                    Box::new(
                        items.flat_map(move |item| -> Vec<Result<Envelope, PlanError>> {
                            match item {
                                Err(e) => vec![Err(err(e))],
                                Ok(item) => {
                                    let expansion = SuitePlan {
                                        sweep: &sweep,
                                        spec: &spec,
                                        suite: &suite_spec,
                                        pipeline: &pipeline,
                                    };
                                    expansion
                                        .roots(&dataset, &item)
                                        .into_iter()
                                        .map(Ok)
                                        .collect()
                                }
                            }
                        }),
                    )
                }
            };
        iter
    })
}

/// Estimated traffic of one (provider, role): calls, input and output tokens.
type Traffic<'a> = BTreeMap<(&'a str, Role), (u64, u64, u64)>;

/// Adds `jobs` jobs' worth of `est` traffic on `provider` in `role`, for
/// jobs over items whose texts total `input_tokens` (`items` of them).
#[allow(clippy::too_many_arguments)]
fn add_traffic<'a>(
    traffic: &mut Traffic<'a>,
    provider: &'a str,
    role: Role,
    est: adfarm_suites::CallEstimate,
    solution: &SolutionSpec,
    per_item: u64,
    items: u64,
    input_tokens: u64,
) {
    let calls = per_item * items * est.calls as u64;
    let response = if est.reads_response {
        solution.max_tokens as u64
    } else {
        0
    };
    let t = traffic.entry((provider, role)).or_default();
    t.0 += calls;
    t.1 += per_item
        * est.calls as u64
        * (input_tokens + items * (est.overhead_tokens as u64 + response));
    t.2 += calls * est.output_tokens.unwrap_or(solution.max_tokens) as u64;
}

/// [`add_traffic`] for every provider `stage`'s variants call.
fn stage_traffic<'a>(
    traffic: &mut Traffic<'a>,
    stage: &'a adfarm_proto::Stage,
    est: adfarm_suites::CallEstimate,
    solution: &SolutionSpec,
    per_item: u64,
    items: u64,
    input_tokens: u64,
) {
    for provider in stage.variants.iter().filter_map(|v| v.provider.as_deref()) {
        add_traffic(
            traffic,
            provider,
            stage.role,
            est,
            solution,
            per_item,
            items,
            input_tokens,
        );
    }
}

/// Counts the jobs of `spec` and estimates its cost, reading each dataset
/// once.
///
/// # Errors
/// When a suite's stages or a dataset cannot be read.
pub fn plan(spec: &SweepSpec, ctx: &SuiteContext) -> Result<Plan, PlanError> {
    let plan = plan_until(spec, ctx, &CancellationToken::new())?;
    Ok(plan.expect("a token nobody holds is never cancelled"))
}

/// [`plan`], interrupted at the next item once `stop` fires: `None` then.
///
/// # Errors
/// When a suite's stages or a dataset cannot be read.
pub fn plan_until(
    spec: &SweepSpec,
    ctx: &SuiteContext,
    stop: &CancellationToken,
) -> Result<Option<Plan>, PlanError> {
    let pipelines = pipelines(spec, ctx)?;
    let mut planned: BTreeMap<String, i64> = BTreeMap::new();
    let mut items_per = BTreeMap::new();
    let mut traffic = Traffic::new();
    let sweep = spec.id();
    let seeds = spec.seeds.len() as u64;
    let mut benchmarks = BTreeMap::new();
    for s in &spec.suites {
        let suite = suite_of(s, ctx);
        let pipeline = &pipelines[&s.name];
        let declared = suite
            .benchmark(SweepView { spec, suite: s })
            .map_err(plan_err(s, None))?;
        // The task set: every planned item's id and content, in order.
        let mut tasks = blake3::Hasher::new();
        let mut suite_items = 0u64;
        let expansion = SuitePlan {
            sweep: &sweep,
            spec,
            suite: s,
            pipeline,
        };
        let per_item = expansion.jobs_per_item();
        for d in &s.datasets {
            let mut n = 0u64;
            for item in items(suite.as_ref(), s, d, stop)? {
                let item = item.map_err(plan_err(s, Some(d)))?;
                if declared.is_some() {
                    let bytes = serde_json::to_vec(&item).expect("items serialise");
                    tasks.update(&(d.len() as u64).to_le_bytes());
                    tasks.update(d.as_bytes());
                    tasks.update(&(bytes.len() as u64).to_le_bytes());
                    tasks.update(&bytes);
                }
                n += 1;
                // Each item's own estimate: an agent's calls follow its horizon.
                let input_tokens = estimate_tokens(&item.input);
                for sol in expansion.solutions() {
                    let est = suite.estimate(SOLVE, sol, &item);
                    add_traffic(
                        &mut traffic,
                        &sol.provider,
                        Role::Generation,
                        est,
                        sol,
                        seeds,
                        1,
                        input_tokens,
                    );
                    if let Some(embedder) = sol.embedder(spec) {
                        let est = suite.embed_estimate(sol);
                        add_traffic(
                            &mut traffic,
                            embedder,
                            Role::Embedding,
                            est,
                            sol,
                            seeds,
                            1,
                            input_tokens,
                        );
                    }
                    for stage in pipeline.stages.iter().filter(|s| s.runs_for(sol.label())) {
                        let per = match stage.scope {
                            Scope::Run => seeds,
                            Scope::Runs => 1,
                            Scope::Item => continue,
                        };
                        let est = suite.estimate(&stage.name, sol, &item);
                        stage_traffic(&mut traffic, stage, est, sol, per, 1, input_tokens);
                    }
                }
                // Item-level stages run once per item whatever the solutions.
                if let Some(first) = expansion.solutions().next() {
                    for stage in pipeline.stages.iter().filter(|s| s.scope == Scope::Item) {
                        let est = suite.estimate(&stage.name, first, &item);
                        stage_traffic(&mut traffic, stage, est, first, 1, 1, input_tokens);
                    }
                }
            }
            items_per.insert(format!("{}/{d}", s.name), n);
            suite_items += n;
            for (stage, count) in &per_item {
                *planned.entry(stage.clone()).or_default() += count * n as i64;
            }
            let total: i64 = planned.values().sum();
            if total > MAX_JOBS {
                return Err(plan_err(s, Some(d))(DataError::Param {
                    field: "limit".into(),
                    reason: format!(
                        "the sweep would plan {total} jobs or more; at most {MAX_JOBS} are \
                         allowed (lower `limit`, the suite's item count, the seeds or the solutions)"
                    ),
                }));
            }
        }
        if let Some(b) = declared {
            let data = hex::encode(&tasks.finalize().as_bytes()[..16]);
            let version = BenchmarkVersion {
                suite: s.name.clone(),
                suite_version: b.version.into(),
                data,
                items: suite_items,
                scorer: b.scorer.into(),
                judges: b.judges,
                hidden: b.hidden,
            };
            benchmarks.insert(s.name.clone(), version);
        }
    }
    if stop.is_cancelled() {
        return Ok(None);
    }
    let mut estimate = CostEstimate::default();
    for ((provider, role), (calls, input, output)) in traffic {
        if calls == 0 {
            continue;
        }
        let p = spec.provider(provider).expect("validated provider name");
        let usd = p.cost_usd(input, output);
        estimate.total_usd += usd;
        estimate.rows.push(EstimateRow {
            provider: provider.to_string(),
            model: p.model.clone(),
            role,
            calls,
            input_tokens: input,
            output_tokens: output,
            usd,
        });
    }
    Ok(Some(Plan {
        planned,
        items: items_per,
        pipelines,
        estimate,
        benchmarks,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oversized_item_is_refused_by_name() {
        let item = |bytes: usize| adfarm_proto::Item {
            id: "q-7".into(),
            input: "x".repeat(bytes),
            meta: serde_json::Value::Null,
        };
        assert!(bounded_item(item(1000)).is_ok());
        let e = bounded_item(item(MAX_ITEM_BYTES + 1)).expect_err("too large");
        let text = e.to_string();
        assert!(text.contains("item \"q-7\""), "{text}");
        assert!(text.contains("at most 1048576"), "{text}");
    }
    use crate::sweep_file;

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
        sweep_file::parse_inline(&text).unwrap()
    }

    #[test]
    fn counts_follow_items_solutions_seeds_and_judges() {
        let s = spec(10, "");
        let p = plan(&s, &SuiteContext::default()).unwrap();
        assert_eq!(p.planned["solve"], 30);
        assert_eq!(p.planned["judge"], 60);
        assert!(!p.planned.contains_key("embed-metrics"));
        assert_eq!(
            root_jobs(
                &s,
                &p.pipelines,
                &SuiteContext::default(),
                &CancellationToken::new()
            )
            .count(),
            30
        );
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
    fn planning_ends_soon_after_a_stop() {
        let stopped = CancellationToken::new();
        stopped.cancel();
        let ctx = SuiteContext::default();
        assert_eq!(plan_until(&spec(10, ""), &ctx, &stopped).unwrap(), None);
        // A million items (the synthetic maximum) take seconds to walk; a stop
        // ends the walk.
        for extra in ["", "limit = 7\nsample = { kind = \"random\", seed = 5 }"] {
            let stop = CancellationToken::new();
            let stopper = stop.clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                stopper.cancel();
            });
            let t0 = std::time::Instant::now();
            assert_eq!(
                plan_until(&spec(1_000_000, extra), &ctx, &stop).unwrap(),
                None
            );
            let took = t0.elapsed();
            assert!(
                took < std::time::Duration::from_secs(2),
                "{extra:?}: {took:?}"
            );
        }
    }

    #[test]
    fn a_sweep_above_the_job_ceiling_is_refused_naming_the_ceiling() {
        // 10^6 items × 40 seeds × (1 solve + 2 judges) = 1.2 × 10^8 jobs.
        let mut s = spec(1_000_000, "");
        s.seeds = (1..=40).collect();
        let e = plan(&s, &SuiteContext::default()).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("limit"), "{text}");
        assert!(text.contains(&format!("at most {MAX_JOBS}")), "{text}");
    }

    #[test]
    fn job_ids_are_unique_and_stable() {
        let s = spec(20, "");
        let p = pipelines(&s, &SuiteContext::default()).unwrap();
        let a: Vec<_> = root_jobs(&s, &p, &SuiteContext::default(), &CancellationToken::new())
            .map(|j| j.unwrap().id)
            .collect();
        let b: Vec<_> = root_jobs(&s, &p, &SuiteContext::default(), &CancellationToken::new())
            .map(|j| j.unwrap().id)
            .collect();
        assert_eq!(a, b);
        assert_eq!(a.iter().collect::<BTreeSet<_>>().len(), 60);
    }

    #[test]
    fn random_sampling_is_seeded_and_limited() {
        let s = spec(100, "limit = 7\nsample = { kind = \"random\", seed = 5 }");
        let ids = |s: &SweepSpec| -> Vec<String> {
            let p = pipelines(s, &SuiteContext::default()).unwrap();
            root_jobs(s, &p, &SuiteContext::default(), &CancellationToken::new())
                .map(|j| j.unwrap().job.item.id.clone())
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
