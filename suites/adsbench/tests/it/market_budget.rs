//! Google's budget rules hold over 1,000 small seeded episodes with
//! drainers, mid-month budget changes and pauses: no day above 2B, no month
//! above its charging limit (30.4 × B, or spent so far + the new B × the
//! days left after a change), overdelivery credited rather than charged,
//! no spend while paused; and the caps the market records for reports are
//! those limits.

use std::collections::BTreeMap;

use crate::market_setup::{create_ad_group, create_campaign, create_keyword};

use adfarm_adsbench::market::rng::Stream;
use adfarm_adsbench::market::{
    AccountChange, BiddingStrategy, Cap, CompetitorSpec, Date, Event, Market, MarketConfig,
    MatchType, Mechanism, MetricKey, Pricing, Status, TICKS_PER_DAY,
};

const EPISODES: u64 = 1_000;
const DAYS: u32 = 4;

#[derive(Debug, Clone, Copy)]
enum Action {
    Budget(i64),
    Pause,
    Enable,
}

struct Outcome {
    spend: i64,
    credited: i64,
    daily_hits: usize,
    monthly_hits: usize,
    budget_changes: usize,
}

fn episode(seed: u64) -> Outcome {
    let mut s = Stream::at(&[seed, 0xb0d9e7]);
    let month = 1 + s.below(12) as u8;
    let probe = Date::new(2025, month, 1).expect("valid");
    // Start within the last four days of a month so every episode crosses
    // a month boundary.
    let start = Date::new(2025, month, probe.days_in_month() - s.below(4) as u8).expect("valid");
    let per_day = 100.0;
    let mut config = MarketConfig::new(seed, start, DAYS);
    config.opportunities_per_day = per_day;
    config.competitors = CompetitorSpec::standard_mix(seed, 6, 2, per_day);
    config.auction.mechanism = Mechanism::ALL[s.below(3) as usize];
    config.auction.pricing = if s.bernoulli(0.5) {
        Pricing::PerClick
    } else {
        Pricing::PerExposure
    };
    config.keep_events = true;
    let mut market = Market::new(config).expect("valid config");

    let budget = 300_000 + i64::from(s.below(2_000_000));
    let campaign_id = create_campaign(&mut market, "c", budget, BiddingStrategy::ManualCpc);
    let ad_group_id = create_ad_group(
        &mut market,
        campaign_id,
        "g",
        200_000 + i64::from(s.below(1_500_000)),
    );
    for text in [
        "running shoes",
        "flights",
        "credit card",
        "used cars",
        "online courses",
        "dentist",
        "cheap",
    ] {
        create_keyword(&mut market, ad_group_id, text, MatchType::Broad);
    }

    // Changes at hour boundaries (even ticks), so hourly metrics split
    // cleanly at them.
    let total_ticks = u64::from(DAYS * TICKS_PER_DAY);
    let mut schedule: BTreeMap<u64, Action> = BTreeMap::new();
    for _ in 0..1 + s.below(3) {
        let t = 2 * u64::from(s.below(DAYS * TICKS_PER_DAY / 2)) + 2;
        schedule.insert(t, Action::Budget(200_000 + i64::from(s.below(3_000_000))));
    }
    let pause_at = 2 * u64::from(s.below(DAYS * TICKS_PER_DAY / 2));
    let pause_for = 2 * (1 + u64::from(s.below(30)));
    schedule.insert(pause_at, Action::Pause);
    schedule.insert(pause_at + pause_for, Action::Enable);

    // Budget in force per tick, and whether the campaign was paused.
    let mut budgets = Vec::new();
    let mut paused = Vec::new();
    let (mut b, mut is_paused) = (budget, false);
    for t in 0..total_ticks {
        if let Some(a) = schedule.get(&t) {
            let change = match *a {
                Action::Budget(nb) => {
                    b = nb;
                    AccountChange::set_campaign_budget(campaign_id, nb)
                }
                Action::Pause => {
                    is_paused = true;
                    AccountChange::set_campaign_status(campaign_id, Status::Paused)
                }
                Action::Enable => {
                    is_paused = false;
                    AccountChange::set_campaign_status(campaign_id, Status::Enabled)
                }
            };
            market.apply(change).expect("valid change");
        }
        budgets.push(b);
        paused.push(is_paused);
        market.step_tick().expect("episode still running");
    }
    assert!(market.step_tick().is_none());

    let metrics = market.metrics();
    let day_of = |t: u64| start.plus_days((t / u64::from(TICKS_PER_DAY)) as i64);
    for d in 0..u64::from(DAYS) {
        let date = start.plus_days(d as i64);
        let ticks = d * u64::from(TICKS_PER_DAY)..(d + 1) * u64::from(TICKS_PER_DAY);
        let max_b = ticks
            .clone()
            .map(|t| budgets[t as usize])
            .max()
            .expect("ticks");
        let spent = metrics.campaign_day(campaign_id, date).cost_micros;
        assert!(
            spent <= 2 * max_b,
            "seed {seed}: {date} spent {spent} > 2 × {max_b}"
        );
        // The caps a report shows are the ones the market enforced.
        assert_eq!(
            market.day_caps()[d as usize].day_cap_micros,
            2 * max_b,
            "seed {seed}: {date}"
        );
        for t in ticks.step_by(2) {
            if paused[t as usize] {
                let hour = ((t % u64::from(TICKS_PER_DAY)) / 2) as u8;
                let row = metrics.campaign_where(campaign_id, |k| k.date == date && k.hour == hour);
                assert_eq!(
                    (row.impressions, row.cost_micros),
                    (0, 0),
                    "seed {seed}: served while paused at {date} {hour}h"
                );
            }
        }
    }
    // Each month's charging limit, by Google's rule: 30.4 × B for a month
    // begun under B; on a budget change, spent so far this month + the new
    // B × the days left, counting the day of the change. The campaign is
    // created at tick 0 of the start date: a change from nothing spent.
    let spent_before = |t: u64| {
        let (date, hour) = (day_of(t), ((t % u64::from(TICKS_PER_DAY)) / 2) as u8);
        metrics
            .campaign_where(campaign_id, |k| {
                (k.date.year, k.date.month) == (date.year, date.month)
                    && (k.date, k.hour) < (date, hour)
            })
            .cost_micros
    };
    let days_left = |t: u64| i64::from(day_of(t).days_left_in_month());
    let mut limits: BTreeMap<(i32, u8), i64> = BTreeMap::new();
    let mut in_force = budget;
    for t in 0..total_ticks {
        let date = day_of(t);
        let first_tick = t % u64::from(TICKS_PER_DAY) == 0;
        let b = budgets[t as usize];
        if t == 0 {
            let limit = if date.day == 1 {
                (b as f64 * 30.4).floor() as i64
            } else {
                b * days_left(t)
            };
            limits.insert((date.year, date.month), limit);
        } else if first_tick && date.day == 1 {
            limits.insert(
                (date.year, date.month),
                (in_force as f64 * 30.4).floor() as i64,
            );
        }
        if b != in_force {
            let limit = if date.day == 1 && first_tick {
                (b as f64 * 30.4).floor() as i64
            } else {
                spent_before(t) + b * days_left(t)
            };
            limits.insert((date.year, date.month), limit);
            in_force = b;
        }
    }
    for (&(y, m), &limit) in &limits {
        let in_month = |k: &MetricKey| (k.date.year, k.date.month) == (y, m);
        let spent = metrics.campaign_where(campaign_id, in_month).cost_micros;
        let last_day = (0..u64::from(DAYS))
            .filter(|&d| {
                let date = start.plus_days(d as i64);
                (date.year, date.month) == (y, m)
            })
            .max()
            .expect("a day of the month");
        let reported = market.day_caps()[last_day as usize].month_limit_micros;
        assert_eq!(reported, limit, "seed {seed}: {y}-{m:02} limit");
        assert!(
            spent <= limit,
            "seed {seed}: {y}-{m:02} spent {spent} > limit {limit}"
        );
    }
    // Every micro delivered is either charged or credited.
    let (mut charged, mut credited) = (0i64, 0i64);
    for e in market.event_log().events() {
        match e {
            Event::Auction { cost_micros, .. } => charged += cost_micros,
            Event::OverdeliveryCredit { credit_micros, .. } => credited += credit_micros,
            _ => {}
        }
    }
    assert_eq!(
        charged,
        metrics.campaign_where(campaign_id, |_| true).cost_micros,
        "seed {seed}"
    );

    let hits = |cap| {
        market
            .event_log()
            .events()
            .iter()
            .filter(|e| matches!(e, Event::BudgetCapHit { cap: c, .. } if *c == cap))
            .count()
    };
    Outcome {
        spend: metrics.campaign_where(campaign_id, |_| true).cost_micros,
        credited,
        daily_hits: hits(Cap::Daily),
        monthly_hits: hits(Cap::Monthly),
        budget_changes: schedule
            .values()
            .filter(|a| matches!(a, Action::Budget(_)))
            .count(),
    }
}

#[test]
fn budget_caps_hold_over_a_thousand_seeded_episodes() {
    let (mut spend, mut credited, mut daily, mut monthly, mut changes) = (0i64, 0i64, 0, 0, 0);
    for seed in 0..EPISODES {
        let o = episode(seed);
        spend += o.spend;
        credited += o.credited;
        daily += o.daily_hits;
        monthly += o.monthly_hits;
        changes += o.budget_changes;
    }
    eprintln!(
        "spend {spend} µ, cap hits: {daily} daily, {monthly} monthly, {changes} budget changes"
    );
    // The caps must actually have been tested, not just never reached.
    assert!(spend > 0);
    assert!(credited > 0, "nothing went past a cap");
    assert!(daily > 100, "daily cap hit only {daily} times");
    assert!(monthly > 100, "monthly cap hit only {monthly} times");
    assert!(changes >= EPISODES as usize);
}
