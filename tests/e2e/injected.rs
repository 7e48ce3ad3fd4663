//! Messages the sweep never planned are refused by the workers, set aside
//! in the quarantine by the coordinator, and counted nowhere: the report
//! and the provider's request count stay those of a clean run.

use crate::{assert_complete, assert_same_results, sweep_id, Fake, Farm, SweepFile};
use adfarm_backbone::{Queue, Store};
use adfarm_proto::{Item, JobId, Lane};
use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn injected_envelopes_are_refused_and_counted_nowhere() {
    let fake = Fake::clean().await;
    let mut farm = Farm::new("injected");
    let spec = SweepFile::synthetic("e2e-injected", 40);
    let sweep = farm.sweep("sweep.toml", &spec, &fake);
    let clean = farm.run_embedded("embedded", &sweep, &[]).await;
    assert_complete(&clean);

    farm.start_workers(2, 8).await;
    farm.coordinate(&sweep, Duration::from_secs(60)).await;
    let before = fake.stats().await.requests;

    // Envelopes built the way the coordinator builds them, from the
    // registered sweep, then spoiled one way each.
    let store = farm.store().await;
    let rec = store
        .sweep(&sweep_id(&sweep))
        .await
        .expect("the store answers")
        .expect("the sweep is registered");
    let plan = rec.plan_of("synthetic").expect("the synthetic suite");
    let solution = plan.solutions().next().expect("a solution");
    let suite = adfarm_suites::suite("synthetic", &adfarm_suites::SuiteContext::default())
        .expect("the synthetic suite");
    let real: Item = suite
        .items("default", &rec.spec.suites[0].params)
        .expect("items")
        .next()
        .expect("an item")
        .expect("a readable item");
    let made_up = Item {
        id: "made-up".into(),
        input: "a question nobody planned".into(),
        meta: serde_json::Value::Null,
    };
    let unplanned_item = plan.solve("default", &made_up, solution, 1);
    let mut forged_id = plan.solve("default", &real, solution, 1);
    forged_id.id = JobId("0123456789abcdef0123456789abcdef".into());
    let with_version = |v: u32| {
        let mut e = plan.solve("default", &real, solution, 1);
        e.v = v;
        serde_json::to_vec(&e).expect("serialises")
    };
    let oversize = vec![b' '; adfarm_proto::MAX_ENVELOPE_BYTES + 1];
    let queue = farm.queue().await;
    for body in [
        serde_json::to_vec(&unplanned_item).expect("serialises"),
        serde_json::to_vec(&forged_id).expect("serialises"),
        with_version(0),
        with_version(99),
        oversize,
    ] {
        queue
            .publish_raw(Lane::Solve, &body)
            .await
            .expect("published");
    }

    // A coordinator of the finished sweep drains the dead letters as it
    // starts following; run it until all five are set aside.
    let mut quarantined = Vec::new();
    for _ in 0..30 {
        farm.coordinate(&sweep, Duration::from_secs(60)).await;
        quarantined = queue.quarantined(10, false).await.expect("quarantine");
        if quarantined.len() >= 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let mut codes: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &quarantined {
        *codes.entry(d.code.as_str()).or_default() += 1;
    }
    assert_eq!(
        codes,
        BTreeMap::from([("bad-version", 2), ("oversize", 1), ("unplanned", 2)]),
        "{quarantined:?}"
    );
    let unplanned: Vec<&str> = quarantined
        .iter()
        .filter(|d| d.code == "unplanned")
        .map(|d| d.reason.as_str())
        .collect();
    assert!(
        unplanned
            .iter()
            .any(|r| r.contains("is not one the sweep planned")),
        "{unplanned:?}"
    );
    assert!(
        unplanned
            .iter()
            .any(|r| r.contains("is not what its content hashes to")),
        "{unplanned:?}"
    );

    // Nothing ran, nothing moved.
    assert_eq!(fake.stats().await.requests, before);
    let report = farm.report_cluster(&sweep).await;
    assert_complete(&report);
    assert_same_results(&report, &clean);
    assert!(report.dead_letters.is_empty(), "{:?}", report.dead_letters);

    // `adfarm dead-letters` lists them, and --purge empties the quarantine.
    let mut list = farm.command("dead-letters", &["dead-letters"]);
    list.stdout(Stdio::piped());
    let out = list.output().await.expect("adfarm dead-letters runs");
    assert!(out.status.success(), "{}", farm.logs());
    let listed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(listed.lines().count(), 5, "{listed}");
    assert!(listed.contains("not a job envelope"), "{listed}");
    let purge = farm
        .command("dead-letters", &["dead-letters", "--purge"])
        .status()
        .await
        .expect("adfarm dead-letters runs");
    assert!(purge.success(), "{}", farm.logs());
    assert!(queue
        .quarantined(10, false)
        .await
        .expect("quarantine")
        .is_empty());
}
