//! The leaderboard config (`leaderboard.toml`): the release, the sweeps it
//! draws on, who entered each entry, and the governance caps.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A leaderboard config, as read from its file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The release.
    pub release: ReleaseConfig,
    /// The finished sweeps it ranks.
    pub sweeps: Vec<SweepSource>,
}

/// `[release]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseConfig {
    /// Release name.
    pub name: String,
    /// Release version (e.g. `2026-Q4`).
    pub version: String,
    /// Publication date, `YYYY-MM-DD`.
    pub date: String,
    /// The previous release's `leaderboard.json`, relative to the config.
    #[serde(default)]
    pub previous: Option<PathBuf>,
    /// Most entries a team may have on the release.
    #[serde(default)]
    pub max_entries_per_team: Option<usize>,
    /// Bootstrap resamples.
    #[serde(default = "default_resamples")]
    pub resamples: u32,
    /// Bootstrap seed.
    #[serde(default)]
    pub seed: u64,
}

fn default_resamples() -> u32 {
    1000
}

/// `[[sweeps]]`: one finished sweep and who entered its solutions.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSource {
    /// A sweep file (relative to the config), a sweep id or a sweep name.
    pub sweep: String,
    /// Team of its entries.
    pub team: String,
    /// Per solution label: a team other than `team`.
    #[serde(default)]
    pub teams: BTreeMap<String, String>,
    /// Per solution label: its name on the leaderboard (default: the
    /// label).
    #[serde(default)]
    pub names: BTreeMap<String, String>,
}

impl SweepSource {
    /// The entry name of solution `label`.
    pub fn entry_name(&self, label: &str) -> String {
        self.names
            .get(label)
            .cloned()
            .unwrap_or_else(|| label.into())
    }

    /// The team of solution `label`.
    pub fn team_of(&self, label: &str) -> String {
        self.teams.get(label).unwrap_or(&self.team).clone()
    }
}

/// Why a config cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Read {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// Not a valid config (the TOML parser names line, column and field).
    #[error("{path}: {message}")]
    Invalid {
        /// File.
        path: String,
        /// What is wrong, with its place.
        message: String,
    },
}

impl Config {
    /// Reads and checks `path`.
    ///
    /// # Errors
    /// An unreadable file, invalid TOML, an unknown or missing field, a
    /// malformed date, or no sweeps.
    pub fn read(path: &Path) -> Result<Config, ConfigError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: name.clone(),
            source,
        })?;
        Config::parse(&text).map_err(|message| ConfigError::Invalid {
            path: name,
            message,
        })
    }

    /// Parses and checks a config's text.
    ///
    /// # Errors
    /// As [`Config::read`], the message naming the field.
    pub fn parse(text: &str) -> Result<Config, String> {
        let c: Config = toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())?;
        let d = c.release.date.as_bytes();
        let date_ok = d.len() == 10
            && d[4] == b'-'
            && d[7] == b'-'
            && d.iter()
                .enumerate()
                .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
        if !date_ok {
            return Err(format!(
                "release.date: must be YYYY-MM-DD, got {:?}",
                c.release.date
            ));
        }
        if c.sweeps.is_empty() {
            return Err("sweeps: list at least one [[sweeps]] entry".into());
        }
        if c.release.resamples < 100 {
            return Err(format!(
                "release.resamples: at least 100 are needed for a 95% interval, got {}",
                c.release.resamples
            ));
        }
        if c.release.max_entries_per_team == Some(0) {
            return Err("release.max_entries_per_team: must be at least 1".into());
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[release]
name = "Ads agents"
version = "2026-Q4"
date = "2026-11-30"
max_entries_per_team = 2

[[sweeps]]
sweep = "sweeps/a.toml"
team = "acme"
teams = { oracle = "baselines" }
names = { oracle = "Oracle" }
"#;

    #[test]
    fn a_config_reads_with_its_defaults_and_overrides() {
        let c = Config::parse(GOOD).expect("valid");
        assert_eq!(c.release.resamples, 1000);
        assert_eq!(c.release.max_entries_per_team, Some(2));
        let s = &c.sweeps[0];
        assert_eq!(
            (s.team_of("oracle"), s.team_of("react")),
            ("baselines".into(), "acme".into())
        );
        assert_eq!(s.entry_name("oracle"), "Oracle");
        assert_eq!(s.entry_name("react"), "react");
    }

    #[test]
    fn bad_configs_name_the_field_and_line() {
        let unknown = GOOD.replace("max_entries_per_team", "max_entries");
        let e = Config::parse(&unknown).expect_err("unknown field");
        assert!(e.contains("max_entries") && e.contains("line 6"), "{e}");
        let date = GOOD.replace("2026-11-30", "30/11/2026");
        let e = Config::parse(&date).expect_err("bad date");
        assert!(e.starts_with("release.date"), "{e}");
        let no_team = GOOD.replace("team = \"acme\"\n", "");
        let e = Config::parse(&no_team).expect_err("team missing");
        assert!(e.contains("team"), "{e}");
    }
}
