//! The market behind the Ads API: GAQL reads the market's own metrics, and
//! mutate changes the market's account (atomically).

use adfarm_adsbench::api::{MutateOperation, MutateRequest};
use adfarm_adsbench::gaql::Value;
use adfarm_adsbench::market::{Date, Status, TICKS_PER_DAY};
use adfarm_adsbench::sandbox::{AdsClient, Sandbox};
use adfarm_adsbench::suite::scenario::Scenario;

fn one_day_in() -> Sandbox {
    let scenario = Scenario {
        days: 3,
        ..Scenario::nth(0)
    };
    let mut sandbox = Sandbox::new(scenario.market().expect("a valid scenario"));
    for _ in 0..TICKS_PER_DAY {
        sandbox.market_mut().step_tick();
    }
    sandbox
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int64(n) => *n,
        other => panic!("{other:?}"),
    }
}

fn double(v: &Value) -> f64 {
    match v {
        Value::Double(x) => *x,
        Value::Int64(n) => *n as f64,
        other => panic!("{other:?}"),
    }
}

#[test]
fn gaql_returns_the_markets_own_metrics() {
    let mut sandbox = one_day_in();
    let day = Date::parse("2025-03-01").expect("a date");
    let market_day = sandbox.market().metrics().account_day(day);
    assert!(market_day.clicks > 0 && market_day.cost_micros > 0);

    let rows = sandbox
        .search(
            "SELECT campaign.id, metrics.impressions, metrics.clicks, metrics.cost_micros, \
             metrics.conversions FROM campaign WHERE segments.date = '2025-03-01'",
        )
        .expect("a valid query");
    assert_eq!(rows.len(), 1);
    let campaign_id = int(&rows[0].values[0]) as u64;
    let campaign_day = sandbox.market().metrics().campaign_day(campaign_id, day);
    assert_eq!(int(&rows[0].values[1]) as u64, campaign_day.impressions);
    assert_eq!(int(&rows[0].values[2]) as u64, campaign_day.clicks);
    assert_eq!(int(&rows[0].values[3]), campaign_day.cost_micros);
    assert_eq!(double(&rows[0].values[4]), campaign_day.conversions);

    // Keyword by hour sums to the same day; no hour outside the day's.
    let hourly = sandbox
        .search(
            "SELECT ad_group_criterion.keyword.text, segments.hour, metrics.cost_micros, \
             metrics.clicks FROM keyword_view WHERE segments.date = '2025-03-01'",
        )
        .expect("a valid query");
    assert!(hourly.len() > 4, "several keyword-hours: {}", hourly.len());
    let cost: i64 = hourly.iter().map(|r| int(&r.values[2])).sum();
    let clicks: i64 = hourly.iter().map(|r| int(&r.values[3])).sum();
    assert_eq!(cost, market_day.cost_micros);
    assert_eq!(clicks as u64, market_day.clicks);
    assert!(hourly.iter().all(|r| (0..24).contains(&int(&r.values[1]))));

    // Today (day 2) has no traffic yet.
    let today = sandbox
        .search(
            "SELECT campaign.id, metrics.clicks FROM campaign WHERE segments.date = '2025-03-02'",
        )
        .expect("a valid query");
    assert!(today.iter().all(|r| int(&r.values[1]) == 0), "{today:?}");
}

#[test]
fn mutate_changes_the_markets_account_and_atomic_failure_changes_nothing() {
    let mut sandbox = one_day_in();
    let keywords = sandbox
        .search(
            "SELECT ad_group_criterion.resource_name, ad_group.resource_name, campaign.id \
             FROM ad_group_criterion",
        )
        .expect("a valid query");
    let keyword = match &keywords[0].values[0] {
        Value::ResourceName(n) => n.clone(),
        other => panic!("{other:?}"),
    };
    let group = match &keywords[0].values[1] {
        Value::ResourceName(n) => n.clone(),
        other => panic!("{other:?}"),
    };
    let campaign_id = int(&keywords[0].values[2]) as u64;
    let customer = sandbox.customer_id();
    let events = sandbox.market().event_log().len();

    // One bad operation: nothing commits, nothing reaches the market.
    let bad = MutateRequest {
        customer_id: customer,
        operations: vec![
            MutateOperation::update(
                keyword.clone(),
                [("cpc_bid_micros", Value::Int64(2_500_000))],
            ),
            MutateOperation::update(
                format!("customers/{customer}/adGroups/999"),
                [("status", Value::Enum("PAUSED".into()))],
            ),
        ],
        ..MutateRequest::default()
    };
    let failure = sandbox
        .mutate_request(&bad)
        .expect_err("an unknown ad group");
    assert_eq!(failure.errors.len(), 1, "{failure:?}");
    assert_eq!(sandbox.market().event_log().len(), events);

    let response = sandbox
        .mutate(vec![
            MutateOperation::update(
                keyword.clone(),
                [("cpc_bid_micros", Value::Int64(2_500_000))],
            ),
            MutateOperation::update(
                format!("customers/{customer}/campaignBudgets/{campaign_id}"),
                [("amount_micros", Value::Int64(45_000_000))],
            ),
            MutateOperation::create(
                adfarm_adsbench::gaql::Resource::AdGroupCriterion,
                [
                    ("ad_group", Value::ResourceName(group.clone())),
                    ("keyword.text", Value::String("trail shoes".into())),
                    ("keyword.match_type", Value::Enum("PHRASE".into())),
                ],
            ),
            MutateOperation::update(group, [("status", Value::Enum("PAUSED".into()))]),
        ])
        .expect("valid operations");
    assert_eq!(response.results.len(), 4);
    assert_eq!(
        response.results[1].as_deref(),
        Some(format!("customers/{customer}/campaignBudgets/{campaign_id}").as_str())
    );
    let account = sandbox.market().account();
    let criterion: u64 = keyword.rsplit('~').next().unwrap().parse().unwrap();
    assert_eq!(
        account.keyword(criterion).unwrap().cpc_bid_micros,
        Some(2_500_000)
    );
    assert_eq!(
        account.campaign(campaign_id).unwrap().daily_budget_micros,
        45_000_000
    );
    assert!(account.keywords.iter().any(|k| k.text == "trail shoes"));
    assert_eq!(account.ad_groups[0].status, Status::Paused);
    assert_eq!(sandbox.market().event_log().len(), events + 4);
    assert_eq!(
        sandbox
            .market()
            .ledger(campaign_id)
            .unwrap()
            .budget_micros(),
        45_000_000
    );

    // Campaigns are the scenario's: the API does not create them.
    let refused = sandbox
        .mutate(vec![MutateOperation::create(
            adfarm_adsbench::gaql::Resource::Campaign,
            [("name", Value::String("Another".into()))],
        )])
        .expect_err("not allowed");
    assert!(
        refused.errors[0].message.contains("not supported"),
        "{refused:?}"
    );
}
