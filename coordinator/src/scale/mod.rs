//! Kubernetes scaling: how many workers each pool should run and making it so.
//!
//! - [`decide`]: the pure formula (backlog, rate limits, current size);
//! - [`pool`]: worker pools and their replica bounds;
//! - [`deployment`]: reading and setting a Deployment's replicas;
//! - [`control`]: the loop that observes lanes and applies decisions.

pub mod control;
pub mod decide;
pub mod deployment;
pub mod pool;

pub use control::{run_autoscaler, scale_to_min, AutoscaleSettings, Outstanding};
pub use decide::{
    decide, demand, limits_for, rate_cap, Decision, Observation, Policy, RateLimit, Reason,
};
pub use deployment::{KubeScaler, ScaleError, WorkerScaler};
pub use pool::{Pool, PoolParseError};
