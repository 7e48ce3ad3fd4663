//! [`BanditAgent`]: a contextual bandit acting only through the Ads API.
//!
//! At each decision point it
//!
//! 1. reads, at its first decision, every enabled keyword's bid (its
//!    own, else its ad group's): the base bids the arms multiply;
//! 2. reads B (the enabled campaigns' budgets) and, once a tick has run,
//!    the account's hourly cost and conversion value of yesterday and
//!    today (`segments.date`, `segments.hour`);
//! 3. scores the previous decision: its reward is the conversion value −
//!    cost of the hours since it, over B × cadence / 24, and its arm's
//!    model learns it. Conversions land on the click's hour with a lag
//!    (four hours on average), so those not in yet when it is read are
//!    left out of the reward though they count in the episode;
//! 4. builds the context ([`FEATURES`](super::FEATURES)), asks its rule
//!    for the distribution over arms, draws the arm, and logs the round;
//! 5. when the arm differs from the one in force, sets every base keyword
//!    to base × multiplier (clamped to the pacing range), with a note
//!    citing what it read (`linucb: arm ×1.25; pace 0.82, last 6 h cost
//!    12.34, ROAS 2.10`).
//!
//! A decision whose search or mutate fails logs nothing: the bids in force
//! stay, and the next decision scores no round. It never watches the
//! kill-switch triggers: it is a pure bandit.

use super::observe::{base_bids_once, set_arm, Observation};
use super::policy::Rule;
use super::ridge::Ridge;
use super::{BanditLog, BanditRound, ARMS, BASE_ARM, FEATURES, RIDGE_LAMBDA};
use crate::api::error::GoogleAdsFailure;
use crate::sandbox::AdsClient;
use crate::suite::agents::{ApiAgent, DecisionPoint};
use crate::suite::outcome::{self, Outcome, RunError};
use crate::suite::scenario::Scenario;
use adfarm_suite::stats::SplitMix64;

/// Posterior draws per Thompson decision.
pub const THOMPSON_DRAWS: u32 = 2_000;

/// The previous decision, waiting for its reward.
#[derive(Debug, Clone)]
struct Pending {
    /// Index of its round in the log.
    round: usize,
    /// The hour it was made at ([`hour_index`]).
    hour: i64,
}

/// A contextual bandit over bid multipliers; see the module's
/// documentation.
#[derive(Debug, Clone)]
pub struct BanditAgent {
    rule: Rule,
    rng: SplitMix64,
    models: Vec<Ridge>,
    /// Each keyword's resource name and base bid, micros.
    base: Option<Vec<(String, i64)>>,
    /// The arm whose bids are in force.
    in_force: usize,
    pending: Option<Pending>,
    log: BanditLog,
}

impl BanditAgent {
    /// A bandit under `rule`, its draws from `seed` (a sweep's solve
    /// passes [`agent_seed`](super::agent_seed) of the scenario's seed and
    /// its own).
    pub fn new(rule: Rule, seed: u64) -> BanditAgent {
        let (policy, stream) = match rule {
            Rule::LinUcb { .. } => ("linucb", 1),
            Rule::Thompson { .. } => ("thompson", 2),
        };
        BanditAgent {
            rule,
            rng: SplitMix64::stream(seed, stream),
            models: vec![Ridge::new(FEATURES.len(), RIDGE_LAMBDA); ARMS.len()],
            base: None,
            in_force: BASE_ARM,
            pending: None,
            log: BanditLog {
                policy: policy.into(),
                rule,
                arms: ARMS.to_vec(),
                features: FEATURES.iter().map(|f| f.to_string()).collect(),
                rounds: Vec::new(),
                weights: Vec::new(),
            },
        }
    }

    /// The log so far, with each arm's current θ̂ as its weights.
    pub fn log(&self) -> BanditLog {
        BanditLog {
            weights: self.models.iter().map(Ridge::theta).collect(),
            ..self.log.clone()
        }
    }

    fn name(&self) -> &str {
        &self.log.policy
    }
}

impl ApiAgent for BanditAgent {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        let base = base_bids_once(&mut self.base, client)?;
        let seen = Observation::read(client, at)?;
        let now = seen.hour;

        // The previous decision's interval, scored.
        if let Some(p) = self.pending.take() {
            if let Some(reward) = seen.reward_since(p.hour) {
                let round = &mut self.log.rounds[p.round];
                round.reward = Some(reward);
                self.models[round.arm].update(&round.context, reward);
            }
        }

        let context = seen.context();
        let (distribution, greedy) = self
            .rule
            .distribution(&self.models, &context, &mut self.rng);
        let arm = self.rng.categorical(&distribution);
        if arm != self.in_force {
            set_arm(client, &base, arm, &seen.note(self.name(), arm))?;
            self.in_force = arm;
        }
        self.pending = Some(Pending {
            round: self.log.rounds.len(),
            hour: now,
        });
        self.log.rounds.push(BanditRound {
            at: at.now.ordinal(),
            context,
            arm,
            propensity: distribution[arm],
            distribution,
            greedy,
            reward: None,
        });
        Ok(())
    }
}

/// Runs `scenario` under a bandit with `rule`, its draws seeded by
/// [`agent_seed`](super::agent_seed) of the scenario's seed and
/// `sweep_seed`; the outcome carries the bandit's log.
///
/// # Errors
/// As [`outcome::run`].
pub fn run(
    scenario: &Scenario,
    rule: Rule,
    sweep_seed: u64,
    keep_going: impl FnMut() -> bool,
) -> Result<Outcome, RunError> {
    let mut agent = BanditAgent::new(rule, super::agent_seed(scenario.seed, sweep_seed));
    let mut o = outcome::run(scenario, &mut agent, keep_going)?;
    o.bandit = Some(agent.log());
    Ok(o)
}
