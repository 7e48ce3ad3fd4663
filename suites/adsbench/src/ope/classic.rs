//! The classic experiment on the Open Bandit Dataset sample (campaign
//! `all`): estimate Bernoulli TS's value from the random policy's logs with
//! every estimator, and score each estimate by its relative error against
//! the on-policy value of the TS logs, with bootstrap intervals.
//!
//! Design decision: obp's side of the experiment, the evaluated policy's
//! action distribution (its Monte Carlo over TS's posterior) and its
//! cross-fitted logistic reward model, is read from what
//! `tools/obp-fixtures` dumped, embedded here, not recomputed: redrawing
//! either would move the estimates, and the point is to match obp on the
//! same rows. The logs themselves come from the pinned asset.

use super::bootstrap::{Resamples, DEFAULT_ALPHA};
use super::data::{ActionTable, OpeInput};
use super::error::OpeError;
use super::estimator::Estimator;
use super::experiment::{relative_errors, ErrorRow};
use super::gate::{dr_beats_baseline, GateVerdict};
use super::obd::{self, LoggingPolicy, ObdError};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// obp 0.5.7's dump for the experiment, as `tools/obp-fixtures` wrote it.
const OBP_DUMP: &str = include_str!("../../tests/fixtures/obp/obd_random_all_bts.json");

/// The seed of the experiment's bootstrap resamples.
pub const SEED: u64 = 12345;

/// obp's side of the experiment on the random policy's rounds.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ObpReference {
    /// Rounds of the random policy's log.
    pub n_rounds: usize,
    /// Items (actions).
    pub n_actions: usize,
    /// Positions.
    pub len_list: usize,
    /// TS's action distribution, one (action, position) table shared by
    /// every round, action-major.
    pub bts_action_dist: Vec<f64>,
    /// Each round's cross-fitting fold.
    pub fold_of_row: Vec<usize>,
    /// Each round's context (distinct user features) index.
    pub context_of_row: Vec<usize>,
    /// The reward model's logit per context and position.
    pub context_logit: Vec<f64>,
    /// The reward model's logit per fold, position and action.
    pub action_logit: Vec<f64>,
    /// obp's estimate per estimator name.
    pub estimates: BTreeMap<String, f64>,
    /// obp's on-policy value of the TS logs.
    pub on_policy_value: f64,
}

impl ObpReference {
    /// The dump this crate was built with.
    pub fn embedded() -> ObpReference {
        serde_json::from_str(OBP_DUMP).expect("the embedded obp dump parses (a unit test reads it)")
    }

    /// TS's action distribution for every round.
    ///
    /// # Errors
    /// A table whose size is not `n_actions × len_list`.
    pub fn action_dist(&self) -> Result<ActionTable, OpeError> {
        ActionTable::tiled(
            "action_dist",
            self.n_rounds,
            self.n_actions,
            self.len_list,
            &self.bts_action_dist,
        )
    }

    /// obp's q̂: `σ(context_logit[context][p] + action_logit[fold][p][a])`.
    ///
    /// # Errors
    /// A fold or context index past its table, or factors of the wrong size.
    pub fn reward_model(&self) -> Result<ActionTable, OpeError> {
        let (n, k, l) = (self.n_rounds, self.n_actions, self.len_list);
        for (field, rows) in [
            ("fold_of_row", &self.fold_of_row),
            ("context_of_row", &self.context_of_row),
        ] {
            if rows.len() != n {
                return Err(OpeError::Length {
                    field,
                    expected: n,
                    actual: rows.len(),
                });
            }
        }
        let logit = |table: &'static str, v: &[f64], i: usize| {
            v.get(i)
                .copied()
                .ok_or_else(|| OpeError::value(table, i, "-", "index past the table"))
        };
        let mut q = Vec::with_capacity(n * k * l);
        for i in 0..n {
            let (ctx, fold) = (self.context_of_row[i], self.fold_of_row[i]);
            for a in 0..k {
                for p in 0..l {
                    let z = logit("context_logit", &self.context_logit, ctx * l + p)?
                        + logit("action_logit", &self.action_logit, (fold * l + p) * k + a)?;
                    q.push(1.0 / (1.0 + (-z).exp()));
                }
            }
        }
        ActionTable::new("estimated_rewards", n, k, l, q)
    }
}

