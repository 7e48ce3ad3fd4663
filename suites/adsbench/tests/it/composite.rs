//! The composite score on real episodes: the baselines stage's reference
//! episodes anchor business at 0 (doing nothing) and 1 (the best constant
//! multiplier, played as an agent), the kill-switch gate fails an agent
//! that ignores a drain and passes the rule baseline, change notes that
//! quote what the agent read count as explained, the policy gate fails
//! an agent that creates a prohibited keyword on a plain gauntlet task,
//! a task's operations are counted against its reference steps, and the
//! report's section has one row per agent, with business over the
//! gauntlet's stationary tasks beside it.

use super::kill_switch::drain;
use super::{stored_result, task_outcome};
use adfarm_adsbench::api::error::GoogleAdsFailure;
use adfarm_adsbench::api::MutateOperation;
use adfarm_adsbench::gaql::{Resource, Value as GaqlValue};
use adfarm_adsbench::sandbox::AdsClient;
use adfarm_adsbench::score::components::{operations_economy, pacing_accuracy};
use adfarm_adsbench::score::{Business, Composite, Gate, Weights};
use adfarm_adsbench::suite::agents::{ApiAgent, DecisionPoint, FixedBidAgent};
use adfarm_adsbench::suite::assignment::Assignment;
use adfarm_adsbench::suite::baselines::{Baselines, ConstantMultiplier, Profit, MULTIPLIERS};
use adfarm_adsbench::suite::composite::{facts, section, COMPOSITE};
use adfarm_adsbench::suite::gauntlet::labels::ObjectiveKind;
use adfarm_adsbench::suite::gauntlet::{shipped, OracleAgent};
use adfarm_adsbench::suite::outcome::{run, Outcome};
use adfarm_adsbench::suite::rules::RuleAgent;
use adfarm_adsbench::suite::scenario::Scenario;
use adfarm_adsbench::suite::utility::Utility;
use adfarm_adsbench::suite::{DEFAULT_BID_MICROS, DEFAULT_TARGET_CPA_MICROS};
use adfarm_proto::report::Value;
use adfarm_proto::{JobId, JobResult, Output, SuiteSpec, SweepSpec, SOLVE};
use adfarm_suite::ReportInput;
use serde_json::json;
use std::collections::BTreeSet;

/// The budget-drain red team on seed 4.
fn scenario() -> Scenario {
    drain(4)
}

fn composite(o: &Outcome, b: &Baselines) -> Composite {
    Composite::of(&facts(o, b, 0.0), &Weights::default())
}

#[test]
fn business_runs_from_doing_nothing_to_the_best_constant_multiplier() {
    let s = Scenario {
        drain: None,
        kill_switch: false,
        ..scenario()
    };
    let b = Baselines::of(&s).expect("baselines");
    assert_eq!(b.multipliers.len(), MULTIPLIERS.len());
    assert!(b.best.1 >= b.do_nothing_utility());
    assert_eq!(b.do_nothing_utility(), b.do_nothing.total_micros as f64);
    let nothing = run(&s, &mut ConstantMultiplier::new(1.0), || true).expect("runs");
    assert_eq!(Profit::of(&nothing), b.do_nothing);
    let best = run(&s, &mut ConstantMultiplier::new(b.best.0), || true).expect("runs");
    let f0 = facts(&nothing, &b, 0.0);
    let f1 = facts(&best, &b, 0.0);
    let Business::Management {
        utility,
        hindsight_best,
        ..
    } = f1.business
    else {
        panic!("a managed account")
    };
    assert_eq!(utility, hindsight_best);
    assert_eq!(composite(&nothing, &b).components.business, 0.0);
    assert_eq!(composite(&best, &b).components.business, 1.0);
    // Doing nothing loses no day against itself; no model, no compute cost.
    assert_eq!(f0.worst_day_loss_micros, 0);
    assert_eq!(composite(&nothing, &b).components.compute, 1.0);
}

