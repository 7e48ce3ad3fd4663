//! The HTTP side: routes, per-request decisions (limit, fault, latency) and
//! the counters behind `/stats`.

use crate::answer::{answer_chat, answer_embeddings, Answer, ApiError, ToolUse};
use crate::config::{ConfigError, FakeLlmConfig};
use crate::gen::Rng;
use crate::limiter::{retry_after_secs, Limiter};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::time::Instant;

/// How long an injected timeout holds the request: longer than any client
/// timeout a test or a sweep would use. Dropping the connection ends it.
pub const TIMEOUT_HOLD: Duration = Duration::from_secs(120);

/// Counters served at `GET /stats`, reset by `POST /stats/reset`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// API requests received (chat and embeddings, whatever their outcome).
    pub requests: u64,
    /// API requests by endpoint: `chat_completions`, `embeddings`.
    pub by_endpoint: BTreeMap<String, u64>,
    /// Successful answers.
    pub ok: u64,
    /// 429s sent because the rpm/tpm limit was exceeded.
    pub rate_limited: u64,
    /// Injected 429s with `Retry-After`.
    pub injected_429: u64,
    /// Injected 429s without `Retry-After`.
    pub injected_429_no_retry_after: u64,
    /// Injected 500s.
    pub server_errors: u64,
    /// Requests held past any client timeout.
    pub timeouts: u64,
    /// 200s with a body that is not JSON.
    pub malformed: u64,
    /// 4xx other than 429: bad JSON, unknown model, wrong key, bad parameters.
    pub client_errors: u64,
    /// Prompt tokens of successful answers.
    pub prompt_tokens: u64,
    /// Completion tokens of successful answers.
    pub completion_tokens: u64,
    /// Successful answers that call a tool (spoiled ones included).
    pub tool_calls: u64,
    /// Successful answers whose tool call `p_bad_tool_call` spoiled.
    pub bad_tool_calls: u64,
}

/// Which API endpoint a request hit.
#[derive(Debug, Clone, Copy)]
enum Endpoint {
    Chat,
    Embeddings,
}

impl Endpoint {
    fn name(self) -> &'static str {
        match self {
            Endpoint::Chat => "chat_completions",
            Endpoint::Embeddings => "embeddings",
        }
    }
}

/// What the fault draw decided for one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    None,
    Status500,
    Status429,
    Status429NoRetryAfter,
    Timeout,
    Malformed,
}

struct Inner {
    stats: Stats,
    /// Attempts seen per request body (keyed by its hash): the fault draw of
    /// attempt k of a body is fixed, so a retry can succeed and two runs of a
    /// sweep see the same faults.
    attempts: HashMap<[u8; 32], u64>,
    limiter: Limiter,
}

struct Shared {
    cfg: FakeLlmConfig,
    inner: Mutex<Inner>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Counters stay usable even if a handler panicked mid-update.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn fresh(cfg: &FakeLlmConfig) -> Inner {
        Inner {
            stats: Stats::default(),
            attempts: HashMap::new(),
            limiter: Limiter::new(cfg.rpm, cfg.tpm, Instant::now()),
        }
    }

    /// Draws the fault and latency of this attempt of `canonical`.
    fn decide(&self, canonical: &[u8]) -> (Fault, Duration) {
        let key = *blake3::hash(canonical).as_bytes();
        let attempt = {
            let mut inner = self.lock();
            let n = inner.attempts.entry(key).or_insert(0);
            *n += 1;
            *n - 1
        };
        let mut rng = Rng::from_parts(&[
            &self.cfg.seed.to_le_bytes(),
            b"fault",
            canonical,
            &attempt.to_le_bytes(),
        ]);
        let u = rng.unit();
        let kinds = [
            Fault::Status500,
            Fault::Status429,
            Fault::Status429NoRetryAfter,
            Fault::Timeout,
            Fault::Malformed,
        ];
        let mut edge = 0.0;
        let mut fault = Fault::None;
        for (kind, (_, p)) in kinds.into_iter().zip(self.cfg.faults()) {
            edge += p;
            if u < edge {
                fault = kind;
                break;
            }
        }
        let jitter = rng.below(self.cfg.latency_jitter_ms.saturating_add(1));
        let latency = Duration::from_millis(self.cfg.latency_ms.saturating_add(jitter));
        (fault, latency)
    }
}

/// The fake's routes, ready to be served or driven in-process.
///
/// # Errors
/// The configuration is invalid (see [`FakeLlmConfig::validate`]).
pub fn router(cfg: FakeLlmConfig) -> Result<Router, ConfigError> {
    cfg.validate()?;
    let inner = Mutex::new(Shared::fresh(&cfg));
    let shared = Arc::new(Shared { cfg, inner });
    Ok(Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/embeddings", post(embeddings))
        .route("/stats", get(stats))
        .route("/stats/reset", post(reset))
        .route("/health", get(health))
        .with_state(shared))
}

async fn chat(State(s): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    handle(&s, Endpoint::Chat, &headers, &body).await
}

async fn embeddings(State(s): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    handle(&s, Endpoint::Embeddings, &headers, &body).await
}

async fn stats(State(s): State<Arc<Shared>>) -> Json<Stats> {
    Json(s.lock().stats.clone())
}

/// Clears the counters, the per-body attempt counts and the rate-limit
/// buckets, so the next run starts exactly like a fresh server.
async fn reset(State(s): State<Arc<Shared>>) -> Json<Value> {
    *s.lock() = Shared::fresh(&s.cfg);
    Json(json!({"status": "reset"}))
}

