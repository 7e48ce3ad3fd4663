//! The suite registry: every benchmark by name, one line each, and the
//! suite traits re-exported so the farm depends on one crate for suites.
//!
//! Adding a suite takes:
//!
//! 1. a crate under `suites/` implementing [`Suite`] (the workspace's
//!    `suites/*` glob makes it a member; a crate nested deeper, such as
//!    `suites/adbench/calculator`, gets its own entry in the root
//!    `Cargo.toml`);
//! 2. one dependency line in `suites/registry/Cargo.toml`;
//! 3. one line in the table at the bottom of this file: its name and how
//!    to build it from the [`SuiteContext`].
//!
//! By convention it also gets a sweep file under `sweeps/` and an end-to-end
//! module under `tests/e2e/`. Nothing else in the farm names a suite.
//!
//! Design decision: the table expands into [`SUITES`] and an exhaustive
//! `match` in [`suite`], no link-time registration, so the set of suites a
//! binary serves is visible in one place and a name cannot be listed
//! without a constructor. Suites are built when asked for, never up front.

pub use adfarm_suite::*;

use std::sync::Arc;

/// Writes [`SUITES`] and [`suite`] from one table of
/// `"name" => |ctx| constructor,` lines.
macro_rules! registry {
    ($($name:literal => |$ctx:pat_param| $make:expr,)+) => {
        /// Names of every suite.
        pub const SUITES: &[&str] = &[$($name),+];

        /// The suite called `name`, or `None` when no suite has that name.
        pub fn suite(name: &str, ctx: &SuiteContext) -> Option<Arc<dyn Suite>> {
            match name {
                $($name => {
                    let $ctx = ctx;
                    Some(Arc::new($make))
                })+
                _ => None,
            }
        }
    };
}

registry! {
    "synthetic" => |_| adfarm_synthetic::Synthetic,
    // Loads lazily: missing data surfaces from items()/solution().
    "gem" => |ctx| adfarm_gem::GemBench::load(ctx),
    "counter" => |_| adfarm_counter::CounterSuite,
    "adsbench" => |ctx| adfarm_adsbench::AdsBench::new(ctx),
    "adbench" => |_| adfarm_adbench::AdBench::new(),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_builds_the_suite_of_that_name() {
        let ctx = SuiteContext::default();
        for name in SUITES {
            let suite = suite(name, &ctx).expect("a listed suite builds");
            assert_eq!(suite.name(), *name);
        }
    }

    #[test]
    fn an_unlisted_name_is_no_suite() {
        assert!(suite("no-such-suite", &SuiteContext::default()).is_none());
    }
}
