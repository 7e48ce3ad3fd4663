//! Deterministic scoring of agent episodes against replayed references:
//! pure functions, no model calls.
//!
//! - `numbers`: numbers in free text; `grade`: answers by spec;
//! - `passk`: Pass@1, Pass@k and pass^k over n runs;
//! - `episode`: what scoring reads of an episode;
//! - `trajectory`: coverage of the reference steps;
//! - `labels`: the multi-label failure taxonomy (TE, PE, IF, CE, Hal, LC);
//! - `agreement`: Cohen's κ between an LLM judge and these checks.

pub mod agreement;
pub mod episode;
pub mod grade;
pub mod labels;
pub mod numbers;
pub mod passk;
pub mod trajectory;

use std::collections::BTreeSet;

pub use episode::Episode;
pub use grade::{grade, Grade};
pub use labels::{labels, Label};
pub use trajectory::{coverage, Coverage};

use crate::replay::Replay;
use crate::tasks::Task;

/// One episode's score.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    /// The answer's grade.
    pub grade: Grade,
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
    let g = grade(
        task.answer.as_ref(),
        reference.answer.as_ref(),
        task.outcome,
        episode.outcome,
        &episode.final_text,
    );
    let c = coverage(task, reference, episode);
    let l = labels(task, episode, &c, g);
    Score {
        grade: g,
        coverage: c,
        labels: l,
    }
}
