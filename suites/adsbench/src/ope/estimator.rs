//! The off-policy estimators, with obp 0.5.7's exact definitions:
//!
//! - IPW: `w_i r_i` with `w_i = min(π_e(a_i|x_i, p_i) / pscore_i, λ)`;
//! - SNIPW: `w_i r_i / mean(w)` (unclipped, as in obp);
//! - DM: `Σ_a q̂(x_i,a,p_i) π_e(a|x_i,p_i) / Σ_a π_e(a|x_i,p_i)` (obp's
//!   `np.average` divides by the weight sum);
//! - DR: DM's term plus `w_i (r_i - q̂(x_i,a_i,p_i))`, `w_i` clipped at λ;
//! - SNDR: DM's term plus `w_i (r_i - q̂(x_i,a_i,p_i)) / mean(w)` (unclipped).
//!
//! Each estimate is the mean of its per-round terms; the bootstrap resamples
//! those terms, self-normalisers included, as obp does.

use super::data::{ModelTerms, OpeInput};
use super::error::OpeError;

/// An off-policy estimator of the evaluated policy's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Estimator {
    /// Inverse propensity weighting, weights clipped at `clip` (λ;
    /// `f64::INFINITY` for none).
    Ipw {
        /// λ ≥ 0.
        clip: f64,
    },
    /// Self-normalised IPW.
    SnIpw,
    /// Direct method: the reward model's value of the evaluated policy.
    Dm,
    /// Doubly robust, weights clipped at `clip`.
    Dr {
        /// λ ≥ 0.
        clip: f64,
    },
    /// Self-normalised doubly robust.
    SnDr,
}

impl Estimator {
    /// The five estimators unclipped, in report order.
    pub const ALL: [Estimator; 5] = [
        Estimator::Ipw {
            clip: f64::INFINITY,
        },
        Estimator::SnIpw,
        Estimator::Dm,
        Estimator::Dr {
            clip: f64::INFINITY,
        },
        Estimator::SnDr,
    ];

    /// obp's short name (`ipw`, `snipw`, `dm`, `dr`, `sndr`).
    pub fn name(&self) -> &'static str {
        match self {
            Estimator::Ipw { .. } => "ipw",
            Estimator::SnIpw => "snipw",
            Estimator::Dm => "dm",
            Estimator::Dr { .. } => "dr",
            Estimator::SnDr => "sndr",
        }
    }

    /// Whether it reads the reward model's q̂.
    pub fn needs_reward_model(&self) -> bool {
        matches!(self, Estimator::Dm | Estimator::Dr { .. } | Estimator::SnDr)
    }

    /// The estimated policy value: the mean of [`Estimator::round_rewards`].
    ///
    /// # Errors
    /// [`OpeError::Setting`] for a negative or NaN clip or a missing q̂,
    /// [`OpeError::ZeroWeights`] when a self-normalised estimator has no
    /// weight.
    pub fn estimate(&self, input: &OpeInput<'_>) -> Result<f64, OpeError> {
        let mut sum = 0.0;
        self.for_each_round(input, |_, r| sum += r)?;
        Ok(sum / input.n_rounds() as f64)
    }

    /// Each round's contribution to the estimate (obp's
    /// `_estimate_round_rewards`), the samples the bootstrap resamples.
    ///
    /// # Errors
    /// As [`Estimator::estimate`].
    pub fn round_rewards(&self, input: &OpeInput<'_>) -> Result<Vec<f64>, OpeError> {
        let mut out = vec![0.0; input.n_rounds()];
        self.for_each_round(input, |i, r| out[i] = r)?;
        Ok(out)
    }

    fn for_each_round(
        &self,
        input: &OpeInput<'_>,
        mut emit: impl FnMut(usize, f64),
    ) -> Result<(), OpeError> {
        let reward = &input.log.reward;
        let weight = &input.weight;
        match *self {
            Estimator::Ipw { clip } => {
                check_clip(clip)?;
                for (i, (r, w)) in reward.iter().zip(weight).enumerate() {
                    emit(i, r * w.min(clip));
                }
            }
            Estimator::SnIpw => {
                let norm = mean_weight(weight)?;
                for (i, (r, w)) in reward.iter().zip(weight).enumerate() {
                    emit(i, r * w / norm);
                }
            }
            Estimator::Dm => {
                let m = reward_model(input, self)?;
                for (i, d) in m.direct.iter().enumerate() {
                    emit(i, *d);
                }
            }
            Estimator::Dr { clip } => {
                check_clip(clip)?;
                let m = reward_model(input, self)?;
                doubly_robust(m, reward, weight, |w, e| w.min(clip) * e, emit);
            }
            Estimator::SnDr => {
                let m = reward_model(input, self)?;
                let norm = mean_weight(weight)?;
                doubly_robust(m, reward, weight, |w, e| w * e / norm, emit);
            }
        }
        Ok(())
    }
}

