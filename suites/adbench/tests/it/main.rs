//! AD-Bench's integration tests, one binary:
//! - `world`: the simulated platform's invariants;
//! - `tools`: the tools as an agent sees them;
//! - `tasks`: the shipped tasks and their replays (golden answers in
//!   `tests/golden/`);
//! - `folder`: tasks a user writes, loaded through `tasks_dir` and checked;
//! - `scoring`: answer grading, Pass@k, coverage and failure labels;
//! - `grader`: the answer grader on hand-written answers to shipped tasks;
//! - `paths`: steps judged by the data obtained, not the literal call;
//! - `agent`: the agent loop against canned model replies;
//! - `scripted`: the oracle and the mutants on every public task;
//! - `suite`: AD-Bench as an AdFarm suite, solve to report.
//!
//! Agents' calculator code runs in the crate's `adbench-calculator` bin,
//! the same child entry `adfarm adbench calculator` serves.

mod agent;
mod folder;
mod grader;
mod paths;
mod scoring;
mod scripted;
mod suite;
mod tasks;
mod tools;
mod world;

use std::path::Path;

use adfarm_adbench::replay::calculator_tool::{Backend, CalculatorTool};
use adfarm_adbench::replay::{reference_platform, replay, Replay};
use adfarm_adbench::tasks::{check::check, parse, reference_day, Split, Task};
use adfarm_adbench::tools::{Config, Platform};
use adfarm_adbench::world::{Day, World, DEFAULT_HOUR};
use adfarm_calculator::Calculator;
use adfarm_proto::{Role, Usage, UsageSource};

/// A calculator whose children are this crate's `adbench-calculator` bin.
pub fn calculator() -> Calculator {
    Calculator::new(
        env!("CARGO_BIN_EXE_adbench-calculator"),
        Vec::<String>::new(),
    )
}

/// A model call's usage with no tokens, as a fake provider reports it.
pub fn no_tokens(model: &str, role: Role) -> Usage {
    Usage {
        model: model.into(),
        role,
        input: 0,
        output: 0,
        cached: false,
        source: UsageSource::Counted,
        latency_ms: 0,
    }
}

/// The platform of world `seed` on `day`, with the calculator in its child.
pub fn child_platform(seed: u64, day: Day) -> Platform {
    let world = World::new(seed, day, DEFAULT_HOUR).expect("world");
    Platform::new(world, Config::default())
        .with_tool(Box::new(CalculatorTool::new(Backend::Child(calculator()))))
}

/// A hand-written task, checked, with its reference replayed on D0 of the
/// public world.
pub struct Fixture {
    /// The task.
    pub task: Task,
    /// The platform on D0.
    pub platform: Platform,
    /// The task's reference, replayed there.
    pub reference: Replay,
}

impl Fixture {
    /// Parses and checks the task file `toml`, then replays it.
    pub fn of(toml: &str) -> Fixture {
        let task = parse(Path::new("task.toml"), toml, Split::Public).expect("parse");
        check(&task).expect("check");
        let platform = reference_platform(Split::Public.seed(), reference_day(), DEFAULT_HOUR)
            .expect("platform");
        let reference = replay(&task, &platform).expect("replay");
        Fixture {
            task,
            platform,
            reference,
        }
    }
}
