//! [`OpenAiClient`]: the transport (one POST, its errors, redaction), one
//! chat completion with its usage, and the `Provider`/`Embedder` impls.

use super::retry::parse_retry_after;
use super::secret::Secret;
use super::wire::{chat_body, ChatResponse, Constraint, EmbeddingResponse};
use adfarm_backbone::redact_url;
use adfarm_llm::{
    estimate_tokens, ChatRequest, Choice, Completion, Embedder, Embeddings, LlmError, Provider,
    ToolCall,
};
use adfarm_proto::{Role, Usage, UsageSource};
use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::fmt;
use std::time::{Duration, SystemTime};

/// Longest error-body excerpt kept in [`LlmError::Status`].
const EXCERPT_CHARS: usize = 200;

/// Bytes of reply (text and tool-call arguments) one token of `max_tokens`
/// permits: no tokenizer's token is longer, so a longer reply did not
/// honour `max_tokens` and is refused as malformed, never stored.
pub const REPLY_BYTES_PER_TOKEN: usize = 16;

/// A client of one model behind an OpenAI-compatible API.
///
/// `chat` posts `{base_url}/chat/completions`, `embed` posts
/// `{base_url}/embeddings` (so `base_url` ends in `/v1` for most servers).
/// Usage is the provider's `usage` when it sends one, else an estimate from
/// [`estimate_tokens`] flagged [`UsageSource::Counted`]. Cloning is cheap and
/// shares the connection pool.
///
/// Tools travel in OpenAI's `tools`/`tool_choice` shape and come back as
/// [`Completion::tool_calls`], each usable: it names a tool of the request
/// and its arguments are a JSON object. A reply with an unusable call is
/// re-asked once with a short corrective user message; a second unusable
/// reply yields a completion without tool calls (its text kept, the usage of
/// both calls summed) and increments `adfarm_llm_tool_call_errors_total`, so
/// an agent sees a turn without a call (a format error), never a crash.
///
/// A reply longer than the request's `max_tokens` permits
/// (`max_tokens` × [`REPLY_BYTES_PER_TOKEN`] bytes of text and arguments)
/// is [`LlmError::Malformed`]: retried like one, never returned.
#[derive(Clone)]
pub struct OpenAiClient {
    http: reqwest::Client,
    base_url: String,
    model: String,
    api_key: Option<Secret>,
    timeout: Duration,
    role: Role,
}

impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("base_url", &redact_url(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &self.api_key)
            .field("timeout", &self.timeout)
            .field("role", &self.role)
            .finish()
    }
}

impl OpenAiClient {
    /// A client for `model` at `base_url` (e.g. `http://localhost:8000/v1`),
    /// sending `api_key` as a Bearer token and giving up on a call after
    /// `timeout`. Its usage role is [`Role::Generation`]; see [`Self::with_role`].
    ///
    /// # Errors
    /// [`LlmError::Config`] when the URL is not http(s) or the HTTP client
    /// cannot be built (no TLS roots).
    pub fn new(
        base_url: impl Into<String>,
        model: impl Into<String>,
        api_key: Option<Secret>,
        timeout: Duration,
    ) -> Result<OpenAiClient, LlmError> {
        let base_url = base_url.into().trim_end_matches('/').to_string();
        // The parse error names the problem, never the URL, which may hold credentials.
        let url = reqwest::Url::parse(&base_url)
            .map_err(|e| LlmError::Config(format!("base URL is invalid: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(LlmError::Config(format!(
                "base URL must be http or https, not {}",
                url.scheme()
            )));
        }
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("adfarm/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Config(format!("HTTP client: {}", error_chain(&e))))?;
        Ok(OpenAiClient {
            http,
            base_url,
            model: model.into(),
            api_key,
            timeout,
            role: Role::Generation,
        })
    }

    /// The same client recording its chat usage under `role`.
    pub fn with_role(&self, role: Role) -> OpenAiClient {
        OpenAiClient {
            role,
            ..self.clone()
        }
    }

    /// The role chat usage is recorded under (embeddings are always
    /// [`Role::Embedding`]).
    pub fn role(&self) -> Role {
        self.role
    }

