//! Every review of a sweep with its task's coordinates, the order the
//! reviewer saw, and the reviewer's id (never their name), as CSV (one
//! line per answer) or JSON (one object per review).

use super::court::Court;
use adfarm_proto::review::{Answers, Review};
use serde::Serialize;

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// One line per answer.
    Csv,
    /// One object per review.
    Json,
}

/// One exported review.
#[derive(Debug, Serialize)]
struct Row<'a> {
    task: &'a str,
    suite: &'a str,
    kind: &'a str,
    item: &'a str,
    solution: &'a str,
    seed: u64,
    reviewer: &'a str,
    /// Sources of the artifacts in the order shown.
    shown: Vec<&'a str>,
    answers: &'a Answers,
    submitted_unix: u64,
}

fn rows<'a>(court: &'a Court, reviews: &'a [Review]) -> Vec<Row<'a>> {
    reviews
        .iter()
        .filter_map(|r| {
            let t = court.task(&r.task)?;
            Some(Row {
                task: &r.task,
                suite: &t.suite,
                kind: &t.task.kind,
                item: &t.task.item,
                solution: &t.task.solution,
                seed: t.task.seed,
                reviewer: &r.reviewer,
                shown: r
                    .shown
                    .iter()
                    .filter_map(|&i| t.task.artifacts.get(i).map(|a| a.source.as_str()))
                    .collect(),
                answers: &r.answers,
                submitted_unix: r.submitted_unix,
            })
        })
        .collect()
}

/// The court's reviews in `format`. Reviews of tasks the sweep no longer
/// declares (results removed since) are left out.
pub fn export(court: &Court, reviews: &[Review], format: ExportFormat) -> String {
    let rows = rows(court, reviews);
    match format {
        ExportFormat::Json => serde_json::to_string_pretty(&rows).expect("reviews serialise"),
        ExportFormat::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            let header = [
                "task",
                "suite",
                "kind",
                "item",
                "solution",
                "seed",
                "reviewer",
                "shown",
                "question",
                "answer",
                "confidence",
                "submitted_unix",
            ];
            w.write_record(header).expect("writes to memory");
            for r in &rows {
                let base = [
                    r.task.to_string(),
                    r.suite.to_string(),
                    r.kind.to_string(),
                    r.item.to_string(),
                    r.solution.to_string(),
                    r.seed.to_string(),
                    r.reviewer.to_string(),
                    r.shown.join(" "),
                ];
                let mut answer = |q: &str, a: String, c: String| {
                    let mut rec: Vec<String> = base.to_vec();
                    rec.extend([q.to_string(), a, c, r.submitted_unix.to_string()]);
                    w.write_record(&rec).expect("writes to memory");
                };
                match r.answers {
                    Answers::Pair {
                        better,
                        guess,
                        confidence,
                        rationale_sound,
                    } => {
                        answer("better", better.as_str().into(), String::new());
                        answer("marked", guess.as_str().into(), confidence.to_string());
                        if let Some(s) = rationale_sound {
                            answer("rationale-sound", s.to_string(), String::new());
                        }
                    }
                    Answers::Rating { values } => {
                        for (m, v) in values {
                            answer(m, v.to_string(), String::new());
                        }
                    }
                }
            }
            String::from_utf8(w.into_inner().expect("writes to memory")).expect("CSV of UTF-8")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::tests::{court_of_pairs, pair_review};
    use adfarm_proto::review::Pick;

    #[test]
    fn csv_has_a_line_per_answer_with_the_order_shown() {
        let court = court_of_pairs(1);
        let mut r = pair_review(&court.tasks[0].task.id, "rv-1", Pick::Other, 7);
        r.shown = vec![1, 0];
        let csv = export(&court, &[r.clone()], ExportFormat::Csv);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3, "{csv}");
        assert!(
            lines[1].ends_with(",rv-1,control s,better,other,,7"),
            "{csv}"
        );
        assert!(
            lines[2].ends_with(",rv-1,control s,marked,marked,70,7"),
            "{csv}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&export(&court, &[r], ExportFormat::Json)).unwrap();
        assert_eq!(json[0]["shown"], serde_json::json!(["control", "s"]));
        assert_eq!(json[0]["answers"]["better"], "other");
        assert_eq!(json[0]["reviewer"], "rv-1");
    }
}