impl std::fmt::Display for Estimator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Estimator::Ipw { clip } | Estimator::Dr { clip } if clip.is_finite() => {
                write!(f, "{}(λ={clip})", self.name())
            }
            _ => f.write_str(self.name()),
        }
    }
}

fn check_clip(clip: f64) -> Result<(), OpeError> {
    // obp refuses NaN as well.
    if clip.is_nan() || clip < 0.0 {
        return Err(OpeError::Setting {
            field: "clip",
            value: clip.to_string(),
            reason: "the weight clip λ must be a non-negative number (infinity for none)",
        });
    }
    Ok(())
}

/// The doubly robust rounds: the direct term plus `correction(w, r - q̂)`,
/// the weighted residual of the logged action.
fn doubly_robust(
    m: &ModelTerms,
    reward: &[f64],
    weight: &[f64],
    correction: impl Fn(f64, f64) -> f64,
    mut emit: impl FnMut(usize, f64),
) {
    let terms = m
        .direct
        .iter()
        .zip(&m.factual)
        .zip(reward.iter().zip(weight));
    for (i, ((d, q), (r, w))) in terms.enumerate() {
        emit(i, d + correction(*w, r - q));
    }
}

fn reward_model<'i>(input: &'i OpeInput<'_>, est: &Estimator) -> Result<&'i ModelTerms, OpeError> {
    input.model.as_ref().ok_or(OpeError::Setting {
        field: "estimated_rewards",
        value: "none".into(),
        reason: match est {
            Estimator::Dm => "dm needs the reward model's q̂",
            Estimator::SnDr => "sndr needs the reward model's q̂",
            _ => "dr needs the reward model's q̂",
        },
    })
}

/// Mean importance weight, the self-normalisers' denominator.
fn mean_weight(weight: &[f64]) -> Result<f64, OpeError> {
    let sum: f64 = weight.iter().sum();
    if sum == 0.0 {
        return Err(OpeError::ZeroWeights {
            field: "action_dist",
        });
    }
    Ok(sum / weight.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::super::data::{ActionTable, LoggedBandit};
    use super::*;

    /// Two rounds, two actions; values worked by hand.
    fn case() -> (LoggedBandit, ActionTable, ActionTable) {
        let log = LoggedBandit {
            action: vec![0, 1],
            position: vec![0, 0],
            reward: vec![1.0, 0.0],
            pscore: vec![0.25, 0.5],
        };
        let pi = ActionTable::new("action_dist", 2, 2, 1, vec![0.75, 0.25, 0.5, 0.5]).unwrap();
        let q = ActionTable::new("estimated_rewards", 2, 2, 1, vec![0.5, 0.25, 1.0, 0.5]).unwrap();
        (log, pi, q)
    }

    #[test]
    fn hand_computed_values() {
        let (log, pi, q) = case();
        let input = OpeInput::new(&log, &pi, Some(&q)).unwrap();
        // w = [3, 1]; r = [1, 0].
        let ipw = Estimator::Ipw {
            clip: f64::INFINITY,
        };
        assert_eq!(ipw.estimate(&input).unwrap(), 1.5);
        assert_eq!(Estimator::Ipw { clip: 2.0 }.estimate(&input).unwrap(), 1.0);
        assert_eq!(Estimator::SnIpw.estimate(&input).unwrap(), 0.75);
        // DM: round 0: 0.5*0.75 + 0.25*0.25 = 0.4375; round 1: 0.75.
        assert_eq!(Estimator::Dm.estimate(&input).unwrap(), 0.59375);
        // DR: 0.4375 + 3*(1-0.5) = 1.9375; 0.75 + 1*(0-0.5) = 0.25.
        let dr = Estimator::Dr {
            clip: f64::INFINITY,
        };
        assert_eq!(dr.round_rewards(&input).unwrap(), vec![1.9375, 0.25]);
        // SNDR divides the correction by mean(w) = 2.
        assert_eq!(
            Estimator::SnDr.round_rewards(&input).unwrap(),
            vec![0.4375 + 0.75, 0.75 - 0.25]
        );
    }

    #[test]
    fn bad_settings_and_missing_inputs_are_errors() {
        let (log, pi, _) = case();
        let input = OpeInput::new(&log, &pi, None).unwrap();
        for clip in [-1.0, f64::NAN] {
            let err = Estimator::Ipw { clip }.estimate(&input).unwrap_err();
            assert!(
                matches!(err, OpeError::Setting { field: "clip", .. }),
                "{err}"
            );
        }
        let err = Estimator::Dm.estimate(&input).unwrap_err();
        assert!(err.to_string().contains("estimated_rewards"), "{err}");
        let never = ActionTable::new("action_dist", 2, 2, 1, vec![0.0, 1.0, 1.0, 0.0]).unwrap();
        let input = OpeInput::new(&log, &never, None).unwrap();
        assert_eq!(
            Estimator::SnIpw.estimate(&input).unwrap_err(),
            OpeError::ZeroWeights {
                field: "action_dist"
            }
        );
    }
}
