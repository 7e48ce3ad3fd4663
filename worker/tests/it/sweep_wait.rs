//! A job whose sweep is not registered (a Redis restarted empty, before the
//! coordinator registers the sweep again) waits for the registration,
//! through the queue, instead of being refused as a forgery; past the
//! worker's wait it is dead-lettered as `sweep-not-registered`. Against
//! real RabbitMQ and Redis (`ADFARM_AMQP_URL` / `ADFARM_REDIS_URL`, else
//! the local defaults).

use crate::Fake;
use adfarm_backbone::{LocalLimiter, Queue, RabbitQueue, RedisStore, Store};
use adfarm_coordinator::{plan, Coordinator};
use adfarm_fake_llm::FakeLlmConfig;
use adfarm_llm::LlmError;
use adfarm_proto::{Envelope, Lane, SweepSpec, SWEEP_NOT_REGISTERED};
use adfarm_suites::SuiteContext;
use adfarm_worker::backends::Backends;
use adfarm_worker::{Gateway, Worker, WorkerConfig};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// A per-test prefix for queue names and store keys.
fn prefix(test: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_nanos();
    format!("adfarm-test-{test}-{}-{nanos}", std::process::id())
}

/// Two items of the synthetic suite, answered by the fake server at `base`.
fn spec(test: &str, base: &str) -> SweepSpec {
    serde_json::from_value(serde_json::json!({
        "name": test,
        "suites": [{"name": "synthetic", "datasets": ["default"], "params": {"items": 2}}],
        "solutions": [{"name": "answer", "provider": "gen"}],
        "providers": [{
            "name": "gen", "kind": "openai-compatible", "base_url": base,
            "model": "fake-gen-1", "requests_per_minute": 60000.0
        }]
    }))
    .expect("a sweep spec")
}

/// A Redis store and a RabbitMQ queue under one fresh prefix.
struct Farm {
    store: Arc<RedisStore>,
    queue: Arc<RabbitQueue>,
    ctx: SuiteContext,
}

impl Farm {
    async fn start(test: &str) -> Farm {
        let prefix = prefix(test);
        let redis =
            std::env::var("ADFARM_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        let amqp = std::env::var("ADFARM_AMQP_URL")
            .unwrap_or_else(|_| "amqp://guest:guest@127.0.0.1:5672/%2f".into());
        Farm {
            store: Arc::new(RedisStore::connect(&redis, &prefix).await.expect("Redis")),
            queue: Arc::new(
                RabbitQueue::connect(&amqp, &prefix, RabbitQueue::DEFAULT_DELIVERY_LIMIT)
                    .await
                    .expect("RabbitMQ"),
            ),
            ctx: SuiteContext::default(),
        }
    }

    /// A worker on the solve lane that waits `sweep_wait` for a sweep.
    fn worker(&self, sweep_wait: Duration) -> (CancellationToken, tokio::task::JoinHandle<()>) {
        let gateway = Gateway::new(
            self.store.clone(),
            Arc::new(LocalLimiter::default()),
            Backends::new(
                Arc::new(|_| None),
                Arc::new(|_| Err(LlmError::Config("no local models here".into()))),
            ),
        );
        let config = WorkerConfig {
            lanes: vec![Lane::Solve],
            sweep_wait,
            ..WorkerConfig::default()
        };
        let worker = Arc::new(Worker::new(
            self.store.clone(),
            self.queue.clone(),
            gateway,
            self.ctx.clone(),
            config,
        ));
        let stop = CancellationToken::new();
        let task = tokio::spawn(worker.run(stop.clone()));
        (stop, task)
    }

    /// The sweep's first root job, published as if registered long ago.
    async fn publish_first_job(&self, spec: &SweepSpec) -> Envelope {
        let pipelines = plan::pipelines(spec, &self.ctx).expect("pipelines");
        let env = plan::root_jobs(spec, &pipelines, &self.ctx, &CancellationToken::new())
            .next()
            .expect("a root job")
            .expect("expands");
        self.queue.publish(&env).await.expect("published");
        env
    }

    async fn cleanup(&self) {
        let _ = self.queue.delete_all().await;
        let _ = self.store.delete_all().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_waits_for_its_sweep_to_be_registered_again() {
    let fake = Fake::start(FakeLlmConfig::default()).await;
    let farm = Farm::start("sweep-wait").await;
    let spec = spec("sweep-wait", &fake.base);
    let env = farm.publish_first_job(&spec).await;
    let (stop, worker) = farm.worker(Duration::from_secs(60));

    // Several looks at the store find no sweep: the job neither runs nor
    // ends among the dead letters (where a refusal would go).
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert!(farm
        .store
        .result(&env.sweep, &env.id)
        .await
        .unwrap()
        .is_none());
    let dead = farm
        .queue
        .take_dead_letters(10)
        .await
        .expect("dead letters");
    assert!(dead.is_empty(), "{dead:?}");

    // Registering the sweep (without publishing anything) lets it run.
    let coordinator = Coordinator::new(farm.store.clone(), farm.queue.clone(), farm.ctx.clone());
    coordinator.register(&spec).await.expect("registered");
    let start = Instant::now();
    while farm
        .store
        .result(&env.sweep, &env.id)
        .await
        .unwrap()
        .is_none()
    {
        if start.elapsed() > Duration::from_secs(30) {
            panic!(
                "the job never ran: {:?}; dead letters {:?}",
                farm.store.tally(&env.sweep).await,
                farm.queue.take_dead_letters(10).await
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(farm
        .queue
        .take_dead_letters(10)
        .await
        .expect("dead letters")
        .is_empty());
    stop.cancel();
    worker.await.expect("the worker stops");
    farm.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_that_stays_unregistered_dead_letters_its_job_after_the_wait() {
    let fake = Fake::start(FakeLlmConfig::default()).await;
    let farm = Farm::start("sweep-gone").await;
    let spec = spec("sweep-gone", &fake.base);
    let env = farm.publish_first_job(&spec).await;
    let started = Instant::now();
    let (stop, worker) = farm.worker(Duration::from_secs(3));

    let mut dead = Vec::new();
    while dead.is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "never dead-lettered"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
        dead = farm
            .queue
            .take_dead_letters(10)
            .await
            .expect("dead letters");
    }
    assert!(started.elapsed() >= Duration::from_secs(3), "it waited");
    assert_eq!(dead.len(), 1, "{dead:?}");
    assert_eq!(dead[0].code, SWEEP_NOT_REGISTERED);
    assert!(!adfarm_proto::refusal::is_refusal(&dead[0].code));
    assert!(
        dead[0].reason.contains("not registered"),
        "{}",
        dead[0].reason
    );
    let back: Envelope = serde_json::from_slice(&dead[0].body).expect("the job as sent");
    assert_eq!(back.id, env.id);
    stop.cancel();
    worker.await.expect("the worker stops");
    farm.cleanup().await;
}
