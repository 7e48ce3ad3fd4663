//! Property tests of the slot auctions (GSP, first price, VCG).

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
    fn vcg_payment_is_the_externality_sum(bids in bids(true), f in factors()) {
        let out = run(Mechanism::Vcg, &f, 0, &bids);
        let mut sorted: Vec<i64> = bids.iter().map(|b| b.amount_micros).collect();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let b = |j: usize| sorted.get(j).copied().unwrap_or(0) as f64;
        let alpha = |j: usize| f.get(j).copied().unwrap_or(0.0);
        for p in &out {
            let k = p.slot as usize;
            let want: f64 = (k..f.len()).map(|j| (alpha(j) - alpha(j + 1)) * b(j + 1)).sum();
            // Per impression: price per click × the slot's click share α_k;
            // prices are whole micros, so allow half a micro of rounding.
            let got = alpha(k) * p.price_micros as f64;
            prop_assert!((got - want).abs() <= 0.5 * alpha(k) + 1e-6, "slot {k}: {got} vs {want}");
        }
    }

    #[test]
    fn a_higher_bid_never_gets_a_lower_slot(
        bids in bids(false),
        f in factors(),
        who in any::<prop::sample::Index>(),
        raise in 1i64..3_000_000,
    ) {
        let i = who.index(bids.len());
        let bidder = bids[i].bidder;
        for m in Mechanism::ALL {
            let before = slot_of(&run(m, &f, 0, &bids), bidder);
            let mut higher = bids.clone();
            higher[i].amount_micros += raise;
            let after = slot_of(&run(m, &f, 0, &higher), bidder);
            prop_assert!(after <= before, "{m:?}: slot {before} → {after} after raising the bid");
        }
    }

    #[test]
    fn slots_go_to_the_highest_scores(bids in bids(false), f in factors()) {
        let out = run(Mechanism::Gsp, &f, 0, &bids);
        prop_assert_eq!(out.len(), bids.len().min(f.len()));
        let score = |p: &Placement| p.bid_micros as f64 * p.quality;
        for w in out.windows(2) {
            prop_assert!(score(&w[0]) >= score(&w[1]));
        }
        if let Some(last) = out.last() {
            let placed: Vec<u32> = out.iter().map(|p| p.bidder).collect();
            for b in bids.iter().filter(|b| !placed.contains(&b.bidder)) {
                prop_assert!(b.amount_micros as f64 * b.quality <= score(last));
            }
        }
    }
}
