//! A release from finished sweeps: boards per benchmark version, each
//! entry's means with intervals, rank intervals and tiers from a paired
//! bootstrap over items, changes since the previous release, cost, and a
//! recipe per row. Pure: the caller reads the stores and writes the site.

use super::board::rank;
use super::config::{ReleaseConfig, SweepSource};
use super::LeaderboardError;
use adfarm_backbone::SweepRecord;
use adfarm_proto::leaderboard::{
    BenchmarkVersion, Entry, Method, MetricInfo, Recipe, Release, ReleaseRef, RELEASE_FORMAT,
};
use adfarm_proto::report::CellRow;
use adfarm_proto::{JobResult, SuiteSpec, SOLVE};
use adfarm_suites::{HeadlineValue, ReportInput, Suite, SuiteContext, SweepView};
use std::collections::{BTreeMap, BTreeSet};

/// Confidence level of every interval.
pub(super) const LEVEL: f64 = 0.95;

/// How ranks were made, as every release states it.
pub const METHOD: &str = "Each value is a mean over items, an item's seeds averaged first, \
with a 95% Student-t interval over items. Ranks come from a paired bootstrap: the items every \
entry of a board scored are resampled with replacement, every entry's mean is taken on the same \
resamples, and the entries are ranked on each; an entry's rank interval holds the central 95% of \
its ranks. An entry's tier is one plus the number of entries whose whole rank interval lies above \
its own, so entries whose intervals overlap share a tier. 'Beats next' is the share of resamples \
on which an entry scores above the row below it. A change since the previous release is the mean \
per-item difference on the items both releases scored, with a 95% paired bootstrap interval; it is \
significant when that interval excludes zero. Boards of different benchmark versions are never \
ranked together.";

/// Which split a release ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// Public tasks: item ids and raw results are published.
    Public,
    /// Hidden tasks: aggregates only, items under opaque keys.
    Holdout,
}

impl Split {
    /// `public` or `holdout`.
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Public => "public",
            Split::Holdout => "holdout",
        }
    }
}

/// One finished sweep as the config names it, read from its store.
pub struct Sweep {
    /// Its `[[sweeps]]` entry.
    pub source: SweepSource,
    /// The sweep file, when the config named one.
    pub file: Option<String>,
    /// The registered sweep.
    pub record: SweepRecord,
    /// Its tally's cells.
    pub cells: Vec<CellRow>,
    /// Every stored result.
    pub results: Vec<JobResult>,
}

/// A release and the raw values behind its public boards.
pub struct Built {
    /// What `leaderboard.json` holds.
    pub release: Release,
    /// Per public board: every value, per entry, metric, item and seed.
    pub raw: Vec<RawBoard>,
}

/// The per-item results of one board.
pub struct RawBoard {
    /// Board id.
    pub board: String,
    /// Values in entry, metric, item, seed order.
    pub values: Vec<RawValue>,
}

/// One value of a headline metric.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RawValue {
    /// Entry.
    pub entry: String,
    /// Metric id.
    pub metric: String,
    /// Item id.
    pub item: String,
    /// Seed (`None` for a value over every seed).
    pub seed: Option<u64>,
    /// Value.
    pub value: f64,
    /// The solution's output for the item and seed (`--with-outputs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// One entry's share of a board, before ranking.
pub(super) struct Contribution {
    pub(super) name: String,
    pub(super) team: String,
    pub(super) sweep: usize,
    pub(super) label: String,
    pub(super) values: BTreeMap<String, Vec<HeadlineValue>>,
    pub(super) protocols: Vec<String>,
}

/// What goes on one board before ranking.
pub(super) struct Pending {
    pub(super) version: BenchmarkVersion,
    pub(super) metrics: Vec<MetricInfo>,
    pub(super) entries: Vec<Contribution>,
    pub(super) stale: Option<String>,
}

/// Builds the release of `cfg` over `sweeps`, compared with `previous`.
///
/// # Errors
/// A sweep planned before benchmark versions were recorded, a suite this
/// binary does not serve, an entry name on a board twice, an entry with
/// two teams, a team over its cap, or nothing of `split` to rank.
pub fn assemble(
    cfg: &ReleaseConfig,
    sweeps: &[Sweep],
    previous: Option<&Release>,
    split: Split,
    with_outputs: bool,
    ctx: &SuiteContext,
) -> Result<Built, LeaderboardError> {
    let mut pending: BTreeMap<BenchmarkVersion, Pending> = BTreeMap::new();
    for si in 0..sweeps.len() {
        collect(si, sweeps, split, ctx, &mut pending)?;
    }
    if pending.is_empty() {
        return Err(LeaderboardError::Empty(split.as_str()));
    }
    let ids = board_ids(&pending);
    let entries = entries(cfg, &pending, &ids)?;
    let mut boards = Vec::new();
    let mut raw = Vec::new();
    for ((version, p), id) in pending.into_iter().zip(ids) {
        if !version.hidden {
            raw.push(raw_board(&id, &p, sweeps, with_outputs));
        }
        boards.push(rank(&id, cfg, p, sweeps, previous));
    }
    let release = Release {
        format: RELEASE_FORMAT,
        name: cfg.name.clone(),
        version: cfg.version.clone(),
        date: cfg.date.clone(),
        split: split.as_str().into(),
        built_with: env!("CARGO_PKG_VERSION").into(),
        previous: previous.map(|p| ReleaseRef {
            name: p.name.clone(),
            version: p.version.clone(),
            date: p.date.clone(),
        }),
        method: Method {
            resamples: cfg.resamples,
            seed: cfg.seed,
            level: LEVEL,
            description: METHOD.into(),
        },
        boards,
        entries,
    };
    Ok(Built { release, raw })
}

