//! The gauntlet end to end: all 60 task files load and validate, cover
//! the distribution, the scripted oracle passes every task with
//! no collateral damage, doing nothing fails every task that needs
//! action, a reckless agent is caught, a broken file names its line, a
//! tracking outage hides conversions from searches, and a stock change
//! stops its product's conversions.

use adfarm_adsbench::api::error::GoogleAdsFailure;
use adfarm_adsbench::api::MutateOperation;
use adfarm_adsbench::gaql::Value;
use adfarm_adsbench::market::{daily_report, Date, Event};
use adfarm_adsbench::sandbox::AdsClient;
use adfarm_adsbench::suite::agents::{ApiAgent, DecisionPoint};
use adfarm_adsbench::suite::gauntlet::run::{prepare, tracking_outage};
use adfarm_adsbench::suite::gauntlet::task::{
    Cause, Difficulty, Dynamic, EventKind, Modality, ObjectiveKind, Start, Vertical,
};
use adfarm_adsbench::suite::gauntlet::{
    load_dir, parse, run, shipped, tasks_dir, DoNothingAgent, LoadError, OracleAgent, Stratum,
    Task, DATASET,
};
use adfarm_adsbench::suite::harness::drive;
use adfarm_adsbench::AdsBench;
use adfarm_suite::Suite;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn tasks() -> Vec<Task> {
    shipped().expect("the shipped gauntlet loads")
}

fn count<K: Ord>(keys: impl Iterator<Item = K>) -> BTreeMap<K, usize> {
    let mut m = BTreeMap::new();
    for k in keys {
        *m.entry(k).or_default() += 1;
    }
    m
}

#[test]
fn every_task_file_loads_validates_and_is_built_in() {
    let built_in = tasks();
    assert_eq!(built_in.len(), 60);
    let on_disk = load_dir(&tasks_dir()).expect("the folder loads");
    assert_eq!(on_disk, built_in, "shipped.rs lists the folder's files");
    let ids: BTreeSet<&str> = built_in.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids.len(), 60, "ids are unique");
}

#[test]
fn the_gauntlet_covers_the_modalities_strata_starts_verticals_objectives_and_factors() {
    let tasks = tasks();
    for m in [Modality::Planning, Modality::Control, Modality::Analysis] {
        let by = count(
            tasks
                .iter()
                .filter(|t| t.modality == m)
                .map(|t| t.difficulty),
        );
        assert_eq!(
            by,
            BTreeMap::from([
                (Difficulty::Easy, 7),
                (Difficulty::Medium, 7),
                (Difficulty::Hard, 6)
            ]),
            "{m:?}"
        );
    }
    let strata = count(tasks.iter().map(Task::stratum));
    for s in Stratum::ALL {
        assert!(
            strata.get(&s).copied().unwrap_or(0) >= 10,
            "{s:?}: {strata:?}"
        );
    }
    let starts = count(tasks.iter().map(|t| t.start));
    assert!(
        starts[&Start::Cold] >= 10 && starts[&Start::Warm] >= 10,
        "{starts:?}"
    );
    let verticals: BTreeSet<Vertical> = tasks.iter().map(|t| t.vertical).collect();
    assert_eq!(verticals, Vertical::ALL.into_iter().collect());
    let objectives: BTreeSet<ObjectiveKind> = tasks.iter().map(|t| t.objective.kind).collect();
    assert_eq!(objectives, ObjectiveKind::ALL.into_iter().collect());
    let dynamics: BTreeSet<Dynamic> = tasks.iter().flat_map(|t| t.dynamics.clone()).collect();
    for d in Dynamic::REQUIRED {
        assert!(dynamics.contains(&d), "{d:?} in no task");
    }
    let causes: BTreeSet<Cause> = tasks
        .iter()
        .filter_map(|t| t.diagnosis.as_ref().map(|d| d.cause))
        .collect();
    assert_eq!(causes, Cause::ALL.into_iter().collect());
    let days: BTreeSet<u32> = tasks.iter().map(|t| t.scenario.days).collect();
    assert!(days.iter().all(|d| (1..=14).contains(d)), "{days:?}");
    let need = tasks.iter().filter(|t| t.needs_action).count();
    assert!(need >= 54, "most tasks need action: {need} of 60");
}

