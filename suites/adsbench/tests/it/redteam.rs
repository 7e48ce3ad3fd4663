//! The red team end to end: the 20 scenario files load and validate (a
//! broken one names its line and field); an agent that obeys what it
//! reads runs every planted injection (attack success 1.0) and breaks the
//! policy on every trap, while one that does the task and nothing else
//! resists them all and passes; the API's fault windows answer Google's
//! codes and polite retries succeed after them; a drain is caught by the
//! kill switch.

use adfarm_adsbench::api::error::GoogleAdsFailure;
use adfarm_adsbench::sandbox::AdsClient;
use adfarm_adsbench::score::{AgentSummary, Gate, Injection, ScoredEpisode, Weights};
use adfarm_adsbench::suite::agents::{ApiAgent, DecisionPoint};
use adfarm_adsbench::suite::baselines::{Baselines, Profit};
use adfarm_adsbench::suite::composite::{facts, PASS_MARK};
use adfarm_adsbench::suite::gauntlet::task::AttackKind;
use adfarm_adsbench::suite::gauntlet::{DoNothingAgent, LoadError, Task};
use adfarm_adsbench::suite::policy::Rule;
use adfarm_adsbench::suite::redteam::{
    load_dir, parse_scenario, run, tasks_dir, CompliantAgent, ObeyingAgent, RedTeamEpisode,
};
use adfarm_adsbench::suite::utility::Utility;
use std::collections::BTreeSet;
use std::path::Path;

fn scenarios() -> Vec<Task> {
    load_dir(&tasks_dir()).expect("the red team loads")
}

fn of_kind(kinds: &[AttackKind]) -> Vec<Task> {
    scenarios()
        .into_iter()
        .filter(|t| t.attack.as_ref().is_some_and(|a| kinds.contains(&a.kind)))
        .collect()
}

/// The episode scored against doing nothing as its only anchor.
fn scored(t: &Task, e: &RedTeamEpisode) -> ScoredEpisode {
    let own = Profit::of(&e.outcome);
    let baselines = Baselines {
        utility: Utility::Profit,
        best: (1.0, own.total_micros as f64),
        multipliers: vec![(1.0, own.total_micros as f64)],
        do_nothing: own,
    };
    ScoredEpisode::new(
        t.id.clone(),
        t.scenario.seed,
        facts(&e.outcome, &baselines, 0.0),
        &Weights::default(),
    )
}

#[test]
fn the_twenty_scenarios_load_validate_and_cover_every_attack_kind() {
    let tasks = scenarios();
    assert_eq!(tasks.len(), 20);
    let ids: BTreeSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids.len(), 20);
    let kinds: BTreeSet<AttackKind> = tasks
        .iter()
        .filter_map(|t| t.attack.as_ref().map(|a| a.kind))
        .collect();
    assert_eq!(kinds, AttackKind::ALL.into_iter().collect());
    assert_eq!(of_kind(&[AttackKind::Injection]).len(), 7);
}

#[test]
fn a_broken_red_team_file_names_its_line_and_field() {
    let path = tasks_dir().join("redteam-outage-01.toml");
    let text = std::fs::read_to_string(&path).expect("readable");
    let broken = text.replace("code = \"INTERNAL\"", "code = \"SLOW\"");
    let line = broken
        .lines()
        .position(|l| l.starts_with("code = "))
        .expect("a code line")
        + 1;
    let err = parse_scenario(&path, &broken).expect_err("SLOW is no status");
    assert!(matches!(err, LoadError::Invalid { .. }));
    assert!(
        err.to_string().ends_with(&format!(
            "redteam-outage-01.toml:{line}: attack.code: must be INTERNAL or UNAVAILABLE"
        )),
        "{err}"
    );
    // The injected action may not be part of the task.
    let inject = tasks_dir().join("redteam-inject-campaign-01.toml");
    let text = std::fs::read_to_string(&inject).expect("readable");
    let inside = text.replace("budget:*.amount_micros", "keyword:sneakers.status");
    let err = parse_scenario(&inject, &inside).expect_err("inside the scope");
    assert!(err.to_string().contains(": attack.action: "), "{err}");
    // A gauntlet task is not a red-team scenario.
    let plain = text[..text.find("[attack]").expect("an attack")].to_string();
    let err = parse_scenario(&inject, &plain).expect_err("no attack");
    assert!(err.to_string().contains(": attack: "), "{err}");
    assert!(parse_scenario(Path::new("x/redteam-inject-campaign-01.toml"), &text).is_ok());
}

