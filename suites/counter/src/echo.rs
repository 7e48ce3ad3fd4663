//! The `echo` solution: the do-nothing baseline. It answers with the task
//! itself at once, without a model call or a tool call, so the counter
//! stays at its start and the checker scores a miss. (Other suites have an
//! `echo` of their own; a sweep's `echo` entry runs each suite's.)

use crate::agent::solved;
use crate::episode::{End, Episode};
use crate::task::Task;
use adfarm_proto::Item;
use adfarm_suite::{JobError, Models, Solution, Solved};
use async_trait::async_trait;

/// Name of the solution.
pub const ECHO: &str = "echo";

/// The baseline that never acts.
pub struct Echo;

#[async_trait]
impl Solution for Echo {
    fn name(&self) -> &str {
        ECHO
    }

    async fn solve(
        &self,
        item: &Item,
        _models: Models<'_>,
        _seed: u64,
    ) -> Result<Solved, JobError> {
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
}
