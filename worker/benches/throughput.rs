//! Farm overhead, measured with no-op jobs (the synthetic `echo` solution
//! calls no model): jobs/s through the embedded deployment and through
//! RabbitMQ + Redis with 1 and 3 workers, and the planning rate and peak
//! memory of a 1,000,000-job sweep. Prints a table; `cargo bench -p
//! adfarm-worker --bench throughput`. Needs RabbitMQ and Redis for the distributed rows (skipped
//! with a note when they are not reachable).
//!
//! Workers here are separate `Worker` instances in this process, each with
//! its own broker and Redis connections, as separate processes would have.

use adfarm_backbone::{
    EmbeddedStore, Limiter, LocalLimiter, MemoryQueue, Queue, RabbitQueue, RedisStore, Store,
};
use adfarm_coordinator::{plan, sweep_file, Coordinator};
use adfarm_proto::Lane;
use adfarm_suites::SuiteContext;
use adfarm_worker::backends::{Backends, Models};
use adfarm_worker::{Gateway, Worker, WorkerConfig};
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

fn sweep(items: u64, tag: &str) -> adfarm_proto::SweepSpec {
    let text = format!(
        r#"
name = "bench-{tag}"
[[suites]]
name = "synthetic"
datasets = ["default"]
params = {{ items = {items} }}
[[solutions]]
name = "echo"
provider = "none"
[[providers]]
name = "none"
kind = "local"
model = "none"
requests_per_minute = 1
"#
    );
    sweep_file::parse_inline(&text).expect("bench sweep is valid")
}

/// The `none` provider: a model with neither side, which the echo
/// solution binds (as every solve does) and never calls.
fn backends() -> Backends {
    Backends::new(Arc::new(|_| None), Arc::new(|_| Ok(Models::default())))
}

async fn drive(
    store: Arc<dyn Store>,
    queues: Vec<Arc<dyn Queue>>,
    limiter: Arc<dyn Limiter>,
    items: u64,
    tag: &str,
) -> f64 {
    let spec = sweep(items, tag);
    let ctx = SuiteContext::default();
    let coordinator = Coordinator::new(store.clone(), queues[0].clone(), ctx.clone());
    let (rec, _) = coordinator.register(&spec).await.expect("register");
    let stop = CancellationToken::new();
    let mut handles = Vec::new();
    for q in &queues {
        let gateway = Gateway::new(store.clone(), limiter.clone(), backends());
        let config = WorkerConfig {
            lanes: vec![Lane::Solve],
            concurrency: 32,
            ..WorkerConfig::default()
        };
        let worker = Arc::new(Worker::new(
            store.clone(),
            q.clone(),
            gateway,
            ctx.clone(),
            config,
        ));
        handles.push(tokio::spawn(worker.run(stop.clone())));
    }
    let start = Instant::now();
    coordinator.publish(&rec).await.expect("publish");
    let p = coordinator
        .follow(&rec, &CancellationToken::new(), |_| {})
        .await
        .expect("follow");
    let secs = start.elapsed().as_secs_f64();
    assert!(p.finished());
    // Every job completed: a failing job is a different, cheaper path.
    for (stage, planned) in &p.planned {
        assert_eq!(
            (p.tally.done(stage), p.tally.failures(stage)),
            (*planned, 0),
            "{stage}: no-op jobs complete"
        );
    }
    stop.cancel();
    for h in handles {
        let _ = h.await;
    }
    items as f64 / secs
}

fn current_rss_mib() -> f64 {
    status_mib("VmRSS:")
}

fn peak_rss_mib() -> f64 {
    status_mib("VmHWM:")
}

fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

#[tokio::main]
async fn main() {
    let amqp = std::env::var("ADFARM_AMQP_URL")
        .unwrap_or_else(|_| "amqp://guest:guest@127.0.0.1:5672/%2f".into());
    let redis =
        std::env::var("ADFARM_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let spec = sweep(1_000_000, "plan");
    // First, so the process's peak RSS is the planner's.
    let before = current_rss_mib();
    let start = Instant::now();
    let pipelines = plan::pipelines(&spec, &SuiteContext::default()).expect("pipelines");
    let n = plan::root_jobs(
        &spec,
        &pipelines,
        &SuiteContext::default(),
        &Default::default(),
    )
    .filter(Result::is_ok)
    .count();
    let secs = start.elapsed().as_secs_f64();
    let counted = plan::plan(&spec, &SuiteContext::default()).expect("plan");
    println!(
        "planning a {n}-job sweep: {:.0} jobs/s expanded ({secs:.2} s), counts {:?}; peak RSS {:.1} MiB (RSS before: {before:.1} MiB)",
        n as f64 / secs,
        counted.planned.get("solve"),
        peak_rss_mib()
    );
    let n_embedded = 5_000;
    let n_distributed = 5_000;
    println!("| deployment | jobs | jobs/s |\n|---|---:|---:|");

    let dir = tempfile::tempdir().expect("tempdir");
    let store: Arc<dyn Store> =
        Arc::new(EmbeddedStore::open(&dir.path().join("bench.redb")).expect("store"));
    let q: Arc<dyn Queue> = Arc::new(MemoryQueue::new(5));
    let rate = drive(
        store,
        vec![q],
        Arc::new(LocalLimiter::default()),
        n_embedded,
        "embedded",
    )
    .await;
    println!("| embedded (in-process queue, redb) | {n_embedded} | {rate:.0} |");

    for workers in [1usize, 3] {
        let prefix = format!("adfarm-bench-{}-{workers}", std::process::id());
        let store = match RedisStore::connect(&redis, &prefix).await {
            Ok(s) => Arc::new(s),
            Err(e) => {
                println!("| RabbitMQ + Redis, {workers} worker(s) | - | skipped: {e} |");
                continue;
            }
        };
        let mut rabbits: Vec<Arc<RabbitQueue>> = Vec::new();
        for _ in 0..workers {
            match RabbitQueue::connect(&amqp, &prefix, RabbitQueue::DEFAULT_DELIVERY_LIMIT).await {
                Ok(q) => rabbits.push(Arc::new(q)),
                Err(e) => {
                    println!("| RabbitMQ + Redis, {workers} worker(s) | - | skipped: {e} |");
                    break;
                }
            }
        }
        if rabbits.len() != workers {
            continue;
        }
        let queues: Vec<Arc<dyn Queue>> = rabbits
            .iter()
            .map(|q| q.clone() as Arc<dyn Queue>)
            .collect();
        let limiter: Arc<dyn Limiter> = Arc::new(store.limiter());
        let rate = drive(
            store.clone(),
            queues.clone(),
            limiter,
            n_distributed,
            &prefix,
        )
        .await;
        println!("| RabbitMQ + Redis, {workers} worker(s) | {n_distributed} | {rate:.0} |");
        let _ = rabbits[0].delete_all().await;
        let _ = store.delete_all().await;
    }
}
