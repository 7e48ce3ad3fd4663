//! The OpenAI-compatible HTTP client (OpenAI, vLLM, llama.cpp server,
//! Ollama and most hosted APIs), one call per method: retries, limits and
//! caching wrap it elsewhere. [`with_retries`] is the retry loop those
//! wrappers use.

use adfarm_llm::{
    ChatRequest, Choice, Completion, Embedder, Embeddings, ErrorClass, LlmError, Message, Provider,
};
use adfarm_proto::{Role, Usage, UsageSource};
use async_trait::async_trait;
use backon::{ExponentialBuilder, Retryable};
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use std::fmt;
use std::future::Future;
use std::time::{Duration, SystemTime};

/// First backoff delay of [`backoff_policy`].
pub const BACKOFF_BASE: Duration = Duration::from_millis(200);
/// Longest backoff delay [`with_retries`] sleeps (before Retry-After).
pub const BACKOFF_MAX: Duration = Duration::from_secs(20);
/// Longest Retry-After [`with_retries`] honours: a misconfigured server
/// saying "come back tomorrow" must not park a worker that long.
pub const RETRY_AFTER_MAX: Duration = Duration::from_secs(600);
/// Longest error-body excerpt kept in [`LlmError::Status`].
const EXCERPT_CHARS: usize = 200;

/// A secret string (an API key). `Debug` and `Display` print `***`, so it
/// can sit in structs that are logged.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The secret itself, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Secret {
        Secret(value)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// A client of one model behind an OpenAI-compatible API.
///
/// `chat` posts `{base_url}/chat/completions`, `embed` posts
/// `{base_url}/embeddings` (so `base_url` ends in `/v1` for most servers).
/// Usage is the provider's `usage` when it sends one, else an estimate from
/// [`estimate_tokens`] flagged [`UsageSource::Counted`]. Cloning is cheap and
/// shares the connection pool.
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

/// Which constraint a closed-choice request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Constraint {
    /// Plain chat.
    None,
    /// vLLM's `guided_choice` and a `response_format` JSON schema.
    Full,
    /// Only the JSON schema, for servers (OpenAI) that reject `guided_choice`.
    SchemaOnly,
}

#[derive(Deserialize)]
struct ChatResponse {
    #[serde(default)]
    choices: Vec<ChatChoice>,
    usage: Option<ReportedUsage>,
}

#[derive(Deserialize)]
struct ChatChoice {
    message: ChatMessage,
}

#[derive(Deserialize)]
struct ChatMessage {
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
}

#[derive(Deserialize)]
struct ReportedUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct EmbeddingResponse {
    data: Vec<EmbeddingItem>,
    usage: Option<ReportedUsage>,
}

#[derive(Deserialize)]
struct EmbeddingItem {
    index: Option<usize>,
    embedding: Vec<f32>,
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

