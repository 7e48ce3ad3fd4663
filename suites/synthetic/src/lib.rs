//! The `synthetic` suite: N generated prompts, each answered by one
//! generation call and judged by one call per judge, scored by a
//! deterministic function of the text. It exercises every moving part of the
//! farm without a benchmark dataset, the review court included (`review`:
//! each answer against the `echo` entry's).

use adfarm_llm::{ChatRequest, Message};
use adfarm_proto::{Item, Score, SolutionSpec, Stage, Verdict, SOLVE};
use adfarm_suite::{
    Benchmark, CallEstimate, DataError, Headline, HeadlineValue, Headlines, ItemIter, JobError,
    Models, ReportInput, Reviewables, Scripted, Solution, Solved, StageJob, StageModels,
    StageOutput, Suite, SweepView,
};
use async_trait::async_trait;
use std::sync::Arc;

/// Default item count when `params.items` is not set.
pub const DEFAULT_ITEMS: u64 = 100;

/// Most items `params.items` may ask for: far above any load test the
/// farm runs, low enough that planning (which counts every item) takes
/// seconds, not forever.
pub const MAX_ITEMS: u64 = 1_000_000;

mod review;

/// The synthetic suite.
pub struct Synthetic;

/// The prompt of item `i`.
pub fn question(i: u64) -> String {
    format!(
        "Synthetic question {i}: name a product that fits topic {}.",
        i % 26
    )
}

/// A score in [0, 100] that depends only on `text`.
pub fn text_score(text: &str) -> f64 {
    let h = blake3::hash(text.as_bytes());
    let x = u16::from_le_bytes([h.as_bytes()[0], h.as_bytes()[1]]);
    (x as f64 / u16::MAX as f64 * 100.0 * 100.0).round() / 100.0
}

fn item_count(params: &serde_json::Value) -> Result<u64, DataError> {
    match params.get("items") {
        None => Ok(DEFAULT_ITEMS),
        Some(v) => {
            let n = v.as_u64().ok_or_else(|| DataError::Param {
                field: "params.items".into(),
                reason: format!("must be a non-negative integer, got {v}"),
            })?;
            if n > MAX_ITEMS {
                return Err(DataError::Param {
                    field: "params.items".into(),
                    reason: format!("must be at most {MAX_ITEMS}, got {n}"),
                });
            }
            Ok(n)
        }
    }
}

#[async_trait]
impl Suite for Synthetic {
    fn name(&self) -> &'static str {
        "synthetic"
    }

    fn datasets(&self) -> Vec<String> {
        vec!["default".into()]
    }

    fn solutions(&self) -> Vec<String> {
        vec!["answer".into(), "echo".into()]
    }

    fn items(&self, dataset: &str, params: &serde_json::Value) -> Result<ItemIter, DataError> {
        if dataset != "default" {
            return Err(DataError::UnknownDataset {
                suite: "synthetic".into(),
                dataset: dataset.into(),
                valid: "default".into(),
            });
        }
        let n = item_count(params)?;
        Ok(Box::new((0..n).map(|i| {
            Ok(Item {
                id: i.to_string(),
                input: question(i),
                meta: serde_json::Value::Null,
            })
        })))
    }

    fn stages(&self, sweep: SweepView<'_>) -> Result<Vec<Stage>, DataError> {
        item_count(&sweep.suite.params)?;
        if sweep.spec.judges.is_empty() {
            return Ok(vec![]);
        }
        Ok(vec![Stage::per_judge("judge", &sweep.spec.judges)])
    }

    fn estimate(&self, stage: &str, solution: &SolutionSpec, _item: &Item) -> CallEstimate {
        if stage == SOLVE {
            CallEstimate {
                calls: u32::from(solution.name != "echo"),
                overhead_tokens: 8,
                reads_response: false,
                output_tokens: None,
            }
        } else {
            CallEstimate {
                calls: 1,
                overhead_tokens: 24,
                reads_response: true,
                output_tokens: Some(16),
            }
        }
    }

    fn check_solution(&self, spec: &SolutionSpec) -> Result<(), DataError> {
        match spec.params.as_object().and_then(|o| o.keys().next()) {
            Some(name) => Err(DataError::Param {
                field: format!("params.{name}"),
                reason: format!("{} takes no parameters", spec.name),
            }),
            None => self.solution(spec).map(|_| ()),
        }
    }

    fn solution(&self, spec: &SolutionSpec) -> Result<Arc<dyn Solution>, DataError> {
        match spec.name.as_str() {
            "answer" => Ok(Arc::new(Answer {
                max_tokens: spec.max_tokens,
                temperature: spec.temperature,
            })),
            "echo" => Ok(Arc::new(ECHO)),
            other => Err(DataError::UnknownSolution {
                suite: "synthetic".into(),
                solution: other.into(),
                valid: "answer, echo".into(),
            }),
        }
    }

    fn benchmark(&self, sweep: SweepView<'_>) -> Result<Option<Benchmark>, DataError> {
        item_count(&sweep.suite.params)?;
        Ok(Some(Benchmark {
            version: "1.0.0",
            scorer: "text-score-1",
            judges: None,
            hidden: false,
        }))
    }

    fn headlines(&self, input: &ReportInput<'_>) -> Result<Headlines, DataError> {
        let values = input
            .results
            .iter()
            .filter(|r| r.stage == SOLVE)
            .flat_map(|r| {
                r.scores
                    .iter()
                    .filter_map(move |s| match (&s.verdict, s.metric.as_str()) {
                        (Verdict::Score(v), "quality") => Some(HeadlineValue {
                            solution: r.cell.solution.clone(),
                            item: r.item.clone(),
                            seed: Some(r.cell.seed),
                            value: *v,
                        }),
                        _ => None,
                    })
            })
            .collect();
        Ok(Headlines {
            metrics: vec![Headline {
                metric: "quality".into(),
                title: "Quality".into(),
                description: "A deterministic score in [0, 100] of the response text (a hash)."
                    .into(),
                values,
            }],
            protocols: Default::default(),
        })
    }

    fn reviews(&self, input: &ReportInput<'_>) -> Result<Reviewables, DataError> {
        Ok(review::reviewables(input))
    }

    async fn run_stage(
        &self,
        job: StageJob<'_>,
        models: StageModels<'_>,
    ) -> Result<StageOutput, JobError> {
        let (Some(llm), [Some(solved)]) = (models.llm, job.inputs) else {
            return Err(JobError::Data(DataError::Param {
                field: job.stage.into(),
                reason: "a judge job needs a judge model and the solved output".into(),
            }));
        };
        let answer = solved.output.as_ref().map_or("", |o| o.text.as_str());
        let mut req = ChatRequest::new(vec![
            Message::system("Rate the answer from 0 to 10."),
            Message::user(format!("Question: {}\nAnswer: {answer}", job.item.input)),
        ]);
        req.max_tokens = 16;
        let reply = llm.chat(&req).await?;
        Ok(StageOutput {
            output: None,
            scores: vec![Score {
                metric: "judged".into(),
                verdict: Verdict::Score(text_score(&reply.text)),
            }],
        })
    }
}

