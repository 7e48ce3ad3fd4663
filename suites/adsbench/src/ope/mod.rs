//! Off-policy evaluation (OPE): estimating a policy's value from rounds
//! logged by another policy, as Ads-Bench judges bandit baselines. The
//! estimators follow obp 0.5.7 exactly (checked against fixtures generated
//! with it); the Open Bandit Dataset sample is a pinned asset.

mod bootstrap;
mod data;
mod error;
mod estimator;
mod experiment;
mod gate;
pub mod obd;
mod pin;
mod rng;
mod synthetic;

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
pub use rng::SplitMix64;
pub use synthetic::{SyntheticBandit, SyntheticLog};
