//! Every model call of a worker goes through the gateway: the LLM cache
//! (store-backed, keyed by request hash), the sweep budget, per-process
//! concurrency, deployment-wide rate limits (with governor smoothing in the
//! process), transport retries, usage charging and metrics.
//!
//! Suites get a [`Metered`] handle that implements `Provider`/`Embedder`,
//! bound to one sweep, one provider and one role, and logs the usage of the
//! job it serves.

use crate::backends::{Backend, Backends};
use crate::openai::with_retries;
use adfarm_backbone::limiter::{Limiter, Rate};
use adfarm_backbone::metrics::Metrics;
use adfarm_backbone::{Store, SweepRecord};
use adfarm_llm::{
    estimate_tokens, ChatRequest, Choice, Completion, Embedder, Embeddings, LlmError, Provider,
};
use adfarm_proto::tally::{Tally, NANO};
use adfarm_proto::{ProviderSpec, Role, SweepId, Usage};
use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Shared by all jobs of a worker process.
pub struct Gateway {
    store: Arc<dyn Store>,
    limiter: Arc<dyn Limiter>,
    backends: Backends,
    flights: Flights,
}

/// Calls in flight in this process, by request hash: an identical request
/// waits for the one in flight and reads its answer from the cache.
#[derive(Clone, Default)]
struct Flights(Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>);

impl Flights {
    /// Waits until no other call of `key` is in flight here; holding the
    /// guard makes this one the call in flight.
    async fn enter(&self, key: &str) -> Flight {
        let lock = self
            .0
            .lock()
            .expect("flight lock is never poisoned")
            .entry(key.to_string())
            .or_default()
            .clone();
        let guard = lock.clone().lock_owned().await;
        Flight {
            flights: self.clone(),
            key: key.to_string(),
            lock,
            _guard: guard,
        }
    }
}

struct Flight {
    flights: Flights,
    key: String,
    lock: Arc<tokio::sync::Mutex<()>>,
    _guard: tokio::sync::OwnedMutexGuard<()>,
}

impl Drop for Flight {
    fn drop(&mut self) {
        let mut map = self
            .flights
            .0
            .lock()
            .expect("flight lock is never poisoned");
        // The map, this flight and its guard hold the lock: nobody waits.
        if Arc::strong_count(&self.lock) <= 3 {
            map.remove(&self.key);
        }
    }
}

impl Gateway {
    /// A gateway over `store` (cache, ledger) and `limiter` (rate limits).
    pub fn new(store: Arc<dyn Store>, limiter: Arc<dyn Limiter>, backends: Backends) -> Gateway {
        Gateway {
            store,
            limiter,
            backends,
            flights: Flights::default(),
        }
    }

    /// A handle on provider `name` of sweep `rec` for calls made in `role`.
    ///
    /// # Errors
    /// When the provider is not in the sweep or cannot be built (missing
    /// API key, unloadable local model).
    pub fn bind(
        &self,
        rec: &SweepRecord,
        name: &str,
        role: Role,
        log: UsageLog,
    ) -> Result<Metered, LlmError> {
        let spec = rec
            .spec
            .provider(name)
            .ok_or_else(|| LlmError::Config(format!("sweep has no provider {name:?}")))?;
        let backend = self.backends.get(spec)?;
        Ok(Metered {
            backend,
            flights: self.flights.clone(),
            store: self.store.clone(),
            limiter: self.limiter.clone(),
            sweep: rec.id.clone(),
            sweep_name: rec.spec.name.clone(),
            budget_usd: rec.spec.budget_usd,
            role,
            log,
        })
    }
}

/// Usage of every call made for one job, in call order.
#[derive(Clone, Default)]
pub struct UsageLog(Arc<Mutex<Vec<Usage>>>);

impl UsageLog {
    fn push(&self, u: Usage) {
        self.0
            .lock()
            .expect("usage log lock is never poisoned")
            .push(u);
    }

    /// The calls logged so far.
    pub fn take(&self) -> Vec<Usage> {
        std::mem::take(&mut *self.0.lock().expect("usage log lock is never poisoned"))
    }
}

/// A provider bound to a sweep and a role.
pub struct Metered {
    backend: Arc<Backend>,
    flights: Flights,
    store: Arc<dyn Store>,
    limiter: Arc<dyn Limiter>,
    sweep: SweepId,
    sweep_name: String,
    budget_usd: Option<f64>,
    role: Role,
    log: UsageLog,
}

