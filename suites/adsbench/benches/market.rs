//! Market speed: auctions per second per mechanism (48 bidders × 3 slots),
//! and a 500k-opportunity, 48-bidder episode end to end. Prints a table.
//! Targets: ≥ 1,000,000 auctions/s per core; the episode in under 1 s.
//!
//! Times are this thread's CPU time (Linux `/proc/thread-self/schedstat`,
//! falling back to wall time), so a busy shared machine does not count
//! other processes' time against the market; wall time is shown too.

use std::hint::black_box;
use std::time::Instant;

use adfarm_adsbench::market::rng::Stream;
use adfarm_adsbench::market::{
    Auction, AuctionRules, Bid, CompetitorSpec, Date, Market, MarketConfig, MatchType, Mechanism,
    ScriptedAccount,
};

const BIDDERS: usize = 48;

/// Seconds of CPU this thread has used, if the kernel says.
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// Runs `f` and returns (CPU seconds or wall if unknown, wall seconds).
fn timed(f: impl FnOnce()) -> (f64, f64) {
    let cpu0 = thread_cpu_seconds();
    let wall = Instant::now();
    f();
    let wall = wall.elapsed().as_secs_f64();
    let cpu = match (cpu0, thread_cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => wall,
    };
    (cpu, wall)
}

fn auctions_per_second(mechanism: Mechanism) -> (f64, f64) {
    let mut s = Stream::new(0xbe9c);
    let sets: Vec<Vec<Bid>> = (0..1024)
        .map(|_| {
            (0..BIDDERS as u32)
                .map(|bidder| Bid {
                    bidder,
                    amount_micros: 10_000 + i64::from(s.below(5_000_000)),
                    quality: 0.01 + 0.1 * s.uniform(),
                    tie_break: s.next_u64() as u32,
                })
                .collect()
        })
        .collect();
    let rules = AuctionRules {
        mechanism,
        ..AuctionRules::default()
    };
    let mut auction = Auction::new(rules).expect("default rules");
    let n = 2_000_000usize;
    let (mut best_cpu, mut best_wall) = (f64::MAX, f64::MAX);
    // Best of five rounds: the machine is shared.
    for _ in 0..5 {
        let (cpu, wall) = timed(|| {
            let mut revenue = 0i64;
            for i in 0..n {
                let out = auction.run(black_box(&sets[i & 1023]));
                revenue += out.iter().map(|p| p.price_micros).sum::<i64>();
            }
            black_box(revenue);
        });
        best_cpu = best_cpu.min(cpu);
        best_wall = best_wall.min(wall);
    }
    (n as f64 / best_cpu, n as f64 / best_wall)
}

struct EpisodeFigures {
    opportunities: u64,
    bids: u64,
    agent_auctions: u64,
    cpu: f64,
    wall: f64,
    digest: String,
}

/// A 14-day, ~500k-opportunity episode with 47 competitors from the first
/// tick; `budget_scale` multiplies their budgets (large: nobody runs dry,
/// so nearly every auction has 48 bids).
fn episode(mechanism: Mechanism, budget_scale: f64) -> EpisodeFigures {
    let date = Date::new(2025, 11, 17).expect("valid date");
    let days = 14;
    let mut config = MarketConfig::new(42, date, days);
    config.opportunities_per_day = 500_000.0 / f64::from(days);
    config.competitors = CompetitorSpec::standard_mix(42, 47, 2, config.opportunities_per_day);
    for c in &mut config.competitors {
        c.enters_on_day = 0;
        c.daily_budget_micros = (c.daily_budget_micros as f64 * budget_scale) as i64;
    }
    config.auction.mechanism = mechanism;
    let mut market = Market::new(config).expect("valid config");
    ScriptedAccount {
        campaign_name: "Shoes".into(),
        daily_budget_micros: 150_000_000,
        default_cpc_micros: 1_200_000,
        keywords: vec![
            ("running shoes".into(), MatchType::Broad, 1_200_000),
            ("sneakers".into(), MatchType::Phrase, 1_200_000),
            ("flights".into(), MatchType::Broad, 1_200_000),
        ],
    }
    .open(&mut market)
    .expect("the account");
    let (mut opportunities, mut bids, mut agent_auctions) = (0u64, 0u64, 0u64);
    let (cpu, wall) = timed(|| {
        while let Some(t) = market.step_tick() {
            opportunities += u64::from(t.opportunities);
            bids += t.bids;
            agent_auctions += u64::from(t.agent_auctions);
        }
    });
    let digest = market.event_log().digest()[..16].to_string();
    EpisodeFigures {
        opportunities,
        bids,
        agent_auctions,
        cpu,
        wall,
        digest,
    }
}

fn main() {
    println!(
        "{:<11} {:>16} {:>16}",
        "mechanism", "auctions/s cpu", "auctions/s wall"
    );
    for m in Mechanism::ALL {
        let (cpu, wall) = auctions_per_second(m);
        println!("{:<11} {:>16.0} {:>16.0}", format!("{m:?}"), cpu, wall);
    }
    println!();
    println!(
        "{:<11} {:>7} {:>13} {:>8} {:>14} {:>7} {:>7} {:>11} {:>16}",
        "mechanism",
        "budgets",
        "opportunities",
        "bids/opp",
        "agent auctions",
        "cpu s",
        "wall s",
        "opps/cpu s",
        "digest"
    );
    for (label, scale) in [("mix", 1.0), ("×100", 100.0)] {
        for m in Mechanism::ALL {
            let e = episode(m, scale);
            println!(
                "{:<11} {:>7} {:>13} {:>8.1} {:>14} {:>7.3} {:>7.3} {:>11.0} {:>16}",
                format!("{m:?}"),
                label,
                e.opportunities,
                e.bids as f64 / e.opportunities as f64,
                e.agent_auctions,
                e.cpu,
                e.wall,
                e.opportunities as f64 / e.cpu,
                e.digest
            );
        }
    }
}
