//! Store conformance: every scenario runs against the embedded store (in a
//! temporary directory) and the Redis store (a real Redis at
//! `redis://127.0.0.1:6379`, or `ADFARM_REDIS_URL`), and where both end in a
//! tally, the two tallies must be identical: the deployments differ in
//! transport only, never in what a sweep adds up to.
//!
//! Each test uses its own key prefix and deletes its keys when it ends, even
//! when it fails.

use crate::{redis_prefix, redis_url};
use adfarm_backbone::{EmbeddedStore, Recorded, RedisStore, Store, SweepRecord};
use adfarm_proto::tally::Tally;
use adfarm_proto::{
    Cell, Failure, JobId, JobResult, Output, Role, Score, SweepId, Usage, UsageSource, Verdict,
};
use std::sync::Arc;

/// Both stores, fresh, for one test; the Redis keys go when this drops.
struct Stores {
    embedded: EmbeddedStore,
    redis: RedisStore,
    prefix: String,
    _dir: tempfile::TempDir,
}

impl Stores {
    async fn new(test: &str) -> Stores {
        let dir = tempfile::tempdir().expect("temporary directory");
        let embedded = EmbeddedStore::open(&dir.path().join("store.redb")).expect("embedded store");
        let prefix = redis_prefix(test);
        Stores {
            embedded,
            redis: Stores::redis_handle(&prefix).await,
            prefix,
            _dir: dir,
        }
    }

    /// Another connection to the same Redis store, as a second worker has.
    async fn redis_handle(prefix: &str) -> RedisStore {
        RedisStore::connect(&redis_url(), prefix)
            .await
            .unwrap_or_else(|e| panic!("these tests need Redis (set ADFARM_REDIS_URL): {e}"))
    }
}

impl Drop for Stores {
    fn drop(&mut self) {
        // Synchronous on purpose: Drop cannot await, and it must run when an
        // assertion panics too.
        if let Err(e) = purge(&self.prefix) {
            eprintln!("could not delete test keys under {}: {e}", self.prefix);
        }
    }
}

fn purge(prefix: &str) -> redis::RedisResult<()> {
    let mut con = redis::Client::open(redis_url())?.get_connection()?;
    let mut cursor: u64 = 0;
    loop {
        let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(format!("{prefix}:*"))
            .arg("COUNT")
            .arg(1000)
            .query(&mut con)?;
        if !keys.is_empty() {
            redis::cmd("DEL").arg(keys).exec(&mut con)?;
        }
        if next == 0 {
            return Ok(());
        }
        cursor = next;
    }
}

fn sweep(name: &str) -> SweepId {
    SweepId(format!("sweep-{name}"))
}

/// A result whose counters touch every kind of field: completions, scored
/// and unscored cells, two judges, several datasets and solutions.
fn result(i: usize) -> JobResult {
    let stage = if i.is_multiple_of(3) {
        "solve"
    } else {
        "judge"
    };
    let flow = if i.is_multiple_of(7) {
        Verdict::Unscored("parse-failure".into())
    } else {
        Verdict::Score(i as f64 * 0.37)
    };
    JobResult {
        id: JobId(format!("job-{i:04}")),
        stage: stage.into(),
        cell: Cell {
            suite: "synthetic".into(),
            dataset: format!("d{}", i % 3),
            solution: if i.is_multiple_of(2) {
                "ad-chat"
            } else {
                "gi-r"
            }
            .into(),
            seed: (i % 4) as u64,
        },
        item: "0".into(),
        judge: (stage == "judge").then(|| format!("judge-{}", i % 2)),
        output: None,
        scores: vec![
            Score {
                metric: "flow".into(),
                verdict: flow,
            },
            Score {
                metric: "coherence".into(),
                verdict: Verdict::Score((i % 100) as f64),
            },
        ],
        usage: vec![],
    }
}

fn failure(i: usize) -> Failure {
    Failure {
        id: result(i).id,
        stage: Some(result(i).stage),
        code: "http-4xx".into(),
        reason: "400 Bad Request".into(),
        attempts: 3,
    }
}

