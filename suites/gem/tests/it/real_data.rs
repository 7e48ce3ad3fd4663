//! The gembench 1.0.9 data as shipped: counts, label conflicts, items.
//! Needs the unpacked wheel: ADFARM_GEMBENCH_DIR, or the default location
//! `~/.cache/adfarm/assets/gembench-1.0.9` that `adfarm assets fetch` fills.

use adfarm_gem::caprod::Label;
use adfarm_gem::data::{default_dir, GemData};
use adfarm_gem::GemBench;
use adfarm_suite::{Suite, SuiteContext};
use serde_json::json;
use std::path::{Path, PathBuf};

/// The folder holding the unpacked wheel's folder.
fn assets_dir() -> PathBuf {
    data_dir()
        .parent()
        .expect("the gembench folder has a parent")
        .to_path_buf()
}

fn data_dir() -> PathBuf {
    let dir = std::env::var_os("ADFARM_GEMBENCH_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| default_dir(Path::new(&h))))
        .unwrap_or_default();
    assert!(
        dir.join("GemBench/benchmarking/dataset").is_dir(),
        "gembench 1.0.9 data not found at {}: run `adfarm assets fetch` \
         (or set ADFARM_GEMBENCH_DIR to the unpacked wheel)",
        dir.display()
    );
    dir
}

#[test]
fn counts_match_the_issue() {
    let d = GemData::load(&data_dir()).unwrap();
    let s = adfarm_gem::summary::dataset_summary(&d);
    assert_eq!(
        (s.mt_human, s.lm_market, s.lm_market_distinct),
        (10, 100, 93)
    );
    assert_eq!((s.ads, s.empty_ad_lists.len()), (6558, 16));
    assert_eq!((s.topics, s.subtopics), (26, 600));
    assert_eq!(
        (s.ca_prod_queries, s.ca_prod_products, s.ca_prod_rows),
        (120, 2215, 2222)
    );
    assert_eq!(s.ca_prod_candidates_range, (6, 43));
    assert_eq!(s.ca_prod_relevant_rows, 555);
    assert_eq!(d.ca_prod.clusters.len(), 6);
    // LM-Market keeps each query's own category, aligned by index.
    assert_eq!(d.lm_market[1].category, "Travel Planning");
    assert_eq!(d.lm_market[12].category, "Software Tools Comparison");
    // Topic order is the file's, not alphabetical.
    assert_eq!(d.ads.topics[0].0, "Arts & Entertainment");
    assert_eq!(d.ads.topics[1].0, "Autos & Vehicles");
}

#[test]
fn known_label_conflicts_are_reported() {
    let s = GemBench::load(&SuiteContext {
        assets_dir: assets_dir(),
        cache_dir: None,
    })
    .summary()
    .unwrap();
    assert_eq!(s.ca_prod_duplicate_pairs.len(), 6);
    let conflicting: Vec<_> = s
        .ca_prod_duplicate_pairs
        .iter()
        .filter(|d| d.conflicting)
        .map(|d| (d.query_id, d.product_id))
        .collect();
    assert_eq!(conflicting, [(1194, 22362)]);
    let mut titled: Vec<u64> = s
        .ca_prod_title_conflicts
        .iter()
        .map(|t| t.query_id)
        .collect();
    titled.sort();
    // 1194's conflict is one product id with both labels (above).
    assert_eq!(titled, [629, 1356]);
    let oxy = s
        .ca_prod_title_conflicts
        .iter()
        .find(|t| t.query_id == 1356)
        .unwrap();
    assert_eq!(
        oxy.products,
        [(79369, Label::NotRelevant), (79520, Label::Relevant)]
    );
}

#[test]
fn the_suite_serves_items_for_every_dataset() {
    let gem = GemBench::load(&SuiteContext {
        assets_dir: assets_dir(),
        cache_dir: None,
    });
    let count = |ds| gem.items(ds, &json!({})).unwrap().count();
    assert_eq!(
        (count("mt-human"), count("lm-market"), count("ca-prod")),
        (10, 100, 120)
    );
    let items: Vec<_> = gem
        .items("ca-prod", &json!({}))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for it in &items {
        let n = it.meta["candidates"].as_array().unwrap().len();
        assert!((5..=43).contains(&n), "{}: {n}", it.id);
        assert!(it.meta["category"].is_string());
    }
    assert_eq!(items[0].id, "23");
    assert!(gem
        .items("nope", &json!({}))
        .err()
        .unwrap()
        .to_string()
        .contains("ca-prod"));
}

#[test]
fn missing_data_points_to_the_fetch_command() {
    let gem = GemBench::load(&SuiteContext {
        assets_dir: "/nonexistent".into(),
        cache_dir: None,
    });
    let err = gem.items("mt-human", &json!({})).err().unwrap().to_string();
    assert!(err.contains("adfarm assets fetch"), "{err}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else if !e.file_name().to_string_lossy().ends_with(".py") {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

#[test]
fn changed_package_contents_fail_naming_the_file() {
    let tmp = std::env::temp_dir().join(format!("adfarm-gem-count-{}", std::process::id()));
    let ds = "GemBench/benchmarking/dataset";
    copy_dir(&data_dir().join(ds), &tmp.join(ds));
    let prompts = tmp.join(ds).join("MT_Human/prompts.json");
    std::fs::write(&prompts, r#"["only one"]"#).unwrap();
    let err = GemData::load(&tmp).unwrap_err().to_string();
    assert!(
        err.contains("MT_Human/prompts.json") && err.contains("expected 10 prompts"),
        "{err}"
    );

    std::fs::copy(data_dir().join(ds).join("MT_Human/prompts.json"), &prompts).unwrap();
    let q = tmp.join(ds).join("CA_Prod/src/dataset/queries.tsv");
    let text = std::fs::read_to_string(&q).unwrap();
    let short: String = text.lines().take(100).map(|l| format!("{l}\n")).collect();
    std::fs::write(&q, short).unwrap();
    let err = GemData::load(&tmp).unwrap_err().to_string();
    assert!(
        err.contains("queries.tsv")
            && err.contains("expected 120 queries")
            && err.contains("found 99"),
        "{err}"
    );
    std::fs::remove_dir_all(&tmp).ok();
}

#[tokio::test]
async fn solutions_run_on_the_real_ad_database() {
    use crate::fakes::{FakeEmbedder, FakeLlm};
    use adfarm_gem::retrieval::EMBED_BATCH;
    use adfarm_suite::{Models, Suite};

    let gem = GemBench::load(&SuiteContext {
        assets_dir: assets_dir(),
        cache_dir: None,
    });
    let pool = gem.summary().unwrap().ads_distinct;
    let item = gem
        .items("mt-human", &json!({}))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let llm = FakeLlm::new(
        |_| {
            "Inflation rises when demand outpaces supply. Central banks raise rates to cool it."
                .into()
        },
        |_, opts| opts.iter().position(|o| o == "Finance").or(Some(0)),
    );
    let emb = FakeEmbedder::new();
    let models = Models {
        llm: &llm,
        embedder: Some(&emb),
    };
    let spec = |name: &str| adfarm_suite::solution_entry(name, "fake", 64, json!({}));
    let out = gem
        .solution(&spec("gi-r"))
        .unwrap()
        .solve(&item, models, 0)
        .await
        .unwrap();
    assert_eq!(*emb.calls.lock().unwrap(), 1 + pool.div_ceil(EMBED_BATCH));
    assert_eq!(out.output.meta["retrieved"].as_array().unwrap().len(), 5);
    assert!(out.output.text.contains("]("));

    let out = gem
        .solution(&spec("ad-chat"))
        .unwrap()
        .solve(&item, models, 0)
        .await
        .unwrap();
    let id = out.output.meta["ad"]["id"].as_str().unwrap().to_string();
    assert!(gem.data().unwrap().ads.get(&id).is_some(), "{id}");
}

/// `'CODE': score` pairs of a reference judge agent's category table, in
/// the file's order.
fn reference_categories(source: &str) -> Vec<(String, u8)> {
    source
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix('\'')?;
            let (code, rest) = rest.split_once('\'')?;
            let score = rest.strip_prefix(':')?.trim();
            let digits: String = score.chars().take_while(char::is_ascii_digit).collect();
            Some((code.to_string(), digits.parse().ok()?))
        })
        .collect()
}

/// The gembench-1.0.9 protocol's codes and scores are read from
/// the reference's judge agents, not compared with themselves.
#[test]
fn category_codes_and_scores_are_the_reference_agents() {
    use adfarm_gem::judge_prompts::JUDGE_METRICS;
    let agents = data_dir().join("GemBench/benchmarking/evaluator/laaj_evaluator/agents");
    for m in &JUDGE_METRICS {
        let file = match m.name {
            "notice" => "notice_products_agent.py".to_string(),
            "click" => "click_products_agent.py".to_string(),
            other => format!("{other}_agent.py"),
        };
        let source = std::fs::read_to_string(agents.join(&file)).expect("the agent's source");
        let want = reference_categories(&source);
        let got: Vec<(String, u8)> = m
            .categories
            .iter()
            .map(|c| (c.code.to_string(), c.score))
            .collect();
        assert_eq!(got, want, "{} against {file}", m.name);
    }
}
