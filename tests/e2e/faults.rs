//! Faults: each sweep still completes, and its cells equal a clean run's
//! (nothing lost, nothing counted twice, no error text scored).

use crate::{
    assert_complete, assert_same_results, figure, planned, sweep_id, wait_for, Fake, Farm,
    SweepFile,
};
use adfarm_fake_llm::FakeLlmConfig;
use adfarm_proto::report::Report;
use std::time::{Duration, Instant};

/// The clean run: `adfarm run` of the same sweep against a fault-free fake.
async fn reference(farm: &mut Farm, spec: &SweepFile) -> Report {
    let clean = Fake::clean().await;
    let sweep = farm.sweep("reference.toml", spec, &clean);
    let r = farm.run_embedded("reference", &sweep, &[]).await;
    assert_complete(&r);
    r
}

/// A fake that answers after `ms` milliseconds, so a sweep has a middle.
async fn slow_fake(ms: u64) -> Fake {
    Fake::start(FakeLlmConfig {
        latency_ms: ms,
        ..FakeLlmConfig::default()
    })
    .await
}

/// Settled/planned once at least `share` of the sweep is settled.
async fn at_least(farm: &Farm, sweep: &std::path::Path, share: f64) -> (i64, i64) {
    let store = farm.store().await;
    let id = sweep_id(sweep);
    wait_for(Duration::from_secs(60), "progress", || async {
        let (settled, planned) = farm.progress(&store, &id).await;
        (planned > 0 && settled as f64 >= share * planned as f64).then_some((settled, planned))
    })
    .await
    .unwrap_or_else(|| panic!("the sweep made no progress\n{}", farm.logs()))
}

/// (a) `kill -9` of one of three workers mid-sweep.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_worker_loses_nothing() {
    let mut farm = Farm::new("kill-worker");
    let spec = SweepFile::synthetic("e2e-kill-worker", 600);
    let expected = reference(&mut farm, &spec).await;
    let fake = slow_fake(25).await;
    let sweep = farm.sweep("sweep.toml", &spec, &fake);

    let workers = farm.start_workers(3, 4).await;
    let t0 = Instant::now();
    let coordinator = farm.spawn_coordinator(&sweep);
    let (settled, total) = at_least(&farm, &sweep, 0.2).await;
    farm.kill(workers[0]).await;
    let (after, _) = farm.progress(&farm.store().await, &sweep_id(&sweep)).await;
    assert!(
        after < total,
        "the sweep ended before the kill: {after}/{total}"
    );
    let status = farm.wait(coordinator, Duration::from_secs(120)).await;
    assert!(status.success(), "coordinator: {status}\n{}", farm.logs());
    let wall = t0.elapsed();

    let report = farm.report_cluster(&sweep).await;
    assert_complete(&report);
    assert_same_results(&report, &expected);
    // A call repeated after the kill is charged once; the bill counts it
    // as often as the provider answered it.
    assert_eq!(report.usage, expected.usage);
    let served = fake.stats().await.requests as i64;
    let billed: i64 = report.billed.iter().map(|b| b.requests).sum();
    // Each request is counted just before it is sent; only a worker killed
    // in the microseconds between the two could count one the fake never
    // saw (at most its 4 in flight).
    assert!(
        (served..=served + 4).contains(&billed),
        "billed {billed} requests, the provider served {served}"
    );
    let charged: i64 = report.usage.iter().map(|u| u.requests).sum();
    assert!(billed >= charged, "billed {billed} < charged {charged}");
    figure(
        "kill-worker",
        format_args!(
            "{} jobs; worker killed at {settled}/{total} settled; finished in {:.1} s; \
             {served} fake requests, billed {billed} ({:.4} USD), charged once {charged} ({:.4} USD)",
            planned(&report),
            wall.as_secs_f64(),
            report.billed_usd(),
            report.cost_usd
        ),
    );
}

