//! The tabular Q-learning baseline, `q-learning`: a Q-table over a small
//! discrete state and the bandits' bid-multiplier arms, trained by
//! ε-greedy Q-learning on training scenarios whose seeds are disjoint
//! from the evaluated scenario's, then played greedily with the table
//! frozen. It acts only through the Ads API, reading what the bandits read
//! ([`Observation`](super::bandit::Observation)).
//!
//! - this file: the configuration, the state, the table, the training
//!   seeds, [`train`] and [`run`];
//! - `agent`: [`QAgent`], the API side, learning or frozen;
//! - `stage`: the `train` stage, one job per scenario, `q-learning`
//!   entry and sweep seed, whose [`Trained`] record that seed's solve of
//!   the entry reads and plays frozen. Without it (a library caller)
//!   [`run`] trains first: training is a pure function of the scenario,
//!   the parameters and the sweep's seed, so both give the same episode.
//!
//! - **State** (36): the decision's 6-hour block of the day (4) × the pace
//!   bucket (under 0.8, 0.8 to 1.2, 1.2 and over: 3) × the bucket of the
//!   last interval's ROAS against the last 24 hours' (the bandits'
//!   feature; under −0.25, −0.25 to 0.25, over 0.25: 3).
//! - **Actions**: the bandits' arms ([`ARMS`]), × 0.6 to × 1.5 of each
//!   keyword's bid as read at the first decision.
//! - **Reward**: the bandits' interval reward, (conversion value − cost of
//!   the hours until the next decision) over B × cadence / 24, read at
//!   that decision; the last decision's is never read.
//! - **Learning**: `Q(s, a) += α (r + γ maxₐ' Q(s', a') − Q(s, a))`, α
//!   constant (default 0.2: with about three visits a cell in eight
//!   two-week episodes, a sample-average rate would let the first noisy
//!   reward dominate), γ default 0.5 (a decision's bids mostly shape its
//!   own interval; pace carries some of it into the next). Exploration is
//!   ε-greedy (default 0.2) from [`SplitMix64`] stream 3 of
//!   [`agent_seed`] of each training seed and the sweep's seed, so each
//!   sweep seed learns its own table on the same training markets. The
//!   table starts at 0; the greedy arm of a state breaks ties towards
//!   × 1.0, so a state never visited in training keeps the bids.
//! - **Training seeds**: episode k of n plays the scenario with seed
//!   `seed + 1,000,000 + k` (wrapping), every other field unchanged
//!   ([`training_seeds`]): never the scenario's own seed, nor a generated
//!   scenario's (1 to 1,000); planning refuses a sweep that evaluates a
//!   seed one of its entries trains on ([`stage::check_disjoint`]).

mod agent;
pub mod stage;

pub use agent::{Mode, QAgent, QStep};

use super::bandit::{agent_seed, Observation, ARMS, BASE_ARM};
use super::baselines::Profit;
use super::outcome::{self, Outcome, RunError};
use super::scenario::Scenario;
use adfarm_proto::SolutionSpec;
use adfarm_suite::DataError;
use serde::{Deserialize, Serialize};

/// Training episodes when `params.episodes` is not set.
pub const DEFAULT_EPISODES: u32 = 8;
/// The most training episodes a solve may run.
pub const MAX_EPISODES: u32 = 64;
/// Training exploration ε when `params.epsilon` is not set.
pub const DEFAULT_EPSILON: f64 = 0.2;
/// Learning rate α when `params.alpha` is not set.
pub const DEFAULT_ALPHA: f64 = 0.2;
/// Discount γ per decision when `params.gamma` is not set.
pub const DEFAULT_GAMMA: f64 = 0.5;
/// What training seeds are offset by from the scenario's seed.
pub const TRAIN_SEED_OFFSET: u64 = 1_000_000;
/// The [`SplitMix64`](adfarm_suite::stats::SplitMix64) stream of a training
/// seed that ε-greedy draws from (the bandits use 1 and 2).
pub const EXPLORATION_STREAM: u64 = 3;