fn usage(cached: bool) -> Usage {
    Usage {
        model: "gpt-test".into(),
        role: Role::Generation,
        input: 120,
        output: 30,
        cached,
        source: UsageSource::Reported,
        latency_ms: 0,
    }
}

fn sweep_record(name: &str) -> SweepRecord {
    // Built from JSON so the fixture carries every field a record may have,
    // whichever fields this version of `SweepRecord` declares.
    serde_json::from_value(serde_json::json!({
        "id": sweep(name),
        "spec": {
            "name": name,
            "suites": [{"name": "synthetic", "datasets": ["d0"]}],
            "solutions": [{"name": "echo", "provider": "p"}],
            "providers": [
                {"name": "p", "kind": "local", "model": "m", "requests_per_minute": 60.0}
            ],
        },
        "planned": {"solve": 3, "judge": 6},
        "pipelines": {"synthetic": {"solutions": [0], "stages": []}},
        "estimated_cost_usd": 0.125,
        "created_unix": 1_700_000_000u64,
        "epoch": format!("epoch-{name}"),
    }))
    .expect("sweep record fixture is valid")
}

/// Registers sweep `name` (writes for a sweep need its registration).
async fn registered(s: &dyn Store, name: &str) -> SweepId {
    s.save_sweep(&sweep_record(name)).await.unwrap();
    sweep(name)
}

// ---------------------------------------------------------------- scenarios

async fn record_new_then_duplicate(s: &dyn Store) -> Tally {
    let sw = registered(s, "dup").await;
    let r = result(1);
    assert_eq!(s.record(&sw, &r).await.unwrap(), Recorded::New);
    assert_eq!(s.record(&sw, &r).await.unwrap(), Recorded::Duplicate);
    // A redelivery carries the same id; even a different body is not counted.
    let mut changed = r.clone();
    changed.scores.clear();
    assert_eq!(s.record(&sw, &changed).await.unwrap(), Recorded::Duplicate);

    assert_eq!(s.result(&sw, &r.id).await.unwrap(), Some(r.clone()));
    assert_eq!(s.result(&sw, &JobId("absent".into())).await.unwrap(), None);
    let t = s.tally(&sw).await.unwrap();
    assert_eq!(t.done("judge"), 1);
    assert_eq!(t.cells.values().map(|c| c.n).sum::<i64>(), 2);
    let expected: Vec<(String, i64)> = Tally::result_fields(&r);
    assert_eq!(
        t,
        Tally::from_fields(expected.iter().map(|(k, v)| (k.as_str(), *v)))
    );
    // Other sweeps are untouched.
    assert_eq!(s.tally(&sweep("other")).await.unwrap(), Tally::default());
    t
}

const JOBS: usize = 200;
const WORKERS: usize = 8;

/// Eight workers record the same 200 results, each in its own order.
async fn concurrent_records(workers: Vec<Arc<dyn Store>>) -> Tally {
    let reader = workers[0].clone();
    let sw = registered(reader.as_ref(), "race").await;
    let tasks: Vec<_> = workers
        .into_iter()
        .enumerate()
        .map(|(w, s)| {
            let sw = sw.clone();
            tokio::spawn(async move {
                let mut new = 0;
                for j in 0..JOBS {
                    // Rotate and alternate direction so workers collide on
                    // different jobs at different times.
                    let i = if w % 2 == 0 {
                        (j + w * 25) % JOBS
                    } else {
                        JOBS - 1 - (j + w * 25) % JOBS
                    };
                    if s.record(&sw, &result(i)).await.unwrap() == Recorded::New {
                        new += 1;
                    }
                }
                new
            })
        })
        .collect();
    let mut new = 0;
    for t in tasks {
        new += t.await.expect("worker task");
    }
    assert_eq!(new, JOBS, "each result is new exactly once");

    // Exactly what 200 results add up to, counted once each.
    let all: Vec<(String, i64)> = (0..JOBS)
        .flat_map(|i| Tally::result_fields(&result(i)))
        .collect();
    let expected = Tally::from_fields(all.iter().map(|(k, v)| (k.as_str(), *v)));
    let t = reader.tally(&sw).await.unwrap();
    assert_eq!(t, expected);
    assert_eq!(t.done("solve") + t.done("judge"), JOBS as i64);
    t
}

