//! The review court: people review a sweep's artifacts in the browser,
//! blind, and the farm measures how far they agree and how far the
//! sweep's LLM judges agree with them.
//!
//! - `court`: [`Court`], the tasks a sweep's suites declare
//!   (`Suite::reviews`) over its stored results;
//! - `records`: reviewers, reviews and judges' pair verdicts on the
//!   store's write-once shelves ([`invite`], [`reviews`], [`file`]);
//! - `assign`: who reviews what (two per task, a third on a dispute);
//! - `reliability`: κ per reviewer pair, α, disputes, identification and
//!   win rates;
//! - `calibrate`: each judge against the people, position and length
//!   reported;
//! - `judge`: asks the sweep's judges for their pick on each pair, in both
//!   orders;
//! - `section`: the report's review section; `export`: every review as CSV
//!   or JSON;
//! - `web`: the pages reviewers and the admin use.
//!
//! Design decision: nothing is kept in the server but short-lived claims on
//! shown tasks; reviewers and reviews live on the sweep's store (redb or
//! Redis), so a round survives a restart and runs beside a distributed
//! deployment. Nothing here names a suite.

mod assign;
mod calibrate;
mod court;
mod export;
mod judge;
mod records;
mod reliability;
mod section;
pub mod web;

pub use assign::{agree, disputed, needed, open_tasks, Claims, CLAIM};
pub use calibrate::{calibrate, cancelled, Calibration, Standing, MIN_TASKS, WITHIN_POINTS};
pub use court::{Court, CourtKind, CourtTask};
pub use export::{export, ExportFormat};
pub use judge::{ask_judges, JUDGE_OPTIONS};
pub use records::{
    file, file_verdict, holder, invite, pair_verdicts, reviewers, reviews, token_hash, Invitation,
};
pub use reliability::{reliability, Dispute, Kappa, Reliability, WinRate, IDENTIFIED_ABOVE};
pub use section::sections;

use adfarm_backbone::StoreError;

/// Why a review command or page failed.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A stored record could not be read.
    #[error("review record {key} is corrupt: {reason}")]
    Corrupt {
        /// Shelf and key.
        key: String,
        /// Decoding error.
        reason: String,
    },
    /// A suite of the sweep is not served by this binary, or could not
    /// build its tasks.
    #[error("review tasks: {0}")]
    Suites(#[from] crate::report::ReportError),
    /// A suite declared something the court cannot serve.
    #[error("suite {suite} declares review tasks the court cannot serve: {reason}")]
    Declared {
        /// Suite.
        suite: String,
        /// What is wrong.
        reason: String,
    },
    /// The operating system gave no randomness for a token.
    #[error("no randomness for a token: {0}")]
    Random(String),
    /// Bad input from the command line.
    #[error("{0}")]
    Input(String),
    /// A judge could not be asked.
    #[error("judge {judge}: {reason}")]
    Judge {
        /// Judge.
        judge: String,
        /// What failed.
        reason: String,
    },
}

