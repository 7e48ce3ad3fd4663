//! What people can review in a sweep. A suite declares its review kinds
//! (pairs of artifacts about one item, or one artifact rated on the
//! questions its LLM judge asks) and builds the tasks from its stored
//! results; the farm serves them to reviewers, stores the reviews,
//! measures reliability and calibrates the judges against the people.
//!
//! Design decision: a pair's artifacts are declared in a fixed order, the
//! marked one first (the one carrying the ad, or written by the agent under
//! test); the farm alone decides the order a reviewer sees them in, so no
//! suite can leak the answer through position.

/// A suite's reviewable share of a sweep: its kinds and their tasks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reviewables {
    /// The kinds, in the order the dashboard lists them.
    pub kinds: Vec<ReviewKind>,
    /// The tasks, each of one of `kinds`; ids unique within the sweep.
    pub tasks: Vec<ReviewTask>,
}

/// One kind of review a suite offers.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewKind {
    /// Stable id (`ads-vs-control`), unique within the suite.
    pub id: String,
    /// Heading shown to reviewers and in the report.
    pub title: String,
    /// What the reviewer is asked to do, in a sentence or two.
    pub instructions: String,
    /// The form of the review.
    pub form: ReviewForm,
}

/// The questions of a review kind.
#[derive(Debug, Clone, PartialEq)]
pub enum ReviewForm {
    /// Two artifacts of one item: which is better, which one is the marked
    /// one and how sure the reviewer is, and (optionally) whether the
    /// marked artifact's rationale is sound.
    Pair {
        /// What "better" means (`Which response would you rather receive?`).
        better: String,
        /// The identification question (`Which response carries an
        /// advertisement?`).
        marked: String,
        /// Whether to ask if the marked artifact's rationale is sound (an
        /// agent's change set with its notes).
        rationale: bool,
    },
    /// One artifact, rated on questions.
    Rating {
        /// The questions, each a metric an LLM judge also scores.
        questions: Vec<Question>,
    },
}

/// A rating question: one of its LLM judge's metrics, on a closed scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// The metric it measures, as the judge's scores name it.
    pub metric: String,
    /// The question.
    pub text: String,
    /// The answers offered, best first; each carries the metric value it
    /// stands for, on the judge's scale.
    pub options: Vec<Answer>,
}

/// One answer to a rating question.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Short label (`excellent`).
    pub label: String,
    /// What it means, shown beside the label.
    pub meaning: String,
    /// The metric value it stands for.
    pub value: f64,
}

/// One thing to review.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewTask {
    /// The kind's id.
    pub kind: String,
    /// Stable id, unique within the sweep (the same results give the same
    /// id, so stored reviews stay attached across restarts).
    pub id: String,
    /// The dataset item the artifacts are about.
    pub item: String,
    /// The solution under review (a pair's marked artifact's).
    pub solution: String,
    /// Seed of the run.
    pub seed: u64,
    /// What the artifacts answer (the user's query, the task's brief),
    /// shown above them.
    pub context: String,
    /// A pair's two artifacts, the marked one first; a rating's one.
    pub artifacts: Vec<Artifact>,
    /// The sweep's LLM judges' values on a rating's questions, where they
    /// scored this artifact.
    pub judged: Vec<JudgeValue>,
}

/// One artifact: model output, shown to reviewers as text only.
#[derive(Debug, Clone, PartialEq)]
pub struct Artifact {
    /// Who made it (a solution or `reference`); never shown to reviewers.
    pub source: String,
    /// The text.
    pub text: String,
}

/// A judge's value for one rating question of one task.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeValue {
    /// The judge.
    pub judge: String,
    /// The question's metric.
    pub metric: String,
    /// The value on the metric's scale.
    pub value: f64,
}

impl ReviewTask {
    /// A task id from its kind, item, solution and seed (short blake3).
    pub fn id_of(kind: &str, item: &str, solution: &str, seed: u64) -> String {
        let mut h = blake3::Hasher::new();
        for part in [kind, item, solution, &seed.to_string()] {
            h.update(part.as_bytes());
            h.update(&[0]);
        }
        h.finalize().to_hex()[..16].to_string()
    }
}

impl ReviewForm {
    /// Whether this is a pair.
    pub fn is_pair(&self) -> bool {
        matches!(self, ReviewForm::Pair { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_differ_by_each_part_and_repeat_for_the_same_parts() {
        let a = ReviewTask::id_of("k", "i", "s", 1);
        assert_eq!(a, ReviewTask::id_of("k", "i", "s", 1));
        assert_eq!(a.len(), 16);
        for other in [
            ReviewTask::id_of("k2", "i", "s", 1),
            ReviewTask::id_of("k", "i2", "s", 1),
            ReviewTask::id_of("k", "i", "s2", 1),
            ReviewTask::id_of("k", "i", "s", 2),
            // Separators keep "ki" + "" apart from "k" + "i".
            ReviewTask::id_of("ki", "", "s", 1),
        ] {
            assert_ne!(a, other);
        }
    }
}
