//! Solutions that call no model: [`Scripted`] answers with a pure function
//! of the item (an `echo` baseline, say), [`Solved::text`] builds the
//! plain-text result such a solution, or any other, returns, and
//! [`NoModel`] is the provider to run them with where none is needed.

use crate::{JobError, Models, Solution, Solved};
use adfarm_llm::{ChatRequest, Choice, Completion, LlmError, Provider};
use adfarm_proto::{Item, Output, Score};
use async_trait::async_trait;

impl Solved {
    /// A plain-text response without solution data, with its scores.
    pub fn text(text: impl Into<String>, scores: Vec<Score>) -> Solved {
        Solved {
            output: Output {
                text: text.into(),
                meta: serde_json::Value::Null,
            },
            scores,
        }
    }
}

/// A solution whose answer is a pure function of the item: it calls no
/// model and ignores the seed, so it costs nothing and measures the farm
/// (or a suite's scoring) on its own.
#[derive(Debug, Clone, Copy)]
pub struct Scripted {
    name: &'static str,
    answer: fn(&Item) -> Result<Solved, JobError>,
}

impl Scripted {
    /// The solution `name` answering with `answer`.
    pub const fn new(name: &'static str, answer: fn(&Item) -> Result<Solved, JobError>) -> Self {
        Scripted { name, answer }
    }
}

#[async_trait]
impl Solution for Scripted {
    fn name(&self) -> &str {
        self.name
    }

    async fn solve(
        &self,
        item: &Item,
        _models: Models<'_>,
        _seed: u64,
    ) -> Result<Solved, JobError> {
        (self.answer)(item)
    }
}

/// A provider for solutions that call no model (scripted agents, `echo`):
/// every call fails with a configuration error, so a solution that does
/// call one is caught.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoModel;

#[async_trait]
impl Provider for NoModel {
    fn model(&self) -> &str {
        "none"
    }

    async fn chat(&self, _: &ChatRequest) -> Result<Completion, LlmError> {
        Err(LlmError::Config("this solution calls no model".into()))
    }

    async fn choose(&self, _: &ChatRequest, _: &[String]) -> Result<Choice, LlmError> {
        Err(LlmError::Config("this solution calls no model".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DataError;

    fn echo(item: &Item) -> Result<Solved, JobError> {
        if item.input.is_empty() {
            return Err(JobError::Data(DataError::Param {
                field: "input".into(),
                reason: "empty".into(),
            }));
        }
        Ok(Solved::text(item.input.clone(), Vec::new()))
    }

    fn item(input: &str) -> Item {
        Item {
            id: "1".into(),
            input: input.into(),
            meta: serde_json::Value::Null,
        }
    }

    #[tokio::test]
    async fn a_scripted_solution_answers_with_its_function_and_needs_no_model() {
        let s = Scripted::new("echo", echo);
        assert_eq!(s.name(), "echo");
        let models = Models {
            llm: &NoModel,
            embedder: None,
        };
        let solved = s.solve(&item("hi"), models, 3).await.expect("an answer");
        assert_eq!(solved, Solved::text("hi", Vec::new()));
        assert_eq!(solved.output.meta, serde_json::Value::Null);
        let err = s.solve(&item(""), models, 3).await.expect_err("data error");
        assert_eq!(err.code(), "data");
    }

    #[tokio::test]
    async fn no_model_refuses_every_call() {
        let req = ChatRequest::new(Vec::new());
        let err = NoModel.chat(&req).await.expect_err("no model");
        assert!(err.to_string().contains("calls no model"), "{err}");
        assert!(NoModel.choose(&req, &[]).await.is_err());
    }
}
