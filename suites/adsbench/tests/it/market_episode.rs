//! Whole-episode behaviour: determinism of the event-log digest, charging
//! rules, metrics that agree with the log, lagged conversions, the
//! drainer's effect, bot searches (click fraud), and the stepping API.

use proptest::prelude::*;

use crate::market_setup::{create_ad_group, create_campaign, create_keyword};

use adfarm_adsbench::market::{
    AccountChange, BiddingStrategy, CompetitorSpec, Date, Event, Market, MarketConfig, MatchType,
    Mechanism, MetricRow, Pricing, Status, Strategy, TICKS_PER_DAY,
};

fn config(seed: u64, mechanism: Mechanism, pricing: Pricing) -> MarketConfig {
    let mut c = MarketConfig::new(seed, Date::new(2025, 6, 29).expect("valid"), 3);
    c.opportunities_per_day = 1_500.0;
    c.competitors = CompetitorSpec::standard_mix(seed, 12, 2, c.opportunities_per_day);
    c.auction.mechanism = mechanism;
    c.auction.pricing = pricing;
    c
}

/// Sets up one campaign with a few keywords; returns (campaign, ad group,
/// first keyword) ids.
fn set_up(market: &mut Market, strategy: BiddingStrategy) -> (u64, u64, u64) {
    let campaign_id = create_campaign(market, "Summer", 40_000_000, strategy);
    let ad_group_id = create_ad_group(market, campaign_id, "Main", 1_500_000);
    let mut first = 0;
    for (i, (text, m)) in [
        ("running shoes", MatchType::Broad),
        ("flights", MatchType::Phrase),
        ("cheap hotels", MatchType::Exact),
        ("dentist", MatchType::Broad),
    ]
    .into_iter()
    .enumerate()
    {
        let criterion_id = create_keyword(market, ad_group_id, text, m);
        if i == 0 {
            first = criterion_id;
        }
    }
    (campaign_id, ad_group_id, first)
}

/// A scripted sequence of changes at fixed ticks.
fn run_scripted(config: MarketConfig, raise_bid_at: u64) -> Market {
    let mut market = Market::new(config).expect("valid config");
    let (campaign_id, _, keyword) = set_up(&mut market, BiddingStrategy::ManualCpc);
    while !market.is_finished() {
        let t = market.now().ordinal();
        if t == raise_bid_at {
            market
                .apply(AccountChange::set_keyword_bid(keyword, 2_500_000))
                .expect("bid");
        }
        if t == 60 {
            market
                .apply(AccountChange::set_campaign_budget(campaign_id, 25_000_000))
                .expect("budget");
        }
        market.step_tick();
    }
    market
}

#[test]
fn same_seed_and_changes_give_the_same_digest() {
    let a = run_scripted(config(7, Mechanism::Gsp, Pricing::PerClick), 30);
    let b = run_scripted(config(7, Mechanism::Gsp, Pricing::PerClick), 30);
    assert!(
        a.event_log().len() > 100,
        "a real episode: {} events",
        a.event_log().len()
    );
    assert_eq!(a.event_log().digest(), b.event_log().digest());
    assert_eq!(a.event_log().events(), b.event_log().events());
    assert_eq!(a.metrics(), b.metrics());
    // Keeping events or not does not change the digest.
    let lean = run_scripted(
        MarketConfig {
            keep_events: false,
            ..config(7, Mechanism::Gsp, Pricing::PerClick)
        },
        30,
    );
    assert_eq!(lean.event_log().digest(), a.event_log().digest());
    // A change at another tick, or another seed, changes it.
    let later = run_scripted(config(7, Mechanism::Gsp, Pricing::PerClick), 31);
    assert_ne!(later.event_log().digest(), a.event_log().digest());
    let other = run_scripted(config(8, Mechanism::Gsp, Pricing::PerClick), 30);
    assert_ne!(other.event_log().digest(), a.event_log().digest());
}

