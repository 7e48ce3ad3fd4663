//! Suites by name. An exhaustive list, no link-time registration.

use crate::suite::Suite;
use crate::synthetic::Synthetic;
use std::sync::Arc;

/// Names of every suite.
pub const SUITES: &[&str] = &["synthetic"];

/// The suite called `name`.
pub fn suite(name: &str) -> Option<Arc<dyn Suite>> {
    match name {
        "synthetic" => Some(Arc::new(Synthetic)),
        _ => None,
    }
}
