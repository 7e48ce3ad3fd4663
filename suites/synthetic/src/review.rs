//! What people can review in a synthetic sweep: each model-written answer
//! against the `echo` entry's (the prompt repeated) on the same item and
//! seed, so a review round can be tried end to end without a dataset.

use crate::question;
use adfarm_proto::SOLVE;
use adfarm_suite::{Artifact, ReportInput, ReviewForm, ReviewKind, ReviewTask, Reviewables};
use std::collections::BTreeMap;

/// The pair kind's id.
pub const VERSUS_ECHO: &str = "answer-vs-echo";

/// Pairs of every non-echo entry's answer with the echo entry's, per item
/// and seed where both are stored; none without an `echo` entry.
pub fn reviewables(input: &ReportInput<'_>) -> Reviewables {
    let echo_labels: Vec<String> = input
        .spec
        .solutions
        .iter()
        .filter(|s| s.name == "echo")
        .map(|s| s.label().to_string())
        .collect();
    let Some(echo) = echo_labels.first() else {
        return Reviewables::default();
    };
    // (item, seed) → solution label → answer
    let mut answers: BTreeMap<(&str, u64), BTreeMap<&str, &str>> = BTreeMap::new();
    for r in input.results.iter().filter(|r| r.stage == SOLVE) {
        if let (Some(item), Some(out)) = (input.item_of(r), &r.output) {
            answers
                .entry((item, r.cell.seed))
                .or_default()
                .insert(r.cell.solution.as_str(), out.text.as_str());
        }
    }
    let mut tasks = Vec::new();
    for ((item, seed), by_label) in &answers {
        let Some(control) = by_label.get(echo.as_str()) else {
            continue;
        };
        for (label, text) in by_label {
            if echo_labels.iter().any(|e| e == label) {
                continue;
            }
            tasks.push(ReviewTask {
                kind: VERSUS_ECHO.into(),
                id: ReviewTask::id_of(VERSUS_ECHO, item, label, *seed),
                item: item.to_string(),
                solution: label.to_string(),
                seed: *seed,
                context: item
                    .parse::<u64>()
                    .map_or_else(|_| item.to_string(), question),
                artifacts: vec![
                    Artifact {
                        source: label.to_string(),
                        text: text.to_string(),
                    },
                    Artifact {
                        source: echo.clone(),
                        text: control.to_string(),
                    },
                ],
                judged: Vec::new(),
            });
        }
    }
    if tasks.is_empty() {
        return Reviewables::default();
    }
    Reviewables {
        kinds: vec![ReviewKind {
            id: VERSUS_ECHO.into(),
            title: "A model's answer against the question repeated".into(),
            instructions: "Read the question and both answers.".into(),
            form: ReviewForm::Pair {
                better: "Which answer is better?".into(),
                marked: "Which answer did the model write?".into(),
                rationale: false,
            },
        }],
        tasks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adfarm_proto::{Cell, JobId, JobResult, Output, SuiteSpec, SweepSpec};

    fn solved(label: &str, item: &str, seed: u64, text: &str) -> JobResult {
        JobResult {
            id: JobId(format!("{label}-{item}-{seed}")),
            stage: SOLVE.into(),
            cell: Cell {
                suite: "synthetic".into(),
                dataset: "default".into(),
                solution: label.into(),
                seed,
            },
            item: item.into(),
            judge: None,
            output: Some(Output {
                text: text.into(),
                meta: serde_json::Value::Null,
            }),
            scores: Vec::new(),
            usage: Vec::new(),
        }
    }

    #[test]
    fn each_answer_is_paired_with_the_echo_of_its_item_and_seed() {
        let spec: SweepSpec = serde_json::from_value(serde_json::json!({
            "name": "s", "seeds": [1],
            "suites": [{"name": "synthetic", "datasets": ["default"]}],
            "solutions": [{"name": "answer", "provider": "p"}, {"name": "echo", "provider": "p"}],
            "providers": [{"name": "p", "kind": "openai-compatible", "model": "m",
                           "requests_per_minute": 60.0}]
        }))
        .unwrap();
        let suite: SuiteSpec = spec.suites[0].clone();
        let results = vec![
            solved("answer", "3", 1, "A lamp."),
            solved("echo", "3", 1, "Synthetic question 3"),
            // No echo for item 4: no pair.
            solved("answer", "4", 1, "A chair."),
        ];
        let input = ReportInput {
            spec: &spec,
            suite: &suite,
            cells: &[],
            results: &results,
        };
        let r = reviewables(&input);
        assert_eq!(r.kinds.len(), 1);
        assert_eq!(r.tasks.len(), 1);
        let t = &r.tasks[0];
        assert_eq!((t.item.as_str(), t.solution.as_str()), ("3", "answer"));
        assert_eq!(t.artifacts[0].text, "A lamp.");
        assert_eq!(t.artifacts[1].source, "echo");
        assert_eq!(t.context, question(3));
    }
}
