//! Solution logic on the tiny dataset with deterministic fake models.

use crate::fakes::{bow, tiny_data, FakeEmbedder, FakeLlm};
use adfarm_gem::inject::ad_sentence;
use adfarm_gem::solutions::adllm::REWRITE_SYSTEM;
use adfarm_gem::solutions::{ad_free_request, GenSettings, ASSISTANT_SYSTEM};
use adfarm_gem::split::split_sentences;
use adfarm_gem::GemBench;
use adfarm_llm::ChatRequest;
use adfarm_proto::{Item, SolutionSpec, Verdict};
use adfarm_suite::{Models, Solution, Solved, Suite};
use serde_json::json;
use std::sync::Arc;

pub const ANSWER: &str =
    "Paris is a lovely city for a short trip. Visit the Louvre museum early in the morning. \
Pack a light backpack for long city walks. Enjoy the food in small bistros.";

pub fn spec(name: &str, params: serde_json::Value) -> SolutionSpec {
    adfarm_suite::solution_entry(name, "fake", 200, params)
}

pub fn items(suite: &GemBench, dataset: &str) -> Vec<Item> {
    suite
        .items(dataset, &json!({}))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

/// The string `field` of each object in the JSON array `list`.
fn field_of_each<'a>(list: &'a serde_json::Value, field: &str) -> Vec<&'a str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|x| x[field].as_str().unwrap())
        .collect()
}

fn system(req: &ChatRequest) -> &str {
    &req.messages[0].content
}

/// Answers ad-free requests with [`ANSWER`]; echoes rewrite requests.
pub fn answering_llm(
    choose: impl Fn(&ChatRequest, &[String]) -> Option<usize> + Send + Sync + 'static,
) -> FakeLlm {
    FakeLlm::new(
        |req| {
            if system(req) == REWRITE_SYSTEM {
                req.messages[1].content.clone()
            } else {
                ANSWER.to_string()
            }
        },
        choose,
    )
}

pub async fn run(
    suite: &GemBench,
    sol: &str,
    params: serde_json::Value,
    item: &Item,
    llm: &FakeLlm,
) -> Solved {
    let emb = FakeEmbedder::new();
    let s = suite.solution(&spec(sol, params)).unwrap();
    s.solve(
        item,
        Models {
            llm,
            embedder: Some(&emb),
        },
        3,
    )
    .await
    .unwrap()
}

pub fn score(s: &Solved, metric: &str) -> Option<Verdict> {
    s.scores
        .iter()
        .find(|x| x.metric == metric)
        .map(|x| x.verdict.clone())
}

#[tokio::test]
async fn ad_free_answer_request_is_identical_across_solutions() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "lm-market")[0];
    let want = ad_free_request(
        &item.input,
        GenSettings {
            max_tokens: 200,
            temperature: 0.0,
        },
        3,
    );
    assert_eq!(want.messages[0].content, ASSISTANT_SYSTEM);
    for sol in ["gi-r", "gir-r", "gir-p", "no-ads"] {
        let llm = answering_llm(|_, _| Some(0));
        let out = run(&suite, sol, json!({}), item, &llm).await;
        assert_eq!(llm.requests()[0].1, want, "{sol}");
        // Each solution's cost includes the shared call.
        let calls = out.output.meta["calls"].as_array().unwrap().clone();
        assert_eq!(calls[0]["step"], "answer", "{sol}");
    }
    // Ad-Chat without a match sends the very same request.
    let llm = answering_llm(|_, _| None);
    let out = run(&suite, "ad-chat", json!({}), item, &llm).await;
    assert_eq!(llm.requests().last().unwrap().1, want);
    assert_eq!(out.output.meta["no_ad_reason"], "no-topic-match");
    assert!(out.output.meta["ad"].is_null());
    assert_eq!(score(&out, "ad-selected"), Some(Verdict::Score(0.0)));
    assert_eq!(score(&out, "injection-rate"), Some(Verdict::Score(0.0)));
}

/// Cosine of two vectors in f64, written out here so the brute force does
/// not share the code it checks.
fn cos(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    dot / (norm(a) * norm(b))
}