/// Hours in one block of the state's hour-of-day coordinate.
pub const HOURS_PER_BLOCK: u8 = 6;
/// Upper bounds of the pace buckets but the last: under, on, over.
pub const PACE_BOUNDS: [f64; 2] = [0.8, 1.2];
/// Upper bounds of the ROAS-vs-day buckets but the last: worse, as
/// usual, better.
pub const ROAS_BOUNDS: [f64; 2] = [-0.25, 0.25];
/// Number of states.
pub const STATES: usize = (24 / HOURS_PER_BLOCK as usize) * 3 * 3;

/// The learner's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct QConfig {
    /// Training episodes (1 to [`MAX_EPISODES`]).
    pub episodes: u32,
    /// Training exploration ε, in (0, 1].
    pub epsilon: f64,
    /// Learning rate α, in (0, 1].
    pub alpha: f64,
    /// Discount γ per decision, in [0, 1).
    pub gamma: f64,
}

impl Default for QConfig {
    fn default() -> QConfig {
        QConfig {
            episodes: DEFAULT_EPISODES,
            epsilon: DEFAULT_EPSILON,
            alpha: DEFAULT_ALPHA,
            gamma: DEFAULT_GAMMA,
        }
    }
}

impl QConfig {
    /// The parameters of a `q-learning` entry: `episodes`, `epsilon`,
    /// `alpha`, `gamma`, each defaulted when left out.
    ///
    /// # Errors
    /// [`DataError::Param`] naming `params.<key>`: an unknown key or a
    /// value out of its range.
    pub fn from_spec(spec: &SolutionSpec) -> Result<QConfig, DataError> {
        const KEYS: [&str; 4] = ["episodes", "epsilon", "alpha", "gamma"];
        if let Some(other) = spec
            .params
            .as_object()
            .and_then(|o| o.keys().find(|k| !KEYS.contains(&k.as_str())))
        {
            return Err(DataError::Param {
                field: format!("params.{other}"),
                reason: format!(
                    "{} takes only `episodes`, `epsilon`, `alpha` and `gamma`",
                    spec.name
                ),
            });
        }
        let bad = |key: &str, range: &str, v: &serde_json::Value| DataError::Param {
            field: format!("params.{key}"),
            reason: format!("must be {range}, got {v}"),
        };
        let mut c = QConfig::default();
        if let Some(v) = spec.params.get("episodes") {
            c.episodes = v
                .as_u64()
                .filter(|n| (1..=u64::from(MAX_EPISODES)).contains(n))
                .ok_or_else(|| bad("episodes", &format!("an integer in 1..={MAX_EPISODES}"), v))?
                as u32;
        }
        let number = |key: &str, default: f64, ok: fn(f64) -> bool, range: &str| match spec
            .params
            .get(key)
        {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .filter(|x| ok(*x))
                .ok_or_else(|| bad(key, range, v)),
        };
        c.epsilon = number(
            "epsilon",
            c.epsilon,
            |x| x > 0.0 && x <= 1.0,
            "a number in (0, 1]",
        )?;
        c.alpha = number(
            "alpha",
            c.alpha,
            |x| x > 0.0 && x <= 1.0,
            "a number in (0, 1]",
        )?;
        c.gamma = number(
            "gamma",
            c.gamma,
            |x| (0.0..1.0).contains(&x),
            "a number in [0, 1)",
        )?;
        Ok(c)
    }
}

/// A decision's discrete state; see the module's documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The 6-hour block of the day, 0 to 3.
    pub block: usize,
    /// Pace bucket: 0 under 0.8, 1 to 1.2, 2 over.
    pub pace: usize,
    /// ROAS-vs-day bucket: 0 under −0.25, 1 to 0.25, 2 over.
    pub roas: usize,
}

/// The bucket of `x` among the buckets ending at `bounds`.
fn bucket(x: f64, bounds: [f64; 2]) -> usize {
    bounds.iter().take_while(|b| x >= **b).count()
}