/// Every charge is for a click (per-click pricing) or an exposure
/// (per-exposure pricing), less what went past a cap and was credited,
/// and the metrics are exactly the log's sums.
fn check_charges(seed: u64, mechanism: Mechanism, pricing: Pricing) -> u64 {
    let m = run_scripted(config(seed, mechanism, pricing), 10);
    let (mut imps, mut clicks, mut cost, mut conversions, mut value) =
        (0u64, 0u64, 0i64, 0.0, 0i64);
    let events = m.event_log().events();
    for (i, e) in events.iter().enumerate() {
        // Delivery past a cap is credited in the event right after its
        // auction: charged + credited is the auction's price.
        let credited = match events.get(i + 1) {
            Some(Event::OverdeliveryCredit { credit_micros, .. }) => *credit_micros,
            _ => 0,
        };
        match e {
            Event::Auction {
                slot,
                price_micros,
                clicked,
                cost_micros,
                bid_micros,
                ..
            } => {
                match (slot, pricing) {
                    (None, _) => assert_eq!((*cost_micros, *clicked), (0, false)),
                    (Some(_), Pricing::PerClick) => {
                        assert_eq!(
                            *cost_micros + credited,
                            if *clicked { *price_micros } else { 0 },
                            "{e:?}"
                        )
                    }
                    (Some(_), Pricing::PerExposure) => {
                        assert_eq!(*cost_micros + credited, *price_micros, "{e:?}")
                    }
                }
                assert!(price_micros <= bid_micros);
                imps += u64::from(slot.is_some());
                clicks += u64::from(*clicked);
                cost += cost_micros;
            }
            Event::Conversion {
                time,
                click_time,
                value_micros,
                ..
            } => {
                assert!(click_time < time, "conversions land after their click");
                conversions += 1.0;
                value += value_micros;
            }
            _ => {}
        }
    }
    let total = m.metrics().campaign_where(1, |_| true);
    assert!(
        imps > 0,
        "seed {seed} {mechanism:?} {pricing:?}: the agent took part"
    );
    assert_eq!(
        (
            total.impressions,
            total.clicks,
            total.cost_micros,
            total.conversions,
            total.conversions_value_micros
        ),
        (imps, clicks, cost, conversions, value),
        "seed {seed} {mechanism:?} {pricing:?}"
    );
    // The search-terms table splits the same totals by query, and every
    // query it names matches its keyword.
    let mut by_term = MetricRow::default();
    for (k, r) in m.metrics().search_terms() {
        by_term += *r;
        let kw = m.account().keyword(k.criterion_id).expect("keyword");
        let text = m.catalog().text(k.query);
        assert!(
            kw.text.split(' ').all(|w| text.split(' ').any(|t| t == w)),
            "{text:?} for {:?}",
            kw.text
        );
    }
    assert_eq!(by_term, total);
    imps
}