    /// One chat completion, constrained to `options` as `constraint` says.
    async fn complete(
        &self,
        req: &ChatRequest,
        options: &[String],
        constraint: Constraint,
    ) -> Result<Completion, LlmError> {
        let mut body = json!({
            "model": self.model,
            "messages": req.messages,
            "max_tokens": req.max_tokens,
            "temperature": req.temperature,
            "seed": req.seed,
        });
        if let Some(top_p) = req.top_p {
            body["top_p"] = json!(top_p);
        }
        if !req.stop.is_empty() {
            body["stop"] = json!(req.stop);
        }
        if constraint == Constraint::Full {
            body["guided_choice"] = json!(options);
        }
        if constraint != Constraint::None {
            // OpenAI's strict structured outputs need an object at the root.
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": "choice", "strict": true, "schema": {
                    "type": "object",
                    "properties": {"choice": {"type": "string", "enum": options}},
                    "required": ["choice"],
                    "additionalProperties": false,
                }},
            });
        }
        let reply: ChatResponse = self.post("/chat/completions", &body).await?;
        let message = reply
            .choices
            .into_iter()
            .next()
            .ok_or_else(|| LlmError::Malformed("reply has no choices".into()))?
            .message;
        let text = message
            .content
            .or(message.refusal)
            .ok_or_else(|| LlmError::Malformed("reply message has no content".into()))?;
        let usage = match reply.usage {
            Some(ReportedUsage {
                prompt_tokens: Some(input),
                completion_tokens: Some(output),
            }) => self.usage(self.role, input, output, UsageSource::Reported),
            _ => {
                let input = req
                    .messages
                    .iter()
                    .map(|m| estimate_tokens(&m.content))
                    .sum();
                self.usage(
                    self.role,
                    input,
                    estimate_tokens(&text),
                    UsageSource::Counted,
                )
            }
        };
        Ok(Completion {
            text,
            tool_calls: vec![],
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

    async fn chat(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        self.complete(req, &[], Constraint::None).await
    }

    /// Asks with `guided_choice` and a JSON-schema enum of `options`, maps the
    /// reply to an option (exact, case-insensitive, then unique substring),
    /// and re-asks once with the options listed if nothing matched. A server
    /// that rejects `guided_choice` with 400/422 (OpenAI) is asked again with
    /// the schema alone. Never picks an option the model did not name.
    async fn choose(&self, req: &ChatRequest, options: &[String]) -> Result<Choice, LlmError> {
        if options.is_empty() {
            return Err(LlmError::Config("choose needs at least one option".into()));
        }
        let mut constraint = Constraint::Full;
        let first = match self.complete(req, options, constraint).await {
            Err(LlmError::Status {
                status: 400 | 422, ..
            }) => {
                tracing::debug!(model = %self.model, "Server rejected guided_choice; asking with the JSON schema alone.");
                constraint = Constraint::SchemaOnly;
                self.complete(req, options, constraint).await?
            }
            other => other?,
        };
        if let Some(index) = match_option(&first.text, options) {
            return Ok(Choice {
                index: Some(index),
                completion: first,
            });
        }
        let mut again = req.clone();
        again.messages.push(Message::assistant(first.text.clone()));
        again
            .messages
            .push(Message::user(corrective_prompt(options)));
        let second = self.complete(&again, options, constraint).await?;
        Ok(Choice {
            index: match_option(&second.text, options),
            completion: Completion {
                text: second.text,
                tool_calls: vec![],
                usage: sum_usage(&first.usage, &second.usage),
            },
        })
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

/// Sum of two calls' usage; counted if either was.
fn sum_usage(a: &Usage, b: &Usage) -> Usage {
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

fn corrective_prompt(options: &[String]) -> String {
    let list: Vec<String> = options.iter().map(|o| format!("- {o}")).collect();
    format!(
        "Your answer did not name one of the options. Answer with exactly one of these options and nothing else:\n{}",
        list.join("\n")
    )
}

/// Maps a reply to an option: the `choice` of a JSON reply or the reply
/// itself, compared exactly, then case-insensitively after trimming spaces,
/// quotes and final punctuation, then as the one option the reply contains
/// (as whole words).
/// `None` when nothing or more than one option fits.
pub fn match_option(reply: &str, options: &[String]) -> Option<usize> {
    let answer = match serde_json::from_str::<Value>(reply.trim()) {
        Ok(Value::String(s)) => s,
        Ok(Value::Object(o)) => match o.get("choice") {
            Some(Value::String(s)) => s.clone(),
            _ => reply.to_string(),
        },
        _ => reply.to_string(),
    };
    if let Some(i) = options.iter().position(|o| *o == answer) {
        return Some(i);
    }
    let norm = |s: &str| {
        s.trim()
            .trim_matches(|c: char| c == '"' || c == '\'' || c == '`')
            .trim_end_matches(['.', '!', ','])
            .trim()
            .to_lowercase()
    };
    let unique = |hits: Vec<usize>| (hits.len() == 1).then(|| hits[0]);
    let wanted = norm(&answer);
    let equal: Vec<usize> = (0..options.len())
        .filter(|&i| norm(&options[i]) == wanted)
        .collect();
    if let Some(i) = unique(equal) {
        return Some(i);
    }
    let haystack = answer.to_lowercase();
    let contained: Vec<usize> = (0..options.len())
        .filter(|&i| {
            let o = norm(&options[i]);
            !o.is_empty() && contains_words(&haystack, &o)
        })
        .collect();
    unique(contained)
}

/// Whether `needle` occurs in `haystack` on word boundaries, so that "no"
/// is not found inside "not sure".
fn contains_words(haystack: &str, needle: &str) -> bool {
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    haystack.match_indices(needle).any(|(i, m)| {
        boundary(haystack[..i].chars().next_back())
            && boundary(haystack[i + m.len()..].chars().next())
    })
}

/// A tokenizer-free token estimate for providers that send no usage: one
/// token per run of letters/digits and one per punctuation character.
/// Roughly right for English prose; it is flagged [`UsageSource::Counted`].
pub fn estimate_tokens(text: &str) -> u64 {
    let mut n = 0;
    let mut in_word = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if !in_word {
                n += 1;
            }
            in_word = true;
        } else {
            in_word = false;
            if !c.is_whitespace() {
                n += 1;
            }
        }
    }
    n
}

/// The delay a server asked for: `retry-after-ms` (OpenAI) or
/// `Retry-After` as seconds or an HTTP date (relative to `now`).
pub fn parse_retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms / 1000.0));
        }
    }
    let value = header("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
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

/// The URL without credentials or query (Azure puts keys in the query).
fn redact_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            if !u.username().is_empty() || u.password().is_some() {
                // Only fails for URLs that cannot have credentials, which have none.
                let _ = u.set_username("***");
                let _ = u.set_password(None);
            }
            u.set_query(None);
            u.to_string()
        }
        Err(_) => "<invalid url>".into(),
    }
}