/// Each board's id, in `pending`'s order: `<suite>-<n>`, n counting the
/// suite's versions from 1.
fn board_ids(pending: &BTreeMap<BenchmarkVersion, Pending>) -> Vec<String> {
    let mut per_suite: BTreeMap<&str, usize> = BTreeMap::new();
    pending
        .keys()
        .map(|v| {
            let n = per_suite.entry(v.suite.as_str()).or_default();
            *n += 1;
            format!("{}-{n}", v.suite)
        })
        .collect()
}

/// The headlines of `suite` in `sweep`.
fn headlines_of(
    sweep: &Sweep,
    suite: &dyn Suite,
    entry: &SuiteSpec,
) -> Result<adfarm_suites::Headlines, LeaderboardError> {
    let name = entry.name.as_str();
    let spec = &sweep.record.spec;
    let cells: Vec<CellRow> = sweep
        .cells
        .iter()
        .filter(|c| c.suite == name)
        .cloned()
        .collect();
    let results: Vec<JobResult> = sweep
        .results
        .iter()
        .filter(|r| r.cell.suite == name)
        .cloned()
        .collect();
    let input = ReportInput {
        spec,
        suite: entry,
        cells: &cells,
        results: &results,
    };
    suite
        .headlines(&input)
        .map_err(|source| LeaderboardError::Suite {
            suite: name.into(),
            source,
        })
}

/// Adds `sweep`'s entries of `split` to the boards of their versions.
fn collect(
    si: usize,
    sweeps: &[Sweep],
    split: Split,
    ctx: &SuiteContext,
    pending: &mut BTreeMap<BenchmarkVersion, Pending>,
) -> Result<(), LeaderboardError> {
    let sweep = &sweeps[si];
    let rec = &sweep.record;
    for entry in &rec.spec.suites {
        let suite = adfarm_suites::suite(&entry.name, ctx)
            .ok_or_else(|| LeaderboardError::UnknownSuite(entry.name.clone()))?;
        let view = SweepView {
            spec: &rec.spec,
            suite: entry,
        };
        let now = suite
            .benchmark(view)
            .map_err(|source| LeaderboardError::Suite {
                suite: entry.name.clone(),
                source,
            })?;
        let Some(now) = now else { continue };
        let Some(version) = rec.benchmarks.get(&entry.name) else {
            return Err(LeaderboardError::Unversioned {
                sweep: rec.spec.name.clone(),
                id: rec.id.0.clone(),
            });
        };
        if version.hidden != (split == Split::Holdout) {
            continue;
        }
        let headlines = headlines_of(sweep, suite.as_ref(), entry)?;
        let stale = (now.scorer != version.scorer).then(|| {
            format!(
                "scored with {} scorer {}; this binary scores with {}: run the sweep again \
                 with this binary to rescore it",
                version.suite, version.scorer, now.scorer
            )
        });
        let p = pending.entry(version.clone()).or_insert_with(|| Pending {
            version: version.clone(),
            metrics: Vec::new(),
            entries: Vec::new(),
            stale: None,
        });
        p.stale = p.stale.take().or(stale);
        for h in &headlines.metrics {
            if !p.metrics.iter().any(|m| m.id == h.metric) {
                p.metrics.push(MetricInfo {
                    id: h.metric.clone(),
                    title: h.title.clone(),
                    description: h.description.clone(),
                });
            }
        }
        let mut labels: BTreeSet<&str> = BTreeSet::new();
        for h in &headlines.metrics {
            labels.extend(h.values.iter().map(|v| v.solution.as_str()));
        }
        for label in labels {
            let name = sweep.source.entry_name(label);
            if let Some(other) = p.entries.iter().find(|c| c.name == name) {
                return Err(LeaderboardError::DuplicateEntry {
                    name,
                    first: sweeps[other.sweep].record.spec.name.clone(),
                    second: rec.spec.name.clone(),
                });
            }
            let values = headlines
                .metrics
                .iter()
                .map(|h| {
                    let mine = h.values.iter().filter(|v| v.solution == label).cloned();
                    (h.metric.clone(), mine.collect())
                })
                .collect();
            p.entries.push(Contribution {
                name,
                team: sweep.source.team_of(label),
                sweep: si,
                label: label.into(),
                values,
                protocols: headlines.protocols.get(label).cloned().unwrap_or_default(),
            });
        }
    }
    Ok(())
}

