//! One auction: rank by bid × quality, fill K slots, price each slot by the
//! mechanism. Allocation-free: a partial top-(K+1) selection into a fixed
//! array, so one `Auction` value can run millions of auctions.

use serde::{Deserialize, Serialize};

use super::error::MarketError;

/// Most slots an auction may have (the fixed selection buffer's size).
pub const MAX_SLOTS: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Mechanism {
    /// Generalised second price: next rank score over own quality.
    Gsp,
    FirstPrice,
    /// Vickrey–Clarke–Groves for position auctions.
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
    /// Positive: the ad's top-slot pCTR (a click in slot k is about
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
    pub quality: f64,
    /// Charged per unit of `Pricing` (per click or per exposure).
    pub price_micros: i64,
}

#[derive(Debug, Clone, Copy)]
struct Ranked {
    score: f64,
    tie_break: u32,
    bidder: u32,
    amount: i64,
    quality: f64,
}

impl Ranked {
    const EMPTY: Ranked = Ranked {
        score: 0.0,
        tie_break: 0,
        bidder: 0,
        amount: 0,
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
        let mut n = 0usize;
        // Score of the entry a newcomer must beat once the buffer is full.
        let mut floor = f64::NEG_INFINITY;
        for b in bids {
            if b.amount_micros < min_amount || b.quality.is_nan() || b.quality <= 0.0 {
                continue;
            }
            let score = b.amount_micros as f64 * b.quality;
            // Most bids lose to the current K+1: reject them on one compare.
            if score < floor {
                continue;
            }
            let cand = Ranked {
                score,
                tie_break: b.tie_break,
                bidder: b.bidder,
                amount: b.amount_micros,
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
        let next_score = |j: usize| if j < n { self.top[j].score } else { 0.0 };
        let raw = match self.rules.mechanism {
            Mechanism::FirstPrice => return w.amount,
            Mechanism::Gsp => next_score(slot + 1) / w.quality,
            Mechanism::Vcg => {
                // Externality imposed on everyone below: each lower entrant
                // would move up one slot. Weights are (α_j − α_{j+1}) / α_k;
                // the last is α_{K-1}/α_{K-1} = 1 exactly, so one slot gives
                // the second price bit for bit.
                let k = self.rules.slots();
                let ak = self.alpha[slot];
                let mut sum = 0.0;
                for j in slot..k {
                    let wj = if j + 1 == k {
                        self.alpha[j] / ak
                    } else {
                        (self.alpha[j] - self.alpha[j + 1]) / ak
                    };
                    sum += wj * next_score(j + 1);
                }
                // VCG ≤ GSP holds exactly; min only absorbs rounding noise.
                (sum / w.quality).min(next_score(slot + 1) / w.quality)
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
