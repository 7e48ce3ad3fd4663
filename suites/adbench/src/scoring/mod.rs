//! Deterministic scoring of agent episodes against replayed references:
//! pure functions, no model calls.
//!
//! - `numbers`: numbers in free text; `mentions`: numbers as an answer
//!   writes them; `grade`: answers by spec, read as an analyst would;
//! - `passk`: Pass@1, Pass@k and pass^k over n runs;
//! - `episode`: what scoring reads of an episode;
//! - `trajectory`: coverage of the reference steps;
//! - `labels`: the multi-label failure taxonomy (TE, PE, IF, CE, Hal, LC);
//! - `agreement`: Cohen's κ between an LLM judge and these checks.

pub mod agreement;
pub mod episode;
pub mod grade;
pub mod labels;
pub mod mentions;
pub mod numbers;
pub mod passk;
pub mod trajectory;

use std::collections::BTreeSet;

pub use episode::Episode;
pub use grade::{grade, Context, Grade, Graded};
pub use labels::{labels, Label};
pub use trajectory::{coverage, Coverage};

use crate::replay::Replay;
use crate::tasks::Task;

/// One episode's score.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    /// The answer's grade by the rules.
    pub grade: Grade,
    /// The answer was ambiguous to the rules (the reference beside a
    /// conflicting candidate): an LLM grader may decide.
    pub ambiguous: bool,
    /// Reference steps matched.
    pub coverage: Coverage,
    /// Failure labels; empty for a clean run.
    pub labels: BTreeSet<Label>,
}

impl Score {
    /// Covered as the paper counts a sample: the whole reference
    /// trajectory reproduced with no tool (TE), parameter (PE) or
    /// instruction-following (IF) error.
    pub fn covered(&self) -> bool {
        self.coverage.complete()
            && ![Label::TE, Label::PE, Label::IF]
                .iter()
                .any(|l| self.labels.contains(l))
    }
}

/// Scores `episode` on `task` against its reference replayed on the same date.
pub fn score(task: &Task, reference: &Replay, episode: &Episode) -> Score {
    // The user's ids as the reference's and the agent's account lists showed them.
    let context = Context::of(
        &task.question,
        reference.observations.iter().chain(&episode.observations),
    );
    let g = grade(
        task.answer.as_ref(),
        reference.answer.as_ref(),
        task.outcome,
        episode.outcome,
        &episode.final_text,
        &context,
    );
    let c = coverage(task, reference, episode);
    let l = labels(task, episode, &c, g.grade);
    Score {
        grade: g.grade,
        ambiguous: g.ambiguous,
        coverage: c,
        labels: l,
    }
}