fn oracle_passes(modality: Modality) {
    let tasks: Vec<Task> = tasks()
        .into_iter()
        .filter(|t| t.modality == modality)
        .collect();
    assert_eq!(tasks.len(), 20);
    for t in &tasks {
        let episode = run(t, &mut OracleAgent::new(t)).expect("the task runs");
        let v = episode.grade(t);
        assert_eq!(
            episode.failed_decisions, 0,
            "{}: an oracle call failed",
            t.id
        );
        assert!(v.collateral.is_empty(), "{}: {:?}", t.id, v.collateral);
        assert!(v.passed, "{}: {v:?}", t.id);
        if t.modality == Modality::Analysis {
            assert_eq!(v.diagnosis_correct, Some(true), "{}", t.id);
        }
    }
}

#[test]
fn the_oracle_passes_every_planning_task_without_collateral_damage() {
    oracle_passes(Modality::Planning);
}

#[test]
fn the_oracle_passes_every_control_task_without_collateral_damage() {
    oracle_passes(Modality::Control);
}

#[test]
fn the_oracle_passes_every_analysis_task_without_collateral_damage() {
    oracle_passes(Modality::Analysis);
}

#[test]
fn doing_nothing_fails_every_task_that_needs_action_and_passes_the_others() {
    let mut failed = 0;
    for t in &tasks() {
        let episode = run(t, &mut DoNothingAgent).expect("the task runs");
        assert!(episode.changes.is_empty());
        let v = episode.grade(t);
        assert_eq!(v.passed, !t.needs_action, "{}: {v:?}", t.id);
        failed += usize::from(!v.passed);
    }
    assert!(failed >= 54, "{failed}");
}

/// The oracle's steps, and on its first decision every campaign's budget
/// raised tenfold: out of every control task's scope.
struct Reckless {
    oracle: OracleAgent,
    done: bool,
}

impl ApiAgent for Reckless {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        if !std::mem::replace(&mut self.done, true) {
            let rows = client.search(
                "SELECT campaign.id, campaign_budget.amount_micros FROM campaign \
                 WHERE campaign.status = 'ENABLED'",
            )?;
            let customer = client.customer_id();
            let ops: Vec<MutateOperation> = rows
                .iter()
                .filter_map(|r| match (&r.values[0], &r.values[1]) {
                    (Value::Int64(id), Value::Int64(b)) => Some(MutateOperation::update(
                        format!("customers/{customer}/campaignBudgets/{id}"),
                        [(
                            "amount_micros",
                            Value::Int64((b * 10).min(1_000_000_000_000)),
                        )],
                    )),
                    _ => None,
                })
                .collect();
            client.mutate(ops)?;
        }
        self.oracle.decide(client, at)
    }
}

#[test]
fn a_reckless_agent_reaching_the_goal_fails_on_collateral_damage() {
    let tasks = tasks();
    let t = tasks
        .iter()
        .find(|t| t.id == "control-easy-02")
        .expect("a stock-change control task");
    assert!(t.dynamics.contains(&Dynamic::StockChange));
    let mut agent = Reckless {
        oracle: OracleAgent::new(t),
        done: false,
    };
    let v = run(t, &mut agent).expect("runs").grade(t);
    assert!(v.predicates.iter().all(|(_, held)| *held), "{v:?}");
    assert_eq!(v.collateral.len(), 1, "{v:?}");
    assert_eq!(
        v.collateral[0].fields.keys().collect::<Vec<_>>(),
        ["amount_micros"]
    );
    assert!(!v.passed);
}

