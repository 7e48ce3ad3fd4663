//! Agreement between two raters of yes/no questions (an LLM judge and the
//! deterministic checks): raw agreement and Cohen's κ.

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
    let (mut n, mut a, mut b, mut same) = (0usize, 0usize, 0usize, 0usize);
    for (x, y) in pairs {
        n += 1;
        a += usize::from(x);
        b += usize::from(y);
        same += usize::from(x == y);
    }
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let (pa, pb) = (a as f64 / nf, b as f64 / nf);
    let observed = same as f64 / nf;
    let chance = pa * pb + (1.0 - pa) * (1.0 - pb);
    let kappa = (chance < 1.0).then(|| (observed - chance) / (1.0 - chance));
    Some(Agreement {
        n,
        first_yes: a,
        second_yes: b,
        observed,
        kappa,
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
    fn perfect_agreement_is_one_and_perfect_disagreement_is_minus_one() {
        let a = agreement(pairs(7, 0, 0, 3)).expect("pairs");
        assert_eq!(a.kappa, Some(1.0));
        let d = agreement(pairs(0, 5, 5, 0)).expect("pairs");
        assert_eq!(d.kappa, Some(-1.0));
    }

    #[test]
    fn agreement_no_better_than_chance_is_zero() {
        // Independent raters, each yes half the time.
        let a = agreement(pairs(5, 5, 5, 5)).expect("pairs");
        assert_eq!(a.kappa, Some(0.0));
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
