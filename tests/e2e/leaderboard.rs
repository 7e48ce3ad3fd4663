//! `adfarm leaderboard build` over stored sweeps, as a user publishes a
//! quarter:
//!
//! - three synthetic sweeps in one embedded store: last quarter's, this
//!   quarter's on the same task set (another seed), and one on a bigger
//!   task set (another benchmark version). This quarter's release, built
//!   against last quarter's `leaderboard.json`, ranks the bigger task set
//!   on a board of its own, shows each change with its interval and
//!   significance, and marks the new entry new; every page opens in
//!   headless Chromium with no console message and no request beyond the
//!   site's own files, and the JSON validates against the published schema;
//! - an AD-Bench holdout sweep (the scripted agents on a cut) enters only a
//!   release built with `--split holdout`, and no page or JSON of it holds a
//!   holdout task's id or text.

use crate::gem_report_html::{assert_no_console_messages, chromium};
use crate::{Fake, Farm, SweepFile};
use adfarm_proto::leaderboard::{release_schema, Release};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A synthetic sweep file with two entries: `answer` (the fake model) and
/// `echo` (the prompt itself).
fn sweep_file(farm: &Farm, fake: &Fake, name: &str, items: u64, seeds: Vec<u64>) -> PathBuf {
    let spec = SweepFile {
        seeds,
        judges: vec![],
        ..SweepFile::synthetic(name, items)
    };
    let text =
        spec.toml(&fake.base_url()) + "\n[[solutions]]\nname = \"echo\"\nprovider = \"fake-gen\"\n";
    farm.write(&format!("{name}.toml"), &text)
}

/// `adfarm leaderboard build` with `args`; its exit code and output.
async fn build(farm: &Farm, label: &str, args: &[&str]) -> (i32, String) {
    let home = farm.path("home").to_string_lossy().into_owned();
    let mut all = vec!["--home", home.as_str(), "leaderboard", "build"];
    all.extend_from_slice(args);
    let status = tokio::time::timeout(Duration::from_secs(120), farm.command(label, &all).status())
        .await
        .expect("the build ends within two minutes")
        .expect("adfarm starts");
    let log = std::fs::read_to_string(farm.path(&format!("{label}.log"))).unwrap_or_default();
    (status.code().unwrap_or(-1), log)
}

