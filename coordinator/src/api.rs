//! The coordinator's HTTP API: submit a sweep file, follow its progress,
//! fetch its report.
//!
//! - `POST /sweeps` (TOML body): validate, register, publish, and follow in
//!   the background; answers `202` with the sweep id and job counts. A
//!   body above [`sweep_file::MAX_SWEEP_FILE_BYTES`] is refused with `413`
//!   before it is read whole.
//!   Submitting a sweep that is already followed publishes nothing again.
//! - `GET /sweeps/{id}`: progress as JSON.
//! - `GET /sweeps/{id}/report?format=md|csv|json|html`: the report.
//!
//! All state lives in the store, as for the rest of the coordinator: a
//! restarted server answers for sweeps registered before it started.

use crate::coordinate::{CoordinateError, Coordinator, Progress};
use crate::report;
use crate::sweep_file;
use adfarm_backbone::{Store, StoreError, SweepRecord};
use adfarm_proto::SweepId;
use adfarm_suites::SuiteContext;
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Looks up environment variables (API-key presence checks only).
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// What the API needs: the coordinator, its store, the suites' context.
#[derive(Clone)]
pub struct ApiState {
    coordinator: Arc<Coordinator>,
    store: Arc<dyn Store>,
    ctx: SuiteContext,
    env: EnvLookup,
    cancel: CancellationToken,
    following: Arc<Mutex<HashSet<SweepId>>>,
}

impl ApiState {
    /// State over `store` and the `coordinator` using it; background
    /// follows stop when `cancel` fires.
    pub fn new(
        coordinator: Arc<Coordinator>,
        store: Arc<dyn Store>,
        ctx: SuiteContext,
        env: EnvLookup,
        cancel: CancellationToken,
    ) -> ApiState {
        ApiState {
            coordinator,
            store,
            ctx,
            env,
            cancel,
            following: Arc::default(),
        }
    }
}

/// API failures, each answered with a status and `{"error", "code"}`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The sweep file does not validate.
    #[error(transparent)]
    SweepFile(#[from] sweep_file::SweepFileError),
    /// The request body is larger than a sweep file may be.
    #[error(transparent)]
    TooLarge(sweep_file::SweepFileError),
    /// No sweep with this id.
    #[error("no sweep {0}")]
    NotFound(String),
    /// Unknown report format.
    #[error("unknown report format {0:?}; valid: md, csv, json, html")]
    Format(String),
    /// Planning, store or queue failure.
    #[error(transparent)]
    Coordinate(#[from] CoordinateError),
    /// Store failure.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The report could not be built.
    #[error(transparent)]
    Report(#[from] report::ReportError),
}

impl ApiError {
    /// Bounded error code, usable as a metric label.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::SweepFile(_) => "api-bad-sweep-file",
            ApiError::TooLarge(_) => "api-body-too-large",
            ApiError::NotFound(_) => "api-not-found",
            ApiError::Format(_) => "api-bad-format",
            ApiError::Coordinate(_) => "api-coordinate",
            ApiError::Store(_) => "api-store",
            ApiError::Report(_) => "api-report",
        }
    }

    fn status(&self) -> StatusCode {
        match self {
            ApiError::SweepFile(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Format(_) => StatusCode::BAD_REQUEST,
            ApiError::Coordinate(_)
            | ApiError::Store(_)
            | ApiError::Report(report::ReportError::Store(_)) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Report(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status().is_server_error() {
            tracing::warn!(code = self.code(), error = %self, "API request failed.");
        }
        let body = serde_json::json!({ "error": self.to_string(), "code": self.code() });
        (self.status(), Json(body)).into_response()
    }
}

/// Answer to `POST /sweeps`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submitted {
    /// Sweep id (content hash of the spec).
    pub id: String,
    /// Sweep name.
    pub name: String,
    /// Jobs planned per kind.
    pub planned: BTreeMap<String, i64>,
    /// Jobs published by this submission (0 when already followed).
    pub published: u64,
    /// Estimated cost in USD (output at max_tokens: an upper bound).
    pub estimated_cost_usd: f64,
}

/// Answer to `GET /sweeps/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepStatus {
    /// Sweep id.
    pub id: String,
    /// Sweep name.
    pub name: String,
    /// Per kind: planned, completed, failed, skipped.
    pub jobs: BTreeMap<String, KindStatus>,
    /// Settled jobs of every kind.
    pub settled: i64,
    /// Planned jobs of every kind.
    pub planned: i64,
    /// USD spent so far.
    pub spent_usd: f64,
    /// Estimated total cost.
    pub estimated_cost_usd: f64,
    /// Budget, if any.
    pub budget_usd: Option<f64>,
    /// Every planned job is settled.
    pub finished: bool,
}

/// Job counts of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindStatus {
    /// Planned.
    pub planned: i64,
    /// Completed.
    pub completed: i64,
    /// Failed (dead-lettered).
    pub failed: i64,
    /// Skipped by the budget.
    pub skipped: i64,
}