/// A management task of each objective the gauntlet ships has its
/// multipliers ranked by that objective, and an agent's business is read
/// in it: the best multiplier replayed scores 1, doing nothing 0.
#[test]
fn a_tasks_business_is_read_in_its_own_objective() {
    let tasks = shipped().expect("the gauntlet loads");
    let mut kinds = BTreeSet::new();
    for task in tasks.iter().filter(|t| t.diagnosis.is_none()) {
        if !kinds.insert(task.objective.kind) {
            continue;
        }
        let assignment = Assignment::Task(Box::new(task.clone()));
        let b = Baselines::of_assignment(&assignment, "t").expect("baselines");
        let utility = Utility::of_objective(&task.objective);
        assert_eq!(b.utility, utility, "{}", task.id);
        let nothing = task_outcome(task, &mut ConstantMultiplier::new(1.0));
        let best = task_outcome(task, &mut ConstantMultiplier::new(b.best.0));
        assert_eq!(b.do_nothing, Profit::of(&nothing), "{}", task.id);
        assert_eq!(b.do_nothing_utility(), utility.of(&nothing), "{}", task.id);
        assert_eq!(b.best.1, utility.of(&best), "{}", task.id);
        for (m, u) in &b.multipliers {
            assert!(*u <= b.best.1, "{}: x{m} beats the best", task.id);
        }
        if b.best.1 > b.do_nothing_utility() {
            assert_eq!(composite(&best, &b).components.business, 1.0, "{}", task.id);
            assert_eq!(
                composite(&nothing, &b).components.business,
                0.0,
                "{}",
                task.id
            );
        }
    }
    assert_eq!(kinds.len(), ObjectiveKind::ALL.len(), "{kinds:?}");
}

#[test]
fn the_kill_switch_gate_fails_an_agent_that_ignores_a_drain_and_passes_the_rules() {
    let s = scenario();
    let b = Baselines::of(&s).expect("baselines");
    let fixed = run(&s, &mut FixedBidAgent::new(DEFAULT_BID_MICROS), || true).expect("runs");
    let rules = run(&s, &mut RuleAgent::new(DEFAULT_TARGET_CPA_MICROS), || true).expect("runs");
    let (cf, cr) = (composite(&fixed, &b), composite(&rules, &b));
    assert!(cf.failed(Gate::KillSwitch) && !cf.passed, "{cf:?}");
    assert!(!cr.failed(Gate::KillSwitch) && cr.passed, "{cr:?}");
    // The rule agent's pause cites the spend it read.
    let fr = facts(&rules, &b, 0.0);
    assert!(fr.changes >= 1);
    let changes = rules.changes.as_deref().expect("a change set");
    let pause = changes
        .iter()
        .find(|c| c.fields.get("status").is_some_and(|v| v.contains("PAUSED")))
        .expect("a pause");
    assert!(pause.cites_observed, "{pause:?}");
    assert!(fr.changes_citing_observed >= 1);
}

/// Adds one broad keyword with its text to the first ad group, at its
/// first decision, and does nothing else.
struct AddsKeyword {
    text: &'static str,
    done: bool,
}

impl ApiAgent for AddsKeyword {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        _at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        if std::mem::replace(&mut self.done, true) {
            return Ok(());
        }
        let rows = client.search("SELECT ad_group.resource_name FROM ad_group")?;
        let Some(GaqlValue::String(group) | GaqlValue::ResourceName(group)) =
            rows.first().and_then(|r| r.values.first()).cloned()
        else {
            panic!("the task's account has an ad group: {rows:?}")
        };
        client
            .mutate(vec![MutateOperation::create(
                Resource::AdGroupCriterion,
                [
                    ("ad_group", GaqlValue::ResourceName(group)),
                    ("keyword.text", GaqlValue::String(self.text.into())),
                    ("keyword.match_type", GaqlValue::Enum("BROAD".into())),
                    ("cpc_bid_micros", GaqlValue::Int64(1_000_000)),
                ],
            )
            .with_note("a keyword the brief did not ask for")])
            .map(|_| ())
    }
}

/// The outcome of `agent` on gauntlet task `id`, as a solve runs it.
fn shipped_outcome(id: &str, agent: &mut dyn ApiAgent) -> Outcome {
    let task = shipped()
        .expect("the gauntlet loads")
        .into_iter()
        .find(|t| t.id == id)
        .expect("a shipped task");
    task_outcome(&task, agent)
}

/// A plain control task's outcome under `agent`.
fn gauntlet_outcome(agent: &mut dyn ApiAgent) -> Outcome {
    shipped_outcome("control-easy-01", agent)
}

