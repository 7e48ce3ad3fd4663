//! The scripted agents through the API: 14-day episodes on each auction
//! mechanism stay within Google's caps, and replay to the same event log;
//! an agent that changes its budget mid-month gets caps, in the outcome and
//! the suite's report, from the budget in force each day and month; the
//! owner's budget cut in a scenario makes both caps bind.

use super::stored_result;
use adfarm_adsbench::api::error::GoogleAdsFailure;
use adfarm_adsbench::api::MutateOperation;
use adfarm_adsbench::gaql::Value;
use adfarm_adsbench::market::Mechanism;
use adfarm_adsbench::sandbox::AdsClient;
use adfarm_adsbench::suite::agents::{ApiAgent, DecisionPoint, FixedBidAgent, PacingAgent};
use adfarm_adsbench::suite::outcome::{run, DailyRow, Outcome};
use adfarm_adsbench::suite::scenario::{mechanism_name, BudgetChange, Scenario};
use adfarm_adsbench::suite::{DEFAULT_BID_MICROS, DEFAULT_TARGET_CPA_MICROS, SUITE};
use adfarm_adsbench::AdsBench;
use adfarm_proto::report::Value as Cell;
use adfarm_proto::{Output, SweepSpec, SOLVE};
use adfarm_suite::{ReportInput, Suite};

fn scenario(mechanism: Mechanism) -> Scenario {
    Scenario {
        mechanism: mechanism_name(mechanism).into(),
        // Crosses a month end, so the monthly cap is checked on two months.
        start_date: "2025-03-22".into(),
        ..Scenario::nth(0)
    }
}

fn check(o: &Outcome) {
    assert_eq!(o.days.len(), 14);
    assert_eq!(o.months.len(), 2, "{:?}", o.months);
    for d in &o.days {
        assert!(
            d.spend_micros <= d.day_cap_micros,
            "{} spent {} over {}",
            d.date,
            d.spend_micros,
            d.day_cap_micros
        );
    }
    for (month, m) in &o.months {
        assert!(m.spend_micros <= m.cap_micros, "{month}: {m:?}");
    }
    assert!(o.max_day_over_b() <= 2.0 && o.max_month_over_cap() <= 1.0);
    assert!(o.totals().clicks > 0, "the account got traffic");
    assert_eq!(o.failed_decisions, 0, "every API call was valid");
}

#[test]
fn fourteen_days_per_mechanism_within_caps_and_reproducible() {
    for mechanism in Mechanism::ALL {
        let s = scenario(mechanism);
        let fixed = || run(&s, &mut FixedBidAgent::new(DEFAULT_BID_MICROS), || true).expect("runs");
        let pacing = || {
            run(&s, &mut PacingAgent::new(DEFAULT_TARGET_CPA_MICROS), || {
                true
            })
            .expect("runs")
        };
        let (a, b) = (fixed(), fixed());
        check(&a);
        assert_eq!(a.digest, b.digest, "{mechanism:?} fixed-bid replays");
        assert_eq!(a, b);
        let (c, d) = (pacing(), pacing());
        check(&c);
        assert_eq!(c.digest, d.digest, "{mechanism:?} pacing replays");
        // The agents act differently, so the logs differ.
        assert_ne!(a.digest, c.digest, "{mechanism:?}");
        assert_eq!(c.decisions, 14);
    }
}

#[test]
fn an_episode_stops_between_ticks_when_told() {
    let s = scenario(Mechanism::Gsp);
    let mut ticks = 0;
    let r = run(&s, &mut FixedBidAgent::new(DEFAULT_BID_MICROS), || {
        ticks += 1;
        ticks <= 50
    });
    assert_eq!(
        r.expect_err("cancelled").to_string(),
        "cancelled after 50 ticks"
    );
}

/// The fixed-bid agent, which also sets its campaign's budget to each
/// `(morning, B)` of `changes` (mornings counted from 0).
struct BudgetChanger {
    bids: FixedBidAgent,
    changes: Vec<(u32, i64)>,
    morning: u32,
}

impl ApiAgent for BudgetChanger {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        self.bids.decide(client, at)?;
        let today = self.morning;
        self.morning += 1;
        let Some(&(_, b)) = self.changes.iter().find(|(m, _)| *m == today) else {
            return Ok(());
        };
        let rows = client.search("SELECT campaign_budget.resource_name FROM campaign_budget")?;
        let ops = rows
            .iter()
            .filter_map(|r| match r.values.first() {
                Some(Value::ResourceName(n) | Value::String(n)) => Some(
                    MutateOperation::update(n.clone(), [("amount_micros", Value::Int64(b))])
                        .with_note("test: a new budget"),
                ),
                _ => None,
            })
            .collect();
        client.mutate(ops).map(|_| ())
    }
}

