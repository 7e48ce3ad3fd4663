//! Leaderboards across sweeps: a release ranks the entries of many
//! finished sweeps, benchmark version by benchmark version, with honest
//! ranks and the change since the previous release, and is published as a
//! static site with `leaderboard.json`.
//!
//! - `config`: [`Config`], the `leaderboard.toml` a release is built from;
//! - `assemble`: [`assemble`], a release from sweeps: entries grouped by
//!   benchmark version, teams, costs, recipes, raw values; pure;
//! - `board`: one board's means, intervals, rank intervals, tiers and
//!   changes since the previous release;
//! - `site`: [`write_site`], the pages, the JSON and the raw results.
//!
//! Design decision: sweeps are grouped by the benchmark version each
//! recorded when it was planned, never by name: two versions of a suite
//! get two boards, and nothing is ranked across them. A suite takes part
//! through `Suite::benchmark` and `Suite::headlines`; nothing here names
//! one.

mod assemble;
mod board;
mod config;
mod site;
#[cfg(test)]
mod tests;

pub use assemble::{assemble, slug, Built, RawBoard, RawValue, Split, Sweep, METHOD};
pub use config::{Config, ConfigError, ReleaseConfig, SweepSource};
pub use site::write as write_site;

use adfarm_suites::DataError;

/// Why a release cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum LeaderboardError {
    /// A sweep was planned by a binary that recorded no benchmark versions.
    #[error(
        "sweep {sweep} ({id}) recorded no benchmark version when it was planned; run it again \
         with this binary to record one (finished jobs are not run again)"
    )]
    Unversioned {
        /// Sweep name.
        sweep: String,
        /// Sweep id.
        id: String,
    },
    /// A suite this binary does not serve.
    #[error("suite {0:?} is not served by this binary")]
    UnknownSuite(String),
    /// A suite could not give its headlines or version.
    #[error("suite {suite}: {source}")]
    Suite {
        /// Suite.
        suite: String,
        /// What it reported.
        source: DataError,
    },
    /// One name twice on a board.
    #[error(
        "entry {name:?} is on the same board from sweeps {first:?} and {second:?}; give one \
         another name with `names` in its [[sweeps]] entry"
    )]
    DuplicateEntry {
        /// Entry name.
        name: String,
        /// First sweep.
        first: String,
        /// Second sweep.
        second: String,
    },
    /// One entry name under two teams.
    #[error("entry {name:?} is entered by two teams, {:?} and {:?}", teams[0], teams[1])]
    TwoTeams {
        /// Entry name.
        name: String,
        /// The teams.
        teams: [String; 2],
    },
    /// A team over `max_entries_per_team`.
    #[error(
        "release.max_entries_per_team: team {team:?} has {} entries ({}); at most {cap} are allowed",
        entries.len(),
        entries.join(", ")
    )]
    TeamCap {
        /// Team.
        team: String,
        /// Its entries.
        entries: Vec<String>,
        /// The cap.
        cap: usize,
    },
    /// No sweep had anything of the split.
    #[error(
        "no sweep of the config has a {0} benchmark to rank (a holdout sweep enters only a \
         release built with --split holdout, a public one only without it)"
    )]
    Empty(&'static str),
}

impl LeaderboardError {
    /// Bounded error code.
    pub fn code(&self) -> &'static str {
        match self {
            LeaderboardError::Unversioned { .. } => "leaderboard-unversioned",
            LeaderboardError::UnknownSuite(_) => "leaderboard-unknown-suite",
            LeaderboardError::Suite { .. } => "leaderboard-suite",
            LeaderboardError::DuplicateEntry { .. } => "leaderboard-duplicate-entry",
            LeaderboardError::TwoTeams { .. } => "leaderboard-two-teams",
            LeaderboardError::TeamCap { .. } => "leaderboard-team-cap",
            LeaderboardError::Empty(_) => "leaderboard-empty",
        }
    }
}
