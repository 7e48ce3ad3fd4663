//! The gateway makes identical requests in flight at the same moment once:
//! in one process (single flight) and across workers sharing Redis (a
//! lease), the others reading the answer from the cache. Each answer the
//! provider gave is billed, each call charged to the sweep once.
//! The sweep's budget stops embedding calls as it stops chat calls.

use crate::Fake;
use adfarm_backbone::{EmbeddedStore, LocalLimiter, RedisStore, Store, SweepRecord};
use adfarm_fake_llm::FakeLlmConfig;
use adfarm_llm::{ChatRequest, Embedder, LlmError, Message, Provider};
use adfarm_proto::{Role, SweepSpec};
use adfarm_worker::backends::Backends;
use adfarm_worker::gateway::UsageLog;
use adfarm_worker::Gateway;
use futures::future::join_all;
use std::collections::BTreeMap;
use std::sync::Arc;

async fn fake() -> Fake {
    // Slow enough that every caller is in flight before the first answer.
    Fake::start(FakeLlmConfig {
        latency_ms: 200,
        ..FakeLlmConfig::default()
    })
    .await
}

/// A sweep whose provider `gen` is the fake at `base` (its `/v1` URL).
fn record(base: &str, name: &str) -> SweepRecord {
    let spec: SweepSpec = serde_json::from_value(serde_json::json!({
        "name": name,
        "suites": [{"name": "synthetic", "datasets": ["default"]}],
        "solutions": [{"name": "answer", "provider": "gen"}],
        "providers": [{
            "name": "gen", "kind": "openai-compatible", "base_url": base,
            "model": "fake-gen-1", "requests_per_minute": 60000.0,
            "input_usd_per_mtok": 1.0, "output_usd_per_mtok": 2.0
        }]
    }))
    .expect("a sweep spec");
    SweepRecord {
        id: spec.id(),
        spec,
        planned: BTreeMap::new(),
        pipelines: BTreeMap::new(),
        estimated_cost_usd: 0.0,
        created_unix: 0,
        epoch: "test-epoch".into(),
        benchmarks: BTreeMap::new(),
        adfarm: String::new(),
    }
}

fn gateway(store: Arc<dyn Store>) -> Gateway {
    Gateway::new(
        store,
        Arc::new(LocalLimiter::default()),
        Backends::new(
            Arc::new(|_| None),
            Arc::new(|_| Err(LlmError::Config("no local models here".into()))),
        ),
    )
}

fn request() -> ChatRequest {
    ChatRequest::new(vec![Message::user(
        "The same question, asked eight times at once.",
    )])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn identical_requests_in_one_process_are_made_once() {
    let fake = fake().await;
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> =
        Arc::new(EmbeddedStore::open(&dir.path().join("store.redb")).unwrap());
    let rec = record(&fake.base, "single-flight");
    store.save_sweep(&rec).await.unwrap();
    let gw = gateway(store.clone());
    let llm = gw
        .bind(&rec, "gen", Role::Generation, UsageLog::default())
        .unwrap();
    let req = request();
    let answers = join_all((0..8).map(|_| llm.chat(&req))).await;
    let texts: Vec<String> = answers.into_iter().map(|a| a.unwrap().text).collect();
    assert!(texts.iter().all(|t| t == &texts[0]), "{texts:?}");
    assert_eq!(fake.stats().await.requests, 1, "one call for eight callers");
    let tally = store.tally(&rec.id).await.unwrap();
    let billed: i64 = tally.billed.values().map(|u| u.requests).sum();
    assert_eq!(billed, 1);
    // One call, charged to the sweep once: the seven answered from the
    // cache are the same call of the same sweep.
    let charged: i64 = tally.usage.values().map(|u| u.requests).sum();
    assert_eq!(charged, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn identical_requests_across_workers_are_made_once() {
    let fake = fake().await;
    let url = std::env::var("ADFARM_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let prefix = format!("adfarm-test:lease:{}-{nanos}", std::process::id());
    let rec = record(&fake.base, &format!("lease-{nanos}"));
    // Three workers: each its own connection and gateway.
    let mut stores: Vec<RedisStore> = Vec::new();
    for _ in 0..3 {
        stores.push(
            RedisStore::connect(&url, &prefix)
                .await
                .expect("these tests need Redis"),
        );
    }
    stores[0].save_sweep(&rec).await.unwrap();
    let gateways: Vec<Gateway> = stores
        .iter()
        .map(|s| gateway(Arc::new(s.clone())))
        .collect();
    let llms: Vec<_> = gateways
        .iter()
        .map(|g| {
            g.bind(&rec, "gen", Role::Generation, UsageLog::default())
                .unwrap()
        })
        .collect();
    let req = request();
    let answers = join_all(llms.iter().map(|l| l.chat(&req))).await;
    let texts: Vec<String> = answers.into_iter().map(|a| a.unwrap().text).collect();
    assert!(texts.iter().all(|t| t == &texts[0]), "{texts:?}");
    let served = fake.stats().await.requests;
    let tally = stores[0].tally(&rec.id).await.unwrap();
    stores[0].delete_all().await.unwrap();
    assert_eq!(served, 1, "one call for three workers");
    assert_eq!(tally.billed.values().map(|u| u.requests).sum::<i64>(), 1);
}

#[tokio::test]
async fn a_spent_budget_stops_embedding_calls() {
    let fake = Fake::start(FakeLlmConfig::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> =
        Arc::new(EmbeddedStore::open(&dir.path().join("store.redb")).unwrap());
    let mut rec = record(&fake.base, "budget-embed");
    // The first call is admitted (nothing spent yet) and spends more.
    rec.spec.budget_usd = Some(1e-9);
    store.save_sweep(&rec).await.unwrap();
    let gw = gateway(store.clone());
    let embedder = gw
        .bind(&rec, "gen", Role::Embedding, UsageLog::default())
        .unwrap();
    let first = embedder
        .embed(&["the first text to embed".to_string()])
        .await
        .unwrap();
    assert_eq!(first.vectors.len(), 1);
    assert!(store.tally(&rec.id).await.unwrap().spend_usd() > 1e-9);
    let second = embedder.embed(&["another text".to_string()]).await;
    assert!(matches!(second, Err(LlmError::Budget { .. })), "{second:?}");
    assert_eq!(
        fake.stats().await.requests,
        1,
        "the refused call never left"
    );
}