async fn fail_then_record(s: &dyn Store) -> Tally {
    let sw = registered(s, "fail-then-record").await;
    let f = failure(2);
    assert_eq!(s.fail(&sw, &f).await.unwrap(), Recorded::New);
    assert_eq!(s.fail(&sw, &f).await.unwrap(), Recorded::Duplicate);
    assert_eq!(s.failures(&sw).await.unwrap(), vec![f.clone()]);
    let t = s.tally(&sw).await.unwrap();
    assert_eq!((t.failures("judge"), t.done("judge")), (1, 0));
    assert_eq!(
        s.settled(&sw, std::slice::from_ref(&f.id)).await.unwrap(),
        vec![true]
    );

    // The job succeeds on a later delivery: the failure goes, and so does
    // its count.
    assert_eq!(s.record(&sw, &result(2)).await.unwrap(), Recorded::New);
    assert_eq!(s.failures(&sw).await.unwrap(), vec![]);
    let t = s.tally(&sw).await.unwrap();
    assert_eq!((t.failures("judge"), t.done("judge")), (0, 1));
    assert_eq!(
        s.settled(&sw, std::slice::from_ref(&f.id)).await.unwrap(),
        vec![true]
    );

    // A budget skip is undone the same way, under its own counter.
    let skip = Failure {
        code: adfarm_proto::tally::BUDGET_CODE.into(),
        ..failure(4)
    };
    assert_eq!(s.fail(&sw, &skip).await.unwrap(), Recorded::New);
    assert_eq!(s.tally(&sw).await.unwrap().skips("judge"), 1);
    assert_eq!(s.record(&sw, &result(4)).await.unwrap(), Recorded::New);
    let t = s.tally(&sw).await.unwrap();
    assert_eq!((t.skips("judge"), t.done("judge")), (0, 2));

    // A dead letter of unknown kind (an unreadable message) stays listed.
    let unreadable = Failure {
        id: JobId("msg-hash".into()),
        stage: None,
        code: "bad-message".into(),
        reason: "not JSON".into(),
        attempts: 1,
    };
    assert_eq!(s.fail(&sw, &unreadable).await.unwrap(), Recorded::New);
    assert_eq!(s.failures(&sw).await.unwrap(), vec![unreadable]);
    let t = s.tally(&sw).await.unwrap();
    assert_eq!(t.failed.get(&None), Some(&1));
    t
}

async fn fail_after_record(s: &dyn Store) -> Tally {
    let sw = registered(s, "fail-after-record").await;
    assert_eq!(s.record(&sw, &result(3)).await.unwrap(), Recorded::New);
    assert_eq!(s.fail(&sw, &failure(3)).await.unwrap(), Recorded::Duplicate);
    assert_eq!(s.failures(&sw).await.unwrap(), vec![]);
    let t = s.tally(&sw).await.unwrap();
    assert_eq!(t.failures("solve"), 0);
    assert_eq!(t.done("solve"), 1);
    t
}

