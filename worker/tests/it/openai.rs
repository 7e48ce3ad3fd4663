//! The OpenAI-compatible client against the fake server (in-process), and
//! the retry loop under paused time.

use crate::{request, Fake};
use adfarm_fake_llm::{FakeLlmConfig, EMBEDDING_DIM};
use adfarm_llm::{Embedder, ErrorClass, LlmError, Provider};
use adfarm_proto::{Role, UsageSource};
use adfarm_worker::openai::{with_retries, OpenAiClient, Secret, BACKOFF_MAX};
use futures::stream::{self, StreamExt};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[tokio::test]
async fn chat_returns_the_deterministic_text_and_reported_usage() {
    let fake = Fake::start(FakeLlmConfig::default()).await;
    let client = fake.client("fake-model").with_role(Role::Judge);
    let req = request("Sell me running shoes");
    let a = client.chat(&req).await.unwrap();
    let b = client.chat(&req).await.unwrap();
    assert_eq!(a, b);

    // The same body sent by hand gets the same text: the client sends what it says.
    let raw = fake
        .raw_chat(&json!({"model": "fake-model", "messages": req.messages,
                          "max_tokens": 256, "temperature": 0.0, "seed": 0}))
        .await;
    assert_eq!(raw["choices"][0]["message"]["content"], a.text.as_str());

    assert_eq!(a.usage.source, UsageSource::Reported);
    assert_eq!(a.usage.input, 8, "the fake counts prompt words");
    assert_eq!(a.usage.output, a.text.split_whitespace().count() as u64);
    assert_eq!(a.usage.role, Role::Judge);
    assert_eq!(a.usage.model, "fake-model");
    assert!(!a.usage.cached);
}

#[tokio::test]
async fn unknown_model_is_permanent() {
    let fake = Fake::start(FakeLlmConfig::default()).await;
    let err = fake
        .client("missing")
        .chat(&request("x"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, LlmError::Status { status: 404, ref message, retry_after: None } if message.contains("does not exist")),
        "{err:?}"
    );
    assert_eq!(err.class(), ErrorClass::Permanent);
}

#[tokio::test]
async fn server_error_is_transient() {
    let fake = Fake::start(FakeLlmConfig {
        p_500: 1.0,
        ..FakeLlmConfig::default()
    })
    .await;
    let err = fake.client("m").chat(&request("x")).await.unwrap_err();
    assert!(
        matches!(err, LlmError::Status { status: 500, .. }),
        "{err:?}"
    );
    assert_eq!(err.class(), ErrorClass::Transient { retry_after: None });
}

#[tokio::test]
async fn injected_429_carries_retry_after() {
    let fake = Fake::start(FakeLlmConfig {
        p_429: 1.0,
        injected_retry_after_s: 7,
        ..FakeLlmConfig::default()
    })
    .await;
    let err = fake.client("m").chat(&request("x")).await.unwrap_err();
    assert_eq!(
        err.class(),
        ErrorClass::RateLimited {
            retry_after: Some(Duration::from_secs(7))
        }
    );

    let bare = Fake::start(FakeLlmConfig {
        p_429_no_retry_after: 1.0,
        ..FakeLlmConfig::default()
    })
    .await;
    let err = bare.client("m").chat(&request("x")).await.unwrap_err();
    assert_eq!(err.class(), ErrorClass::RateLimited { retry_after: None });
}

#[tokio::test]
async fn limiter_429_carries_retry_after() {
    let fake = Fake::start(FakeLlmConfig {
        rpm: Some(60),
        ..FakeLlmConfig::default()
    })
    .await;
    let client = fake.client("m");
    let mut limited = None;
    for i in 0..5 {
        if let Err(e) = client.chat(&request(&format!("q{i}"))).await {
            limited = Some(e);
            break;
        }
    }
    let err = limited.expect("a 60 rpm fake refuses the third quick request");
    assert!(
        matches!(err.class(), ErrorClass::RateLimited { retry_after: Some(d) } if d >= Duration::from_secs(1)),
        "{err:?}"
    );
}

