//! The fake server over real HTTP: determinism, its rate limit, fault
//! injection rates and `/stats`; [`tools`]: the `tools` API.

mod tools;

use adfarm_fake_llm::{serve, FakeLlmConfig, Stats, EMBEDDING_DIM};
use futures::stream::{self, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;

struct Fake {
    base: String,
    http: reqwest::Client,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn start(cfg: FakeLlmConfig) -> Fake {
    start_with_timeout(cfg, Duration::from_millis(500)).await
}

/// A fake whose client gives up after `timeout`: any time well below the
/// fake's hold of an injected timeout (`TIMEOUT_HOLD`) tells those apart,
/// and a longer one keeps a reply slowed by a busy machine from counting
/// as one.
async fn start_with_timeout(cfg: FakeLlmConfig, timeout: Duration) -> Fake {
    let (addr, task) = serve(cfg, "127.0.0.1:0").await.expect("fake binds");
    Fake {
        base: format!("http://{addr}"),
        http: reqwest::Client::builder().timeout(timeout).build().unwrap(),
        task,
    }
}

impl Fake {
    async fn post(&self, path: &str, body: &Value) -> reqwest::Result<reqwest::Response> {
        self.http
            .post(format!("{}{path}", self.base))
            .json(body)
            .send()
            .await
    }

    async fn chat(&self, body: &Value) -> (u16, Value) {
        let resp = self.post("/v1/chat/completions", body).await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap())
    }

    async fn get<T: serde::de::DeserializeOwned>(&self, path: &str) -> T {
        let url = format!("{}{path}", self.base);
        self.http
            .get(url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    async fn stats(&self) -> Stats {
        self.get("/stats").await
    }
}

fn chat_body(prompt: &str) -> Value {
    json!({"model": "fake", "max_tokens": 64, "temperature": 0.0, "seed": 1,
           "messages": [{"role": "system", "content": "You are helpful."},
                        {"role": "user", "content": prompt}]})
}

fn content(answer: &Value) -> &str {
    answer["choices"][0]["message"]["content"].as_str().unwrap()
}

#[tokio::test]
async fn same_request_same_answer_other_seed_other_answer() {
    let a = start(FakeLlmConfig::default()).await;
    let (s1, r1) = a.chat(&chat_body("Recommend a coffee shop")).await;
    let (s2, r2) = a.chat(&chat_body("Recommend a coffee shop")).await;
    assert_eq!((s1, s2), (200, 200));
    assert_eq!(r1, r2, "the whole answer is a function of the request");
    let words = content(&r1).split_whitespace().count() as u64;
    assert!(words > 0 && words <= 64);
    assert_eq!(r1["usage"]["prompt_tokens"], 7);
    assert_eq!(r1["usage"]["completion_tokens"], words);

    let (_, other_prompt) = a.chat(&chat_body("Recommend a tea shop")).await;
    assert_ne!(content(&r1), content(&other_prompt));

    let b = start(FakeLlmConfig {
        seed: 99,
        ..FakeLlmConfig::default()
    })
    .await;
    let (_, other_seed) = b.chat(&chat_body("Recommend a coffee shop")).await;
    assert_ne!(content(&r1), content(&other_seed));
}

#[tokio::test]
async fn max_tokens_bounds_the_answer() {
    let fake = start(FakeLlmConfig::default()).await;
    let mut body = chat_body("Say a lot");
    body["max_tokens"] = json!(3);
    let (_, r) = fake.chat(&body).await;
    assert_eq!(content(&r).split_whitespace().count(), 3);
    assert_eq!(r["choices"][0]["finish_reason"], "length");
    assert_eq!(r["usage"]["completion_tokens"], 3);
}

#[tokio::test]
async fn guided_choice_and_json_schema_are_honoured() {
    let fake = start(FakeLlmConfig::default()).await;
    let mut body = chat_body("Is this an ad?");
    body["guided_choice"] = json!(["yes", "no"]);
    let (_, r) = fake.chat(&body).await;
    assert!(["yes", "no"].contains(&content(&r)));

    let mut body = chat_body("Is this an ad?");
    body["response_format"] = json!({"type": "json_schema", "json_schema": {"name": "c",
        "schema": {"type": "object", "properties": {"choice": {"type": "string", "enum": ["yes", "no"]}},
                   "required": ["choice"]}}});
    let (_, r) = fake.chat(&body).await;
    let parsed: Value = serde_json::from_str(content(&r)).unwrap();
    assert!(["yes", "no"].contains(&parsed["choice"].as_str().unwrap()));
}

#[tokio::test]
async fn embeddings_are_deterministic_unit_vectors() {
    let fake = start(FakeLlmConfig::default()).await;
    let one = fake
        .post(
            "/v1/embeddings",
            &json!({"model": "e", "input": "free coffee"}),
        )
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    let many = fake
        .post(
            "/v1/embeddings",
            &json!({"model": "e", "input": ["free coffee", "new shoes today"]}),
        )
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(many["data"].as_array().unwrap().len(), 2);
    assert_eq!(one["data"][0]["embedding"], many["data"][0]["embedding"]);
    assert_eq!(many["usage"]["prompt_tokens"], 5);
    let v: Vec<f64> = serde_json::from_value(many["data"][1]["embedding"].clone()).unwrap();
    assert_eq!(v.len(), EMBEDDING_DIM);
    let norm: f64 = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    assert!((norm - 1.0).abs() < 1e-3, "{norm}");
}

#[tokio::test]
async fn rpm_limit_answers_429_with_retry_after_when_hammered() {
    let fake = start(FakeLlmConfig {
        rpm: Some(60),
        ..FakeLlmConfig::default()
    })
    .await;
    let mut ok = 0;
    let mut limited = 0;
    for i in 0..12 {
        let resp = fake
            .post("/v1/chat/completions", &chat_body(&format!("q{i}")))
            .await
            .unwrap();
        match resp.status().as_u16() {
            200 => ok += 1,
            429 => {
                limited += 1;
                let ra: u64 = resp.headers()["retry-after"]
                    .to_str()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!((1..=2).contains(&ra), "Retry-After {ra}");
                let body: Value = resp.json().await.unwrap();
                assert_eq!(body["error"]["code"], "rate_limit_exceeded");
            }
            s => panic!("unexpected status {s}"),
        }
    }
    // The bucket holds max(2, 60/60) = 2 requests and refills one per second.
    assert!((2..=3).contains(&ok), "ok = {ok}");
    let stats = fake.stats().await;
    assert_eq!(stats.rate_limited, limited);
    assert_eq!(stats.injected_429, 0);
    assert_eq!(stats.ok, ok);
}

#[tokio::test]
async fn tpm_limit_counts_prompt_and_completion_words() {
    // 60 tokens per minute: one per second, so the second request must wait.
    let fake = start(FakeLlmConfig {
        tpm: Some(60),
        ..FakeLlmConfig::default()
    })
    .await;
    let first = fake
        .post("/v1/chat/completions", &chat_body("a"))
        .await
        .unwrap();
    // The bucket starts with one second's worth (1 token), less than any answer.
    assert_eq!(first.status(), 429);
    assert!(first.headers().contains_key("retry-after"));
}

#[derive(Default, Debug)]
struct Seen {
    ok: u64,
    s500: u64,
    s429: u64,
    s429_bare: u64,
    timeouts: u64,
    malformed: u64,
}

#[tokio::test]
async fn injected_rates_roughly_match_over_2000_requests() {
    let cfg = FakeLlmConfig {
        seed: 3,
        p_500: 0.10,
        p_429: 0.05,
        p_429_no_retry_after: 0.05,
        p_timeout: 0.02,
        p_malformed: 0.03,
        injected_retry_after_s: 2,
        ..FakeLlmConfig::default()
    };
    // Counted by the client, so a slow reply must not pass for a timeout.
    let fake = start_with_timeout(cfg, Duration::from_secs(10)).await;
    let n = 2000;
    let outcomes: Vec<&str> = stream::iter(0..n)
        .map(|i| {
            let fake = &fake;
            async move {
                let resp = match fake
                    .post("/v1/chat/completions", &chat_body(&format!("question {i}")))
                    .await
                {
                    Ok(r) => r,
                    Err(e) if e.is_timeout() => return "timeout",
                    Err(e) => panic!("transport error {e}"),
                };
                let status = resp.status().as_u16();
                let retry_after = resp.headers().get("retry-after").cloned();
                let text = match resp.text().await {
                    Ok(t) => t,
                    Err(e) if e.is_timeout() => return "timeout",
                    Err(e) => panic!("body error {e}"),
                };
                match status {
                    200 if serde_json::from_str::<Value>(&text).is_ok() => "ok",
                    200 => "malformed",
                    500 => "500",
                    429 if retry_after.as_ref().is_some_and(|v| v == "2") => "429",
                    429 if retry_after.is_none() => "429-bare",
                    s => panic!("unexpected status {s} ({retry_after:?})"),
                }
            }
        })
        .buffer_unordered(100)
        .collect()
        .await;
    let mut seen = Seen::default();
    for o in outcomes {
        match o {
            "ok" => seen.ok += 1,
            "500" => seen.s500 += 1,
            "429" => seen.s429 += 1,
            "429-bare" => seen.s429_bare += 1,
            "timeout" => seen.timeouts += 1,
            _ => seen.malformed += 1,
        }
    }
    // Within 5 standard deviations of n·p (binomial); the draws are
    // deterministic, so this cannot flake, but it would catch a wrong draw.
    let near = |got: u64, p: f64| {
        let mean = n as f64 * p;
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        (got as f64 - mean).abs() <= 5.0 * sd
    };
    assert!(near(seen.s500, 0.10), "{seen:?}");
    assert!(near(seen.s429, 0.05), "{seen:?}");
    assert!(near(seen.s429_bare, 0.05), "{seen:?}");
    assert!(near(seen.timeouts, 0.02), "{seen:?}");
    assert!(near(seen.malformed, 0.03), "{seen:?}");
    assert!(near(seen.ok, 0.75), "{seen:?}");

    let stats = fake.stats().await;
    assert_eq!(stats.requests, n);
    assert_eq!(stats.by_endpoint["chat_completions"], n);
    assert_eq!(stats.ok, seen.ok);
    assert_eq!(stats.server_errors, seen.s500);
    assert_eq!(stats.injected_429, seen.s429);
    assert_eq!(stats.injected_429_no_retry_after, seen.s429_bare);
    assert_eq!(stats.timeouts, seen.timeouts);
    assert_eq!(stats.malformed, seen.malformed);
    assert_eq!(stats.rate_limited, 0);
}

#[tokio::test]
async fn malformed_rate_one_returns_200_with_invalid_json() {
    let fake = start(FakeLlmConfig {
        p_malformed: 1.0,
        ..FakeLlmConfig::default()
    })
    .await;
    for i in 0..5 {
        let resp = fake
            .post("/v1/chat/completions", &chat_body(&format!("m{i}")))
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        let text = resp.text().await.unwrap();
        assert!(serde_json::from_str::<Value>(&text).is_err(), "{text}");
    }
    let stats = fake.stats().await;
    assert_eq!((stats.malformed, stats.ok), (5, 0));
}

#[tokio::test]
async fn faults_are_per_attempt_and_repeat_across_runs() {
    let fake = start(FakeLlmConfig {
        p_500: 0.5,
        ..FakeLlmConfig::default()
    })
    .await;
    let body = chat_body("the same question");
    let run = || async {
        let mut statuses = vec![];
        for _ in 0..20 {
            statuses.push(fake.chat(&body).await.0);
        }
        statuses
    };
    let first = run().await;
    assert!(first.contains(&200) && first.contains(&500), "{first:?}");
    let reset = fake.post("/stats/reset", &json!({})).await.unwrap();
    assert_eq!(reset.status(), 200);
    assert_eq!(run().await, first, "a reset server replays the same faults");
}

#[tokio::test]
async fn stats_count_and_reset() {
    let fake = start(FakeLlmConfig::default()).await;
    let health: Value = fake.get("/health").await;
    assert_eq!(health["status"], "ok");

    let (_, r) = fake.chat(&chat_body("hello there")).await;
    let emb = fake
        .post(
            "/v1/embeddings",
            &json!({"model": "e", "input": "two words"}),
        )
        .await
        .unwrap();
    assert_eq!(emb.status(), 200);
    let (missing, _) = fake
        .chat(&json!({"model": "missing", "messages": [{"role": "user", "content": "x"}]}))
        .await;
    assert_eq!(missing, 404);
    let bad = fake
        .http
        .post(format!("{}/v1/chat/completions", fake.base))
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);

    let stats = fake.stats().await;
    assert_eq!(stats.requests, 4);
    assert_eq!(stats.by_endpoint["chat_completions"], 3);
    assert_eq!(stats.by_endpoint["embeddings"], 1);
    assert_eq!(stats.ok, 2);
    assert_eq!(stats.client_errors, 2);
    // 5 prompt words in the chat ("You are helpful." + "hello there") + 2 embedded.
    assert_eq!(stats.prompt_tokens, 7);
    assert_eq!(stats.completion_tokens, r["usage"]["completion_tokens"]);

    fake.post("/stats/reset", &json!({})).await.unwrap();
    assert_eq!(fake.stats().await, Stats::default());
}

#[tokio::test]
async fn api_key_is_required_when_configured() {
    let fake = start(FakeLlmConfig {
        api_key: Some("sk-right".into()),
        ..FakeLlmConfig::default()
    })
    .await;
    let url = format!("{}/v1/chat/completions", fake.base);
    let without = fake
        .http
        .post(&url)
        .json(&chat_body("x"))
        .send()
        .await
        .unwrap();
    assert_eq!(without.status(), 401);
    let with = fake
        .http
        .post(&url)
        .bearer_auth("sk-right")
        .json(&chat_body("x"))
        .send()
        .await
        .unwrap();
    assert_eq!(with.status(), 200);
}

#[tokio::test]
async fn invalid_config_is_refused() {
    let err = serve(
        FakeLlmConfig {
            p_timeout: 2.0,
            ..FakeLlmConfig::default()
        },
        "127.0.0.1:0",
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
}
