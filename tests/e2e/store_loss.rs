//! Redis restarted mid-sweep, on a Redis of the test's own: with its data
//! (append-only file) the sweep carries on; without it, the workers refuse
//! to write into the empty store, their jobs wait for the sweep's new
//! registration (none is quarantined as a forgery), and the coordinator,
//! run again as the README says, re-plans and republishes what is missing.
//! Either way the report equals a clean run's: never wrong totals, and a
//! billed figure that is the provider's count or says which interval it
//! covers.

use crate::own_redis::OwnRedis;
use crate::{
    assert_complete, assert_same_results, figure, sweep_id, wait_for, Fake, Farm, SweepFile,
};
use adfarm_backbone::Queue;
use adfarm_fake_llm::FakeLlmConfig;
use std::time::Duration;

async fn restart_mid_sweep(test: &str, persistent: bool) {
    let spec = SweepFile::synthetic(&format!("e2e-{test}"), 400);
    let mut redis = OwnRedis::start(persistent);
    let mut farm = Farm::new(test).with_redis(&redis.url());
    let clean = {
        let fake = Fake::clean().await;
        let sweep = farm.sweep("reference.toml", &spec, &fake);
        farm.run_embedded("reference", &sweep, &[]).await
    };
    let fake = Fake::start(FakeLlmConfig {
        latency_ms: 20,
        ..FakeLlmConfig::default()
    })
    .await;
    let sweep = farm.sweep("sweep.toml", &spec, &fake);
    let started_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs();
    farm.start_workers(2, 4).await;
    let coordinator = farm.spawn_coordinator(&sweep);
    let store = farm.store().await;
    let id = sweep_id(&sweep);
    wait_for(Duration::from_secs(60), "progress", || async {
        let (settled, planned) = farm.progress(&store, &id).await;
        (planned > 0 && settled * 4 >= planned).then_some(())
    })
    .await
    .unwrap_or_else(|| panic!("no progress\n{}", farm.logs()));

    redis.stop(!persistent);
    let restarted_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs();
    redis.launch();

    // The coordinator either rides out the restart (and re-plans when the
    // store came back empty) or exits 3 for a resume; run it again until
    // the sweep is finished, as an operator would.
    let status = farm.wait(coordinator, Duration::from_secs(120)).await;
    let resumed = status.code() != Some(0);
    if resumed {
        assert_eq!(status.code(), Some(3), "resumable exit\n{}", farm.logs());
        farm.coordinate(&sweep, Duration::from_secs(120)).await;
    }
    let replanned = farm.logs().contains("re-planning and republishing");
    if !persistent {
        // An empty store is noticed: by the coordinator following it, or by
        // the one run again (it finds no registration and plans anew).
        assert!(
            resumed || replanned,
            "the loss went unnoticed\n{}",
            farm.logs()
        );
    }
    let report = farm.report_cluster(&sweep).await;
    assert_complete(&report);
    assert_same_results(&report, &clean);
    assert_eq!(report.usage, clean.usage, "each call charged once");
    assert!(report.dead_letters.is_empty(), "{:?}", report.dead_letters);
    // Every job was planned: none waited its way into the quarantine.
    let quarantined = farm
        .queue()
        .await
        .quarantined(10_000, false)
        .await
        .expect("quarantine");
    assert!(
        quarantined.is_empty(),
        "{} quarantined: {:?}",
        quarantined.len(),
        quarantined.first()
    );
    let served = fake.stats().await.requests as i64;
    let billed: i64 = report.billed.iter().map(|b| b.requests).sum();
    let charged: i64 = report.usage.iter().map(|u| u.requests).sum();
    match report.billed_since_unix {
        // The figure covers the time since the sweep's registration after
        // the loss, and says so: within it, no more than the provider
        // served, and at least every call the results were charged for.
        Some(since) => {
            assert!(!persistent, "a store that kept its data lost nothing");
            assert!(
                (restarted_unix..=restarted_unix + 120).contains(&since),
                "billed since {since}; Redis restarted at {restarted_unix}"
            );
            assert!(
                (charged..=served).contains(&billed),
                "billed {billed}, charged {charged}, served {served}"
            );
        }
        // Nothing was lost: the bill is the provider's count (each request
        // is counted just before it is sent; a Redis stopped in between
        // leaves one counted that never left, at most the 8 in flight).
        None => {
            assert!(
                persistent,
                "the empty restart went unnoticed by every process"
            );
            assert!(
                (served..=served + 8).contains(&billed),
                "billed {billed} requests, the provider served {served}"
            );
        }
    }
    assert!(report.billed_since_unix.is_none_or(|t| t >= started_unix));
    figure(
        test,
        format_args!(
            "{} jobs; Redis {} at 25%; coordinator {}; provider served {served}, billed {} requests{}, charged {}; quarantined 0",
            spec.planned_jobs(),
            if persistent {
                "shut down and restarted with its AOF"
            } else {
                "killed and restarted empty"
            },
            if replanned {
                "re-planned in place"
            } else if resumed {
                "exited 3 and was run again"
            } else {
                "rode it out"
            },
            billed,
            if report.billed_since_unix.is_some() {
                " (since the re-registration)"
            } else {
                ""
            },
            charged,
        ),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_restarted_with_its_data_loses_nothing() {
    restart_mid_sweep("redis-aof", true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_restarted_empty_is_replanned_not_miscounted() {
    restart_mid_sweep("redis-empty", false).await;
}
