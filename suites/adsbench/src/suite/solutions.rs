//! The suite's solutions, the scripted API agents: `fixed-bid`, `pacing`
//! and the rule-based baseline `rules`. None calls a model, but a sweep still names a provider for
//! them, which the worker builds before solving: an OpenAI-compatible one
//! on a closed port (see `sweeps/adsbench-scripted.toml`) is built without
//! connecting, where a `local` one must load a real model. A solve runs the
//! whole episode on a blocking thread, tick by tick, and stops between two
//! ticks once the job's future is dropped (the worker cancelled it).

use super::agents::{ApiAgent, FixedBidAgent, PacingAgent, BID_RANGE_MICROS};
use super::outcome::{run, RunError};
use super::rules::RuleAgent;
use super::scenario::Scenario;
use adfarm_proto::{Item, Output, SolutionSpec};
use adfarm_suite::{DataError, JobError, Models, Solution, Solved};
use async_trait::async_trait;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Name of the fixed-bid solution.
pub const FIXED_BID: &str = "fixed-bid";
/// Name of the pacing solution.
pub const PACING: &str = "pacing";
/// Name of the rule-based baseline (the kill switch, then pacing).
pub const RULES: &str = "rules";
/// All, in listing order.
pub const SOLUTIONS: [&str; 3] = [FIXED_BID, PACING, RULES];

/// `fixed-bid`'s bid when `params.bid_micros` is not set.
pub const DEFAULT_BID_MICROS: i64 = 1_000_000;
/// `pacing`'s CPA target when `params.target_cpa_micros` is not set.
pub const DEFAULT_TARGET_CPA_MICROS: i64 = 25_000_000;

/// Which agent, with its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scripted {
    /// [`FixedBidAgent`] with this bid.
    FixedBid {
        /// Micros.
        bid_micros: i64,
    },
    /// [`PacingAgent`] with this CPA target.
    Pacing {
        /// Micros.
        target_cpa_micros: i64,
    },
    /// [`RuleAgent`], its pacing part with this CPA target.
    Rules {
        /// Micros.
        target_cpa_micros: i64,
    },
}

/// The one integer parameter `key` of `spec` (none: `default`), in range.
fn param(spec: &SolutionSpec, key: &str, default: i64) -> Result<i64, DataError> {
    if let Some(other) = spec
        .params
        .as_object()
        .and_then(|o| o.keys().find(|k| *k != key))
    {
        return Err(DataError::Param {
            field: format!("params.{other}"),
            reason: format!("{} takes only `{key}`", spec.name),
        });
    }
    let (lo, hi) = BID_RANGE_MICROS;
    match spec.params.get(key) {
        None => Ok(default),
        Some(v) => v
            .as_i64()
            .filter(|n| (lo..=hi * 10).contains(n))
            .ok_or_else(|| DataError::Param {
                field: format!("params.{key}"),
                reason: format!(
                    "must be an integer of micros in {lo}..={}, got {v}",
                    hi * 10
                ),
            }),
    }
}

impl Scripted {
    /// The agent a solution spec names.
    ///
    /// # Errors
    /// An unknown solution, or a parameter error naming `params.<field>`.
    pub fn from_spec(spec: &SolutionSpec) -> Result<Scripted, DataError> {
        match spec.name.as_str() {
            FIXED_BID => Ok(Scripted::FixedBid {
                bid_micros: param(spec, "bid_micros", DEFAULT_BID_MICROS)?,
            }),
            PACING => Ok(Scripted::Pacing {
                target_cpa_micros: param(spec, "target_cpa_micros", DEFAULT_TARGET_CPA_MICROS)?,
            }),
            RULES => Ok(Scripted::Rules {
                target_cpa_micros: param(spec, "target_cpa_micros", DEFAULT_TARGET_CPA_MICROS)?,
            }),
            other => Err(DataError::UnknownSolution {
                suite: super::SUITE.into(),
                solution: other.into(),
                valid: SOLUTIONS.join(", "),
            }),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Scripted::FixedBid { .. } => FIXED_BID,
            Scripted::Pacing { .. } => PACING,
            Scripted::Rules { .. } => RULES,
        }
    }

    /// A fresh agent.
    pub fn agent(self) -> Box<dyn ApiAgent + Send> {
        match self {
            Scripted::FixedBid { bid_micros } => Box::new(FixedBidAgent::new(bid_micros)),
            Scripted::Pacing { target_cpa_micros } => Box::new(PacingAgent::new(target_cpa_micros)),
            Scripted::Rules { target_cpa_micros } => Box::new(RuleAgent::new(target_cpa_micros)),
        }
    }
}

/// Sets its flag when dropped: the solve future was dropped, so the
/// episode thread should stop at its next tick.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[async_trait]
impl Solution for Scripted {
    fn name(&self) -> &str {
        Scripted::name(*self)
    }

    async fn solve(
        &self,
        item: &Item,
        _models: Models<'_>,
        _seed: u64,
    ) -> Result<Solved, JobError> {
        // The episode is a pure function of the scenario (its own seed) and
        // the agent's calls; the sweep's seed does not enter.
        let scenario = Scenario::of(item)?;
        let agent_kind = *self;
        let cancelled = Arc::new(AtomicBool::new(false));
        let guard = CancelOnDrop(Arc::clone(&cancelled));
        let outcome = tokio::task::spawn_blocking(move || {
            let mut agent = agent_kind.agent();
            run(&scenario, agent.as_mut(), || {
                !cancelled.load(Ordering::Relaxed)
            })
        })
        .await
        .map_err(|e| DataError::Param {
            field: format!("item {}", item.id),
            reason: format!("the episode thread failed: {e}"),
        })?;
        drop(guard);
        let outcome = outcome.map_err(|e| match e {
            RunError::Market(e) => DataError::Param {
                field: format!("item {}: meta", item.id),
                reason: e.to_string(),
            },
            RunError::Cancelled { ticks } => DataError::Param {
                field: format!("item {}", item.id),
                reason: format!("cancelled after {ticks} ticks"),
            },
        })?;
        let t = outcome.totals();
        Ok(Solved {
            scores: outcome.scores(),
            output: Output {
                text: format!(
                    "{} on {}: spent {:.2} for {} clicks and {:.1} conversions; digest {}",
                    Scripted::name(*self),
                    item.id,
                    t.spend_micros as f64 / 1e6,
                    t.clicks,
                    t.conversions,
                    outcome.digest
                ),
                meta: serde_json::to_value(&outcome).expect("an outcome serialises"),
            },
        })
    }
}
