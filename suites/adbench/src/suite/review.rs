//! What people review in an AD-Bench sweep, built from its stored results:
//!
//! - `answer-vs-reference` (pair): an agent's final answer beside the
//!   reference answer replayed on the same world and date; the reviewer
//!   says which is more correct and useful, and which the agent wrote;
//! - `judge-questions` (rating): one episode, shown as the LLM judge reads
//!   it (its calls with cut observations and its final answer, the
//!   reference trajectory above it), asked the judge's seven yes/no
//!   questions (six failure labels and the answer's correctness), beside
//!   the sweep's judges' answers.
//!
//! Design decision: results carry no question, so the questions come from
//! the suite's tasks ([`Questions`]), by the task id the item id starts
//! with; that stays right when `env_dates` named `"today"` on another day.

use std::collections::BTreeMap;

use adfarm_proto::{JobResult, Verdict, SOLVE};
use adfarm_suite::{
    Answer, Artifact, DataError, JudgeValue, Question, ReportInput, ReviewForm, ReviewKind,
    ReviewTask, Reviewables,
};
use serde::Deserialize;

use super::dataset::Params;
use super::judge::{
    case_opening, episode_text, judge_metric, question_line, CORRECT_QUESTION, JUDGE,
    JUDGE_CORRECT, QUESTIONS,
};
use super::stages::REPLAY;
use crate::agent::Run;
use crate::replay::Replay;
use crate::scoring::Label;

/// The pair kind: the agent's answer against the reference answer.
pub const ANSWER_VS_REFERENCE: &str = "answer-vs-reference";
/// The rating kind: one episode on the judge's questions.
pub const JUDGE_QUESTIONS: &str = "judge-questions";
/// Source of the reference answer's artifact.
pub const REFERENCE: &str = "reference";

/// The tasks' questions and the hour the sweep's items are asked at.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Questions {
    hour: u8,
    by_task: BTreeMap<String, String>,
}

impl Questions {
    /// The questions of the tasks the suite's `params` select.
    ///
    /// # Errors
    /// Parameters the dataset cannot read, or tasks it cannot load.
    pub fn of(params: &serde_json::Value) -> Result<Questions, DataError> {
        let p = Params::read(params)?;
        Ok(Questions {
            hour: p.hour,
            by_task: p
                .select()?
                .into_iter()
                .map(|t| (t.id, t.question))
                .collect(),
        })
    }

    /// The date and question of item `<task>@<date>`.
    fn of_item<'a>(&'a self, item: &'a str) -> Option<(&'a str, &'a str)> {
        let (task, date) = item.rsplit_once('@')?;
        Some((date, self.by_task.get(task)?))
    }
}

/// The kinds AD-Bench declares, pair first.
pub fn kinds() -> Vec<ReviewKind> {
    // "No" is the best answer to a failure question, so it comes first.
    let failure = |label: Label, definition: &str| Question {
        metric: judge_metric(label),
        text: definition.into(),
        options: vec![
            answer("no", "the episode does not show this failure", 0.0),
            answer("yes", "the episode shows this failure", 100.0),
        ],
    };
    let mut questions: Vec<Question> = Label::ALL
        .iter()
        .zip(QUESTIONS)
        .map(|(l, q)| failure(*l, q))
        .collect();
    questions.push(Question {
        metric: JUDGE_CORRECT.into(),
        text: CORRECT_QUESTION.into(),
        options: vec![
            answer("yes", "the final answer gives the reference answer", 100.0),
            answer("no", "it does not", 0.0),
        ],
    });
    vec![
        ReviewKind {
            id: ANSWER_VS_REFERENCE.into(),
            title: "Agent's answer vs the reference answer".into(),
            instructions: "Read the advertiser's question and the two answers to it, both \
                           computed from the same account data. Say which answer is more \
                           correct and useful, and which one the agent under test wrote."
                .into(),
            form: ReviewForm::Pair {
                better: "Which answer is more correct and useful?".into(),
                marked: "Which answer was written by the agent under test?".into(),
                rationale: false,
            },
        },
        ReviewKind {
            id: JUDGE_QUESTIONS.into(),
            title: "The judge's questions on an episode".into(),
            instructions: "Read the question, the expert's reference trajectory and answer, \
                           then the agent's episode: the tools it called, what they returned \
                           (cut short) and its final answer. A different but valid path is \
                           not a failure. Answer each question about the agent's episode."
                .into(),
            form: ReviewForm::Rating { questions },
        },
    ]
}

fn answer(label: &str, meaning: &str, value: f64) -> Answer {
    Answer {
        label: label.into(),
        meaning: meaning.into(),
        value,
    }
}