    /// The model name sent to the provider.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Posts `body` to `{base_url}{path}` and decodes a 2xx reply.
    async fn post<T: DeserializeOwned>(&self, path: &str, body: &Value) -> Result<T, LlmError> {
        let mut request = self
            .http
            .post(format!("{}{path}", self.base_url))
            .json(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key.expose());
        }
        let response = request.send().await.map_err(|e| self.transport(e))?;
        let status = response.status();
        let retry_after = parse_retry_after(response.headers(), SystemTime::now());
        let bytes = response.bytes().await.map_err(|e| self.transport(e))?;
        if !status.is_success() {
            return Err(LlmError::Status {
                status: status.as_u16(),
                message: self.redact(&excerpt(&bytes)),
                retry_after,
            });
        }
        // serde's message names the position, not the content.
        serde_json::from_slice(&bytes).map_err(|e| LlmError::Malformed(format!("{path}: {e}")))
    }

    /// Maps a transport failure; the URL and headers are left out.
    fn transport(&self, e: reqwest::Error) -> LlmError {
        let e = e.without_url();
        if e.is_timeout() {
            LlmError::Timeout(self.timeout)
        } else {
            LlmError::Connection(self.redact(&error_chain(&e)))
        }
    }

    /// Removes the key from text a server or library produced, in case
    /// either echoed it (some providers quote the key they rejected).
    fn redact(&self, text: &str) -> String {
        match &self.api_key {
            Some(k) if !k.expose().is_empty() => text.replace(k.expose(), "***"),
            _ => text.to_string(),
        }
    }

    /// One chat completion, constrained to `options` as `constraint` says,
    /// with its tool calls as the server wrote them (unchecked).
    pub(super) async fn complete(
        &self,
        req: &ChatRequest,
        options: &[String],
        constraint: Constraint,
    ) -> Result<Completion, LlmError> {
        let body = chat_body(&self.model, req, options, constraint);
        let reply: ChatResponse = self.post("/chat/completions", &body).await?;
        let reply = reply.into_reply()?;
        let bytes = reply.text.len()
            + reply
                .tool_calls
                .iter()
                .map(|c| c.name.len() + c.arguments.len())
                .sum::<usize>();
        let max = (req.max_tokens as usize).saturating_mul(REPLY_BYTES_PER_TOKEN);
        if bytes > max {
            return Err(LlmError::Malformed(format!(
                "a reply of {bytes} bytes is longer than max_tokens = {} permits ({max} bytes)",
                req.max_tokens
            )));
        }
        let usage = match reply.usage {
            Some((input, output)) => self.usage(self.role, input, output, UsageSource::Reported),
            None => {
                let output = estimate_tokens(&reply.text)
                    + reply
                        .tool_calls
                        .iter()
                        .map(ToolCall::estimate_tokens)
                        .sum::<u64>();
                let input = req.estimate_prompt_tokens();
                self.usage(self.role, input, output, UsageSource::Counted)
            }
        };
        Ok(Completion {
            text: reply.text,
            tool_calls: reply.tool_calls,
            usage,
        })
    }

    fn usage(&self, role: Role, input: u64, output: u64, source: UsageSource) -> Usage {
        Usage {
            model: self.model.clone(),
            role,
            input,
            output,
            cached: false,
            source,
            latency_ms: 0,
        }
    }
}

#[async_trait]
impl Provider for OpenAiClient {
    fn model(&self) -> &str {
        &self.model
    }

    /// One chat turn; its tool calls are usable or dropped after one re-ask
    /// (see [`OpenAiClient`]).
    async fn chat(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        self.chat_with_usable_calls(req).await
    }

    /// Asks with `guided_choice` and a JSON-schema enum of `options`, maps the
    /// reply to an option (exact, case-insensitive, then unique substring),
    /// and re-asks once with the options listed if nothing matched. A server
    /// that rejects `guided_choice` with 400/422 (OpenAI) is asked again with
    /// the schema alone. Never picks an option the model did not name.
    async fn choose(&self, req: &ChatRequest, options: &[String]) -> Result<Choice, LlmError> {
        self.choose_among(req, options).await
    }
}

#[async_trait]
impl Embedder for OpenAiClient {
    fn model(&self) -> &str {
        &self.model
    }