/// Something a call returns that carries its usage and round-trips through
/// the cache.
trait WithUsage: Serialize + DeserializeOwned {
    fn usage_mut(&mut self) -> &mut Usage;
}
impl WithUsage for Completion {
    fn usage_mut(&mut self) -> &mut Usage {
        &mut self.usage
    }
}
impl WithUsage for Choice {
    fn usage_mut(&mut self) -> &mut Usage {
        &mut self.completion.usage
    }
}
impl WithUsage for Embeddings {
    fn usage_mut(&mut self) -> &mut Usage {
        &mut self.usage
    }
}

/// A limiter or store failure, as the call's error.
fn infra(e: impl std::fmt::Display) -> LlmError {
    LlmError::Infra(e.to_string())
}

/// Longest a call lease is held (it ends earlier when the call does).
const MAX_LEASE: Duration = Duration::from_secs(120);
/// How often a request waiting on another worker's identical call looks
/// in the cache.
const LEASE_POLL: Duration = Duration::from_millis(50);

/// Most tokens one call may report. A provider reporting more (1e15, say)
/// is wrong, and taken at its word it would overflow the sweep's counters:
/// the usage is cut to this and the call is logged.
pub const MAX_CALL_TOKENS: u64 = 100_000_000;

fn saturate(usage: &mut Usage) {
    if usage.input > MAX_CALL_TOKENS || usage.output > MAX_CALL_TOKENS {
        tracing::warn!(
            model = %usage.model,
            input = usage.input,
            output = usage.output,
            max = MAX_CALL_TOKENS,
            "Provider reported absurd token usage; counted as the maximum."
        );
        usage.input = usage.input.min(MAX_CALL_TOKENS);
        usage.output = usage.output.min(MAX_CALL_TOKENS);
    }
}

fn spec_rates(spec: &ProviderSpec) -> (Rate, Option<Rate>) {
    let requests = Rate {
        per_minute: spec.requests_per_minute,
        burst: 1.0,
    };
    let tokens = spec.tokens_per_minute.map(|tpm| Rate {
        per_minute: tpm,
        burst: (tpm / 60.0).max(1.0),
    });
    (requests, tokens)
}

fn retry_reason(e: &LlmError) -> &'static str {
    match e {
        LlmError::Status { status: 429, .. } => "429",
        LlmError::Status { .. } => "5xx",
        LlmError::Timeout(_) => "timeout",
        LlmError::Connection(_) => "connection",
        LlmError::Malformed(_) => "malformed",
        _ => "other",
    }
}

impl Metered {
    fn model(&self) -> &str {
        &self.backend.spec.model
    }

