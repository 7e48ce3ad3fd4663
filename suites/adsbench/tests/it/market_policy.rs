//! 14-day episodes of the two scripted agents on each mechanism, printing
//! the daily spend, clicks, conversions, CPA and ROAS.

use adfarm_adsbench::market::{
    daily_report, format_table, run_episode, CompetitorSpec, Date, DayReport, FixedBids, Market,
    MarketConfig, Mechanism, PacingRule, Policy, ScriptedAccount,
};

const DAYS: u32 = 14;

fn episode(mechanism: Mechanism, policy: &mut dyn Policy) -> (Market, Vec<DayReport>, u64) {
    let mut config = MarketConfig::new(2025, Date::new(2025, 11, 17).expect("valid"), DAYS);
    config.opportunities_per_day = 1_200.0;
    config.competitors = CompetitorSpec::standard_mix(2025, 23, 1, config.opportunities_per_day);
    config.auction.mechanism = mechanism;
    let mut market = Market::new(config).expect("valid config");
    let run = run_episode(&mut market, policy, || true);
    assert_eq!(run.ticks, u64::from(DAYS) * 48);
    assert_eq!(run.changes_rejected, 0);
    let days = daily_report(&market);
    (market, days, run.changes_applied)
}

fn check_common(name: &str, mechanism: Mechanism, market: &Market, days: &[DayReport]) {
    println!("{name} on {mechanism:?}\n{}", format_table(days));
    assert_eq!(days.len(), DAYS as usize);
    let account = market.account();
    assert_eq!((account.campaigns.len(), account.keywords.len()), (1, 4));
    let budget = account.campaigns[0].daily_budget_micros;
    for d in days {
        assert!(
            d.totals.cost_micros <= 2 * budget,
            "{name}: {} over 2B",
            d.date
        );
    }
    let active = days.iter().filter(|d| d.totals.clicks > 0).count();
    assert!(
        active >= 12,
        "{name} on {mechanism:?}: clicks on only {active} days"
    );
}

/// Mean |daily spend − B| / B over the episode.
fn pacing_error(days: &[DayReport], budget: i64) -> f64 {
    days.iter()
        .map(|d| (d.totals.cost_micros - budget).abs() as f64 / budget as f64)
        .sum::<f64>()
        / days.len() as f64
}

#[test]
fn scripted_agents_run_fourteen_days_on_every_mechanism() {
    let spec = ScriptedAccount::default();
    for mechanism in Mechanism::ALL {
        let mut fixed = FixedBids::new(spec.clone());
        let (m, fixed_days, fixed_changes) = episode(mechanism, &mut fixed);
        check_common("fixed bids", mechanism, &m, &fixed_days);
        assert_eq!(
            fixed_changes,
            1 + 1 + 4,
            "fixed bids only build the account"
        );

        let mut pacing = PacingRule::new(spec.clone(), 40_000_000);
        let (m, pacing_days, pacing_changes) = episode(mechanism, &mut pacing);
        check_common("pacing rule", mechanism, &m, &pacing_days);
        assert!(pacing_changes > 6, "the pacing rule moved bids");
        let (ef, ep) = (
            pacing_error(&fixed_days, spec.daily_budget_micros),
            pacing_error(&pacing_days, spec.daily_budget_micros),
        );
        println!("{mechanism:?}: mean |spend − B| / B fixed {ef:.2}, pacing {ep:.2}\n");
        assert!(
            ep < ef,
            "{mechanism:?}: the pacing rule tracks the budget better ({ep:.2} vs {ef:.2})"
        );
    }
}

#[test]
fn an_episode_can_be_cancelled_between_ticks_and_moved_across_threads() {
    fn assert_send<T: Send + 'static>() {}
    assert_send::<Market>();
    let config = MarketConfig::new(9, Date::new(2025, 1, 1).expect("valid"), 2);
    let mut market = Market::new(MarketConfig {
        opportunities_per_day: 500.0,
        ..config
    })
    .expect("valid");
    let mut fixed = FixedBids::new(ScriptedAccount::default());
    let mut budget = 30;
    let run = std::thread::spawn(move || {
        let run = run_episode(&mut market, &mut fixed, || {
            budget -= 1;
            budget >= 0
        });
        (run, market.now().ordinal(), market.is_finished())
    })
    .join()
    .expect("worker thread");
    assert_eq!(
        run,
        (
            adfarm_adsbench::market::EpisodeRun {
                ticks: 30,
                decisions: 1,
                changes_applied: 6,
                changes_rejected: 0
            },
            30,
            false
        )
    );
}
