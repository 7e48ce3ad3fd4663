//! AD-Bench's tasks: one TOML file each under `tasks/public/` and
//! `tasks/holdout/` (the holdout split loads only when asked). A task is a
//! question with relative dates, an answer spec and the reference
//! trajectory whose replay against the world at the job's date D gives the
//! ground truth (see [`crate::replay`]).
//!
//! - `template`: `{D-1}`, `{D.last_week.monday}`, `${s2.rows[0].X}`;
//! - `check`: the loader's checks (tools, schemas, templates, dependencies);
//! - `coverage`: the rules over the whole set (tools, groupings, search...);
//! - `folder`: a user's folder of tasks, checked and replayed, every
//!   problem named `file:line: field`; `lines`: where a field is in a file.
//!
//! Design decision: a task names its user by index into the split's world
//! (users are stable across dates), and its answer by a path into one
//! step's observation, so the ground truth is never written in the file.

pub mod check;
pub mod coverage;
pub mod folder;
pub mod lines;
pub mod template;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tools::Outcome;
use crate::world::Day;

/// World seed of the public split.
pub const PUBLIC_SEED: u64 = 2026;
/// World seed of the holdout split: another world, so public tasks'
/// answers say nothing about it.
pub const HOLDOUT_SEED: u64 = 7331;

/// The reference date D0 the golden answers are for: D0+9 crosses a month
/// end, D0+45 crosses the 2026-09-01 attribution rule change.
pub fn reference_day() -> Day {
    Day::ymd(2026, 7, 25).expect("valid")
}

/// Which task files to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// Shipped and reported per task.
    Public,
    /// Loaded only when asked for.
    Holdout,
}

impl Split {
    /// Folder name under `tasks/`.
    pub fn dir_name(self) -> &'static str {
        match self {
            Split::Public => "public",
            Split::Holdout => "holdout",
        }
    }

    /// The world seed its tasks are written against.
    pub fn seed(self) -> u64 {
        match self {
            Split::Public => PUBLIC_SEED,
            Split::Holdout => HOLDOUT_SEED,
        }
    }
}

/// Difficulty tier, as in the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Tier {
    /// One report, read off.
    L1,
    /// Several calls or arithmetic.
    L2,
    /// Multi-step analysis with search or peers.
    L3,
}

/// How an answer is graded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    /// A number, equal after rounding to 2 decimals.
    Number,
    /// A percentage, equal after rounding to 2 decimals.
    Percent,
    /// A set of ids.
    IdList,
    /// Yes or no.
    Bool,
    /// One of `choices`.
    Choice,
    /// Free text: needs a judge.
    Text,
}

/// Where the answer is read and how it is graded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerSpec {
    /// Kind of answer.
    pub kind: AnswerKind,
    /// `s3.output` (a calculator's printed value) or a path into a step's
    /// observation such as `s2.rows[0].Cost (CNY)`.
    pub from: String,
    /// Allowed values of a `choice`.
    #[serde(default)]
    pub choices: Vec<String>,
    /// Largest absolute difference from the reference a numeric answer may
    /// have; without it, equal after rounding to 2 decimals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Unit a numeric answer is given in; without it, read from `kind` and
    /// the column `from` names (see [`AnswerSpec::unit`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<Unit>,
    /// A percent answer may also be given as a fraction (0.0394 for 3.94%).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fraction: bool,
}

/// The unit of a numeric answer: which numbers of an answer can be it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Percent: `3.94%`.
    Percent,
    /// Percentage points: `0.79 pp` (a `%` or a bare number reads too).
    Points,
    /// Money in CNY: `¥73.21`, `73.21 CNY`.
    Cny,
    /// An hour of the day, 0-23: `21`, `21:00`, `9 pm`.
    Hour,
    /// A count of what the question asks "how many" of.
    Count,
}

