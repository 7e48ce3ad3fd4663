//! Competing bidders (up to 47): fixed bid, truthful, AuctionNet's pacer,
//! PID pacing, budget-constrained, and a drainer that bids up the agent's
//! keywords. Each keeps its own daily budget and per-tick control state.

use serde::{Deserialize, Serialize};

use super::auction::Pricing;
use super::error::MarketError;
use super::response::quality_factored;
use super::rng::{purpose, Stream};
use super::vocabulary::Vertical;

/// Most competitors a market holds (48 bidders with the agent).
pub const MAX_COMPETITORS: usize = 47;

/// AuctionNet's pacer: initial α, and its two multiplicative steps.
pub const PACER_ALPHA0: f64 = 15.0;
const PACER_UP: f64 = 1.2;
const PACER_DOWN: f64 = 0.7;
const PACER_LOW: f64 = 0.7;
const PACER_HIGH: f64 = 1.1;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Strategy {
    /// The same bid on every opportunity.
    FixedBid { bid_micros: i64 },
    /// Bids its expected value: per click, or value × pCTR per exposure.
    Truthful,
    /// AuctionNet's baseline: bid = α × pCVR (α in currency per conversion),
    /// α × 1.2 when spend is under 0.7 of plan, × 0.7 when over 1.1.
    Pacer,
    /// Multiplier on its value steered by a PID loop on spend vs plan.
    Pid { kp: f64, ki: f64, kd: f64 },
    /// Shaded value with no pacing: runs until the budget is gone.
    BudgetConstrained { shade: f64 },
    /// Bids just under the agent on the agent's keywords, pushing the
    /// agent's second prices up to its own bid.
    Drainer { undercut: f64 },
}

/// A competitor's fixed description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompetitorSpec {
    pub strategy: Strategy,
    pub daily_budget_micros: i64,
    /// Click-logit shift of its ads, per vertical.
    pub ad_bias: [f64; 6],
    /// Its value of a conversion relative to the vertical's mean, per vertical.
    pub value_scale: [f64; 6],
    /// Day of the episode it starts bidding (0 = from the start).
    pub enters_on_day: u32,
}

impl CompetitorSpec {
    pub fn validate(&self, i: usize) -> Result<(), MarketError> {
        let field = |f: &str| format!("competitors[{i}].{f}");
        if self.daily_budget_micros <= 0 {
            return Err(MarketError::invalid(
                field("daily_budget_micros"),
                "must be > 0",
            ));
        }
        if self.ad_bias.iter().any(|b| !b.is_finite() || b.abs() > 5.0) {
            return Err(MarketError::invalid(
                field("ad_bias"),
                "each must be finite, |x| <= 5",
            ));
        }
        if self.value_scale.iter().any(|v| !v.is_finite() || *v < 0.0) {
            return Err(MarketError::invalid(
                field("value_scale"),
                "each must be finite and >= 0",
            ));
        }
        match self.strategy {
            Strategy::FixedBid { bid_micros } if bid_micros <= 0 => Err(MarketError::invalid(
                field("strategy.bid_micros"),
                "must be > 0",
            )),
            Strategy::BudgetConstrained { shade } if !(shade > 0.0 && shade <= 1.0) => Err(
                MarketError::invalid(field("strategy.shade"), "must be in (0, 1]"),
            ),
            Strategy::Drainer { undercut } if !(undercut > 0.0 && undercut < 1.0) => Err(
                MarketError::invalid(field("strategy.undercut"), "must be in (0, 1)"),
            ),
            Strategy::Pid { kp, ki, kd }
                if ![kp, ki, kd].iter().all(|g| g.is_finite() && *g >= 0.0) =>
            {
                Err(MarketError::invalid(
                    field("strategy"),
                    "PID gains must be finite and >= 0",
                ))
            }
            _ => Ok(()),
        }
    }

