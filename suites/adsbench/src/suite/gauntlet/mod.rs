//! The gauntlet: 60 graded tasks (planning, control, analysis × easy,
//! medium, hard) over every budget stratum, cold and warm starts, five
//! verticals and six objectives, with seasonality, promotions, stock
//! changes, entering competitors and injected faults. A task is a TOML
//! file under `tasks/gauntlet/`; it runs as one episode of the market
//! under an API agent and is graded on the end state, the KPIs, the
//! change set and, for analysis tasks, the diagnosis.
//!
//! - [`attack`]: a red-team task's `[attack]` section and its checks;
//! - [`task`]: the file's types (unknown keys refused), with its
//!   [`labels`] (modality, difficulty, vertical, objective, factors, causes)
//!   and its [`steps`] (events, predicates, diagnosis, oracle steps);
//! - [`facts`]: what follows from a task (stratum, calendar, the
//!   [`Scenario`](super::scenario::Scenario) it runs as);
//! - `check`, `check_steps`: the checks a parsed task passes; [`load`]: files, with
//!   every problem named `file:line: field: message`;
//! - [`scope`]: what the agent may change, and collateral damage;
//! - [`events`]: owner and platform events on the market;
//! - [`run`]: one task under one agent; [`grade`]: the verdict;
//! - [`report`]: the report's table of verdicts, task by agent;
//! - [`agents`]: the scripted oracle and the do-nothing baseline;
//! - [`dataset`]: the suite's `gauntlet` dataset;
//! - `shipped`: the task files built into the crate (written by
//!   `tasks/generate.py` with the files).
//!
//! Design decision: a task grades outcomes, not paths. Predicates read the
//! end state and the measured KPIs, and the scope names what may change,
//! so any valid path passes, and a path that reaches the state while
//! touching what it should not (a lucky but reckless one) fails on
//! collateral damage.

pub mod agents;
pub mod attack;
mod check;
mod check_steps;
pub mod dataset;
pub mod events;
pub mod facts;
pub mod grade;
pub mod labels;
pub mod load;
pub mod report;
pub mod run;
pub mod scope;
mod shipped;
pub mod steps;
pub mod task;

pub use agents::{DoNothingAgent, OracleAgent};
pub use dataset::DATASET;
pub use facts::Stratum;
pub use grade::{grade, TaskVerdict};
pub use load::{load_dir, parse, shipped, tasks_dir, LoadError};
pub use run::{run, Episode, RunError};
pub use task::Task;
