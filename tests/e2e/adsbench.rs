//! Ads-Bench's scripted agents end to end: `sweeps/adsbench-scripted.toml`
//! (2 scenarios × `fixed-bid` and `pacing` × 1 seed) and `q-learning`
//! (its `train` stage first, then its solves reading it) run embedded and over
//! a coordinator and two workers gives the same report, its daily-KPI
//! section included, with one row per simulated day and a total, each day
//! under its cap; every episode's event-log digest is the same in both
//! deployments and in a second embedded run from an empty home; the OPE
//! section tables the five estimators on the Open Bandit Dataset.
//! `sweeps/adsbench-model.toml`'s model agents (ReAct and function calling,
//! a conversation per decision point) on two scenarios and two gauntlet
//! tasks against the fake server give one report embedded and distributed:
//! the same requests, replies and events; the fake's arbitrary calls are
//! answered with the API's errors and every episode ends. A model agent
//! scripted through malformed calls gets Google's error codes for each,
//! and its episode's patch, read back with `adfarm adsbench patch`,
//! replays on the scenario's start state to the same event log. The whole
//! gauntlet under both model agents gives one report in both deployments.

use crate::sections::{col, number, table, text};
use crate::{assert_complete, assert_same_results, assets_home, figure, Fake, Farm};
use adfarm_fake_llm::{FakeLlmConfig, ScriptedCall};
use adfarm_proto::report::Report;
use adfarm_proto::SOLVE;
use serde_json::json;
use std::time::{Duration, Instant};

const SOLUTIONS: [&str; 2] = ["fixed-bid", "pacing"];
const SCENARIOS: [&str; 2] = ["scenario-0", "scenario-1"];
const DAYS: usize = 14;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adsbench_scripted_sweep_gives_one_report_embedded_and_distributed() {
    let mut farm = Farm::new("adsbench");
    let sweep = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sweeps/adsbench-scripted.toml"
    ))
    .expect("the sweep file");
    // With `q-learning`, whose solves read the table its `train` stage
    // learnt (two training episodes keep it quick in a debug build).
    let sweep = sweep.replace(
        "[[providers]]",
        "[[solutions]]\nname = \"q-learning\"\nprovider = \"none\"\n\
         params = { episodes = 2 }\n\n[[providers]]",
    );
    let path = farm.write("adsbench-scripted.toml", &sweep);
    link_assets(&farm, &["home", "again"]);

    let t0 = Instant::now();
    let embedded = farm.run_embedded("home", &path, &[]).await;
    let embedded_wall = t0.elapsed();
    assert_complete(&embedded);
    assert_eq!(embedded.jobs[SOLVE].planned, 6, "{:?}", embedded.jobs);
    assert_eq!(
        embedded.jobs["train"].planned, 2,
        "one per scenario and seed"
    );

    for solution in SOLUTIONS {
        for item in SCENARIOS {
            let t = table(&embedded, "adsbench", &format!("daily-{solution}-{item}"));
            assert_eq!(t.rows.len(), DAYS + 1, "{t:?}");
            let (date, spend, cap) = (
                col(t, "date", None),
                col(t, "spend", None),
                col(t, "day-cap", None),
            );
            let mut total = 0.0;
            for row in &t.rows[..DAYS] {
                assert_eq!(text(&row[0]), solution);
                let s = number(&row[spend]).expect("a spend");
                let day_cap = number(&row[cap]).expect("the day's cap");
                assert!((0.0..=day_cap).contains(&s), "{row:?}");
                total += s;
            }
            assert!(total > 0.0, "{solution} on {item} spent nothing");
            let last = &t.rows[DAYS];
            assert_eq!(text(&last[date]), "total");
            assert!((number(&last[spend]).expect("a total") - total).abs() < 1e-6);
        }
    }

    farm.start_workers(2, 2).await;
    let wall = farm.coordinate(&path, Duration::from_secs(120)).await;
    let distributed = farm.report_cluster(&path).await;
    assert_complete(&distributed);
    assert_same_results(&distributed, &embedded);
    assert_eq!(distributed.sections, embedded.sections);

    // Same seeds, same API calls: the same event logs, whichever the
    // deployment, and in another run of the binary from scratch.
    let again = farm.run_embedded("again", &path, &[]).await;
    assert_complete(&again);
    let first = digests(&embedded);
    assert_eq!(first.len(), (SOLUTIONS.len() + 1) * SCENARIOS.len());
    assert_eq!(digests(&distributed), first);
    assert_eq!(digests(&again), first);
    assert_eq!(again.sections, embedded.sections);

    let ope = table(&embedded, "adsbench", "ope-obd-relative-error");
    let names: Vec<String> = ope.rows.iter().map(|r| text(&r[0])).collect();
    assert_eq!(names, ["ipw", "snipw", "dm", "dr", "sndr"]);
    for row in &ope.rows {
        let (low, est, high) = (
            number(&row[col(ope, "estimate-lower", None)]),
            number(&row[col(ope, "estimate", None)]),
            number(&row[col(ope, "estimate-upper", None)]),
        );
        assert!(low <= est && est <= high, "{row:?}");
    }

    let t = table(&embedded, "adsbench", "daily-pacing-scenario-0");
    figure(
        "adsbench",
        format_args!(
            "6 episodes of {DAYS} days and 4 training episodes; embedded {:.1} s, \
             2 workers {:.1} s; pacing on scenario-0 spent {:.2}",
            embedded_wall.as_secs_f64(),
            wall.as_secs_f64(),
            number(&t.rows[DAYS][col(t, "spend", None)]).unwrap_or_default()
        ),
    );
}

