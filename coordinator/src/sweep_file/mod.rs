//! Reads a sweep file (TOML) into a validated [`SweepSpec`]. Every error
//! names the file, the line and the field, and unknown names list the valid
//! ones, so a bad sweep fails before any job runs.
//!
//! - this file: [`SweepFileError`], [`load`], [`parse`] and [`parse_inline`],
//!   and the file's size limit, checked before anything is parsed;
//! - `validate`: the checks of each section of a parsed sweep, in order;
//! - `checks`: the field checks the sections share;
//! - `locate`: field paths and the line each is on in the file.
//!
//! Design decision: validation works on the parsed [`SweepSpec`] and returns
//! a field path; only then is the path found in the TOML document, so the
//! checks never deal with spans.

use adfarm_proto::SweepSpec;
use adfarm_suites::SuiteContext;
use std::fmt;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A problem in a sweep file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct SweepFileError {
    /// The file.
    pub file: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// Dotted field path (`providers[0].requests_per_minute`), when known.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SweepFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

mod checks;
mod locate;
#[cfg(test)]
mod tests;
mod validate;

pub use checks::{
    MAX_JOBS_PER_ITEM, MAX_JUDGES, MAX_LIMIT, MAX_PARAMS_BYTES, MAX_SEEDS, MAX_SOLUTIONS,
};
use locate::{field_on_line, line_of, locate, path_text};
use validate::validate;

/// Reads and validates the sweep file at `path`. `env` looks up
/// environment variables (only to check that API-key variables are set;
/// their values are never read into the spec).
///
/// # Errors
/// The first problem found, with file, line and field.
pub fn load(
    path: &Path,
    ctx: &SuiteContext,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<SweepSpec, SweepFileError> {
    let unreadable = |e: std::io::Error| SweepFileError {
        file: path.to_path_buf(),
        line: None,
        field: None,
        message: format!("cannot read sweep file: {e}"),
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let size = file.metadata().map_err(unreadable)?.len();
    bounded_size(path, size)?;
    // The file may grow between the size check and the read: read no more
    // than one byte past the limit, which `parse` then refuses.
    let mut text = String::new();
    file.take(MAX_SWEEP_FILE_BYTES as u64 + 1)
        .read_to_string(&mut text)
        .map_err(unreadable)?;
    parse(path, &text, ctx, env)
}

/// Largest sweep file, in bytes. Real ones are a few KiB; parsing takes
/// tens of times the text's size in memory, so the limit keeps a hostile
/// file from costing more than a few tens of MiB before it is refused.
pub const MAX_SWEEP_FILE_BYTES: usize = 1024 * 1024;

/// Refuses a sweep file of `size` bytes above [`MAX_SWEEP_FILE_BYTES`].
///
/// # Errors
/// [`oversized`], when it is.
pub fn bounded_size(path: &Path, size: u64) -> Result<(), SweepFileError> {
    if size > MAX_SWEEP_FILE_BYTES as u64 {
        return Err(oversized(path, Some(size)));
    }
    Ok(())
}

/// The error for a sweep file above [`MAX_SWEEP_FILE_BYTES`]: its name,
/// its size when known, and the limit.
pub fn oversized(path: &Path, size: Option<u64>) -> SweepFileError {
    let size = size.map_or_else(|| format!("over {MAX_SWEEP_FILE_BYTES}"), |s| s.to_string());
    SweepFileError {
        file: path.to_path_buf(),
        line: None,
        field: None,
        message: format!(
            "is {size} bytes; a sweep file may have at most {MAX_SWEEP_FILE_BYTES} bytes"
        ),
    }
}

/// As [`load`], from text already read.
///
/// # Errors
/// As [`load`].
pub fn parse(
    path: &Path,
    text: &str,
    ctx: &SuiteContext,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<SweepSpec, SweepFileError> {
    let err_at =
        |span: Option<Range<usize>>, field: Option<String>, message: String| SweepFileError {
            file: path.to_path_buf(),
            line: span.map(|s| line_of(text, s.start)),
            field,
            message,
        };
    bounded_size(path, text.len() as u64)?;
    let doc = toml_edit::Document::parse(text.to_string()).map_err(|e| {
        err_at(
            e.span(),
            e.span()
                .and_then(|s| field_on_line(text, line_of(text, s.start))),
            format!("TOML syntax error: {}", e.message()),
        )
    })?;
    let spec: SweepSpec = toml::from_str(text).map_err(|e| {
        err_at(
            e.span(),
            e.span()
                .and_then(|s| field_on_line(text, line_of(text, s.start))),
            e.message().to_string(),
        )
    })?;
    validate(&spec, ctx, env)
        .map_err(|(p, message)| err_at(locate(&doc, &p), Some(path_text(&p)), message))?;
    Ok(spec)
}

/// As [`parse`], for a sweep written inline by a test or a benchmark: the
/// default [`SuiteContext`], no environment variables, and errors that
/// name the file `<inline>`.
///
/// # Errors
/// As [`load`].
pub fn parse_inline(text: &str) -> Result<SweepSpec, SweepFileError> {
    parse(
        Path::new("<inline>"),
        text,
        &SuiteContext::default(),
        &|_| None,
    )
}
