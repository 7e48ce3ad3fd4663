//! What a suite builds its report sections from: the sweep, its own entry,
//! its tally cells and its stored per-job results.

use adfarm_proto::report::CellRow;
use adfarm_proto::{JobResult, SuiteSpec, SweepSpec};

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
}

impl ReportInput<'_> {
    /// Id of the dataset item `r` is about, within its dataset; `None` for
    /// a result stored without one. Results from one item and run (a
    /// response and its judges' verdicts) share it and their cell.
    pub fn item_of<'r>(&self, r: &'r JobResult) -> Option<&'r str> {
        (!r.item.is_empty()).then_some(r.item.as_str())
    }

    /// Where `solution` stands in the sweep file's solutions, so tables
    /// list agents in the order the user wrote them; past the end for a
    /// name the sweep does not list.
    pub fn solution_order(&self, solution: &str) -> usize {
        self.spec
            .solutions
            .iter()
            .position(|s| s.name == solution)
            .unwrap_or(usize::MAX)
    }
}