#[test]
fn charges_only_on_clicks_or_exposures_and_metrics_agree_with_the_log() {
    for pricing in [Pricing::PerClick, Pricing::PerExposure] {
        for mechanism in Mechanism::ALL {
            let imps = check_charges(3, mechanism, pricing);
            assert!(imps > 0, "{mechanism:?} {pricing:?}: the agent took part");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn charges_follow_the_pricing_unit_for_any_seed(
        seed in any::<u64>(),
        mechanism in prop::sample::select(Mechanism::ALL.to_vec()),
        per_click in any::<bool>(),
    ) {
        check_charges(seed, mechanism, if per_click { Pricing::PerClick } else { Pricing::PerExposure });
    }
}

#[test]
fn conversions_are_attributed_to_the_click_hour() {
    let m = run_scripted(config(11, Mechanism::Gsp, Pricing::PerClick), 5);
    let start = m.config().start_date;
    let mut seen = 0;
    for e in m.event_log().events() {
        if let Event::Conversion {
            click_time,
            criterion_id,
            ..
        } = e
        {
            let date = start.plus_days(i64::from(click_time.day));
            let row = m.metrics().rows().find(|(k, _)| {
                k.criterion_id == *criterion_id && k.date == date && k.hour == click_time.hour()
            });
            let (_, row) = row.expect("a row at the click's date and hour");
            assert!(row.conversions >= 1.0 && row.clicks >= 1);
            seen += 1;
        }
    }
    assert!(seen > 0, "some conversions landed");
}

#[test]
fn drainers_raise_the_agents_cost_per_click() {
    let cpc = |drainers: usize| {
        let mut c = config(21, Mechanism::Gsp, Pricing::PerClick);
        c.competitors = CompetitorSpec::standard_mix(21, 12, 0, c.opportunities_per_day);
        for d in c.competitors.iter_mut().rev().take(drainers) {
            d.strategy = Strategy::Drainer { undercut: 0.97 };
            d.enters_on_day = 0;
            d.daily_budget_micros = 1_000_000_000;
        }
        let m = run_scripted(c, 0);
        let t = m.metrics().campaign_where(1, |_| true);
        t.cost_micros as f64 / t.clicks as f64
    };
    let (calm, drained) = (cpc(0), cpc(2));
    assert!(
        drained > 1.2 * calm,
        "CPC {calm:.0} µ without drainers, {drained:.0} µ with"
    );
}

#[test]
fn target_cpa_bids_follow_the_target() {
    let spend = |target: i64| {
        let mut market = Market::new(config(5, Mechanism::Gsp, Pricing::PerClick)).expect("valid");
        set_up(
            &mut market,
            BiddingStrategy::TargetCpa {
                target_cpa_micros: target,
            },
        );
        market.run_to_end();
        market
            .event_log()
            .events()
            .iter()
            .filter_map(|e| match e {
                Event::Auction { bid_micros, .. } => Some(*bid_micros),
                _ => None,
            })
            .sum::<i64>()
    };
    assert!(spend(60_000_000) > 2 * spend(20_000_000));
}

#[test]
fn stepping_covers_every_tick_then_stops() {
    let mut market = Market::new(config(2, Mechanism::Vcg, Pricing::PerClick)).expect("valid");
    let (campaign_id, ad_group_id, _) = set_up(&mut market, BiddingStrategy::ManualCpc);
    let mut ticks = 0;
    let mut opportunities = 0;
    while let Some(s) = market.step_tick() {
        assert_eq!(s.time.ordinal(), ticks);
        assert_eq!(
            s.date,
            market.config().start_date.plus_days(i64::from(s.time.day))
        );
        opportunities += s.opportunities;
        ticks += 1;
        // A caller can stop between any two ticks, e.g. on cancellation.
        if ticks == 50 {
            market
                .apply(AccountChange::UpdateAdGroup {
                    ad_group_id,
                    name: None,
                    status: Some(Status::Paused),
                    cpc_bid_micros: None,
                })
                .expect("pause");
        }
    }
    assert_eq!(ticks, 3 * u64::from(TICKS_PER_DAY));
    assert!(opportunities > 3_000);
    assert!(market.step_tick().is_none());
    assert_eq!(
        market.date(),
        Date::new(2025, 7, 2).expect("valid"),
        "the calendar crossed into July"
    );
    // Nothing served after the ad group was paused before tick 50.
    let late = market.metrics().campaign_where(campaign_id, |k| {
        (k.date, k.hour) >= (Date::new(2025, 6, 30).expect("valid"), 1)
    });
    assert_eq!(late.impressions, 0);
}

#[test]
fn bad_configuration_names_the_field() {
    let mut c = config(1, Mechanism::Gsp, Pricing::PerClick);
    c.days = 0;
    assert!(Market::new(c).unwrap_err().to_string().contains("days"));
    let mut c = config(1, Mechanism::Gsp, Pricing::PerClick);
    c.opportunities_per_day = -1.0;
    assert!(Market::new(c)
        .unwrap_err()
        .to_string()
        .contains("opportunities_per_day"));
    let mut c = config(1, Mechanism::Gsp, Pricing::PerClick);
    c.auction.position_factors = vec![];
    assert!(Market::new(c)
        .unwrap_err()
        .to_string()
        .contains("auction.position_factors"));
    let mut c = config(1, Mechanism::Gsp, Pricing::PerClick);
    c.competitors[4].daily_budget_micros = -3;
    assert!(Market::new(c)
        .unwrap_err()
        .to_string()
        .contains("competitors[4].daily_budget_micros"));
}

#[test]
fn the_day_rolls_over_before_the_agent_acts_at_midnight() {
    let mut market = Market::new(config(4, Mechanism::Gsp, Pricing::PerClick)).expect("valid");
    let (campaign_id, _, keyword) = set_up(&mut market, BiddingStrategy::ManualCpc);
    for _ in 0..TICKS_PER_DAY {
        market.step_tick();
    }
    let yesterday = market
        .metrics()
        .campaign_day(campaign_id, Date::new(2025, 6, 29).expect("valid"));
    assert!(yesterday.cost_micros > 0);
    assert_eq!(market.date(), Date::new(2025, 6, 30).expect("valid"));
    let ledger = market.ledger(campaign_id).expect("ledger");
    assert_eq!(ledger.day_spend_micros(), 0, "a new day's spend");
    assert_eq!(ledger.month_spend_micros(), yesterday.cost_micros);
    // A removed keyword never serves again.
    market
        .apply(AccountChange::UpdateKeyword {
            criterion_id: keyword,
            status: Some(Status::Removed),
            cpc_bid_micros: None,
        })
        .expect("remove");
    market.run_to_end();
    let served = market.metrics().rows().filter(|(k, _)| {
        k.criterion_id == keyword && k.date > Date::new(2025, 6, 29).expect("valid")
    });
    assert_eq!(served.count(), 0);
}

#[test]
fn scaling_traffic_scales_competitor_budgets() {
    let base = MarketConfig::new(1, Date::new(2025, 1, 1).expect("valid"), 1);
    let small = base.clone().with_traffic(2_000.0);
    assert_eq!(small.opportunities_per_day, 2_000.0);
    for (a, b) in base.competitors.iter().zip(&small.competitors) {
        let ratio = b.daily_budget_micros as f64 / a.daily_budget_micros as f64;
        assert!((ratio - 0.1).abs() < 1e-6, "{ratio}");
    }
    assert!(Market::new(base.with_traffic(f64::NAN))
        .unwrap_err()
        .to_string()
        .contains("opportunities_per_day"));
}

#[test]
fn negative_keywords_keep_their_ad_group_off_matching_queries() {
    let served_on_cheap = |negative: bool| {
        let mut market = Market::new(config(6, Mechanism::Gsp, Pricing::PerClick)).expect("valid");
        let (_, ad_group_id, keyword) = set_up(&mut market, BiddingStrategy::ManualCpc);
        if negative {
            market
                .apply(AccountChange::CreateNegativeKeyword {
                    ad_group_id,
                    text: "cheap".into(),
                    match_type: MatchType::Broad,
                })
                .expect("negative");
        }
        market.run_to_end();
        let catalog = market.catalog();
        let (mut cheap, mut other) = (0, 0);
        for e in market.event_log().events() {
            if let Event::Auction {
                criterion_id,
                query,
                ..
            } = e
            {
                if *criterion_id == keyword {
                    if catalog.text(*query).split(' ').any(|w| w == "cheap") {
                        cheap += 1;
                    } else {
                        other += 1;
                    }
                }
            }
        }
        (cheap, other)
    };
    let (cheap, other) = served_on_cheap(false);
    assert!(
        cheap > 0 && other > 0,
        "broad 'running shoes' serves on 'cheap …' queries: {cheap}"
    );
    let (cheap, other) = served_on_cheap(true);
    assert_eq!(cheap, 0, "blocked by the negative");
    assert!(other > 0, "other queries still serve");
}

#[test]
fn traffic_does_not_depend_on_what_the_agent_does() {
    let volumes = |with_account: bool| {
        let mut market = Market::new(config(12, Mechanism::Vcg, Pricing::PerClick)).expect("valid");
        if with_account {
            set_up(
                &mut market,
                BiddingStrategy::TargetCpa {
                    target_cpa_micros: 30_000_000,
                },
            );
        }
        let mut v = Vec::new();
        while let Some(t) = market.step_tick() {
            v.push(t.opportunities);
        }
        v
    };
    let idle = volumes(false);
    assert_eq!(idle.len(), 3 * TICKS_PER_DAY as usize);
    assert_eq!(idle, volumes(true));
}

#[test]
fn bot_searches_are_charged_clicks_that_never_convert_and_the_caps_still_hold() {
    // Two identical markets; in one, bots follow the agent's searches from
    // noon of the first day. Per tick, auctions past the tick's real
    // searches are the bots'.
    let run = |bots: Option<u32>| {
        let mut market = Market::new(config(5, Mechanism::Gsp, Pricing::PerClick)).expect("valid");
        let (campaign_id, _, _) = set_up(&mut market, BiddingStrategy::ManualCpc);
        let mut real = Vec::new();
        while !market.is_finished() {
            if let (24, Some(n)) = (market.now().ordinal(), bots) {
                market.set_bot_searches(n);
            }
            let tick = market.step_tick().expect("a tick");
            real.push(tick.opportunities);
        }
        (market, campaign_id, real)
    };
    let (calm, id, _) = run(None);
    let (drained, _, real) = run(Some(4));
    let auctions = |m: &Market, from: u64| -> Vec<(u64, u32, bool, bool)> {
        m.event_log()
            .events()
            .iter()
            .filter_map(|e| match e {
                Event::Auction {
                    time,
                    opportunity,
                    slot,
                    clicked,
                    ..
                } if time.ordinal() >= from => {
                    Some((time.ordinal(), *opportunity, slot.is_some(), *clicked))
                }
                _ => None,
            })
            .collect()
    };
    let before = |m: &Market| auctions(m, 0).into_iter().filter(|a| a.0 < 24).count();
    assert_eq!(before(&calm), before(&drained), "the same until the bots");
    assert!(drained
        .event_log()
        .events()
        .iter()
        .any(|e| matches!(e, Event::BotSearches { per_search: 4, time } if time.ordinal() == 24)));
    let (bot, human): (Vec<_>, Vec<_>) = auctions(&drained, 24)
        .into_iter()
        .partition(|(t, opp, _, _)| *opp >= real[*t as usize]);
    assert!(!bot.is_empty());
    assert!(
        bot.iter().all(|(_, _, shown, clicked)| shown == clicked),
        "a bot clicks the agent's ad exactly when it shows"
    );
    let human_clicks = human.iter().filter(|a| a.3).count();
    let conversions = drained
        .event_log()
        .events()
        .iter()
        .filter(|e| matches!(e, Event::Conversion { click_time, .. } if click_time.ordinal() >= 24))
        .count();
    assert!(
        conversions <= human_clicks,
        "only people convert: {conversions} conversions, {human_clicks} human clicks"
    );
    let first = Date::new(2025, 6, 29).expect("valid");
    let (c, d) = (
        calm.metrics().campaign_day(id, first),
        drained.metrics().campaign_day(id, first),
    );
    assert!(
        d.clicks > c.clicks && d.cost_micros > c.cost_micros,
        "{c:?} vs {d:?}"
    );
    assert!(
        d.cost_micros <= 2 * 40_000_000,
        "Google's daily cap holds: {d:?}"
    );
}