#[tokio::test]
async fn timeout_maps_to_timeout() {
    let fake = Fake::start(FakeLlmConfig {
        p_timeout: 1.0,
        ..FakeLlmConfig::default()
    })
    .await;
    let client = OpenAiClient::new(&fake.base, "m", None, Duration::from_millis(300)).unwrap();
    let started = std::time::Instant::now();
    let err = client.chat(&request("x")).await.unwrap_err();
    assert!(
        matches!(err, LlmError::Timeout(d) if d == Duration::from_millis(300)),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(err.class(), ErrorClass::Transient { retry_after: None });
}

#[tokio::test]
async fn malformed_body_maps_to_malformed() {
    let fake = Fake::start(FakeLlmConfig {
        p_malformed: 1.0,
        ..FakeLlmConfig::default()
    })
    .await;
    let err = fake.client("m").chat(&request("x")).await.unwrap_err();
    assert!(matches!(err, LlmError::Malformed(_)), "{err:?}");
    assert_eq!(err.code(), "malformed");
}

#[tokio::test]
async fn refused_connection_maps_to_connection() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let client = OpenAiClient::new(
        format!("http://{addr}/v1"),
        "m",
        None,
        Duration::from_secs(2),
    )
    .unwrap();
    let err = client.chat(&request("x")).await.unwrap_err();
    assert!(matches!(err, LlmError::Connection(_)), "{err:?}");
    assert!(!err.to_string().contains("http://"), "no URL in {err}");
}

