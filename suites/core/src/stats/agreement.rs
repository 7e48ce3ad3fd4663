//! Agreement between raters, as pure functions (Krippendorff 2004,
//! "Content Analysis", ch. 11; Cohen 1960; Kendall 1945):
//!
//! - Cohen's κ for two raters: (p_o − p_e)/(1 − p_e), p_o the observed
//!   share of agreement, p_e the chance agreement from each rater's own
//!   category shares;
//! - Krippendorff's α for any number of raters with missing values:
//!   1 − (n − 1)·Σ o_cd δ²_cd / Σ n_c n_d δ²_cd over the coincidence matrix
//!   o of the pairable values (units with at least two values), with a
//!   nominal, ordinal or interval distance δ (Krippendorff 2011,
//!   "Computing Krippendorff's Alpha-Reliability");
//! - Kendall's τ-b between two rankings, ties corrected.
//!
//! Undefined values (no overlap, no variation) are `None`, never 0.

use std::collections::BTreeMap;

/// Cohen's κ of two raters over the same items; items either rater left
/// unrated (`None`) are skipped. Categories are compared exactly.
pub fn cohen_kappa<T: Ord>(a: &[Option<T>], b: &[Option<T>]) -> Option<f64> {
    cohen_kappa_of_pairs(
        a.iter()
            .zip(b)
            .filter_map(|(x, y)| Some((x.as_ref()?, y.as_ref()?))),
    )
}

/// Cohen's κ over `(first rater, second rater)` ratings of the same items;
/// `None` without pairs or when chance agreement is 1 (both raters gave one
/// and the same category throughout).
pub fn cohen_kappa_of_pairs<T: Ord>(pairs: impl IntoIterator<Item = (T, T)>) -> Option<f64> {
    let pairs: Vec<(T, T)> = pairs.into_iter().collect();
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as f64;
    let mut ma: BTreeMap<&T, f64> = BTreeMap::new();
    let mut mb: BTreeMap<&T, f64> = BTreeMap::new();
    let mut agree = 0.0;
    for (x, y) in &pairs {
        *ma.entry(x).or_default() += 1.0;
        *mb.entry(y).or_default() += 1.0;
        if x == y {
            agree += 1.0;
        }
    }
    let po = agree / n;
    let pe: f64 = ma
        .iter()
        .map(|(k, ca)| ca / n * mb.get(k).copied().unwrap_or(0.0) / n)
        .sum();
    if (1.0 - pe).abs() < 1e-12 {
        return None;
    }
    Some((po - pe) / (1.0 - pe))
}

/// The distance Krippendorff's α uses between values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Values are unordered labels.
    Nominal,
    /// Values are ordered; distance counts the values in between.
    Ordinal,
    /// Values are numbers; distance is the squared difference.
    Interval,
}

/// Krippendorff's α. `units[u][r]` is rater `r`'s value for unit `u`, or
/// `None`. Units with fewer than two values are not pairable and are skipped.
pub fn krippendorff_alpha(units: &[Vec<Option<f64>>], level: Level) -> Option<f64> {
    // Distinct values, ordered, by bit pattern (values are finite scores).
    let mut values: Vec<f64> = units.iter().flatten().flatten().copied().collect();
    values.retain(|v| v.is_finite());
    values.sort_by(f64::total_cmp);
    values.dedup();
    let k = values.len();
    if k == 0 {
        return None;
    }
    let idx = |v: f64| values.iter().position(|x| *x == v);
    // Coincidence matrix.
    let mut o = vec![vec![0.0f64; k]; k];
    for unit in units {
        let vals: Vec<usize> = unit.iter().flatten().filter_map(|v| idx(*v)).collect();
        let m = vals.len();
        if m < 2 {
            continue;
        }
        for (i, &c) in vals.iter().enumerate() {
            for (j, &d) in vals.iter().enumerate() {
                if i != j {
                    o[c][d] += 1.0 / (m as f64 - 1.0);
                }
            }
        }
    }
    let nc: Vec<f64> = o.iter().map(|row| row.iter().sum()).collect();
    let n: f64 = nc.iter().sum();
    if n <= 1.0 {
        return None;
    }
    let delta = |c: usize, d: usize| -> f64 {
        match level {
            Level::Nominal => f64::from(u8::from(c != d)),
            Level::Interval => (values[c] - values[d]).powi(2),
            Level::Ordinal => {
                let (lo, hi) = (c.min(d), c.max(d));
                let between: f64 = nc[lo..=hi].iter().sum();
                (between - (nc[c] + nc[d]) / 2.0).powi(2)
            }
        }
    };
    let (mut observed, mut expected) = (0.0, 0.0);
    for c in 0..k {
        for d in 0..k {
            let dd = delta(c, d);
            observed += o[c][d] * dd;
            expected += nc[c] * nc[d] * dd;
        }
    }
    if expected == 0.0 {
        return None;
    }
    Some(1.0 - (n - 1.0) * observed / expected)
}

