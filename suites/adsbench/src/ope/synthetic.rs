//! A small seeded contextual bandit with a known policy value, to check the
//! estimators' bias: contexts are drawn uniformly from a few types, rewards
//! are Bernoulli with per-(context, action) means, and both policies and a
//! deliberately misspecified reward model are fixed tables.

use super::data::{ActionTable, LoggedBandit};
use super::error::OpeError;
use adfarm_suite::stats::SplitMix64;

/// The bandit: every table is `[context][action]`.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticBandit {
    n_contexts: usize,
    n_actions: usize,
    reward_prob: Vec<f64>,
    logging: Vec<f64>,
    evaluation: Vec<f64>,
    reward_model: Vec<f64>,
}

/// Rounds drawn from the bandit, with what an estimator needs.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticLog {
    /// Context type of each round.
    pub context: Vec<usize>,
    /// The logged rounds.
    pub log: LoggedBandit,
    /// The evaluated policy's distribution per round.
    pub action_dist: ActionTable,
    /// The reward model's q̂ per round (biased on purpose).
    pub estimated_rewards: ActionTable,
}

impl SyntheticBandit {
    /// A bandit whose tables are drawn from `seed`. The logging policy gives
    /// every action at least a fifth of its fair share, so weights stay
    /// moderate; the evaluated policy is more peaked; q̂ is off by up to
    /// ±0.15 per cell.
    ///
    /// # Panics
    /// When `n_contexts` or `n_actions` is 0.
    pub fn new(n_contexts: usize, n_actions: usize, seed: u64) -> SyntheticBandit {
        assert!(n_contexts > 0 && n_actions > 0, "empty bandit");
        let mut rng = SplitMix64::new(seed);
        let cells = n_contexts * n_actions;
        let reward_prob: Vec<f64> = (0..cells).map(|_| 0.1 + 0.8 * rng.next_f64()).collect();
        let mut logging: Vec<f64> = (0..cells).map(|_| 0.2 + rng.next_f64()).collect();
        let mut evaluation: Vec<f64> = (0..cells)
            .map(|_| (0.05 + rng.next_f64()).powi(2))
            .collect();
        for table in [&mut logging, &mut evaluation] {
            for row in table.chunks_mut(n_actions) {
                let s: f64 = row.iter().sum();
                row.iter_mut().for_each(|p| *p /= s);
            }
        }
        let reward_model = reward_prob
            .iter()
            .map(|q| (q + 0.3 * (rng.next_f64() - 0.5)).clamp(0.0, 1.0))
            .collect();
        SyntheticBandit {
            n_contexts,
            n_actions,
            reward_prob,
            logging,
            evaluation,
            reward_model,
        }
    }

    /// The evaluated policy's true value: `E_x Σ_a π_e(a|x) q(x, a)`.
    pub fn true_value(&self) -> f64 {
        self.value_of(&self.evaluation)
    }

    /// The logging policy's true value.
    pub fn logging_value(&self) -> f64 {
        self.value_of(&self.logging)
    }

    /// What the direct method converges to with the biased q̂.
    pub fn reward_model_value(&self) -> f64 {
        let total: f64 = (0..self.reward_prob.len())
            .map(|i| self.evaluation[i] * self.reward_model[i])
            .sum();
        total / self.n_contexts as f64
    }

    fn value_of(&self, policy: &[f64]) -> f64 {
        let total: f64 = policy
            .iter()
            .zip(&self.reward_prob)
            .map(|(p, q)| p * q)
            .sum();
        total / self.n_contexts as f64
    }

    /// `n_rounds` rounds logged by the logging policy, from `seed`.
    ///
    /// # Errors
    /// Never for a well-formed bandit; the tables are checked as any input.
    pub fn sample(&self, n_rounds: usize, seed: u64) -> Result<SyntheticLog, OpeError> {
        let mut rng = SplitMix64::new(seed);
        let k = self.n_actions;
        let mut context = Vec::with_capacity(n_rounds);
        let mut log = LoggedBandit::default();
        let mut pi = Vec::with_capacity(n_rounds * k);
        let mut q = Vec::with_capacity(n_rounds * k);
        for _ in 0..n_rounds {
            let c = rng.below(self.n_contexts);
            let row = c * k..(c + 1) * k;
            let a = rng.categorical(&self.logging[row.clone()]);
            let hit = rng.next_f64() < self.reward_prob[c * k + a];
            context.push(c);
            log.action.push(a);
            log.position.push(0);
            log.reward.push(if hit { 1.0 } else { 0.0 });
            log.pscore.push(self.logging[c * k + a]);
            pi.extend_from_slice(&self.evaluation[row.clone()]);
            q.extend_from_slice(&self.reward_model[row]);
        }
        Ok(SyntheticLog {
            context,
            log,
            action_dist: ActionTable::new("action_dist", n_rounds, k, 1, pi)?,
            estimated_rewards: ActionTable::new("estimated_rewards", n_rounds, k, 1, q)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_distributions_and_the_model_is_biased() {
        let b = SyntheticBandit::new(4, 5, 11);
        for table in [&b.logging, &b.evaluation] {
            for row in table.chunks(5) {
                assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
                assert!(row.iter().all(|&p| p > 0.0));
            }
        }
        assert!((b.reward_model_value() - b.true_value()).abs() > 1e-3);
        let s = b.sample(1000, 3).unwrap();
        assert_eq!(s.log.n_rounds(), 1000);
        // The on-policy mean of the logs estimates the logging policy's value.
        assert!((s.log.mean_reward() - b.logging_value()).abs() < 0.05);
        assert_eq!(b.sample(50, 3).unwrap(), b.sample(50, 3).unwrap());
    }
}