async fn charge_once_cache_always(s: &dyn Store) -> Tally {
    let (sw, other) = (
        registered(s, "charge").await,
        registered(s, "charge-other").await,
    );
    let call = "call-abc";
    assert_eq!(s.cached(call).await.unwrap(), None);
    assert_eq!(s.spend_nano_usd(&sw).await.unwrap(), 0);

    let r = s
        .charge(&sw, call, Some(b"first"), &usage(false), 0.25)
        .await
        .unwrap();
    assert_eq!(r, Recorded::New);
    assert_eq!(
        s.cached(call).await.unwrap().as_deref(),
        Some(&b"first"[..])
    );
    // A redelivered job charges the same call again: nothing is added, and
    // the cached response is not replaced.
    let r = s
        .charge(&sw, call, Some(b"second"), &usage(false), 0.25)
        .await
        .unwrap();
    assert_eq!(r, Recorded::Duplicate);
    assert_eq!(
        s.cached(call).await.unwrap().as_deref(),
        Some(&b"first"[..])
    );
    assert_eq!(s.spend_nano_usd(&sw).await.unwrap(), 250_000_000);

    // The cache is global, charges are per sweep: another sweep served from
    // the cache is charged its (free) cached usage once.
    let r = s
        .charge(&other, call, None, &usage(true), 0.25)
        .await
        .unwrap();
    assert_eq!(r, Recorded::New);
    assert_eq!(s.spend_nano_usd(&other).await.unwrap(), 0);
    assert_eq!(s.tally(&other).await.unwrap().usage.len(), 1);

    // No response (a failed call still costs): charged, nothing cached.
    let r = s
        .charge(&sw, "call-failed", None, &usage(false), 0.5)
        .await
        .unwrap();
    assert_eq!(r, Recorded::New);
    assert_eq!(s.cached("call-failed").await.unwrap(), None);
    // An empty response is still a response.
    s.charge(&sw, "call-empty", Some(b""), &usage(false), 0.0)
        .await
        .unwrap();
    assert_eq!(s.cached("call-empty").await.unwrap(), Some(vec![]));

    let t = s.tally(&sw).await.unwrap();
    assert_eq!(t.spend_nano_usd, 750_000_000);
    assert_eq!(s.spend_nano_usd(&sw).await.unwrap(), 750_000_000);
    let u = t.usage.values().next().expect("one usage row");
    assert_eq!((u.requests, u.input, u.output), (3, 360, 90));
    // The provider's bill counts every answer it gave, the repeat included;
    // a call without a response was no answer.
    let b = t.billed.values().next().expect("one billed row");
    assert_eq!((b.requests, b.input, b.output), (0, 360, 90));
    assert_eq!(t.billed_nano_usd, 500_000_000);
    // Requests go on the bill as they are sent, one count each.
    for _ in 0..4 {
        s.count(&sw, &Tally::request_fields("gpt-test", Role::Generation))
            .await
            .unwrap();
    }
    let t = s.tally(&sw).await.unwrap();
    let b = t.billed.values().next().expect("one billed row");
    assert_eq!((b.requests, b.input, b.output), (4, 360, 90));
    assert!(
        s.tally(&other).await.unwrap().billed.is_empty(),
        "a cache hit is not billed"
    );
    t
}

async fn planned_items(s: &dyn Store) {
    let sw = registered(s, "items").await;
    assert!(!s.item_planned(&sw, "item-a").await.unwrap());
    s.plan_items(&sw, &["item-a".into(), "item-b".into()])
        .await
        .unwrap();
    // Publishing again (a resume) adds nothing new and breaks nothing.
    s.plan_items(&sw, &["item-b".into()]).await.unwrap();
    s.plan_items(&sw, &[]).await.unwrap();
    assert!(s.item_planned(&sw, "item-a").await.unwrap());
    assert!(s.item_planned(&sw, "item-b").await.unwrap());
    assert!(!s.item_planned(&sw, "item-c").await.unwrap());
    assert!(!s
        .item_planned(&sweep("items-other"), "item-a")
        .await
        .unwrap());
}

async fn shelved_records(s: &dyn Store) {
    let sw = registered(s, "shelves").await;
    assert_eq!(
        s.shelve(&sw, "reviews", "b|r1", b"second").await.unwrap(),
        Recorded::New
    );
    assert_eq!(
        s.shelve(&sw, "reviews", "a|r1", b"first").await.unwrap(),
        Recorded::New
    );
    // Written once: a form sent twice keeps the first answer.
    assert_eq!(
        s.shelve(&sw, "reviews", "a|r1", b"changed").await.unwrap(),
        Recorded::Duplicate
    );
    s.shelve(&sw, "reviewers", "a|r1", b"other shelf")
        .await
        .unwrap();
    s.shelve(&sweep("shelves-other"), "reviews", "c", b"other sweep")
        .await
        .unwrap();
    assert_eq!(
        s.shelf(&sw, "reviews").await.unwrap(),
        vec![
            ("a|r1".to_string(), b"first".to_vec()),
            ("b|r1".to_string(), b"second".to_vec())
        ]
    );
    assert_eq!(s.shelf(&sw, "reviewers").await.unwrap().len(), 1);
    assert!(s.shelf(&sw, "none").await.unwrap().is_empty());
    // A shelf whose name extends another's is a different shelf.
    assert!(s.shelf(&sw, "review").await.unwrap().is_empty());
}

