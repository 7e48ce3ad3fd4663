//! Leaderboards across sweeps: the benchmark version a sweep records when
//! it is planned, and a release (`leaderboard.json`) ranking the entries
//! of many sweeps. The JSON Schema of a release is generated from these
//! types ([`release_schema`]) and published beside every release.
//!
//! Design decision: a release carries every number its pages show, per-item
//! values included, so the next quarter's release can compare on the items
//! both share from this file alone. Items of a hidden split appear only as
//! opaque keys ([`hidden_item_key`]): they pair across releases of the same
//! task set and reveal neither an item's text nor its id.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the release format (`leaderboard.json`).
pub const RELEASE_FORMAT: u32 = 1;

/// What a suite entry of a sweep measures, frozen when the sweep is
/// planned: sweeps are ranked together only when these agree.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct BenchmarkVersion {
    /// Suite name.
    pub suite: String,
    /// The suite's benchmark version (semantic version of its tasks,
    /// metrics and rules, set by the suite).
    pub suite_version: String,
    /// Digest of every planned item (ids and content, datasets in sweep
    /// order): the task set.
    pub data: String,
    /// Items planned.
    pub items: u64,
    /// Version of the scorer (graders, metrics).
    pub scorer: String,
    /// Version of the judge protocol and the judges' models, when judges
    /// score the headline metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judges: Option<String>,
    /// Whether the items are a hidden split (a leaderboard's holdout).
    #[serde(default)]
    pub hidden: bool,
}

impl BenchmarkVersion {
    /// One line naming the version: suite, version, task-set digest,
    /// scorer and judges.
    pub fn label(&self) -> String {
        let mut s = format!(
            "{} {} · tasks {} ({} items) · scorer {}",
            self.suite,
            self.suite_version,
            &self.data[..self.data.len().min(12)],
            self.items,
            self.scorer
        );
        if let Some(j) = &self.judges {
            s.push_str(&format!(" · judges {j}"));
        }
        if self.hidden {
            s.push_str(" · hidden split");
        }
        s
    }

    /// Whether results of `other` are scored the same way (scorer and
    /// judges), so a change between them is the entry's, not the ruler's.
    pub fn scores_like(&self, other: &BenchmarkVersion) -> bool {
        self.suite == other.suite && self.scorer == other.scorer && self.judges == other.judges
    }
}

/// The key a hidden item is published under: a hash of the task set's
/// digest and the item id, so the same item pairs across releases of the
/// same task set while neither its id nor its text appears.
pub fn hidden_item_key(data: &str, item: &str) -> String {
    let h = crate::content_hash(&[b"hidden-item", data.as_bytes(), item.as_bytes()]);
    format!("h-{}", &h[..16])
}

/// A leaderboard release: what `leaderboard.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Release {
    /// [`RELEASE_FORMAT`].
    pub format: u32,
    /// Release name.
    pub name: String,
    /// Release version (e.g. `2026-Q4`).
    pub version: String,
    /// Publication date, `YYYY-MM-DD`.
    pub date: String,
    /// `public`, or `holdout` for a leaderboard of hidden splits.
    pub split: String,
    /// Version of the `adfarm` binary that built it.
    pub built_with: String,
    /// The release it is compared with, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<ReleaseRef>,
    /// How intervals, ranks and tiers were made.
    pub method: Method,
    /// One board per benchmark version, suites in name order.
    pub boards: Vec<Board>,
    /// Every entry (model) on any board.
    pub entries: Vec<Entry>,
}

/// Names a release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReleaseRef {
    /// Release name.
    pub name: String,
    /// Release version.
    pub version: String,
    /// Publication date.
    pub date: String,
}

/// The statistics behind every interval, rank and tier of a release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Method {
    /// Bootstrap resamples of the items.
    pub resamples: u32,
    /// Seed of the resamples (the same seed gives the same release).
    pub seed: u64,
    /// Confidence level of every interval (0.95).
    pub level: f64,
    /// How ranks, tiers and changes were made, in words.
    pub description: String,
}

/// The entries of one benchmark version, ranked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Board {
    /// Stable id within the release (`<suite>-<n>`), the page name.
    pub id: String,
    /// The benchmark version every row was measured on.
    pub version: BenchmarkVersion,
    /// Set when the rows were scored by an older scorer than the binary
    /// that built the release: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale: Option<String>,
    /// The headline metrics, in column order; rows are ranked by the first.
    pub metrics: Vec<MetricInfo>,
    /// Rows, best tier first.
    pub rows: Vec<Row>,
}

/// A headline metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MetricInfo {
    /// Stable id (`pass@1`, `coverage-L2`...).
    pub id: String,
    /// Column heading.
    pub title: String,
    /// What it measures, in a sentence.
    pub description: String,
}

/// One entry's standing on a board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Row {
    /// Entry name (see [`Entry::name`]).
    pub entry: String,
    /// Tier on the first metric: one plus the number of entries ranked
    /// above it with confidence.
    pub tier: u32,
    /// Absent from the previous release's board of this suite.
    pub new: bool,
    /// Mean USD of one run (one seed over every item), every model call of
    /// its jobs priced, cached calls included.
    pub cost_per_run_usd: f64,
    /// [`Row::cost_per_run_usd`] per point of the first metric; `None`
    /// when that metric is not positive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_per_point_usd: Option<f64>,
    /// One cell per metric of the board, in its order.
    pub cells: Vec<Standing>,
    /// How to recreate the row.
    pub recipe: Recipe,
}