impl State {
    /// The state of what a decision read.
    pub fn of(seen: &Observation) -> State {
        State {
            block: usize::from(seen.hour_of_day / HOURS_PER_BLOCK),
            pace: bucket(seen.pace, PACE_BOUNDS),
            roas: bucket(seen.roas_vs_day, ROAS_BOUNDS),
        }
    }

    /// Its row in a [`QTable`].
    pub fn index(self) -> usize {
        (self.block * 3 + self.pace) * 3 + self.roas
    }
}

/// Q-values and visit counts, one row per state ([`State::index`]), one
/// column per arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QTable {
    /// Q(s, a). In JSON each row is one string of the values' shortest
    /// round-tripping decimals, space-separated, so the table parses back
    /// to the same bits (a JSON number may not).
    #[serde(with = "exact_rows")]
    pub values: Vec<Vec<f64>>,
    /// How often (s, a) was updated.
    pub visits: Vec<Vec<u32>>,
}

impl Default for QTable {
    fn default() -> QTable {
        QTable::new()
    }
}

impl QTable {
    /// All zeros.
    pub fn new() -> QTable {
        QTable {
            values: vec![vec![0.0; ARMS.len()]; STATES],
            visits: vec![vec![0; ARMS.len()]; STATES],
        }
    }

    /// The arm with the largest Q in `state`, ties going to × 1.0 and
    /// then to the lower multiplier.
    pub fn greedy(&self, state: usize) -> usize {
        let q = &self.values[state];
        let mut best = BASE_ARM;
        for (i, v) in q.iter().enumerate() {
            if *v > q[best] {
                best = i;
            }
        }
        best
    }

    /// One Q-learning step: `(state, arm)` earned `reward` and led to
    /// `next`.
    pub fn update(
        &mut self,
        (state, arm): (usize, usize),
        reward: f64,
        next: usize,
        alpha: f64,
        gamma: f64,
    ) {
        let future = self.values[next]
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let q = &mut self.values[state][arm];
        *q += alpha * (reward + gamma * future - *q);
        self.visits[state][arm] += 1;
    }

    /// The table as bytes (each Q-value's little-endian bits, then each
    /// visit count's), for comparing two tables exactly.
    pub fn bytes(&self) -> Vec<u8> {
        let values = self.values.iter().flatten().flat_map(|v| v.to_le_bytes());
        let visits = self.visits.iter().flatten().flat_map(|n| n.to_le_bytes());
        values.chain(visits).collect()
    }

    /// The number of (state, arm) pairs updated at least once.
    pub fn visited(&self) -> usize {
        self.visits.iter().flatten().filter(|n| **n > 0).count()
    }
}

/// Rows of floats as strings that parse back to the same bits.
mod exact_rows {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(rows: &[Vec<f64>], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(rows.iter().map(|row| {
            row.iter()
                .map(|v| format!("{v:?}"))
                .collect::<Vec<_>>()
                .join(" ")
        }))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<f64>>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|row| {
                row.split_whitespace()
                    .map(|v| v.parse::<f64>().map_err(D::Error::custom))
                    .collect()
            })
            .collect()
    }
}

/// The seeds of the `episodes` training episodes for a scenario with seed
/// `seed`: `seed + TRAIN_SEED_OFFSET + k` (wrapping), k = 0..episodes.
pub fn training_seeds(seed: u64, episodes: u32) -> Vec<u64> {
    (0..u64::from(episodes))
        .map(|k| seed.wrapping_add(TRAIN_SEED_OFFSET + k))
        .collect()
}

/// One training episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingEpisode {
    /// The market's seed.
    pub seed: u64,
    /// Conversion value − cost over the episode, micros.
    pub profit_micros: i64,
    /// Decisions made.
    pub decisions: u64,
    /// Decisions whose arm was an exploring draw other than the greedy
    /// one.
    pub explored: u64,
}

