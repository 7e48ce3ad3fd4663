//! Property tests of the slot auctions (GSP, first price, VCG), with
//! reserves, per click and per exposure.

use adfarm_adsbench::market::{Auction, AuctionRules, Bid, Mechanism, Placement, Pricing};
use proptest::prelude::*;

fn rules(mechanism: Mechanism, factors: &[f64], reserve: i64) -> AuctionRules {
    AuctionRules {
        mechanism,
        pricing: Pricing::PerClick,
        position_factors: factors.to_vec(),
        reserve_micros: reserve,
    }
}

fn run(mechanism: Mechanism, factors: &[f64], reserve: i64, bids: &[Bid]) -> Vec<Placement> {
    Auction::new(rules(mechanism, factors, reserve))
        .expect("valid rules")
        .run(bids)
        .to_vec()
}

fn run_per_exposure(
    mechanism: Mechanism,
    factors: &[f64],
    reserve: i64,
    bids: &[Bid],
) -> Vec<Placement> {
    let rules = AuctionRules {
        pricing: Pricing::PerExposure,
        ..rules(mechanism, factors, reserve)
    };
    Auction::new(rules).expect("valid rules").run(bids).to_vec()
}

/// Bidder `who`'s utility when it bids `amount` and values a click at
/// `value`: (value − price per click) × its expected clicks α_slot × q.
fn utility(
    factors: &[f64],
    reserve: i64,
    bids: &[Bid],
    who: usize,
    amount: i64,
    value: i64,
) -> f64 {
    let mut deviated = bids.to_vec();
    deviated[who].amount_micros = amount;
    let out = run(Mechanism::Vcg, factors, reserve, &deviated);
    out.iter()
        .find(|p| p.bidder == bids[who].bidder)
        .map_or(0.0, |p| {
            factors[p.slot as usize] * p.quality * (value - p.price_micros) as f64
        })
}

/// Non-increasing position factors in (0, 1], 1 to 5 slots.
fn factors() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(0.05f64..=1.0, 1..=5).prop_map(|mut f| {
        f.sort_by(|a, b| b.total_cmp(a));
        f
    })
}

fn bids(equal_quality: bool) -> impl Strategy<Value = Vec<Bid>> {
    prop::collection::vec((1i64..5_000_000, 0.01f64..1.0, any::<u32>()), 1..=48).prop_map(
        move |v| {
            v.into_iter()
                .enumerate()
                .map(|(i, (amount, q, tie))| Bid {
                    bidder: i as u32,
                    amount_micros: amount,
                    quality: if equal_quality { 1.0 } else { q },
                    tie_break: tie,
                })
                .collect()
        },
    )
}

/// 1 to 8 bidders with bids and reserves on one scale, so reserves bind
/// and every bidder's value is near a slot's threshold.
fn few_bids() -> impl Strategy<Value = Vec<Bid>> {
    prop::collection::vec((1i64..2_000_000, 0.05f64..1.0, any::<u32>()), 1..=8).prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (amount, q, tie))| Bid {
                bidder: i as u32,
                amount_micros: amount,
                quality: q,
                tie_break: tie,
            })
            .collect()
    })
}

