//! The autoscale loop: observe each pool's lanes, apply
//! [`super::decide::decide`], scale the Deployment.

use super::decide::{decide, limits_for, Observation, Policy, RateLimit};
use super::deployment::WorkerScaler;
use super::pool::Pool;
use adfarm_backbone::Queue;
use adfarm_backbone::SweepRecord;
use adfarm_proto::Lane;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// What the autoscale loop scales and how.
#[derive(Debug, Clone)]
pub struct AutoscaleSettings {
    /// The pools, each with its Deployment name.
    pub pools: Vec<(Pool, String)>,
    /// Scaling policy; each pool's min/max replace `min_replicas`/`max_replicas`.
    pub policy: Policy,
    /// Time between decisions.
    pub interval: Duration,
}

/// Unsettled jobs per lane of the sweep being followed, as the
/// coordinator's `follow` last saw them.
pub type Outstanding = watch::Receiver<BTreeMap<Lane, u64>>;

struct PoolState {
    pool: Pool,
    deployment: String,
    limits: Vec<RateLimit>,
    last_work: Instant,
}

/// Observes the pool's queues: ready messages, and the jobs its consumers
/// hold (unsettled jobs not ready, at most what the consumers can prefetch).
async fn observe(
    queue: &dyn Queue,
    lanes: &[Lane],
    outstanding: &BTreeMap<Lane, u64>,
    prefetch: u64,
) -> Result<(u64, u64), adfarm_backbone::QueueError> {
    let (mut backlog, mut in_flight) = (0, 0);
    for kind in lanes {
        let ready = queue.depth(*kind).await?;
        let consumers = queue.consumers(*kind).await?;
        let unsettled = outstanding.get(kind).copied().unwrap_or(0);
        backlog += ready;
        in_flight += unsettled
            .saturating_sub(ready)
            .min(consumers.saturating_mul(prefetch));
    }
    Ok((backlog, in_flight))
}

/// Scales every pool once per `interval` until `cancel` fires. Failures are
/// logged and retried on the next tick: scaling is best effort and never
/// stops the sweep.
pub async fn run_autoscaler(
    settings: AutoscaleSettings,
    rec: &SweepRecord,
    queue: Arc<dyn Queue>,
    scaler: Arc<dyn WorkerScaler>,
    outstanding: Outstanding,
    cancel: CancellationToken,
) {
    let mut pools: Vec<PoolState> = settings
        .pools
        .iter()
        .map(|(pool, deployment)| PoolState {
            limits: limits_for(rec, &pool.lanes),
            pool: pool.clone(),
            deployment: deployment.clone(),
            last_work: Instant::now(),
        })
        .collect();
    loop {
        for state in &mut pools {
            tick(
                &settings,
                state,
                queue.as_ref(),
                scaler.as_ref(),
                &outstanding,
            )
            .await;
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(settings.interval) => {}
        }
    }
}

/// Scales every pool to its minimum: the sweep is finished, so no more work
/// will come from this coordinator.
pub async fn scale_to_min(settings: &AutoscaleSettings, scaler: &dyn WorkerScaler) {
    for (pool, deployment) in &settings.pools {
        match scaler.replicas(deployment).await {
            Ok(n) if n > pool.min_replicas => {
                match scaler.scale(deployment, pool.min_replicas).await {
                    Ok(()) => {
                        tracing::info!(pool = %pool.name, from = n, to = pool.min_replicas, "Sweep finished; worker pool scaled down.")
                    }
                    Err(e) => {
                        tracing::warn!(pool = %pool.name, code = e.code(), error = %e, "Cannot scale the worker Deployment.")
                    }
                }
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(pool = %pool.name, code = e.code(), error = %e, "Cannot read the worker Deployment's scale.")
            }
        }
    }
}