/// A trained table and how it was trained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trained {
    /// The parameters.
    pub config: QConfig,
    /// The seed of the scenario it was trained for (never a training
    /// seed).
    pub scenario_seed: u64,
    /// The sweep's seed its exploration mixed in.
    #[serde(default)]
    pub sweep_seed: u64,
    /// The training episodes, in order.
    pub episodes: Vec<TrainingEpisode>,
    /// The table after the last.
    pub table: QTable,
}

/// Trains a table for `scenario` under the sweep's seed `sweep_seed`:
/// `config.episodes` episodes of it on the [`training_seeds`] (the
/// markets), in order, each exploring from [`agent_seed`] of its training
/// seed and `sweep_seed` and learning from the table the last left.
///
/// # Errors
/// As [`outcome::run`].
pub fn train(
    scenario: &Scenario,
    config: &QConfig,
    sweep_seed: u64,
    mut keep_going: impl FnMut() -> bool,
) -> Result<Trained, RunError> {
    let mut table = QTable::new();
    let mut episodes = Vec::new();
    for seed in training_seeds(scenario.seed, config.episodes) {
        let training = Scenario {
            seed,
            ..scenario.clone()
        };
        let mut agent = QAgent::learning(config, table, agent_seed(seed, sweep_seed));
        let o = outcome::run(&training, &mut agent, &mut keep_going)?;
        episodes.push(TrainingEpisode {
            seed,
            profit_micros: Profit::of(&o).total_micros,
            decisions: o.decisions,
            explored: agent.steps().iter().filter(|s| s.explored).count() as u64,
        });
        table = agent.into_table();
    }
    Ok(Trained {
        config: *config,
        scenario_seed: scenario.seed,
        sweep_seed,
        episodes,
        table,
    })
}

/// Trains a table for `scenario` under the sweep's seed `sweep_seed`
/// ([`train`]), then runs the scenario under it, greedy and frozen.
///
/// # Errors
/// As [`outcome::run`].
pub fn run(
    scenario: &Scenario,
    config: &QConfig,
    sweep_seed: u64,
    mut keep_going: impl FnMut() -> bool,
) -> Result<(Outcome, Trained), RunError> {
    let trained = train(scenario, config, sweep_seed, &mut keep_going)?;
    let mut agent = QAgent::frozen(trained.table.clone());
    let o = outcome::run(scenario, &mut agent, keep_going)?;
    Ok((o, trained))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_cover_every_row_once() {
        let mut seen = [false; STATES];
        for block in 0..4 {
            for pace in 0..3 {
                for roas in 0..3 {
                    let i = State { block, pace, roas }.index();
                    assert!(!seen[i], "{i} twice");
                    seen[i] = true;
                }
            }
        }
        assert!(seen.iter().all(|s| *s));
        assert_eq!(bucket(0.79, PACE_BOUNDS), 0);
        assert_eq!(bucket(0.8, PACE_BOUNDS), 1);
        assert_eq!(bucket(3.0, PACE_BOUNDS), 2);
        assert_eq!(bucket(-1.0, ROAS_BOUNDS), 0);
        assert_eq!(bucket(0.0, ROAS_BOUNDS), 1);
        assert_eq!(bucket(0.3, ROAS_BOUNDS), 2);
    }

    #[test]
    fn an_unvisited_state_keeps_the_bids_and_updates_follow_the_bellman_step() {
        let mut t = QTable::new();
        assert_eq!(t.greedy(0), BASE_ARM);
        t.values[1][0] = 0.5;
        t.update((0, 4), 1.0, 1, 0.5, 0.5);
        // 0 + 0.5 × (1 + 0.5 × 0.5 − 0) = 0.625.
        assert_eq!(t.values[0][4], 0.625);
        assert_eq!(t.visits[0][4], 1);
        assert_eq!(t.greedy(0), 4);
        t.update((0, 0), 2.0, 1, 1.0, 0.0);
        assert_eq!(t.greedy(0), 0);
        assert_eq!(t.visited(), 2);
    }
}