async fn health() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

fn error_response(e: &ApiError, retry_after: Option<u64>) -> Response {
    let body = json!({"error": {
        "message": e.message, "type": e.kind, "param": Value::Null, "code": e.code}});
    let mut resp = (e.status, Json(body)).into_response();
    if let Some(secs) = retry_after {
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    resp
}

/// Checks `Authorization: Bearer <key>` when the fake has a key. The 401
/// echoes the key it was given, as some providers do, so clients can prove
/// they redact it.
fn check_auth(cfg: &FakeLlmConfig, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(key) = &cfg.api_key else {
        return Ok(());
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match given {
        Some(g) if g == key => Ok(()),
        other => Err(ApiError {
            status: StatusCode::UNAUTHORIZED,
            kind: "invalid_request_error",
            code: "invalid_api_key",
            message: format!("Incorrect API key provided: {}.", other.unwrap_or("(none)")),
        }),
    }
}

async fn handle(s: &Shared, ep: Endpoint, headers: &HeaderMap, body: &[u8]) -> Response {
    {
        let mut inner = s.lock();
        inner.stats.requests += 1;
        *inner
            .stats
            .by_endpoint
            .entry(ep.name().to_string())
            .or_insert(0) += 1;
    }
    let prepared = check_auth(&s.cfg, headers).and_then(|()| prepare(&s.cfg, ep, body));
    let (canonical, answer) = match prepared {
        Ok(p) => p,
        Err(e) => {
            s.lock().stats.client_errors += 1;
            return error_response(&e, None);
        }
    };

    let tokens = answer.prompt_tokens + answer.completion_tokens;
    let limited = s.lock().limiter.try_acquire(tokens, Instant::now());
    if let Err(wait) = limited {
        s.lock().stats.rate_limited += 1;
        let e = ApiError {
            status: StatusCode::TOO_MANY_REQUESTS,
            kind: "requests",
            code: "rate_limit_exceeded",
            message: format!(
                "Rate limit reached for {} (rpm {:?}, tpm {:?}); try again in {:.3}s.",
                ep.name(),
                s.cfg.rpm,
                s.cfg.tpm,
                wait.as_secs_f64()
            ),
        };
        return error_response(&e, Some(retry_after_secs(wait)));
    }

    // Only attempts that passed the limiter are drawn: limiter 429s depend on
    // timing, and counting them would make the fault sequence depend on it too.
    let (fault, latency) = s.decide(&canonical);
    {
        let mut inner = s.lock();
        let st = &mut inner.stats;
        match fault {
            Fault::None => {
                st.ok += 1;
                st.prompt_tokens += answer.prompt_tokens;
                st.completion_tokens += answer.completion_tokens;
                st.tool_calls += u64::from(answer.tool_use != ToolUse::None);
                st.bad_tool_calls += u64::from(answer.tool_use == ToolUse::BadCall);
            }
            Fault::Status500 => st.server_errors += 1,
            Fault::Status429 => st.injected_429 += 1,
            Fault::Status429NoRetryAfter => st.injected_429_no_retry_after += 1,
            Fault::Timeout => st.timeouts += 1,
            Fault::Malformed => st.malformed += 1,
        }
    }
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let injected_429 = |retry_after| {
        let e = ApiError {
            status: StatusCode::TOO_MANY_REQUESTS,
            kind: "requests",
            code: "rate_limit_exceeded",
            message: "Rate limit reached (injected by the fake).".into(),
        };
        error_response(&e, retry_after)
    };
    match fault {
        Fault::None => Json(answer.body).into_response(),
        Fault::Status500 => error_response(
            &ApiError {
                status: StatusCode::INTERNAL_SERVER_ERROR,
                kind: "server_error",
                code: "internal_error",
                message: "The server had an error while processing your request.".into(),
            },
            None,
        ),
        Fault::Status429 => injected_429(Some(s.cfg.injected_retry_after_s)),
        Fault::Status429NoRetryAfter => injected_429(None),
        Fault::Timeout => {
            tokio::time::sleep(TIMEOUT_HOLD).await;
            error_response(
                &ApiError {
                    status: StatusCode::GATEWAY_TIMEOUT,
                    kind: "server_error",
                    code: "timeout",
                    message: "The fake held this request past any client timeout.".into(),
                },
                None,
            )
        }
        Fault::Malformed => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            r#"{"id": "chatcmpl-fake", "object": "chat.completion", "choices": [{"message": {"content": "#,
        )
            .into_response(),
    }
}

/// Parses and answers the body; the canonical bytes (keys sorted, no
/// whitespace) key the answer and the fault draws, so formatting differences
/// between clients do not matter.
fn prepare(cfg: &FakeLlmConfig, ep: Endpoint, body: &[u8]) -> Result<(Vec<u8>, Answer), ApiError> {
    let req: Value = serde_json::from_slice(body)
        .ok()
        .filter(Value::is_object)
        .ok_or_else(|| {
            ApiError::bad_request("We could not parse the JSON body of your request.")
        })?;
    let canonical = serde_json::to_vec(&req).expect("a parsed JSON value serializes");
    let answer = match ep {
        Endpoint::Chat => answer_chat(cfg, &req, &canonical)?,
        Endpoint::Embeddings => answer_embeddings(cfg, &req)?,
    };
    Ok((canonical, answer))
}
