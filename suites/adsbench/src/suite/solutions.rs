//! The suite's solutions, the scripted API agents: `fixed-bid`, `pacing`,
//! the rule-based baseline `rules` and the bandit baselines `linucb` and
//! `thompson` (their draws seeded by the scenario's seed and the sweep's),
//! and the tabular Q-learning baseline `q-learning` (its solve plays the
//! table its `train` stage learnt under the sweep's seed on market seeds
//! disjoint from the scenario's). The market's seed is the scenario's, so
//! the agents that draw nothing (`fixed-bid`, `pacing`, `rules`) play one
//! episode whatever the sweep's seed. None calls
//! a model, but a sweep still names a provider for them, which the worker
//! builds before solving: an OpenAI-compatible one on a closed port (see
//! `sweeps/adsbench-scripted.toml`) is built without connecting, where a
//! `local` one must load a real model. A solve runs the whole episode on a
//! blocking thread, tick by tick, and stops between two ticks once the
//! job's future is dropped (the worker cancelled it).

use super::agents::{ApiAgent, FixedBidAgent, PacingAgent, BID_RANGE_MICROS};
use super::assignment::{Assignment, Graded};
use super::bandit::{self, agent_seed, BanditAgent, Rule, THOMPSON_DRAWS};
use super::harness::drive;
use super::outcome::{run, Outcome, RunError};
use super::qlearning::{self, QAgent, QConfig, QTable, Trained};
use super::rules::RuleAgent;
use super::scenario::Scenario;
use adfarm_proto::{Item, JobResult, Output, SolutionSpec};
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
/// Name of the LinUCB bandit baseline.
pub const LINUCB: &str = "linucb";
/// Name of the Thompson-sampling bandit baseline.
pub const THOMPSON: &str = "thompson";
/// Name of the tabular Q-learning baseline.
pub const Q_LEARNING: &str = "q-learning";
/// All, in listing order.
pub const SOLUTIONS: [&str; 6] = [FIXED_BID, PACING, RULES, LINUCB, THOMPSON, Q_LEARNING];

/// `fixed-bid`'s bid when `params.bid_micros` is not set.
pub const DEFAULT_BID_MICROS: i64 = 1_000_000;
/// `pacing`'s CPA target when `params.target_cpa_micros` is not set.
pub const DEFAULT_TARGET_CPA_MICROS: i64 = 25_000_000;
/// `linucb`'s confidence width α when `params.alpha` is not set.
pub const DEFAULT_ALPHA: f64 = 1.0;
/// `thompson`'s posterior scale ν when `params.nu` is not set.
pub const DEFAULT_NU: f64 = 1.0;
/// The bandits' share of uniform exploration when `params.epsilon` is
/// not set.
pub const DEFAULT_EPSILON: f64 = 0.1;

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
    /// [`BanditAgent`] under LinUCB (`params.alpha` in (0, 10],
    /// `params.epsilon` in (0, 1]).
    LinUcb {
        /// Width of the confidence bonus.
        alpha: f64,
        /// Share of uniform exploration.
        epsilon: f64,
    },
    /// [`BanditAgent`] under linear Thompson sampling (`params.nu` in
    /// (0, 10], `params.epsilon` in (0, 1]).
    Thompson {
        /// Posterior scale ν.
        nu: f64,
        /// Share of uniform exploration.
        epsilon: f64,
    },
    /// [`QAgent`]: trained on the scenario's training seeds, then greedy
    /// with its table frozen (`params.episodes`, `epsilon`, `alpha`,
    /// `gamma`; see [`QConfig::from_spec`]).
    QLearning(QConfig),
}

