//! What the review court keeps on a sweep's shelves: reviewers, their
//! reviews, and the LLM judges' verdicts on the same pairs. Each record is
//! written once (a form sent twice keeps its first answer).
//!
//! Design decision: a reviewer is known by an id; the name typed at
//! invitation stays on the reviewer record and never enters a review or an
//! export, and the access token is kept only as its hash.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Shelf of [`Reviewer`]s, keyed by reviewer id.
pub const REVIEWERS: &str = "reviewers";
/// Shelf of [`Review`]s, keyed `<task>|<reviewer>`.
pub const REVIEWS: &str = "reviews";
/// Shelf of [`PairVerdict`]s, keyed `<task>|<judge>|<order>`.
pub const PAIR_VERDICTS: &str = "pair-verdicts";

/// Someone invited to review a sweep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reviewer {
    /// Id (`rv-` and 8 hex digits): what reviews and exports carry.
    pub id: String,
    /// Name given at invitation (shown on the dashboard only).
    pub name: String,
    /// blake3 of the access token, hex.
    pub token_hash: String,
    /// Whether the token opens the dashboard instead of a review queue.
    pub admin: bool,
    /// Unix seconds of the invitation.
    pub invited_unix: u64,
}

/// Which artifact of a pair an answer points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pick {
    /// The marked artifact (carries the ad, or the agent under test's).
    Marked,
    /// The other one (the control, the reference, the baseline).
    Other,
    /// Neither (only for "which is better").
    Tie,
}

impl Pick {
    /// Name in exports.
    pub fn as_str(self) -> &'static str {
        match self {
            Pick::Marked => "marked",
            Pick::Other => "other",
            Pick::Tie => "tie",
        }
    }
}

/// A reviewer's answers to one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "form", rename_all = "kebab-case")]
pub enum Answers {
    /// A pair's answers, in terms of the marked artifact (whatever order
    /// it was shown in).
    Pair {
        /// Which is better.
        better: Pick,
        /// Which the reviewer took for the marked one.
        guess: Pick,
        /// How sure of the guess, 50–100 (%).
        confidence: u8,
        /// Whether the marked artifact's rationale is sound, when asked.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rationale_sound: Option<bool>,
    },
    /// A rating: per question's metric, the chosen answer's value.
    Rating {
        /// Metric → value.
        values: BTreeMap<String, f64>,
    },
}

/// One stored review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Review {
    /// The task.
    pub task: String,
    /// The reviewer's id.
    pub reviewer: String,
    /// The order the artifacts were shown in, as indices into the task's
    /// artifacts (`[1, 0]`: the marked one second).
    pub shown: Vec<usize>,
    /// The answers.
    pub answers: Answers,
    /// Unix seconds it was stored.
    pub submitted_unix: u64,
}

/// An LLM judge's choice on a pair, asked in one order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairVerdict {
    /// The task.
    pub task: String,
    /// The judge (sweep provider name).
    pub judge: String,
    /// Whether the marked artifact was shown first.
    pub marked_first: bool,
    /// The judge's pick; `None` when its reply matched no option.
    pub pick: Option<Pick>,
}

impl Review {
    /// The shelf key of a review of `task` by `reviewer`.
    pub fn key(task: &str, reviewer: &str) -> String {
        format!("{task}|{reviewer}")
    }
}

impl PairVerdict {
    /// The shelf key of `judge`'s verdict on `task` in one order.
    pub fn key(task: &str, judge: &str, marked_first: bool) -> String {
        let order = if marked_first {
            "marked-first"
        } else {
            "other-first"
        };
        format!("{task}|{judge}|{order}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_tagged_by_form_in_json() {
        let pair = Answers::Pair {
            better: Pick::Tie,
            guess: Pick::Marked,
            confidence: 80,
            rationale_sound: None,
        };
        let json = serde_json::to_string(&pair).unwrap();
        assert_eq!(
            json,
            r#"{"form":"pair","better":"tie","guess":"marked","confidence":80}"#
        );
        assert_eq!(serde_json::from_str::<Answers>(&json).unwrap(), pair);
    }
}