/// An ad-free answer whose least disturbing ad of the whole pool (Osprey)
/// is only the third most similar to it.
const RANKED_ANSWER: &str =
    "Paris is lovely. Pots and pans matter in a kitchen. Rome is lovely too. A suitcase helps.";

/// The brute force computes its own cosine (not the one under test), and t
/// must exercise the top-t ranking: t is
/// the largest for which the least disturbing ad of the whole pool is *not*
/// among the t retrieved: a solution that skipped or inverted the ranking
/// fails.
#[tokio::test]
async fn gi_r_retrieves_the_top_t_then_inserts_the_least_disturbing_ad_and_slot() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "mt-human")[0];
    let pool = [
        (
            "Lonely Planet",
            "https://www.lonelyplanet.com/",
            "Travel guide books for city trips",
        ),
        (
            "Osprey Farpoint",
            "https://www.osprey.com/",
            "Travel backpack for city trips in Paris and Rome",
        ),
        (
            "Samsonite",
            "https://www.samsonite.com/",
            "Hard shell suitcase luggage",
        ),
        (
            "Le Creuset",
            "https://www.lecreuset.com/",
            "Cast iron cookware pots and pans",
        ),
    ];
    let sents = split_sentences(RANKED_ANSWER);
    let sv: Vec<Vec<f32>> = sents.iter().map(|s| bow(s)).collect();
    let dv: Vec<Vec<f32>> = pool
        .iter()
        .map(|(n, _, d)| bow(&format!("{n}: {d}.")))
        .collect();
    // Retrieval (GI-R: by the answer): pool indices by similarity, best first.
    let answer = bow(RANKED_ANSWER);
    let mut ranked: Vec<usize> = (0..pool.len()).collect();
    ranked.sort_by(|&a, &b| cos(&answer, &dv[b]).total_cmp(&cos(&answer, &dv[a])));
    // The (Ψ, ad, slot) minimum over `cands`.
    let best = |cands: &[usize]| {
        let mut best = (f64::INFINITY, 0, 0);
        for &j in cands {
            for i in 0..sv.len() - 1 {
                let psi =
                    cos(&sv[i], &sv[i + 1]) - (cos(&sv[i], &dv[j]) + cos(&dv[j], &sv[i + 1])) / 2.0;
                if psi < best.0 {
                    best = (psi, j, i);
                }
            }
        }
        best
    };
    let overall = best(&ranked);
    let t = (1..pool.len())
        .rev()
        .find(|&t| best(&ranked[..t]).1 != overall.1)
        .expect("the tiny data has a t where ranking changes the ad");
    let (_, j, slot) = best(&ranked[..t]);

    let llm = FakeLlm::new(|_| RANKED_ANSWER.to_string(), |_, _| None);
    let out = run(&suite, "gi-r", json!({ "top_t": t }), item, &llm).await;
    let meta = &out.output.meta;
    let retrieved: Vec<&str> = field_of_each(&meta["retrieved"], "name");
    let want: Vec<&str> = ranked[..t].iter().map(|&i| pool[i].0).collect();
    assert_eq!(retrieved, want, "top {t} by similarity to the answer");
    let (name, url, desc) = pool[j];
    assert_eq!(meta["ad"]["name"], name);
    assert_ne!(name, pool[overall.1].0, "the pool's best is not retrieved");
    assert_eq!(meta["slot"]["after_sentence"], slot);
    let mut want = sents[..=slot].join(" ");
    want.push(' ');
    want.push_str(&ad_sentence(name, url, desc));
    for s in &sents[slot + 1..] {
        want.push(' ');
        want.push_str(s);
    }
    assert_eq!(out.output.text, want);
    assert_eq!(meta["retrieval_basis"], "response");
    assert_eq!(meta["calls"].as_array().unwrap().len(), 1);
    assert_eq!(meta["ittft"], meta["calls"][0]["input"]);
    assert_eq!(score(&out, "ad-selected"), Some(Verdict::Score(100.0)));
    assert_eq!(score(&out, "injection-rate"), Some(Verdict::Score(100.0)));
    assert_eq!(score(&out, "ctr"), None);
}