fn status_of(rec: &SweepRecord, p: &Progress) -> SweepStatus {
    let jobs = p
        .planned
        .iter()
        .map(|(stage, planned)| {
            (
                stage.clone(),
                KindStatus {
                    planned: *planned,
                    completed: p.tally.done(stage),
                    failed: p.tally.failures(stage),
                    skipped: p.tally.skips(stage),
                },
            )
        })
        .collect();
    let (settled, planned) = p.totals();
    SweepStatus {
        id: rec.id.0.clone(),
        name: rec.spec.name.clone(),
        jobs,
        settled,
        planned,
        spent_usd: p.tally.spend_usd(),
        estimated_cost_usd: rec.estimated_cost_usd,
        budget_usd: rec.spec.budget_usd,
        finished: p.finished(),
    }
}

/// The API's routes over `state`.
pub fn router(state: ApiState) -> Router {
    Router::new()
        .route("/sweeps", post(submit))
        .route("/sweeps/{id}", get(status))
        .route("/sweeps/{id}/report", get(report_of))
        .with_state(state)
}

/// Serves the API on `addr` until `state`'s cancel token fires; returns the
/// bound address and the server task.
///
/// # Errors
/// When `addr` cannot be bound.
pub async fn serve(
    addr: SocketAddr,
    state: ApiState,
) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<std::io::Result<()>>)> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let cancel = state.cancel.clone();
    let task = tokio::spawn(async move {
        axum::serve(listener, router(state))
            .with_graceful_shutdown(async move { cancel.cancelled().await })
            .await
    });
    Ok((bound, task))
}

/// The request body as text, read no further than a sweep file's limit.
async fn bounded_body(body: axum::body::Body) -> Result<String, ApiError> {
    let file = std::path::Path::new(REQUEST_BODY);
    let unreadable = |message: String| sweep_file::SweepFileError {
        file: file.to_path_buf(),
        line: None,
        field: None,
        message,
    };
    let bytes = match axum::body::to_bytes(body, sweep_file::MAX_SWEEP_FILE_BYTES).await {
        Ok(bytes) => bytes,
        Err(e) => {
            let inner = e.into_inner();
            return Err(if inner.is::<http_body_util::LengthLimitError>() {
                ApiError::TooLarge(sweep_file::oversized(file, None))
            } else {
                ApiError::SweepFile(unreadable(format!("could not be read: {inner}")))
            });
        }
    };
    String::from_utf8(bytes.to_vec())
        .map_err(|e| ApiError::SweepFile(unreadable(format!("is not UTF-8 text: {e}"))))
}

/// The name a submitted sweep's errors give its file.
const REQUEST_BODY: &str = "<request body>";

