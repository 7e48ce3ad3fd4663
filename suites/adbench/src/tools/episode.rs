//! Per-episode state: the results so far (addressable as `r1`, `r2`... for
//! the calculator), the account ids the agent has obtained, the dependency
//! flags raised, and whether the episode has ended. It is a plain value, so
//! an episode is a pure function of its calls and can be replayed or stored.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Episode options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Config {
    /// Dependency violations are errors instead of answered-and-flagged.
    pub strict_dependencies: bool,
}

/// One stored tool result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredResult {
    /// `r1`, `r2`, ...
    pub id: String,
    /// Tool that produced it.
    pub tool: String,
    /// The result as JSON (what the agent saw, before any cut).
    pub value: Value,
}

/// Which dependency a call violated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FlagKind {
    /// An account id used before `get_user_account_list` returned it.
    UnlistedAccount,
    /// The calculator ran before any data was fetched.
    NoDataFetched,
}

/// A dependency violation that was answered anyway.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flag {
    /// 1-based index of the call in the episode.
    pub call: u32,
    /// Tool called.
    pub tool: String,
    /// Argument concerned.
    pub argument: String,
    /// Kind of violation.
    pub kind: FlagKind,
    /// Human-readable detail.
    pub detail: String,
}

/// One call of the episode as the trajectory records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// Tool called.
    pub tool: String,
    /// Arguments as sent.
    pub args: Value,
    /// Stored result id when the call succeeded with data.
    pub result_id: Option<String>,
    /// Error code when the call was rejected.
    pub error_code: Option<String>,
}

/// How the agent ended the episode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// The agent says it answered the request.
    Resolved,
    /// The agent gave up.
    Unresolved,
}

/// Everything an episode has accumulated.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EpisodeState {
    /// Tool calls made, including rejected ones.
    pub calls: u32,
    /// Every call in order, for trajectory scoring.
    pub trajectory: Vec<CallRecord>,
    /// Successful results in order.
    pub results: Vec<StoredResult>,
    /// Account ids returned by `get_user_account_list`.
    pub listed_accounts: BTreeSet<u64>,
    /// Dependency violations answered anyway.
    pub flags: Vec<Flag>,
    /// Set by `summarize_results`.
    pub outcome: Option<Outcome>,
}

impl EpisodeState {
    /// The result with id `id` (`r3`).
    pub fn result(&self, id: &str) -> Option<&StoredResult> {
        self.results.iter().find(|r| r.id == id)
    }

    /// Every stored result by id (`r1` → value): the bindings a calculator
    /// program sees.
    pub fn bindings(&self) -> std::collections::BTreeMap<&str, &Value> {
        self.results
            .iter()
            .map(|r| (r.id.as_str(), &r.value))
            .collect()
    }

    /// True once any tool has returned data the calculator could use.
    pub fn has_data(&self) -> bool {
        !self.results.is_empty()
    }

    /// True once the episode has ended.
    pub fn ended(&self) -> bool {
        self.outcome.is_some()
    }

    /// Stores a result and returns its id.
    pub fn store(&mut self, tool: &str, value: Value) -> String {
        let id = format!("r{}", self.results.len() + 1);
        self.results.push(StoredResult {
            id: id.clone(),
            tool: tool.to_string(),
            value,
        });
        id
    }
}