#[test]
fn caps_follow_the_budget_in_force_after_mid_episode_changes() {
    // From 2025-03-22: B = 30 for three days, 60 from the 25th, 15 from
    // April 2nd (a day's change is made before its first tick).
    let s = Scenario {
        budget_micros: 30_000_000,
        ..scenario(Mechanism::Gsp)
    };
    let mut agent = BudgetChanger {
        bids: FixedBidAgent::new(3 * DEFAULT_BID_MICROS),
        changes: vec![(3, 60_000_000), (11, 15_000_000)],
        morning: 0,
    };
    let o = run(&s, &mut agent, || true).expect("runs");
    check(&o);
    let day_caps: Vec<i64> = o
        .days
        .iter()
        .map(|d| d.day_cap_micros / 1_000_000)
        .collect();
    assert_eq!(
        day_caps,
        [60, 60, 60, 120, 120, 120, 120, 120, 120, 120, 120, 30, 30, 30],
        "2 × the B in force each day"
    );
    // Google's rule: from a change of B on, the month's limit is what was
    // spent so far that month + the new B × the days left, the day of the
    // change counted. March: created on the 22nd (10 days left) and 60
    // from the 25th (7 left); April: 30.4 × 60 on the 1st, 15 from the 2nd
    // (29 left).
    let spent = |days: &[DailyRow]| days.iter().map(|d| d.spend_micros).sum::<i64>();
    let march = spent(&o.days[..3]) + 60_000_000 * 7;
    let april = spent(&o.days[10..11]) + 15_000_000 * 29;
    let caps: Vec<i64> = o.months.values().map(|m| m.cap_micros).collect();
    assert!(
        caps.iter()
            .zip([march, april])
            .all(|(a, b)| (a - b).abs() <= 1),
        "{caps:?} vs {march}, {april}"
    );
    // The platform paces to the B in force: the changes show in the spend.
    let mean = |days: &[DailyRow]| {
        days.iter().map(|d| d.spend_micros as f64).sum::<f64>() / days.len() as f64
    };
    let (b30, b60, b15) = (
        mean(&o.days[..3]),
        mean(&o.days[3..11]),
        mean(&o.days[11..]),
    );
    assert!(b60 > b30 && b30 > b15, "{b30} {b60} {b15}");

    // The report tables the same caps, row by row.
    let spec: SweepSpec = serde_json::from_value(serde_json::json!({
        "name": "s",
        "seeds": [1],
        "suites": [{"name": SUITE, "datasets": ["scenarios"], "params": {}}],
        "solutions": [{"name": "fixed-bid", "provider": "none"}],
        "providers": [],
    }))
    .expect("a sweep");
    let output = Output {
        text: String::new(),
        meta: serde_json::to_value(&o).expect("an outcome"),
    };
    let result = stored_result(SOLVE, "fixed-bid", "scenario-0", 1, output, o.scores());
    let sections = AdsBench::default()
        .report(&ReportInput {
            spec: &spec,
            suite: &spec.suites[0],
            cells: &[],
            results: std::slice::from_ref(&result),
        })
        .expect("sections");
    let t = &sections[0].tables[0];
    let at = |id: &str| t.columns.iter().position(|c| c.id == id).expect(id);
    let (day, month) = (at("day-cap"), at("month-cap"));
    let money = |c: &Option<Cell>| match c {
        Some(Cell::Number(x)) => (x * 1e6).round() as i64,
        other => panic!("{other:?}"),
    };
    for (row, d) in t.rows.iter().zip(&o.days) {
        assert_eq!(money(&row[day]), d.day_cap_micros, "{row:?}");
        let cap = o.months[&d.date[..7]].cap_micros;
        assert_eq!(money(&row[month]), cap, "{row:?}");
    }
    assert_eq!(t.rows[14][day], None, "no cap on the total line");
}

#[test]
fn an_owners_mid_month_budget_cut_makes_both_caps_bind_and_credits_overdelivery() {
    // The shipped sweep's scenario-1: B = 3 from 2025-03-22, cut to 1 on
    // the 26th, when March's limit becomes its spend so far + 1 × 6 days.
    let s = Scenario {
        start_date: "2025-03-22".into(),
        budget_micros: 3_000_000,
        budget_change: Some(BudgetChange {
            date: "2025-03-26".into(),
            budget_micros: 1_000_000,
        }),
        ..Scenario::nth(1)
    };
    let o = run(&s, &mut PacingAgent::new(DEFAULT_TARGET_CPA_MICROS), || {
        true
    })
    .expect("runs");
    check(&o);
    let march: i64 = o.days[..4].iter().map(|d| d.spend_micros).sum();
    assert_eq!(o.months["2025-03"].cap_micros, march + 6_000_000);
    assert_eq!(o.months["2025-03"].spend_micros, march + 6_000_000);
    assert!(o.days.iter().any(|d| d.daily_cap_bound), "{:?}", o.days);
    assert!(o.days.iter().any(|d| d.monthly_cap_bound), "{:?}", o.days);
    assert!(o.totals().credit_micros > 0, "{:?}", o.days);
    assert!(
        o.changes
            .iter()
            .flatten()
            .all(|c| !c.fields.contains_key("amount_micros")),
        "the owner's change is not in the agent's change set"
    );
}
