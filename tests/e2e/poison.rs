//! Poison messages go to the dead-letter queue with a reason, and the
//! worker that met them keeps working.

use crate::{assert_complete, figure, wait_for, Fake, Farm, SweepFile};
use adfarm_backbone::{DeadLetter, Queue};
use adfarm_proto::Lane;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poison_messages_are_dead_lettered_and_the_worker_carries_on() {
    let fake = Fake::clean().await;
    let mut farm = Farm::new("poison");
    let workers = farm.start_workers(1, 4).await;
    let queue = farm.queue().await;

    queue
        .publish_raw(Lane::Solve, b"{this is not json")
        .await
        .expect("published");
    let unknown_kind = serde_json::json!({
        "v": adfarm_proto::FORMAT_VERSION,
        "sweep": "0000000000000000",
        "id": "0000000000000000",
        "attempt": 0,
        "job": {
            "stage": "summarize", "lane": "teleport", "scope": "run",
            "cell": { "suite": "synthetic", "dataset": "default", "solution": "echo", "seed": 0 },
            "item": { "id": "1", "input": "x" }
        }
    });
    queue
        .publish_raw(Lane::Model, unknown_kind.to_string().as_bytes())
        .await
        .expect("published");

    let dead = std::sync::Mutex::new(Vec::<DeadLetter>::new());
    wait_for(Duration::from_secs(30), "dead letters", || async {
        let taken = queue.take_dead_letters(10).await.expect("the DLQ answers");
        let mut dead = dead.lock().expect("not poisoned");
        dead.extend(taken);
        (dead.len() >= 2).then_some(())
    })
    .await
    .unwrap_or_else(|| panic!("dead letters: {dead:?}\n{}", farm.logs()));
    let mut dead = dead.into_inner().expect("not poisoned");
    dead.sort_by_key(|d| d.lane);
    assert_eq!(dead.len(), 2, "{dead:?}");

    let bad_json = &dead[0];
    assert_eq!(bad_json.lane, Some(Lane::Solve));
    assert_eq!(bad_json.body, b"{this is not json");
    assert_eq!(bad_json.code, "bad-message");
    assert!(
        bad_json.reason.contains("not a job envelope") && bad_json.reason.contains("line 1"),
        "{bad_json:?}"
    );
    let bad_kind = &dead[1];
    assert_eq!(bad_kind.lane, Some(Lane::Model));
    assert_eq!(bad_kind.code, "bad-message");
    assert!(
        bad_kind.reason.contains("unknown variant") && bad_kind.reason.contains("teleport"),
        "{bad_kind:?}"
    );

    // The same worker process runs a sweep afterwards.
    assert!(farm.running(workers[0]), "the worker died\n{}", farm.logs());
    let spec = SweepFile::synthetic("e2e-poison", 50);
    let sweep = farm.sweep("sweep.toml", &spec, &fake);
    farm.coordinate(&sweep, Duration::from_secs(60)).await;
    let report = farm.report_cluster(&sweep).await;
    assert_complete(&report);
    assert!(farm.running(workers[0]));
    figure(
        "poison",
        format_args!(
            "dead letters: {:?} / {:?}; then {} jobs completed on the same worker",
            (&bad_json.code, &bad_json.reason),
            (&bad_kind.code, &bad_kind.reason),
            report.jobs.values().map(|c| c.completed).sum::<i64>()
        ),
    );
}
