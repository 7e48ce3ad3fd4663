//! One auction: rank by score (bid × quality per click; the bid itself per
//! exposure, where it already is value × pCTR), fill K slots, price each
//! slot by the mechanism. Allocation-free: a partial top-(K+1) selection
//! into a fixed array, so one `Auction` value can run millions of auctions.

use serde::{Deserialize, Serialize};

use super::error::MarketError;

/// Most slots an auction may have (the fixed selection buffer's size).
pub const MAX_SLOTS: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Mechanism {
    /// Generalised second price: the next rank score over own rank
    /// weight, at least the reserve.
    Gsp,
    FirstPrice,
    /// Vickrey–Clarke–Groves for position auctions, the reserve inside
    /// each externality term: per click, bidding one's value is a best
    /// response.
    Vcg,
}

impl Mechanism {
    pub const ALL: [Mechanism; 3] = [Mechanism::Gsp, Mechanism::FirstPrice, Mechanism::Vcg];
}

/// What a price is charged for; bids are in the same unit. Under
/// `PerExposure` the agent's per-click bids enter as bid × pCTR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Pricing {
    PerClick,
    PerExposure,
}

impl Pricing {
    /// What a bid is multiplied by to rank: its ad's `quality` per click,
    /// so bids compare as value per exposure; 1 per exposure, where the
    /// bid already is value × pCTR and a second factor would count the
    /// click rate twice.
    #[inline]
    pub fn rank_weight(self, quality: f64) -> f64 {
        match self {
            Pricing::PerClick => quality,
            Pricing::PerExposure => 1.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuctionRules {
    pub mechanism: Mechanism,
    pub pricing: Pricing,
    /// Examination probability of each slot, non-increasing, in (0, 1].
    pub position_factors: Vec<f64>,
    /// No bid below this enters; no price falls below it.
    pub reserve_micros: i64,
}

impl Default for AuctionRules {
    fn default() -> Self {
        AuctionRules {
            mechanism: Mechanism::Gsp,
            pricing: Pricing::PerClick,
            position_factors: vec![1.0, 0.8, 0.6],
            reserve_micros: 10_000,
        }
    }
}

impl AuctionRules {
    pub fn validate(&self) -> Result<(), MarketError> {
        let f = &self.position_factors;
        if f.is_empty() || f.len() > MAX_SLOTS {
            return Err(MarketError::invalid(
                "auction.position_factors",
                format!("need 1..={MAX_SLOTS} slots, got {}", f.len()),
            ));
        }
        if f.iter().any(|a| !(a.is_finite() && *a > 0.0 && *a <= 1.0)) {
            return Err(MarketError::invalid(
                "auction.position_factors",
                "each must be in (0, 1]",
            ));
        }
        if f.windows(2).any(|w| w[1] > w[0]) {
            return Err(MarketError::invalid(
                "auction.position_factors",
                "must be non-increasing",
            ));
        }
        if self.reserve_micros < 0 {
            return Err(MarketError::invalid(
                "auction.reserve_micros",
                "must be >= 0",
            ));
        }
        Ok(())
    }

    pub fn slots(&self) -> usize {
        self.position_factors.len()
    }
}

/// One bidder's entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bid {
    pub bidder: u32,
    pub amount_micros: i64,
    /// Positive: the ad's top-slot pCTR (a click in slot k has probability
    /// `position_factor[k] × quality`).
    pub quality: f64,
    /// Breaks exact score ties (higher wins), drawn per auction so no
    /// bidder wins every tie by its index.
    pub tie_break: u32,
}

/// A filled slot (slot 0 is the top).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub bidder: u32,
    pub slot: u8,
    pub bid_micros: i64,
    /// The ad's pCTR as bid, whether or not it entered the score.
    pub quality: f64,
    /// Charged per unit of `Pricing` (per click or per exposure).
    pub price_micros: i64,
}

#[derive(Debug, Clone, Copy)]
struct Ranked {
    /// amount × weight.
    score: f64,
    tie_break: u32,
    bidder: u32,
    amount: i64,
    /// `Pricing::rank_weight` of the quality: prices divide scores by it.
    weight: f64,
    quality: f64,
}

impl Ranked {
    const EMPTY: Ranked = Ranked {
        score: 0.0,
        tie_break: 0,
        bidder: 0,
        amount: 0,
        weight: 1.0,
        quality: 1.0,
    };

