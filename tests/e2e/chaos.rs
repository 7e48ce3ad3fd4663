//! Chaos on the distributed deployment, all in one sweep: 5,000 jobs over
//! three workers while a worker is `kill -9`ed every few seconds (and a new
//! one started), RabbitMQ's application is stopped and started, and the
//! coordinator is killed and run again. The report equals a clean run's.

use crate::{
    assert_complete, assert_same_results, figure, planned, sweep_id, Fake, Farm, SweepFile,
};
use adfarm_fake_llm::FakeLlmConfig;
use std::time::{Duration, Instant};

fn rabbitmqctl(what: &str) {
    let status = std::process::Command::new("rabbitmqctl")
        .arg(what)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("rabbitmqctl runs (the test command's machine has RabbitMQ)");
    assert!(status.success(), "rabbitmqctl {what}: {status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_under_chaos_reports_what_a_clean_run_does() {
    let mut farm = Farm::new("chaos");
    let spec = SweepFile::synthetic("e2e-chaos", 2500);
    let clean = {
        let fake = Fake::clean().await;
        let sweep = farm.sweep("reference.toml", &spec, &fake);
        farm.run_embedded("reference", &sweep, &[]).await
    };
    assert_eq!(planned(&clean), 5000);
    let fake = Fake::start(FakeLlmConfig {
        latency_ms: 20,
        ..FakeLlmConfig::default()
    })
    .await;
    let sweep = farm.sweep("sweep.toml", &spec, &fake);
    let store = farm.store().await;
    let id = sweep_id(&sweep);

    let t0 = Instant::now();
    let mut workers = farm.start_workers(3, 4).await;
    let mut coordinator = farm.spawn_coordinator(&sweep);
    let mut events = Vec::new();
    let mut step = 0;
    loop {
        tokio::time::sleep(Duration::from_secs(3)).await;
        let (done, total) = farm.progress(&store, &id).await;
        if total > 0 && done >= total {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(100),
            "chaos run stalled at {done}/{total}\n{}",
            farm.logs()
        );
        match step % 3 {
            // A worker dies; a fresh one takes its place.
            0 => {
                let victim = workers.remove(0);
                farm.kill(victim).await;
                workers.extend(farm.start_workers(1, 4).await);
                events.push(format!("worker killed at {done}/{total}"));
            }
            // The broker's application goes away for 3 s.
            1 => {
                rabbitmqctl("stop_app");
                tokio::time::sleep(Duration::from_secs(3)).await;
                rabbitmqctl("start_app");
                events.push(format!("RabbitMQ stopped at {done}/{total}"));
            }
            // The coordinator dies and is started again.
            _ => {
                farm.kill(coordinator).await;
                coordinator = farm.spawn_coordinator(&sweep);
                events.push(format!("coordinator killed at {done}/{total}"));
            }
        }
        step += 1;
    }
    // The last coordinator sees the end (it may have been started after a
    // broker stop made an earlier one exit 3).
    let mut status = farm.wait(coordinator, Duration::from_secs(60)).await;
    if status.code() != Some(0) {
        let again = farm.spawn_coordinator(&sweep);
        status = farm.wait(again, Duration::from_secs(60)).await;
    }
    let wall = t0.elapsed();
    let report = farm.report_cluster(&sweep).await;
    // The report first: its dead letters say why a job failed.
    assert_complete(&report);
    assert_eq!(
        status.code(),
        Some(0),
        "coordinator: {status}\n{}",
        farm.logs()
    );
    assert_same_results(&report, &clean);
    assert_eq!(report.usage, clean.usage, "each call charged once");
    let served = fake.stats().await.requests as i64;
    let billed: i64 = report.billed.iter().map(|b| b.requests).sum();
    figure(
        "chaos",
        format_args!(
            "{} jobs in {:.1} s; {}; provider served {served}, billed {billed}, charged {}",
            planned(&report),
            wall.as_secs_f64(),
            events.join(", "),
            report.usage.iter().map(|u| u.requests).sum::<i64>()
        ),
    );
}
