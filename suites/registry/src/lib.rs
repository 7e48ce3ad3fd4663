//! The suite registry: every benchmark by name, one line each, and the
//! suite traits re-exported so the farm depends on one crate for suites.
//!
//! Adding a suite is a crate under `suites/` plus one line in [`suite`]
//! (and its name in [`SUITES`]). Nothing else in the farm names a suite.
//!
//! Design decision: an exhaustive `match`, no link-time registration, so
//! the set of suites a binary serves is visible in one place.

pub use adfarm_suite::*;

use std::sync::Arc;

/// Names of every suite.
pub const SUITES: &[&str] = &["synthetic", "gem", "counter", "adsbench", "adbench"];

/// The suite called `name`, or `None` when no suite has that name.
pub fn suite(name: &str, ctx: &SuiteContext) -> Option<Arc<dyn Suite>> {
    match name {
        "synthetic" => Some(Arc::new(adfarm_synthetic::Synthetic)),
        // Loads lazily: missing data surfaces from items()/solution().
        "gem" => Some(Arc::new(adfarm_gem::GemBench::load(ctx))),
        "counter" => Some(Arc::new(adfarm_counter::CounterSuite)),
        "adsbench" => Some(Arc::new(adfarm_adsbench::AdsBench::new(ctx))),
        "adbench" => Some(Arc::new(adfarm_adbench::AdBench::new())),
        _ => None,
    }
}