/// Every entry once, with its team and boards; the team cap enforced.
fn entries(
    cfg: &ReleaseConfig,
    pending: &BTreeMap<BenchmarkVersion, Pending>,
    ids: &[String],
) -> Result<Vec<Entry>, LeaderboardError> {
    let mut teams: BTreeMap<String, String> = BTreeMap::new();
    let mut boards: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (p, id) in pending.values().zip(ids) {
        for c in &p.entries {
            if let Some(t) = teams.get(&c.name) {
                if *t != c.team {
                    return Err(LeaderboardError::TwoTeams {
                        name: c.name.clone(),
                        teams: [t.clone(), c.team.clone()],
                    });
                }
            }
            teams.insert(c.name.clone(), c.team.clone());
            boards.entry(c.name.clone()).or_default().push(id.clone());
        }
    }
    if let Some(cap) = cfg.max_entries_per_team {
        let mut by_team: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (name, team) in &teams {
            by_team.entry(team).or_default().push(name);
        }
        if let Some((team, names)) = by_team.into_iter().find(|(_, n)| n.len() > cap) {
            return Err(LeaderboardError::TeamCap {
                team: team.into(),
                entries: names.iter().map(|s| s.to_string()).collect(),
                cap,
            });
        }
    }
    Ok(teams
        .into_iter()
        .map(|(name, team)| Entry {
            page: format!("model-{}.html", slug(&name)),
            boards: boards.remove(&name).unwrap_or_default(),
            name,
            team,
        })
        .collect())
}

/// A file-name-safe, unique form of `name`: its letters and digits, then
/// a short hash of the whole name.
pub fn slug(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    s.truncate(40);
    let hash = adfarm_proto::content_hash(&[name.as_bytes()]);
    format!("{}-{}", s.trim_matches('-'), &hash[..6])
}

/// Mean USD of one run of `label` in `sweep`'s suite `suite`: every model
/// call of its jobs, cached calls priced as if made, over its seeds.
pub(super) fn cost_per_run(sweep: &Sweep, suite: &str, label: &str) -> f64 {
    let spec = &sweep.record.spec;
    let total: f64 = sweep
        .results
        .iter()
        .filter(|r| r.cell.suite == suite && r.cell.solution == label)
        .flat_map(|r| &r.usage)
        .map(|u| {
            spec.provider_for_model(&u.model)
                .map_or(0.0, |p| p.cost_usd(u.input, u.output))
        })
        .sum();
    total / spec.seeds.len().max(1) as f64
}

/// How to recreate `label`'s row.
pub(super) fn recipe(sweep: &Sweep, label: &str, protocols: &[String]) -> Recipe {
    let rec = &sweep.record;
    let spec = &rec.spec;
    let solution = spec.solutions.iter().find(|s| s.label() == label);
    let provider = solution.map(|s| s.provider.clone()).unwrap_or_default();
    let model = spec
        .provider(&provider)
        .map(|p| p.model.clone())
        .unwrap_or_default();
    Recipe {
        sweep: spec.name.clone(),
        sweep_id: rec.id.0.clone(),
        sweep_file: sweep.file.clone(),
        adfarm: if rec.adfarm.is_empty() {
            "unknown".into()
        } else {
            rec.adfarm.clone()
        },
        solution: label.into(),
        params: solution.map_or(serde_json::Value::Null, |s| s.params.clone()),
        provider,
        model,
        judges: spec
            .judges
            .iter()
            .filter_map(|j| spec.provider(j).map(|p| p.model.clone()))
            .collect(),
        seeds: spec.seeds.clone(),
        protocols: protocols.to_vec(),
    }
}

/// The raw values of a public board, with outputs when asked for.
fn raw_board(id: &str, p: &Pending, sweeps: &[Sweep], with_outputs: bool) -> RawBoard {
    let mut out = Vec::new();
    let mut entries: Vec<&Contribution> = p.entries.iter().collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    for c in entries {
        let outputs: BTreeMap<(&str, u64), &str> = if with_outputs {
            sweeps[c.sweep]
                .results
                .iter()
                .filter(|r| {
                    r.stage == SOLVE
                        && r.cell.suite == p.version.suite
                        && r.cell.solution == c.label
                })
                .filter_map(|r| {
                    let text = r.output.as_ref()?.text.as_str();
                    Some(((r.item.as_str(), r.cell.seed), text))
                })
                .collect()
        } else {
            BTreeMap::new()
        };
        for m in &p.metrics {
            let mut vs: Vec<&HeadlineValue> = c.values.get(&m.id).into_iter().flatten().collect();
            vs.sort_by(|a, b| a.item.cmp(&b.item).then(a.seed.cmp(&b.seed)));
            for v in vs {
                out.push(RawValue {
                    entry: c.name.clone(),
                    metric: m.id.clone(),
                    item: v.item.clone(),
                    seed: v.seed,
                    value: v.value,
                    output: v
                        .seed
                        .and_then(|s| outputs.get(&(v.item.as_str(), s)))
                        .map(|t| t.to_string()),
                });
            }
        }
    }
    RawBoard {
        board: id.into(),
        values: out,
    }
}