/// The synthetic solution: answer the prompt.
struct Answer {
    max_tokens: u32,
    temperature: f32,
}

#[async_trait]
impl Solution for Answer {
    fn name(&self) -> &str {
        "answer"
    }

    async fn solve(&self, item: &Item, models: Models<'_>, seed: u64) -> Result<Solved, JobError> {
        let mut req = ChatRequest::new(vec![Message::user(item.input.clone())]);
        req.max_tokens = self.max_tokens;
        req.temperature = self.temperature;
        req.seed = seed;
        let reply = models.llm.chat(&req).await?;
        Ok(answered(reply.text))
    }
}

/// A response scored for quality.
fn answered(text: String) -> Solved {
    let score = text_score(&text);
    Solved::text(
        text,
        vec![Score {
            metric: "quality".into(),
            verdict: Verdict::Score(score),
        }],
    )
}

/// The no-op solution: returns the prompt without calling a model, so the
/// farm's own overhead (queue, store, aggregation) can be measured.
const ECHO: Scripted = Scripted::new("echo", |item| Ok(answered(item.input.clone())));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_score_is_deterministic_and_bounded() {
        assert_eq!(text_score("abc"), text_score("abc"));
        assert_ne!(text_score("abc"), text_score("abd"));
        for t in ["", "x", "a longer text"] {
            assert!((0.0..=100.0).contains(&text_score(t)));
        }
    }

    #[test]
    fn items_follow_params_and_unknown_datasets_are_named() {
        let s = Synthetic;
        let items: Vec<_> = s
            .items("default", &serde_json::json!({"items": 3}))
            .unwrap()
            .collect();
        assert_eq!(items.len(), 3);
        let err = s
            .items("nope", &serde_json::json!({}))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("valid: default"), "{err}");
    }

    #[test]
    fn an_item_count_above_the_maximum_is_refused_by_field() {
        let s = Synthetic;
        let at = |items: u64| s.items("default", &serde_json::json!({ "items": items }));
        assert_eq!(
            at(MAX_ITEMS).unwrap().size_hint().1,
            Some(MAX_ITEMS as usize)
        );
        for n in [MAX_ITEMS + 1, 1_000_000_000_000] {
            match at(n).err().unwrap() {
                DataError::Param { field, reason } => {
                    assert_eq!(field, "params.items");
                    assert!(reason.contains("at most 1000000"), "{reason}");
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