/// What the experiment found.
#[derive(Debug, Clone, PartialEq)]
pub struct Classic {
    /// Rounds of the random policy's log.
    pub rounds: usize,
    /// Bootstrap resamples behind every interval.
    pub resamples: usize,
    /// The on-policy value of the TS logs (the truth estimated).
    pub on_policy: f64,
    /// One row per estimator, in [`Estimator::ALL`] order.
    pub rows: Vec<ErrorRow>,
    /// DR's lower bound against the random policy's value.
    pub gate: GateVerdict,
    /// The largest relative gap between our estimates and obp's.
    pub largest_gap_to_obp: f64,
}

/// Why the experiment could not run.
#[derive(Debug, thiserror::Error)]
pub enum ClassicError {
    /// The logs could not be read.
    #[error(transparent)]
    Data(#[from] ObdError),
    /// The logs and obp's dump disagree, or an estimate failed.
    #[error("the Open Bandit Dataset experiment: {0}")]
    Estimate(#[from] OpeError),
}

/// Runs the experiment on the logs under `assets` (see [`obd::asset_dir`])
/// with `resamples` seeded resamples and 95% intervals.
///
/// # Errors
/// [`ClassicError::Data`] when a log is missing or not the pinned one,
/// [`ClassicError::Estimate`] when it does not fit obp's dump.
pub fn run(assets: &Path, resamples: usize) -> Result<Classic, ClassicError> {
    let random = obd::load(assets, LoggingPolicy::Random)?;
    let bts = obd::load(assets, LoggingPolicy::Bts)?;
    let obp = ObpReference::embedded();
    let pi = obp.action_dist()?;
    let q = obp.reward_model()?;
    let input = OpeInput::new(&random.log, &pi, Some(&q))?;
    let on_policy = bts.log.mean_reward();
    let mut largest_gap_to_obp = 0.0f64;
    for e in Estimator::ALL {
        let ours = e.estimate(&input)?;
        let theirs = obp.estimates.get(e.name()).copied().unwrap_or(f64::NAN);
        largest_gap_to_obp = largest_gap_to_obp.max((ours - theirs).abs() / theirs.abs());
    }
    let rows = relative_errors(
        &input,
        &Estimator::ALL,
        on_policy,
        &Resamples::Seeded {
            count: resamples,
            seed: SEED,
        },
        DEFAULT_ALPHA,
    )?;
    let dr = rows
        .iter()
        .find(|r| matches!(r.estimator, Estimator::Dr { .. }))
        .expect("Estimator::ALL holds DR");
    let gate = dr_beats_baseline(&dr.interval, random.log.mean_reward())?;
    Ok(Classic {
        rounds: random.log.n_rounds(),
        resamples,
        on_policy,
        rows,
        gate,
        largest_gap_to_obp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_dump_fits_the_sample() {
        let obp = ObpReference::embedded();
        assert_eq!((obp.n_rounds, obp.n_actions, obp.len_list), (10_000, 80, 3));
        assert_eq!(obp.action_dist().unwrap().shape(), (10_000, 80, 3));
        let q = obp.reward_model().unwrap();
        assert!((0..80).all(|a| (0.0..1.0).contains(&q.get(0, a, 2))));
        for e in Estimator::ALL {
            assert!(obp.estimates.contains_key(e.name()), "{e}");
        }
        let mut short = obp.clone();
        short.fold_of_row.pop();
        assert!(matches!(
            short.reward_model(),
            Err(OpeError::Length {
                field: "fold_of_row",
                ..
            })
        ));
    }

    #[test]
    fn missing_logs_say_how_to_fetch_them() {
        let err = run(Path::new("/nonexistent-adfarm-home/assets"), 10).unwrap_err();
        assert!(matches!(err, ClassicError::Data(ObdError::Missing { .. })));
        assert!(err.to_string().contains("pip download"), "{err}");
    }
}