    /// Waits until the deployment-wide limits admit one request of `tokens`.
    async fn admit(&self, tokens: u64) -> Result<(), LlmError> {
        let spec = &self.backend.spec;
        let (rpm, tpm) = spec_rates(spec);
        let start = Instant::now();
        self.backend.smoothing.until_ready().await;
        let limit = spec.limit_key();
        let req_key = format!("{limit}:requests");
        let tok_key = format!("{limit}:tokens");
        loop {
            let wait = self
                .limiter
                .try_take(&req_key, rpm, 1)
                .await
                .map_err(infra)?;
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
                continue;
            }
            let Some(tpm) = tpm else { break };
            let wait = self
                .limiter
                .try_take(&tok_key, tpm, tokens)
                .await
                .map_err(infra)?;
            if wait.is_zero() {
                break;
            }
            // Give the request slot back while waiting for tokens.
            self.limiter
                .adjust(&req_key, rpm, -1)
                .await
                .map_err(infra)?;
            tokio::time::sleep(wait).await;
        }
        Metrics::global()
            .ratelimit_wait
            .with_label_values(&[&spec.model])
            .observe(start.elapsed().as_secs_f64());
        Ok(())
    }

    /// Fails with [`LlmError::Budget`] once the sweep's spend reached its budget.
    async fn check_budget(&self) -> Result<(), LlmError> {
        let Some(budget) = self.budget_usd else {
            return Ok(());
        };
        let spent = self
            .store
            .spend_nano_usd(&self.sweep)
            .await
            .map_err(|e| LlmError::Infra(e.to_string()))?;
        if spent as f64 >= budget * NANO {
            return Err(LlmError::Budget { budget_usd: budget });
        }
        Ok(())
    }

    async fn reconcile(&self, estimated: u64, actual: u64) {
        let (_, tpm) = spec_rates(&self.backend.spec);
        if let Some(tpm) = tpm {
            let key = format!("{}:tokens", self.backend.spec.limit_key());
            if let Err(e) = self
                .limiter
                .adjust(&key, tpm, actual as i64 - estimated as i64)
                .await
            {
                tracing::warn!(error = %e, "Token limiter reconciliation failed.");
            }
        }
    }

    fn account(&self, usage: &Usage, outcome: &str, cost: f64) {
        let m = Metrics::global();
        let role = self.role.as_str();
        let (cached, other) = if usage.cached {
            ("true", "false")
        } else {
            ("false", "true")
        };
        m.llm_requests
            .with_label_values(&[self.model(), role, outcome])
            .inc();
        // The failure outcomes and the other cache state exist at 0, so
        // error rates and the cached share read 0 rather than "no data".
        for failure in ["error", "rate-limited"] {
            m.llm_requests
                .with_label_values(&[self.model(), role, failure]);
        }
        for direction in ["input", "output"] {
            m.llm_tokens
                .with_label_values(&[self.model(), role, direction, other]);
        }
        m.llm_tokens
            .with_label_values(&[self.model(), role, "input", cached])
            .inc_by(usage.input);
        m.llm_tokens
            .with_label_values(&[self.model(), role, "output", cached])
            .inc_by(usage.output);
        if cost > 0.0 {
            m.llm_cost
                .with_label_values(&[self.model(), role, &self.sweep_name])
                .inc_by(cost);
        }
    }

    /// The one path of every call: cache, budget, limits, retries, charge.
    async fn call<T, F, Fut>(
        &self,
        what: &str,
        request: &impl Serialize,
        est_input: u64,
        max_output: u32,
        f: F,
    ) -> Result<T, LlmError>
    where
        T: WithUsage,
        F: Fn(Arc<Backend>) -> Fut,
        Fut: Future<Output = Result<T, LlmError>>,
    {
        let spec = &self.backend.spec;
        let req_bytes = serde_json::to_vec(request).expect("requests serialise");
        let identity = serde_json::to_vec(&(spec.kind, &spec.base_url, &spec.model))
            .expect("identity serialises");
        let key = adfarm_proto::content_hash(&[b"llm", what.as_bytes(), &identity, &req_bytes]);

        if let Some(hit) = self.hit(&key).await? {
            return Ok(hit);
        }
        // Identical requests in flight at once are made once: here by the
        // flight, across workers by a lease in the store; the others read
        // the answer from the cache.
        let _flight = self.flights.enter(&key).await;
        if let Some(hit) = self.hit(&key).await? {
            return Ok(hit);
        }
        // One attempt's time: a holder that died stalls the others this long
        // at most; a call still retrying past it may be made twice.
        let lease_ttl = Duration::from_secs_f64(spec.timeout_secs + 5.0).min(MAX_LEASE);
        loop {
            if self.store.lease(&key, lease_ttl).await.map_err(infra)? {
                break;
            }
            tokio::time::sleep(LEASE_POLL).await;
            if let Some(hit) = self.hit(&key).await? {
                return Ok(hit);
            }
        }
        let result = self.call_provider(&key, est_input, max_output, f).await;
        if let Err(e) = self.store.end_lease(&key).await {
            // It expires by itself; waiters poll the cache meanwhile.
            tracing::debug!(error = %e, "Could not end a call lease.");
        }
        result
    }

    /// The cached answer to `key`, charged to the sweep as a cache hit.
    async fn hit<T>(&self, key: &str) -> Result<Option<T>, LlmError>
    where
        T: WithUsage,
    {
        let Some(bytes) = self.store.cached(key).await.map_err(infra)? else {
            return Ok(None);
        };
        let Ok(mut hit) = serde_json::from_slice::<T>(&bytes) else {
            return Ok(None);
        };
        let usage = hit.usage_mut();
        usage.cached = true;
        usage.role = self.role;
        usage.model.clone_from(&self.backend.spec.model);
        self.store
            .charge(&self.sweep, key, None, usage, 0.0)
            .await
            .map_err(infra)?;
        self.account(usage, "cached", 0.0);
        self.log.push(usage.clone());
        Ok(Some(hit))
    }

    /// Budget, limits, retries, then the provider; the answer is charged
    /// (billed always, charged to the sweep once) and cached.
    async fn call_provider<T, F, Fut>(
        &self,
        key: &str,
        est_input: u64,
        max_output: u32,
        f: F,
    ) -> Result<T, LlmError>
    where
        T: WithUsage,
        F: Fn(Arc<Backend>) -> Fut,
        Fut: Future<Output = Result<T, LlmError>>,
    {
        let spec = &self.backend.spec;
        self.check_budget().await?;
        let _permit = self
            .backend
            .permits
            .acquire()
            .await
            .expect("semaphore never closed");
        // The limiter is charged the whole possible call up front; the real
        // usage reconciles it afterwards.
        let estimate = est_input + u64::from(max_output);
        let model = spec.model.clone();
        let latency_ms = std::sync::atomic::AtomicU64::new(0);
        let result = with_retries(
            spec.max_attempts,
            || async {
                self.admit(estimate).await?;
                // Checked again after the limiter wait: calls admitted late
                // must not spend past a budget reached meanwhile.
                self.check_budget().await?;
                // On the bill before it leaves: a worker killed while
                // waiting for the answer still leaves the request counted.
                self.store
                    .count(&self.sweep, &Tally::request_fields(&model, self.role))
                    .await
                    .map_err(infra)?;
                let t0 = Instant::now();
                let r = f(self.backend.clone()).await;
                let took = t0.elapsed();
                latency_ms.store(
                    took.as_millis() as u64,
                    std::sync::atomic::Ordering::Relaxed,
                );
                Metrics::global()
                    .llm_latency
                    .with_label_values(&[&model, self.role.as_str()])
                    .observe(took.as_secs_f64());
                if r.is_err() {
                    self.reconcile(estimate, 0).await;
                }
                r
            },
            |e: &LlmError, _after: Duration| {
                let m = Metrics::global();
                m.llm_retries
                    .with_label_values(&[&model, retry_reason(e)])
                    .inc();
                if matches!(e, LlmError::Status { status: 429, .. }) {
                    m.llm_rate_limited.with_label_values(&[&model]).inc();
                }
            },
        )
        .await;
        let mut out = match result {
            Ok(v) => v,
            Err(e) => {
                let outcome = if matches!(e, LlmError::Status { status: 429, .. }) {
                    "rate-limited"
                } else {
                    "error"
                };
                Metrics::global()
                    .llm_requests
                    .with_label_values(&[&model, self.role.as_str(), outcome])
                    .inc();
                return Err(e);
            }
        };
        let usage = out.usage_mut();
        saturate(usage);
        usage.role = self.role;
        usage.model.clone_from(&self.backend.spec.model);
        usage.cached = false;
        usage.latency_ms = latency_ms.into_inner();
        let cost = spec.cost_usd(usage.input, usage.output);
        let usage = usage.clone();
        let bytes = serde_json::to_vec(&out).expect("responses serialise");
        // The answer goes on the bill the moment it is here, before anything
        // else is awaited: a worker killed afterwards (before its job
        // settles) leaves the provider's bill complete.
        self.store
            .charge(&self.sweep, key, Some(&bytes), &usage, cost)
            .await
            .map_err(infra)?;
        self.account(&usage, "ok", cost);
        self.reconcile(estimate, usage.input + usage.output).await;
        self.log.push(usage);
        Ok(out)
    }
}

