//! What a suite puts on a leaderboard: the parts of its benchmark version
//! it owns, and its headline metrics as per-item values, which the farm
//! turns into means, intervals, ranks and changes across releases.

use std::collections::BTreeMap;

/// The parts of a sweep's benchmark version a suite declares when the
/// sweep is planned; the farm adds the digest of the planned items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Benchmark {
    /// Semantic version of the benchmark's tasks, metrics and rules.
    pub version: &'static str,
    /// Version of its scorer (graders, metric definitions): bumped when a
    /// scorer fix would change a stored score.
    pub scorer: &'static str,
    /// Judge prompt version and judge models, when judges score a
    /// headline metric of this sweep.
    pub judges: Option<String>,
    /// Whether the sweep draws a hidden split: such results enter only a
    /// leaderboard of hidden splits, and never with their item ids.
    pub hidden: bool,
}

/// A sweep's headline metrics, and the prompt and protocol versions each
/// entry's results record (for the leaderboard's reproduction recipe).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Headlines {
    /// The metrics; the first ranks the leaderboard.
    pub metrics: Vec<Headline>,
    /// Per solution label, the protocol versions its results record
    /// (agent prompt protocol, judge prompt), sorted.
    pub protocols: BTreeMap<String, Vec<String>>,
}

/// One headline metric of a sweep: its values per entry, item and seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Headline {
    /// Stable id (`pass@1`, `coverage-L2`).
    pub metric: String,
    /// Column heading.
    pub title: String,
    /// What it measures, in a sentence (and how it relates to the paper's
    /// figure of that name).
    pub description: String,
    /// The values; higher is better.
    pub values: Vec<HeadlineValue>,
}

/// One value of a headline metric.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadlineValue {
    /// Solution label (the entry).
    pub solution: String,
    /// Item id within the sweep (unique across its datasets).
    pub item: String,
    /// Seed of the run, or `None` for a value over every seed (Pass@k).
    pub seed: Option<u64>,
    /// The value.
    pub value: f64,
}
