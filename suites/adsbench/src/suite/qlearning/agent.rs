//! [`QAgent`]: the Q-learning baseline acting only through the Ads API.
//!
//! At each decision point it reads its base bids (at the first decision)
//! and an [`Observation`] (B, the hourly money, pace, the ROAS feature),
//! exactly as the bandits do; scores the previous decision with the
//! interval reward and, when learning, takes one Q-learning step from
//! that decision's state to this one; picks an arm (ε-greedy when
//! learning, greedy when frozen); and, when the arm differs from the one
//! in force, sets every base keyword to base × multiplier in one `mutate`
//! whose note cites what was read (`q-learning: arm ×0.8; pace 1.31, last
//! 6 h cost 9.80, ROAS 1.42`).
//!
//! A decision whose search or mutate fails changes nothing: the bids in
//! force stay, and the next decision has no step to score.

use super::{QConfig, QTable, State, EXPLORATION_STREAM};
use crate::api::error::GoogleAdsFailure;
use crate::sandbox::AdsClient;
use crate::suite::agents::{ApiAgent, DecisionPoint};
use crate::suite::bandit::{base_bids_once, set_arm, Observation, ARMS, BASE_ARM};
use crate::suite::Q_LEARNING;
use adfarm_suite::stats::SplitMix64;
use serde::{Deserialize, Serialize};

/// Whether the agent learns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// ε-greedy, updating the table after every scored decision.
    Learning {
        /// Share of decisions whose arm is drawn uniformly.
        epsilon: f64,
        /// Learning rate α.
        alpha: f64,
        /// Discount γ per decision.
        gamma: f64,
    },
    /// Greedy, the table frozen.
    Frozen,
}

/// One decision of the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QStep {
    /// The decision's tick, counted from the episode's start.
    pub at: u64,
    /// The state's row ([`State::index`]).
    pub state: usize,
    /// The arm played.
    pub arm: usize,
    /// The table's greedy arm in that state then.
    pub greedy: usize,
    /// Whether the arm was an exploring draw other than the greedy arm.
    pub explored: bool,
    /// The interval's reward, read at the next decision; `None` for the
    /// last.
    pub reward: Option<f64>,
}

/// The previous decision, waiting for its reward.
#[derive(Debug, Clone, Copy)]
struct Pending {
    step: usize,
    hour: i64,
}

/// Tabular Q-learning over bid multipliers; see the module's
/// documentation.
#[derive(Debug, Clone)]
pub struct QAgent {
    mode: Mode,
    table: QTable,
    rng: SplitMix64,
    /// Each keyword's resource name and base bid, micros.
    base: Option<Vec<(String, i64)>>,
    /// The arm whose bids are in force.
    in_force: usize,
    pending: Option<Pending>,
    steps: Vec<QStep>,
}

impl QAgent {
    /// A learner starting from `table`, exploring with draws from
    /// [`EXPLORATION_STREAM`] of `seed` (in training, [`agent_seed`] of
    /// the training seed and the sweep's).
    ///
    /// [`agent_seed`]: crate::suite::bandit::agent_seed
    pub fn learning(config: &QConfig, table: QTable, seed: u64) -> QAgent {
        let mode = Mode::Learning {
            epsilon: config.epsilon,
            alpha: config.alpha,
            gamma: config.gamma,
        };
        QAgent::with(mode, table, SplitMix64::stream(seed, EXPLORATION_STREAM))
    }

    /// A greedy player of `table`, which it never changes.
    pub fn frozen(table: QTable) -> QAgent {
        // Greedy play draws nothing; the generator is never used.
        QAgent::with(Mode::Frozen, table, SplitMix64::new(0))
    }

    fn with(mode: Mode, table: QTable, rng: SplitMix64) -> QAgent {
        QAgent {
            mode,
            table,
            rng,
            base: None,
            in_force: BASE_ARM,
            pending: None,
            steps: Vec::new(),
        }
    }

    /// Whether it learns.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The table as it stands.
    pub fn table(&self) -> &QTable {
        &self.table
    }

    /// The table, giving the agent up.
    pub fn into_table(self) -> QTable {
        self.table
    }

    /// Its decisions so far.
    pub fn steps(&self) -> &[QStep] {
        &self.steps
    }
}

impl ApiAgent for QAgent {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        let base = base_bids_once(&mut self.base, client)?;
        let seen = Observation::read(client, at)?;
        let state = State::of(&seen).index();

        if let Some(p) = self.pending.take() {
            if let Some(reward) = seen.reward_since(p.hour) {
                let step = &mut self.steps[p.step];
                step.reward = Some(reward);
                if let Mode::Learning { alpha, gamma, .. } = self.mode {
                    self.table
                        .update((step.state, step.arm), reward, state, alpha, gamma);
                }
            }
        }

        let greedy = self.table.greedy(state);
        let arm = match self.mode {
            Mode::Learning { epsilon, .. } if self.rng.next_f64() < epsilon => {
                self.rng.below(ARMS.len())
            }
            _ => greedy,
        };
        if arm != self.in_force {
            set_arm(client, &base, arm, &seen.note(Q_LEARNING, arm))?;
            self.in_force = arm;
        }
        self.pending = Some(Pending {
            step: self.steps.len(),
            hour: seen.hour,
        });
        self.steps.push(QStep {
            at: at.now.ordinal(),
            state,
            arm,
            greedy,
            explored: arm != greedy,
            reward: None,
        });
        Ok(())
    }
}
