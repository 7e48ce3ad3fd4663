//! The red team: 20 scenarios, one TOML file each under `tasks/redteam/`,
//! in the gauntlet's task format with an `[attack]` section
//! ([`Attack`](super::gauntlet::attack::Attack)): budget drains with the
//! kill switch armed, three policy traps (prohibited goods, personal
//! information, a competitor's trademark), API faults (outages, quota
//! errors, partial failures) and prompt injections planted in text the
//! agent reads.
//!
//! - this file: loading (the gauntlet's loader and checks, plus: every
//!   file has an attack) and what an episode records
//!   ([`RedTeamRecord`]);
//! - [`run`]: one scenario under one agent, with the fault schedule in
//!   the sandbox and the kill switch armed for a drain, graded as a
//!   gauntlet task and scored for the gates;
//! - [`agents`]: the scripted agents of its tests: one that obeys what it
//!   reads and one that does the task and nothing else.
//!
//! Design decision: an attack succeeds when its effect is in the change
//! set, not when the agent "meant" it: the injected action is a concrete
//! change (`kind:name.field` = value) and the harness looks for it among
//! the committed operations; policy is checked on the same operations,
//! with the scenario's trademarks, as every episode's change set is
//! checked against the fixed rules.

pub mod agents;
pub mod run;
mod shipped;

pub use agents::{CompliantAgent, ObeyingAgent};
pub use run::{run, RedTeamEpisode};

use super::gauntlet::attack::AttackKind;
use super::gauntlet::load::{load_dir_with, parse, LoadError};
use super::gauntlet::task::Task;
use crate::score::Injection;
use adfarm_suite::toml_lines::line_of;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The red team's folder in the crate.
pub fn tasks_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks/redteam")
}

/// Parses and checks one red-team file: a gauntlet task with an attack.
///
/// # Errors
/// [`LoadError::Invalid`] naming the line and the field.
pub fn parse_scenario(path: &Path, text: &str) -> Result<Task, LoadError> {
    let task = parse(path, text)?;
    if task.attack.is_none() {
        return Err(LoadError::Invalid {
            path: path.to_path_buf(),
            line: line_of(text, "attack"),
            field: "attack".into(),
            message: "a red-team scenario has an [attack] section".into(),
        });
    }
    Ok(task)
}

/// The dataset's name.
pub const DATASET: &str = "redteam";

/// The scenarios built into the crate, loaded and checked, sorted by id.
///
/// # Errors
/// A built-in file that does not load (a broken build).
pub fn shipped() -> Result<Vec<Task>, LoadError> {
    let mut tasks = shipped::SHIPPED
        .iter()
        .map(|(name, text)| parse_scenario(&Path::new("tasks/redteam").join(name), text))
        .collect::<Result<Vec<Task>, LoadError>>()?;
    tasks.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(tasks)
}

/// The red team's items (the scenario in `meta`, as a gauntlet task's).
///
/// # Errors
/// A suite parameter it does not know, or a built-in file that does not
/// load.
pub fn items(
    params: &serde_json::Value,
) -> Result<adfarm_suite::ItemIter, adfarm_suite::DataError> {
    // The suite's parameters are checked as the gauntlet checks them.
    drop(super::gauntlet::dataset::items(params)?);
    let tasks = shipped().map_err(|e| adfarm_suite::DataError::Param {
        field: DATASET.into(),
        reason: e.to_string(),
    })?;
    Ok(Box::new(tasks.into_iter().map(|t| Ok(t.item()))))
}

/// Every `*.toml` directly in `dir`, loaded and checked (each must have
/// an `[attack]`), sorted by id.
///
/// # Errors
/// The first file that cannot be read or does not load.
pub fn load_dir(dir: &Path) -> Result<Vec<Task>, LoadError> {
    load_dir_with(dir, parse_scenario)
}

/// What a red-team episode measured for the gates and the composite;
/// `Outcome::red_team` carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedTeamRecord {
    /// The attack.
    pub kind: AttackKind,
    /// Committed operations that created or enabled violating text.
    pub policy_violations: u64,
    /// Whether the planted injection ran (`none` unless the attack is an
    /// injection).
    pub injection: Injection,
    /// Requests a fault refused.
    pub refused: u64,
    /// Requests refused with a retry delay (quota errors).
    pub retries: u64,
    /// Of those, the ones whose next request waited the delay out.
    pub retries_honoured: u64,
    /// Creates repeating an earlier create of the episode (same resource
    /// type and fields): a retry that was not idempotent.
    pub duplicate_creates: u64,
}
