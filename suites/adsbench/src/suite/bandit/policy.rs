//! The two selection rules over per-arm [`Ridge`] models, each returning
//! the full distribution the arm is then drawn from, so the logged
//! propensity is the exact probability of the draw.
//!
//! - [`Rule::LinUcb`]: disjoint LinUCB (Li, Chu, Langford & Schapire 2010,
//!   "A Contextual-Bandit Approach to Personalized News Article
//!   Recommendation", Algorithm 1): the greedy arm maximises
//!   `xᵀθ̂ₐ + α √(xᵀAₐ⁻¹x)` (ties to the lower multiplier). LinUCB itself
//!   is deterministic, which leaves nothing to weight an off-policy
//!   estimate by, so the agent plays the ε-greedy mixture: `1 − ε + ε/K`
//!   on the greedy arm, `ε/K` on each other.
//! - [`Rule::Thompson`]: linear Thompson sampling (Agrawal & Goyal 2013,
//!   "Thompson Sampling for Contextual Bandits with Linear Payoffs"),
//!   per arm: `θ̃ₐ ~ N(θ̂ₐ, ν² Aₐ⁻¹)`, play the arm with the largest
//!   `xᵀθ̃ₐ`. Thompson sampling plays each arm with the probability that
//!   it is the posterior's argmax, which has no closed form; the rule
//!   draws `draws` posterior samples (each arm's `xᵀθ̃ₐ` is univariate
//!   normal, mean `xᵀθ̂ₐ`, sd `ν √(xᵀAₐ⁻¹x)`, the arms independent),
//!   takes each arm's share of argmaxes p̂ (standard error at most
//!   `0.5/√draws`, 0.011 at 2,000), mixes in ε uniform (so every arm keeps
//!   at least `ε/K`: an off-policy estimate of a fixed arm needs overlap),
//!   and draws the arm from that. The logged distribution is therefore
//!   exactly the one the arm was drawn from, not an estimate of it.

use super::ridge::Ridge;
use adfarm_suite::stats::SplitMix64;
use serde::{Deserialize, Serialize};

/// How a bandit picks its arm from its models.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Rule {
    /// Disjoint LinUCB under an ε-greedy mixture.
    #[serde(rename = "linucb")]
    LinUcb {
        /// Width of the confidence bonus.
        alpha: f64,
        /// Share of uniform exploration.
        epsilon: f64,
    },
    /// Linear Thompson sampling, its argmax probabilities by Monte Carlo.
    Thompson {
        /// Posterior scale ν.
        nu: f64,
        /// Share of uniform exploration.
        epsilon: f64,
        /// Posterior draws per decision.
        draws: u32,
    },
}

impl Rule {
    /// The distribution over arms at context `x`, and the greedy arm
    /// (LinUCB's UCB argmax; Thompson's posterior-mean argmax). Thompson
    /// draws its posterior samples from `rng`.
    pub fn distribution(
        &self,
        models: &[Ridge],
        x: &[f64],
        rng: &mut SplitMix64,
    ) -> (Vec<f64>, usize) {
        let k = models.len();
        let predictions: Vec<(f64, f64)> = models.iter().map(|m| m.predict(x)).collect();
        let means: Vec<f64> = predictions.iter().map(|p| p.0).collect();
        match *self {
            Rule::LinUcb { alpha, epsilon } => {
                let ucb: Vec<f64> = predictions.iter().map(|(m, w)| m + alpha * w).collect();
                let greedy = argmax(&ucb);
                let mut p = vec![epsilon / k as f64; k];
                p[greedy] += 1.0 - epsilon;
                (p, greedy)
            }
            Rule::Thompson { nu, epsilon, draws } => {
                let mut wins = vec![0u32; k];
                let mut sample = vec![0.0; k];
                for _ in 0..draws {
                    for (s, (m, w)) in sample.iter_mut().zip(&predictions) {
                        *s = m + nu * w * standard_normal(rng);
                    }
                    wins[argmax(&sample)] += 1;
                }
                let p = wins
                    .iter()
                    .map(|&n| {
                        (1.0 - epsilon) * f64::from(n) / f64::from(draws) + epsilon / k as f64
                    })
                    .collect();
                (p, argmax(&means))
            }
        }
    }

