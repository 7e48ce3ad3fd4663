//! Stopping on a signal: jobs in flight get the grace (`--grace-secs`) to
//! settle, then the process ends; a second signal ends it at once. What
//! was not settled is resumed by the next `adfarm run` (embedded) or
//! redelivered to another worker (RabbitMQ), and nothing settled is lost
//! or counted twice: the finished sweep's report equals a clean run's.

use crate::{
    assert_complete, assert_same_results, assets_home, wait_for, Fake, Farm, Proc, SweepFile,
};
use adfarm_fake_llm::FakeLlmConfig;
use adfarm_proto::report::Report;
use std::path::Path;
use std::time::{Duration, Instant};

/// Time a stopped process may take past its grace (closing the store or
/// connections, writing the summary).
const MARGIN: Duration = Duration::from_secs(3);

/// Eight synthetic questions answered by the local SmolLM2, sampled at
/// temperature 1 with room for long answers, so answers end at different
/// times and some are still generating when the first is done.
const LOCAL_SWEEP: &str = r#"
name = "e2e-signals-local"
seeds = [1]
judges = []

[[suites]]
name = "synthetic"
datasets = ["default"]
params = { items = 8 }

[[solutions]]
name = "answer"
provider = "smollm2"
max_tokens = 512
temperature = 1.0

[[providers]]
name = "smollm2"
kind = "local"
model = "smollm2-135m-instruct"
requests_per_minute = 100000
max_concurrency = 16
timeout_secs = 600
"#;

/// `adfarm --home <assets> run <sweep> --store <store> --quiet <extra>`.
fn spawn_run(farm: &mut Farm, sweep: &Path, store: &str, extra: &[&str]) -> Proc {
    let (home, sweep, store) = (
        assets_home(),
        sweep.to_string_lossy().into_owned(),
        farm.path(store).to_string_lossy().into_owned(),
    );
    let mut args = vec!["--home", &home, "run", &sweep, "--store", &store, "--quiet"];
    args.extend(extra);
    farm.spawn("run", &args, false)
}

