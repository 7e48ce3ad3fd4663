//! AD-Bench's `calculator` tool: agents send Python snippets; a sandboxed
//! interpreter runs them in a child process and returns what they print.
//!
//! The one decision to know: snippets are interpreted by this crate's own
//! evaluator, never by a Python, and always in a child process that limits
//! itself. The evaluator has no file, network, process or clock access by
//! construction, formats numbers as CPython does, and names every
//! construct it refuses; the child adds OS limits on memory and CPU, and
//! the parent (`Calculator`) adds the wall clock. A runaway or hostile
//! snippet thus costs one killed child, never the worker that asked.
//!
//! Why a purpose-built interpreter rather than a candidate engine:
//! - `starlark` would need a Python re-lexing front anyway: its lexer
//!   reserves `while`/`try`/`is`/`import`, its f-strings and `%`/`format`
//!   take no precision specs (`f"{x:.2f}"` is the most common agent
//!   idiom), it has no generator arguments (`sum(x for x in rows)`), and
//!   its errors would name rewritten code rather than the agent's.
//! - `rustpython` is a whole Python VM whose builtins (`open`, `__import__`)
//!   and stdlib would have to be cut away to sandbox it, a very heavy build.
//! - `monty` needs Rust 1.96; this workspace is pinned to 1.95.
//!
//! Modules, front to back:
//! - `protocol`: the request, the reply and the JSON lines between parent
//!   and child;
//! - `runner`: the parent side, `Calculator`: spawns the child with an
//!   empty environment, enforces the wall clock, classifies how it died;
//! - `child`: the child side, `run_stdio`: limits itself, reads the
//!   request, interprets it on a big-stack thread, streams what it prints;
//!   `evaluate` runs the same interpretation in process;
//! - `lexer`, `parser`, `ast`: Python source to a syntax tree; the parser
//!   refuses by name what the subset leaves out;
//! - `interp`: the tree-walking evaluator (statements, scopes, calls,
//!   exceptions); `error`: Python exceptions versus faults that end a run;
//! - `value`, `ops`: runtime values and Python's operators on them;
//!   `bigint`: ints past 64 bits, capped at CPython's 4300 printable digits;
//!   `setorder`: CPython's iteration order for sets of ints;
//! - `builtins`, `methods`, `modules`: builtin functions, str/list/dict/set
//!   methods, and the importable `math` and `statistics`; `fraction` and
//!   `normaldist` serve `statistics` exactly as CPython computes it;
//! - `format`: CPython's float repr, format specs and `%` formatting;
//! - `json`: earlier tool results (JSON text) as values, keys in order.
//!
//! Snippets longer than [`CODE_CHARS`] are refused before they are
//! parsed or sent to a child, in process and through the runner alike.
//!
//! Refused by name: `class`, `with`, `yield`, `async`, `nonlocal`, `:=`,
//! decorators, attribute assignment, imports other than math/statistics,
//! and builtins such as `open`, `eval`, `__import__`, `input`.
//!
//! Deliberate differences from CPython:
//! - ints past 4300 digits are an `OverflowError` (CPython cannot print
//!   them either);
//! - generator expressions and `zip`/`map`/`filter`/`enumerate`/`reversed`
//!   compute their items eagerly (still one-pass iterators, so `next()`
//!   and re-iteration behave);
//! - sets of strings iterate in insertion order (CPython's order for them
//!   changes per process); sets of ints follow CPython's hash-table order;
//! - iterators print without an address;
//! - `exp`, `log`, `sin`, `cbrt`... come from the platform's libm and
//!   `erf`/`erfc` from fdlibm, so they can differ from a given CPython
//!   build in the last digit.

mod ast;
mod bigint;
mod builtins;
mod child;
mod error;
mod format;
mod fraction;
mod interp;
mod json;
mod lexer;
mod methods;
mod modules;
mod normaldist;
mod ops;
mod parser;
mod protocol;
mod runner;
mod setorder;
mod value;

pub use child::{evaluate, run_stdio};
pub use protocol::{ErrorKind, Reply, Request, RunError};
pub use runner::Calculator;

/// Address space of the child process.
pub const MEMORY_BYTES: u64 = 256 << 20;
/// CPU seconds of the child process.
pub const CPU_SECONDS: u64 = 2;
/// Wall-clock seconds before the runner kills the child.
pub const WALL_SECONDS: u64 = 5;
/// Longest snippet run, in characters: a longer one is refused unrun.
pub const CODE_CHARS: usize = 4000;
/// Printed output kept per run.
pub const OUTPUT_LIMIT: usize = 16 * 1024;
