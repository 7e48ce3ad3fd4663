//! Judge protocols, re-asks and parse failures, and the embedding-metric
//! follow-up, through the `Suite` interface.

use crate::fakes::{tiny_data, FakeEmbedder, FakeLlm};
use crate::solutions::items;
use adfarm_gem::judge_prompts::JUDGE_METRICS;
use adfarm_gem::GemBench;
use adfarm_gem::{EMBED_STAGE, JUDGE_STAGE};
use adfarm_llm::{Embedder, Provider};
use adfarm_proto::{Cell, Item, JobId, JobResult, Output, Score, Variant, Verdict};
use adfarm_suite::{JobError, StageJob, StageModels, Suite};
use serde_json::json;

/// Runs GEM's `stage` on `out` as the worker would: the solved result as
/// its one input.
pub async fn run_stage(
    suite: &GemBench,
    stage: &str,
    item: &Item,
    out: &Output,
    llm: Option<&dyn Provider>,
    embedder: Option<&dyn Embedder>,
) -> Result<Vec<Score>, JobError> {
    let cell = Cell {
        suite: "gem".into(),
        dataset: "mt-human".into(),
        solution: "gi-r".into(),
        seed: 1,
    };
    let solved = JobResult {
        id: JobId("solved".into()),
        stage: "solve".into(),
        cell: cell.clone(),
        item: "0".into(),
        judge: None,
        output: Some(out.clone()),
        scores: vec![],
        usage: vec![],
    };
    let job = StageJob {
        stage,
        cell: &cell,
        item,
        variant: &Variant::none(),
        solution: None,
        inputs: &[Some(solved)],
    };
    Ok(suite
        .run_stage(job, StageModels { llm, embedder })
        .await?
        .scores)
}

fn output(text: &str, ad: serde_json::Value) -> Output {
    Output {
        text: text.into(),
        meta: json!({ "ad": ad }),
    }
}

fn by_metric(scores: &[Score]) -> std::collections::BTreeMap<String, Verdict> {
    scores
        .iter()
        .map(|s| (s.metric.clone(), s.verdict.clone()))
        .collect()
}

fn metric_of(system: &str) -> &'static str {
    JUDGE_METRICS
        .iter()
        .find(|m| system.contains(&format!("Metric: {} (", m.name)))
        .map(|m| m.name)
        .expect("judge prompt names its metric")
}

async fn judge(
    suite: &GemBench,
    item: &Item,
    llm: &FakeLlm,
) -> std::collections::BTreeMap<String, Verdict> {
    let out = output(
        "Try [Osprey](https://osprey.com). Fun trip.",
        json!({"name": "Osprey", "url": "https://osprey.com"}),
    );
    by_metric(
        &run_stage(suite, JUDGE_STAGE, item, &out, Some(llm), None)
            .await
            .unwrap(),
    )
}

#[tokio::test]
async fn paper_protocol_maps_dimension_pairs() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "mt-human")[0];
    // Per metric: (first dimension, second dimension) ratings.
    let llm = FakeLlm::new(
        |_| unreachable!(),
        |req, opts| {
            let s = &req.messages[1].content;
            let first = JUDGE_METRICS
                .iter()
                .any(|m| s.contains(&format!("Rate only this dimension: {}.", m.dims[0].name)));
            let want = match (metric_of(s), first) {
                ("accuracy", _) => "good",
                ("naturalness", true) => "good",
                ("naturalness", false) => "moderate",
                ("personality", true) => "bad",
                ("personality", false) => "moderate",
                ("trust", true) => "bad",
                ("trust", false) => "good",
                ("notice", _) => "moderate",
                _ => "bad",
            };
            opts.iter().position(|o| o == want)
        },
    );
    let got = judge(&suite, item, &llm).await;
    let want = [
        ("accuracy", 90.0),
        ("naturalness", 75.0),
        ("personality", 30.0),
        ("trust", 60.0),
        ("notice", 60.0),
        ("click", 0.0),
    ];
    for (m, s) in want {
        assert_eq!(got[m], Verdict::Score(s), "{m}");
    }
    // One moderate+good of six scored metrics.
    assert_eq!(got["moderate-good-rate"], Verdict::Score(100.0 / 6.0));
    assert_eq!(llm.requests().len(), 12);
    // Only notice and click see the product; every question about the
    // response starts with the same system prompt, query and response.
    let shared = |r: &adfarm_llm::ChatRequest| {
        let user = &r.messages[1].content;
        (
            r.messages[0].content.clone(),
            user[..user.find("\n---\n").unwrap()].to_string(),
        )
    };
    let first = shared(&llm.requests()[0].1);
    for (_, r) in llm.requests() {
        assert_eq!(shared(&r), first);
        let m = metric_of(&r.messages[1].content);
        assert_eq!(
            r.messages[1].content.contains("Sponsored product"),
            m == "notice" || m == "click"
        );
    }
}

