//! How users respond to ads: click probability (an ad's quality, logistic
//! in user × ad features, times its slot's position factor), conversion
//! probability, conversion value (lognormal per vertical) and conversion
//! lag.

use super::calendar::TICKS_PER_DAY;
use super::rng::Stream;
use super::traffic::{Device, Opportunity, PROMOTION_CONVERSION};
use super::vocabulary::{MatchType, Vertical};

/// Per-vertical response parameters.
#[derive(Debug, Clone, Copy)]
struct Profile {
    ctr_intercept: f64,
    cvr_intercept: f64,
    /// ln of the median conversion value in currency units.
    value_mu: f64,
    value_sigma: f64,
    /// Age band effects on click logit, youngest first.
    age: [f64; 6],
    /// Gender effects on click logit.
    gender: [f64; 3],
}

const PROFILES: [Profile; 6] = [
    Profile {
        ctr_intercept: -3.0,
        cvr_intercept: -3.5,
        value_mu: 4.09,
        value_sigma: 0.6,
        age: [0.2, 0.2, 0.1, 0.0, -0.1, -0.2],
        gender: [0.1, -0.05, 0.0],
    },
    Profile {
        ctr_intercept: -3.3,
        cvr_intercept: -3.8,
        value_mu: 5.99,
        value_sigma: 0.7,
        age: [-0.1, 0.1, 0.15, 0.1, 0.05, 0.1],
        gender: [0.0, 0.0, 0.0],
    },
    Profile {
        ctr_intercept: -3.4,
        cvr_intercept: -3.6,
        value_mu: 5.52,
        value_sigma: 0.8,
        age: [-0.3, 0.0, 0.15, 0.2, 0.1, 0.0],
        gender: [-0.05, 0.05, 0.0],
    },
    Profile {
        ctr_intercept: -3.2,
        cvr_intercept: -4.0,
        value_mu: 6.21,
        value_sigma: 0.9,
        age: [0.0, 0.1, 0.15, 0.1, 0.0, -0.15],
        gender: [-0.1, 0.1, 0.0],
    },
    Profile {
        ctr_intercept: -3.4,
        cvr_intercept: -3.7,
        value_mu: 5.70,
        value_sigma: 0.6,
        age: [0.35, 0.25, 0.05, -0.1, -0.3, -0.5],
        gender: [0.05, -0.05, 0.0],
    },
    Profile {
        ctr_intercept: -3.1,
        cvr_intercept: -3.2,
        value_mu: 4.79,
        value_sigma: 0.5,
        age: [-0.2, -0.05, 0.0, 0.1, 0.2, 0.3],
        gender: [0.1, -0.1, 0.0],
    },
];

/// Mean conversion lag in ticks (4 hours): a geometric-like tail up to a month.
const MEAN_LAG_TICKS: f64 = 8.0;
const MAX_LAG_TICKS: u32 = 30 * TICKS_PER_DAY;

#[inline]
pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// The user/query part of the click logit, shared by every ad in the auction.
#[inline]
pub fn click_logit(opp: &Opportunity) -> f64 {
    let p = &PROFILES[opp.vertical.index()];
    let device = match opp.user.device {
        Device::Mobile => 0.1,
        Device::Desktop => 0.0,
        Device::Tablet => -0.1,
    };
    let interest = if opp.user.interested_in(opp.vertical) {
        0.8
    } else {
        0.0
    };
    p.ctr_intercept
        + p.age[opp.user.age as usize]
        + p.gender[opp.user.gender as usize]
        + device
        + interest
}

/// How much better a closer keyword fits the query (logit shift).
pub fn match_relevance(m: MatchType) -> f64 {
    match m {
        MatchType::Exact => 0.3,
        MatchType::Phrase => 0.1,
        MatchType::Broad => -0.2,
    }
}

/// Ad-level pCTR in the top slot: the auction's quality score.
#[inline]
pub fn quality(click_logit: f64, ad_bias: f64) -> f64 {
    sigmoid(click_logit + ad_bias)
}

/// `quality(l, b)` from `exp(-l)` and `exp(-b)`: σ(l + b) = 1 / (1 + e^-l e^-b),
/// so an auction needs one `exp` for the user, not one per bidder.
#[inline]
pub fn quality_factored(exp_neg_logit: f64, exp_neg_bias: f64) -> f64 {
    1.0 / (1.0 + exp_neg_logit * exp_neg_bias)
}

/// Click probability in a slot with position factor `alpha`: the
/// position-based model α q (capped at 1), the one the auctions rank and
/// price with, so a VCG price per click is what the expected clicks cost.
#[inline]
pub fn click_probability(quality: f64, alpha: f64) -> f64 {
    (alpha * quality).min(1.0)
}

/// Whether the ad in a slot with position factor `alpha` is clicked: one
/// draw from the placement's outcome stream.
#[inline]
pub fn draw_click(s: &mut Stream, quality: f64, alpha: f64) -> bool {
    s.bernoulli(click_probability(quality, alpha))
}

