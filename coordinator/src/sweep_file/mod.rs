//! Reads a sweep file (TOML) into a validated [`SweepSpec`]. Every error
//! names the file, the line and the field, and unknown names list the valid
//! ones, so a bad sweep fails before any job runs.
//!
//! - this file: [`SweepFileError`], [`load`], [`parse`] and [`parse_inline`];
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

pub use checks::MAX_PARAMS_BYTES;
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
    let text = std::fs::read_to_string(path).map_err(|e| SweepFileError {
        file: path.to_path_buf(),
        line: None,
        field: None,
        message: format!("cannot read sweep file: {e}"),
    })?;
    parse(path, &text, ctx, env)
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
