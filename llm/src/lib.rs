//! The model seam suites call: chat completion (with tools), closed choice
//! and embeddings, with their usage and errors. The worker supplies
//! implementations already bound to a sweep and a role, with rate limits,
//! retries, caching and metering; `adfarm-models` supplies local ones.
//!
//! Design decision: requests serialise to exactly what determines the
//! reply, leaving out empty tool fields, so a request's hash is its cache
//! key and requests without tools hash as they always did.
//!
//! - this file: messages, tools, requests, replies, errors and the
//!   `Provider`/`Embedder` traits;
//! - [`estimate`]: the one tokenizer-free token estimate ([`estimate_tokens`]).

mod estimate;

pub use estimate::estimate_tokens;

use adfarm_proto::Usage;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Who says a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    /// Instructions.
    System,
    /// The user (or the environment speaking as one).
    User,
    /// The model.
    Assistant,
    /// A tool's result, answering one of the model's tool calls.
    Tool,
}

impl Speaker {
    /// The name chat templates and the OpenAI API use.
    pub fn as_str(self) -> &'static str {
        match self {
            Speaker::System => "system",
            Speaker::User => "user",
            Speaker::Assistant => "assistant",
            Speaker::Tool => "tool",
        }
    }
}

/// One chat message. Serialises as the OpenAI API's message minus what is
/// empty, so requests without tools keep their cache keys.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// Who says it.
    pub role: Speaker,
    /// Text (empty for an assistant turn that only calls tools).
    pub content: String,
    /// The tool calls of an assistant turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a [`Speaker::Tool`] message: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    fn new(role: Speaker, content: String) -> Message {
        Message {
            role,
            content,
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Message {
        Message::new(Speaker::System, content.into())
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Message {
        Message::new(Speaker::User, content.into())
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Message {
        Message::new(Speaker::Assistant, content.into())
    }
    /// An assistant turn that calls tools.
    pub fn tool_calls(content: impl Into<String>, calls: Vec<ToolCall>) -> Message {
        Message {
            tool_calls: calls,
            ..Message::new(Speaker::Assistant, content.into())
        }
    }
    /// The result of tool call `call_id`.
    pub fn tool_result(call_id: impl Into<String>, content: impl Into<String>) -> Message {
        Message {
            tool_call_id: Some(call_id.into()),
            ..Message::new(Speaker::Tool, content.into())
        }
    }
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its arguments (an object schema).
    pub parameters: serde_json::Value,
}

/// One tool call of an assistant turn.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ToolCall {
    /// Id the tool result refers to.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Arguments as JSON text, as the model wrote them.
    pub arguments: String,
}

impl ToolCall {
    /// The call `id` of tool `name` with `arguments` (JSON text).
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// Whether and which tool the model must call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "name")]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// A call of the named tool.
    Tool(String),
}

/// A chat-completion request. Everything in it is part of the cache key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// Conversation.
    pub messages: Vec<Message>,
    /// Output token cap.
    pub max_tokens: u32,
    /// Sampling temperature (0 = greedy).
    pub temperature: f32,
    /// Nucleus sampling mass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f32>,
    /// Sampling seed.
    pub seed: u64,
    /// Stop strings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// Tools the model may call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// Whether it must call one (`None`: the provider's default, auto).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
}

impl ChatRequest {
    /// A request with default sampling (greedy, 256 tokens, seed 0).
    pub fn new(messages: Vec<Message>) -> ChatRequest {
        ChatRequest {
            messages,
            max_tokens: 256,
            temperature: 0.0,
            top_p: None,
            seed: 0,
            stop: vec![],
            tools: vec![],
            tool_choice: None,
        }
    }
}

/// A model's reply with its usage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// Reply text.
    pub text: String,
    /// Tool calls of the reply, each naming a tool of the request with
    /// arguments that parse as a JSON object.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Tokens of the call (cached calls are flagged).
    pub usage: Usage,
}

/// A closed-choice answer: the index of the chosen option.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Index into the options, or `None` when the reply matched none.
    pub index: Option<usize>,
    /// The raw call(s) behind it.
    pub completion: Completion,
}