async fn tick(
    settings: &AutoscaleSettings,
    state: &mut PoolState,
    queue: &dyn Queue,
    scaler: &dyn WorkerScaler,
    outstanding: &Outstanding,
) {
    let pool = &state.pool.name;
    let kinds = state.pool.lanes.len().max(1) as u32;
    let policy = Policy {
        min_replicas: state.pool.min_replicas,
        max_replicas: state.pool.max_replicas,
        worker_slots: settings.policy.worker_slots.saturating_mul(kinds),
        ..settings.policy.clone()
    };
    let unsettled = outstanding.borrow().clone();
    let prefetch = u64::from(settings.policy.worker_slots);
    let (backlog, in_flight) = match observe(queue, &state.pool.lanes, &unsettled, prefetch).await {
        Ok(seen) => seen,
        Err(e) => {
            tracing::warn!(pool = %pool, code = e.code(), error = %e, "Queue depth unavailable; pool left as it is.");
            return;
        }
    };
    if backlog > 0 || in_flight > 0 {
        state.last_work = Instant::now();
    }
    let current = match scaler.replicas(&state.deployment).await {
        Ok(n) => n,
        Err(e) => {
            tracing::warn!(pool = %pool, code = e.code(), error = %e, "Cannot read the worker Deployment's scale.");
            return;
        }
    };
    let obs = Observation {
        backlog,
        in_flight,
        current,
        idle_for: state.last_work.elapsed(),
    };
    let d = decide(&obs, &state.limits, &policy);
    if d.desired == current {
        return;
    }
    match scaler.scale(&state.deployment, d.desired).await {
        Ok(()) => tracing::info!(
            pool = %pool,
            from = current,
            to = d.desired,
            backlog,
            in_flight,
            rate_cap = ?d.rate_cap,
            reason = d.reason.as_str(),
            "Worker pool scaled."
        ),
        Err(e) => {
            tracing::warn!(pool = %pool, code = e.code(), error = %e, "Cannot scale the worker Deployment.");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scale::{KubeScaler, ScaleError};
    use adfarm_backbone::MemoryQueue;
    use async_trait::async_trait;
    use std::sync::Mutex;

    /// Polls `cond` for up to 10 s.
    async fn until(mut cond: impl FnMut() -> bool) -> bool {
        for _ in 0..1_000 {
            if cond() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }

    /// Records scale calls; starts every Deployment at `start` replicas.
    struct FakeScaler {
        replicas: Mutex<BTreeMap<String, u32>>,
        start: u32,
    }

    #[async_trait]
    impl WorkerScaler for FakeScaler {
        async fn replicas(&self, deployment: &str) -> Result<u32, ScaleError> {
            let map = self.replicas.lock().unwrap();
            Ok(map.get(deployment).copied().unwrap_or(self.start))
        }
        async fn scale(&self, deployment: &str, replicas: u32) -> Result<(), ScaleError> {
            self.replicas
                .lock()
                .unwrap()
                .insert(deployment.to_string(), replicas);
            Ok(())
        }
    }

    fn record(rpm: f64) -> SweepRecord {
        serde_json::from_value(serde_json::json!({
            "id": "s",
            "spec": {
                "name": "s",
                "suites": [{"name": "synthetic", "datasets": ["default"]}],
                "solutions": [{"name": "echo", "provider": "gen"}],
                "providers": [
                    {"name": "gen", "kind": "openai-compatible", "model": "m", "requests_per_minute": rpm}
                ]
            },
            "planned": {},
            "pipelines": {"synthetic": {"solutions": [0], "stages": []}},
            "estimated_cost_usd": 0.0,
            "created_unix": 0
        }))
        .unwrap()
    }

    #[tokio::test]
    async fn loop_scales_up_to_the_rate_cap_then_to_zero_when_idle() {
        let queue = MemoryQueue::new(5);
        let shared: Arc<dyn Queue> = Arc::new(queue.clone());
        for i in 0..2_000u32 {
            shared
                .publish_raw(Lane::Solve, &i.to_be_bytes())
                .await
                .unwrap();
        }
        let scaler = Arc::new(FakeScaler {
            replicas: Mutex::new(BTreeMap::new()),
            start: 0,
        });
        let settings = AutoscaleSettings {
            pools: vec![(
                Pool::parse("generate=solve:0:50", 0, 10).unwrap(),
                "w-generate".to_string(),
            )],
            policy: Policy {
                max_step_up: 100,
                idle_before_zero: Duration::from_millis(50),
                ..Policy::default()
            },
            interval: Duration::from_millis(10),
        };
        let (tx, rx) = watch::channel(BTreeMap::new());
        let cancel = CancellationToken::new();
        // 60 rpm at the default 2 s latency feeds one worker, whatever the backlog.
        let task = tokio::spawn({
            let (s, sc, c, q) = (
                settings.clone(),
                scaler.clone() as Arc<dyn WorkerScaler>,
                cancel.clone(),
                shared.clone(),
            );
            async move { run_autoscaler(s, &record(60.0), q, sc, rx, c).await }
        });
        assert!(until(|| scaler.replicas.lock().unwrap().get("w-generate") == Some(&1)).await);
        // Ticks go on; the pool stays at what the key can feed.
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(scaler.replicas("w-generate").await.unwrap(), 1);
        // Drain the queue: once idle past the period, the pool goes to zero.
        let mut consumer = shared.consume(Lane::Solve, 4_000).await.unwrap();
        for _ in 0..2_000 {
            consumer.next().await.unwrap().unwrap().ack().await.unwrap();
        }
        drop(consumer);
        tx.send(BTreeMap::new()).unwrap();
        assert!(until(|| scaler.replicas.lock().unwrap().get("w-generate") == Some(&0)).await);
        cancel.cancel();
        task.await.unwrap();
    }

    #[tokio::test]
    async fn finished_sweep_scales_pools_to_their_minimum() {
        let scaler = FakeScaler {
            replicas: Mutex::new(BTreeMap::new()),
            start: 5,
        };
        let settings = AutoscaleSettings {
            pools: vec![
                (Pool::parse("a=solve:0:9", 0, 9).unwrap(), "w-a".into()),
                (Pool::parse("b=model:2:9", 0, 9).unwrap(), "w-b".into()),
            ],
            policy: Policy::default(),
            interval: Duration::from_secs(1),
        };
        scale_to_min(&settings, &scaler).await;
        assert_eq!(scaler.replicas("w-a").await.unwrap(), 0);
        assert_eq!(scaler.replicas("w-b").await.unwrap(), 2);
    }

    /// Replicas per Deployment, and every patch as (namespace/name, replicas).
    type Shared = Arc<Mutex<(BTreeMap<String, u32>, Vec<(String, u32)>)>>;

    /// A fake Kubernetes API serving the scale subresource of Deployments.
    async fn fake_kube(start: u32) -> (kube::Config, Shared) {
        use axum::extract::{Path, State};
        use axum::routing::get;
        fn scale(ns: &str, name: &str, n: u32) -> axum::Json<serde_json::Value> {
            axum::Json(serde_json::json!({
                "apiVersion": "autoscaling/v1", "kind": "Scale",
                "metadata": { "name": name, "namespace": ns },
                "spec": { "replicas": n }, "status": { "replicas": n }
            }))
        }
        let state: Shared = Arc::default();
        let app = axum::Router::new()
            .route(
                "/apis/apps/v1/namespaces/{ns}/deployments/{name}/scale",
                get(
                    move |State(s): State<Shared>, Path((ns, name)): Path<(String, String)>| async move {
                        let n = *s.lock().unwrap().0.get(&name).unwrap_or(&start);
                        scale(&ns, &name, n)
                    },
                )
                .patch(
                    |State(s): State<Shared>,
                     Path((ns, name)): Path<(String, String)>,
                     body: axum::body::Bytes| async move {
                        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
                        let n = v["spec"]["replicas"].as_u64().unwrap() as u32;
                        let mut g = s.lock().unwrap();
                        g.0.insert(name.clone(), n);
                        g.1.push((format!("{ns}/{name}"), n));
                        scale(&ns, &name, n)
                    },
                ),
            )
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        let cfg = kube::Config::new(format!("http://{addr}").parse().unwrap());
        (cfg, state)
    }

    #[tokio::test]
    async fn loop_scales_deployments_through_the_kubernetes_api() {
        let (cfg, api) = fake_kube(0).await;
        let scaler: Arc<dyn WorkerScaler> =
            Arc::new(KubeScaler::from_config(cfg, "evals").unwrap());
        let queue = MemoryQueue::new(5);
        let shared: Arc<dyn Queue> = Arc::new(queue.clone());
        for i in 0..100u32 {
            shared
                .publish_raw(Lane::Solve, &i.to_be_bytes())
                .await
                .unwrap();
        }
        let settings = AutoscaleSettings {
            pools: Pool::per_lane(0, 10)
                .into_iter()
                .map(|p| {
                    let d = format!("adfarm-worker-{}", p.name);
                    (p, d)
                })
                .collect(),
            policy: Policy::default(),
            interval: Duration::from_millis(20),
        };
        let (_tx, rx) = watch::channel(BTreeMap::new());
        let cancel = CancellationToken::new();
        let task = tokio::spawn({
            let (s, c, q) = (settings.clone(), cancel.clone(), shared.clone());
            async move { run_autoscaler(s, &record(60.0), q, scaler, rx, c).await }
        });
        assert!(until(|| !api.lock().unwrap().1.is_empty()).await);
        tokio::time::sleep(Duration::from_millis(100)).await;
        cancel.cancel();
        task.await.unwrap();
        // Only the pool with work is patched, once, to what 60 rpm can feed.
        assert_eq!(
            api.lock().unwrap().1,
            vec![("evals/adfarm-worker-solve".to_string(), 1)]
        );
    }
}
