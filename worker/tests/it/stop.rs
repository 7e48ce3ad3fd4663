//! Stopping a worker: jobs in flight get the grace, then are dropped
//! unsettled, so the queue holds them again and the store records nothing.

use crate::Fake;
use adfarm_backbone::{EmbeddedStore, LocalLimiter, MemoryQueue, Queue, Store};
use adfarm_coordinator::{sweep_file, Coordinator};
use adfarm_fake_llm::FakeLlmConfig;
use adfarm_llm::LlmError;
use adfarm_proto::Lane;
use adfarm_suites::SuiteContext;
use adfarm_worker::backends::Backends;
use adfarm_worker::{Gateway, Worker, WorkerConfig};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_still_running_after_the_grace_go_back_to_the_queue_unrecorded() {
    // Answers take a minute: no job can settle within the grace.
    let fake = Fake::start(FakeLlmConfig {
        latency_ms: 60_000,
        ..FakeLlmConfig::default()
    })
    .await;
    let spec = sweep_file::parse_inline(&format!(
        r#"
name = "stop"
[[suites]]
name = "synthetic"
datasets = ["default"]
params = {{ items = 3 }}
[[solutions]]
name = "answer"
provider = "slow"
[[providers]]
name = "slow"
kind = "openai-compatible"
base_url = "{}"
model = "m"
requests_per_minute = 60000
timeout_secs = 120
"#,
        fake.base
    ))
    .expect("a valid sweep");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store: Arc<dyn Store> =
        Arc::new(EmbeddedStore::open(&dir.path().join("store.redb")).expect("the store opens"));
    let memory = MemoryQueue::new(5);
    let queue: Arc<dyn Queue> = Arc::new(memory.clone());
    let ctx = SuiteContext::default();
    let coordinator = Coordinator::new(store.clone(), queue.clone(), ctx.clone());
    let (rec, _) = coordinator.register(&spec).await.expect("registered");
    let gateway = Gateway::new(
        store.clone(),
        Arc::new(LocalLimiter::default()),
        Backends::new(
            Arc::new(|_| None),
            Arc::new(|_| Err(LlmError::Config("no local models here".into()))),
        ),
    );
    let config = WorkerConfig {
        grace: Duration::from_millis(300),
        ..WorkerConfig::default()
    };
    let worker = Arc::new(Worker::new(store.clone(), queue, gateway, ctx, config));
    let stop = CancellationToken::new();
    let running = tokio::spawn(worker.run(stop.clone()));
    assert_eq!(coordinator.publish(&rec).await.expect("published"), 3);
    let deadline = Instant::now() + Duration::from_secs(10);
    while fake.stats().await.requests < 3 {
        assert!(Instant::now() < deadline, "the worker sent no calls");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let t0 = Instant::now();
    stop.cancel();
    running.await.expect("the worker stops cleanly");
    let took = t0.elapsed();
    assert!(
        (Duration::from_millis(300)..Duration::from_secs(2)).contains(&took),
        "stopped after {took:?} with a grace of 300 ms"
    );
    assert_eq!(memory.depth(Lane::Solve).await.expect("depth"), 3);
    let tally = store.tally(&rec.id).await.expect("tally");
    assert_eq!(tally.settled("solve"), 0, "{tally:?}");
}