    /// A seeded mix of `count` competitors, the last `drainers` of them
    /// drainers, the rest cycling through the other five strategies. Each
    /// has a home vertical where its ads are more relevant and it values
    /// conversions more. Budgets scale with the market's daily traffic.
    pub fn standard_mix(
        seed: u64,
        count: usize,
        drainers: usize,
        opportunities_per_day: f64,
    ) -> Vec<CompetitorSpec> {
        let drainers = drainers.min(count);
        (0..count)
            .map(|i| {
                let mut s = Stream::at(&[seed, purpose::COMPETITOR, i as u64]);
                let home = s.below(6) as usize;
                let mut ad_bias = [0.0; 6];
                let mut value_scale = [0.0; 6];
                for v in 0..6 {
                    let (bias, scale) = if v == home { (0.3, 1.2) } else { (-0.3, 0.6) };
                    ad_bias[v] = bias + 0.2 * s.normal();
                    value_scale[v] = scale * s.lognormal(0.0, 0.25);
                }
                let strategy = if i >= count - drainers {
                    Strategy::Drainer { undercut: 0.97 }
                } else {
                    match i % 5 {
                        0 => Strategy::Truthful,
                        1 => Strategy::Pacer,
                        2 => Strategy::Pid {
                            kp: 2.0,
                            ki: 0.3,
                            kd: 0.5,
                        },
                        3 => Strategy::BudgetConstrained { shade: 0.8 },
                        _ => Strategy::FixedBid {
                            bid_micros: 300_000 + i64::from(s.below(1_200_000)),
                        },
                    }
                };
                // About 0.004 currency a day per daily opportunity, spread ×/÷ 1.6.
                let budget = opportunities_per_day * 4_000.0 * s.lognormal(0.0, 0.5);
                // A quarter of them enter during the first week.
                let enters_on_day = if s.below(4) == 0 { 1 + s.below(7) } else { 0 };
                CompetitorSpec {
                    strategy,
                    daily_budget_micros: (budget as i64).max(1_000_000),
                    ad_bias,
                    value_scale,
                    enters_on_day,
                }
            })
            .collect()
    }
}

/// What a competitor sees of one opportunity.
#[derive(Debug, Clone, Copy)]
pub struct BidContext {
    pub pricing: Pricing,
    pub vertical: Vertical,
    /// The competitor's own ad quality (pCTR without position).
    pub quality: f64,
    /// Predicted conversion rate of a click.
    pub pcvr: f64,
    /// Mean conversion value of the vertical, micros.
    pub mean_value_micros: f64,
    /// The agent's rank score when it entered (bid × quality per click,
    /// the bid per exposure: see `Pricing::rank_weight`).
    pub agent_score: Option<f64>,
    /// The agent's best matching keyword bid, even when it did not enter.
    pub agent_keyword_bid: Option<i64>,
}

/// A competitor with its running state.
#[derive(Debug, Clone)]
pub struct Competitor {
    pub spec: CompetitorSpec,
    /// exp(−ad_bias) per vertical, for `quality_factored`.
    exp_neg_bias: [f64; 6],
    day_spend_micros: i64,
    alpha: f64,
    multiplier: f64,
    integral: f64,
    last_error: f64,
}

impl Competitor {
    pub fn new(spec: CompetitorSpec) -> Competitor {
        Competitor {
            exp_neg_bias: spec.ad_bias.map(|b| (-b).exp()),
            spec,
            day_spend_micros: 0,
            alpha: PACER_ALPHA0,
            multiplier: 1.0,
            integral: 0.0,
            last_error: 0.0,
        }
    }

    /// Its ad's quality (pCTR without position) for a user whose click
    /// logit `l` gives `exp_neg_logit` = e^-l.
    #[inline]
    pub fn quality(&self, exp_neg_logit: f64, v: Vertical) -> f64 {
        quality_factored(exp_neg_logit, self.exp_neg_bias[v.index()])
    }

    pub fn active_on(&self, day: u32) -> bool {
        day >= self.spec.enters_on_day
    }

    pub fn start_day(&mut self) {
        self.day_spend_micros = 0;
        self.integral = 0.0;
        self.last_error = 0.0;
    }

    /// Per-tick control: `share_before` of the day's traffic is past.
    pub fn pace(&mut self, share_before: f64) {
        let planned = self.spec.daily_budget_micros as f64 * share_before;
        if planned <= 0.0 {
            return;
        }
        let spent = self.day_spend_micros as f64;
        match self.spec.strategy {
            Strategy::Pacer => {
                if spent < PACER_LOW * planned {
                    self.alpha *= PACER_UP;
                } else if spent > PACER_HIGH * planned {
                    self.alpha *= PACER_DOWN;
                }
                self.alpha = self.alpha.clamp(0.01, 100_000.0);
            }
            Strategy::Pid { kp, ki, kd } => {
                let e = (planned - spent) / self.spec.daily_budget_micros as f64;
                self.integral += e;
                let u = kp * e + ki * self.integral + kd * (e - self.last_error);
                self.last_error = e;
                self.multiplier = u.clamp(-3.0, 1.6).exp();
            }
            _ => {}
        }
    }

