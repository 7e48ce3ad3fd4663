//! Suites by name. An exhaustive list, no link-time registration.

use crate::gem::GemBench;
use crate::suite::Suite;
use crate::synthetic::Synthetic;
use std::path::PathBuf;
use std::sync::Arc;

/// Names of every suite.
pub const SUITES: &[&str] = &["synthetic", "gem"];

/// What suites need from their host: where fetched datasets live, and
/// where derived data may be kept between runs.
#[derive(Debug, Clone, Default)]
pub struct SuiteContext {
    /// Directory holding unpacked dataset assets (e.g. the gembench wheel).
    pub data_dir: PathBuf,
    /// Directory for data derived from the assets (GEM-Bench's ad-index
    /// vectors per embedding model); `None` keeps it in memory only.
    pub cache_dir: Option<PathBuf>,
}

/// The suite called `name`.
pub fn suite(name: &str, ctx: &SuiteContext) -> Option<Arc<dyn Suite>> {
    match name {
        "synthetic" => Some(Arc::new(Synthetic)),
        // Loads lazily: missing data surfaces from items()/solution().
        "gem" => Some(Arc::new(GemBench::load(ctx))),
        _ => None,
    }
}
