//! CA-Prod: selection scored by product id, retrieval among the query's
//! own candidates.

use crate::fakes::tiny_data;
use crate::solutions::{answering_llm, items, run, score};
use adfarm_gem::GemBench;
use adfarm_proto::Verdict;
use serde_json::json;

#[tokio::test]
async fn ca_prod_selection_is_scored_by_product_id() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "ca-prod")[0];
    assert_eq!(item.meta["candidates"], json!([1, 2, 3, 4]));
    for (label, want) in [
        ("Summer Dress", Verdict::Score(100.0)),
        ("Summer Dress (2)", Verdict::Score(0.0)),
        ("Party Dress", Verdict::Unscored("label-conflict".into())),
    ] {
        let llm = answering_llm(move |_, opts| {
            ["Dresses", label]
                .iter()
                .find_map(|w| opts.iter().position(|o| o == w))
        });
        let out = run(&suite, "ad-chat", json!({}), item, &llm).await;
        assert_eq!(score(&out, "ctr"), Some(want), "{label}");
        assert_eq!(out.output.meta["ad"]["category"], "Dresses");
    }
    // Unmatched category: no ad, CTR unscored (counted, not 0).
    let llm = answering_llm(|_, _| None);
    let out = run(&suite, "ad-chat", json!({}), item, &llm).await;
    assert_eq!(score(&out, "ctr"), Some(Verdict::Unscored("no-ad".into())));
}

#[tokio::test]
async fn ad_llm_on_ca_prod_retrieves_only_the_query_candidates() {
    let suite = GemBench::with_data(tiny_data());
    let item = &items(&suite, "ca-prod")[1];
    let llm = answering_llm(|_, _| None);
    let out = run(&suite, "gi-r", json!({}), item, &llm).await;
    let ids: Vec<&str> = out.output.meta["retrieved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(sorted, ["4", "5"]);
    assert!(matches!(score(&out, "ctr"), Some(Verdict::Score(_))));
}