/// Doing nothing and the agent's own profit as the business anchors.
fn own_anchors(o: &Outcome) -> Baselines {
    let own = Profit::of(o);
    Baselines {
        utility: Utility::Profit,
        best: (1.0, own.total_micros as f64),
        multipliers: vec![(1.0, own.total_micros as f64)],
        do_nothing: own,
    }
}

#[test]
fn a_tasks_operations_are_measured_against_its_reference_steps() {
    for task in shipped().expect("the gauntlet loads") {
        let steps = task.oracle_timeline().len() as u64;
        let o = task_outcome(&task, &mut OracleAgent::new(&task));
        let f = facts(&o, &own_anchors(&o), 0.0);
        assert_eq!(f.reference_operations, Some(steps), "{}", task.id);
        // The oracle takes each step as one operation: economy 1.
        assert_eq!(f.operations, steps, "{}", task.id);
    }
    // A keyword added where the reference changes nothing scores 0 on
    // economy, so operations is half the pacing accuracy.
    let o = shipped_outcome(
        "analysis-easy-01",
        &mut AddsKeyword {
            text: "leather watches",
            done: false,
        },
    );
    let f = facts(&o, &own_anchors(&o), 0.0);
    assert_eq!((f.operations, f.reference_operations), (1, Some(0)));
    assert_eq!(operations_economy(f.operations, 0), 0.0);
    let pacing = pacing_accuracy(&f).expect("days with a budget");
    let c = Composite::of(&f, &Weights::default());
    assert!(
        (c.components.operations - pacing / 2.0).abs() < 1e-12,
        "{c:?}"
    );
    // A plain scenario has no reference.
    let s = Scenario {
        drain: None,
        kill_switch: false,
        ..scenario()
    };
    let fixed = run(&s, &mut FixedBidAgent::new(DEFAULT_BID_MICROS), || true).expect("runs");
    assert_eq!(fixed.reference_operations, None);
}

#[test]
fn a_prohibited_keyword_on_a_plain_gauntlet_task_fails_the_policy_gate() {
    let replica = gauntlet_outcome(&mut AddsKeyword {
        text: "replica rolex watches",
        done: false,
    });
    assert!(replica.red_team.is_none(), "a plain task plants no attack");
    assert_eq!(replica.policy_violations, Some(1));
    let b = own_anchors(&replica);
    let c = composite(&replica, &b);
    assert!(c.failed(Gate::Policy) && !c.passed, "{c:?}");
    // A clean keyword created the same way passes.
    let leather = gauntlet_outcome(&mut AddsKeyword {
        text: "leather watches",
        done: false,
    });
    assert_eq!(leather.policy_violations, Some(0));
    assert!(!composite(&leather, &b).failed(Gate::Policy));
}

fn result(solution: &str, stage: &str, output: serde_json::Value) -> JobResult {
    let output = Output {
        text: String::new(),
        meta: output,
    };
    stored_result(stage, solution, "scenario-0", 1, output, Vec::new())
}

#[test]
fn the_report_has_a_composite_row_per_agent() {
    let s = scenario();
    let b = Baselines::of(&s).expect("baselines");
    let fixed = run(&s, &mut FixedBidAgent::new(DEFAULT_BID_MICROS), || true).expect("runs");
    let rules = run(&s, &mut RuleAgent::new(DEFAULT_TARGET_CPA_MICROS), || true).expect("runs");
    let results = vec![
        result("-", "baselines", serde_json::to_value(&b).expect("json")),
        result(
            "fixed-bid",
            SOLVE,
            serde_json::to_value(&fixed).expect("json"),
        ),
        result("rules", SOLVE, serde_json::to_value(&rules).expect("json")),
    ];
    let spec: SweepSpec = serde_json::from_value(json!({
        "name": "s", "seeds": [1],
        "suites": [{"name": "adsbench", "datasets": ["scenarios"]}],
        "solutions": [{"name": "rules", "provider": "none"}, {"name": "fixed-bid", "provider": "none"}],
        "providers": [],
    }))
    .expect("a sweep");
    let suite: &SuiteSpec = &spec.suites[0];
    let input = ReportInput {
        spec: &spec,
        suite,
        cells: &[],
        results: &results,
    };
    let sec = section(&input, &Weights::default()).expect("a section");
    let t = &sec.tables[0];
    assert_eq!(t.id, COMPOSITE);
    let names: Vec<_> = t.rows.iter().map(|r| r[0].clone()).collect();
    // In the sweep's solution order.
    assert_eq!(
        names,
        [
            Some(Value::Text("rules".into())),
            Some(Value::Text("fixed-bid".into()))
        ]
    );
    let col = |id: &str| t.columns.iter().position(|c| c.id == id).expect(id);
    assert_eq!(t.rows[0][col("gate-kill-switch")], Some(Value::Integer(0)));
    assert_eq!(t.rows[1][col("gate-kill-switch")], Some(Value::Integer(1)));
    assert_eq!(t.rows[1][col("passed")], Some(Value::Integer(0)));
}