/// Probability that a click converts.
pub fn conversion_probability(opp: &Opportunity, relevance: f64) -> f64 {
    let p = &PROFILES[opp.vertical.index()];
    let interest = if opp.user.interested_in(opp.vertical) {
        1.0
    } else {
        0.0
    };
    let device = if opp.user.device == Device::Desktop {
        0.2
    } else {
        0.0
    };
    let base = sigmoid(p.cvr_intercept + interest + device + relevance);
    let promo = if opp.promoted {
        PROMOTION_CONVERSION
    } else {
        1.0
    };
    (base * promo).min(1.0)
}

/// Expected conversion value in micros for the vertical (the lognormal mean).
pub fn mean_value_micros(v: Vertical) -> f64 {
    let p = &PROFILES[v.index()];
    (p.value_mu + p.value_sigma * p.value_sigma / 2.0).exp() * 1e6
}

pub fn draw_value_micros(v: Vertical, s: &mut Stream) -> i64 {
    let p = &PROFILES[v.index()];
    (s.lognormal(p.value_mu, p.value_sigma) * 1e6).round() as i64
}

/// Ticks from click to conversion.
pub fn draw_lag_ticks(s: &mut Stream) -> u32 {
    let u = 1.0 - s.uniform();
    ((-u.ln() * MEAN_LAG_TICKS) as u32).min(MAX_LAG_TICKS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::market::traffic::User;

    fn opp(v: Vertical, interests: u8) -> Opportunity {
        let user = User {
            age: 2,
            gender: 0,
            device: Device::Mobile,
            interests,
        };
        Opportunity {
            index: 0,
            query: 0,
            vertical: v,
            user,
            promoted: false,
            key: 1,
        }
    }

    #[test]
    fn interest_raises_clicks_and_conversions() {
        let cold = opp(Vertical::Travel, 0);
        let warm = opp(Vertical::Travel, 1 << Vertical::Travel.index());
        assert!(quality(click_logit(&warm), 0.0) > quality(click_logit(&cold), 0.0));
        assert!(conversion_probability(&warm, 0.0) > conversion_probability(&cold, 0.0));
        let q = quality(click_logit(&cold), 0.0);
        assert!(q > 0.005 && q < 0.2, "plausible search CTR, got {q}");
    }

    #[test]
    fn factored_quality_matches_the_logistic() {
        for (l, b) in [(-3.0, 0.4), (-5.5, -1.0), (0.3, 0.0)] {
            let direct = quality(l, b);
            let factored = quality_factored(f64::exp(-l), f64::exp(-b));
            assert!((direct - factored).abs() < 1e-12, "{direct} vs {factored}");
        }
    }

    #[test]
    fn clicks_are_drawn_at_position_factor_times_quality() {
        // The rate the auctions rank and price with, measured over a seeded
        // run of the draw the market makes for each placement.
        let n = 40_000;
        let mut s = Stream::new(2024);
        for (q, alpha) in [(0.5, 0.5), (0.05, 0.6), (0.9, 0.8), (0.2, 1.0)] {
            let clicks = (0..n).filter(|_| draw_click(&mut s, q, alpha)).count();
            let rate = clicks as f64 / n as f64;
            let want = alpha * q;
            let sd = (want * (1.0 - want) / n as f64).sqrt();
            assert!(
                (rate - want).abs() < 4.0 * sd,
                "q {q}, α {alpha}: rate {rate}, αq {want}"
            );
            // The logistic with a position term, αq / (1 − q + αq), is a
            // different model: at q = .5, α = .5 it gives 1/3, not 1/4.
            let logistic = want / (1.0 - q + want);
            if (logistic - want).abs() > 0.01 {
                assert!(
                    (rate - logistic).abs() > 10.0 * sd,
                    "q {q}, α {alpha}: rate {rate} matches the logistic {logistic}"
                );
            }
        }
    }

    #[test]
    fn click_probability_is_position_factor_times_quality() {
        assert_eq!(click_probability(0.5, 0.5), 0.25);
        assert_eq!(click_probability(0.04, 1.0), 0.04);
        assert_eq!(click_probability(1.0, 1.0), 1.0);
        assert_eq!(click_probability(0.0, 0.7), 0.0);
    }

    #[test]
    fn values_and_lags_have_the_stated_means() {
        let mut s = Stream::new(77);
        let n = 40_000;
        let mean = (0..n)
            .map(|_| draw_value_micros(Vertical::Retail, &mut s) as f64)
            .sum::<f64>()
            / n as f64;
        let want = mean_value_micros(Vertical::Retail);
        assert!((mean / want - 1.0).abs() < 0.03, "{mean} vs {want}");
        let lag = (0..n).map(|_| draw_lag_ticks(&mut s) as f64).sum::<f64>() / n as f64;
        assert!(
            (lag - (MEAN_LAG_TICKS - 0.5)).abs() < 0.3,
            "floor of an exponential, got {lag}"
        );
    }
}