/// Solve jobs the process serving metrics on `port` has completed.
async fn completed_solves(port: u16) -> Option<f64> {
    let text = reqwest::get(format!("http://127.0.0.1:{port}/metrics"))
        .await
        .ok()?
        .text()
        .await
        .ok()?;
    text.lines()
        .find(|l| {
            l.starts_with("adfarm_jobs_total{")
                && l.contains(r#"kind="solve""#)
                && l.contains(r#"outcome="completed""#)
        })
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

/// Starts `adfarm run` with metrics on a free port and waits until the
/// local model has answered once (the others are still generating).
async fn run_generating(farm: &mut Farm, sweep: &Path, store: &str, grace: &str) -> Proc {
    let port = crate::free_port();
    let addr = format!("127.0.0.1:{port}");
    let p = spawn_run(
        farm,
        sweep,
        store,
        &["--grace-secs", grace, "--metrics-addr", &addr],
    );
    wait_for(Duration::from_secs(120), "a first answer", || async {
        completed_solves(port).await.filter(|n| *n >= 1.0)
    })
    .await
    .unwrap_or_else(|| panic!("the local model never answered\n{}", farm.logs()));
    p
}

/// How many times the runs so far announced a first signal on stderr.
fn stops_announced(farm: &Farm) -> usize {
    std::fs::read_to_string(farm.path("run.log"))
        .unwrap_or_default()
        .matches("stopping: jobs in flight")
        .count()
}

/// The JSON report of the sweep in the embedded `store`.
async fn report(farm: &Farm, sweep: &Path, store: &str) -> Report {
    let (home, store) = (
        assets_home(),
        farm.path(store).to_string_lossy().into_owned(),
    );
    farm.report(&["--home", &home], sweep, false, &["--store", &store])
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signalled_local_run_stops_within_the_grace_and_a_rerun_finishes_it() {
    let mut farm = Farm::new("signals-run");
    let sweep = farm.write("sweep.toml", LOCAL_SWEEP);

    let clean = spawn_run(&mut farm, &sweep, "clean.redb", &[]);
    let status = farm.wait(clean, Duration::from_secs(300)).await;
    assert!(status.success(), "clean run: {status}\n{}", farm.logs());
    let expected = report(&farm, &sweep, "clean.redb").await;
    assert_complete(&expected);

    // Two signals: the second ends the run at once, long before its grace.
    // The second is sent once the first has been taken: two signals sent
    // back to back may reach the process as one (Unix does not queue them).
    let p = run_generating(&mut farm, &sweep, "stopped.redb", "120").await;
    let stops = stops_announced(&farm);
    farm.signal(p, "TERM");
    wait_for(
        Duration::from_secs(10),
        "the first signal taken",
        || async { (stops_announced(&farm) > stops).then_some(()) },
    )
    .await
    .unwrap_or_else(|| panic!("the first signal was not announced\n{}", farm.logs()));
    farm.signal(p, "TERM");
    let t0 = Instant::now();
    let status = farm.wait(p, Duration::from_secs(60)).await;
    assert!(
        t0.elapsed() < MARGIN,
        "exit took {:?} after a second signal",
        t0.elapsed()
    );
    assert_eq!(status.code(), Some(3), "{status}\n{}", farm.logs());

    // One signal: jobs in flight get the grace, then the run stops.
    let grace = Duration::from_secs(2);
    let p = run_generating(&mut farm, &sweep, "stopped.redb", "2").await;
    farm.signal(p, "TERM");
    let t0 = Instant::now();
    let status = farm.wait(p, Duration::from_secs(60)).await;
    assert!(
        t0.elapsed() < grace + MARGIN,
        "exit took {:?} with a grace of {grace:?}\n{}",
        t0.elapsed(),
        farm.logs()
    );
    assert_eq!(status.code(), Some(3), "{status}\n{}", farm.logs());
    let logs = farm.logs();
    assert!(logs.contains("exit 3 (unfinished"), "{logs}");

    // The same command again resumes and finishes with the clean run's report.
    let p = spawn_run(&mut farm, &sweep, "stopped.redb", &[]);
    let status = farm.wait(p, Duration::from_secs(300)).await;
    assert!(status.success(), "rerun: {status}\n{}", farm.logs());
    let resumed = report(&farm, &sweep, "stopped.redb").await;
    assert_complete(&resumed);
    assert_same_results(&resumed, &expected);
    assert_eq!(resumed.usage, expected.usage);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signalled_worker_stops_within_the_grace_and_its_jobs_go_to_another() {
    let mut farm = Farm::new("signals-worker");
    let spec = SweepFile::synthetic("e2e-signals-worker", 16);
    let clean = Fake::clean().await;
    let reference = farm.sweep("reference.toml", &spec, &clean);
    let expected = farm.run_embedded("reference", &reference, &[]).await;
    assert_complete(&expected);

    // Every answer takes 2 s: a worker stopped with a 1 s grace right after
    // it sent its first calls cannot settle them.
    let slow = Fake::start(FakeLlmConfig {
        latency_ms: 2000,
        ..FakeLlmConfig::default()
    })
    .await;
    let sweep = farm.sweep("sweep.toml", &spec, &slow);
    let worker = farm.spawn(
        "worker-stopped",
        &["worker", "--concurrency", "8", "--grace-secs", "1"],
        true,
    );
    wait_for(
        Duration::from_secs(30),
        "the worker to subscribe",
        || async { (farm.consumers().await >= 1).then_some(()) },
    )
    .await
    .unwrap_or_else(|| panic!("the worker did not subscribe\n{}", farm.logs()));
    let coordinator = farm.spawn_coordinator(&sweep);
    wait_for(Duration::from_secs(30), "calls in flight", || async {
        (slow.stats().await.requests >= 8).then_some(())
    })
    .await
    .unwrap_or_else(|| panic!("the worker sent no calls\n{}", farm.logs()));

    farm.signal(worker, "TERM");
    let t0 = Instant::now();
    let status = farm.wait(worker, Duration::from_secs(60)).await;
    let grace = Duration::from_secs(1);
    assert!(
        t0.elapsed() < grace + MARGIN,
        "exit took {:?} with a grace of {grace:?}\n{}",
        t0.elapsed(),
        farm.logs()
    );
    assert!(
        status.success(),
        "stopped worker: {status}\n{}",
        farm.logs()
    );
    let (settled, planned) = farm
        .progress(&farm.store().await, &crate::sweep_id(&sweep))
        .await;
    assert!(settled < planned, "the sweep ended before the signal");

    farm.start_workers(1, 8).await;
    let status = farm.wait(coordinator, Duration::from_secs(120)).await;
    assert!(status.success(), "coordinator: {status}\n{}", farm.logs());
    let report = farm.report_cluster(&sweep).await;
    assert_complete(&report);
    assert_same_results(&report, &expected);
    assert_eq!(report.usage, expected.usage);
}
