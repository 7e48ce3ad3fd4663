//! The bandit baselines, `linucb` and `thompson`: contextual bandits over
//! bid multipliers that manage the account only through the Ads API and
//! log, per decision, what off-policy evaluation needs (context, arm,
//! propensity, the full distribution, the reward once observed).
//!
//! - this file: the arms, the context's features, the log;
//! - `observe`: what a decision reads through GAQL ([`Observation`]: B,
//!   the hourly money, the features, the interval reward) and how an arm
//!   is set, shared with the Q-learning baseline;
//! - `ridge`: the per-arm ridge regression both bandits learn with;
//! - `policy`: the two selection rules (LinUCB under an ε-greedy mixture,
//!   linear Thompson sampling with Monte Carlo argmax probabilities);
//! - `agent`: [`BanditAgent`], the API side: what it reads, how it turns
//!   it into a context and a reward, how it sets bids, and [`run`], an
//!   episode whose outcome carries the log.
//!
//! Design decision: the arm is drawn from a distribution the agent
//! computes in full and logs, from a generator seeded by [`agent_seed`]
//! of the scenario's seed and the sweep's
//! ([`SplitMix64`](adfarm_suite::stats::SplitMix64) stream 1 for
//! `linucb`, 2 for `thompson`), so every logged propensity is the exact
//! probability of the arm played, the episode replays byte for byte, and
//! each sweep seed plays its own episode of the same market.

mod agent;
mod observe;
mod policy;
mod ridge;

pub use agent::{run, BanditAgent, THOMPSON_DRAWS};
pub use observe::{base_bids, base_bids_once, set_arm, Observation};
pub use policy::{argmax, Rule};
pub use ridge::{dot, Ridge};

use adfarm_suite::stats::SplitMix64;
use serde::{Deserialize, Serialize};

/// The seed a learning agent draws from on a scenario of seed
/// `scenario_seed` under the sweep's seed `sweep_seed`: the market keeps
/// the scenario's seed, the agent's draws mix in the sweep's, so two sweep
/// seeds give two episodes of one market. For one scenario seed, distinct
/// sweep seeds give distinct agent seeds.
pub fn agent_seed(scenario_seed: u64, sweep_seed: u64) -> u64 {
    SplitMix64::stream(scenario_seed, sweep_seed).next_u64()
}

/// The arms: multipliers of each keyword's bid as read at the first
/// decision (its base bid).
pub const ARMS: [f64; 5] = [0.6, 0.8, 1.0, 1.25, 1.5];

/// The arm that keeps the base bids (× 1.0).
pub const BASE_ARM: usize = 2;

/// The context's features, in order: a bias; the decision's hour of day
/// on the unit circle (sin, cos of 2π·hour/24); pace − 1, where pace is
/// today's spend so far over B × the share of the day gone (at midnight,
/// yesterday's spend over B; 1 before any spend could be read), clamped
/// to [0, 3]; and the ROAS of the interval just ended over the ROAS of
/// the 24 hours before now, − 1, clamped to [−1, 1] (0 where either had
/// no cost).
pub const FEATURES: [&str; 5] = ["bias", "hour-sin", "hour-cos", "pace", "roas-vs-day"];

/// Ridge penalty λ of every arm's model.
pub const RIDGE_LAMBDA: f64 = 1.0;

/// What a bandit episode logged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BanditLog {
    /// The solution, `linucb` or `thompson`.
    pub policy: String,
    /// Its selection rule with its parameters.
    pub rule: Rule,
    /// The arms' bid multipliers ([`ARMS`]).
    pub arms: Vec<f64>,
    /// The context's feature names ([`FEATURES`]).
    pub features: Vec<String>,
    /// One round per decision, in order.
    pub rounds: Vec<BanditRound>,
    /// Each arm's ridge estimate θ̂ at the episode's end: the bandit's
    /// final greedy policy is the arm maximising `xᵀθ̂` (what the OPE gate
    /// can evaluate on another bandit's log).
    pub weights: Vec<Vec<f64>>,
}

/// One decision of a bandit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BanditRound {
    /// The decision's tick, counted from the episode's start.
    pub at: u64,
    /// The context, one value per feature.
    pub context: Vec<f64>,
    /// The arm played (index into the arms).
    pub arm: usize,
    /// The probability the agent drew `arm` with, in (0, 1].
    pub propensity: f64,
    /// The full distribution over arms the arm was drawn from.
    pub distribution: Vec<f64>,
    /// The rule's greedy arm (LinUCB's UCB argmax, Thompson's posterior
    /// mean argmax).
    pub greedy: usize,
    /// The interval's reward, observed at the next decision: (conversion
    /// value − cost) of the hours until then over B × cadence / 24 (the
    /// interval's share of the budget). `None` for the last decision:
    /// no decision follows it to read it, so it is dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward: Option<f64>,
}

impl BanditLog {
    /// The rounds whose reward was observed.
    pub fn rewarded(&self) -> impl Iterator<Item = (&BanditRound, f64)> {
        self.rounds
            .iter()
            .filter_map(|r| r.reward.map(|reward| (r, reward)))
    }
}
