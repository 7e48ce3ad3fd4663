//! What AD-Bench puts on a leaderboard: the paper's Pass@1 and Pass@3 per
//! task × date (the mean over items is the paper's figure), and the
//! paper's coverage overall and per tier, per episode.

use std::collections::{BTreeMap, BTreeSet};

use adfarm_proto::{JobResult, SOLVE};
use adfarm_suite::{Benchmark, DataError, Headline, HeadlineValue, Headlines, ReportInput};
use serde::Deserialize;

use super::dataset::Params;
use super::judge::JUDGE_PROMPT_VERSION;
use super::stages::{Runs, Scored, PASS_AT_K, SCORE};
use crate::agent::Run;
use crate::scoring::passk;
use crate::tasks::{Split, Tier};

/// The benchmark's version: its tasks, tools, world and metrics.
pub const BENCHMARK_VERSION: &str = "1.0.0";

/// The scorer's version: the grader, trajectory matching and failure
/// labels. A change that would move a stored score bumps it.
pub const SCORER_VERSION: &str = "adbench-scorer-3";

/// The benchmark version parts of a sweep with suite parameters `params`.
///
/// # Errors
/// Parameters the dataset cannot read.
pub fn benchmark(params: &serde_json::Value) -> Result<Benchmark, DataError> {
    let p = Params::read(params)?;
    Ok(Benchmark {
        version: BENCHMARK_VERSION,
        scorer: SCORER_VERSION,
        // The headline metrics are the rules' grades; judges only add a
        // second opinion in the report.
        judges: None,
        hidden: p.split == Split::Holdout,
    })
}

fn meta<T: for<'de> Deserialize<'de>>(r: &JobResult) -> Option<T> {
    serde_json::from_value(r.output.as_ref()?.meta.clone()).ok()
}

fn value(r: &JobResult, seed: Option<u64>, v: f64) -> HeadlineValue {
    HeadlineValue {
        solution: r.cell.solution.clone(),
        item: r.item.clone(),
        seed,
        value: v,
    }
}

/// The headline metrics over a sweep's results.
pub fn headlines(input: &ReportInput<'_>) -> Headlines {
    let tier_name = |t: Tier| format!("{t:?}");
    let (mut pass1, mut pass3, mut coverage) = (vec![], vec![], vec![]);
    let mut by_tier: BTreeMap<String, Vec<HeadlineValue>> = BTreeMap::new();
    let mut protocols: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let judged = !input.spec.judges.is_empty();
    for r in input.results {
        match r.stage.as_str() {
            PASS_AT_K => {
                if let Some(runs) = meta::<Runs>(r) {
                    let counts = [(runs.n, runs.c)];
                    pass1.push(value(r, None, 100.0 * passk::pass_at_k(&counts, 1)));
                    if runs.n >= 3 {
                        pass3.push(value(r, None, 100.0 * passk::pass_at_k(&counts, 3)));
                    }
                }
            }
            SCORE => {
                if let Some(s) = meta::<Scored>(r) {
                    let v = value(r, Some(r.cell.seed), if s.covered { 100.0 } else { 0.0 });
                    by_tier
                        .entry(tier_name(s.tier))
                        .or_default()
                        .push(v.clone());
                    coverage.push(v);
                }
            }
            SOLVE => {
                if let Some(run) = meta::<Run>(r) {
                    let set = protocols.entry(r.cell.solution.clone()).or_default();
                    set.insert(run.prompt_version);
                    if judged {
                        set.insert(JUDGE_PROMPT_VERSION.into());
                    }
                }
            }
            _ => {}
        }
    }
    let mut metrics = vec![
        Headline {
            metric: "pass@1".into(),
            title: "Pass@1".into(),
            description: "The paper's Pass@1: per task and date, the unbiased pass@1 over the \
                          seeds' episodes (a failed episode counts wrong); the mean over items \
                          is the paper's figure."
                .into(),
            values: pass1,
        },
        Headline {
            metric: "pass@3".into(),
            title: "Pass@3".into(),
            description: "The paper's Pass@3 (needs three seeds or more)".into(),
            values: pass3,
        },
        Headline {
            metric: "coverage".into(),
            title: "Coverage".into(),
            description: "The paper's trajectory coverage: the share of episodes that reproduce \
                          the whole reference trajectory with no TE, PE or IF label."
                .into(),
            values: coverage,
        },
    ];
    for (tier, values) in by_tier {
        metrics.push(Headline {
            metric: format!("coverage-{tier}"),
            title: format!("{tier} coverage"),
            description: format!("Coverage over the {tier} tasks."),
            values,
        });
    }
    metrics.retain(|h| !h.values.is_empty());
    Headlines {
        metrics,
        protocols: protocols
            .into_iter()
            .map(|(k, v)| (k, v.into_iter().collect()))
            .collect(),
    }
}
