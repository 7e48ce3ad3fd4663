//! Every Prometheus metric AdFarm exports, in one place, and the `/metrics`
//! endpoint. Labels stay low-cardinality: model, role, kind, outcome, sweep,
//! reason, code, direction, cached, queue, metric, verdict, state — never a
//! job id, a prompt or a key (a unit test holds every metric to that).

use prometheus::{
    exponential_buckets, Encoder, GaugeVec, HistogramOpts, HistogramVec, IntCounterVec,
    IntGaugeVec, Opts, Registry, TextEncoder,
};
use std::net::SocketAddr;
use std::sync::LazyLock;

/// The process-wide metrics.
pub struct Metrics {
    /// The registry `/metrics` serves.
    pub registry: Registry,
    /// LLM calls by model, role and outcome (`ok`, `cached`, `error`, `rate-limited`).
    pub llm_requests: IntCounterVec,
    /// Tokens by model, role, direction (`input`/`output`) and cached (`true`/`false`).
    pub llm_tokens: IntCounterVec,
    /// Money spent by model, role and sweep.
    pub llm_cost: prometheus::CounterVec,
    /// Provider call latency by model and role (cache hits excluded).
    pub llm_latency: HistogramVec,
    /// Transport retries by model and reason (`429`, `5xx`, `timeout`, `connection`, `malformed`).
    pub llm_retries: IntCounterVec,
    /// 429 answers received by model.
    pub llm_rate_limited: IntCounterVec,
    /// Replies whose tool call stayed unusable after one re-ask (unknown
    /// tool, arguments not a JSON object), by model: the turn went on
    /// without a call.
    pub llm_tool_call_errors: IntCounterVec,
    /// Seconds spent waiting for the rate limiter, by model.
    pub ratelimit_wait: HistogramVec,
    /// Jobs settled by kind and outcome (`completed`, `duplicate`, `retried`, `failed`, `skipped`).
    pub jobs: IntCounterVec,
    /// Job execution time by kind.
    pub job_duration: HistogramVec,
    /// Messages ready per queue (job kind).
    pub queue_depth: IntGaugeVec,
    /// Consumers per queue (job kind).
    pub queue_consumers: IntGaugeVec,
    /// Sweep jobs by sweep, kind and state (`planned`, `completed`, `failed`, `skipped`).
    pub sweep_jobs: IntGaugeVec,
    /// Sweep money by sweep and state (`spent`, `budget`, `estimated`, `remaining-estimate`).
    pub sweep_cost: GaugeVec,
    /// Judge verdicts by judge model, metric and verdict (`scored`, `unscored`).
    pub judge_verdicts: IntCounterVec,
    /// 1 per worker process per job kind it consumes; summed, the worker count.
    pub workers: IntGaugeVec,
}

/// Label names any AdFarm metric may use.
pub const ALLOWED_LABELS: &[&str] = &[
    "model",
    "role",
    "kind",
    "outcome",
    "sweep",
    "reason",
    "code",
    "direction",
    "cached",
    "queue",
    "metric",
    "verdict",
    "state",
];

fn counter(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    let c = IntCounterVec::new(Opts::new(name, help), labels).expect("valid metric");
    r.register(Box::new(c.clone()))
        .expect("metric registered once");
    c
}

fn gauge(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    let g = IntGaugeVec::new(Opts::new(name, help), labels).expect("valid metric");
    r.register(Box::new(g.clone()))
        .expect("metric registered once");
    g
}

fn histogram(r: &Registry, name: &str, help: &str, labels: &[&str]) -> HistogramVec {
    let buckets = exponential_buckets(0.005, 2.0, 16).expect("valid buckets");
    let h = HistogramVec::new(HistogramOpts::new(name, help).buckets(buckets), labels)
        .expect("valid metric");
    r.register(Box::new(h.clone()))
        .expect("metric registered once");
    h
}

