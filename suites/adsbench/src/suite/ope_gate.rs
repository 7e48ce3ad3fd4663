//! The OPE gate on agents: from a bandit baseline's logged rounds
//! (context, arm, reward, propensity), estimate another policy's value
//! with the off-policy estimators and say whether the lower end of DR's
//! bootstrap interval beats the logging policy's mean reward (the
//! proposal's gate, [`dr_beats_baseline`]).
//!
//! - Rounds: the log's rounds with an observed reward (the last decision's
//!   is never observed; see [`BanditRound::reward`]).
//! - Target policies ([`Target`]): a fixed arm (× 1.0 keeps the base bids,
//!   the fixed-bid policy in the bandits' terms), or a greedy policy over
//!   per-arm linear weights (another bandit's final θ̂, from its log).
//! - Reward model for DR: one ridge regression per arm on the context
//!   ([`Ridge`], λ = [`RIDGE_LAMBDA`]), fitted on every rewarded round of
//!   the log (no cross-fitting, as obp's `RegressionModel` with its
//!   default single fold); an arm never played predicts 0.
//! - Estimates: IPW and DR without clipping; DR's percentile bootstrap
//!   interval over its per-round terms with seeded resamples.

use super::bandit::{argmax, dot, BanditLog, BanditRound, Ridge, RIDGE_LAMBDA};
use crate::ope::{
    dr_beats_baseline, interval, ActionTable, Estimator, LoggedBandit, OpeError, OpeInput,
    Resamples, DEFAULT_ALPHA, DEFAULT_RESAMPLES,
};
use serde::{Deserialize, Serialize};

/// The policy whose value the gate estimates.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// Always this arm.
    Arm(usize),
    /// The arm maximising `xᵀθₐ` (ties to the lower index), one weight
    /// vector θₐ per arm.
    Greedy(Vec<Vec<f64>>),
}

impl Target {
    /// Its distribution over `n_arms` arms at context `x` (deterministic:
    /// one arm gets 1).
    ///
    /// # Errors
    /// [`OpeError::Setting`] for an arm out of range, or weights that do
    /// not give every arm one weight per feature.
    pub fn distribution(&self, x: &[f64], n_arms: usize) -> Result<Vec<f64>, OpeError> {
        let arm = match self {
            Target::Arm(a) => *a,
            Target::Greedy(w) => {
                if w.len() != n_arms || w.iter().any(|t| t.len() != x.len()) {
                    return Err(OpeError::Setting {
                        field: "target.weights",
                        value: format!("{} arms", w.len()),
                        reason: "the greedy policy needs one weight per feature for every arm",
                    });
                }
                argmax(&w.iter().map(|t| dot(x, t)).collect::<Vec<_>>())
            }
        };
        if arm >= n_arms {
            return Err(OpeError::Setting {
                field: "target.arm",
                value: arm.to_string(),
                reason: "the arm must be one of the log's arms",
            });
        }
        let mut p = vec![0.0; n_arms];
        p[arm] = 1.0;
        Ok(p)
    }
}

/// How the gate's interval is computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateSettings {
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Their seed.
    pub seed: u64,
    /// Significance level (0.05: a 95% interval).
    pub alpha: f64,
}

impl Default for GateSettings {
    /// 10,000 resamples from seed 0, a 95% interval.
    fn default() -> GateSettings {
        GateSettings {
            resamples: DEFAULT_RESAMPLES,
            seed: 0,
            alpha: DEFAULT_ALPHA,
        }
    }
}

/// The gate's verdict on one target policy from one log.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AgentGate {
    /// Rewarded rounds used.
    pub rounds: usize,
    /// DR's estimate of the target's value (mean reward per decision).
    pub estimate: f64,
    /// Lower end of DR's interval.
    pub lower: f64,
    /// Upper end of DR's interval.
    pub upper: f64,
    /// IPW's estimate, beside DR's.
    pub ipw: f64,
    /// The logging policy's value: its mean observed reward.
    pub logging_mean: f64,
    /// Whether DR's lower end is strictly above the logging mean.
    pub passed: bool,
}

/// The gate on `target` from `log`; see the module's documentation.
///
/// # Errors
/// [`OpeError`] for a log without rewarded rounds, a bad propensity or
/// context, a target that does not fit the log, or bad settings.
pub fn evaluate(
    log: &BanditLog,
    target: &Target,
    settings: &GateSettings,
) -> Result<AgentGate, OpeError> {
    let rounds: Vec<(&BanditRound, f64)> = log.rewarded().collect();
    let n = rounds.len();
    let k = log.arms.len();
    let d = log.features.len();
    if let Some(i) = rounds.iter().position(|(r, _)| r.context.len() != d) {
        return Err(OpeError::value(
            "context",
            i,
            rounds[i].0.context.len(),
            "every context needs one value per feature",
        ));
    }
    let logged = LoggedBandit {
        action: rounds.iter().map(|(r, _)| r.arm).collect(),
        position: vec![0; n],
        reward: rounds.iter().map(|(_, y)| *y).collect(),
        pscore: rounds.iter().map(|(r, _)| r.propensity).collect(),
    };
    let mut models = vec![Ridge::new(d, RIDGE_LAMBDA); k];
    for (r, y) in &rounds {
        if let Some(m) = models.get_mut(r.arm) {
            m.update(&r.context, *y);
        }
    }
    let mut pi = Vec::with_capacity(n * k);
    let mut q = Vec::with_capacity(n * k);
    for (r, _) in &rounds {
        pi.extend(target.distribution(&r.context, k)?);
        q.extend(models.iter().map(|m| m.predict(&r.context).0));
    }
    let pi = ActionTable::new("action_dist", n, k, 1, pi)?;
    let q = ActionTable::new("estimated_rewards", n, k, 1, q)?;
    let input = OpeInput::new(&logged, &pi, Some(&q))?;
    let ipw = Estimator::Ipw {
        clip: f64::INFINITY,
    }
    .estimate(&input)?;
    let terms = Estimator::Dr {
        clip: f64::INFINITY,
    }
    .round_rewards(&input)?;
    let estimate = terms.iter().sum::<f64>() / n as f64;
    let ci = interval(
        &terms,
        &Resamples::Seeded {
            count: settings.resamples,
            seed: settings.seed,
        },
        settings.alpha,
    )?;
    let logging_mean = logged.mean_reward();
    let verdict = dr_beats_baseline(&ci, logging_mean)?;
    Ok(AgentGate {
        rounds: n,
        estimate,
        lower: ci.lower,
        upper: ci.upper,
        ipw,
        logging_mean,
        passed: verdict.passed,
    })
}