#[tokio::test]
async fn gir_p_rewrites_marked_text_and_strips_the_marks() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "mt-human")[0];
    let llm = answering_llm(|_, _| None);
    let out = run(&suite, "gir-p", json!({}), item, &llm).await;
    let reqs = llm.requests();
    assert_eq!(reqs.len(), 2);
    let rewrite = &reqs[1].1;
    assert_eq!(system(rewrite), REWRITE_SYSTEM);
    assert!(rewrite.messages[1].content.contains("<ad>["));
    assert_eq!(rewrite.max_tokens, 400);
    assert!(!out.output.text.contains("<ad>"));
    let meta = &out.output.meta;
    assert_eq!(meta["retrieval_basis"], "prompt");
    let steps: Vec<&str> = field_of_each(&meta["calls"], "step");
    assert_eq!(steps, ["answer", "rewrite"]);
    assert_eq!(meta["rewrite_failed"], false);
}

/// An empty rewrite is the response (no ad injected; its judges and metrics
/// are unscored as `empty-response`), never GI-R's text under GIR's name.
#[tokio::test]
async fn an_empty_rewrite_is_the_response_not_gi_rs_text() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "mt-human")[0];
    let llm = FakeLlm::new(
        |req| {
            if system(req) == REWRITE_SYSTEM {
                "  ".into()
            } else {
                ANSWER.into()
            }
        },
        |_, _| None,
    );
    let out = run(&suite, "gir-r", json!({}), item, &llm).await;
    assert_eq!(out.output.meta["rewrite_failed"], true);
    assert_eq!(out.output.text, "");
    assert_eq!(score(&out, "injection-rate"), Some(Verdict::Score(0.0)));
}

#[tokio::test]
async fn k_ads_are_inserted_by_iteration() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "mt-human")[0];
    let llm = answering_llm(|_, _| None);
    let out = run(
        &suite,
        "gi-r",
        json!({"ads": 2, "psi": "log-weighted"}),
        item,
        &llm,
    )
    .await;
    let ads = out.output.meta["ads"].as_array().unwrap();
    assert_eq!(ads.len(), 2);
    assert_ne!(ads[0]["id"], ads[1]["id"]);
    assert_eq!(out.output.text.matches("](https://").count(), 2);
    assert_eq!(
        split_sentences(&out.output.text).len(),
        split_sentences(ANSWER).len() + 2
    );
}

#[tokio::test]
async fn ad_chat_walks_topic_subtopic_product() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "lm-market")[0];
    let llm = answering_llm(|_, opts| {
        ["Travel", "Luggage", "Osprey Farpoint"]
            .iter()
            .find_map(|w| opts.iter().position(|o| o == w))
    });
    let out = run(&suite, "ad-chat", json!({}), item, &llm).await;
    let reqs = llm.requests();
    let kinds: Vec<&str> = reqs.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(kinds, ["choose", "choose", "choose", "chat"]);
    // The duplicate listing of Osprey is offered once.
    assert_eq!(system(&reqs[2].1).matches("Osprey Farpoint").count(), 1);
    let last = system(&reqs[3].1);
    assert!(
        last.contains("Osprey Farpoint") && last.contains("https://www.osprey.com/"),
        "{last}"
    );
    let meta = &out.output.meta;
    assert_eq!(meta["ad"]["id"], "Luggage#0");
    assert_eq!(meta["choices"].as_array().unwrap().len(), 3);
    let steps: Vec<&str> = field_of_each(&meta["calls"], "step");
    assert_eq!(steps, ["topic", "subtopic", "product", "answer"]);
    // The fake answer does not mention the product: selected, not injected.
    assert_eq!(score(&out, "ad-selected"), Some(Verdict::Score(100.0)));
    assert_eq!(score(&out, "injection-rate"), Some(Verdict::Score(0.0)));
}

