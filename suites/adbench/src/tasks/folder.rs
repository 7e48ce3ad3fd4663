//! A folder of task files a user wrote (the dataset's `tasks_dir`, and
//! `adfarm adbench check`): every `*.toml` directly in it, parsed, checked
//! and its reference replayed on the given dates, each problem named
//! `file:line: field: message`. All problems are collected, not the first,
//! so one run shows everything to fix.

use std::fmt;
use std::path::{Path, PathBuf};

use super::lines::line_of;
use super::{check, parse, read_dir, LoadError, Split, Task};
use crate::replay::{reference_platform, replay};
use crate::world::Day;

/// One thing wrong with a folder of tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file (or the folder, for a folder-wide problem).
    pub path: PathBuf,
    /// 1-based line; 0 when the problem has no line (an unreadable folder).
    pub line: usize,
    /// The field: `s2.tool`, `answer.from`, `id`...
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(
                f,
                "{}: {}: {}",
                self.path.display(),
                self.field,
                self.message
            ),
            n => write!(
                f,
                "{}:{n}: {}: {}",
                self.path.display(),
                self.field,
                self.message
            ),
        }
    }
}

impl Problem {
    fn of(e: LoadError) -> Problem {
        match e {
            LoadError::Io { path, source } => Problem {
                path,
                line: 0,
                field: "-".into(),
                message: source.to_string(),
            },
            LoadError::Parse {
                path,
                line,
                field,
                message,
            }
            | LoadError::Check {
                path,
                line,
                field,
                message,
            } => Problem {
                path,
                line,
                field,
                message,
            },
        }
    }
}

/// What a folder holds: the tasks that passed everything, sorted by id,
/// and every problem found.
#[derive(Debug, Default)]
pub struct Inspection {
    /// Tasks that parsed, passed their checks and replayed on every date.
    pub tasks: Vec<Task>,
    /// Problems, file by file.
    pub problems: Vec<Problem>,
}

/// Loads every task file in `dir`, checks it and replays its reference on
/// the world of `split`'s seed at each of `dates` (hour `hour`).
pub fn inspect(dir: &Path, split: Split, dates: &[Day], hour: u8) -> Inspection {
    let mut out = Inspection::default();
    let files = match read_dir(dir) {
        Ok(f) => f,
        Err(e) => {
            out.problems.push(Problem::of(e));
            return out;
        }
    };
    if files.is_empty() {
        out.problems.push(Problem {
            path: dir.to_path_buf(),
            line: 0,
            field: "-".into(),
            message: "no task files (*.toml) in the folder".into(),
        });
        return out;
    }
    let mut loaded: Vec<(Task, String)> = Vec::new();
    for (path, text) in files {
        let task = match parse(&path, &text, split) {
            Ok(t) => t,
            Err(e) => {
                out.problems.push(Problem::of(e));
                continue;
            }
        };
        if let Err(e) = check::check_text(&task, &text) {
            out.problems.push(Problem::of(e));
            continue;
        }
        if let Some((first, _)) = loaded.iter().find(|(t, _)| t.id == task.id) {
            out.problems.push(Problem {
                path: path.clone(),
                line: line_of(&text, None, "id"),
                field: "id".into(),
                message: format!("task id {} is also {}'s", task.id, first.source.display()),
            });
            continue;
        }
        loaded.push((task, text));
    }
    let mut failed = vec![false; loaded.len()];
    for &date in dates {
        let platform = match reference_platform(split.seed(), date, hour) {
            Ok(p) => p,
            Err(e) => {
                out.problems.push(Problem {
                    path: dir.to_path_buf(),
                    line: 0,
                    field: "date".into(),
                    message: e.to_string(),
                });
                continue;
            }
        };
        for (i, (task, text)) in loaded.iter().enumerate() {
            // One failure per task: later dates would repeat it.
            if failed[i] {
                continue;
            }
            if let Err(e) = replay(task, &platform) {
                failed[i] = true;
                let (line, field) = if e.step == "answer" {
                    (line_of(text, None, "answer"), "answer.from".to_string())
                } else if task.step(&e.step).is_some() {
                    (
                        line_of(text, Some(&e.step), "args"),
                        format!("{}.args", e.step),
                    )
                } else {
                    (line_of(text, None, "user"), "user".to_string())
                };
                out.problems.push(Problem {
                    path: task.source.clone(),
                    line,
                    field,
                    message: format!("replay on {date}: {}", e.message),
                });
            }
        }
    }
    out.tasks = loaded
        .into_iter()
        .zip(failed)
        .filter(|(_, f)| !f)
        .map(|((t, _), _)| t)
        .collect();
    out.tasks.sort_by(|a, b| a.id.cmp(&b.id));
    out
}