/// How the worker should treat a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// Try again (5xx, timeout, reset, malformed reply), after `retry_after` if given.
    Transient {
        /// Server-suggested delay.
        retry_after: Option<Duration>,
    },
    /// The provider said 429.
    RateLimited {
        /// Server-suggested delay (Retry-After).
        retry_after: Option<Duration>,
    },
    /// Retrying will not help (4xx other than 429, bad config).
    Permanent,
    /// The sweep's budget is spent: the job is skipped, not failed.
    Budget,
}

/// A model call failure. Messages never contain secrets.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LlmError {
    /// HTTP status from the provider.
    #[error("provider answered HTTP {status}: {message}")]
    Status {
        /// Status code.
        status: u16,
        /// Body excerpt.
        message: String,
        /// Retry-After, when sent.
        retry_after: Option<Duration>,
    },
    /// No answer in time.
    #[error("provider call timed out after {0:?}")]
    Timeout(Duration),
    /// Connection refused, reset or closed.
    #[error("connection to provider failed: {0}")]
    Connection(String),
    /// The reply could not be parsed.
    #[error("provider reply was malformed: {0}")]
    Malformed(String),
    /// The sweep's budget is spent.
    #[error("sweep budget of {budget_usd} USD is spent")]
    Budget {
        /// The budget.
        budget_usd: f64,
    },
    /// Misconfiguration (missing key, unknown model, local model failure).
    #[error("provider misconfigured: {0}")]
    Config(String),
    /// The store or limiter behind the provider failed.
    #[error("infrastructure failure: {0}")]
    Infra(String),
}

impl LlmError {
    /// How to treat this failure.
    pub fn class(&self) -> ErrorClass {
        match self {
            LlmError::Status {
                status: 429,
                retry_after,
                ..
            } => ErrorClass::RateLimited {
                retry_after: *retry_after,
            },
            LlmError::Status {
                status,
                retry_after,
                ..
            } if *status >= 500 || *status == 408 => ErrorClass::Transient {
                retry_after: *retry_after,
            },
            LlmError::Status { .. } | LlmError::Config(_) => ErrorClass::Permanent,
            LlmError::Timeout(_)
            | LlmError::Connection(_)
            | LlmError::Malformed(_)
            | LlmError::Infra(_) => ErrorClass::Transient { retry_after: None },
            LlmError::Budget { .. } => ErrorClass::Budget,
        }
    }

    /// Bounded code for labels and dead-letter records.
    pub fn code(&self) -> &'static str {
        match self {
            LlmError::Status { status: 429, .. } => "http-429",
            LlmError::Status { status, .. } if *status >= 500 => "http-5xx",
            LlmError::Status { .. } => "http-4xx",
            LlmError::Timeout(_) => "timeout",
            LlmError::Connection(_) => "connection",
            LlmError::Malformed(_) => "malformed",
            LlmError::Budget { .. } => "budget",
            LlmError::Config(_) => "config",
            LlmError::Infra(_) => "infra",
        }
    }
}

/// A chat model, bound by the worker to a sweep and a role.
#[async_trait]
pub trait Provider: Send + Sync {
    /// Model name (for reports).
    fn model(&self) -> &str;

    /// One chat completion.
    ///
    /// # Errors
    /// Transport, status, budget or configuration failures; see [`LlmError::class`].
    async fn chat(&self, req: &ChatRequest) -> Result<Completion, LlmError>;

    /// Picks one of `options` as the answer to `req`: likelihood ranking for
    /// local models, constrained output or parse-and-re-ask for servers.
    /// Callers ask once: re-asking is the provider's (so a missed reply costs
    /// one extra call, not more), and `index: None` is the final answer.
    ///
    /// # Errors
    /// As [`Provider::chat`].
    async fn choose(&self, req: &ChatRequest, options: &[String]) -> Result<Choice, LlmError>;
}

/// A sentence-embedding model.
#[async_trait]
pub trait Embedder: Send + Sync {
    /// Model name (for reports).
    fn model(&self) -> &str;

    /// L2-normalised embeddings of `texts`, in order, with the call's usage.
    ///
    /// # Errors
    /// As [`Provider::chat`].
    async fn embed(&self, texts: &[String]) -> Result<Embeddings, LlmError>;
}

/// Vectors of one embedding call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Embeddings {
    /// One unit-length vector per input text.
    pub vectors: Vec<Vec<f32>>,
    /// Input tokens of the call (output is 0).
    pub usage: Usage,
}