    async fn embed(&self, texts: &[String]) -> Result<Embeddings, LlmError> {
        if texts.is_empty() {
            // Providers reject an empty input list; nothing to pay for either.
            return Ok(Embeddings {
                vectors: vec![],
                usage: self.usage(Role::Embedding, 0, 0, UsageSource::Counted),
            });
        }
        let body = json!({"model": self.model, "input": texts});
        let reply: EmbeddingResponse = self.post("/embeddings", &body).await?;
        if reply.data.len() != texts.len() {
            return Err(LlmError::Malformed(format!(
                "{} embeddings for {} texts",
                reply.data.len(),
                texts.len()
            )));
        }
        let mut items = reply.data;
        // `index` says which input a vector belongs to; order is not promised.
        items.sort_by_key(|item| item.index);
        let dim = items[0].embedding.len();
        let mut vectors = Vec::with_capacity(items.len());
        for item in items {
            if item.embedding.len() != dim || dim == 0 {
                return Err(LlmError::Malformed("embeddings of unequal length".into()));
            }
            vectors.push(normalise(item.embedding));
        }
        let usage = match reply.usage.and_then(|u| u.prompt_tokens) {
            Some(input) => self.usage(Role::Embedding, input, 0, UsageSource::Reported),
            None => {
                let input = texts.iter().map(|t| estimate_tokens(t)).sum();
                self.usage(Role::Embedding, input, 0, UsageSource::Counted)
            }
        };
        Ok(Embeddings { vectors, usage })
    }
}

/// Scales `v` to unit length (a zero vector stays zero).
fn normalise(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// Sum of two calls' usage (a call and its re-ask); counted if either was.
pub(super) fn sum_usage(a: &Usage, b: &Usage) -> Usage {
    let both_reported = a.source == UsageSource::Reported && b.source == UsageSource::Reported;
    Usage {
        input: a.input + b.input,
        output: a.output + b.output,
        cached: a.cached && b.cached,
        source: if both_reported {
            UsageSource::Reported
        } else {
            UsageSource::Counted
        },
        ..a.clone()
    }
}

/// A short one-line excerpt of an error body: OpenAI's `error.message` when
/// present, else the start of the body.
fn excerpt(body: &[u8]) -> String {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let message = parsed
        .as_ref()
        .and_then(|v| v.pointer("/error/message").or_else(|| v.get("error")))
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
    let one_line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > EXCERPT_CHARS {
        let cut: String = one_line.chars().take(EXCERPT_CHARS).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}

/// The error and its causes (call on an error stripped of its URL).
fn error_chain(e: &reqwest::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let text = s.to_string();
        if parts.last() != Some(&text) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use adfarm_llm::ErrorClass;

    #[test]
    fn debug_output_hides_the_key_and_url_credentials() {
        let client = OpenAiClient::new(
            "https://u:pw@example.com/v1/?api-key=abc",
            "m",
            Some(Secret::new("sk-123")),
            Duration::from_secs(1),
        )
        .unwrap();
        let debug = format!("{client:?}");
        for secret in ["sk-123", "pw", "abc", "u:"] {
            assert!(!debug.contains(secret), "{secret} in {debug}");
        }
        assert_eq!(client.with_role(Role::Judge).role(), Role::Judge);
    }

    #[test]
    fn excerpt_is_short_and_prefers_the_error_message() {
        let body = br#"{"error": {"message": "model   not\nfound", "type": "x"}}"#;
        assert_eq!(excerpt(body), "model not found");
        let long = "x".repeat(1000);
        assert_eq!(excerpt(long.as_bytes()).chars().count(), EXCERPT_CHARS + 1);
    }

    #[test]
    fn bad_base_urls_are_config_errors() {
        let e = OpenAiClient::new("ftp://x", "m", None, Duration::from_secs(1)).unwrap_err();
        assert_eq!(e.class(), ErrorClass::Permanent);
        assert!(OpenAiClient::new("not a url", "m", None, Duration::from_secs(1)).is_err());
    }

    #[test]
    fn summed_usage_is_counted_when_either_call_was() {
        let client = OpenAiClient::new("http://x/v1", "m", None, Duration::from_secs(1)).unwrap();
        let reported = client.usage(Role::Judge, 10, 2, UsageSource::Reported);
        let counted = client.usage(Role::Judge, 5, 1, UsageSource::Counted);
        let both = sum_usage(&reported, &reported);
        assert_eq!(
            (both.input, both.output, both.source),
            (20, 4, UsageSource::Reported)
        );
        assert_eq!(sum_usage(&reported, &counted).source, UsageSource::Counted);
    }
}
