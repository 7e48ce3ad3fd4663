//! Reading task files: TOML into a [`Task`], its checks, and every
//! problem named `file:line: field: message`. A TOML or type error has
//! its line from `toml`'s span; a failed check names a field path
//! (`predicate[2].max`, `scenario.days`), found again in the text by the
//! file's shape: the n-th `[[predicate]]` block, the `[scenario]` table,
//! a top-level key (the AD-Bench approach; the parsed task keeps no
//! positions).

use super::check::check;
use super::shipped::SHIPPED;
use super::task::Task;
use adfarm_suite::toml_lines::line_of;
use std::path::{Path, PathBuf};

/// Why a task file did not load.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A file or the folder could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A file is not a valid task.
    #[error("{path}:{line}: {field}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line of the field.
        line: usize,
        /// The field: `scenario.days`, `predicate[2].max`, `toml`...
        field: String,
        /// What is wrong.
        message: String,
    },
}

impl LoadError {
    /// A bounded code for the error's kind.
    pub fn code(&self) -> &'static str {
        match self {
            LoadError::Io { .. } => "gauntlet-io",
            LoadError::Invalid { .. } => "gauntlet-invalid",
        }
    }
}

/// The gauntlet's folder in the crate.
pub fn tasks_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks/gauntlet")
}

/// Parses and checks one task file; its id must be the file's stem.
///
/// # Errors
/// [`LoadError::Invalid`] naming the line and the field.
pub fn parse(path: &Path, text: &str) -> Result<Task, LoadError> {
    let invalid = |line, field: String, message: String| LoadError::Invalid {
        path: path.to_path_buf(),
        line,
        field,
        message,
    };
    let task: Task = toml::from_str(text).map_err(|e| {
        let span = e
            .span()
            .map(|s| s.start.min(text.len())..s.end.min(text.len()));
        let line = span
            .as_ref()
            .map_or(1, |s| text[..s.start].matches('\n').count() + 1);
        let field = span
            .and_then(|s| {
                let line_start = text[..s.start].rfind('\n').map_or(0, |i| i + 1);
                text[line_start..s.start]
                    .split_once('=')
                    .and_then(|(k, _)| key_like(k))
                    .or_else(|| text.get(s).and_then(key_like))
            })
            .unwrap_or_else(|| "toml".into());
        invalid(line, field, e.message().trim().to_string())
    })?;
    if let Err((field, message)) = check(&task) {
        return Err(invalid(line_of(text, &field), field, message));
    }
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if task.id != stem {
        return Err(invalid(
            line_of(text, "id"),
            "id".into(),
            format!("must be the file's name, {stem:?}"),
        ));
    }
    Ok(task)
}

fn key_like(k: &str) -> Option<String> {
    let k = k.trim().trim_matches('"');
    (!k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-. ".contains(c)))
    .then(|| k.to_string())
}

/// The shipped gauntlet (the files under `tasks/gauntlet/` when the crate
/// was built), sorted by id.
///
/// # Errors
/// The first file that does not load (a broken tree; the tests load the
/// same files).
pub fn shipped() -> Result<Vec<Task>, LoadError> {
    let mut tasks = SHIPPED
        .iter()
        .map(|(name, text)| parse(&Path::new("tasks/gauntlet").join(name), text))
        .collect::<Result<Vec<Task>, LoadError>>()?;
    tasks.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(tasks)
}

/// Every `*.toml` directly in `dir`, loaded and checked, sorted by id.
///
/// # Errors
/// The first file that cannot be read or does not load.
pub fn load_dir(dir: &Path) -> Result<Vec<Task>, LoadError> {
    load_dir_with(dir, parse)
}

/// Every `*.toml` directly in `dir`, read by `parse`, sorted by id.
///
/// # Errors
/// The first file that cannot be read or that `parse` refuses.
pub fn load_dir_with(
    dir: &Path,
    parse: impl Fn(&Path, &str) -> Result<Task, LoadError>,
) -> Result<Vec<Task>, LoadError> {
    let io = |path: &Path, source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut tasks = files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).map_err(|e| io(p, e))?;
            parse(p, &text)
        })
        .collect::<Result<Vec<Task>, LoadError>>()?;
    tasks.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(tasks)
}