    /// The bid in micros (per pricing unit), or `None` to stay out.
    #[inline]
    pub fn bid(&self, ctx: &BidContext) -> Option<i64> {
        let v = ctx.vertical.index();
        let per_click_value = ctx.pcvr * ctx.mean_value_micros * self.spec.value_scale[v];
        let unit = |per_click: f64| match ctx.pricing {
            Pricing::PerClick => per_click,
            Pricing::PerExposure => per_click * ctx.quality,
        };
        let raw = match self.spec.strategy {
            Strategy::FixedBid { bid_micros } => bid_micros as f64,
            Strategy::Truthful => unit(per_click_value),
            Strategy::Pacer => unit(self.alpha * ctx.pcvr * 1e6),
            Strategy::Pid { .. } => unit(per_click_value * self.multiplier),
            Strategy::BudgetConstrained { shade } => unit(per_click_value * shade),
            Strategy::Drainer { undercut } => match (ctx.agent_score, ctx.agent_keyword_bid) {
                (Some(score), _) => undercut * score / ctx.pricing.rank_weight(ctx.quality),
                (None, Some(b)) => undercut * b as f64,
                (None, None) => return None,
            },
        };
        // Every strategy's raw bid is ≥ 0: add ½ and truncate to round
        // without a libm call (this runs ~50 times per opportunity).
        let bid = (raw + 0.5) as i64;
        (bid > 0 && self.day_spend_micros + bid <= self.spec.daily_budget_micros).then_some(bid)
    }

    pub fn charge(&mut self, micros: i64) {
        self.day_spend_micros += micros;
    }

    pub fn day_spend_micros(&self) -> i64 {
        self.day_spend_micros
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> BidContext {
        BidContext {
            pricing: Pricing::PerClick,
            vertical: Vertical::Retail,
            quality: 0.05,
            pcvr: 0.03,
            mean_value_micros: 60_000_000.0,
            agent_score: None,
            agent_keyword_bid: None,
        }
    }

    fn spec(strategy: Strategy) -> CompetitorSpec {
        CompetitorSpec {
            strategy,
            daily_budget_micros: 100_000_000,
            ad_bias: [0.0; 6],
            value_scale: [1.0; 6],
            enters_on_day: 0,
        }
    }

    #[test]
    fn pacer_follows_auctionnet_steps() {
        let mut c = Competitor::new(spec(Strategy::Pacer));
        assert_eq!(c.bid(&ctx()), Some(450_000), "α0 = 15 × pCVR 0.03");
        c.pace(0.5); // nothing spent: under 0.7 of plan
        assert!((c.alpha() - 18.0).abs() < 1e-9);
        c.charge(40_000_000); // 40 vs plan 50: inside [35, 55]
        c.pace(0.5);
        assert!((c.alpha() - 18.0).abs() < 1e-9);
        c.charge(30_000_000); // 70 > 1.1 × 50
        c.pace(0.5);
        assert!((c.alpha() - 12.6).abs() < 1e-9);
    }

    #[test]
    fn truthful_bids_value_and_budget_stops_bidding() {
        let mut c = Competitor::new(spec(Strategy::Truthful));
        assert_eq!(c.bid(&ctx()), Some(1_800_000));
        let cpm = BidContext {
            pricing: Pricing::PerExposure,
            ..ctx()
        };
        assert_eq!(c.bid(&cpm), Some(90_000));
        c.charge(99_000_000);
        assert_eq!(c.bid(&ctx()), None);
    }

    #[test]
    fn drainer_undercuts_the_agent() {
        let c = Competitor::new(spec(Strategy::Drainer { undercut: 0.9 }));
        assert_eq!(c.bid(&ctx()), None, "no agent keyword, no bid");
        let with_agent = BidContext {
            agent_score: Some(1_000_000.0 * 0.1),
            ..ctx()
        };
        // Score 0.9 × 100_000 at quality 0.05 → bid 1.8M.
        assert_eq!(c.bid(&with_agent), Some(1_800_000));
    }

    #[test]
    fn drainer_undercuts_a_per_exposure_agent_by_bid() {
        // Per exposure the agent's rank score is its bid, and so is the
        // drainer's: its own quality does not enter.
        let c = Competitor::new(spec(Strategy::Drainer { undercut: 0.9 }));
        let cpm = BidContext {
            pricing: Pricing::PerExposure,
            agent_score: Some(100_000.0),
            ..ctx()
        };
        assert_eq!(c.bid(&cpm), Some(90_000));
    }

    #[test]
    fn pid_raises_bids_when_under_plan() {
        let mut c = Competitor::new(spec(Strategy::Pid {
            kp: 2.0,
            ki: 0.3,
            kd: 0.5,
        }));
        let before = c.bid(&ctx()).unwrap();
        c.pace(0.5);
        assert!(c.bid(&ctx()).unwrap() > before);
    }

    #[test]
    fn mix_is_seeded_and_validated() {
        let a = CompetitorSpec::standard_mix(1, 47, 2, 10_000.0);
        assert_eq!(a, CompetitorSpec::standard_mix(1, 47, 2, 10_000.0));
        assert_eq!(a.len(), 47);
        assert!(matches!(a[46].strategy, Strategy::Drainer { .. }));
        assert!(a.iter().enumerate().all(|(i, s)| s.validate(i).is_ok()));
        let bad = CompetitorSpec {
            daily_budget_micros: 0,
            ..a[0].clone()
        };
        assert!(bad
            .validate(3)
            .unwrap_err()
            .to_string()
            .contains("competitors[3].daily_budget_micros"));
    }
}
