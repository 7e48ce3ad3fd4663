//! The `echo` solution: the do-nothing baseline. It answers with the task
//! itself at once, without a model call or a tool call, so the counter
//! stays at its start and the checker scores a miss. (Other suites have an
//! `echo` of their own; a sweep's `echo` entry runs each suite's.)

use crate::agent::solved;
use crate::episode::{End, Episode};
use crate::task::Task;
use adfarm_proto::Item;
use adfarm_suite::{JobError, Scripted, Solved};

/// Name of the solution.
pub const ECHO: &str = "echo";

/// The baseline that never acts.
pub const SOLUTION: Scripted = Scripted::new(ECHO, answer);

/// The episode that ends at once with the counter at its start, answered
/// with the task's text.
///
/// # Errors
/// An item that is not a counter task.
pub fn answer(item: &Item) -> Result<Solved, JobError> {
    let task = Task::of(item)?;
    let mut out = solved(&Episode {
        task,
        turns: Vec::new(),
        end: End::Answered,
        counter: task.start,
    });
    out.output.text.clone_from(&item.input);
    Ok(out)
}
