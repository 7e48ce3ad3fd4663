//! What the runner and the child process say to each other: one JSON
//! request on the child's stdin; on its stdout, JSON lines of printed
//! text as it is printed, then the reply.

use serde::{Deserialize, Serialize};

/// A snippet and the variables it may read (`r1`, `r2`, ...), each as JSON text
/// so that object key order survives the trip.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    /// The Python snippet.
    pub code: String,
    /// `(name, JSON text)` pairs, bound as globals before the snippet runs.
    pub variables: Vec<(String, String)>,
}

/// How a run failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// An import, name or construct the calculator refuses by policy.
    Refused,
    /// The snippet does not parse (a `SyntaxError`, with its line).
    Syntax,
    /// A Python exception the snippet did not catch.
    Runtime,
    /// The CPU or wall-clock limit killed the run.
    Timeout,
    /// The address-space limit, a `MemoryError`, or nesting too deep.
    Memory,
    /// Printed output passed 16 KiB; it was cut there.
    OutputTooLong,
    /// The child ended without a reply, or the request itself was bad
    /// (variables that are not JSON): a fault of the caller or the
    /// calculator, not of the snippet.
    Crashed,
}

/// The error that ended a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunError {
    /// Its class.
    pub kind: ErrorKind,
    /// What the agent reads, e.g. `KeyError: 'b' (line 3)`.
    pub message: String,
}

/// A run's result: what it printed, and the error that ended it, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    /// What the snippet printed, at most `OUTPUT_LIMIT` bytes.
    pub output: String,
    /// The error that ended the run; `None` when it ran to the end.
    pub error: Option<RunError>,
}

/// One line of the child's stdout: text as it is printed (so a run that
/// is killed still shows what it printed), then the reply.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ChildLine {
    Printed(String),
    Reply(Reply),
}

impl Reply {
    /// The text an agent reads as the tool's result: the printed lines, then
    /// a bracketed line naming the error, if any, so it can rephrase.
    pub fn to_text(&self) -> String {
        let mut text = self.output.clone();
        if text.is_empty() && self.error.is_none() {
            // Scripts print nothing unless told to; say so rather than return "".
            return "[no output] the snippet ran but printed nothing; use print(...) to show values".into();
        }
        if let Some(e) = &self.error {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            let label = match e.kind {
                ErrorKind::Refused => "refused",
                ErrorKind::Syntax => "syntax error",
                ErrorKind::Runtime => "error",
                ErrorKind::Timeout => "time limit",
                ErrorKind::Memory => "memory limit",
                ErrorKind::OutputTooLong => "output cut",
                ErrorKind::Crashed => "calculator failure",
            };
            text.push_str(&format!("[{label}] {}", e.message));
        }
        text
    }
}
