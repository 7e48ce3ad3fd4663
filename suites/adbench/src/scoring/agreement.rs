//! Agreement between two raters of yes/no questions (an LLM judge and the
//! deterministic checks): raw agreement and Cohen's κ
//! ([`adfarm_suite::stats::cohen_kappa_of_pairs`]).

use adfarm_suite::stats::cohen_kappa_of_pairs;

/// Agreement of two raters over the same episodes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agreement {
    /// Episodes both rated.
    pub n: usize,
    /// Episodes the first rater said yes to.
    pub first_yes: usize,
    /// Episodes the second rater said yes to.
    pub second_yes: usize,
    /// Share of episodes rated alike, 0..=1.
    pub observed: f64,
    /// Cohen's κ: (observed − chance) / (1 − chance), chance from each
    /// rater's own yes rate. `None` when chance agreement is 1 (both raters
    /// gave one and the same answer throughout), where κ is undefined.
    pub kappa: Option<f64>,
}

/// Agreement over `pairs` of (first rater, second rater) answers; `None`
/// for no pairs.
pub fn agreement(pairs: impl IntoIterator<Item = (bool, bool)>) -> Option<Agreement> {
    let pairs: Vec<(bool, bool)> = pairs.into_iter().collect();
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len();
    let count = |f: fn(&(bool, bool)) -> bool| pairs.iter().filter(|p| f(p)).count();
    Some(Agreement {
        n,
        first_yes: count(|p| p.0),
        second_yes: count(|p| p.1),
        observed: count(|p| p.0 == p.1) as f64 / n as f64,
        kappa: cohen_kappa_of_pairs(pairs.iter().copied()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(yy: usize, yn: usize, ny: usize, nn: usize) -> Vec<(bool, bool)> {
        let mut v = vec![(true, true); yy];
        v.extend(vec![(true, false); yn]);
        v.extend(vec![(false, true); ny]);
        v.extend(vec![(false, false); nn]);
        v
    }

    #[test]
    fn kappa_matches_the_textbook_table() {
        // 50 items: 20 both yes, 5 / 10 split, 15 both no. Observed 0.7,
        // chance 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4.
        let a = agreement(pairs(20, 5, 10, 15)).expect("pairs");
        assert_eq!((a.n, a.first_yes, a.second_yes), (50, 25, 30));
        assert!((a.observed - 0.7).abs() < 1e-12);
        assert!((a.kappa.expect("defined") - 0.4).abs() < 1e-12);
    }

    #[test]
    fn one_shared_constant_answer_leaves_kappa_undefined() {
        let a = agreement(pairs(0, 0, 0, 9)).expect("pairs");
        assert_eq!(a.observed, 1.0);
        assert_eq!(a.kappa, None);
        // One rater constant, the other not: defined (and 0 here).
        let b = agreement(pairs(0, 0, 3, 6)).expect("pairs");
        assert!(b.kappa.expect("defined").abs() < 1e-12);
        assert!(agreement(Vec::new()).is_none());
    }
}