fn read_release(site: &Path) -> Release {
    let text = std::fs::read_to_string(site.join("leaderboard.json")).expect("leaderboard.json");
    serde_json::from_str(&text).expect("a release")
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).expect("a directory") {
        let p = e.expect("an entry").path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Each `href=`/`src=` of `html` names a file of the site, relative.
fn assert_links_stay_in(site: &Path, page: &Path, html: &str) {
    for tag in ["<script", "<link", "<img", "<iframe", "@import", "url("] {
        assert!(!html.contains(tag), "{} has {tag}", page.display());
    }
    for attr in ["href=\"", "src=\""] {
        for (at, _) in html.match_indices(attr) {
            let rest = &html[at + attr.len()..];
            let target = &rest[..rest.find('"').expect("a closed attribute")];
            assert!(
                !target.contains(':') && !target.starts_with('/'),
                "{} links outside the site: {target}",
                page.display()
            );
            assert!(
                site.join(target).is_file(),
                "{} links to a missing file: {target}",
                page.display()
            );
        }
    }
}

/// Opens `page` in headless Chromium with a network log: no console
/// message, and every request the page made (the log's request jobs with
/// an initiator; the browser's own update and time queries have none) is
/// a file of `site`.
fn open_in_chromium(site: &Path, scratch: &Path, page: &Path) {
    let net = scratch.join("net.json");
    let log_arg = format!("--log-net-log={}", net.display());
    let (dom, stderr) = chromium(scratch, page, &["--dump-dom", &log_arg]);
    assert_no_console_messages(&stderr);
    assert!(dom.contains("<h1>"), "{} rendered: {dom}", page.display());
    let log: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&net).expect("chromium wrote its network log"),
    )
    .expect("a JSON network log");
    let start_job = &log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"];
    let root = format!("file://{}", site.display());
    let events = log["events"].as_array().expect("events");
    for e in events.iter().filter(|e| &e["type"] == start_job) {
        let (Some(url), initiator) = (e["params"]["url"].as_str(), &e["params"]["initiator"])
        else {
            continue; // the job's end carries no URL
        };
        if initiator == "not an origin" {
            continue;
        }
        assert!(url.starts_with(&root), "{} requested {url}", page.display());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quarterly_release_ranks_by_version_shows_changes_and_opens_offline() {
    let fake = Fake::clean().await;
    let mut farm = Farm::new("leaderboard");
    let q3 = sweep_file(&farm, &fake, "q3", 20, vec![1]);
    let q4 = sweep_file(&farm, &fake, "q4", 20, vec![1, 2]);
    let bigger = sweep_file(&farm, &fake, "q4-bigger", 25, vec![1]);
    for s in [&q3, &q4, &bigger] {
        farm.run_embedded("home", s, &[]).await;
    }
    farm.write(
        "q3-board.toml",
        "[release]\nname = \"Synthetic\"\nversion = \"2026-Q3\"\ndate = \"2026-08-31\"\n\n\
         [[sweeps]]\nsweep = \"q3.toml\"\nteam = \"farm\"\n",
    );
    let q3_site = farm.path("site-q3");
    let (code, log) = build(
        &farm,
        "lb-q3",
        &[
            "--config",
            &farm.path("q3-board.toml").to_string_lossy(),
            "--out",
            &q3_site.to_string_lossy(),
        ],
    )
    .await;
    assert_eq!(code, 0, "{log}");
    farm.write(
        "q4-board.toml",
        "[release]\nname = \"Synthetic\"\nversion = \"2026-Q4\"\ndate = \"2026-11-30\"\n\
         previous = \"site-q3/leaderboard.json\"\nmax_entries_per_team = 3\n\n\
         [[sweeps]]\nsweep = \"q4.toml\"\nteam = \"farm\"\n\n\
         [[sweeps]]\nsweep = \"q4-bigger.toml\"\nteam = \"farm\"\nnames = { answer = \"answer-bigger\" }\n",
    );
    let site = farm.path("site-q4");
    let (code, log) = build(
        &farm,
        "lb-q4",
        &[
            "--config",
            &farm.path("q4-board.toml").to_string_lossy(),
            "--out",
            &site.to_string_lossy(),
        ],
    )
    .await;
    assert_eq!(code, 0, "{log}");

    let r = read_release(&site);
    assert_eq!(
        r.previous.as_ref().map(|p| p.version.as_str()),
        Some("2026-Q3")
    );
    assert_eq!(r.boards.len(), 2, "two task sets: two boards");
    let same = r
        .boards
        .iter()
        .find(|b| b.version.items == 20)
        .expect("the 20-item board");
    let other = r
        .boards
        .iter()
        .find(|b| b.version.items == 25)
        .expect("the 25-item board");
    assert_ne!(same.version.data, other.version.data);
    let mut on_same: Vec<&str> = same.rows.iter().map(|x| x.entry.as_str()).collect();
    on_same.sort();
    assert_eq!(
        on_same,
        ["answer", "echo"],
        "the other version is never ranked here"
    );
    for row in &same.rows {
        let c = row.cells[0].change.as_ref().expect("a change since Q3");
        assert_eq!(c.shared_items, 20);
        assert_eq!(c.significant, c.lower > 0.0 || c.upper < 0.0);
        assert!(c.lower <= c.delta && c.delta <= c.upper, "{c:?}");
        assert!(!row.new);
    }
    let echo = same.rows.iter().find(|x| x.entry == "echo").expect("echo");
    let c = echo.cells[0].change.as_ref().expect("a change");
    assert_eq!(
        (c.delta, c.significant),
        (0.0, false),
        "echo answers as it did"
    );
    let answer = same
        .rows
        .iter()
        .find(|x| x.entry == "answer")
        .expect("answer");
    assert!(answer.cells[0].seed_spread.is_some(), "two seeds: a spread");
    assert!(answer.cost_per_run_usd > 0.0, "the fake model is priced");
    let newcomer = other
        .rows
        .iter()
        .find(|x| x.entry == "answer-bigger")
        .expect("renamed");
    assert!(newcomer.new);
    let board_page =
        std::fs::read_to_string(site.join(format!("board-{}.html", same.id))).expect("board page");
    assert!(board_page.contains("Δ "), "changes are on the page");
    assert!(
        board_page.contains("ranked apart"),
        "the other version is named apart"
    );

    // The JSON validates against the schema the site publishes, which is
    // the one this binary generates.
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(site.join("leaderboard.schema.json")).expect("the schema"),
    )
    .expect("JSON");
    assert_eq!(schema, release_schema());
    let instance: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(site.join("leaderboard.json")).expect("the release"),
    )
    .expect("JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");

    // Every page opens offline.
    let scratch = farm.path("chromium");
    std::fs::create_dir_all(&scratch).expect("a scratch directory");
    let pages: Vec<PathBuf> = files(&site)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    assert!(
        pages.len() >= 7,
        "index, compare, two boards, entries, pairs: {pages:?}"
    );
    for page in &pages {
        let html = std::fs::read_to_string(page).expect("a page");
        assert_links_stay_in(&site, page, &html);
        open_in_chromium(&site, &scratch, page);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holdout_release_publishes_aggregates_only() {
    let mut farm = Farm::new("leaderboard-holdout");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../sweeps/adbench-scripted.toml"),
    )
    .expect("the scripted sweep");
    let params = text
        .lines()
        .find(|l| l.starts_with("params = "))
        .expect("a params line");
    let text = text.replace(
        params,
        "params = { split = \"holdout\", per_tier = 1, env_dates = [\"2026-07-25\"] }",
    );
    let sweep = farm.write("holdout.toml", &text);
    farm.run_embedded("home", &sweep, &[]).await;
    farm.write(
        "board.toml",
        "[release]\nname = \"AD-Bench holdout\"\nversion = \"2026-Q4\"\ndate = \"2026-11-30\"\n\n\
         [[sweeps]]\nsweep = \"holdout.toml\"\nteam = \"baselines\"\n",
    );
    let config = farm.path("board.toml").to_string_lossy().into_owned();
    let public = farm.path("site-public").to_string_lossy().into_owned();
    let (code, log) = build(&farm, "lb-public", &["--config", &config, "--out", &public]).await;
    assert_eq!(
        code, 2,
        "a holdout sweep has nothing for a public release: {log}"
    );
    assert!(log.contains("--split holdout"), "{log}");

    let site = farm.path("site-holdout");
    let out = site.to_string_lossy().into_owned();
    let (code, log) = build(
        &farm,
        "lb-holdout",
        &[
            "--config",
            &config,
            "--out",
            &out,
            "--split",
            "holdout",
            "--with-outputs",
        ],
    )
    .await;
    assert_eq!(code, 0, "{log}");
    let r = read_release(&site);
    assert_eq!(r.split, "holdout");
    let board = &r.boards[0];
    assert!(board.version.hidden);
    let metrics: Vec<&str> = board.metrics.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(&metrics[..3], ["pass@1", "pass@3", "coverage"]);
    let oracle = board
        .rows
        .iter()
        .find(|x| x.entry == "oracle")
        .expect("the oracle");
    assert_eq!(oracle.cells[0].mean, Some(100.0));
    assert_eq!(oracle.tier, 1);

    // The holdout tasks, as shipped: each file's id and question.
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../suites/adbench/tasks/holdout");
    let tasks: Vec<(String, String)> = files(&shipped)
        .iter()
        .map(|p| {
            let task: toml::Table = std::fs::read_to_string(p)
                .expect("a task file")
                .parse()
                .expect("TOML");
            let field = |k: &str| task[k].as_str().expect("a string").to_string();
            (field("id"), field("question"))
        })
        .collect();
    assert!(tasks.len() >= 30, "the holdout tasks: {}", tasks.len());
    let site_files = files(&site);
    assert!(
        !site_files
            .iter()
            .any(|p| p.starts_with(site.join("results"))
                && p.extension().is_some_and(|e| e == "csv" || e == "json")),
        "no raw results: {site_files:?}"
    );
    for f in &site_files {
        let text = std::fs::read_to_string(f).expect("a text file");
        for (id, question) in &tasks {
            assert!(!text.contains(id), "{} holds task id {id}", f.display());
            let words: String = question.chars().take(40).collect();
            assert!(
                !text.contains(&words),
                "{} holds the text of {id}",
                f.display()
            );
        }
    }
}
