//! The checker: scores an episode from its trajectory alone, so the same
//! episode always gets the same scores, whoever ran it.

use crate::episode::Episode;
use adfarm_proto::{Score, Verdict};

/// 100 when the counter ended on the target, else 0.
pub const REACHED: &str = "reached";
/// Turns that called tools of which none could run.
pub const FORMAT_ERRORS: &str = "format-errors";
/// Model calls of the episode.
pub const TURNS: &str = "turns";

/// Whether the episode's counter ended on its target.
pub fn reached(e: &Episode) -> bool {
    e.counter == e.task.target
}

/// The scores of one episode: [`REACHED`], [`FORMAT_ERRORS`], [`TURNS`].
pub fn scores(e: &Episode) -> Vec<Score> {
    let score = |metric: &str, v: f64| Score {
        metric: metric.into(),
        verdict: Verdict::Score(v),
    };
    let format_errors = e.turns.iter().filter(|t| t.is_format_error()).count();
    vec![
        score(REACHED, if reached(e) { 100.0 } else { 0.0 }),
        score(FORMAT_ERRORS, format_errors as f64),
        score(TURNS, e.turns.len() as f64),
    ]
}

/// Whether a stored solve result says its episode reached the target.
pub fn reached_in(scores: &[Score]) -> bool {
    scores
        .iter()
        .any(|s| s.metric == REACHED && matches!(s.verdict, Verdict::Score(v) if v >= 100.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::episode::{Call, End, Turn};
    use crate::task::Task;

    fn episode(counter: i64, turns: Vec<Turn>) -> Episode {
        Episode {
            task: Task {
                start: 1,
                target: 4,
            },
            turns,
            end: End::Answered,
            counter,
        }
    }

    fn turn(values: &[Option<i64>]) -> Turn {
        Turn {
            text: String::new(),
            calls: values
                .iter()
                .map(|&value| Call {
                    tool: "add".into(),
                    arguments: "{}".into(),
                    value,
                    error: None,
                })
                .collect(),
        }
    }

    fn value(scores: &[Score], metric: &str) -> f64 {
        match scores
            .iter()
            .find(|s| s.metric == metric)
            .map(|s| &s.verdict)
        {
            Some(Verdict::Score(v)) => *v,
            other => panic!("{metric}: {other:?}"),
        }
    }

    #[test]
    fn reaching_the_target_scores_100_and_format_errors_are_counted() {
        let e = episode(
            4,
            vec![turn(&[None]), turn(&[Some(4)]), turn(&[]), turn(&[None])],
        );
        let s = scores(&e);
        assert_eq!(value(&s, REACHED), 100.0);
        assert_eq!(value(&s, FORMAT_ERRORS), 2.0);
        assert_eq!(value(&s, TURNS), 4.0);
        assert!(reached_in(&s));

        let missed = scores(&episode(5, vec![turn(&[Some(5)]), turn(&[])]));
        assert_eq!(value(&missed, REACHED), 0.0);
        assert_eq!(value(&missed, FORMAT_ERRORS), 0.0);
        assert!(!reached_in(&missed));
        assert!(!reached_in(&[]));
    }
}