async fn settled_in_batches(s: &dyn Store) {
    let sw = registered(s, "settled").await;
    let ids: Vec<JobId> = (0..1000).map(|i| JobId(format!("job-{i:04}"))).collect();
    for i in (0..1000).step_by(10) {
        s.record(&sw, &result(i)).await.unwrap();
        s.fail(&sw, &failure(i + 1)).await.unwrap();
    }
    let settled = s.settled(&sw, &ids).await.unwrap();
    let expected: Vec<bool> = (0..1000).map(|i| i % 10 < 2).collect();
    assert_eq!(settled, expected);
    assert_eq!(s.settled(&sw, &[]).await.unwrap(), Vec::<bool>::new());
    assert_eq!(
        s.settled(&sweep("elsewhere"), &ids[..3]).await.unwrap(),
        vec![false; 3]
    );
}

/// More results than Redis keeps in a compact hash (128 fields), so its
/// `HSCAN` takes several batches.
const MANY: usize = 1200;

async fn results_in_one_pass(s: &dyn Store) {
    let sw = registered(s, "results").await;
    assert_eq!(s.results(&sw).await.unwrap(), vec![]);
    // Recorded out of order, with a failure and another sweep's result.
    let mut expected: Vec<JobResult> = (0..MANY).map(result).collect();
    expected[5].output = Some(Output {
        text: "a response".into(),
        meta: serde_json::json!({"calls": [{"step": "answer", "input": 3}]}),
    });
    for r in expected.iter().rev() {
        s.record(&sw, r).await.unwrap();
    }
    s.record(&sw, &expected[7]).await.unwrap();
    s.fail(&sw, &failure(MANY + 1)).await.unwrap();
    s.record(&registered(s, "results-other").await, &result(MANY + 2))
        .await
        .unwrap();

    let all = s.results(&sw).await.unwrap();
    assert_eq!(all.len(), MANY, "each result once, failures left out");
    // Stored as JSON, which reads some floats back a bit off (1.11 for
    // 1.1099999999999999), as `result` does.
    let stored: Vec<JobResult> = expected
        .iter()
        .map(|r| serde_json::from_slice(&serde_json::to_vec(r).unwrap()).unwrap())
        .collect();
    assert!(all == stored, "every result, in job-id order");
    assert_eq!(
        s.result(&sw, &all[5].id).await.unwrap().as_ref(),
        Some(&all[5])
    );
    assert_eq!(s.results(&sweep("results-other")).await.unwrap().len(), 1);
}

async fn sweeps_round_trip(s: &dyn Store) {
    assert_eq!(s.sweeps().await.unwrap(), vec![]);
    let (b, a) = (sweep_record("b"), sweep_record("a"));
    s.save_sweep(&b).await.unwrap();
    s.save_sweep(&a).await.unwrap();
    assert_eq!(s.sweep(&a.id).await.unwrap(), Some(a.clone()));
    assert_eq!(s.sweep(&sweep("none")).await.unwrap(), None);
    // Listed in id order, as the embedded store's table is.
    assert_eq!(s.sweeps().await.unwrap(), vec![a.clone(), b.clone()]);

    let mut updated = a.clone();
    updated.estimated_cost_usd = 2.5;
    s.save_sweep(&updated).await.unwrap();
    assert_eq!(s.sweep(&a.id).await.unwrap(), Some(updated.clone()));
    assert_eq!(s.sweeps().await.unwrap(), vec![updated, b]);
}

// -------------------------------------------------------------------- tests