impl AnswerSpec {
    /// The answer's unit: the declared one, else a percent for `percent`,
    /// else the unit of the report column `from` reads (`Cost (CNY)`,
    /// `CTR (%)`, `Hour`, `Conversions`...); none for a computed value.
    pub fn unit(&self) -> Option<Unit> {
        if self.unit.is_some() {
            return self.unit;
        }
        match self.kind {
            AnswerKind::Percent => return Some(Unit::Percent),
            AnswerKind::Number => {}
            _ => return None,
        }
        let column = self.from.rsplit_once(['.', ']']).map_or("", |(_, c)| c);
        if column.ends_with("(CNY)") {
            Some(Unit::Cny)
        } else if column.ends_with("(%)") {
            Some(Unit::Percent)
        } else if column == "Hour" {
            Some(Unit::Hour)
        } else if matches!(
            column,
            "Valid clicks" | "Impressions" | "Conversions" | "Deep conversions"
        ) {
            Some(Unit::Count)
        } else {
            None
        }
    }

    /// What is wrong with the numeric grading fields, if anything: a
    /// tolerance must be a finite number ≥ 0, and a unit, a tolerance or
    /// `fraction` go only with a numeric kind (`fraction` with a percent).
    pub fn problem(&self) -> Option<String> {
        let numeric = matches!(self.kind, AnswerKind::Number | AnswerKind::Percent);
        if let Some(t) = self.tolerance {
            if !(t.is_finite() && t >= 0.0) {
                return Some(format!("tolerance must be a number >= 0, not {t}"));
            }
        }
        if !numeric && (self.tolerance.is_some() || self.unit.is_some() || self.fraction) {
            return Some("tolerance, unit and fraction go with a numeric kind only".into());
        }
        if self.fraction && self.unit() != Some(Unit::Percent) {
            return Some("fraction goes with a percent answer only".into());
        }
        None
    }
}

/// One step of a reference trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// `s1`, `s2`...
    pub id: String,
    /// Tool called.
    pub tool: String,
    /// Templated arguments.
    pub args: Value,
    /// Arguments an agent's call must match for the step to count.
    #[serde(default)]
    pub key_args: Vec<String>,
    /// Steps that must come before this one.
    #[serde(default)]
    pub after: Vec<String>,
    /// For `search`: knowledge entries any of which must be in the top 3.
    #[serde(default)]
    pub entry: Vec<String>,
}

/// A task as its file states it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// Stable id, e.g. `L2-014`.
    pub id: String,
    /// Tier.
    pub tier: Tier,
    /// Index of the user in the split's world.
    pub user: usize,
    /// The question, with relative dates.
    pub question: String,
    /// How the reference ends: `Unresolved` when the platform cannot answer.
    #[serde(default = "resolved")]
    pub outcome: Outcome,
    /// The answer spec; none for an Unresolved task.
    #[serde(default)]
    pub answer: Option<AnswerSpec>,
    /// Reference trajectory, in an order its `after` edges allow.
    pub steps: Vec<Step>,
    /// File it came from (set by the loader).
    #[serde(skip)]
    pub source: PathBuf,
    /// Split it belongs to (set by the loader).
    #[serde(skip, default = "public")]
    pub split: Split,
}

fn resolved() -> Outcome {
    Outcome::Resolved
}

fn public() -> Split {
    Split::Public
}

impl Task {
    /// The step with id `id`.
    pub fn step(&self, id: &str) -> Option<&Step> {
        self.steps.iter().find(|s| s.id == id)
    }

    /// Every step that must precede `id`, transitively.
    pub fn ancestors(&self, id: &str) -> Vec<&Step> {
        let mut out: Vec<&Step> = Vec::new();
        let mut todo: Vec<&str> = vec![id];
        while let Some(cur) = todo.pop() {
            let Some(s) = self.step(cur) else { continue };
            for a in &s.after {
                if let Some(p) = self.step(a) {
                    if !out.iter().any(|o| o.id == p.id) {
                        out.push(p);
                        todo.push(&p.id);
                    }
                }
            }
        }
        out
    }
}

/// Why tasks did not load.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The folder or a file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// File or folder.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A file is not a task (TOML or field error, with its line).
    #[error("{path}:{line}: {field}: {message}")]
    Parse {
        /// File.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// The key at the error (`toml` when the text is not a key).
        field: String,
        /// Cause.
        message: String,
    },
    /// A task failed a check.
    #[error("{path}:{line}: {field}: {message}")]
    Check {
        /// File.
        path: PathBuf,
        /// 1-based line of the field (0 until [`check::check_text`] finds it).
        line: usize,
        /// `s2.tool`, `s2.args.fields`, `answer.from`...: a step's field
        /// under its id, or the task's own.
        field: String,
        /// Cause.
        message: String,
    },
}