impl ReviewError {
    /// Bounded error code, usable as a metric label.
    pub fn code(&self) -> &'static str {
        match self {
            ReviewError::Store(e) => e.code(),
            ReviewError::Corrupt { .. } => "review-corrupt",
            ReviewError::Suites(e) => e.code(),
            ReviewError::Declared { .. } => "review-declared",
            ReviewError::Random(_) => "review-random",
            ReviewError::Input(_) => "review-input",
            ReviewError::Judge { .. } => "review-judge",
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! Courts and reviews built by hand for the module's tests.

    use super::*;
    use adfarm_backbone::SweepRecord;
    use adfarm_proto::review::{Answers, Pick, Review};
    use adfarm_proto::{SweepId, SweepSpec};
    use adfarm_suites::{
        Answer, Artifact, JudgeValue, Question, ReviewForm, ReviewKind, ReviewTask, Reviewables,
    };
    use std::collections::BTreeMap;

    pub(crate) fn record() -> SweepRecord {
        let spec: SweepSpec = serde_json::from_value(serde_json::json!({
            "name": "court-test", "seeds": [1], "suites": [], "solutions": [], "providers": []
        }))
        .expect("a minimal sweep spec");
        SweepRecord {
            id: SweepId("court-test".into()),
            spec,
            planned: BTreeMap::new(),
            pipelines: BTreeMap::new(),
            estimated_cost_usd: 0.0,
            created_unix: 0,
            epoch: String::new(),
            benchmarks: BTreeMap::new(),
            adfarm: String::new(),
        }
    }

    /// A court of one suite, `suite`, declaring `kind` and `tasks`.
    fn court_of(kind: ReviewKind, tasks: Vec<ReviewTask>) -> Result<Court, ReviewError> {
        Court::new(
            record(),
            vec![(
                "suite".into(),
                Reviewables {
                    kinds: vec![kind],
                    tasks,
                },
            )],
        )
    }

    fn pair_kind() -> ReviewKind {
        ReviewKind {
            id: "pair".into(),
            title: "Pairs".into(),
            instructions: "Compare.".into(),
            form: ReviewForm::Pair {
                better: "Which is better?".into(),
                marked: "Which is marked?".into(),
                rationale: false,
            },
        }
    }

    /// `n` pair tasks of one suite, item `i<k>`, solution `s`.
    pub(crate) fn court_of_pairs(n: usize) -> Court {
        let tasks = (0..n)
            .map(|i| ReviewTask {
                kind: "pair".into(),
                id: ReviewTask::id_of("pair", &format!("i{i}"), "s", 1),
                item: format!("i{i}"),
                solution: "s".into(),
                seed: 1,
                context: format!("question {i}"),
                artifacts: vec![
                    Artifact {
                        source: "s".into(),
                        text: format!("marked answer {i}, a little longer"),
                    },
                    Artifact {
                        source: "control".into(),
                        text: format!("other answer {i}"),
                    },
                ],
                judged: Vec::new(),
            })
            .collect();
        court_of(pair_kind(), tasks).expect("a valid court")
    }

    /// `n` rating tasks on one question (scale 90/60/30/0), judged by
    /// `judge` at `value` each.
    pub(crate) fn court_of_ratings(n: usize, judge: &str, value: f64) -> Court {
        let options = [
            (90.0, "excellent"),
            (60.0, "good"),
            (30.0, "fair"),
            (0.0, "poor"),
        ]
        .into_iter()
        .map(|(v, l)| Answer {
            label: l.into(),
            meaning: format!("{l} answer"),
            value: v,
        })
        .collect();
        let kind = ReviewKind {
            id: "rate".into(),
            title: "Ratings".into(),
            instructions: "Rate.".into(),
            form: ReviewForm::Rating {
                questions: vec![Question {
                    metric: "quality".into(),
                    text: "How good is it?".into(),
                    options,
                }],
            },
        };
        let tasks = (0..n)
            .map(|i| ReviewTask {
                kind: "rate".into(),
                id: ReviewTask::id_of("rate", &format!("i{i}"), "s", 1),
                item: format!("i{i}"),
                solution: "s".into(),
                seed: 1,
                context: format!("question {i}"),
                artifacts: vec![Artifact {
                    source: "s".into(),
                    text: "x".repeat(i + 1),
                }],
                judged: vec![JudgeValue {
                    judge: judge.into(),
                    metric: "quality".into(),
                    value,
                }],
            })
            .collect();
        court_of(kind, tasks).expect("a valid court")
    }

    pub(crate) fn pair_review(task: &str, reviewer: &str, better: Pick, at: u64) -> Review {
        Review {
            task: task.into(),
            reviewer: reviewer.into(),
            shown: vec![0, 1],
            answers: Answers::Pair {
                better,
                guess: Pick::Marked,
                confidence: 70,
                rationale_sound: None,
            },
            submitted_unix: at,
        }
    }

    pub(crate) fn pair_review_guess(
        task: &str,
        reviewer: &str,
        guess: Pick,
        confidence: u8,
    ) -> Review {
        Review {
            answers: Answers::Pair {
                better: Pick::Tie,
                guess,
                confidence,
                rationale_sound: None,
            },
            ..pair_review(task, reviewer, Pick::Tie, 1)
        }
    }

    pub(crate) fn rating_review(task: &str, reviewer: &str, value: f64) -> Review {
        Review {
            task: task.into(),
            reviewer: reviewer.into(),
            shown: vec![0],
            answers: Answers::Rating {
                values: [("quality".to_string(), value)].into(),
            },
            submitted_unix: 1,
        }
    }

    /// 32 pairs reviewed by r1 and r2, the 14 they dispute by r3, and one
    /// judge asked in both orders. Per task: r1's, r2's and r3's pick of
    /// the better artifact (`-`: not reviewed), then the judge's pick with
    /// the marked artifact first and second (M marked, O other, T tie).
    const FIXTURE: [&str; 32] = [
        "MM-MO", "OO-OO", "TOOTT", "MM-MM", "TT-TT", "MTOMM", "MM-MM", "TOMOO", "OO-OM", "OO-OO",
        "OO-OM", "OTMOM", "MOOMM", "MOOMM", "OO-OM", "OTOOO", "MM-MO", "OTOOO", "OO-OO", "MTOMM",
        "TOOMO", "TT-TT", "OO-OM", "MM-MM", "OO-MM", "OO-OO", "TT-TT", "OTMOO", "MTMMM", "MTOMM",
        "MM-OM", "MTMMM",
    ];

    fn pick(c: char) -> Pick {
        match c {
            'M' => Pick::Marked,
            'O' => Pick::Other,
            _ => Pick::Tie,
        }
    }

    /// The expected figures were computed apart from this code: κ and the
    /// agreement by direct counting, α with the `krippendorff` package
    /// (PyPI, 0.8.1, nominal), the calibration by hand-written majority,
    /// order cancelling and win scores, all in Python over the same table.
    #[test]
    fn a_fixture_of_thirty_two_pairs_matches_an_independent_computation() {
        use adfarm_proto::review::PairVerdict;
        let court = court_of_pairs(FIXTURE.len());
        let mut reviews = Vec::new();
        let mut verdicts = Vec::new();
        for (i, (t, row)) in court.tasks.iter().zip(FIXTURE).enumerate() {
            let c: Vec<char> = row.chars().collect();
            let id = &t.task.id;
            let (r1_guess, r1_conf) = if i % 4 != 0 {
                (Pick::Marked, 90)
            } else {
                (Pick::Other, 60)
            };
            let r2_conf = if i % 2 == 0 { 55 } else { 80 };
            for (who, at, better, guess, confidence) in [
                ("r1", 1, c[0], r1_guess, r1_conf),
                ("r2", 2, c[1], Pick::Marked, r2_conf),
                ("r3", 3, c[2], Pick::Marked, 100),
            ] {
                if better == '-' {
                    continue;
                }
                reviews.push(Review {
                    answers: Answers::Pair {
                        better: pick(better),
                        guess,
                        confidence,
                        rationale_sound: None,
                    },
                    ..pair_review(id, who, Pick::Tie, at)
                });
            }
            for (marked_first, p) in [(true, c[3]), (false, c[4])] {
                verdicts.push(PairVerdict {
                    task: id.clone(),
                    judge: "j".into(),
                    marked_first,
                    pick: Some(pick(p)),
                });
            }
        }
        let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-9);
        let r = &reliability(&court, &reviews)[0];
        assert_eq!((r.tasks, r.reviews, r.double), (32, 78, 32));
        let kappa = |a: &str, b: &str| {
            let k = r.kappas.iter().find(|k| k.a == a && k.b == b).unwrap();
            (k.shared, k.kappa)
        };
        assert_eq!(kappa("r1", "r2").0, 32);
        assert!(close(kappa("r1", "r2").1, 0.35260115606936415));
        assert_eq!(kappa("r1", "r3").0, 14);
        assert!(close(kappa("r1", "r3").1, -0.12));
        assert!(close(kappa("r2", "r3").1, 0.07284768211920527));
        assert!(close(r.alpha[0].1, 0.3266460905349794), "{:?}", r.alpha);
        assert!(close(r.agreement, 26.0 / 60.0));
        assert_eq!(r.disputes.len(), 14);
        assert!(r.disputes.iter().all(|d| d.resolved));
        // Identified: r1 on the 24 tasks with i % 4 ≠ 0 (90%), r2 on the 16
        // odd ones (80%; 55% is not above 55), r3 on all 14 (100%).
        assert_eq!(r.identified.unwrap().successes, 24 + 16 + 14);
        assert_eq!(r.guessed.unwrap().successes, 24 + 32 + 14);
        assert_eq!(r.identified.unwrap().n, 78);

        let c = &calibrate(&court, &reviews, &verdicts)[0];
        assert_eq!(c.tasks, 26);
        assert!(close(c.judge_figure, 53.84615384615385));
        assert!(close(c.human_figure, 36.53846153846154));
        assert!(close(c.gap, 17.307692307692307));
        assert!(close(c.agreement, 0.5384615384615384));
        assert!(close(c.position_flips, 0.3076923076923077));
        assert_eq!(c.standing, Standing::NotCalibrated);
    }

    #[test]
    fn a_court_refuses_tasks_it_cannot_serve() {
        let bad = |tasks: Vec<ReviewTask>| {
            court_of(pair_kind(), tasks)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        let good = court_of_pairs(1).tasks[0].task.clone();
        let one_artifact = ReviewTask {
            artifacts: good.artifacts[..1].to_vec(),
            ..good.clone()
        };
        assert!(bad(vec![one_artifact]).contains("has 1 artifacts; a pair has 2"));
        assert!(bad(vec![good.clone(), good.clone()]).contains("twice"));
        let unknown = ReviewTask {
            kind: "nope".into(),
            ..good
        };
        assert!(bad(vec![unknown]).contains("undeclared kind"));
    }
}
