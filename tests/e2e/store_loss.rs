//! Redis restarted mid-sweep, on a Redis of the test's own: with its data
//! (append-only file) the sweep carries on; without it, the workers refuse
//! to write into the empty store and the coordinator, run again as the
//! README says, re-plans and republishes what is missing. Either way the
//! report equals a clean run's: never wrong totals.

use crate::own_redis::OwnRedis;
use crate::{
    assert_complete, assert_same_results, figure, sweep_id, wait_for, Fake, Farm, SweepFile,
};
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
    figure(
        test,
        format_args!(
            "{} jobs; Redis {} at 25%; coordinator {}; billed {} requests, charged {}",
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
            report.billed.iter().map(|b| b.requests).sum::<i64>(),
            report.usage.iter().map(|u| u.requests).sum::<i64>(),
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