#[tokio::test]
async fn ad_chat_subtopic_fallback_and_empty_topics() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "lm-market")[0];
    // Unmatched subtopic: the topic's own list (one ad: no pick call).
    let llm = answering_llm(|_, opts| opts.iter().position(|o| o == "Travel"));
    let out = run(&suite, "ad-chat", json!({}), item, &llm).await;
    assert_eq!(out.output.meta["ad"]["name"], "Lonely Planet");
    assert_eq!(llm.requests().len(), 3);
    // An empty subtopic: no ad, never a random one.
    let llm = answering_llm(|_, opts| {
        ["Travel", "Hotels"]
            .iter()
            .find_map(|w| opts.iter().position(|o| o == w))
    });
    let out = run(&suite, "ad-chat", json!({}), item, &llm).await;
    assert_eq!(out.output.meta["no_ad_reason"], "empty-topic");
}

#[tokio::test]
async fn ad_chat_fuzzy_matching_maps_free_replies() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "lm-market")[1];
    let llm = FakeLlm::new(
        |req| {
            let s = system(req);
            if s.contains("Which topic") && s.contains("\nTravel\n") {
                "I'd say **Food**.".into()
            } else if s.contains("Which topic") {
                "cookware".into()
            } else if s.contains("Which product") {
                "Le Creuset".into()
            } else {
                "Use a Dutch oven.".into()
            }
        },
        |_, _| panic!("fuzzy mode must not use choose"),
    );
    let out = run(&suite, "ad-chat", json!({"match": "fuzzy"}), item, &llm).await;
    assert_eq!(out.output.meta["ad"]["id"], "Cookware#0");
    assert!(suite
        .solution(&spec("ad-chat", json!({"match": "x"})))
        .is_err());
}

#[tokio::test]
async fn ad_llm_needs_an_embedder() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "mt-human")[0];
    let llm = answering_llm(|_, _| None);
    let s = suite.solution(&spec("gir-r", json!({}))).unwrap();
    let err = s
        .solve(
            item,
            Models {
                llm: &llm,
                embedder: None,
            },
            0,
        )
        .await
        .err()
        .unwrap();
    assert_eq!(err.code(), "data");
    assert!(err.to_string().contains("embedding"));
}

/// GI-R on the tiny LM-Market items, with a model that always answers and
/// an embedder that counts its calls.
struct GiR {
    items: Vec<Item>,
    llm: FakeLlm,
    emb: FakeEmbedder,
    solution: Arc<dyn Solution>,
}

impl GiR {
    fn new() -> GiR {
        let suite = GemBench::with_data(tiny_data());
        GiR {
            items: items(&suite, "lm-market"),
            llm: answering_llm(|_, _| None),
            emb: FakeEmbedder::new(),
            solution: suite.solution(&spec("gi-r", json!({}))).unwrap(),
        }
    }

    fn models(&self) -> Models<'_> {
        Models {
            llm: &self.llm,
            embedder: Some(&self.emb),
        }
    }
}

#[tokio::test]
async fn the_ad_database_is_embedded_once_per_model() {
    let gir = GiR::new();
    let (s, items, emb, models) = (&gir.solution, &gir.items, &gir.emb, gir.models());
    let first = s.solve(&items[0], models, 0).await.unwrap();
    // Sentences + query in one call, the pool in another.
    assert_eq!(*emb.calls.lock().unwrap(), 2);
    assert!(first.output.meta["embedding_tokens"].as_u64().unwrap() > 0);
    s.solve(&items[1], models, 0).await.unwrap();
    assert_eq!(*emb.calls.lock().unwrap(), 3);
}

#[tokio::test]
async fn concurrent_solves_share_one_ad_index_and_report_the_same_cost() {
    let gir = GiR::new();
    let (s, items, emb, models) = (&gir.solution, &gir.items, &gir.emb, gir.models());
    let (a, b, c) = tokio::join!(
        s.solve(&items[0], models, 0),
        s.solve(&items[0], models, 1),
        s.solve(&items[1], models, 0)
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    c.unwrap();
    // Three sentence calls, one pool call.
    assert_eq!(*emb.calls.lock().unwrap(), 4);
    // Which job built the index does not show in its cost.
    assert_eq!(
        a.output.meta["embedding_tokens"],
        b.output.meta["embedding_tokens"]
    );
}
