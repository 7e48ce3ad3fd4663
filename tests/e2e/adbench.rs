//! AD-Bench end to end.
//!
//! - The scripted agents (`sweeps/adbench-scripted.toml`: the oracle and
//!   five mutants through the ReAct protocol, every public task, D0, D0+9
//!   and D0+45, three seeds): the oracle scores Pass@1 = Pass@3 = 100%,
//!   coverage 100% and no failure label; each mutant earns its label, and
//!   the mutants that break the trajectory lose the paper's coverage.
//! - A cut of it (3 tasks per tier, 3 dates) with an LLM judge (the fake
//!   server) gives the same report embedded and over a coordinator and two
//!   workers: replays, episodes and scores are pure functions of the item.
//! - Every reference (public and holdout, 3 dates) replays alike in two
//!   embedded runs and a distributed one.
//! - `sweeps/adbench-local.toml` on 3 tasks per tier: the local model plays
//!   real ReAct episodes; every planned job completes or fails with a reason.

use crate::sections::{col, number, table, text};
use crate::{assert_complete, assert_same_results, assets_home, figure, Fake, Farm};
use adfarm_proto::report::{Report, Table};
use adfarm_proto::SOLVE;
use std::path::Path;
use std::time::{Duration, Instant};

fn sweep_text(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../sweeps")
            .join(name),
    )
    .expect("the sweep file")
}

/// The sweep file `name` with its suite params replaced by `params`.
fn with_params(name: &str, params: &str) -> String {
    let text = sweep_text(name);
    let line = text
        .lines()
        .find(|l| l.starts_with("params = "))
        .expect("a params line");
    text.replace(line, &format!("params = {params}"))
}

async fn run(farm: &mut Farm, path: &Path, limit: Duration) -> Report {
    run_in(farm, "home", path, limit).await
}

/// Runs `path` embedded in the farm's `home` directory (its own store).
async fn run_in(farm: &mut Farm, home: &str, path: &Path, limit: Duration) -> Report {
    let p = farm.spawn_embedded(home, path, &[]);
    let status = farm.wait(p, limit).await;
    assert!(status.success(), "adfarm run: {status}\n{}", farm.logs());
    farm.report_embedded(home, path).await
}

/// Runs `path` embedded with its own store, on the local models fetched
/// into the test command's home; the exit status and the report.
async fn run_local(
    farm: &mut Farm,
    path: &Path,
    limit: Duration,
) -> (std::process::ExitStatus, Report) {
    let (home, sweep, store) = (
        assets_home(),
        path.to_string_lossy().into_owned(),
        farm.path("store.redb").to_string_lossy().into_owned(),
    );
    let p = farm.spawn(
        "run",
        &["--home", &home, "run", &sweep, "--store", &store],
        false,
    );
    let status = farm.wait(p, limit).await;
    let r = farm
        .report(&["--home", &home], path, false, &["--store", &store])
        .await;
    (status, r)
}