impl Metrics {
    fn new() -> Metrics {
        let r = Registry::new();
        let llm_cost = prometheus::CounterVec::new(
            Opts::new(
                "adfarm_llm_cost_usd_total",
                "Money spent on model calls, USD.",
            ),
            &["model", "role", "sweep"],
        )
        .expect("valid metric");
        r.register(Box::new(llm_cost.clone()))
            .expect("metric registered once");
        let sweep_cost = GaugeVec::new(
            Opts::new(
                "adfarm_sweep_cost_usd",
                "Sweep spend, budget and estimates, USD.",
            ),
            &["sweep", "state"],
        )
        .expect("valid metric");
        r.register(Box::new(sweep_cost.clone()))
            .expect("metric registered once");
        Metrics {
            llm_requests: counter(
                &r,
                "adfarm_llm_requests_total",
                "LLM calls.",
                &["model", "role", "outcome"],
            ),
            llm_tokens: counter(
                &r,
                "adfarm_llm_tokens_total",
                "LLM tokens.",
                &["model", "role", "direction", "cached"],
            ),
            llm_cost,
            llm_latency: histogram(
                &r,
                "adfarm_llm_request_duration_seconds",
                "Provider call latency.",
                &["model", "role"],
            ),
            llm_retries: counter(
                &r,
                "adfarm_llm_retries_total",
                "Transport retries.",
                &["model", "reason"],
            ),
            llm_rate_limited: counter(
                &r,
                "adfarm_llm_rate_limited_total",
                "429 answers received.",
                &["model"],
            ),
            llm_tool_call_errors: counter(
                &r,
                "adfarm_llm_tool_call_errors_total",
                "Tool calls still unusable after a re-ask.",
                &["model"],
            ),
            ratelimit_wait: histogram(
                &r,
                "adfarm_ratelimit_wait_seconds",
                "Time waiting for the rate limiter.",
                &["model"],
            ),
            jobs: counter(
                &r,
                "adfarm_jobs_total",
                "Jobs settled.",
                &["kind", "outcome"],
            ),
            job_duration: histogram(
                &r,
                "adfarm_job_duration_seconds",
                "Job execution time.",
                &["kind"],
            ),
            queue_depth: gauge(
                &r,
                "adfarm_queue_depth_messages",
                "Messages ready per queue.",
                &["queue"],
            ),
            queue_consumers: gauge(
                &r,
                "adfarm_queue_consumers",
                "Consumers per queue.",
                &["queue"],
            ),
            sweep_jobs: gauge(
                &r,
                "adfarm_sweep_jobs",
                "Sweep jobs by state.",
                &["sweep", "kind", "state"],
            ),
            sweep_cost,
            judge_verdicts: counter(
                &r,
                "adfarm_judge_verdicts_total",
                "Judge verdicts.",
                &["model", "metric", "verdict"],
            ),
            workers: gauge(
                &r,
                "adfarm_workers",
                "Worker processes consuming a job kind (1 per process).",
                &["kind"],
            ),
            registry: r,
        }
    }

    /// The process-wide instance.
    pub fn global() -> &'static Metrics {
        static M: LazyLock<Metrics> = LazyLock::new(Metrics::new);
        &M
    }

    /// The text exposition of every metric.
    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut buf)
            .expect("text encoding cannot fail");
        String::from_utf8(buf).expect("exposition is UTF-8")
    }
}

/// Serves `/metrics` on `addr` until the process ends.
///
/// # Errors
/// When `addr` cannot be bound.
pub async fn serve(addr: SocketAddr) -> std::io::Result<SocketAddr> {
    let app = axum::Router::new().route(
        "/metrics",
        axum::routing::get(|| async { Metrics::global().render() }),
    );
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "Metrics endpoint stopped.");
        }
    });
    Ok(bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_pattern_and_labels_the_allow_list() {
        let m = Metrics::global();
        // Touch every vector so gather() lists it.
        m.llm_requests
            .with_label_values(&["m", "judge", "ok"])
            .inc();
        m.llm_tokens
            .with_label_values(&["m", "judge", "input", "false"])
            .inc();
        m.llm_cost.with_label_values(&["m", "judge", "s"]).inc();
        m.llm_latency
            .with_label_values(&["m", "judge"])
            .observe(0.1);
        m.llm_retries.with_label_values(&["m", "429"]).inc();
        m.llm_rate_limited.with_label_values(&["m"]).inc();
        m.llm_tool_call_errors.with_label_values(&["m"]).inc();
        m.ratelimit_wait.with_label_values(&["m"]).observe(0.1);
        m.jobs.with_label_values(&["judge", "completed"]).inc();
        m.job_duration.with_label_values(&["judge"]).observe(0.1);
        m.queue_depth.with_label_values(&["judge"]).set(1);
        m.queue_consumers.with_label_values(&["judge"]).set(1);
        m.sweep_jobs
            .with_label_values(&["s", "judge", "planned"])
            .set(1);
        m.sweep_cost.with_label_values(&["s", "spent"]).set(1.0);
        m.judge_verdicts
            .with_label_values(&["m", "x", "scored"])
            .inc();
        m.workers.with_label_values(&["judge"]).set(1);
        let families = m.registry.gather();
        assert_eq!(families.len(), 16);
        for f in families {
            let name = f.name();
            assert!(name.starts_with("adfarm_"), "{name}");
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{name}"
            );
            if f.get_field_type() == prometheus::proto::MetricType::COUNTER {
                assert!(name.ends_with("_total"), "{name}");
            }
            for metric in f.get_metric() {
                for l in metric.get_label() {
                    assert!(
                        ALLOWED_LABELS.contains(&l.name()),
                        "{name} has label {}",
                        l.name()
                    );
                }
            }
        }
    }
}