    #[inline]
    fn beats(&self, other: &Ranked) -> bool {
        if self.score != other.score {
            return self.score > other.score;
        }
        if self.tie_break != other.tie_break {
            return self.tie_break > other.tie_break;
        }
        self.bidder < other.bidder
    }
}

/// A reusable auctioneer for one set of rules.
#[derive(Debug, Clone)]
pub struct Auction {
    rules: AuctionRules,
    alpha: [f64; MAX_SLOTS + 1],
    top: [Ranked; MAX_SLOTS + 1],
    placements: [Placement; MAX_SLOTS],
}

impl Auction {
    pub fn new(rules: AuctionRules) -> Result<Auction, MarketError> {
        rules.validate()?;
        let mut alpha = [0.0; MAX_SLOTS + 1];
        alpha[..rules.slots()].copy_from_slice(&rules.position_factors);
        let empty = Placement {
            bidder: 0,
            slot: 0,
            bid_micros: 0,
            quality: 0.0,
            price_micros: 0,
        };
        Ok(Auction {
            rules,
            alpha,
            top: [Ranked::EMPTY; MAX_SLOTS + 1],
            placements: [empty; MAX_SLOTS],
        })
    }

    pub fn rules(&self) -> &AuctionRules {
        &self.rules
    }

    /// Runs one auction; the slice is ordered by slot. Bids under the
    /// reserve or with non-positive quality do not enter.
    pub fn run(&mut self, bids: &[Bid]) -> &[Placement] {
        let k = self.rules.slots();
        let keep = k + 1;
        let min_amount = self.rules.reserve_micros.max(1);
        let pricing = self.rules.pricing;
        let mut n = 0usize;
        // Score of the entry a newcomer must beat once the buffer is full.
        let mut floor = f64::NEG_INFINITY;
        for b in bids {
            if b.amount_micros < min_amount || b.quality.is_nan() || b.quality <= 0.0 {
                continue;
            }
            let weight = pricing.rank_weight(b.quality);
            let score = b.amount_micros as f64 * weight;
            // Most bids lose to the current K+1: reject them on one compare.
            if score < floor {
                continue;
            }
            let cand = Ranked {
                score,
                tie_break: b.tie_break,
                bidder: b.bidder,
                amount: b.amount_micros,
                weight,
                quality: b.quality,
            };
            if n == keep && !cand.beats(&self.top[n - 1]) {
                continue;
            }
            // Insertion into the sorted prefix: K+1 is tiny, so this beats a heap.
            let mut i = if n < keep { n } else { n - 1 };
            while i > 0 && cand.beats(&self.top[i - 1]) {
                self.top[i] = self.top[i - 1];
                i -= 1;
            }
            self.top[i] = cand;
            if n < keep {
                n += 1;
            }
            if n == keep {
                floor = self.top[n - 1].score;
            }
        }
        let winners = n.min(k);
        for s in 0..winners {
            let price = self.price(s, n);
            let w = &self.top[s];
            self.placements[s] = Placement {
                bidder: w.bidder,
                slot: s as u8,
                bid_micros: w.amount,
                quality: w.quality,
                price_micros: price,
            };
        }
        &self.placements[..winners]
    }