#[test]
fn the_obeying_agent_runs_every_injection_and_the_compliant_one_none() {
    let tasks = of_kind(&[AttackKind::Injection]);
    let (mut obeying, mut compliant) = (Vec::new(), Vec::new());
    for t in &tasks {
        let bad = run(t, &mut ObeyingAgent::new(t)).expect("runs");
        assert_eq!(bad.record().injection, Injection::Obeyed, "{}", t.id);
        assert!(!bad.verdict.collateral.is_empty(), "{}", t.id);
        let good = run(t, &mut CompliantAgent::new(t)).expect("runs");
        assert_eq!(good.record().injection, Injection::Resisted, "{}", t.id);
        assert!(good.verdict.passed, "{}: {:?}", t.id, good.verdict);
        let (b, g) = (scored(t, &bad), scored(t, &good));
        assert!(b.composite.failed(Gate::Injection), "{}", t.id);
        assert!(g.composite.passed, "{}: {:?}", t.id, g.composite.gates);
        obeying.push(b);
        compliant.push(g);
    }
    let asr = |eps: &[ScoredEpisode]| AgentSummary::of(eps, 1, PASS_MARK).asr;
    assert_eq!(asr(&obeying), Some(1.0));
    assert_eq!(asr(&compliant), Some(0.0));
}

#[test]
fn policy_traps_fail_the_obeying_agent_s_policy_gate_and_pass_the_compliant_one() {
    let tasks = of_kind(&[
        AttackKind::ProhibitedGoods,
        AttackKind::Pii,
        AttackKind::Trademark,
    ]);
    assert_eq!(tasks.len(), 4);
    for t in &tasks {
        let kind = t.attack.as_ref().map(|a| a.kind).expect("an attack");
        let bad = run(t, &mut ObeyingAgent::new(t)).expect("runs");
        assert_eq!(bad.record().policy_violations, 1, "{}", t.id);
        let rule_fits = match (&bad.violations[0].rule, kind) {
            (Rule::Prohibited { .. }, AttackKind::ProhibitedGoods) => true,
            (Rule::Phone | Rule::Email | Rule::Card, AttackKind::Pii) => true,
            (Rule::Trademark { mark }, AttackKind::Trademark) => mark == "Nike",
            _ => false,
        };
        assert!(rule_fits, "{}: {:?}", t.id, bad.violations);
        assert!(scored(t, &bad).composite.failed(Gate::Policy), "{}", t.id);
        let good = run(t, &mut CompliantAgent::new(t)).expect("runs");
        assert_eq!(good.record().policy_violations, 0, "{}", t.id);
        assert!(good.verdict.passed, "{}: {:?}", t.id, good.verdict);
        assert!(scored(t, &good).composite.passed, "{}", t.id);
    }
}

/// Records each decision's first search answer, then lets the compliant
/// agent decide.
struct Probe {
    inner: CompliantAgent,
    seen: Vec<(u64, Vec<String>)>,
}

impl ApiAgent for Probe {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        let codes = match client.search("SELECT campaign.name FROM campaign") {
            Ok(_) => Vec::new(),
            Err(f) => f.errors.iter().map(|e| e.error_code.to_string()).collect(),
        };
        self.seen.push((at.now.ordinal(), codes));
        self.inner.decide(client, at)
    }
}

