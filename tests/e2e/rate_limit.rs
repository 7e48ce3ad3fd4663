//! A provider's requests/min holds for the whole deployment, not per worker.

use crate::{assert_complete, figure, Fake, Farm, SweepFile};
use adfarm_fake_llm::FakeLlmConfig;
use std::time::Duration;

/// The fake enforces R = 600 rpm; three workers, each configured at R,
/// make N = 150 generate calls: no 429, and wall time within 10% of N/R.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_workers_share_one_rate_limit() {
    const R: u32 = 600;
    const N: u64 = 150;
    let fake = Fake::start(FakeLlmConfig {
        rpm: Some(R),
        ..FakeLlmConfig::default()
    })
    .await;
    let mut farm = Farm::new("rate-limit");
    let spec = SweepFile {
        judges: vec![],
        rpm: f64::from(R),
        ..SweepFile::synthetic("e2e-rate-limit", N)
    };
    let sweep = farm.sweep("sweep.toml", &spec, &fake);

    farm.start_workers(3, 16).await;
    let wall = farm.coordinate(&sweep, Duration::from_secs(60)).await;
    let report = farm.report_cluster(&sweep).await;
    assert_complete(&report);
    let s = fake.stats().await;
    assert_eq!(s.ok, N, "{s:?}");
    assert_eq!(s.rate_limited, 0, "the fake refused calls: {s:?}");

    let ideal = N as f64 * 60.0 / f64::from(R);
    let secs = wall.as_secs_f64();
    assert!(
        (secs - ideal).abs() <= 0.1 * ideal,
        "wall time {secs:.2} s is not within 10% of N/R = {ideal:.1} s"
    );
    figure(
        "rate-limit",
        format_args!(
            "N = {N} calls at R = {R} rpm over 3 workers: {secs:.2} s (N/R = {ideal:.1} s), {} requests, {} 429s",
            s.requests, s.rate_limited
        ),
    );
}

/// A server with one limit for all its models (a self-hosted vLLM, an
/// account-wide cap): the generator and the judge name one `limit_group`,
/// so together they keep to R; each alone at R would send 2R and meet 429s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn providers_of_one_limit_group_share_its_rate() {
    const R: u32 = 1200;
    const ITEMS: u64 = 40;
    let fake = Fake::start(FakeLlmConfig {
        rpm: Some(R),
        ..FakeLlmConfig::default()
    })
    .await;
    let mut farm = Farm::new("limit-group");
    let spec = SweepFile {
        rpm: f64::from(R),
        ..SweepFile::synthetic("e2e-limit-group", ITEMS)
    };
    let text = spec.toml(&fake.base_url()).replace(
        &format!("requests_per_minute = {:?}\n", f64::from(R)),
        &format!(
            "requests_per_minute = {:?}\nlimit_group = \"one-box\"\n",
            f64::from(R)
        ),
    );
    assert_eq!(text.matches("limit_group").count(), 2, "{text}");
    let sweep = farm.write("sweep.toml", &text);
    let t0 = std::time::Instant::now();
    let report = farm.run_embedded("home", &sweep, &[]).await;
    let secs = t0.elapsed().as_secs_f64();
    assert_complete(&report);
    let s = fake.stats().await;
    assert_eq!(s.ok, 2 * ITEMS, "{s:?}");
    assert_eq!(s.rate_limited, 0, "the shared limit was exceeded: {s:?}");
    figure(
        "limit-group",
        format_args!(
            "{} calls of two models under one {R} rpm limit: {secs:.2} s, {} 429s",
            s.ok, s.rate_limited
        ),
    );
}