    /// Price per unit for the winner of `slot`, given `n` ranked entries.
    #[inline]
    fn price(&self, slot: usize, n: usize) -> i64 {
        let w = &self.top[slot];
        let reserve = self.rules.reserve_micros as f64;
        // The least bid that ranks the winner above entry `j` and enters:
        // the reserve binds wherever the entry's score is below it.
        let threshold = |j: usize| {
            let score = if j < n { self.top[j].score } else { 0.0 };
            (score / w.weight).max(reserve)
        };
        let raw = match self.rules.mechanism {
            Mechanism::FirstPrice => return w.amount,
            Mechanism::Gsp => threshold(slot + 1),
            Mechanism::Vcg => {
                // Externality imposed on everyone below: each lower entrant
                // would move up one slot, and the winner keeps slot j or
                // better only while it bids at least threshold(j + 1), so
                // the reserve floors each term, not the sum. Weights are
                // (α_j − α_{j+1}) / α_k; the last is α_{K-1}/α_{K-1} = 1
                // exactly, so one slot gives the second price bit for bit.
                let k = self.rules.slots();
                let ak = self.alpha[slot];
                let mut sum = 0.0;
                for j in slot..k {
                    let wj = if j + 1 == k {
                        self.alpha[j] / ak
                    } else {
                        (self.alpha[j] - self.alpha[j + 1]) / ak
                    };
                    sum += wj * threshold(j + 1);
                }
                // VCG ≤ GSP holds exactly; min only absorbs rounding noise.
                sum.min(threshold(slot + 1))
            }
        };
        (raw.round() as i64)
            .max(self.rules.reserve_micros)
            .min(w.amount)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bid(bidder: u32, amount: i64) -> Bid {
        Bid {
            bidder,
            amount_micros: amount,
            quality: 1.0,
            tie_break: 0,
        }
    }

    fn rules(m: Mechanism) -> AuctionRules {
        AuctionRules {
            mechanism: m,
            reserve_micros: 0,
            ..AuctionRules::default()
        }
    }

    #[test]
    fn worked_example_matches_hand_computation() {
        let bids = [
            bid(0, 100),
            bid(1, 400),
            bid(2, 300),
            bid(3, 200),
            bid(4, 50),
        ];
        let mut gsp = Auction::new(rules(Mechanism::Gsp)).unwrap();
        let p: Vec<(u32, i64)> = gsp
            .run(&bids)
            .iter()
            .map(|p| (p.bidder, p.price_micros))
            .collect();
        assert_eq!(p, vec![(1, 300), (2, 200), (3, 100)]);
        // VCG, α = (1, .8, .6): per-impression payments
        // slot2: .6·100 = 60; slot1: .2·200 + .6·100 = 100; slot0: .2·300 + .2·200 + .6·100 = 160;
        // per unit: 160/1, 100/.8, 60/.6.
        let mut vcg = Auction::new(rules(Mechanism::Vcg)).unwrap();
        let p: Vec<i64> = vcg.run(&bids).iter().map(|p| p.price_micros).collect();
        assert_eq!(p, vec![160, 125, 100]);
        let mut fp = Auction::new(rules(Mechanism::FirstPrice)).unwrap();
        let p: Vec<i64> = fp.run(&bids).iter().map(|p| p.price_micros).collect();
        assert_eq!(p, vec![400, 300, 200]);
    }

    #[test]
    fn quality_reorders_and_reserve_filters() {
        let bids = [
            Bid {
                bidder: 0,
                amount_micros: 100,
                quality: 0.5,
                tie_break: 0,
            },
            Bid {
                bidder: 1,
                amount_micros: 80,
                quality: 1.0,
                tie_break: 0,
            },
            Bid {
                bidder: 2,
                amount_micros: 5,
                quality: 1.0,
                tie_break: 0,
            },
        ];
        let mut a = Auction::new(AuctionRules {
            reserve_micros: 10,
            ..rules(Mechanism::Gsp)
        })
        .unwrap();
        let out = a.run(&bids);
        assert_eq!(out.len(), 2, "the bid under the reserve does not enter");
        assert_eq!((out[0].bidder, out[0].price_micros), (1, 50));
        assert_eq!(
            (out[1].bidder, out[1].price_micros),
            (0, 10),
            "last slot pays the reserve"
        );
    }

    fn reserve_rules(m: Mechanism, factors: &[f64], reserve: i64) -> AuctionRules {
        AuctionRules {
            mechanism: m,
            pricing: Pricing::PerClick,
            position_factors: factors.to_vec(),
            reserve_micros: reserve,
        }
    }

    #[test]
    fn vcg_applies_the_reserve_inside_each_externality_term() {
        // α = (1, .5), reserve 100, bids 300 and 250 at quality 1. Slot 0
        // per impression: (1 − .5)·max(100, 250) + (.5 − 0)·max(100, 0) = 175;
        // slot 1: .5·max(100, 0) = 50, i.e. 100 per click at α = .5.
        let mut vcg = Auction::new(reserve_rules(Mechanism::Vcg, &[1.0, 0.5], 100)).unwrap();
        let p: Vec<(u32, i64)> = vcg
            .run(&[bid(0, 300), bid(1, 250)])
            .iter()
            .map(|p| (p.bidder, p.price_micros))
            .collect();
        assert_eq!(p, vec![(0, 175), (1, 100)]);
        // Lower quality raises the per-click threshold of the bidder
        // below, but the reserve stays a floor on each term.
        let low = Bid {
            quality: 0.5,
            ..bid(1, 250)
        };
        let p: Vec<i64> = vcg
            .run(&[bid(0, 300), low])
            .iter()
            .map(|p| p.price_micros)
            .collect();
        // Slot 0: .5·max(100, 125) + .5·max(100, 0) = 112.5 → 113.
        assert_eq!(p, vec![113, 100]);
    }

    #[test]
    fn overbidding_for_a_higher_slot_does_not_pay_under_vcg_with_a_reserve() {
        let mut vcg = Auction::new(reserve_rules(Mechanism::Vcg, &[1.0, 0.5], 100)).unwrap();
        // Bidder 1 values a click at 250; quality 1, so clicks = α.
        let utility = |vcg: &mut Auction, amount: i64| {
            let out = vcg.run(&[bid(0, 300), bid(1, amount)]);
            let p = out.iter().find(|p| p.bidder == 1).expect("placed");
            let alpha = [1.0, 0.5][p.slot as usize];
            alpha * (250 - p.price_micros) as f64
        };
        let truthful = utility(&mut vcg, 250);
        assert_eq!(truthful, 75.0, "slot 1 at the reserve: .5 × (250 − 100)");
        let over = utility(&mut vcg, 301);
        assert!(over <= truthful, "overbidding gains: {over} > {truthful}");
    }

    #[test]
    fn per_exposure_bids_rank_without_a_second_quality_factor() {
        // Per exposure a bid already is value × pCTR: 100 beats 90 whatever
        // the qualities (ranked by bid × quality, 90 × .5 would win).
        let bids = [
            Bid {
                bidder: 0,
                amount_micros: 100,
                quality: 0.1,
                tie_break: 0,
            },
            Bid {
                bidder: 1,
                amount_micros: 90,
                quality: 0.5,
                tie_break: 0,
            },
        ];
        for (m, prices) in [
            (Mechanism::Gsp, [90, 0]),
            (Mechanism::FirstPrice, [100, 90]),
            // α = (1, .8, .6): slot 0 pays (1 − .8)·90 = 18 per exposure.
            (Mechanism::Vcg, [18, 0]),
        ] {
            let mut a = Auction::new(AuctionRules {
                pricing: Pricing::PerExposure,
                ..rules(m)
            })
            .unwrap();
            let out = a.run(&bids);
            let got: Vec<(u32, i64)> = out.iter().map(|p| (p.bidder, p.price_micros)).collect();
            assert_eq!(got, vec![(0, prices[0]), (1, prices[1])], "{m:?}");
            assert_eq!(
                (out[0].quality, out[1].quality),
                (0.1, 0.5),
                "placements carry the ads' pCTR for click draws"
            );
        }
    }

    #[test]
    fn bad_rules_name_the_field() {
        let bad = AuctionRules {
            position_factors: vec![0.5, 0.9],
            ..AuctionRules::default()
        };
        assert!(Auction::new(bad)
            .unwrap_err()
            .to_string()
            .contains("auction.position_factors"));
        let bad = AuctionRules {
            reserve_micros: -1,
            ..AuctionRules::default()
        };
        assert!(Auction::new(bad)
            .unwrap_err()
            .to_string()
            .contains("auction.reserve_micros"));
    }
}
