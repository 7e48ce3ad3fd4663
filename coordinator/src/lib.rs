//! The coordinator: reads sweep files, plans sweeps into jobs, publishes
//! them, follows progress until every job is settled, and writes reports.
//!
//! - [`sweep_file`]: TOML → validated `SweepSpec`, errors with file:line:field.
//! - [`plan`]: lazy expansion into generate jobs, job counts, cost estimate.
//! - [`coordinate`]: register, publish what is not settled, follow to the end.
//! - [`report`]: the sweep report, with the sections its suites add, as
//!   JSON, CSV, Markdown or a self-contained HTML page.
//! - [`leaderboard`]: releases ranking many sweeps' entries per benchmark
//!   version, written as a static site with `leaderboard.json`.
//! - [`review`]: the review court: blind human review in the browser,
//!   reliability, and the sweep's judges calibrated against people.
//! - [`api`]: HTTP API to submit sweeps and follow them (`--serve`).
//! - [`scale`]: workers per pool as a pure function of backlog, rate limits
//!   and current replicas, and the Kubernetes loop that applies it.
//!
//! Design decision: the coordinator keeps no state of its own. Everything
//! it knows is re-derived from the sweep file and the store, so it can be
//! restarted at any moment and carry on.

pub mod api;
pub mod coordinate;
#[cfg(test)]
mod demo_sweep;
pub mod leaderboard;
pub mod plan;
pub mod report;
pub mod review;
pub mod scale;
pub mod sweep_file;

pub use coordinate::{Coordinator, Progress};
pub use plan::{CostEstimate, Plan};
