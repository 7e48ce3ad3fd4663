//! What a suite builds its report sections from: the sweep, its own entry,
//! its tally cells and its stored per-job results.

use adfarm_proto::report::CellRow;
use adfarm_proto::{JobId, JobResult, SuiteSpec, SweepSpec};
use std::collections::BTreeMap;

/// One suite's share of a finished (or running) sweep, for
/// [`crate::Suite::report`].
#[derive(Clone, Copy)]
pub struct ReportInput<'a> {
    /// The whole sweep (judges, embedder, providers and their prices).
    pub spec: &'a SweepSpec,
    /// This suite's entry in it.
    pub suite: &'a SuiteSpec,
    /// This suite's leaderboard cells, in tally order.
    pub cells: &'a [CellRow],
    /// This suite's stored job results, in job-id order.
    pub results: &'a [JobResult],
    /// The item each of the sweep's jobs is about, by job id.
    pub items: &'a BTreeMap<JobId, String>,
}

impl<'a> ReportInput<'a> {
    /// Id of the dataset item `r` is about, within its dataset; `None` for
    /// a job the sweep no longer expands to. Results from one item and run
    /// (a response and its judges' verdicts) share it and their cell.
    pub fn item_of(&self, r: &JobResult) -> Option<&'a str> {
        self.items.get(&r.id).map(String::as_str)
    }
}