/// The number parameters `keys` of `spec`, each `(key, default, upper
/// bound)`, checked in (0, upper]; no other key is accepted.
fn numbers<const N: usize>(
    spec: &SolutionSpec,
    keys: [(&str, f64, f64); N],
) -> Result<[f64; N], DataError> {
    if let Some(other) = spec
        .params
        .as_object()
        .and_then(|o| o.keys().find(|k| !keys.iter().any(|(key, ..)| key == k)))
    {
        let names: Vec<String> = keys.iter().map(|(k, ..)| format!("`{k}`")).collect();
        return Err(DataError::Param {
            field: format!("params.{other}"),
            reason: format!("{} takes only {}", spec.name, names.join(" and ")),
        });
    }
    let mut out = [0.0; N];
    for (o, (key, default, hi)) in out.iter_mut().zip(keys) {
        *o = match spec.params.get(key) {
            None => default,
            Some(v) => {
                v.as_f64()
                    .filter(|x| *x > 0.0 && *x <= hi)
                    .ok_or_else(|| DataError::Param {
                        field: format!("params.{key}"),
                        reason: format!("must be a number in (0, {hi}], got {v}"),
                    })?
            }
        };
    }
    Ok(out)
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
            LINUCB => {
                let [alpha, epsilon] = numbers(
                    spec,
                    [
                        ("alpha", DEFAULT_ALPHA, 10.0),
                        ("epsilon", DEFAULT_EPSILON, 1.0),
                    ],
                )?;
                Ok(Scripted::LinUcb { alpha, epsilon })
            }
            THOMPSON => {
                let [nu, epsilon] = numbers(
                    spec,
                    [("nu", DEFAULT_NU, 10.0), ("epsilon", DEFAULT_EPSILON, 1.0)],
                )?;
                Ok(Scripted::Thompson { nu, epsilon })
            }
            Q_LEARNING => Ok(Scripted::QLearning(QConfig::from_spec(spec)?)),
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
            Scripted::LinUcb { .. } => LINUCB,
            Scripted::Thompson { .. } => THOMPSON,
            Scripted::QLearning(_) => Q_LEARNING,
        }
    }

    /// The bandits' selection rule; `None` for the other agents.
    pub fn rule(self) -> Option<Rule> {
        match self {
            Scripted::LinUcb { alpha, epsilon } => Some(Rule::LinUcb { alpha, epsilon }),
            Scripted::Thompson { nu, epsilon } => Some(thompson(nu, epsilon)),
            Scripted::FixedBid { .. }
            | Scripted::Pacing { .. }
            | Scripted::Rules { .. }
            | Scripted::QLearning(_) => None,
        }
    }

    /// A fresh agent drawing from `seed` ([`agent_seed`] of the scenario's
    /// and the sweep's, in a solve; the bandits draw from it, the other
    /// agents ignore it). `q-learning`'s is the untrained learner (an
    /// empty table, exploring from the seed): [`Scripted::episode`] trains
    /// it on the scenario's training seeds first.
    pub fn agent(self, seed: u64) -> Box<dyn ApiAgent + Send> {
        match self {
            Scripted::FixedBid { bid_micros } => Box::new(FixedBidAgent::new(bid_micros)),
            Scripted::Pacing { target_cpa_micros } => Box::new(PacingAgent::new(target_cpa_micros)),
            Scripted::Rules { target_cpa_micros } => Box::new(RuleAgent::new(target_cpa_micros)),
            Scripted::LinUcb { alpha, epsilon } => {
                Box::new(BanditAgent::new(Rule::LinUcb { alpha, epsilon }, seed))
            }
            Scripted::Thompson { nu, epsilon } => {
                Box::new(BanditAgent::new(thompson(nu, epsilon), seed))
            }
            Scripted::QLearning(config) => Box::new(QAgent::learning(&config, QTable::new(), seed)),
        }
    }

    /// Runs `scenario` under this agent and the sweep's seed
    /// `sweep_seed`; a bandit's outcome carries its log; `q-learning`
    /// plays `trained`'s table frozen, or trains first (under
    /// `sweep_seed`) when it is not given one.
    ///
    /// # Errors
    /// As [`run`].
    pub fn episode(
        self,
        scenario: &Scenario,
        sweep_seed: u64,
        trained: Option<&Trained>,
        keep_going: impl FnMut() -> bool,
    ) -> Result<Outcome, RunError> {
        if let Scripted::QLearning(config) = self {
            return match trained {
                Some(t) => run(scenario, &mut QAgent::frozen(t.table.clone()), keep_going),
                None => qlearning::run(scenario, &config, sweep_seed, keep_going).map(|(o, _)| o),
            };
        }
        match self.rule() {
            Some(rule) => bandit::run(scenario, rule, sweep_seed, keep_going),
            None => run(
                scenario,
                self.agent(agent_seed(scenario.seed, sweep_seed)).as_mut(),
                keep_going,
            ),
        }
    }
}

/// Thompson sampling's rule with [`THOMPSON_DRAWS`] posterior draws.
fn thompson(nu: f64, epsilon: f64) -> Rule {
    Rule::Thompson {
        nu,
        epsilon,
        draws: THOMPSON_DRAWS,
    }
}