#[tokio::test]
async fn a_redelivered_result_is_counted_once() {
    let s = Stores::new("dup").await;
    let e = record_new_then_duplicate(&s.embedded).await;
    let r = record_new_then_duplicate(&s.redis).await;
    assert_eq!(e, r);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn racing_workers_count_each_result_exactly_once() {
    let s = Stores::new("race").await;
    let embedded: Vec<Arc<dyn Store>> = (0..WORKERS)
        .map(|_| Arc::new(s.embedded.clone()) as Arc<dyn Store>)
        .collect();
    // One connection per worker, as separate worker processes would have.
    let mut redis: Vec<Arc<dyn Store>> = Vec::new();
    for _ in 0..WORKERS {
        redis.push(Arc::new(Stores::redis_handle(&s.prefix).await));
    }
    let e = concurrent_records(embedded).await;
    let r = concurrent_records(redis).await;
    assert_eq!(e, r);
}

#[tokio::test]
async fn a_result_after_a_failure_clears_it_and_fixes_the_counters() {
    let s = Stores::new("fail-record").await;
    let e = fail_then_record(&s.embedded).await;
    let r = fail_then_record(&s.redis).await;
    assert_eq!(e, r);
}

#[tokio::test]
async fn a_failure_after_a_result_is_a_duplicate() {
    let s = Stores::new("record-fail").await;
    let e = fail_after_record(&s.embedded).await;
    let r = fail_after_record(&s.redis).await;
    assert_eq!(e, r);
}

#[tokio::test]
async fn a_call_is_charged_once_per_sweep_and_cached() {
    let s = Stores::new("charge").await;
    let e = charge_once_cache_always(&s.embedded).await;
    let r = charge_once_cache_always(&s.redis).await;
    assert_eq!(e, r);
}

#[tokio::test]
async fn a_store_that_lost_a_sweep_refuses_its_writes() {
    let s = Stores::new("lost").await;
    let worker = Stores::redis_handle(&s.prefix).await;
    let sw = registered(&s.redis, "lost").await;
    // The worker knows the sweep (it read the record) and writes.
    assert!(worker.sweep(&sw).await.unwrap().is_some());
    assert_eq!(worker.record(&sw, &result(1)).await.unwrap(), Recorded::New);
    assert!(!s.redis.tally(&sw).await.unwrap().store_lost);
    // Redis comes back empty: nothing is written for the old registration.
    s.redis.delete_all().await.unwrap();
    for refused in [
        worker.record(&sw, &result(2)).await,
        worker.fail(&sw, &failure(3)).await,
        worker
            .charge(&sw, "call-lost", Some(b"x"), &usage(false), 0.25)
            .await,
    ] {
        let e = refused.expect_err("a lost sweep refuses writes");
        assert_eq!(e.code(), "store-lost", "{e}");
        assert!(e.to_string().contains("run the coordinator again"), "{e}");
    }
    assert_eq!(s.redis.tally(&sw).await.unwrap(), Tally::default());
    // A coordinator registers it again (a new epoch): the worker reads the
    // new registration and writes again.
    let mut again = sweep_record("lost");
    again.epoch = "epoch-after-the-loss".into();
    s.redis.save_sweep(&again).await.unwrap();
    assert_eq!(worker.record(&sw, &result(2)).await.unwrap(), Recorded::New);
    let t = s.redis.tally(&sw).await.unwrap();
    assert_eq!(t.completed.values().sum::<i64>(), 1, "only what came after");
    // The worker that found the old registration gone put the loss on
    // record in the new one: its billed counters start there.
    assert!(t.store_lost, "{t:?}");
}

#[tokio::test]
async fn a_process_that_never_knew_a_registration_records_no_loss() {
    let s = Stores::new("no-loss").await;
    let sw = registered(&s.redis, "no-loss").await;
    let newcomer = Stores::redis_handle(&s.prefix).await;
    assert!(newcomer.sweep(&sw).await.unwrap().is_some());
    assert_eq!(
        newcomer.record(&sw, &result(1)).await.unwrap(),
        Recorded::New
    );
    // Registered again under the same epoch (a coordinator resuming).
    s.redis.save_sweep(&sweep_record("no-loss")).await.unwrap();
    assert!(s.redis.sweep(&sw).await.unwrap().is_some());
    assert!(!s.redis.tally(&sw).await.unwrap().store_lost);
}

#[tokio::test]
async fn items_are_planned_per_sweep() {
    let s = Stores::new("items").await;
    planned_items(&s.embedded).await;
    planned_items(&s.redis).await;
}

#[tokio::test]
async fn shelved_records_are_written_once_and_read_per_shelf_in_key_order() {
    let s = Stores::new("shelves").await;
    shelved_records(&s.embedded).await;
    shelved_records(&s.redis).await;
}

#[tokio::test]
async fn one_worker_holds_a_call_lease_until_it_ends_or_expires() {
    let s = Stores::new("lease").await;
    let other = Stores::redis_handle(&s.prefix).await;
    let ttl = std::time::Duration::from_millis(300);
    assert!(s.redis.lease("call-x", ttl).await.unwrap());
    assert!(
        !other.lease("call-x", ttl).await.unwrap(),
        "held by the first"
    );
    assert!(
        other.lease("call-y", ttl).await.unwrap(),
        "another call is free"
    );
    s.redis.end_lease("call-x").await.unwrap();
    assert!(other.lease("call-x", ttl).await.unwrap(), "ended, so free");
    tokio::time::sleep(ttl * 2).await;
    assert!(
        s.redis.lease("call-x", ttl).await.unwrap(),
        "expired, so free"
    );
    // The embedded store is one process: its gateway's single flight is
    // the only lease it needs.
    assert!(s.embedded.lease("call-x", ttl).await.unwrap());
}

#[tokio::test]
async fn settled_answers_a_batch_of_ids() {
    let s = Stores::new("settled").await;
    settled_in_batches(&s.embedded).await;
    settled_in_batches(&s.redis).await;
    let sw = sweep("settled");
    assert_eq!(
        s.embedded.tally(&sw).await.unwrap(),
        s.redis.tally(&sw).await.unwrap()
    );
}

#[tokio::test]
async fn a_sweeps_results_are_read_in_one_pass() {
    let s = Stores::new("results").await;
    results_in_one_pass(&s.embedded).await;
    results_in_one_pass(&s.redis).await;
}

#[tokio::test]
async fn sweeps_round_trip_in_id_order() {
    let s = Stores::new("sweeps").await;
    sweeps_round_trip(&s.embedded).await;
    sweeps_round_trip(&s.redis).await;
}

#[tokio::test]
async fn redis_keys_stay_under_the_prefix() {
    let s = Stores::new("prefix").await;
    record_new_then_duplicate(&s.redis).await;
    charge_once_cache_always(&s.redis).await;
    let mut con = redis::Client::open(redis_url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}:*", s.prefix))
        .query_async(&mut con)
        .await
        .unwrap();
    assert!(keys.iter().any(|k| k.ends_with(":counters")), "{keys:?}");
    assert!(
        keys.contains(&format!("{}:cache:call-abc", s.prefix)),
        "{keys:?}"
    );
    // The cache never expires: a re-run months later still costs nothing.
    let ttl: i64 = redis::cmd("TTL")
        .arg(format!("{}:cache:call-abc", s.prefix))
        .query_async(&mut con)
        .await
        .unwrap();
    assert_eq!(ttl, -1);
}

/// Results recorded in concurrent groups are all on disk once acknowledged:
/// the file, reopened as soon as the store is dropped, holds each of them
/// exactly once, and the tally counts each once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn grouped_results_are_on_disk_once_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.redb");
    let store = EmbeddedStore::open(&path).expect("embedded store");
    let sw = registered(&store, "groups").await;
    let tasks: Vec<_> = (0..400)
        .map(|i| {
            let (store, sw) = (store.clone(), sw.clone());
            // Every result twice, from two tasks.
            tokio::spawn(async move { store.record(&sw, &result(i % 200)).await.unwrap() })
        })
        .collect();
    let mut new = 0;
    for t in tasks {
        if t.await.unwrap() == Recorded::New {
            new += 1;
        }
    }
    assert_eq!(new, 200);
    let before = store.tally(&sw).await.unwrap();
    drop(store);
    let reopened = EmbeddedStore::open(&path).expect("reopened at once");
    assert_eq!(reopened.results(&sw).await.unwrap().len(), 200);
    assert_eq!(reopened.tally(&sw).await.unwrap(), before);
}