/// An entry's value on one metric, with its uncertainty and rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Standing {
    /// Metric id.
    pub metric: String,
    /// Mean over items (each item's seeds averaged first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    /// Half-width of the 95% Student-t interval over items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95: Option<f64>,
    /// Items scored.
    pub n: u64,
    /// Standard deviation of the per-seed means (`None` with one seed, or
    /// for a metric over every seed at once, such as Pass@k).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_spread: Option<f64>,
    /// Best rank of the 95% bootstrap rank interval (1 is first); `None`
    /// for an entry with no value on the metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_best: Option<u32>,
    /// Worst rank of that interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_worst: Option<u32>,
    /// Share of bootstrap resamples on which it scores above the next row
    /// (ties count half); `None` on the last row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beats_next: Option<f64>,
    /// The change since the previous release, when the entry was on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    /// Per-item values (seeds averaged): item id, or an opaque key on a
    /// hidden board.
    pub items: BTreeMap<String, f64>,
}

/// A change since the previous release, on the items both share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Change {
    /// Mean of the per-item differences (this release minus the previous).
    pub delta: f64,
    /// Lower end of its 95% paired bootstrap interval.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// Items both releases scored.
    pub shared_items: u64,
    /// The interval excludes zero.
    pub significant: bool,
    /// The previous release's benchmark version differs in its task set
    /// (the change is over the shared items only).
    pub tasks_changed: bool,
}

/// How to recreate a row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Recipe {
    /// Sweep name.
    pub sweep: String,
    /// Sweep id (hash of its spec).
    pub sweep_id: String,
    /// The sweep file as given in the leaderboard config, when it was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep_file: Option<String>,
    /// Version of the `adfarm` binary that planned the sweep.
    pub adfarm: String,
    /// Solution (agent) name in the sweep.
    pub solution: String,
    /// Its parameters (prompt protocol and the like).
    pub params: serde_json::Value,
    /// Provider name and model id it generated with.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// Judges' model ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judges: Vec<String>,
    /// Seeds.
    pub seeds: Vec<u64>,
    /// Prompt and protocol versions the results record (judge prompts,
    /// agent protocols).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protocols: Vec<String>,
}

/// A model (entry) and who submitted it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    /// Name, unique in the release (a sweep's solution label, or the
    /// name the config gives it).
    pub name: String,
    /// Page name (`model-<slug>.html`).
    pub page: String,
    /// Submitting team.
    pub team: String,
    /// Boards it is on.
    pub boards: Vec<String>,
}

/// The JSON Schema of [`Release`], as published beside every release.
pub fn release_schema() -> serde_json::Value {
    let schema = schemars::schema_for!(Release);
    serde_json::to_value(schema).expect("a schema serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version() -> BenchmarkVersion {
        BenchmarkVersion {
            suite: "tasks".into(),
            suite_version: "1.0.0".into(),
            data: "0123456789abcdef0123".into(),
            items: 90,
            scorer: "s2".into(),
            judges: None,
            hidden: false,
        }
    }

    #[test]
    fn a_hidden_key_names_neither_the_item_nor_its_text_and_depends_on_the_task_set() {
        let k = hidden_item_key("digest-a", "L1-H-001");
        assert!(k.starts_with("h-") && !k.contains("L1"), "{k}");
        assert_eq!(k, hidden_item_key("digest-a", "L1-H-001"));
        assert_ne!(k, hidden_item_key("digest-b", "L1-H-001"));
    }

    #[test]
    fn versions_score_alike_only_with_the_same_scorer_and_judges() {
        let a = version();
        let other_tasks = BenchmarkVersion {
            data: "ff".into(),
            ..version()
        };
        assert!(a.scores_like(&other_tasks));
        let rescored = BenchmarkVersion {
            scorer: "s3".into(),
            ..version()
        };
        assert!(!a.scores_like(&rescored));
        assert!(a.label().contains("tasks 0123456789ab (90 items)"));
    }

    /// `docs/leaderboard.schema.json` is what [`release_schema`] gives
    /// (`ADFARM_BLESS=1` rewrites it, outside CI).
    #[test]
    fn the_published_schema_is_the_generated_one() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../docs/leaderboard.schema.json"
        );
        let generated = serde_json::to_string_pretty(&release_schema()).expect("JSON") + "\n";
        if std::env::var_os("ADFARM_BLESS").is_some() && std::env::var_os("CI").is_none() {
            std::fs::write(path, &generated).expect("docs/ is writable");
        }
        let published = std::fs::read_to_string(path).expect("the published schema");
        assert_eq!(published, generated, "run with ADFARM_BLESS=1 to update it");
    }

    #[test]
    fn the_schema_names_every_top_level_field() {
        let schema = release_schema();
        let props = schema["properties"].as_object().expect("an object schema");
        for f in ["format", "name", "version", "boards", "entries", "method"] {
            assert!(props.contains_key(f), "{f}");
        }
    }
}
