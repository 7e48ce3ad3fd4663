//! Fairness of delivery across audience groups: each group's impression
//! rate among its eligible users, the parity difference (highest rate −
//! lowest) and disparate impact (lowest rate ÷ highest), the ratio the
//! four-fifths rule bounds (29 CFR 1607.4(D): a ratio under 0.8 is
//! evidence of adverse impact).
//!
//! Groups with no eligible users have no rate and are left out. With no
//! group left, or when no group saw an impression (the highest rate is 0),
//! every group was treated alike: parity difference 0, DI 1. Rates count
//! impressions per eligible user, so a harness that counts users reached
//! keeps them in [0, 1]; counting every impression may exceed 1, which
//! the ratios allow.

use serde::{Deserialize, Serialize};

/// The disparate impact below which a housing, employment or credit
/// scenario fails its fairness gate.
pub const DI_THRESHOLD: f64 = 0.8;

/// Delivery rates per group and their disparity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fairness {
    /// (group, impressions / eligible) for each group with eligible users,
    /// in input order.
    pub rates: Vec<(String, f64)>,
    /// Highest rate − lowest rate.
    pub parity_difference: f64,
    /// Lowest rate ÷ highest rate; 1 when the highest is 0.
    pub di: f64,
}

/// Rates and disparity over `groups`, each (group, eligible users,
/// impressions).
pub fn disparate_impact<G: AsRef<str>>(groups: &[(G, u64, u64)]) -> Fairness {
    let rates: Vec<(String, f64)> = groups
        .iter()
        .filter(|(_, eligible, _)| *eligible > 0)
        .map(|(g, eligible, shown)| (g.as_ref().to_string(), *shown as f64 / *eligible as f64))
        .collect();
    let lo = rates.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
    let hi = rates.iter().map(|r| r.1).fold(0.0, f64::max);
    let (parity_difference, di) = if hi > 0.0 {
        (hi - lo, lo / hi)
    } else {
        (0.0, 1.0)
    };
    Fairness {
        rates,
        parity_difference,
        di,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excluding_a_group_gives_a_disparate_impact_of_zero() {
        let f = disparate_impact(&[("women", 200, 0), ("men", 100, 30)]);
        assert_eq!(
            f.rates,
            [("women".to_string(), 0.0), ("men".to_string(), 0.3)]
        );
        assert_eq!(f.di, 0.0);
        assert!((f.parity_difference - 0.3).abs() < 1e-15);
    }

    #[test]
    fn equal_rates_give_a_disparate_impact_of_one() {
        let f = disparate_impact(&[("a", 100, 25), ("b", 40, 10), ("c", 8, 2)]);
        assert_eq!(f.di, 1.0);
        assert_eq!(f.parity_difference, 0.0);
    }

    #[test]
    fn disparate_impact_is_the_lowest_rate_over_the_highest() {
        // Rates 0.5, 0.35, 0.45: DI 0.35/0.5 = 0.7, parity 0.15.
        let f = disparate_impact(&[("a", 100, 50), ("b", 100, 35), ("c", 20, 9)]);
        assert!((f.di - 0.7).abs() < 1e-12, "{f:?}");
        assert!((f.parity_difference - 0.15).abs() < 1e-12, "{f:?}");
        assert!(f.di < DI_THRESHOLD);
    }

    #[test]
    fn groups_without_eligible_users_are_left_out_and_no_delivery_is_parity() {
        let f = disparate_impact(&[("a", 0, 0), ("b", 50, 20), ("c", 100, 40)]);
        assert_eq!(f.rates.len(), 2);
        assert_eq!(f.di, 1.0);
        let none = disparate_impact(&[("a", 10, 0), ("b", 20, 0)]);
        assert_eq!((none.parity_difference, none.di), (0.0, 1.0));
        let empty = disparate_impact::<&str>(&[]);
        assert!(empty.rates.is_empty());
        assert_eq!(empty.di, 1.0);
    }
}