#[cfg(test)]
mod tests {
    use super::super::bandit::{Rule, ARMS, FEATURES};
    use super::*;
    use adfarm_suite::stats::SplitMix64;

    /// `n` rounds logged uniformly over the five arms; arm `a`'s reward
    /// is 0.2·a + 0.3·x₁ + uniform noise in [−0.5, 0.5], so arm 4 is best
    /// everywhere and arm 0 worst, and the logging policy's value is 0.4.
    fn uniform_log(n: usize, seed: u64) -> BanditLog {
        let mut rng = SplitMix64::new(seed);
        let k = ARMS.len();
        let rounds = (0..n)
            .map(|i| {
                let mut context = vec![0.0; FEATURES.len()];
                context[0] = 1.0;
                context[1] = rng.next_f64() * 2.0 - 1.0;
                let arm = rng.below(k);
                let reward = 0.2 * arm as f64 + 0.3 * context[1] + rng.next_f64() - 0.5;
                BanditRound {
                    at: i as u64,
                    context,
                    arm,
                    propensity: 1.0 / k as f64,
                    distribution: vec![1.0 / k as f64; k],
                    greedy: 0,
                    reward: Some(reward),
                }
            })
            .collect();
        BanditLog {
            policy: "uniform".into(),
            rule: Rule::LinUcb {
                alpha: 0.0,
                epsilon: 1.0,
            },
            arms: ARMS.to_vec(),
            features: FEATURES.iter().map(|f| f.to_string()).collect(),
            rounds,
            weights: Vec::new(),
        }
    }

    fn settings() -> GateSettings {
        GateSettings {
            resamples: 1_000,
            seed: 5,
            alpha: 0.05,
        }
    }

    #[test]
    fn the_gate_passes_the_best_fixed_arm_and_fails_the_worst() {
        let log = uniform_log(2_000, 1);
        let best = evaluate(&log, &Target::Arm(4), &settings()).expect("a verdict");
        assert!(best.passed, "{best:?}");
        assert!((best.estimate - 0.8).abs() < 0.05, "{best:?}");
        assert!((best.logging_mean - 0.4).abs() < 0.05, "{best:?}");
        assert!(best.lower <= best.estimate && best.estimate <= best.upper);
        assert!((best.ipw - 0.8).abs() < 0.1, "{best:?}");
        let worst = evaluate(&log, &Target::Arm(0), &settings()).expect("a verdict");
        assert!(!worst.passed, "{worst:?}");
        assert!(worst.estimate.abs() < 0.05, "{worst:?}");
        // The logging policy's own arm mix is no better than itself.
        let middle = evaluate(&log, &Target::Arm(2), &settings()).expect("a verdict");
        assert!(!middle.passed, "{middle:?}");
    }

    #[test]
    fn a_greedy_target_is_judged_by_the_arms_it_picks() {
        let log = uniform_log(2_000, 2);
        // Arm 4 wherever x₁ > 0, arm 3 elsewhere: value
        // ½(0.8 + 0.15) + ½(0.6 − 0.15) = 0.7.
        let mut weights = vec![vec![0.0; FEATURES.len()]; ARMS.len()];
        weights[4][1] = 1.0;
        weights[3][1] = -1.0;
        weights[3][0] = 1e-9;
        let g = evaluate(&log, &Target::Greedy(weights), &settings()).expect("a verdict");
        assert!((g.estimate - 0.7).abs() < 0.06, "{g:?}");
        assert!(g.passed, "{g:?}");
        let wrong = Target::Greedy(vec![vec![0.0; 2]; ARMS.len()]);
        assert!(matches!(
            evaluate(&log, &wrong, &settings()),
            Err(OpeError::Setting {
                field: "target.weights",
                ..
            })
        ));
        assert!(matches!(
            evaluate(&log, &Target::Arm(9), &settings()),
            Err(OpeError::Setting {
                field: "target.arm",
                ..
            })
        ));
    }

    #[test]
    fn the_verdict_is_a_function_of_the_log_and_the_seed() {
        let log = uniform_log(300, 3);
        let a = evaluate(&log, &Target::Arm(3), &settings()).expect("a verdict");
        assert_eq!(
            a,
            evaluate(&log, &Target::Arm(3), &settings()).expect("a verdict")
        );
        let mut empty = log.clone();
        empty.rounds.iter_mut().for_each(|r| r.reward = None);
        assert!(matches!(
            evaluate(&empty, &Target::Arm(3), &settings()),
            Err(OpeError::Empty { .. })
        ));
    }
}
