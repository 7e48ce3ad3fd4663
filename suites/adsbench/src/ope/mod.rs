//! Off-policy evaluation (OPE): estimating a policy's value from rounds
//! logged by another policy, as Ads-Bench judges bandit baselines. The
//! estimators follow obp 0.5.7 exactly (checked against fixtures generated
//! with it); the Open Bandit Dataset sample is a pinned asset.
//!
//! Contexts enter, as in obp's estimators, only through the evaluated
//! policy's `action_dist` and the reward model's q̂, both per round.
//!
//! ```
//! use adfarm_adsbench::ope::{
//!     dr_beats_baseline, interval, ActionTable, Estimator, LoggedBandit, OpeInput, Resamples,
//! };
//! // Three rounds, two actions, one slot.
//! let log = LoggedBandit {
//!     action: vec![0, 1, 0],
//!     position: vec![0, 0, 0],
//!     reward: vec![1.0, 0.0, 1.0],
//!     pscore: vec![0.5, 0.5, 0.5],
//! };
//! let pi = ActionTable::tiled("action_dist", 3, 2, 1, &[0.9, 0.1])?;
//! let q = ActionTable::new("estimated_rewards", 3, 2, 1, vec![0.8, 0.2, 0.7, 0.1, 0.9, 0.3])?;
//! let input = OpeInput::new(&log, &pi, Some(&q))?;
//! let dr = Estimator::Dr { clip: f64::INFINITY };
//! let value = dr.estimate(&input)?;
//! let ci = interval(&dr.round_rewards(&input)?, &Resamples::seeded(7), 0.05)?;
//! assert!(ci.lower <= value && value <= ci.upper);
//! let verdict = dr_beats_baseline(&ci, log.mean_reward())?;
//! assert_eq!(verdict.passed, ci.lower > log.mean_reward());
//! # Ok::<(), adfarm_adsbench::ope::OpeError>(())
//! ```

mod bootstrap;
pub mod classic;
mod data;
mod error;
mod estimator;
mod experiment;
mod gate;
pub mod obd;
mod pin;
mod synthetic;

pub use adfarm_suite::stats::SplitMix64;
pub use bootstrap::{
    interval, percentile, resample_means, summarise, Interval, Resamples, DEFAULT_ALPHA,
    DEFAULT_RESAMPLES,
};
pub use data::{ActionTable, LoggedBandit, OpeInput};
pub use error::OpeError;
pub use estimator::Estimator;
pub use experiment::{relative_errors, table, ErrorRow};
pub use gate::{dr_beats_baseline, GateVerdict};
pub use pin::{BTS_ALL, OBP, RANDOM_ALL};
pub use synthetic::{SyntheticBandit, SyntheticLog};