async fn submit(State(s): State<ApiState>, body: axum::body::Body) -> Result<Response, ApiError> {
    let body = bounded_body(body).await?;
    let env = s.env.clone();
    let spec = sweep_file::parse(
        std::path::Path::new(REQUEST_BODY),
        &body,
        &s.ctx,
        &move |n: &str| env(n),
    )?;
    let (rec, plan) = sendable(s.coordinator.register(&spec)).await?;
    let fresh = s
        .following
        .lock()
        .expect("lock is not poisoned")
        .insert(rec.id.clone());
    let published = if fresh {
        match publish_off_task(s.coordinator.clone(), rec.clone()).await {
            Ok(n) => n,
            Err(e) => {
                s.following
                    .lock()
                    .expect("lock is not poisoned")
                    .remove(&rec.id);
                return Err(e.into());
            }
        }
    } else {
        0
    };
    if fresh {
        let (coordinator, cancel, following, rec) = (
            s.coordinator.clone(),
            s.cancel.clone(),
            s.following.clone(),
            rec.clone(),
        );
        tokio::spawn(async move {
            match coordinator.follow(&rec, &cancel, |_| {}).await {
                Ok(p) if p.finished() => {
                    tracing::info!(sweep = %rec.id, "Sweep finished.");
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(sweep = %rec.id, error = %e, "Following the sweep failed; submit it again to resume.");
                }
            }
            following
                .lock()
                .expect("lock is not poisoned")
                .remove(&rec.id);
        });
    }
    tracing::info!(sweep = %rec.id, published, "Sweep submitted.");
    let answer = Submitted {
        id: rec.id.0.clone(),
        name: rec.spec.name.clone(),
        planned: plan
            .planned
            .iter()
            .map(|(k, n)| (k.as_str().to_string(), *n))
            .collect(),
        published,
        estimated_cost_usd: plan.estimate.total_usd,
    };
    Ok((StatusCode::ACCEPTED, Json(answer)).into_response())
}

/// Boxes a future as `Send` where it is made: the coordinator's futures
/// borrow their arguments, and checking `Send` for all lifetimes at the
/// router is beyond the compiler.
fn sendable<'a, T>(
    f: impl std::future::Future<Output = T> + Send + 'a,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>> {
    Box::pin(f)
}

/// Publishes on a blocking thread of its own: `Coordinator::publish`'s
/// future is not provably `Send` for every lifetime, which axum handlers
/// need, and a large sweep's publication is long anyway.
async fn publish_off_task(c: Arc<Coordinator>, rec: SweepRecord) -> Result<u64, CoordinateError> {
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || handle.block_on(c.publish(&rec)))
        .await
        .expect("publishing does not panic")
}

async fn record(s: &ApiState, id: &str) -> Result<SweepRecord, ApiError> {
    s.store
        .sweep(&SweepId(id.to_string()))
        .await?
        .ok_or_else(|| ApiError::NotFound(id.to_string()))
}

async fn status(
    State(s): State<ApiState>,
    Path(id): Path<String>,
) -> Result<Json<SweepStatus>, ApiError> {
    let rec = record(&s, &id).await?;
    let p = s.coordinator.progress(&rec).await?;
    Ok(Json(status_of(&rec, &p)))
}

/// Query of `GET /sweeps/{id}/report`.
#[derive(Debug, Deserialize)]
struct ReportQuery {
    format: Option<String>,
}