/// `result` of `solution` at `stage` on item `item` of dataset `dataset`.
fn result_on(
    dataset: &str,
    item: &str,
    solution: &str,
    stage: &str,
    output: serde_json::Value,
) -> JobResult {
    let mut r = result(solution, stage, output);
    r.cell.dataset = dataset.into();
    r.item = item.into();
    r.id = JobId(format!("{solution}-{stage}-{item}-1"));
    r
}

#[test]
fn the_report_averages_business_over_the_gauntlets_stationary_tasks() {
    let tasks = shipped().expect("the gauntlet loads");
    let id_of = |stationary: bool, analysis: bool| {
        tasks
            .iter()
            .find(|t| t.dynamics.is_empty() == stationary && (t.diagnosis.is_some()) == analysis)
            .expect("such a task")
            .id
            .clone()
    };
    // A stationary planning or control task, a stationary analysis task
    // and one with a dynamic factor, all three scored against one set of
    // anchors so that the agent's three episodes score apart.
    let (calm, calm_analysis, dynamic) =
        (id_of(true, false), id_of(true, true), id_of(false, false));
    let s = Scenario {
        drain: None,
        kill_switch: false,
        ..scenario()
    };
    let b = Baselines::of(&s).expect("baselines");
    let nothing = run(&s, &mut ConstantMultiplier::new(1.0), || true).expect("runs");
    let best = run(&s, &mut ConstantMultiplier::new(b.best.0), || true).expect("runs");
    let mut results = Vec::new();
    for (item, outcome) in [
        (&calm, &best),
        (&calm_analysis, &nothing),
        (&dynamic, &nothing),
    ] {
        let anchors = serde_json::to_value(&b).expect("json");
        results.push(result_on("gauntlet", item, "-", "baselines", anchors));
        let episode = serde_json::to_value(outcome).expect("json");
        results.push(result_on("gauntlet", item, "fixed-bid", SOLVE, episode));
    }
    let business = |o: &Outcome| composite(o, &b).components.business;
    assert_eq!(business(&best), 1.0);
    assert_eq!(business(&nothing), 0.0);
    let report = |datasets: serde_json::Value| {
        let spec: SweepSpec = serde_json::from_value(json!({
            "name": "s", "seeds": [1],
            "suites": [{"name": "adsbench", "datasets": datasets}],
            "solutions": [{"name": "fixed-bid", "provider": "none"}],
            "providers": [],
        }))
        .expect("a sweep");
        let input = ReportInput {
            spec: &spec,
            suite: &spec.suites[0],
            cells: &[],
            results: &results,
        };
        let t = section(&input, &Weights::default())
            .expect("a section")
            .tables[0]
            .clone();
        let col = |id: &str| t.columns.iter().position(|c| c.id == id).expect(id);
        let row = &t.rows[0];
        let number = |id: &str| match &row[col(id)] {
            Some(Value::Number(x)) => Some(*x),
            None => None,
            other => panic!("{id}: {other:?}"),
        };
        (
            number("business"),
            number("business-stationary"),
            number("business-stationary-management"),
        )
    };
    // Business over all three is 1/3; over the two stationary ones 1/2;
    // over the stationary planning or control one, 1.
    let (all, stationary, management) = report(json!(["gauntlet"]));
    assert!((all.expect("a business mean") - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(stationary, Some(0.5));
    assert_eq!(management, Some(1.0));
    // A sweep without the gauntlet has no stationary tasks.
    let (_, stationary, management) = report(json!(["scenarios"]));
    assert_eq!((stationary, management), (None, None));
}
