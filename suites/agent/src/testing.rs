//! A scripted model for agent suites' tests: an episode without a server.

use adfarm_llm::{ChatRequest, Choice, Completion, LlmError, Provider, ToolCall};
use adfarm_proto::{Role, Usage, UsageSource};
use async_trait::async_trait;
use std::sync::Mutex;

/// A model that replays a script, one reply per call, and logs the
/// requests it saw.
pub struct Scripted {
    replies: Mutex<Vec<Completion>>,
    seen: Mutex<Vec<ChatRequest>>,
}

/// A reply with `text` and tool calls `(name, arguments)`.
pub fn reply(text: &str, calls: &[(&str, &str)]) -> Completion {
    Completion {
        text: text.into(),
        tool_calls: calls
            .iter()
            .enumerate()
            .map(|(i, (name, arguments))| ToolCall {
                id: format!("call-{i}"),
                name: (*name).into(),
                arguments: (*arguments).into(),
            })
            .collect(),
        usage: Usage {
            model: "scripted".into(),
            role: Role::Agent,
            input: 1,
            output: 1,
            cached: false,
            source: UsageSource::Counted,
            latency_ms: 0,
        },
    }
}

impl Scripted {
    /// A model that gives `replies`, in order.
    pub fn new(mut replies: Vec<Completion>) -> Scripted {
        replies.reverse();
        Scripted {
            replies: Mutex::new(replies),
            seen: Mutex::new(Vec::new()),
        }
    }

    /// The requests it was sent, in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.seen.lock().expect("unpoisoned").clone()
    }
}

#[async_trait]
impl Provider for Scripted {
    fn model(&self) -> &str {
        "scripted"
    }

    async fn chat(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        self.seen.lock().expect("unpoisoned").push(req.clone());
        self.replies
            .lock()
            .expect("unpoisoned")
            .pop()
            .ok_or_else(|| LlmError::Config("the script ran out".into()))
    }

    async fn choose(&self, _: &ChatRequest, _: &[String]) -> Result<Choice, LlmError> {
        Err(LlmError::Config("agents never choose".into()))
    }
}
