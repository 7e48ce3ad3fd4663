//! Releases assembled from constructed sweeps of the synthetic suite:
//! boards per benchmark version, changes since a previous release, the
//! team cap, and hidden splits.

use super::*;
use adfarm_backbone::SweepRecord;
use adfarm_proto::leaderboard::{BenchmarkVersion, Release};
use adfarm_proto::{Cell, JobId, JobResult, Score, SweepSpec, Verdict, SOLVE};
use adfarm_suites::SuiteContext;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn release(previous: Option<PathBuf>, cap: Option<usize>) -> ReleaseConfig {
    ReleaseConfig {
        name: "Test board".into(),
        version: "2026-Q4".into(),
        date: "2026-11-30".into(),
        previous,
        max_entries_per_team: cap,
        resamples: 400,
        seed: 0,
    }
}

/// An entry of a constructed sweep: its label and its value on item `i`.
type Scored = (&'static str, fn(usize) -> f64);

/// A finished synthetic sweep `name` on task set `data`: each entry's
/// quality on item `i` is `f(i)`, one seed.
fn sweep(name: &str, data: &str, hidden: bool, entries: &[Scored]) -> Sweep {
    let solutions: Vec<serde_json::Value> = entries
        .iter()
        .map(|(label, _)| serde_json::json!({"name": "echo", "label": label, "provider": "gen"}))
        .collect();
    let spec: SweepSpec = serde_json::from_value(serde_json::json!({
        "name": name,
        "suites": [{"name": "synthetic", "datasets": ["default"], "params": {"items": 30}}],
        "solutions": solutions,
        "providers": [{"name": "gen", "kind": "openai-compatible", "model": "m",
                       "requests_per_minute": 60.0}],
        "seeds": [1]
    }))
    .expect("a sweep spec");
    let version = BenchmarkVersion {
        suite: "synthetic".into(),
        suite_version: "1.0.0".into(),
        data: data.into(),
        items: 30,
        scorer: "text-score-1".into(),
        judges: None,
        hidden,
    };
    let mut results = vec![];
    for (label, f) in entries {
        for i in 0..30 {
            results.push(JobResult {
                id: JobId(format!("{name}-{label}-{i}")),
                stage: SOLVE.into(),
                cell: Cell {
                    suite: "synthetic".into(),
                    dataset: "default".into(),
                    solution: label.to_string(),
                    seed: 1,
                },
                item: format!("secret-task-{i}"),
                judge: None,
                output: None,
                scores: vec![Score {
                    metric: "quality".into(),
                    verdict: Verdict::Score(f(i)),
                }],
                usage: vec![],
            });
        }
    }
    Sweep {
        source: SweepSource {
            sweep: name.into(),
            team: format!("team-{name}"),
            teams: BTreeMap::new(),
            names: BTreeMap::new(),
        },
        file: None,
        record: SweepRecord {
            id: spec.id(),
            spec,
            planned: BTreeMap::new(),
            pipelines: BTreeMap::new(),
            estimated_cost_usd: 0.0,
            created_unix: 0,
            epoch: "e".into(),
            benchmarks: BTreeMap::from([("synthetic".to_string(), version)]),
            adfarm: "0.1.0".into(),
        },
        cells: vec![],
        results,
    }
}

fn wavy(i: usize) -> f64 {
    50.0 + ((i * 37) % 11) as f64 * 3.0
}

fn build(cfg: &ReleaseConfig, sweeps: &[Sweep], previous: Option<&Release>) -> Release {
    assemble(
        cfg,
        sweeps,
        previous,
        Split::Public,
        false,
        &SuiteContext::default(),
    )
    .expect("a release")
    .release
}

#[test]
fn versions_get_boards_of_their_own_and_changes_are_paired_on_shared_items() {
    let q3 = build(
        &release(None, None),
        &[sweep(
            "q3",
            "tasks-a",
            false,
            &[("better", wavy), ("same", wavy)],
        )],
        None,
    );
    assert_eq!(q3.boards.len(), 1);
    let q4 = build(
        &release(Some("q3.json".into()), None),
        &[
            sweep(
                "q4",
                "tasks-a",
                false,
                &[("better", |i| wavy(i) + 10.0), ("same", wavy)],
            ),
            sweep(
                "q4-v2",
                "tasks-b",
                false,
                &[("newcomer", |i| wavy(i) - 5.0)],
            ),
        ],
        Some(&q3),
    );
    assert_eq!(q4.boards.len(), 2, "two task sets, two boards");
    let a = q4
        .boards
        .iter()
        .find(|b| b.version.data == "tasks-a")
        .expect("board a");
    let names: Vec<&str> = a.rows.iter().map(|r| r.entry.as_str()).collect();
    assert_eq!(
        names,
        ["better", "same"],
        "never ranked with the other version"
    );
    let better = a.rows[0].cells[0].change.as_ref().expect("a change");
    assert_eq!((better.delta, better.shared_items), (10.0, 30));
    assert!(better.significant && !better.tasks_changed);
    let same = a.rows[1].cells[0].change.as_ref().expect("a change");
    assert_eq!(same.delta, 0.0);
    assert!(!same.significant);
    assert!(!a.rows[0].new && !a.rows[1].new);
    // +10 on every item separates the two: each its own tier.
    assert_eq!((a.rows[0].tier, a.rows[1].tier), (1, 2));
    assert_eq!(a.rows[0].cells[0].beats_next, Some(1.0));
    let b = q4
        .boards
        .iter()
        .find(|b| b.version.data == "tasks-b")
        .expect("board b");
    assert!(b.rows[0].new, "absent from the previous release");
    assert!(b.rows[0].cells[0].change.is_none());
}

#[test]
fn entries_within_noise_share_a_tier_and_the_release_is_stable() {
    let sweeps = [sweep(
        "q",
        "t",
        false,
        &[("a", wavy), ("b", |i| wavy((i + 5) % 30) + 0.5)],
    )];
    let one = build(&release(None, None), &sweeps, None);
    let rows = &one.boards[0].rows;
    assert_eq!((rows[0].tier, rows[1].tier), (1, 1), "{rows:?}");
    assert_eq!(rows[0].cells[0].rank_best, Some(1));
    assert_eq!(rows[1].cells[0].rank_best, Some(1));
    let again = build(&release(None, None), &sweeps, None);
    assert_eq!(
        serde_json::to_string(&one).expect("JSON"),
        serde_json::to_string(&again).expect("JSON"),
        "the same seed gives the same bytes"
    );
}

#[test]
fn a_team_over_its_cap_is_refused_with_its_entries() {
    let sweeps = [sweep(
        "q",
        "t",
        false,
        &[("a", wavy), ("b", wavy), ("c", wavy)],
    )];
    let e = assemble(
        &release(None, Some(2)),
        &sweeps,
        None,
        Split::Public,
        false,
        &SuiteContext::default(),
    )
    .err()
    .expect("over the cap");
    let text = e.to_string();
    assert!(
        text.contains("team \"team-q\" has 3 entries (a, b, c)"),
        "{text}"
    );
    assert_eq!(e.code(), "leaderboard-team-cap");
}

#[test]
fn a_hidden_split_enters_only_a_holdout_release_and_never_by_item_id() {
    let sweeps = [sweep("h", "t", true, &[("a", wavy), ("b", wavy)])];
    let public = assemble(
        &release(None, None),
        &sweeps,
        None,
        Split::Public,
        false,
        &SuiteContext::default(),
    );
    assert_eq!(public.err().map(|e| e.code()), Some("leaderboard-empty"));
    let built = assemble(
        &release(None, None),
        &sweeps,
        None,
        Split::Holdout,
        true,
        &SuiteContext::default(),
    )
    .expect("a holdout release");
    assert!(built.raw.is_empty(), "no raw results for a hidden board");
    let json = serde_json::to_string(&built.release).expect("JSON");
    assert!(!json.contains("secret-task"), "{json}");
    assert_eq!(built.release.boards[0].rows[0].cells[0].n, 30);
}

#[test]
fn a_board_scored_by_an_older_scorer_is_flagged_stale() {
    let mut old = sweep("old", "t", false, &[("a", wavy)]);
    for v in old.record.benchmarks.values_mut() {
        v.scorer = "text-score-0".into();
    }
    let r = build(&release(None, None), &[old], None);
    let why = r.boards[0].stale.as_deref().expect("flagged stale");
    assert!(
        why.contains("text-score-0") && why.contains("text-score-1"),
        "{why}"
    );
    let fresh = build(
        &release(None, None),
        &[sweep("new", "t", false, &[("a", wavy)])],
        None,
    );
    assert_eq!(fresh.boards[0].stale, None);
}

#[test]
fn a_sweep_without_a_recorded_version_is_refused_with_what_to_do() {
    let mut old = sweep("unversioned", "t", false, &[("a", wavy)]);
    old.record.benchmarks.clear();
    let e = assemble(
        &release(None, None),
        &[old],
        None,
        Split::Public,
        false,
        &SuiteContext::default(),
    )
    .err()
    .expect("refused");
    assert_eq!(e.code(), "leaderboard-unversioned");
    assert!(e.to_string().contains("run it again"), "{e}");
}