/// Sets its flag when dropped: the job's future was dropped, so the
/// episode thread should stop at its next tick.
pub(super) struct CancelOnDrop(pub(super) Arc<AtomicBool>);

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

    async fn solve(&self, item: &Item, _models: Models<'_>, seed: u64) -> Result<Solved, JobError> {
        self.play(item, Assignment::of(item)?, seed, None).await
    }

    /// `q-learning` reads its `train` stage's table; the other agents
    /// read nothing.
    async fn solve_reading(
        &self,
        item: &Item,
        _models: Models<'_>,
        seed: u64,
        inputs: &[JobResult],
    ) -> Result<Solved, JobError> {
        let assignment = Assignment::of(item)?;
        let trained = match self {
            Scripted::QLearning(config) => {
                let scenario_seed = match &assignment {
                    Assignment::Scenario(s) => s.seed,
                    Assignment::Task(t) => t.scenario.seed,
                };
                qlearning::stage::read(&item.id, scenario_seed, seed, config, inputs)?
            }
            _ => None,
        };
        self.play(item, assignment, seed, trained).await
    }
}

impl Scripted {
    /// The episode on `item` under the sweep's seed `sweep_seed`,
    /// `q-learning` with the table it was trained to (else training first,
    /// on a task on the scenario it runs as), played frozen.
    async fn play(
        &self,
        item: &Item,
        assignment: Assignment,
        sweep_seed: u64,
        trained: Option<Trained>,
    ) -> Result<Solved, JobError> {
        // The market is a pure function of the scenario (its own seed) and
        // the agent's calls; the sweep's seed enters only the agent's draws.
        let agent_kind = *self;
        let cancelled = Arc::new(AtomicBool::new(false));
        let guard = CancelOnDrop(Arc::clone(&cancelled));
        let id = item.id.clone();
        let graded = tokio::task::spawn_blocking(move || -> Result<Graded, DataError> {
            let keep_going = || !cancelled.load(Ordering::Relaxed);
            if let Assignment::Scenario(scenario) = &assignment {
                // A bandit's outcome carries its log.
                let outcome = agent_kind
                    .episode(scenario, sweep_seed, trained.as_ref(), keep_going)
                    .map_err(|e| refused(&id, e))?;
                return Ok(Graded {
                    outcome,
                    verdict: None,
                });
            }
            let (scenario, mut sandbox, harness) = assignment.prepare(&id)?;
            let plan = harness.plan().clone();
            if let Some(rule) = agent_kind.rule() {
                // A bandit's outcome carries its log on a task too.
                let mut agent = BanditAgent::new(rule, agent_seed(scenario.seed, sweep_seed));
                let run = drive(&mut sandbox, &mut agent, harness, keep_going);
                let mut graded = assignment.finish(&id, &scenario, &plan, &sandbox, run, None)?;
                graded.outcome.bandit = Some(agent.log());
                return Ok(graded);
            }
            let mut agent: Box<dyn ApiAgent + Send> = match (agent_kind, trained) {
                (Scripted::QLearning(config), trained) => {
                    let trained = match trained {
                        Some(t) => t,
                        None => qlearning::train(&scenario, &config, sweep_seed, keep_going)
                            .map_err(|e| refused(&id, e))?,
                    };
                    Box::new(QAgent::frozen(trained.table))
                }
                _ => agent_kind.agent(agent_seed(scenario.seed, sweep_seed)),
            };
            let run = drive(&mut sandbox, agent.as_mut(), harness, keep_going);
            let diagnosis = agent.diagnosis();
            assignment.finish(&id, &scenario, &plan, &sandbox, run, diagnosis.as_deref())
        })
        .await
        .map_err(|e| DataError::Param {
            field: format!("item {}", item.id),
            reason: format!("the episode thread failed: {e}"),
        })??;
        drop(guard);
        let t = graded.outcome.totals();
        Ok(Solved {
            scores: graded.scores(),
            output: Output {
                text: format!(
                    "{} on {}: spent {:.2} for {} clicks and {:.1} conversions; digest {}",
                    Scripted::name(*self),
                    item.id,
                    t.spend_micros as f64 / 1e6,
                    t.clicks,
                    t.conversions,
                    graded.outcome.digest
                ),
                meta: graded.meta(),
            },
        })
    }
}

/// A run that did not reach an outcome, as the job's error.
pub(super) fn refused(item: &str, e: RunError) -> DataError {
    match e {
        RunError::Market(e) => DataError::Param {
            field: format!("item {item}: meta"),
            reason: e.to_string(),
        },
        RunError::Cancelled { ticks } => DataError::Param {
            field: format!("item {item}"),
            reason: format!("cancelled after {ticks} ticks"),
        },
    }
}