async fn report_of(
    State(s): State<ApiState>,
    Path(id): Path<String>,
    Query(q): Query<ReportQuery>,
) -> Result<Response, ApiError> {
    let name = q.format.unwrap_or_else(|| "md".to_string());
    let format = report::Format::parse(&name).ok_or(ApiError::Format(name))?;
    let rec = record(&s, &id).await?;
    let r = report::build(s.store.as_ref(), &rec, &s.ctx).await?;
    let content_type = match format {
        report::Format::Markdown => "text/markdown; charset=utf-8",
        report::Format::Csv => "text/csv; charset=utf-8",
        report::Format::Json => "application/json",
        report::Format::Html => "text/html; charset=utf-8",
    };
    Ok((
        [(header::CONTENT_TYPE, content_type)],
        report::render(&r, format),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo_sweep::demo_sweep;
    use adfarm_backbone::{EmbeddedStore, MemoryQueue, Queue};

    fn sweep() -> String {
        demo_sweep("name = \"api-demo\"\njudges = [\"fake\"]", 5, "")
    }

    async fn start() -> (String, MemoryQueue, CancellationToken, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> =
            Arc::new(EmbeddedStore::open(&dir.path().join("s.redb")).unwrap());
        let queue = MemoryQueue::new(5);
        let shared: Arc<dyn Queue> = Arc::new(queue.clone());
        let ctx = SuiteContext {
            assets_dir: dir.path().to_path_buf(),
            cache_dir: None,
        };
        let coordinator = Arc::new(Coordinator::new(store.clone(), shared, ctx.clone()));
        let cancel = CancellationToken::new();
        let state = ApiState::new(coordinator, store, ctx, Arc::new(|_| None), cancel.clone());
        let (addr, _task) = serve("127.0.0.1:0".parse().unwrap(), state).await.unwrap();
        (format!("http://{addr}"), queue, cancel, dir)
    }

    /// POSTs `body` to `<url>/sweeps`.
    async fn submit(http: &reqwest::Client, url: &str, body: String) -> reqwest::Response {
        http.post(format!("{url}/sweeps"))
            .body(body)
            .send()
            .await
            .unwrap()
    }

    /// GETs `<url><path>`.
    async fn get(http: &reqwest::Client, url: &str, path: &str) -> reqwest::Response {
        http.get(format!("{url}{path}")).send().await.unwrap()
    }

    #[tokio::test]
    async fn submit_then_follow_status_and_report() {
        let (url, queue, cancel, _dir) = start().await;
        let http = reqwest::Client::new();
        let resp = submit(&http, &url, sweep()).await;
        assert_eq!(resp.status(), 202);
        let sub: Submitted = resp.json().await.unwrap();
        assert_eq!(sub.name, "api-demo");
        assert_eq!(sub.planned["solve"], 5);
        assert_eq!(sub.published, 5);
        assert_eq!(queue.depth(adfarm_proto::Lane::Solve).await.unwrap(), 5);

        // Submitting again while followed publishes nothing twice.
        let again: Submitted = submit(&http, &url, sweep()).await.json().await.unwrap();
        assert_eq!((again.id.as_str(), again.published), (sub.id.as_str(), 0));
        assert_eq!(queue.depth(adfarm_proto::Lane::Solve).await.unwrap(), 5);

        let st: SweepStatus = get(&http, &url, &format!("/sweeps/{}", sub.id))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(st.name, "api-demo");
        assert_eq!(st.jobs["solve"].planned, 5);
        assert_eq!((st.settled, st.finished), (0, false));

        for (format, needle) in [("md", "api-demo"), ("json", "\"api-demo\""), ("csv", "")] {
            let resp = get(
                &http,
                &url,
                &format!("/sweeps/{}/report?format={format}", sub.id),
            )
            .await;
            assert_eq!(resp.status(), 200, "{format}");
            let text = resp.text().await.unwrap();
            assert!(text.contains(needle), "{format}: {text}");
        }
        cancel.cancel();
    }

    #[tokio::test]
    async fn errors_have_statuses_and_codes() {
        let (url, _queue, cancel, _dir) = start().await;
        let http = reqwest::Client::new();
        let resp = submit(&http, &url, "name = \"x\"\nseeds = \"nope\"\n".into()).await;
        assert_eq!(resp.status(), 422);
        let body: serde_json::Value = resp.json().await.unwrap();
        assert_eq!(body["code"], "api-bad-sweep-file");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .starts_with("<request body>:2: seeds"),
            "{body}"
        );

        let resp = get(&http, &url, "/sweeps/nope").await;
        assert_eq!(resp.status(), 404);
        let resp = get(&http, &url, "/sweeps/nope/report?format=pdf").await;
        assert_eq!(resp.status(), 400);
        cancel.cancel();
    }

    #[tokio::test]
    async fn a_body_above_the_sweep_file_limit_is_refused_by_size() {
        let (url, queue, cancel, _dir) = start().await;
        let http = reqwest::Client::new();
        let limit = sweep_file::MAX_SWEEP_FILE_BYTES;
        let padded = |bytes: usize| format!("{}\n#{}\n", sweep(), "x".repeat(bytes));

        let resp = submit(&http, &url, padded(2 * limit)).await;
        assert_eq!(resp.status(), 413);
        let body: serde_json::Value = resp.json().await.unwrap();
        assert_eq!(body["code"], "api-body-too-large");
        let error = body["error"].as_str().unwrap();
        assert!(error.starts_with("<request body>: is over"), "{error}");
        assert!(error.contains("at most 1048576 bytes"), "{error}");
        assert_eq!(queue.depth(adfarm_proto::Lane::Solve).await.unwrap(), 0);

        // Just under the limit, the same sweep is read and planned.
        let resp = submit(&http, &url, padded(limit - sweep().len() - 8)).await;
        assert_eq!(resp.status(), 202, "{}", resp.text().await.unwrap());
        cancel.cancel();
    }
}
