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

/// True when `line` assigns `key` (bare or quoted).
fn assigns(line: &str, key: &str) -> bool {
    let t = line.trim_start();
    let rest = t
        .strip_prefix('"')
        .and_then(|r| r.strip_prefix(key))
        .and_then(|r| r.strip_prefix('"'))
        .or_else(|| t.strip_prefix(key));
    rest.is_some_and(|r| r.trim_start().starts_with('='))
}

fn is_header(line: &str) -> bool {
    line.trim_start().starts_with('[')
}

/// 1-based line of a field path in `text`: the deepest table or
/// array-of-tables block the path names (its n-th occurrence for `[n]`),
/// then the first key left in that block (its n-th inline table for a
/// `keywords[n]`); the block's header when the key is not there; a
/// top-level key before the first header; else line 1.
pub fn line_of(text: &str, field: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let segs: Vec<(&str, Option<usize>)> = field
        .split('.')
        .map(|s| match s.split_once('[') {
            Some((name, rest)) => (name, rest.trim_end_matches(']').parse().ok()),
            None => (s, None),
        })
        .collect();
    for n in (1..=segs.len()).rev() {
        let path: Vec<&str> = segs[..n].iter().map(|s| s.0).collect();
        let path = path.join(".");
        let (header, nth) = match segs[n - 1].1 {
            Some(i) => (format!("[[{path}]]"), i),
            None => (format!("[{path}]"), 0),
        };
        let Some(h) = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.trim() == header)
            .map(|(i, _)| i)
            .nth(nth)
        else {
            continue;
        };
        let end = lines[h + 1..]
            .iter()
            .position(|l| is_header(l))
            .map_or(lines.len(), |i| h + 1 + i);
        let Some(&(key, index)) = segs.get(n) else {
            return h + 1;
        };
        let Some(k) = (h + 1..end).find(|&i| assigns(lines[i], key)) else {
            return h + 1;
        };
        let Some(j) = index else {
            return k + 1;
        };
        return (k..end)
            .filter(|&i| lines[i].contains('{'))
            .nth(j)
            .map_or(k + 1, |i| i + 1);
    }
    let first_header = lines
        .iter()
        .position(|l| is_header(l))
        .unwrap_or(lines.len());
    lines[..first_header]
        .iter()
        .position(|l| assigns(l, segs[0].0))
        .map_or(1, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"id = "t"
brief = "b"

[scenario]
seed = 1
days = 3

[[account.campaigns]]
name = "A"

[[account.campaigns]]
name = "B"
keywords = [
  { text = "flights" },
  { text = "hotels" },
]

[[predicate]]
kind = "kpi"

[[predicate]]
kind = "budget"
max_micros = 3
"#;

    #[test]
    fn fields_are_found_at_their_own_lines() {
        assert_eq!(line_of(TEXT, "brief"), 2);
        assert_eq!(line_of(TEXT, "scenario.days"), 6);
        assert_eq!(line_of(TEXT, "scenario.cadence"), 4);
        assert_eq!(line_of(TEXT, "account.campaigns[1].name"), 12);
        assert_eq!(line_of(TEXT, "account.campaigns[1].keywords[1].text"), 15);
        assert_eq!(line_of(TEXT, "predicate[1].max_micros"), 23);
        assert_eq!(line_of(TEXT, "predicate[1].min_micros"), 21);
        assert_eq!(line_of(TEXT, "predicate[5].max"), 1);
        assert_eq!(line_of(TEXT, "oracle[0].at"), 1);
    }
}
