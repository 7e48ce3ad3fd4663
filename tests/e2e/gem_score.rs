//! `adfarm gem score` on a small response with an ad, without a judge: the
//! JSON names the split sentences, the ad sentence and every quantitative
//! metric. Uses the local MiniLM from `$ADFARM_HOME` (scripts/test fetches
//! it; the command fetches it on first use otherwise).

use crate::Fake;
use adfarm_fake_llm::FakeLlmConfig;
use serde_json::Value;
use std::process::Command;
use std::time::Duration;

#[test]
fn gem_score_prints_sentences_ad_sentences_and_metrics() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let response = dir.path().join("response.md");
    std::fs::write(
        &response,
        "Paris is the capital of France. It is known for the Eiffel Tower, e.g. at night.\n\n\
         1. Visit the Louvre.\n\
         2. Book with [TravelCo](https://travel.example.com) for cheap flights.\n\
         3. Walk along the Seine.\n",
    )
    .expect("the temporary directory is writable");
    let out = Command::new(env!("CARGO_BIN_EXE_adfarm"))
        .env_remove("OPENAI_API_KEY")
        .env("ADFARM_LOG", "warn")
        .arg("--home")
        .arg(crate::assets_home())
        .args(["gem", "score", "--query", "What should I do in Paris?"])
        .arg("--response")
        .arg(&response)
        .args([
            "--ad-name",
            "TravelCo",
            "--ad-url",
            "https://travel.example.com",
        ])
        .output()
        .expect("the adfarm binary starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "adfarm gem score: {}\n{stderr}",
        out.status
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let sentences: Vec<&str> = v["sentences"]
        .as_array()
        .expect("sentences")
        .iter()
        .map(|s| s.as_str().expect("a sentence is a string"))
        .collect();
    assert_eq!(
        sentences,
        [
            "Paris is the capital of France.",
            "It is known for the Eiffel Tower, e.g. at night.",
            "1. Visit the Louvre.",
            "2. Book with [TravelCo](https://travel.example.com) for cheap flights.",
            "3. Walk along the Seine.",
        ]
    );
    assert_eq!(v["ad_sentences"], serde_json::json!([3]));
    assert_eq!(v["ad"]["name"], "TravelCo");
    assert_eq!(v["judge"], serde_json::json!([]), "no judge, no verdicts");
    let metric = |name: &str| -> f64 {
        v["metrics"]
            .as_array()
            .expect("metrics")
            .iter()
            .find(|m| m["metric"] == name)
            .unwrap_or_else(|| panic!("metric {name} missing in {v:#}"))["verdict"]["score"]
            .as_f64()
            .unwrap_or_else(|| panic!("{name} is unscored in {v:#}"))
    };
    assert_eq!(metric("injection-rate"), 100.0);
    for name in [
        "response-flow",
        "response-coherence",
        "ad-flow",
        "ad-coherence",
    ] {
        let x = metric(name);
        assert!((0.0..=100.0).contains(&x), "{name} = {x}");
    }
}

#[test]
fn gem_score_without_an_ad_leaves_ad_metrics_unscored() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let response = dir.path().join("response.txt");
    std::fs::write(&response, "Rust is a language. It is fast and safe.")
        .expect("the temporary directory is writable");
    let out = Command::new(env!("CARGO_BIN_EXE_adfarm"))
        .env_remove("OPENAI_API_KEY")
        .arg("--home")
        .arg(crate::assets_home())
        .args(["gem", "score", "--query", "What is Rust?", "--response"])
        .arg(&response)
        .output()
        .expect("the adfarm binary starts");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["ad_sentences"], serde_json::json!([]));
    let ad_flow = v["metrics"]
        .as_array()
        .expect("metrics")
        .iter()
        .find(|m| m["metric"] == "ad-flow")
        .expect("ad-flow is reported");
    assert_eq!(ad_flow["verdict"]["unscored"], "no-ad");
    assert!(
        !v["metrics"]
            .as_array()
            .expect("metrics")
            .iter()
            .any(|m| m["metric"] == "injection-rate"),
        "no ad given, no injection rate"
    );
}

/// A GEM-Bench verdict whose reply is unparsable twice costs two
/// calls on the wire (the question and the client's one re-ask), not four,
/// and is unscored as a parse failure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unparsable_judge_reply_costs_two_calls_on_the_wire() {
    use adfarm_gem::judge::{judge_response, Protocol, PARSE_FAILURE};
    use adfarm_proto::Role;
    use adfarm_proto::Verdict;
    use adfarm_worker::openai::OpenAiClient;
    let fake = Fake::start(FakeLlmConfig {
        ignore_guided: true,
        ..FakeLlmConfig::default()
    })
    .await;
    // The fake's vocabulary never spells a category code such as
    // NOTICEABLE_POSITIVE, so both replies of every question miss.
    let client = OpenAiClient::new(fake.base_url(), "judge", None, Duration::from_secs(5))
        .expect("a client")
        .with_role(Role::Judge);
    let scores = judge_response(
        &client,
        Protocol::Gembench109,
        "Where should I stay in Rome?",
        "Trastevere is lively. Monti is central.",
        None,
    )
    .await
    .unwrap();
    assert_eq!(scores.len(), 6);
    for s in &scores {
        assert_eq!(s.verdict, Verdict::Unscored(PARSE_FAILURE.into()), "{s:?}");
    }
    let stats = fake.stats().await;
    assert_eq!(
        stats.requests,
        6 * 2,
        "one question and one re-ask per metric"
    );
}