/// Gives one diagnosis and does nothing else.
struct Diagnoses(&'static str);

impl ApiAgent for Diagnoses {
    fn decide(
        &mut self,
        _client: &mut dyn AdsClient,
        _at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        Ok(())
    }

    fn diagnosis(&self) -> Option<String> {
        Some(self.0.into())
    }
}

#[test]
fn an_analysis_task_passes_only_the_accepted_cause() {
    let tasks = tasks();
    let t = tasks
        .iter()
        .find(|t| t.id == "analysis-easy-01")
        .expect("an analysis task");
    let cause = t.diagnosis.as_ref().expect("graded").cause;
    let wrong = Cause::ALL
        .into_iter()
        .find(|c| *c != cause)
        .expect("another");
    let right = run(t, &mut Diagnoses(cause.name())).expect("runs").grade(t);
    assert_eq!((right.diagnosis_correct, right.passed), (Some(true), true));
    let spaced: &'static str = Box::leak(cause.name().replace('-', " ").to_uppercase().into());
    let loose = run(t, &mut Diagnoses(spaced)).expect("runs").grade(t);
    assert!(loose.passed, "case and spaces aside");
    let v = run(t, &mut Diagnoses(wrong.name())).expect("runs").grade(t);
    assert_eq!((v.diagnosis_correct, v.passed), (Some(false), false));
}

#[test]
fn the_injected_causes_show_in_the_market() {
    for t in &tasks() {
        let Some(d) = &t.diagnosis else { continue };
        let episode = run(t, &mut DoNothingAgent).expect("runs");
        let events = episode.market.event_log().events();
        let caps = events
            .iter()
            .filter(|e| matches!(e, Event::BudgetCapHit { .. }))
            .count();
        match d.cause {
            Cause::BudgetLimited => {
                let (first, _) = t.agent_dates().expect("dates");
                let spent = episode.market.metrics().account_day(first).cost_micros;
                assert!(
                    caps > 0 || spent * 10 >= t.scenario.budget_micros * 9,
                    "{}: the budget never bound ({spent} of {})",
                    t.id,
                    t.scenario.budget_micros
                );
            }
            Cause::InvalidTraffic => assert!(
                events
                    .iter()
                    .any(|e| matches!(e, Event::BotSearches { .. })),
                "{}",
                t.id
            ),
            // Every ad group's ads disapproved: none serves, though each
            // ad group itself is still enabled.
            Cause::DisapprovedAd => {
                let account = episode.market.account();
                assert!(
                    account.ad_groups.iter().all(|g| !account.ads_serve(g.id)
                        && g.status == adfarm_adsbench::market::Status::Enabled),
                    "{}",
                    t.id
                );
                assert!(
                    account
                        .ads
                        .iter()
                        .all(|a| a.approval.as_str() == "DISAPPROVED"),
                    "{}",
                    t.id
                );
            }
            Cause::BidTooLow | Cause::TrackingOutage => {}
        }
    }
}

#[test]
fn a_broken_task_file_names_its_line_and_field() {
    let path = tasks_dir().join("control-easy-02.toml");
    let text = std::fs::read_to_string(&path).expect("readable");
    let broken = |from: &str, to: &str| -> LoadError {
        assert!(text.contains(from), "{from}");
        parse(&path, &text.replacen(from, to, 1)).expect_err("refused")
    };
    let line_of = |text: &str, needle: &str| {
        text.lines()
            .position(|l| l.contains(needle))
            .expect("present")
            + 1
    };
    let cases = [
        (
            "needs_action = true",
            "needs_action = true\ncolour = 3",
            "colour",
        ),
        ("cadence = 24", "cadence = 24\ncadance = 6", "cadance"),
        ("days = 3", "days = 15", "scenario.days"),
        (
            "kind = \"keyword-status\"",
            "kind = \"keyword-status\"\nmax = 3.0",
            "predicate[0].max",
        ),
        (
            "value = \"PAUSED\"",
            "value = \"REMOVED\"",
            "oracle[0].value",
        ),
    ];
    for (from, to, field) in cases {
        let e = broken(from, to);
        let LoadError::Invalid {
            line, field: got, ..
        } = &e
        else {
            panic!("{e}")
        };
        assert_eq!(got, field, "{e}");
        let edited = text.replacen(from, to, 1);
        let needle = to.lines().last().expect("a line");
        assert_eq!(*line, line_of(&edited, needle), "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("{}:{line}: {field}: ", path.display())),
            "{e}"
        );
    }
    let renamed = parse(Path::new("elsewhere.toml"), &text).expect_err("id and name differ");
    assert!(
        renamed.to_string().contains("elsewhere.toml:2: id: "),
        "{renamed}"
    );
}

#[test]
fn the_gauntlet_dataset_carries_every_task_in_its_items() {
    let suite = AdsBench::default();
    assert!(suite.datasets().contains(&DATASET.to_string()));
    let items: Vec<_> = suite
        .items(DATASET, &serde_json::json!({}))
        .expect("the dataset")
        .map(|i| i.expect("an item"))
        .collect();
    assert_eq!(items.len(), 60);
    let tasks = tasks();
    for (item, task) in items.iter().zip(&tasks) {
        assert_eq!(item.id, task.id);
        assert_eq!(&Task::of(item).expect("a task"), task);
    }
}

/// The account's conversions and clicks over `from`..=`to` as a search
/// returns them.
fn searched(client: &mut dyn AdsClient, from: &str, to: &str) -> (f64, i64) {
    let rows = client
        .search(&format!(
            "SELECT metrics.conversions, metrics.clicks FROM customer \
             WHERE segments.date BETWEEN '{from}' AND '{to}'"
        ))
        .expect("a valid query");
    let row = rows.first().expect("the customer's row");
    match (&row.values[0], &row.values[1]) {
        (Value::Double(conversions), Value::Int64(clicks)) => (*conversions, *clicks),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_tracking_outage_hides_conversions_from_searches_but_not_from_the_market() {
    let tasks: Vec<Task> = tasks()
        .into_iter()
        .filter(|t| {
            t.diagnosis
                .as_ref()
                .is_some_and(|d| d.cause == Cause::TrackingOutage)
        })
        .collect();
    assert_eq!(tasks.len(), 2);
    for task in tasks {
        let outage = tracking_outage(&task).expect("the task's outage");
        let (mut sandbox, harness) = prepare(&task).expect("prepared");
        drive(&mut sandbox, &mut DoNothingAgent, harness, || true);
        let (_, last) = task.agent_dates().expect("dates");
        let day = |d: Date| d.to_string();
        // The outage's first whole day to the end: clicks, no conversions.
        let after = outage.date.plus_days(1);
        let (conversions, clicks) = searched(&mut sandbox, &day(after), &day(last));
        assert_eq!(conversions, 0.0, "{}", task.id);
        assert!(clicks > 0, "{}", task.id);
        // The market still recorded them.
        let recorded: f64 = daily_report(sandbox.market())
            .iter()
            .filter(|d| d.date >= after)
            .map(|d| d.totals.conversions)
            .sum();
        assert!(recorded > 0.0, "{}: {recorded}", task.id);
        // Before the outage, searches show the conversions.
        let before = outage.date.plus_days(-1);
        let start = task.market_start().expect("a start");
        let (conversions, _) = searched(&mut sandbox, &day(start), &day(before));
        assert!(conversions > 0.0, "{}", task.id);
    }
}

/// The clicks and conversions of the keywords with text `text`, from
/// clicks before tick `at` and from those at or after it.
fn keyword_sales(market: &adfarm_adsbench::market::Market, text: &str, at: u64) -> [(u64, u64); 2] {
    let ids: BTreeSet<u64> = market
        .account()
        .keywords
        .iter()
        .filter(|k| k.text == text)
        .map(|k| k.id)
        .collect();
    let mut sales = [(0, 0); 2];
    for e in market.event_log().events() {
        match e {
            Event::Auction {
                time,
                criterion_id,
                clicked: true,
                ..
            } if ids.contains(criterion_id) => {
                sales[usize::from(time.ordinal() >= at)].0 += 1;
            }
            Event::Conversion {
                click_time,
                criterion_id,
                ..
            } if ids.contains(criterion_id) => {
                sales[usize::from(click_time.ordinal() >= at)].1 += 1;
            }
            _ => {}
        }
    }
    sales
}

#[test]
fn a_stock_change_stops_its_products_conversions_while_its_clicks_go_on() {
    let tasks: Vec<Task> = tasks()
        .into_iter()
        .filter(|t| t.events.iter().any(|e| e.kind == EventKind::StockChange))
        .collect();
    assert_eq!(tasks.len(), 6);
    let mut twins_sold_after = 0;
    for task in tasks {
        let event = task
            .events
            .iter()
            .find(|e| e.kind == EventKind::StockChange)
            .expect("a stock change");
        let text = event.keyword.clone().expect("the product's keyword");
        let at = task.time_of(&event.at).expect("a time").ordinal();
        // Its twin: the same task, the product still in stock.
        let mut twin = task.clone();
        twin.events.retain(|e| e.kind != EventKind::StockChange);
        let sold_out = run(&task, &mut DoNothingAgent).expect("runs");
        let in_stock = run(&twin, &mut DoNothingAgent).expect("runs");
        let [before, after] = keyword_sales(&sold_out.market, &text, at);
        let [twin_before, twin_after] = keyword_sales(&in_stock.market, &text, at);
        assert_eq!(
            before, twin_before,
            "{}: the same until the change",
            task.id
        );
        assert!(after.0 > 0, "{}: its ads are still clicked", task.id);
        assert_eq!(after.0, twin_after.0, "{}: the same clicks", task.id);
        assert_eq!(after.1, 0, "{}: no sale after the change", task.id);
        twins_sold_after += twin_after.1;
    }
    assert!(twins_sold_after > 0, "in stock, those clicks convert");
}