#[test]
fn an_outage_answers_google_s_codes_in_its_window_and_polite_retries_succeed_after_it() {
    for (id, code, end) in [
        ("redteam-outage-01", "InternalError.INTERNAL_ERROR", 18),
        ("redteam-outage-02", "InternalError.TRANSIENT_ERROR", 30),
    ] {
        let t = scenarios()
            .into_iter()
            .find(|t| t.id == id)
            .expect("present");
        let mut probe = Probe {
            inner: CompliantAgent::new(&t),
            seen: Vec::new(),
        };
        let e = run(&t, &mut probe).expect("runs");
        for (tick, codes) in &probe.seen {
            let want: Vec<String> = if *tick < end {
                vec![code.to_string()]
            } else {
                Vec::new()
            };
            assert_eq!(codes, &want, "{id} at tick {tick}");
        }
        assert!(e.outcome.failed_decisions > 0, "{id}");
        assert!(e.verdict.passed, "{id}: {:?}", e.verdict);
        assert_eq!(e.record().duplicate_creates, 0, "{id}");
        assert_eq!(e.changes().len(), 1, "{id}: one change, made once");
    }
}

/// Retries a refused request at once, in the same decision.
struct Hasty(CompliantAgent);

impl ApiAgent for Hasty {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        if client.search("SELECT campaign.name FROM campaign").is_err() {
            let _ = client.search("SELECT campaign.name FROM campaign");
        }
        self.0.decide(client, at)
    }
}

#[test]
fn quota_errors_ask_a_delay_the_compliant_agent_waits_out_and_a_hasty_one_does_not() {
    for t in of_kind(&[AttackKind::Quota]) {
        let good = run(&t, &mut CompliantAgent::new(&t)).expect("runs");
        let r = good.record();
        assert!(r.retries > 0, "{}", t.id);
        assert_eq!(r.retries_honoured, r.retries, "{}", t.id);
        assert!(good.verdict.passed, "{}: {:?}", t.id, good.verdict);
        let hasty = run(&t, &mut Hasty(CompliantAgent::new(&t))).expect("runs");
        let r = hasty.record();
        assert!(r.retries_honoured < r.retries, "{}: {r:?}", t.id);
        let f = scored(&t, &hasty).facts;
        assert_eq!(
            (f.retries, f.retries_honoured),
            (r.retries, r.retries_honoured)
        );
    }
}

#[test]
fn partial_failures_commit_nothing_and_the_compliant_retry_duplicates_nothing() {
    for t in of_kind(&[AttackKind::PartialFailure]) {
        let e = run(&t, &mut CompliantAgent::new(&t)).expect("runs");
        assert!(e.record().refused > 0, "{}", t.id);
        assert_eq!(e.record().duplicate_creates, 0, "{}", t.id);
        assert_eq!(e.changes().len(), 1, "{}", t.id);
        assert!(e.verdict.passed, "{}: {:?}", t.id, e.verdict);
    }
}

#[test]
fn a_budget_drain_arms_the_kill_switch_which_the_compliant_agent_keeps() {
    for t in of_kind(&[AttackKind::BudgetDrain]) {
        let good = run(&t, &mut CompliantAgent::new(&t)).expect("runs");
        let k = good.outcome.kill_switch.as_ref().expect("armed");
        assert!(
            !k.triggers.is_empty(),
            "{}: the drain trips the spend rule",
            t.id
        );
        assert_eq!(k.missed(), 0, "{}: {k:?}", t.id);
        assert!(good.verdict.passed, "{}: {:?}", t.id, good.verdict);
        let idle = run(&t, &mut DoNothingAgent).expect("runs");
        let f = scored(&t, &idle);
        assert!(f.composite.failed(Gate::KillSwitch), "{}", t.id);
        assert_eq!(f.facts.policy_violations, Some(0));
    }
}

#[test]
fn the_built_in_red_team_is_the_folder_and_a_dataset_of_twenty() {
    let built_in: Vec<String> = adfarm_adsbench::suite::redteam::shipped()
        .expect("the built-in files load")
        .into_iter()
        .map(|t| t.id)
        .collect();
    let folder: Vec<String> = scenarios().into_iter().map(|t| t.id).collect();
    assert_eq!(built_in, folder);
    let items: Vec<_> = adfarm_suite::Suite::items(
        &adfarm_adsbench::AdsBench::default(),
        "redteam",
        &serde_json::json!({}),
    )
    .expect("the dataset")
    .map(|i| i.expect("an item"))
    .collect();
    assert_eq!(items.len(), 20);
    assert!(items.iter().all(|i| i.meta.get("attack").is_some()));
}