/// The crate's task folder.
pub fn tasks_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks")
}

/// Parses one task file (no checks).
///
/// # Errors
/// [`LoadError::Parse`] with the line of the error.
pub fn parse(path: &Path, text: &str, split: Split) -> Result<Task, LoadError> {
    let mut task: Task = toml::from_str(text).map_err(|e| {
        let span = e
            .span()
            .map(|s| s.start.min(text.len())..s.end.min(text.len()));
        let line = span
            .as_ref()
            .map_or(1, |s| text[..s.start].matches('\n').count() + 1);
        // The key is the one assigned on the error's line (a mistyped
        // value's span is the value), else the span's own text (an unknown
        // key's span is the key); `toml` when neither is a key.
        let key_like = |k: &str| {
            let k = k.trim().trim_matches('"');
            (!k.is_empty()
                && k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-. ".contains(c)))
            .then(|| k.to_string())
        };
        let field = span
            .and_then(|s| {
                let line_start = text[..s.start].rfind('\n').map_or(0, |i| i + 1);
                text[line_start..s.start]
                    .split_once('=')
                    .and_then(|(k, _)| key_like(k))
                    .or_else(|| text.get(s).and_then(key_like))
            })
            .unwrap_or_else(|| "toml".into());
        LoadError::Parse {
            path: path.to_path_buf(),
            line,
            field,
            message: e.message().trim().to_string(),
        }
    })?;
    task.source = path.to_path_buf();
    task.split = split;
    Ok(task)
}

/// The task files built into the binary: (split folder, path under
/// `tasks/`, text).
const SHIPPED: &[(&str, &str, &str)] = include!(concat!(env!("OUT_DIR"), "/shipped_tasks.rs"));

/// Every shipped task of `split`, checked, sorted by id: the files under
/// the crate's `tasks/` as they were when the binary was built.
///
/// # Errors
/// The first file that cannot be parsed or checked (a build from a broken
/// tree; the crate's tests load the same files).
pub fn shipped(split: Split) -> Result<Vec<Task>, LoadError> {
    let files = SHIPPED
        .iter()
        .filter(|(dir, _, _)| *dir == split.dir_name())
        .map(|(_, path, text)| (Path::new("tasks").join(path), text.to_string()));
    checked(files, split)
}

/// Loads and checks every task of `split` under `root` (`root/public/*.toml`
/// or `root/holdout/*.toml`), sorted by id.
///
/// # Errors
/// The first file that cannot be read, parsed or checked.
pub fn load(root: &Path, split: Split) -> Result<Vec<Task>, LoadError> {
    checked(read_dir(&root.join(split.dir_name()))?.into_iter(), split)
}

/// Every `*.toml` file directly in `dir` with its text, sorted by path.
///
/// # Errors
/// [`LoadError::Io`] when the folder or a file cannot be read.
pub fn read_dir(dir: &Path) -> Result<Vec<(PathBuf, String)>, LoadError> {
    let io = |path: &Path, source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut texts = Vec::with_capacity(files.len());
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| io(&f, e))?;
        texts.push((f, text));
    }
    Ok(texts)
}

/// Parses and checks task files, sorted by id, ids unique.
fn checked(
    files: impl Iterator<Item = (PathBuf, String)>,
    split: Split,
) -> Result<Vec<Task>, LoadError> {
    let mut tasks = Vec::new();
    for (path, text) in files {
        let task = parse(&path, &text, split)?;
        check::check_text(&task, &text)?;
        tasks.push((task, text));
    }
    tasks.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    if let Some(w) = tasks.windows(2).find(|w| w[0].0.id == w[1].0.id) {
        return Err(duplicate(&w[1].0, &w[1].1));
    }
    Ok(tasks.into_iter().map(|(t, _)| t).collect())
}

/// The error for a task whose id an earlier one has.
fn duplicate(task: &Task, text: &str) -> LoadError {
    LoadError::Check {
        path: task.source.clone(),
        line: lines::line_of(text, None, "id"),
        field: "id".into(),
        message: format!("duplicate task id {}", task.id),
    }
}