fn artifact(source: &str, text: &str) -> Artifact {
    Artifact {
        source: source.into(),
        text: text.into(),
    }
}

fn meta<'r, T: Deserialize<'r>>(r: &'r JobResult) -> Option<T> {
    T::deserialize(&r.output.as_ref()?.meta).ok()
}

/// An episode's coordinates: item, solution, seed.
type Episode = (String, String, u64);

/// The judges' answers on each episode, every judge's in question order.
fn judged(input: &ReportInput<'_>) -> BTreeMap<Episode, Vec<JudgeValue>> {
    let metrics: Vec<String> = Label::ALL
        .iter()
        .map(|l| judge_metric(*l))
        .chain([JUDGE_CORRECT.to_string()])
        .collect();
    let mut out: BTreeMap<Episode, Vec<JudgeValue>> = BTreeMap::new();
    for r in input.results.iter().filter(|r| r.stage == JUDGE) {
        let (Some(item), Some(judge)) = (input.item_of(r), &r.judge) else {
            continue;
        };
        let values = out
            .entry((item.to_string(), r.cell.solution.clone(), r.cell.seed))
            .or_default();
        for s in &r.scores {
            if let (true, Verdict::Score(v)) = (metrics.contains(&s.metric), &s.verdict) {
                values.push(JudgeValue {
                    judge: judge.clone(),
                    metric: s.metric.clone(),
                    value: *v,
                });
            }
        }
    }
    for values in out.values_mut() {
        let order = |v: &JudgeValue| metrics.iter().position(|m| *m == v.metric);
        values.sort_by(|a, b| (&a.judge, order(a)).cmp(&(&b.judge, order(b))));
    }
    out
}