/// The suite asks each question once: re-asking is the provider's job
/// (the OpenAI-compatible client re-asks inside `choose`; asking again here
/// would make an unparsable verdict cost four calls).
#[tokio::test]
async fn an_unmatched_choice_is_asked_once_and_unscored() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "mt-human")[0];
    let llm = FakeLlm::new(|_| unreachable!(), |_, _| None);
    let got = judge(&suite, item, &llm).await;
    for m in &JUDGE_METRICS {
        assert_eq!(got[m.name], Verdict::Unscored("parse-failure".into()));
    }
    assert_eq!(
        got["moderate-good-rate"],
        Verdict::Unscored("parse-failure".into())
    );
    assert_eq!(llm.requests().len(), 12, "two dimensions × six metrics");
    assert!(llm.requests().iter().all(|(_, r)| r.messages.len() == 2));
}

#[tokio::test]
async fn gembench_protocol_asks_one_category_per_metric() {
    let suite = GemBench::with_data(tiny_data());
    let item = suite
        .items("mt-human", &json!({"judge_protocol": "gembench-1.0.9"}))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(item.meta["judge_protocol"], "gembench-1.0.9");
    let llm = FakeLlm::new(
        |_| unreachable!(),
        |req, opts| {
            let m = metric_of(&req.messages[1].content);
            let i = JUDGE_METRICS.iter().position(|x| x.name == m).unwrap() % 4;
            assert_eq!(opts.len(), 4);
            Some(i)
        },
    );
    let got = judge(&suite, &item, &llm).await;
    let want = [90.0, 60.0, 30.0, 0.0, 90.0, 60.0];
    for (m, s) in JUDGE_METRICS.iter().zip(want) {
        assert_eq!(got[m.name], Verdict::Score(s), "{}", m.name);
    }
    assert!(!got.contains_key("moderate-good-rate"));
    assert_eq!(llm.requests().len(), 6);
    assert!(suite
        .items("mt-human", &json!({"judge_protocol": "x"}))
        .is_err());
    assert!(suite.items("mt-human", &json!({"other": 1})).is_err());
}

#[tokio::test]
async fn embedding_metrics_follow_the_output_ad() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "mt-human")[0];
    let llm = FakeLlm::new(|_| unreachable!(), |_, _| None);
    let emb = FakeEmbedder::new();
    let embed = |out: Output| {
        let (suite, llm, emb) = (&suite, &llm, &emb);
        async move { run_stage(suite, EMBED_STAGE, item, &out, Some(llm), Some(emb)).await }
    };
    let text = "Paris is lovely in spring. Try [Osprey](https://osprey.com): a travel backpack. Paris museums open early.";
    let with_ad = output(text, json!({"name": "Osprey", "url": "https://osprey.com"}));
    let got = by_metric(&embed(with_ad).await.unwrap());
    for m in [
        "response-flow",
        "response-coherence",
        "ad-flow",
        "ad-coherence",
    ] {
        assert!(matches!(got[m], Verdict::Score(_)), "{m}: {:?}", got[m]);
    }
    let no_ad = output(text, serde_json::Value::Null);
    let got = by_metric(&embed(no_ad).await.unwrap());
    assert_eq!(got["ad-flow"], Verdict::Unscored("no-ad".into()));
    assert!(matches!(got["response-flow"], Verdict::Score(_)));
    let one = output("Just one sentence.", serde_json::Value::Null);
    let got = by_metric(&embed(one.clone()).await.unwrap());
    assert_eq!(
        got["response-coherence"],
        Verdict::Unscored("fewer-than-two-sentences".into())
    );
    let err = run_stage(&suite, EMBED_STAGE, item, &one, Some(&llm), None)
        .await
        .err()
        .unwrap();
    assert_eq!(err.code(), "data");
}

#[tokio::test]
async fn one_response_is_scored_with_sentences_metrics_and_verdicts() {
    use adfarm_gem::judge::{AdView, Protocol};
    use adfarm_gem::scoring::score_response;
    let ad = AdView {
        name: "Osprey".into(),
        url: "https://osprey.com".into(),
    };
    let emb = FakeEmbedder::new();
    let llm = FakeLlm::new(|_| unreachable!(), |_, _| Some(2));
    let text = "Pack light. Try [Osprey](https://osprey.com): a backpack. Have fun.";
    let r = score_response(
        "trip?",
        text,
        Some(&ad),
        Some(&emb),
        Some((&llm, Protocol::Gembench109)),
    )
    .await
    .unwrap();
    assert_eq!(r.sentences.len(), 3);
    assert_eq!(r.ad_sentences, [1]);
    let m = by_metric(&r.metrics);
    assert_eq!(m["injection-rate"], Verdict::Score(100.0));
    assert!(matches!(m["ad-flow"], Verdict::Score(_)));
    assert_eq!(r.judge.len(), 6);
    let json = serde_json::to_value(&r).unwrap();
    assert!(json["sentences"].is_array() && json["judge"].is_array());
}