/// The shipped sweep `file` written into the farm with its provider at
/// `fake` (the shipped files name `adfarm dev fake-llm`'s default address).
fn against_fake(farm: &Farm, fake: &Fake, file: &str) -> std::path::PathBuf {
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../sweeps")
        .join(file);
    let sweep = std::fs::read_to_string(&shipped)
        .expect("the sweep file")
        .replace("http://127.0.0.1:8089/v1", &fake.base_url());
    farm.write(file, &sweep)
}

/// The suite declares the OBD sample; each home gets the one the test
/// command fetched, so nothing is downloaded here.
fn link_assets(farm: &Farm, homes: &[&str]) {
    for home in homes {
        let assets = farm.path(home).join("assets");
        std::fs::create_dir_all(&assets).expect("the farm's home");
        std::os::unix::fs::symlink(
            std::path::Path::new(&assets_home()).join("assets/obp-0.5.7"),
            assets.join("obp-0.5.7"),
        )
        .expect("a link to the fetched asset");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adsbench_model_agents_give_one_report_embedded_and_distributed() {
    let fake = Fake::clean().await;
    let mut farm = Farm::new("adsbench-model");
    let path = against_fake(&farm, &fake, "adsbench-model.toml");
    link_assets(&farm, &["home", "again"]);

    let t0 = Instant::now();
    let embedded = farm.run_embedded("home", &path, &[]).await;
    let embedded_wall = t0.elapsed();
    assert_complete(&embedded);
    assert_eq!(embedded.jobs[SOLVE].planned, 8, "{:?}", embedded.jobs);
    let calls = fake.stats().await.requests;
    // 2 scenarios × 2 agents × 12 decisions, at least one call each.
    assert!(calls >= 48, "{calls} model calls");
    // The fake's calls follow the tools' schemas with arbitrary values (a
    // GAQL query of random words, say): the API answers them with its
    // errors, and every episode still runs to its end.
    let refusals = embedded
        .cells
        .iter()
        .find(|c| {
            c.dataset == "scenarios"
                && c.solution == "function-calling"
                && c.metric == "api-refusals"
        })
        .expect("the function-calling agent's API refusals");
    assert!(refusals.mean.is_some_and(|m| m > 0.0), "{refusals:?}");
    let gauntlet = table(&embedded, "adsbench", "gauntlet");
    assert_eq!(gauntlet.rows.len(), 2, "{gauntlet:?}");
    for solution in ["react", "function-calling"] {
        for item in SCENARIOS {
            let t = table(&embedded, "adsbench", &format!("daily-{solution}-{item}"));
            assert_eq!(t.rows.len(), 3 + 1, "{t:?}");
        }
    }

    farm.start_workers(2, 2).await;
    let wall = farm.coordinate(&path, Duration::from_secs(120)).await;
    let distributed = farm.report_cluster(&path).await;
    assert_complete(&distributed);
    assert_same_results(&distributed, &embedded);
    assert_eq!(distributed.sections, embedded.sections);
    assert_eq!(digests(&distributed), digests(&embedded));
    // The distributed run had its own store: the fake was asked again, the
    // same requests, so the same replies.
    let after = fake.stats().await.requests;
    assert_eq!(after, 2 * calls);

    figure(
        "adsbench-model",
        format_args!(
            "4 model-agent episodes of 3 days, {calls} model calls each deployment; embedded \
             {:.1} s, 2 workers {:.1} s",
            embedded_wall.as_secs_f64(),
            wall.as_secs_f64()
        ),
    );
}

/// The whole gauntlet under both model agents against the fake server
/// (`sweeps/adsbench-model-gauntlet.toml`, 60 tasks): every episode ends,
/// and a coordinator with two workers gives the embedded run's report,
/// the same JSON bytes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_whole_gauntlet_of_model_agents_gives_one_report_embedded_and_distributed() {
    let fake = Fake::clean().await;
    let mut farm = Farm::new("adsbench-model-gauntlet");
    let path = against_fake(&farm, &fake, "adsbench-model-gauntlet.toml");
    link_assets(&farm, &["home"]);

    let t0 = Instant::now();
    let embedded = farm.run_embedded("home", &path, &[]).await;
    let embedded_wall = t0.elapsed();
    assert_complete(&embedded);
    assert_eq!(embedded.jobs[SOLVE].planned, 120, "{:?}", embedded.jobs);
    let calls = fake.stats().await.requests;
    assert!(calls >= 120, "{calls} model calls");
    let gauntlet = table(&embedded, "adsbench", "gauntlet");
    assert_eq!(gauntlet.rows.len(), 60, "{gauntlet:?}");

    farm.start_workers(2, 2).await;
    let wall = farm.coordinate(&path, Duration::from_secs(240)).await;
    let distributed = farm.report_cluster(&path).await;
    assert_complete(&distributed);
    assert_same_results(&distributed, &embedded);
    assert_eq!(distributed.usage, embedded.usage);
    assert_eq!(distributed.sections, embedded.sections);
    // The whole report, as the bytes of its JSON.
    let bytes = |r: &Report| serde_json::to_vec(r).expect("a report serialises");
    assert!(
        bytes(&distributed) == bytes(&embedded),
        "the two reports' JSON differ"
    );
    assert_eq!(fake.stats().await.requests, 2 * calls);

    figure(
        "adsbench-model-gauntlet",
        format_args!(
            "60 tasks × 2 model agents, {calls} model calls each deployment; embedded {:.1} s, \
             2 workers {:.1} s",
            embedded_wall.as_secs_f64(),
            wall.as_secs_f64()
        ),
    );
}

/// Each daily table's event-log digest (its note's last word), by table id.
fn digests(r: &Report) -> Vec<(String, String)> {
    r.sections
        .iter()
        .filter(|s| s.suite == "adsbench")
        .flat_map(|s| &s.tables)
        .filter(|t| t.id.starts_with("daily-"))
        .map(|t| {
            let note = t.notes.first().expect("a note with the digest");
            let digest = note
                .rsplit(' ')
                .next()
                .expect("a last word")
                .trim_end_matches('.');
            assert_eq!(digest.len(), 64, "{note}");
            assert!(digest.bytes().all(|b| b.is_ascii_hexdigit()), "{note}");
            (t.id.clone(), digest.to_string())
        })
        .collect()
}

/// The fake's calls for each decision of the patch test: malformed GAQL,
/// a query over every resource, refused values and names, more operations
/// than a request may hold, then one committed change and the decision's
/// end. The default scenario's account is customer 1234567890 with
/// campaign 1 (budget 1), ad group 2 and keywords from 3 on.
fn malformed_calls() -> Vec<ScriptedCall> {
    let call = |name: &str, arguments: serde_json::Value| ScriptedCall {
        name: name.into(),
        arguments,
    };
    let search = |query: &str| call("search", json!({ "query": query }));
    let update = |name: &str, fields: serde_json::Value| {
        call(
            "mutate",
            json!({"operations": [{"update": {"resource_name": name, "fields": fields}, "note": "test"}]}),
        )
    };
    let campaign = "customers/1234567890/campaigns/1";
    let mut calls = vec![
        search("SELEC campaign.id FROM campaign"),
        search("SELECT campaign.nope FROM campaign"),
    ];
    for resource in [
        "customer",
        "campaign_budget",
        "campaign",
        "campaign_criterion",
        "ad_group",
        "ad_group_ad",
        "ad_group_criterion",
        "search_term_view",
    ] {
        calls.push(search(&format!("SELECT customer.id FROM {resource}")));
    }
    calls.push(search(
        "SELECT ad_group_criterion.criterion_id FROM keyword_view",
    ));
    calls.extend([
        update(campaign, json!({"status": "EXPLODED"})),
        update("campaigns/1", json!({"status": "PAUSED"})),
        update(
            "customers/1234567890/campaigns/999",
            json!({"status": "PAUSED"}),
        ),
        update(
            "customers/1234567890/campaignBudgets/1",
            json!({"amount_micros": -1_000_000}),
        ),
        update(campaign, json!({"start_date": "2020-01-01"})),
    ]);
    let many: Vec<serde_json::Value> = (0..10_001)
        .map(|_| json!({ "remove": campaign, "note": "x" }))
        .collect();
    calls.push(call("mutate", json!({ "operations": many })));
    calls.push(call(
        "mutate",
        json!({"operations": [{"update": {"resource_name": "customers/1234567890/adGroupCriteria/2~3",
            "fields": {"cpc_bid_micros": "1150000"}}, "note": "bid up: no clicks yet"}]}),
    ));
    calls.push(call("end_decision", json!({"summary": "done"})));
    calls
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_agents_malformed_calls_get_googles_errors_and_its_patch_replays() {
    let fake = Fake::start(FakeLlmConfig {
        tool_script: malformed_calls(),
        ..FakeLlmConfig::default()
    })
    .await;
    let mut farm = Farm::new("adsbench-patch");
    let sweep = format!(
        r#"name = "adsbench-patch"
seeds = [1]

[[suites]]
name = "adsbench"
datasets = ["scenarios"]
params = {{ scenarios = [{{ days = 2, cadence = 24 }}] }}

[[solutions]]
name = "function-calling"
provider = "fake"
# Room for a reply of 10,001 operations (a reply may be 16 bytes a token).
max_tokens = 65536
params = {{ max_turns = 24 }}

[[providers]]
name = "fake"
kind = "openai-compatible"
base_url = "{}"
model = "fake-agent-1"
requests_per_minute = 60000
tokens_per_minute = 2000000000
max_concurrency = 4
timeout_secs = 30
input_usd_per_mtok = 0.15
output_usd_per_mtok = 0.60
"#,
        fake.base_url()
    );
    let path = farm.write("adsbench-patch.toml", &sweep);
    link_assets(&farm, &["home"]);
    let report = farm.run_embedded("home", &path, &[]).await;
    assert_complete(&report);

    // Each of the two decisions met every refusal once, by Google's code;
    // nothing panicked and the decisions ended (the 10,001 operations
    // reached the API, which refused them).
    let t = table(&report, "adsbench", "api-errors");
    let count = |code: &str| {
        t.rows
            .iter()
            .filter(|r| text(&r[col(t, "code", None)]).starts_with(code))
            .map(|r| number(&r[col(t, "count", None)]).unwrap_or_default())
            .sum::<f64>()
    };
    for code in [
        "QueryError.EXPECTED_SELECT",
        "QueryError.UNRECOGNIZED_FIELD",
        "RequestError.INVALID_ENUM_VALUE",
        "RequestError.RESOURCE_NAME_MALFORMED",
        "MutateError.RESOURCE_NOT_FOUND",
        "FieldError.INVALID_VALUE",
        "RequestError.IMMUTABLE_FIELD",
        "RequestError.TOO_MANY_MUTATE_OPERATIONS",
    ] {
        assert_eq!(count(code), 2.0, "{code}: {t:?}");
    }
    // Nothing else was refused: the queries over every resource and the
    // bid change went through.
    let total: f64 = t
        .rows
        .iter()
        .map(|r| number(&r[col(t, "count", None)]).unwrap_or_default())
        .sum();
    assert_eq!(total, 16.0, "{t:?}");

    // The patch: the one committed request of each decision, as sent.
    let home = farm.path("home").to_string_lossy().into_owned();
    let listing = patch(&farm, &home, &[]).await;
    let line = listing
        .lines()
        .find(|l| l.contains("function-calling"))
        .unwrap_or_else(|| panic!("the episode is listed: {listing}"));
    let id = line.split_whitespace().next().expect("an id");
    let shown: serde_json::Value =
        serde_json::from_str(&patch(&farm, &home, &["--episode", &id[..10]]).await)
            .expect("a JSON patch");
    let requests = shown["requests"].as_array().expect("requests");
    assert_eq!(requests.len(), 2, "{shown}");
    assert_eq!(requests[0]["at"], "2025-03-01 00:00", "{shown}");
    assert_eq!(
        requests[0]["operations"][0]["update"]["fields"]["cpc_bid_micros"], 1_150_000,
        "{shown}"
    );
    assert_eq!(
        requests[1]["operations"][0]["note"],
        "bid up: no clicks yet"
    );
    let replayed = patch(&farm, &home, &["--episode", id, "--replay"]).await;
    assert!(
        replayed.contains("identical: event-log digest"),
        "{replayed}"
    );

    // The same episode run again in a sweep of another name: without
    // `--sweep`, the patch comes from the newest sweep holding it.
    let again = sweep.replace(
        "name = \"adsbench-patch\"",
        "name = \"adsbench-patch-again\"",
    );
    let again = farm.write("adsbench-patch-again.toml", &again);
    assert_complete(&farm.run_embedded("home", &again, &[]).await);
    let newest: serde_json::Value =
        serde_json::from_str(&patch_in(&farm, &home, None, &["--episode", id]).await)
            .expect("a JSON patch");
    assert_eq!(newest["sweep"], "adsbench-patch-again", "{newest}");
    assert_eq!(newest["requests"], shown["requests"], "{newest}");
}

/// What `adfarm --home <home> adsbench patch --sweep adsbench-patch <args>`
/// prints; it must succeed.
async fn patch(farm: &Farm, home: &str, args: &[&str]) -> String {
    patch_in(farm, home, Some("adsbench-patch"), args).await
}

/// What `adfarm --home <home> adsbench patch [--sweep <sweep>] <args>`
/// prints; it must succeed.
async fn patch_in(farm: &Farm, home: &str, sweep: Option<&str>, args: &[&str]) -> String {
    let mut all = vec!["--home", home, "adsbench", "patch"];
    if let Some(sweep) = sweep {
        all.extend(["--sweep", sweep]);
    }
    all.extend(args);
    let mut cmd = farm.command("patch", &all);
    cmd.stdout(std::process::Stdio::piped());
    let out = cmd.output().await.expect("adfarm adsbench patch runs");
    assert!(
        out.status.success(),
        "adfarm adsbench patch {args:?}: {}\n{}",
        out.status,
        farm.logs()
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}