/// The reviewables of a sweep's results; `questions` from
/// [`Questions::of`] with the suite's params.
pub fn reviewables(input: &ReportInput<'_>, questions: &Questions) -> Reviewables {
    // The ground truth is one replay per item, shared by every agent.
    let replays: BTreeMap<&str, &JobResult> = input
        .results
        .iter()
        .filter(|r| r.stage == REPLAY && r.output.is_some())
        .filter_map(|r| Some((input.item_of(r)?, r)))
        .collect();
    let mut judged = judged(input);
    let mut tasks = Vec::new();
    for r in input.results.iter().filter(|r| r.stage == SOLVE) {
        let (Some(item), Some(out)) = (input.item_of(r), &r.output) else {
            continue;
        };
        let (Some((date, question)), Some(replay)) = (questions.of_item(item), replays.get(item))
        else {
            continue;
        };
        let (solution, seed) = (&r.cell.solution, r.cell.seed);
        let task = |kind: &str, context: String, artifacts: Vec<Artifact>| ReviewTask {
            kind: kind.into(),
            id: ReviewTask::id_of(kind, item, solution, seed),
            item: item.into(),
            solution: solution.clone(),
            seed,
            context,
            artifacts,
            judged: vec![],
        };
        let reference = replay.output.as_ref().map_or("", |o| o.text.as_str());
        if !out.text.trim().is_empty() && !reference.trim().is_empty() {
            tasks.push(task(
                ANSWER_VS_REFERENCE,
                question_line(date, questions.hour, question),
                vec![
                    artifact(solution, &out.text),
                    artifact(REFERENCE, reference),
                ],
            ));
        }
        // The rating shows what the judge reads, so it needs both stored
        // trajectories.
        if let (Some(run), Some(truth)) = (meta::<Run>(r), meta::<Replay>(replay)) {
            let mut rating = task(
                JUDGE_QUESTIONS,
                case_opening(date, questions.hour, question, &truth),
                vec![artifact(solution, &episode_text(&run))],
            );
            rating.judged = judged
                .remove(&(item.to_string(), solution.clone(), seed))
                .unwrap_or_default();
            tasks.push(rating);
        }
    }
    tasks.sort_by(|a, b| {
        (&a.kind, &a.item, &a.solution, a.seed).cmp(&(&b.kind, &b.item, &b.solution, b.seed))
    });
    // One task per episode even if a result were stored twice: the farm
    // refuses a sweep whose task ids repeat.
    tasks.dedup_by(|a, b| a.id == b.id);
    Reviewables {
        kinds: kinds(),
        tasks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{End, Protocol, Tokens};
    use crate::replay::Answer as Truth;
    use crate::scoring::Episode as Played;
    use crate::suite::judge::JUDGED;
    use crate::tools::{Call, Observation};
    use adfarm_proto::{Cell, JobId, Output, Score, SuiteSpec, SweepSpec};
    use serde_json::json;

    const ITEM: &str = "L1-001@2026-07-25";

    fn questions() -> Questions {
        Questions {
            hour: 12,
            by_task: BTreeMap::from([("L1-001".into(), "What did we spend yesterday?".into())]),
        }
    }

    fn call(tool: &str) -> Call {
        Call {
            tool: tool.into(),
            args: json!({"date": "yesterday"}),
        }
    }

    fn replay_result(item: &str) -> JobResult {
        let truth = Replay {
            task: "L1-001".into(),
            calls: vec![call("get_report")],
            observations: vec![],
            outcome: None,
            answer: Some(Truth::Number(42.5)),
        };
        result(
            REPLAY,
            "",
            item,
            0,
            None,
            Some(Output {
                text: crate::scripted::answer_text(truth.answer.as_ref()),
                meta: serde_json::to_value(&truth).expect("a replay serialises"),
            }),
            vec![],
        )
    }

    fn episode_result(solution: &str, item: &str, seed: u64, answer: &str) -> JobResult {
        let run = Run {
            protocol: Protocol::React,
            prompt_version: "v".into(),
            episode: Played {
                calls: vec![call("get_report")],
                observations: vec![Observation {
                    tool: "get_report".into(),
                    result_id: Some("r1".into()),
                    text: r#"{"spend": 42.5}"#.into(),
                    error_code: None,
                    flags: vec![],
                    ended: false,
                }],
                flags: vec![],
                outcome: None,
                final_text: answer.into(),
                toolless_turns: 0,
                context_overflow: false,
            },
            turns: vec![],
            usage: Tokens::default(),
            end: End::Summarized,
        };
        result(
            SOLVE,
            solution,
            item,
            seed,
            None,
            Some(Output {
                text: answer.into(),
                meta: serde_json::to_value(&run).expect("a run serialises"),
            }),
            vec![],
        )
    }

    fn result(
        stage: &str,
        solution: &str,
        item: &str,
        seed: u64,
        judge: Option<&str>,
        output: Option<Output>,
        scores: Vec<Score>,
    ) -> JobResult {
        JobResult {
            id: JobId(format!("{stage}-{solution}-{item}-{seed}-{judge:?}")),
            stage: stage.into(),
            cell: Cell {
                suite: "adbench".into(),
                dataset: "tasks".into(),
                solution: solution.into(),
                seed,
            },
            item: item.into(),
            judge: judge.map(str::to_string),
            output,
            scores,
            usage: vec![],
        }
    }

    fn review(results: &[JobResult]) -> Reviewables {
        let spec: SweepSpec = serde_json::from_value(json!({
            "name": "a", "suites": [{"name": "adbench", "datasets": ["tasks"]}],
            "solutions": [], "providers": []
        }))
        .expect("a spec");
        let suite: SuiteSpec = spec.suites[0].clone();
        let input = ReportInput {
            spec: &spec,
            suite: &suite,
            cells: &[],
            results,
        };
        reviewables(&input, &questions())
    }

    fn of_kind<'a>(r: &'a Reviewables, kind: &str) -> Vec<&'a ReviewTask> {
        r.tasks.iter().filter(|t| t.kind == kind).collect()
    }

    #[test]
    fn a_pair_puts_the_agents_answer_first_and_the_replayed_reference_second() {
        let r = review(&[
            episode_result("react", ITEM, 1, "We spent 40."),
            replay_result(ITEM),
        ]);
        let pairs = of_kind(&r, ANSWER_VS_REFERENCE);
        assert_eq!(pairs.len(), 1);
        let p = pairs[0];
        assert_eq!(
            (p.item.as_str(), p.solution.as_str(), p.seed),
            (ITEM, "react", 1)
        );
        assert_eq!(
            p.context,
            "Question (asked on 2026-07-25, data up to hour 12 of that day): \
             What did we spend yesterday?"
        );
        assert_eq!(p.artifacts[0], artifact("react", "We spent 40."));
        assert_eq!(p.artifacts[1], artifact(REFERENCE, "The answer is 42.5."));
        assert_eq!(
            p.id,
            ReviewTask::id_of(ANSWER_VS_REFERENCE, ITEM, "react", 1)
        );
        assert!(r.kinds[0].form.is_pair());
    }

    #[test]
    fn an_episode_without_its_replay_question_or_answer_is_not_paired() {
        let other = "L2-009@2026-07-25";
        let r = review(&[
            // No replay of this item.
            episode_result("react", other, 1, "We spent 40."),
            // A task the params do not select.
            episode_result("react", "L9-999@2026-07-25", 1, "We spent 40."),
            replay_result("L9-999@2026-07-25"),
            // An empty final answer: rated, not paired.
            episode_result("react", ITEM, 2, "  "),
            replay_result(ITEM),
            // A solve job stored without its output.
            result(SOLVE, "react", ITEM, 3, None, None, vec![]),
        ]);
        assert!(of_kind(&r, ANSWER_VS_REFERENCE).is_empty());
        let rated: Vec<u64> = of_kind(&r, JUDGE_QUESTIONS)
            .iter()
            .map(|t| t.seed)
            .collect();
        assert_eq!(rated, [2]);
    }

    #[test]
    fn a_rating_shows_the_episode_as_the_judge_reads_it_with_the_judges_answers() {
        let label = |l: Label, v: f64| Score {
            metric: judge_metric(l),
            verdict: Verdict::Score(v),
        };
        let r = review(&[
            episode_result("react", ITEM, 1, "We spent 40."),
            replay_result(ITEM),
            result(
                JUDGE,
                "react",
                ITEM,
                1,
                Some("j1"),
                None,
                vec![
                    Score {
                        metric: JUDGE_CORRECT.into(),
                        verdict: Verdict::Score(0.0),
                    },
                    label(Label::Hal, 100.0),
                    label(Label::TE, 0.0),
                    // Whether the verdict was readable is not a question.
                    Score {
                        metric: JUDGED.into(),
                        verdict: Verdict::Score(100.0),
                    },
                ],
            ),
        ]);
        let ratings = of_kind(&r, JUDGE_QUESTIONS);
        assert_eq!(ratings.len(), 1);
        let t = ratings[0];
        assert!(t.context.starts_with("Question (asked on 2026-07-25"));
        assert!(t.context.contains("1. get_report("));
        assert!(t
            .context
            .ends_with("Reference answer: The answer is 42.5.\n"));
        assert_eq!(t.artifacts.len(), 1);
        assert!(t.artifacts[0].text.starts_with("Agent's episode: 1 calls"));
        assert!(t.artifacts[0]
            .text
            .ends_with("Agent's final answer: We spent 40.\n"));
        let judged: Vec<(&str, f64)> = t
            .judged
            .iter()
            .map(|v| (v.metric.as_str(), v.value))
            .collect();
        assert_eq!(
            judged,
            [
                ("judge-TE", 0.0),
                ("judge-Hal", 100.0),
                ("judge-correct", 0.0)
            ]
        );
    }

    #[test]
    fn the_rating_asks_the_judges_seven_questions_best_answer_first() {
        let ReviewForm::Rating { questions } = &kinds()[1].form else {
            panic!("a rating");
        };
        let metrics: Vec<&str> = questions.iter().map(|q| q.metric.as_str()).collect();
        assert_eq!(
            metrics,
            [
                "judge-TE",
                "judge-PE",
                "judge-IF",
                "judge-CE",
                "judge-Hal",
                "judge-LC",
                "judge-correct"
            ]
        );
        let best: Vec<(&str, f64)> = questions
            .iter()
            .map(|q| (q.options[0].label.as_str(), q.options[0].value))
            .collect();
        assert_eq!(best[0], ("no", 0.0));
        assert_eq!(best[6], ("yes", 100.0));
        assert!(questions[4].text.starts_with("Hallucination:"));
    }

    #[test]
    fn tasks_come_sorted_by_kind_item_solution_and_seed() {
        let r = review(&[
            episode_result("react", ITEM, 2, "a"),
            episode_result("function-calling", ITEM, 1, "b"),
            replay_result(ITEM),
            episode_result("react", ITEM, 1, "c"),
        ]);
        let order: Vec<(&str, &str, u64)> = r
            .tasks
            .iter()
            .map(|t| (t.kind.as_str(), t.solution.as_str(), t.seed))
            .collect();
        assert_eq!(
            order,
            [
                (ANSWER_VS_REFERENCE, "function-calling", 1),
                (ANSWER_VS_REFERENCE, "react", 1),
                (ANSWER_VS_REFERENCE, "react", 2),
                (JUDGE_QUESTIONS, "function-calling", 1),
                (JUDGE_QUESTIONS, "react", 1),
                (JUDGE_QUESTIONS, "react", 2),
            ]
        );
    }

    #[test]
    fn questions_come_from_the_tasks_the_params_select() {
        let q = Questions::of(&json!({"tasks": ["L1-001"], "hour": 9})).expect("shipped tasks");
        assert_eq!(q.hour, 9);
        assert_eq!(q.by_task.len(), 1);
        let (date, question) = q.of_item(ITEM).expect("the task");
        assert_eq!(date, "2026-07-25");
        assert!(!question.is_empty());
        assert_eq!(q.of_item("L1-001"), None, "an id without its date");
        assert!(Questions::of(&json!({"hour": 25})).is_err());
    }
}
