//! An episode's patch replays: the change sets of scripted agents on
//! scenarios, gauntlet tasks and red-team scenarios, turned into requests
//! and sent again on each item's start state, give the episode's event
//! log, change set and task predicates; a patch that differs by one value
//! is caught.

use adfarm_adsbench::suite::assignment::Graded;
use adfarm_adsbench::suite::patch::{replay, requests, Request};
use adfarm_adsbench::AdsBench;
use adfarm_agent::testing::Scripted;
use adfarm_proto::Item;
use adfarm_suite::{solution_entry, Models, Suite};
use serde_json::json;

/// Items of `dataset` whose ids `keep` accepts.
fn items(dataset: &str, params: serde_json::Value, keep: impl Fn(&str) -> bool) -> Vec<Item> {
    AdsBench::default()
        .items(dataset, &params)
        .expect("the dataset")
        .map(|i| i.expect("a valid item"))
        .filter(|i| keep(&i.id))
        .collect()
}

/// `solution`'s episode on `item`, as its solve stores it.
async fn episode(solution: &str, item: &Item) -> Graded {
    let llm = Scripted::new(Vec::new());
    let solved = AdsBench::default()
        .solution(&solution_entry(solution, "scripted", 256, json!({})))
        .expect("a solution")
        .solve(
            item,
            Models {
                llm: &llm,
                embedder: None,
            },
            1,
        )
        .await
        .expect("the episode runs");
    Graded::from_meta(&solved.output.meta).expect("a stored episode reads back")
}

async fn assert_replays(solution: &str, item: &Item) -> Vec<Request> {
    let stored = episode(solution, item).await;
    let changes = stored.outcome.changes.clone().expect("a change set");
    let patch = requests(&changes).expect("every change says how it was sent");
    let replayed = replay(item, &patch).expect("the replay runs");
    assert_eq!(replayed.requests, patch.len(), "{solution} on {}", item.id);
    assert_eq!(replayed.refused, 0, "{solution} on {}", item.id);
    assert_eq!(
        replayed.differences(&stored),
        Vec::<String>::new(),
        "{solution} on {}",
        item.id
    );
    patch
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripted_agents_patches_replay_to_the_same_episode() {
    let scenarios = items(
        "scenarios",
        json!({"scenarios": [{"days": 3, "cadence": 6}, {"days": 4, "seed": 9, "mechanism": "vcg"}]}),
        |_| true,
    );
    let gauntlet = items("gauntlet", json!({}), |id| {
        [
            "planning-easy-01",
            "control-medium-01",
            "control-hard-01",
            "analysis-easy-01",
        ]
        .contains(&id)
    });
    assert_eq!(gauntlet.len(), 4);
    let redteam = items("redteam", json!({}), |id| {
        ["drain", "outage", "partial", "quota"]
            .iter()
            .any(|k| id.contains(k))
    });
    assert!(!redteam.is_empty());
    let mut requests_seen = 0;
    for item in scenarios.iter().chain(&gauntlet).chain(&redteam) {
        for solution in ["pacing", "rules", "linucb"] {
            requests_seen += assert_replays(solution, item).await.len();
        }
    }
    // The agents changed their accounts: the patches are not empty.
    assert!(requests_seen > 20, "{requests_seen} requests");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_patch_that_differs_by_one_bid_does_not_replay_to_the_episode() {
    let item = &items("scenarios", json!({"scenarios": [{"days": 3}]}), |_| true)[0];
    let stored = episode("fixed-bid", item).await;
    let mut patch =
        requests(stored.outcome.changes.as_deref().unwrap_or_default()).expect("a patch");
    let shown = format!("{patch:?}");
    let op = patch
        .iter_mut()
        .flat_map(|r| r.operations.iter_mut())
        .find(|op| op["update"]["fields"]["cpc_bid_micros"].is_i64())
        .unwrap_or_else(|| panic!("fixed-bid sets the bids: {shown}"));
    let bid = op["update"]["fields"]["cpc_bid_micros"]
        .as_i64()
        .unwrap_or_default();
    op["update"]["fields"]["cpc_bid_micros"] = json!(bid * 3);
    let differences = replay(item, &patch)
        .expect("the replay runs")
        .differences(&stored);
    assert!(
        differences
            .iter()
            .any(|d| d.starts_with("event-log digest")),
        "{differences:?}"
    );
    assert!(
        differences.iter().any(|d| d.starts_with("change set")),
        "{differences:?}"
    );
}