/// The row of `t` whose first cell is `agent` (and whose `tier` is `tier`).
fn row<'t>(
    t: &'t Table,
    agent: &str,
    tier: Option<&str>,
) -> &'t [Option<adfarm_proto::report::Value>] {
    t.rows
        .iter()
        .find(|r| text(&r[0]) == agent && tier.is_none_or(|x| text(&r[col(t, "tier", None)]) == x))
        .unwrap_or_else(|| panic!("no row {agent} {tier:?} in {}", t.id))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adbench_scripted_agents_score_as_designed_on_three_dates() {
    let mut farm = Farm::new("adbench-scripted");
    let path = farm.write(
        "adbench-scripted.toml",
        &sweep_text("adbench-scripted.toml"),
    );
    let t0 = Instant::now();
    let r = run(&mut farm, &path, Duration::from_secs(560)).await;
    let wall = t0.elapsed();
    assert_complete(&r);
    // 90 tasks × 3 dates × 6 agents × 3 seeds.
    assert_eq!(r.jobs[SOLVE].planned, 90 * 3 * 6 * 3, "{:?}", r.jobs);

    let pass = table(&r, "adbench", "pass-at-k");
    let oracle = row(pass, "oracle", None);
    for c in [
        "overall-pass@1",
        "overall-pass@3",
        "l1-pass@3",
        "l2-pass@3",
        "l3-pass@3",
    ] {
        assert_eq!(number(&oracle[col(pass, c, None)]), Some(1.0), "oracle {c}");
    }
    let cov = table(&r, "adbench", "coverage-cost");
    assert_eq!(
        number(&row(cov, "oracle", None)[col(cov, "overall-coverage", None)]),
        Some(1.0)
    );
    let fail = table(&r, "adbench", "failures");
    assert_eq!(
        number(&row(fail, "oracle", Some("All"))[col(fail, "err", None)]),
        Some(0.0)
    );
    let labelled = table(&r, "adbench", "labels-all-episodes");
    assert_eq!(
        number(&row(labelled, "oracle", Some("All"))[col(labelled, "tote", None)]),
        Some(0.0)
    );

    // Each mutant earns its own label, on the same tasks for every seed
    // (episodes are pure functions of the item). Where a mutation leaves
    // the answer right (a flagged but answered dependency violation, early
    // dates, an idle turn, an extra number), only the label tells it from
    // the oracle; the crate's tests pin the label on every task it applies
    // to.
    for (agent, label) in [
        ("no-account-list", "TE"),
        ("wrong-dates", "PE"),
        ("toolless-turn", "IF"),
        ("wrong-arithmetic", "CE"),
        ("invented-number", "Hal"),
    ] {
        let all = row(labelled, agent, Some("All"));
        let got = number(&all[col(labelled, label, None)]).unwrap_or_default() as i64;
        assert!(
            got > 0 && got % 3 == 0,
            "{agent} earned {label} {got} times: {all:?}"
        );
    }
    // Table 3 counts over the wrong episodes only: an agent whose every
    // answer is right shows no error there, whatever its labels.
    let toolless = row(fail, "toolless-turn", Some("All"));
    assert_eq!(number(&toolless[col(fail, "err", None)]), Some(0.0));
    assert_eq!(number(&toolless[col(fail, "IF", None)]), Some(0.0));
    // Mutants answer from what they saw: those whose mutation changes the
    // data or the arithmetic get answers wrong (the crate's tests pin
    // which tasks' data each mutation changes).
    for agent in ["wrong-dates", "wrong-arithmetic"] {
        let p1 = number(&row(pass, agent, None)[col(pass, "overall-pass@1", None)]);
        assert!(p1 < Some(1.0), "{agent} answered everything right");
    }
    // The paper's coverage: a sample counts only when the whole trajectory
    // is reproduced with no TE, PE or IF error.
    let coverage = |agent: &str| {
        number(&row(cov, agent, None)[col(cov, "overall-coverage", None)]).unwrap_or(1.0)
    };
    assert_eq!(coverage("toolless-turn"), 0.0);
    for agent in ["no-account-list", "wrong-dates"] {
        assert!(coverage(agent) < 0.25, "{agent}: {}", coverage(agent));
    }
    let share = number(&row(cov, "toolless-turn", None)[col(cov, "overall-step-share", None)]);
    assert_eq!(share, Some(1.0), "every step is still matched");
    figure(
        "adbench-scripted-coverage",
        format_args!(
            "coverage: toolless-turn {:.1}%, no-account-list {:.1}%, wrong-dates {:.1}%",
            100.0 * coverage("toolless-turn"),
            100.0 * coverage("no-account-list"),
            100.0 * coverage("wrong-dates")
        ),
    );
    figure(
        "adbench-scripted",
        format_args!(
            "{} episodes and {} jobs in all, embedded, in {:.1} s",
            r.jobs[SOLVE].planned,
            r.jobs.values().map(|c| c.planned).sum::<i64>(),
            wall.as_secs_f64()
        ),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adbench_gives_one_report_embedded_and_distributed() {
    // With an LLM judge (the fake server) beside the checks.
    let fake = Fake::clean().await;
    let mut farm = Farm::new("adbench-cut");
    let sweep = with_params(
        "adbench-scripted.toml",
        r#"{ env_dates = ["2026-07-25", "2026-08-03", "2026-09-08"], per_tier = 3 }"#,
    )
    .replace("seeds = [1, 2, 3]", "seeds = [1]\njudges = [\"critic\"]")
        + &format!(
            "\n[[providers]]\nname = \"critic\"\nkind = \"openai-compatible\"\n\
             base_url = {:?}\nmodel = \"fake-judge-1\"\nrequests_per_minute = 600000.0\n\
             max_concurrency = 16\ntimeout_secs = 10.0\n",
            fake.base_url()
        );
    let path = farm.write("adbench-cut.toml", &sweep);
    let embedded = run(&mut farm, &path, Duration::from_secs(120)).await;
    assert_complete(&embedded);
    assert_eq!(embedded.jobs[SOLVE].planned, 9 * 3 * 6);
    assert_eq!(embedded.jobs["replay"].planned, 9 * 3);
    // One verdict per episode, each read: the agreement table pools 6
    // labels per episode.
    assert_eq!(embedded.jobs["judge"].planned, 9 * 3 * 6);
    let agree = table(&embedded, "adbench", "judge-agreement");
    let all = agree
        .rows
        .iter()
        .find(|r| text(&r[col(agree, "label", None)]) == "All")
        .expect("a pooled row");
    assert_eq!(
        number(&all[col(agree, "pairs", None)]),
        Some((9 * 3 * 6 * 6) as f64)
    );
    assert_eq!(number(&all[col(agree, "unreadable", None)]), Some(0.0));

    farm.start_workers(2, 2).await;
    farm.coordinate(&path, Duration::from_secs(120)).await;
    let distributed = farm.report_cluster(&path).await;
    assert_complete(&distributed);
    assert_same_results(&distributed, &embedded);
    assert_eq!(distributed.sections, embedded.sections);
}

/// The ground-truth note of an AD-Bench report ("... digest <hex>.").
fn ground_truth(r: &Report) -> &str {
    let s = r
        .sections
        .iter()
        .find(|s| s.id == "adbench")
        .expect("an adbench section");
    s.notes
        .iter()
        .find(|n| n.starts_with("Ground truth:"))
        .expect("a ground-truth note")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adbench_replays_all_120_references_alike_in_every_deployment() {
    // Every reference, public and holdout, on the three reference dates,
    // played by the oracle: no replay fails (an error observation fails
    // it), two embedded runs and a distributed one grade against the same
    // bytes, and the oracle scores 100% on the holdout's world too.
    let mut farm = Farm::new("adbench-replays");
    farm.start_workers(2, 2).await;
    for (split, tasks) in [("public", 90), ("holdout", 30)] {
        let sweep = with_params(
            "adbench-scripted.toml",
            &format!(
                r#"{{ split = "{split}", env_dates = ["2026-07-25", "2026-08-03", "2026-09-08"] }}"#
            ),
        )
        .replace("seeds = [1, 2, 3]", "seeds = [1]")
        .replace(
            "name = \"adbench-scripted\"",
            &format!("name = \"replays-{split}\""),
        );
        // The oracle only: cut the mutants' entries.
        let sweep = sweep[..sweep
            .find("[[solutions]]\nname = \"no-account-list\"")
            .expect("mutants")]
            .to_string()
            + &sweep[sweep.find("[[providers]]").expect("providers")..];
        let path = farm.write(&format!("replays-{split}.toml"), &sweep);
        let first = run(&mut farm, &path, Duration::from_secs(240)).await;
        assert_complete(&first);
        assert_eq!(first.jobs["replay"].planned, tasks * 3, "{split}");
        assert_eq!(first.jobs[SOLVE].planned, tasks * 3, "{split}");
        let pass = table(&first, "adbench", "pass-at-k");
        assert_eq!(
            number(&row(pass, "oracle", None)[col(pass, "overall-pass@1", None)]),
            Some(1.0),
            "{split}"
        );
        assert!(
            ground_truth(&first).contains(&format!("{} reference replays", tasks * 3)),
            "{}",
            ground_truth(&first)
        );

        let again = run_in(&mut farm, "again", &path, Duration::from_secs(240)).await;
        assert_eq!(ground_truth(&again), ground_truth(&first), "{split}");

        farm.coordinate(&path, Duration::from_secs(240)).await;
        let distributed = farm.report_cluster(&path).await;
        assert_complete(&distributed);
        assert_same_results(&distributed, &first);
        assert_eq!(distributed.sections, first.sections, "{split}");
        figure(
            "adbench-replays",
            format_args!("{split}: {}", ground_truth(&first)),
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adbench_local_react_episodes_run_end_to_end() {
    let mut farm = Farm::new("adbench-local");
    // Short episodes keep the CPU-bound model's prefill within minutes: at
    // most 4 turns, observations cut at 2,000 characters.
    let sweep = with_params(
        "adbench-local.toml",
        r#"{ split = "public", env_dates = ["2026-07-25"], per_tier = 3 }"#,
    )
    .replace(
        "max_tokens = 192",
        "max_tokens = 160\nparams = { max_turns = 4, observation_chars = 2000 }",
    );
    let path = farm.write("adbench-local.toml", &sweep);
    let t0 = Instant::now();
    let (status, r) = run_local(&mut farm, &path, Duration::from_secs(1200)).await;
    assert!(
        status.code() == Some(0) || status.code() == Some(1),
        "adfarm run: {status}\n{}",
        farm.logs()
    );
    let wall = t0.elapsed();
    let solve = &r.jobs[SOLVE];
    assert_eq!(solve.planned, 9);
    assert_eq!(solve.completed + solve.failed, solve.planned, "{solve:?}");
    for (stage, c) in &r.jobs {
        assert_eq!(
            c.completed + c.failed + c.skipped,
            c.planned,
            "{stage}: {c:?}"
        );
    }
    // A failed episode is dead-lettered with its reason.
    assert_eq!(
        r.dead_letters.len() as i64,
        r.jobs.values().map(|c| c.failed).sum::<i64>()
    );
    assert!(r.dead_letters.iter().all(|d| !d.reason.is_empty()));
    // Every episode is scored, and every wrong one carries a reason: a
    // failure label.
    assert_eq!(r.jobs["score"].completed, solve.completed, "{:?}", r.jobs);
    let fail = table(&r, "adbench", "failures");
    let all = row(fail, "react", Some("All"));
    assert_eq!(
        number(&all[col(fail, "episodes", None)]),
        Some(solve.completed as f64)
    );
    assert_eq!(
        number(&all[col(fail, "unlabelled", None)]),
        Some(0.0),
        "a wrong episode without a label: {all:?}"
    );
    figure(
        "adbench-local",
        format_args!(
            "9 ReAct episodes on SmolLM2-135M: {} completed, {} failed, {:.0} s",
            solve.completed,
            solve.failed,
            wall.as_secs_f64()
        ),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adbench_local_function_calling_episodes_act() {
    // OpenAI-style function calling on the local model: the tool schemas go
    // in the prompt and the constrained decoder writes only valid calls, so
    // even a 135M model calls tools in every episode.
    let mut farm = Farm::new("adbench-local-fc");
    let sweep = with_params(
        "adbench-local.toml",
        r#"{ split = "public", env_dates = ["2026-07-25"], tasks = ["L1-001", "L2-001", "L3-001"] }"#,
    )
    .replace("name = \"react\"", "name = \"function-calling\"")
    .replace(
        "max_tokens = 192",
        "max_tokens = 160\nparams = { max_turns = 3, observation_chars = 2000 }",
    );
    let path = farm.write("adbench-local-fc.toml", &sweep);
    let t0 = Instant::now();
    let (status, r) = run_local(&mut farm, &path, Duration::from_secs(900)).await;
    assert_eq!(
        status.code(),
        Some(0),
        "adfarm run: {status}\n{}",
        farm.logs()
    );
    assert_complete(&r);
    assert_eq!(r.jobs[SOLVE].planned, 3);
    let pass = table(&r, "adbench", "pass-at-k");
    let fc = row(pass, "function-calling", None);
    assert_eq!(text(&fc[col(pass, "protocol", None)]), "adbench-fc-v2");
    // Tool calls per episode; the answer call is not one.
    let calls = number(&fc[col(pass, "tool-calls", None)]).unwrap_or_default();
    assert!(
        calls >= 1.0,
        "the local model made {calls} tool calls per episode"
    );
    let fail = table(&r, "adbench", "failures");
    let all = row(fail, "function-calling", Some("All"));
    figure(
        "adbench-local-fc",
        format_args!(
            "3 function-calling episodes on SmolLM2-135M: {calls:.2} tool calls per episode, \
             PE {:?}, {:.0} s",
            number(&all[col(fail, "PE", None)]),
            t0.elapsed().as_secs_f64()
        ),
    );
}