#[async_trait]
impl Provider for Metered {
    fn model(&self) -> &str {
        &self.backend.spec.model
    }

    async fn chat(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let chat = self.backend.chat()?;
        let input = req.estimate_prompt_tokens();
        self.call("chat", req, input, req.max_tokens, |_| {
            let chat = chat.clone();
            async move { chat.chat(req).await }
        })
        .await
    }

    async fn choose(&self, req: &ChatRequest, options: &[String]) -> Result<Choice, LlmError> {
        let chat = self.backend.chat()?;
        // The reply is one option plus a little JSON around it.
        let longest = options.iter().map(|o| estimate_tokens(o)).max();
        let max_output = u32::try_from(longest.unwrap_or(0) + 8).unwrap_or(u32::MAX);
        self.call(
            "choose",
            &(req, options),
            req.estimate_prompt_tokens(),
            max_output,
            |_| {
                let chat = chat.clone();
                async move { chat.choose(req, options).await }
            },
        )
        .await
    }
}

#[async_trait]
impl Embedder for Metered {
    fn model(&self) -> &str {
        &self.backend.spec.model
    }

    async fn embed(&self, texts: &[String]) -> Result<Embeddings, LlmError> {
        let embedder = self.backend.embedder()?;
        let input = texts.iter().map(|t| estimate_tokens(t)).sum();
        self.call("embed", &texts, input, 0, |_| {
            let embedder = embedder.clone();
            async move { embedder.embed(texts).await }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absurd_reported_usage_is_cut_to_the_maximum() {
        let mut u = Usage {
            model: "m".into(),
            role: Role::Judge,
            input: 1_000_000_000_000_000,
            output: 12,
            cached: false,
            source: adfarm_proto::UsageSource::Reported,
            latency_ms: 0,
        };
        saturate(&mut u);
        assert_eq!((u.input, u.output), (MAX_CALL_TOKENS, 12));
    }
}
