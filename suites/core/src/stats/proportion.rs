//! A share of successes and its Wilson score interval (Wilson 1927;
//! Agresti & Coull 1998, "Approximate is better than 'exact'"): the
//! interval for p solving |p̂ − p| = z·√(p(1 − p)/n), z the normal
//! quantile of 1 − (1 − level)/2. Unlike p̂ ± z·√(p̂(1 − p̂)/n) it stays
//! inside [0, 1] and does not collapse to a point at 0 or n successes,
//! which small review rounds hit often.

use statrs::distribution::{ContinuousCDF, Normal};

/// A share with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proportion {
    /// Successes.
    pub successes: u64,
    /// Trials.
    pub n: u64,
    /// successes / n.
    pub share: f64,
    /// Lower end of the interval.
    pub lower: f64,
    /// Upper end of the interval.
    pub upper: f64,
}

/// The share `successes / n` with its Wilson interval at `level` (0.95 for
/// 95%); `None` without trials, with more successes than trials, or for a
/// level outside (0, 1).
pub fn wilson_interval(successes: u64, n: u64, level: f64) -> Option<Proportion> {
    if n == 0 || successes > n || !(level > 0.0 && level < 1.0) {
        return None;
    }
    let z = Normal::standard().inverse_cdf(0.5 + level / 2.0);
    let nf = n as f64;
    let p = successes as f64 / nf;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * nf)) / (1.0 + z2 / nf);
    let half = z / (1.0 + z2 / nf) * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
    Some(Proportion {
        successes,
        n,
        share: p,
        lower: (centre - half).max(0.0),
        upper: (centre + half).min(1.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-5
    }

    #[test]
    fn wilson_intervals_match_published_values() {
        // Newcombe (1998), "Two-sided confidence intervals for the single
        // proportion", Table I, method 3 (score, no continuity correction):
        // 81/263 → 0.2553–0.3662; 15/148 → 0.0624–0.1605; 0/20 → 0–0.1611;
        // 1/29 → 0.0061–0.1718.
        for (x, n, lo, hi) in [
            (81, 263, 0.2553, 0.3662),
            (15, 148, 0.0624, 0.1605),
            (0, 20, 0.0, 0.1611),
            (1, 29, 0.0061, 0.1718),
        ] {
            let p = wilson_interval(x, n, 0.95).unwrap();
            assert!(close(p.lower, lo) && close(p.upper, hi), "{x}/{n}: {p:?}");
            assert_eq!(p.share, x as f64 / n as f64);
        }
    }

    #[test]
    fn all_successes_keep_a_lower_end_below_one() {
        let p = wilson_interval(10, 10, 0.95).unwrap();
        assert_eq!(p.upper, 1.0);
        assert!(p.lower > 0.65 && p.lower < 0.75, "{p:?}");
    }

    #[test]
    fn no_trials_or_impossible_counts_have_no_interval() {
        assert!(wilson_interval(0, 0, 0.95).is_none());
        assert!(wilson_interval(3, 2, 0.95).is_none());
        assert!(wilson_interval(1, 2, 1.0).is_none());
    }
}
