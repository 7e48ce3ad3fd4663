//! The calculator's integration tests, one binary:
//! - `cpython`: agent-style snippets print byte for byte what CPython 3.11
//!   prints, run through the child process;
//! - `language`: the subset's edges, interpreted in process: refusals,
//!   catchable exceptions, error lines;
//! - `sandbox`: the child process's limits and failures end to end.

mod cpython;
mod language;
mod sandbox;

use adfarm_calculator::{Calculator, Request};

/// A calculator whose children are this crate's `calculator-child` bin.
pub fn calculator() -> Calculator {
    Calculator::new(env!("CARGO_BIN_EXE_calculator-child"), Vec::<String>::new())
}

/// `code` with no variables bound.
pub fn snippet(code: &str) -> Request {
    Request {
        code: code.to_string(),
        variables: Vec::new(),
    }
}