fn slot_of(out: &[Placement], bidder: u32) -> usize {
    out.iter()
        .find(|p| p.bidder == bidder)
        .map_or(usize::MAX, |p| p.slot as usize)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn one_slot_vcg_is_the_second_price(bids in bids(false), reserve in 0i64..200_000) {
        let vcg = run(Mechanism::Vcg, &[1.0], reserve, &bids);
        let gsp = run(Mechanism::Gsp, &[1.0], reserve, &bids);
        prop_assert_eq!(&vcg, &gsp);
        // By hand, with equal quality: the highest other eligible bid.
        let flat: Vec<Bid> = bids.iter().map(|b| Bid { quality: 1.0, ..*b }).collect();
        let out = run(Mechanism::Vcg, &[1.0], reserve, &flat);
        let mut eligible: Vec<i64> = flat.iter().map(|b| b.amount_micros).filter(|&a| a >= reserve).collect();
        eligible.sort_unstable_by(|a, b| b.cmp(a));
        match eligible.as_slice() {
            [] => prop_assert!(out.is_empty()),
            [_] => prop_assert_eq!(out[0].price_micros, reserve),
            [_, second, ..] => prop_assert_eq!(out[0].price_micros, (*second).max(reserve)),
        }
    }

    #[test]
    fn prices_respect_bid_and_reserve(bids in bids(false), f in factors(), reserve in 0i64..200_000) {
        for m in Mechanism::ALL {
            for p in run(m, &f, reserve, &bids) {
                prop_assert!(p.price_micros >= reserve, "{m:?}: {p:?} under reserve {reserve}");
                prop_assert!(p.price_micros <= p.bid_micros, "{m:?}: {p:?} over its bid");
                if m == Mechanism::FirstPrice {
                    prop_assert_eq!(p.price_micros, p.bid_micros);
                }
            }
        }
    }

    #[test]
    fn gsp_charges_at_least_vcg_slot_by_slot(bids in bids(false), f in factors(), reserve in 0i64..200_000) {
        let gsp = run(Mechanism::Gsp, &f, reserve, &bids);
        let vcg = run(Mechanism::Vcg, &f, reserve, &bids);
        prop_assert_eq!(gsp.len(), vcg.len());
        for (g, v) in gsp.iter().zip(&vcg) {
            prop_assert_eq!(g.bidder, v.bidder, "same allocation");
            prop_assert!(g.price_micros >= v.price_micros, "slot {}: GSP {} < VCG {}", g.slot, g.price_micros, v.price_micros);
        }
    }

    #[test]
    fn vcg_payment_is_the_externality_sum(bids in bids(true), f in factors(), reserve in 0i64..2_000_000) {
        let out = run(Mechanism::Vcg, &f, reserve, &bids);
        // Only bids at or over the reserve enter.
        let mut sorted: Vec<i64> = bids.iter().map(|b| b.amount_micros).filter(|&a| a >= reserve).collect();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        prop_assert_eq!(out.len(), sorted.len().min(f.len()));
        let b = |j: usize| sorted.get(j).copied().unwrap_or(0) as f64;
        let alpha = |j: usize| f.get(j).copied().unwrap_or(0.0);
        let r = reserve as f64;
        for p in &out {
            let k = p.slot as usize;
            // The reserve floors each term: it is the least bid that keeps
            // slot j once the entry below would move up.
            let want: f64 = (k..f.len()).map(|j| (alpha(j) - alpha(j + 1)) * b(j + 1).max(r)).sum();
            // Per impression: price per click × the slot's click share α_k;
            // prices are whole micros, so allow half a micro of rounding.
            let got = alpha(k) * p.price_micros as f64;
            prop_assert!((got - want).abs() <= 0.5 * alpha(k) + 1e-6, "slot {k}: {got} vs {want}");
        }
    }

    #[test]
    fn truthful_bidding_is_a_best_response_under_vcg_with_a_reserve(
        bids in few_bids(),
        f in factors(),
        reserve in 0i64..1_500_000,
        steps in prop::collection::vec(0.0f64..3.0, 8),
    ) {
        // Everyone bids its value per click; no bidder does better with
        // any other bid: a grid of multiples of its value, the reserve's
        // edges, and each rival's score edges at its own quality.
        for (who, b) in bids.iter().enumerate() {
            let value = b.amount_micros;
            let truthful = utility(&f, reserve, &bids, who, value, value);
            let mut grid: Vec<i64> = [0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 1.01, 1.1, 1.5, 2.0, 4.0]
                .iter()
                .chain(&steps)
                .map(|m| (value as f64 * m) as i64)
                .collect();
            grid.extend([reserve - 1, reserve, reserve + 1]);
            for other in bids.iter().filter(|o| o.bidder != b.bidder) {
                let edge = (other.amount_micros as f64 * other.quality / b.quality) as i64;
                grid.extend([edge - 1, edge, edge + 1, edge + 2]);
            }
            for amount in grid.into_iter().filter(|&a| a > 0 && a != value) {
                let deviated = utility(&f, reserve, &bids, who, amount, value);
                // Whole-micro prices: half a micro per expected click, on
                // either side.
                let slack = 1.0 + 1e-9 * value as f64;
                prop_assert!(
                    deviated <= truthful + slack,
                    "bidder {who} (value {value}, q {}) gains by bidding {amount}: {deviated} > {truthful}",
                    b.quality
                );
            }
        }
    }

    #[test]
    fn a_higher_bid_never_gets_a_lower_slot(
        bids in bids(false),
        f in factors(),
        who in any::<prop::sample::Index>(),
        raise in 1i64..3_000_000,
        reserve in 0i64..2_000_000,
    ) {
        let i = who.index(bids.len());
        let bidder = bids[i].bidder;
        for m in Mechanism::ALL {
            let before = slot_of(&run(m, &f, reserve, &bids), bidder);
            let mut higher = bids.clone();
            higher[i].amount_micros += raise;
            let after = slot_of(&run(m, &f, reserve, &higher), bidder);
            prop_assert!(after <= before, "{m:?}: slot {before} → {after} after raising the bid");
        }
    }

    #[test]
    fn slots_go_to_the_highest_scores(bids in bids(false), f in factors(), reserve in 0i64..2_000_000) {
        let out = run(Mechanism::Gsp, &f, reserve, &bids);
        let eligible: Vec<&Bid> = bids.iter().filter(|b| b.amount_micros >= reserve).collect();
        prop_assert_eq!(out.len(), eligible.len().min(f.len()));
        let score = |p: &Placement| p.bid_micros as f64 * p.quality;
        for w in out.windows(2) {
            prop_assert!(score(&w[0]) >= score(&w[1]));
        }
        if let Some(last) = out.last() {
            let placed: Vec<u32> = out.iter().map(|p| p.bidder).collect();
            for b in eligible.iter().filter(|b| !placed.contains(&b.bidder)) {
                prop_assert!(b.amount_micros as f64 * b.quality <= score(last));
            }
        }
    }

    #[test]
    fn quality_does_not_enter_a_per_exposure_auction(
        bids in bids(false),
        f in factors(),
        reserve in 0i64..2_000_000,
    ) {
        // A per-exposure bid already is value × pCTR: the auction ranks and
        // prices it as if every ad had quality 1, and only reports the pCTR.
        let flat: Vec<Bid> = bids.iter().map(|b| Bid { quality: 1.0, ..*b }).collect();
        for m in Mechanism::ALL {
            let got = run_per_exposure(m, &f, reserve, &bids);
            let want = run_per_exposure(m, &f, reserve, &flat);
            let strip = |out: &[Placement]| -> Vec<(u32, u8, i64)> {
                out.iter().map(|p| (p.bidder, p.slot, p.price_micros)).collect()
            };
            prop_assert_eq!(strip(&got), strip(&want), "{:?}", m);
            for w in got.windows(2) {
                prop_assert!(w[0].bid_micros >= w[1].bid_micros, "{m:?}: ranked by bid");
            }
            for p in &got {
                let b = bids.iter().find(|b| b.bidder == p.bidder).expect("a bidder");
                prop_assert_eq!(p.quality, b.quality, "{:?}: the ad's pCTR", m);
            }
        }
    }
}