#[tokio::test]
async fn api_key_is_sent_as_bearer_and_never_shown() {
    let fake = Fake::start(FakeLlmConfig {
        api_key: Some("sk-right-0123456789".into()),
        ..FakeLlmConfig::default()
    })
    .await;
    let timeout = Duration::from_secs(5);
    let good = OpenAiClient::new(
        &fake.base,
        "m",
        Some(Secret::new("sk-right-0123456789")),
        timeout,
    )
    .unwrap();
    good.chat(&request("x"))
        .await
        .expect("the fake accepts the Bearer key");
    assert!(!format!("{good:?}").contains("sk-right"));

    // The fake echoes a rejected key in its 401, as some providers do.
    let bad = OpenAiClient::new(
        &fake.base,
        "m",
        Some(Secret::new("sk-wrong-9876543210")),
        timeout,
    )
    .unwrap();
    let err = bad.chat(&request("x")).await.unwrap_err();
    assert!(
        matches!(err, LlmError::Status { status: 401, .. }),
        "{err:?}"
    );
    assert_eq!(err.class(), ErrorClass::Permanent);
    for shown in [err.to_string(), format!("{err:?}"), format!("{bad:?}")] {
        assert!(!shown.contains("sk-wrong"), "key leaked: {shown}");
    }
    assert!(err.to_string().contains("Incorrect API key provided: ***"));

    let none = OpenAiClient::new(&fake.base, "m", None, timeout).unwrap();
    let err = none.chat(&request("x")).await.unwrap_err();
    assert!(
        matches!(err, LlmError::Status { status: 401, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn embed_returns_unit_vectors_in_order_with_usage() {
    let fake = Fake::start(FakeLlmConfig::default()).await;
    let client = fake.client("embedder");
    let texts = vec!["free coffee today".to_string(), "new shoes".to_string()];
    let e = client.embed(&texts).await.unwrap();
    assert_eq!(e.vectors.len(), 2);
    for v in &e.vectors {
        assert_eq!(v.len(), EMBEDDING_DIM);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4);
    }
    let single = client.embed(&texts[1..]).await.unwrap();
    assert_eq!(single.vectors[0], e.vectors[1]);
    assert_eq!(e.usage.input, 5);
    assert_eq!(e.usage.output, 0);
    assert_eq!(e.usage.role, Role::Embedding);
    assert_eq!(e.usage.source, UsageSource::Reported);
    assert!(client.embed(&[]).await.unwrap().vectors.is_empty());
}

fn options(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn choose_uses_guided_choice() {
    let fake = Fake::start(FakeLlmConfig::default()).await;
    let opts = options(&["relevant", "irrelevant", "harmful"]);
    let c = fake
        .client("m")
        .choose(&request("Judge this ad."), &opts)
        .await
        .unwrap();
    let i = c.index.expect("guided decoding answers an option");
    assert_eq!(c.completion.text, opts[i]);
    assert_eq!(c.completion.usage.source, UsageSource::Reported);
    assert_eq!(fake.stats().await.requests, 1);
}

#[tokio::test]
async fn choose_falls_back_to_the_schema_when_guided_choice_is_rejected() {
    let fake = Fake::start(FakeLlmConfig {
        reject_guided_choice: true,
        ..FakeLlmConfig::default()
    })
    .await;
    let opts = options(&["relevant", "irrelevant"]);
    let c = fake
        .client("m")
        .choose(&request("Judge this ad."), &opts)
        .await
        .unwrap();
    let i = c.index.expect("the JSON schema still constrains the reply");
    let reply: Value = serde_json::from_str(&c.completion.text).unwrap();
    assert_eq!(reply["choice"], opts[i].as_str());
    let stats = fake.stats().await;
    assert_eq!((stats.client_errors, stats.ok), (1, 1));
}

#[tokio::test]
async fn choose_reasks_once_then_gives_no_index_and_sums_usage() {
    let fake = Fake::start(FakeLlmConfig {
        ignore_guided: true,
        ..FakeLlmConfig::default()
    })
    .await;
    // Words the fake's vocabulary never produces, so no reply can match.
    let opts = options(&["zebra", "quokka"]);
    let client = fake.client("m");
    let req = request("Pick an animal.");
    let c = client.choose(&req, &opts).await.unwrap();
    assert_eq!(c.index, None, "never a random option");
    let stats = fake.stats().await;
    assert_eq!(stats.ok, 2, "one question and one re-ask");
    assert_eq!(c.completion.usage.input, stats.prompt_tokens);
    assert_eq!(c.completion.usage.output, stats.completion_tokens);
    assert_eq!(c.completion.usage.source, UsageSource::Reported);
}

#[tokio::test]
async fn with_retries_rides_out_injected_faults() {
    let faulty = Fake::start(FakeLlmConfig {
        seed: 11,
        p_500: 0.10,
        p_429: 0.05,
        p_malformed: 0.01,
        ..FakeLlmConfig::default()
    })
    .await;
    let clean = Fake::start(FakeLlmConfig {
        seed: 11,
        ..FakeLlmConfig::default()
    })
    .await;
    let client = faulty.client("m");
    let reference = clean.client("m");
    let retries = AtomicU32::new(0);
    let results: Vec<(String, String)> = stream::iter(0..200)
        .map(|i| {
            let (client, reference, retries) = (&client, &reference, &retries);
            async move {
                let req = request(&format!("Question number {i}"));
                let got = with_retries(
                    10,
                    || client.chat(&req),
                    |_, _| {
                        retries.fetch_add(1, Ordering::Relaxed);
                    },
                )
                .await
                .unwrap_or_else(|e| panic!("request {i} failed after retries: {e}"));
                let want = reference.chat(&req).await.unwrap();
                (got.text, want.text)
            }
        })
        .buffer_unordered(64)
        .collect()
        .await;
    for (got, want) in &results {
        assert_eq!(
            got, want,
            "a response is the model's text, never an error's"
        );
    }
    let stats = faulty.stats().await;
    assert_eq!(stats.ok, 200);
    let faults = stats.server_errors + stats.injected_429 + stats.malformed;
    assert!(faults > 0, "{stats:?}");
    assert_eq!(u64::from(retries.load(Ordering::Relaxed)), faults);
}

// The retry loop itself, under paused time: no server, exact clocks.

fn status(status: u16, retry_after: Option<Duration>) -> LlmError {
    LlmError::Status {
        status,
        message: "x".into(),
        retry_after,
    }
}

#[tokio::test(start_paused = true)]
async fn retries_honour_retry_after_when_longer_than_backoff() {
    let calls = AtomicU32::new(0);
    let started = tokio::time::Instant::now();
    let out = with_retries(
        5,
        || async {
            match calls.fetch_add(1, Ordering::Relaxed) {
                0 => Err(status(429, Some(Duration::from_secs(5)))),
                _ => Ok("done"),
            }
        },
        |_, _| {},
    )
    .await;
    assert_eq!(out.unwrap(), "done");
    assert_eq!(calls.load(Ordering::Relaxed), 2);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(5) && waited < Duration::from_millis(5100),
        "{waited:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn retries_stop_at_max_attempts_with_growing_capped_backoff() {
    let calls = AtomicU32::new(0);
    let delays = Arc::new(Mutex::new(vec![]));
    let seen = delays.clone();
    let out: Result<(), _> = with_retries(
        12,
        || async {
            calls.fetch_add(1, Ordering::Relaxed);
            Err(status(503, None))
        },
        move |e, d| {
            assert_eq!(e.code(), "http-5xx");
            seen.lock().unwrap().push(d);
        },
    )
    .await;
    assert!(matches!(out, Err(LlmError::Status { status: 503, .. })));
    assert_eq!(calls.load(Ordering::Relaxed), 12);
    let delays = delays.lock().unwrap();
    assert_eq!(delays.len(), 11);
    assert!(delays[0] >= Duration::from_millis(200) && delays[0] <= Duration::from_millis(400));
    assert!(delays.iter().all(|d| *d <= BACKOFF_MAX));
    assert!(*delays.last().unwrap() >= Duration::from_secs(10));
}

#[tokio::test(start_paused = true)]
async fn permanent_errors_are_not_retried() {
    let calls = AtomicU32::new(0);
    let out: Result<(), _> = with_retries(
        5,
        || async {
            calls.fetch_add(1, Ordering::Relaxed);
            Err(status(400, None))
        },
        |_, _| panic!("no retry for a permanent error"),
    )
    .await;
    assert!(out.is_err());
    assert_eq!(calls.load(Ordering::Relaxed), 1);
}

#[tokio::test(start_paused = true)]
async fn timeouts_and_malformed_replies_are_retried() {
    let calls = AtomicU32::new(0);
    let out = with_retries(
        3,
        || async {
            match calls.fetch_add(1, Ordering::Relaxed) {
                0 => Err(LlmError::Timeout(Duration::from_secs(1))),
                1 => Err(LlmError::Malformed("eof".into())),
                _ => Ok(42),
            }
        },
        |_, _| {},
    )
    .await;
    assert_eq!(out.unwrap(), 42);
    assert_eq!(calls.load(Ordering::Relaxed), 3);
}

/// A server that answers every request with `content`, whatever it asked.
async fn answering(content: String) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let body = json!({
        "choices": [{"message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 64}
    })
    .to_string();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let body = body.clone();
            tokio::spawn(async move {
                // Read the request head and its body before answering.
                let mut seen = Vec::new();
                let mut buf = [0u8; 8192];
                while let Ok(n @ 1..) = socket.read(&mut buf).await {
                    seen.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&seen);
                    if let Some(head) = text.find("\r\n\r\n") {
                        let length = text[..head]
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length:")
                                    .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                            })
                            .unwrap_or(0);
                        if seen.len() >= head + 4 + length {
                            break;
                        }
                    }
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}/v1")
}

#[tokio::test]
async fn a_reply_longer_than_max_tokens_permits_is_refused_as_malformed() {
    use adfarm_worker::openai::REPLY_BYTES_PER_TOKEN;
    let mut req = request("Say a little.");
    req.max_tokens = 64;
    let limit = 64 * REPLY_BYTES_PER_TOKEN;

    let base = answering("x".repeat(5 << 20)).await;
    let client = OpenAiClient::new(base, "m", None, Duration::from_secs(10)).unwrap();
    let err = client.chat(&req).await.unwrap_err();
    assert!(matches!(err, LlmError::Malformed(_)), "{err:?}");
    assert!(
        err.to_string().contains(&format!("{} bytes", 5 << 20))
            && err
                .to_string()
                .contains(&format!("max_tokens = 64 permits ({limit} bytes)")),
        "{err}"
    );

    // A reply at the bound is returned as sent.
    let base = answering("y".repeat(limit)).await;
    let client = OpenAiClient::new(base, "m", None, Duration::from_secs(10)).unwrap();
    assert_eq!(client.chat(&req).await.unwrap().text.len(), limit);
}
