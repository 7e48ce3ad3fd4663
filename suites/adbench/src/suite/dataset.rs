//! The `tasks` dataset: one item per task × environment date. An item
//! carries everything a job needs (the task, the world's seed, date and
//! hour, the dependency rule), so workers load no task files and a job's
//! content is its identity.
//!
//! The suite's params, each optional:
//! - `split`: `"public"` (default) or `"holdout"` (the leaderboard's tasks,
//!   on another world; never loaded unless named); with `tasks_dir`, only
//!   the world the folder's tasks run on;
//! - `tasks_dir`: a folder of task files (every `*.toml` directly in it)
//!   run instead of the shipped split. A relative path is read from the
//!   planning process's current directory (the dataset sees its params,
//!   not the sweep file's location). Every task is checked and its
//!   reference replayed on every `env_dates` date when the sweep is
//!   planned, so a broken task stops the plan with `file:line: field`;
//!   items carry the tasks, so workers never read the folder;
//! - `env_dates`: dates D the world is seen on, `YYYY-MM-DD` or `"today"`
//!   (the UTC date when the sweep is planned, fixed in the items from then
//!   on); default the reference day D0 = 2026-07-25;
//! - `hour`: data on D covers hours before it (default 12);
//! - `tasks`: task ids to run (default all of the split);
//! - `per_tier`: at most this many tasks of each tier, first by id (a cut
//!   for quick runs; 1 to [`MAX_PER_TIER`]);
//! - `strict_dependencies`: a dependency violation is an error observation
//!   instead of answered and flagged (default false).

use std::path::PathBuf;

use adfarm_proto::Item;
use adfarm_suite::{DataError, ItemIter};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tasks::{self, folder, reference_day, Split, Task, Tier};
use crate::world::{first_date, last_date, Day, DEFAULT_HOUR};

/// The dataset's name.
pub const DATASET: &str = "tasks";

/// Largest `per_tier` cut: far above the shipped tiers' sizes, so a typo
/// of extra digits is named instead of read as "all".
pub const MAX_PER_TIER: u64 = 10_000;

const FIELDS: [&str; 7] = [
    "split",
    "tasks_dir",
    "env_dates",
    "hour",
    "tasks",
    "per_tier",
    "strict_dependencies",
];

/// The suite's parameters, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Which tasks (with `tasks_dir`, which world).
    pub split: Split,
    /// A user's folder of tasks, run instead of the shipped split.
    pub tasks_dir: Option<PathBuf>,
    /// The dates the world is seen on, `"today"` resolved.
    pub dates: Vec<Day>,
    /// The hour on each date.
    pub hour: u8,
    /// Task ids asked for, if any.
    pub tasks: Option<Vec<String>>,
    /// Tasks per tier, if cut.
    pub per_tier: Option<usize>,
    /// Dependency violations are errors.
    pub strict: bool,
}

fn bad(field: &str, reason: String) -> DataError {
    DataError::Param {
        field: format!("params.{field}"),
        reason,
    }
}

fn date(field: &str, v: &Value) -> Result<Day, DataError> {
    let text = v.as_str().ok_or_else(|| {
        bad(
            field,
            format!("must be a YYYY-MM-DD string or \"today\", got {v}"),
        )
    })?;
    let day = if text == "today" {
        Day::from_date(time::OffsetDateTime::now_utc().date())
    } else {
        Day::parse(text).ok_or_else(|| bad(field, format!("{text:?} is not a YYYY-MM-DD date")))?
    };
    if day < first_date() || day > last_date() {
        return Err(bad(
            field,
            format!(
                "{day} is outside the world's span {}..={}",
                first_date(),
                last_date()
            ),
        ));
    }
    Ok(day)
}