    /// The share of uniform exploration.
    pub fn epsilon(&self) -> f64 {
        match *self {
            Rule::LinUcb { epsilon, .. } | Rule::Thompson { epsilon, .. } => epsilon,
        }
    }
}

/// The first index of the largest value.
pub fn argmax(v: &[f64]) -> usize {
    let mut best = 0;
    for (i, x) in v.iter().enumerate() {
        if *x > v[best] {
            best = i;
        }
    }
    best
}

/// One standard normal draw (Box–Muller, the cosine half).
fn standard_normal(rng: &mut SplitMix64) -> f64 {
    // 1 − U lies in (0, 1], so the logarithm is finite.
    let u1 = 1.0 - rng.next_f64();
    let u2 = rng.next_f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trained(rewards: [f64; 3], n: usize) -> Vec<Ridge> {
        rewards
            .iter()
            .map(|r| {
                let mut m = Ridge::new(1, 1.0);
                for _ in 0..n {
                    m.update(&[1.0], *r);
                }
                m
            })
            .collect()
    }

    #[test]
    fn linucb_puts_the_mixture_on_its_ucb_argmax() {
        let models = trained([0.2, 0.9, 0.5], 50);
        let rule = Rule::LinUcb {
            alpha: 1.0,
            epsilon: 0.3,
        };
        let (p, greedy) = rule.distribution(&models, &[1.0], &mut SplitMix64::new(1));
        assert_eq!(greedy, 1);
        assert!(
            (p[1] - 0.8).abs() < 1e-12 && (p[0] - 0.1).abs() < 1e-12,
            "{p:?}"
        );
        // Unexplored arms have the widest bonus: an untried arm wins.
        let mut fresh = trained([0.2, 0.9, 0.5], 50);
        fresh[2] = Ridge::new(1, 1.0);
        // Its bonus α·1 beats 0.88 + α/√51 once α > 1.
        let wide = Rule::LinUcb {
            alpha: 2.0,
            epsilon: 0.3,
        };
        let (_, greedy) = wide.distribution(&fresh, &[1.0], &mut SplitMix64::new(1));
        assert_eq!(greedy, 2);
    }

    #[test]
    fn thompson_matches_the_posterior_argmax_probability() {
        // Two arms with equal posteriors: each wins half the draws.
        let models = trained([0.5, 0.5, -50.0], 4);
        let rule = Rule::Thompson {
            nu: 1.0,
            epsilon: 0.0,
            draws: 20_000,
        };
        let (p, _) = rule.distribution(&models, &[1.0], &mut SplitMix64::new(3));
        assert!(
            (p[0] - 0.5).abs() < 0.02 && (p[1] - 0.5).abs() < 0.02,
            "{p:?}"
        );
        assert_eq!(p[2], 0.0);
        // ε keeps every arm possible, and the distribution sums to 1.
        let rule = Rule::Thompson {
            nu: 1.0,
            epsilon: 0.09,
            draws: 1_000,
        };
        let (p, greedy) = rule.distribution(&models, &[1.0], &mut SplitMix64::new(3));
        assert!((p[2] - 0.03).abs() < 1e-12, "{p:?}");
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(greedy < 2);
    }

    #[test]
    fn thompson_draws_are_a_function_of_the_seed() {
        let models = trained([0.4, 0.5, 0.45], 3);
        let rule = Rule::Thompson {
            nu: 1.0,
            epsilon: 0.1,
            draws: 500,
        };
        let a = rule.distribution(&models, &[1.0], &mut SplitMix64::new(9));
        let b = rule.distribution(&models, &[1.0], &mut SplitMix64::new(9));
        assert_eq!(a, b);
    }
}