/// Kendall's τ-b between two score vectors over the same solutions
/// (ties handled); `None` when either is constant or lengths differ.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let (mut concordant, mut discordant, mut tie_x, mut tie_y) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            let dx = (x[i] - x[j]).partial_cmp(&0.0)?;
            let dy = (y[i] - y[j]).partial_cmp(&0.0)?;
            use std::cmp::Ordering::Equal;
            match (dx, dy) {
                (Equal, Equal) => {}
                (Equal, _) => tie_x += 1,
                (_, Equal) => tie_y += 1,
                (a, b) if a == b => concordant += 1,
                _ => discordant += 1,
            }
        }
    }
    let n1 = (concordant + discordant + tie_x) as f64;
    let n2 = (concordant + discordant + tie_y) as f64;
    if n1 == 0.0 || n2 == 0.0 {
        return None;
    }
    Some((concordant - discordant) as f64 / (n1 * n2).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Option<f64>, b: f64, tol: f64) {
        let a = a.expect("defined");
        assert!((a - b).abs() < tol, "{a} != {b}");
    }

    #[test]
    fn cohen_kappa_textbook_example() {
        // Wikipedia's example: 50 items; yes/yes 20, yes/no 5, no/yes 10,
        // no/no 15 → po 0.7, pe 0.5, κ 0.4.
        let mut a = vec![];
        let mut b = vec![];
        for (x, y, n) in [
            ("y", "y", 20),
            ("y", "n", 5),
            ("n", "y", 10),
            ("n", "n", 15),
        ] {
            for _ in 0..n {
                a.push(Some(x));
                b.push(Some(y));
            }
        }
        close(cohen_kappa(&a, &b), 0.4, 1e-12);
        // Unscored items are skipped, not counted as disagreement.
        a.push(None);
        b.push(Some("y"));
        close(cohen_kappa(&a, &b), 0.4, 1e-12);
    }

    #[test]
    fn cohen_kappa_is_undefined_without_variation() {
        assert_eq!(cohen_kappa(&[Some(1), Some(1)], &[Some(1), Some(1)]), None);
        assert_eq!(cohen_kappa::<u8>(&[None], &[Some(1)]), None);
    }

    fn yes_no(yy: usize, yn: usize, ny: usize, nn: usize) -> Vec<(bool, bool)> {
        let mut v = vec![(true, true); yy];
        v.extend(vec![(true, false); yn]);
        v.extend(vec![(false, true); ny]);
        v.extend(vec![(false, false); nn]);
        v
    }

    #[test]
    fn cohen_kappa_of_yes_no_pairs_matches_the_textbook_table() {
        close(cohen_kappa_of_pairs(yes_no(20, 5, 10, 15)), 0.4, 1e-12);
        assert_eq!(cohen_kappa_of_pairs(yes_no(7, 0, 0, 3)), Some(1.0));
        assert_eq!(cohen_kappa_of_pairs(yes_no(0, 5, 5, 0)), Some(-1.0));
        // Independent raters, each yes half the time.
        assert_eq!(cohen_kappa_of_pairs(yes_no(5, 5, 5, 5)), Some(0.0));
        // One rater constant, the other not: defined, and 0.
        assert_eq!(cohen_kappa_of_pairs(yes_no(0, 0, 3, 6)), Some(0.0));
        assert_eq!(cohen_kappa_of_pairs(yes_no(0, 0, 0, 9)), None);
        assert_eq!(cohen_kappa_of_pairs(Vec::<(bool, bool)>::new()), None);
    }

    /// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability",
    /// the 4 observers × 12 units example with missing values.
    fn krippendorff_example() -> Vec<Vec<Option<f64>>> {
        let n = None;
        let rows: [[Option<f64>; 12]; 4] = [
            [
                Some(1.),
                Some(2.),
                Some(3.),
                Some(3.),
                Some(2.),
                Some(1.),
                Some(4.),
                Some(1.),
                Some(2.),
                n,
                n,
                n,
            ],
            [
                Some(1.),
                Some(2.),
                Some(3.),
                Some(3.),
                Some(2.),
                Some(2.),
                Some(4.),
                Some(1.),
                Some(2.),
                Some(5.),
                n,
                Some(3.),
            ],
            [
                n,
                Some(3.),
                Some(3.),
                Some(3.),
                Some(2.),
                Some(3.),
                Some(4.),
                Some(2.),
                Some(2.),
                Some(5.),
                Some(1.),
                n,
            ],
            [
                Some(1.),
                Some(2.),
                Some(3.),
                Some(3.),
                Some(2.),
                Some(4.),
                Some(4.),
                Some(1.),
                Some(2.),
                Some(5.),
                Some(1.),
                n,
            ],
        ];
        (0..12)
            .map(|u| rows.iter().map(|r| r[u]).collect())
            .collect()
    }

    #[test]
    fn krippendorff_alpha_textbook_example() {
        let units = krippendorff_example();
        close(krippendorff_alpha(&units, Level::Nominal), 0.743, 5e-4);
        close(krippendorff_alpha(&units, Level::Ordinal), 0.815, 5e-4);
        close(krippendorff_alpha(&units, Level::Interval), 0.849, 5e-4);
    }

    #[test]
    fn krippendorff_alpha_perfect_and_undefined() {
        let units = vec![vec![Some(1.0), Some(1.0)], vec![Some(2.0), Some(2.0)]];
        close(krippendorff_alpha(&units, Level::Nominal), 1.0, 1e-12);
        assert_eq!(
            krippendorff_alpha(&[vec![Some(1.0), Some(1.0)]], Level::Nominal),
            None
        );
        assert_eq!(
            krippendorff_alpha(&[vec![Some(1.0), None]], Level::Ordinal),
            None
        );
    }

    #[test]
    fn kendall_tau_textbook_examples() {
        // No ties: 1 discordant pair of 10 → (9 − 1)/10 = 0.8.
        close(
            kendall_tau_b(&[1., 2., 3., 4., 5.], &[1., 2., 3., 5., 4.]),
            0.8,
            1e-12,
        );
        close(kendall_tau_b(&[1., 2., 3.], &[3., 2., 1.]), -1.0, 1e-12);
        // With ties (scipy.stats.kendalltau([1,2,2,3],[1,3,2,4]) = 0.9128709).
        close(
            kendall_tau_b(&[1., 2., 2., 3.], &[1., 3., 2., 4.]),
            0.912870929,
            1e-8,
        );
        assert_eq!(kendall_tau_b(&[1., 1.], &[1., 2.]), None);
    }
}