impl Params {
    /// Reads the suite's `params`.
    ///
    /// # Errors
    /// [`DataError::Param`] naming the field below `params`.
    pub fn read(params: &Value) -> Result<Params, DataError> {
        let empty = serde_json::Map::new();
        let obj = match params {
            Value::Null => &empty,
            Value::Object(m) => m,
            other => return Err(bad("", format!("must be a table, got {other}"))),
        };
        if let Some(k) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(bad(
                k,
                format!("unknown field; valid: {}", FIELDS.join(", ")),
            ));
        }
        let split = match obj.get("split").map(|v| (v, v.as_str())) {
            None => Split::Public,
            Some((_, Some("public"))) => Split::Public,
            Some((_, Some("holdout"))) => Split::Holdout,
            Some((v, _)) => {
                return Err(bad("split", format!("must be public or holdout, got {v}")))
            }
        };
        let tasks_dir = match obj.get("tasks_dir") {
            None => None,
            Some(Value::String(d)) if !d.is_empty() => {
                let d = PathBuf::from(d);
                Some(if d.is_absolute() {
                    d
                } else {
                    std::env::current_dir()
                        .map_err(|e| bad("tasks_dir", format!("no current directory: {e}")))?
                        .join(d)
                })
            }
            Some(v) => return Err(bad("tasks_dir", format!("must be a folder path, got {v}"))),
        };
        let dates = match obj.get("env_dates") {
            None => vec![reference_day()],
            Some(Value::Array(a)) if !a.is_empty() => a
                .iter()
                .enumerate()
                .map(|(i, v)| date(&format!("env_dates[{i}]"), v))
                .collect::<Result<Vec<_>, _>>()?,
            Some(v) => {
                return Err(bad(
                    "env_dates",
                    format!("must be a non-empty list of dates, got {v}"),
                ))
            }
        };
        if let Some(i) = (1..dates.len()).find(|&i| dates[..i].contains(&dates[i])) {
            return Err(bad(
                &format!("env_dates[{i}]"),
                format!("{} is listed twice", dates[i]),
            ));
        }
        let hour = match obj.get("hour") {
            None => DEFAULT_HOUR,
            Some(v) => v
                .as_u64()
                .filter(|h| *h <= 23)
                .map(|h| h as u8)
                .ok_or_else(|| bad("hour", format!("must be 0..=23, got {v}")))?,
        };
        let tasks = match obj.get("tasks") {
            None => None,
            Some(Value::Array(a)) => Some(
                a.iter()
                    .enumerate()
                    .map(|(i, v)| {
                        v.as_str().map(str::to_string).ok_or_else(|| {
                            bad(
                                &format!("tasks[{i}]"),
                                format!("must be a task id, got {v}"),
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(v) => return Err(bad("tasks", format!("must be a list of task ids, got {v}"))),
        };
        let per_tier = match obj.get("per_tier") {
            None => None,
            Some(v) => Some(
                v.as_u64()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| bad("per_tier", format!("must be a positive integer, got {v}")))
                    .and_then(|n| {
                        if n > MAX_PER_TIER {
                            Err(bad(
                                "per_tier",
                                format!("must be at most {MAX_PER_TIER}, got {n}"),
                            ))
                        } else {
                            Ok(n as usize)
                        }
                    })?,
            ),
        };
        let strict = match obj.get("strict_dependencies") {
            None => false,
            Some(v) => v.as_bool().ok_or_else(|| {
                bad(
                    "strict_dependencies",
                    format!("must be true or false, got {v}"),
                )
            })?,
        };
        Ok(Params {
            split,
            tasks_dir,
            dates,
            hour,
            tasks,
            per_tier,
            strict,
        })
    }

    /// The tasks these params select (shipped, or the `tasks_dir`
    /// folder's), in id order.
    ///
    /// # Errors
    /// A task id the split or folder does not have, a broken shipped task,
    /// or any problem in the folder (every one listed, `file:line: field`).
    pub fn select(&self) -> Result<Vec<Task>, DataError> {
        let (all, source) = match &self.tasks_dir {
            None => (
                tasks::shipped(self.split).map_err(|e| DataError::Files {
                    path: "tasks".into(),
                    reason: e.to_string(),
                })?,
                format!("the {} split", self.split.dir_name()),
            ),
            Some(dir) => {
                let found = folder::inspect(dir, self.split, &self.dates, self.hour);
                if !found.problems.is_empty() {
                    let lines: Vec<String> =
                        found.problems.iter().map(ToString::to_string).collect();
                    return Err(DataError::Files {
                        path: dir.display().to_string(),
                        reason: format!(
                            "{} problem(s) in params.tasks_dir:\n{}",
                            lines.len(),
                            lines.join("\n")
                        ),
                    });
                }
                (found.tasks, format!("params.tasks_dir {}", dir.display()))
            }
        };
        let mut chosen: Vec<Task> = match &self.tasks {
            None => all,
            Some(ids) => {
                for (i, id) in ids.iter().enumerate() {
                    if !all.iter().any(|t| &t.id == id) {
                        return Err(bad(
                            &format!("tasks[{i}]"),
                            format!("{source} has no task {id:?}"),
                        ));
                    }
                }
                all.into_iter().filter(|t| ids.contains(&t.id)).collect()
            }
        };
        if let Some(n) = self.per_tier {
            let mut seen: Vec<(Tier, usize)> = Vec::new();
            chosen.retain(|t| {
                let count = match seen.iter_mut().find(|(tier, _)| *tier == t.tier) {
                    Some((_, c)) => c,
                    None => {
                        seen.push((t.tier, 0));
                        &mut seen.last_mut().expect("just pushed").1
                    }
                };
                *count += 1;
                *count <= n
            });
        }
        Ok(chosen)
    }
}

/// What an item carries besides the question: the whole episode setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Setting {
    /// The task, as its file states it.
    pub task: Task,
    /// Its split (the world seed follows from it).
    pub split: Split,
    /// The date D the world is seen on.
    pub date: Day,
    /// The hour on D.
    pub hour: u8,
    /// Dependency violations are errors.
    pub strict: bool,
}

impl Setting {
    /// The world's seed.
    pub fn seed(&self) -> u64 {
        self.split.seed()
    }

    /// The item of this setting: id `<task>@<date>`.
    pub fn item(&self) -> Item {
        Item {
            id: format!("{}@{}", self.task.id, self.date),
            input: self.task.question.clone(),
            meta: serde_json::to_value(self).expect("a setting serialises"),
        }
    }

    /// The setting an item carries.
    ///
    /// # Errors
    /// [`DataError::Param`] when the item is not one of this dataset's.
    pub fn of(item: &Item) -> Result<Setting, DataError> {
        let mut s: Setting =
            serde_json::from_value(item.meta.clone()).map_err(|e| DataError::Param {
                field: "item.meta".into(),
                reason: format!("item {} is not an AD-Bench task setting: {e}", item.id),
            })?;
        s.task.split = s.split;
        Ok(s)
    }
}

/// The dataset's items: every selected task on every date, date-major.
///
/// # Errors
/// An unknown dataset or bad params.
pub fn items(dataset: &str, params: &Value) -> Result<ItemIter, DataError> {
    if dataset != DATASET {
        return Err(DataError::UnknownDataset {
            suite: super::SUITE.into(),
            dataset: dataset.into(),
            valid: DATASET.into(),
        });
    }
    let p = Params::read(params)?;
    let tasks = p.select()?;
    let items: Vec<_> = p
        .dates
        .iter()
        .flat_map(|&date| {
            tasks.iter().map(move |task| {
                Ok(Setting {
                    task: task.clone(),
                    split: p.split,
                    date,
                    hour: p.hour,
                    strict: p.strict,
                }
                .item())
            })
        })
        .collect();
    Ok(Box::new(items.into_iter()))
}