/// (b) `kill -9` of the coordinator mid-sweep, then a new one carries on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_coordinator_carries_on() {
    let mut farm = Farm::new("kill-coordinator");
    let spec = SweepFile::synthetic("e2e-kill-coordinator", 600);
    let expected = reference(&mut farm, &spec).await;
    let fake = slow_fake(25).await;
    let sweep = farm.sweep("sweep.toml", &spec, &fake);

    farm.start_workers(3, 4).await;
    let t0 = Instant::now();
    let first = farm.spawn_coordinator(&sweep);
    let (settled, total) = at_least(&farm, &sweep, 0.15).await;
    farm.kill(first).await;
    let (after, _) = farm.progress(&farm.store().await, &sweep_id(&sweep)).await;
    assert!(
        after < total,
        "the sweep ended before the kill: {after}/{total}"
    );
    let second = farm.coordinate(&sweep, Duration::from_secs(120)).await;
    let wall = t0.elapsed();

    let report = farm.report_cluster(&sweep).await;
    assert_complete(&report);
    assert_same_results(&report, &expected);
    // A call repeated after the kill is charged once.
    assert_eq!(report.usage, expected.usage);
    figure(
        "kill-coordinator",
        format_args!(
            "{} jobs; coordinator killed at {settled}/{total} settled; the second one ran {:.1} s, {:.1} s in all",
            planned(&report),
            second.as_secs_f64(),
            wall.as_secs_f64()
        ),
    );
}

/// A provider that fails 18% of attempts: 10% 500s, 5% 429s, 2% hangs past
/// the client's 1 s timeout, 1% malformed JSON.
async fn faulty_provider(test: &str, retry_after: bool) {
    let mut farm = Farm::new(test);
    let spec = SweepFile {
        timeout_secs: 1.0,
        ..SweepFile::synthetic(&format!("e2e-{test}"), 500)
    };
    let expected = reference(&mut farm, &spec).await;
    let fake = Fake::start(FakeLlmConfig {
        p_500: 0.10,
        p_429: if retry_after { 0.05 } else { 0.0 },
        p_429_no_retry_after: if retry_after { 0.0 } else { 0.05 },
        p_timeout: 0.02,
        p_malformed: 0.01,
        ..FakeLlmConfig::default()
    })
    .await;
    let sweep = farm.sweep("sweep.toml", &spec, &fake);

    farm.start_workers(3, 16).await;
    let wall = farm.coordinate(&sweep, Duration::from_secs(120)).await;
    let report = farm.report_cluster(&sweep).await;
    assert_complete(&report);
    assert_same_results(&report, &expected);
    // Failed attempts are never billed, successful ones exactly once.
    assert_eq!(report.usage, expected.usage);

    let s = fake.stats().await;
    let calls = 2 * spec.items;
    assert_eq!(s.ok, calls, "each call answered once: {s:?}");
    let (with, without) = (s.injected_429, s.injected_429_no_retry_after);
    assert!(
        s.server_errors > 0 && s.timeouts > 0 && s.malformed > 0,
        "faults were injected: {s:?}"
    );
    if retry_after {
        assert!(with > 0 && without == 0, "{s:?}");
    } else {
        assert!(without > 0 && with == 0, "{s:?}");
    }
    figure(
        test,
        format_args!(
            "{} jobs in {:.1} s; {} requests for {calls} calls: {} 500s, {with} 429s with Retry-After, \
             {without} without, {} timeouts, {} malformed",
            planned(&report),
            wall.as_secs_f64(),
            s.requests,
            s.server_errors,
            s.timeouts,
            s.malformed
        ),
    );
}

/// (c) Injected faults, 429s with Retry-After.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_faulty_provider_with_retry_after() {
    faulty_provider("faults-retry-after", true).await;
}

/// (d) Injected faults, 429s without Retry-After.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_faulty_provider_without_retry_after() {
    faulty_provider("faults-no-retry-after", false).await;
}

