//! The model seams suites call: chat completion, closed choice and
//! embeddings. The worker supplies implementations already bound to a
//! sweep and a role, with rate limits, retries, caching and metering.

use adfarm_proto::Usage;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// Text.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Message {
        Message {
            role: "system".into(),
            content: content.into(),
        }
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Message {
        Message {
            role: "user".into(),
            content: content.into(),
        }
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Message {
        Message {
            role: "assistant".into(),
            content: content.into(),
        }
    }
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
        }
    }
}

/// A model's reply with its usage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// Reply text.
    pub text: String,
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