/// Jittered exponential backoff for `max_attempts` attempts in all: first
/// delay [`BACKOFF_BASE`], doubling up to [`BACKOFF_MAX`]; jitter adds up to
/// the same again, which [`with_retries`] clamps back to [`BACKOFF_MAX`].
pub fn backoff_policy(max_attempts: u32) -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_jitter()
        .with_factor(2.0)
        .with_min_delay(BACKOFF_BASE)
        .with_max_delay(BACKOFF_MAX)
        .with_max_times(max_attempts.saturating_sub(1) as usize)
}

/// Runs `f` up to `max_attempts` times (at least once), retrying only
/// [`ErrorClass::Transient`] and [`ErrorClass::RateLimited`] failures. Between
/// attempts it sleeps the [`backoff_policy`] delay, or the server's
/// Retry-After when that is longer (capped at [`RETRY_AFTER_MAX`]), and
/// calls `on_retry(error, delay)` first (for metrics and logs).
///
/// # Errors
/// The first permanent or budget error, or the last error once the attempts
/// are spent.
pub async fn with_retries<T, F, Fut, N>(max_attempts: u32, f: F, on_retry: N) -> Result<T, LlmError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, LlmError>>,
    N: FnMut(&LlmError, Duration),
{
    f.retry(backoff_policy(max_attempts))
        .when(|e: &LlmError| {
            matches!(
                e.class(),
                ErrorClass::Transient { .. } | ErrorClass::RateLimited { .. }
            )
        })
        .adjust(|e: &LlmError, backoff: Option<Duration>| {
            let backoff = backoff?.min(BACKOFF_MAX);
            let asked = match e.class() {
                ErrorClass::Transient { retry_after } | ErrorClass::RateLimited { retry_after } => {
                    retry_after
                }
                ErrorClass::Permanent | ErrorClass::Budget => None,
            };
            Some(asked.map_or(backoff, |a| backoff.max(a.min(RETRY_AFTER_MAX))))
        })
        .notify(on_retry)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn opts(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn match_option_tries_exact_then_loose_then_substring() {
        let o = opts(&["Yes", "No", "Not sure"]);
        assert_eq!(match_option("No", &o), Some(1));
        assert_eq!(match_option(r#"{"choice": "Not sure"}"#, &o), Some(2));
        assert_eq!(match_option(r#""Yes""#, &o), Some(0));
        assert_eq!(match_option("  yes. ", &o), Some(0));
        assert_eq!(match_option("I'd say it is not sure at all", &o), Some(2));
        // "no" and "not sure" are both inside: ambiguous, so no answer.
        assert_eq!(match_option("no, not sure", &o), None);
        assert_eq!(match_option("banana", &o), None);
    }

    #[test]
    fn estimate_counts_words_and_punctuation() {
        assert_eq!(estimate_tokens("Hello, world!"), 4);
        assert_eq!(estimate_tokens("  "), 0);
        assert_eq!(estimate_tokens("ad-hoc 42"), 4);
    }

    #[test]
    fn retry_after_reads_seconds_dates_and_ms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let mut h = HeaderMap::new();
        assert_eq!(parse_retry_after(&h, now), None);
        h.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(parse_retry_after(&h, now), Some(Duration::from_secs(7)));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        h.insert("retry-after", HeaderValue::from_str(&later).unwrap());
        assert_eq!(parse_retry_after(&h, now), Some(Duration::from_secs(30)));
        h.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(parse_retry_after(&h, now), None);
        h.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(
            parse_retry_after(&h, now),
            Some(Duration::from_millis(1500))
        );
    }

    #[test]
    fn excerpt_is_short_and_prefers_the_error_message() {
        let body = br#"{"error": {"message": "model   not\nfound", "type": "x"}}"#;
        assert_eq!(excerpt(body), "model not found");
        let long = "x".repeat(1000);
        assert_eq!(excerpt(long.as_bytes()).chars().count(), EXCERPT_CHARS + 1);
    }

    #[test]
    fn secrets_and_urls_are_redacted() {
        let s = Secret::new("sk-123");
        assert_eq!(format!("{s} {s:?}"), "*** ***");
        assert_eq!(s.expose(), "sk-123");
        let url = redact_url("https://user:pw@example.com/v1?api-key=abc");
        assert!(
            !url.contains("pw") && !url.contains("abc") && !url.contains("user"),
            "{url}"
        );
        let client = OpenAiClient::new(
            "https://u:pw@example.com/v1/",
            "m",
            Some(s),
            Duration::from_secs(1),
        )
        .unwrap();
        let debug = format!("{client:?}");
        assert!(
            !debug.contains("sk-123") && !debug.contains("pw"),
            "{debug}"
        );
        assert_eq!(client.with_role(Role::Judge).role(), Role::Judge);
    }

    #[test]
    fn bad_base_urls_are_config_errors() {
        let e = OpenAiClient::new("ftp://x", "m", None, Duration::from_secs(1)).unwrap_err();
        assert_eq!(e.class(), ErrorClass::Permanent);
        assert!(OpenAiClient::new("not a url", "m", None, Duration::from_secs(1)).is_err());
    }
}