/// (e) `adfarm run` killed with SIGKILL mid-run, then run again: it
/// finishes, and pays again only for the calls that were in flight.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_embedded_run_resumes() {
    const CONCURRENCY: u64 = 8;
    let mut farm = Farm::new("kill-embedded");
    let spec = SweepFile::synthetic("e2e-kill-embedded", 600);
    let expected = reference(&mut farm, &spec).await;
    let calls = 2 * spec.items;
    let fake = slow_fake(20).await;
    let sweep = farm.sweep("sweep.toml", &spec, &fake);
    let c = CONCURRENCY.to_string();

    let run = farm.spawn_embedded("home", &sweep, &["--concurrency", &c]);
    let first = wait_for(Duration::from_secs(60), "requests", || async {
        let n = fake.stats().await.requests;
        (n >= calls * 2 / 5).then_some(n)
    })
    .await
    .unwrap_or_else(|| panic!("the run made no calls\n{}", farm.logs()));
    farm.kill(run).await;
    let at_kill = fake.stats().await.requests;
    assert!(at_kill < calls, "the run ended before the kill");

    let report = farm
        .run_embedded("home", &sweep, &["--concurrency", &c])
        .await;
    assert_complete(&report);
    assert_same_results(&report, &expected);
    assert_eq!(report.usage, expected.usage);
    let total = fake.stats().await.requests;
    let kinds = report.jobs.len() as u64;
    assert_eq!(kinds, 2);
    assert!(
        total >= calls && total <= calls + CONCURRENCY * kinds,
        "{total} requests over both runs for {calls} calls (at most {} in flight)",
        CONCURRENCY * kinds
    );
    assert_eq!(report.jobs["solve"].completed as u64, spec.items);
    figure(
        "kill-embedded",
        format_args!(
            "killed after {first}..{at_kill} of {calls} calls; {total} requests over both runs \
             ({} repeated, bound {})",
            total - calls,
            CONCURRENCY * kinds
        ),
    );
}

/// A judge whose model the provider does not have (404): its jobs are dead
/// letters with reason and code, and the sweep still finishes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permanent_failures_are_dead_letters() {
    let mut farm = Farm::new("dead-letters");
    let good = SweepFile::synthetic("e2e-dead-letters", 100);
    let expected = reference(&mut farm, &good).await;
    let mut spec = good.clone();
    spec.judges
        .push(("broken-judge".into(), adfarm_fake_llm::MISSING_MODEL.into()));
    let fake = Fake::clean().await;
    let sweep = farm.sweep("sweep.toml", &spec, &fake);

    farm.start_workers(2, 16).await;
    // Exit 1: the sweep finished, with failed jobs.
    farm.coordinate_to(&sweep, Duration::from_secs(60), 1).await;
    let report = farm.report_cluster(&sweep).await;

    for (kind, c) in &report.jobs {
        assert_eq!(c.completed + c.failed, c.planned, "{kind}: {c:?}");
        assert_eq!(c.skipped, 0);
    }
    let judge = &report.jobs["judge"];
    assert_eq!(
        (judge.planned, judge.completed, judge.failed),
        (200, 100, 100)
    );
    assert_eq!(report.jobs["solve"].failed, 0);
    assert_eq!(report.dead_letters.len(), 100);
    for d in &report.dead_letters {
        assert_eq!(d.stage.as_deref(), Some("judge"), "{d:?}");
        assert_eq!(d.code, "http-4xx", "{d:?}");
        assert!(d.reason.contains("404"), "{d:?}");
        assert_eq!(d.attempts, 1, "a 404 is not retried: {d:?}");
    }
    // The working judge and the generations are untouched by the broken one.
    assert_eq!(report.cells, expected.cells);
    figure(
        "dead-letters",
        format_args!(
            "{} jobs: {} completed, {} dead letters, e.g. code {} reason {:?}",
            planned(&report),
            report.jobs.values().map(|c| c.completed).sum::<i64>(),
            report.dead_letters.len(),
            report.dead_letters[0].code,
            report.dead_letters[0].reason
        ),
    );
}
