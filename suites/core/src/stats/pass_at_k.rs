//! Pass@k and pass^k of one task from `n` runs of which `c` passed.
//!
//! - pass@k (Chen et al. 2021, "Evaluating Large Language Models Trained
//!   on Code", §2.1): the unbiased estimate of the chance that at least one
//!   of `k` runs drawn without replacement passed, 1 − C(n−c, k)/C(n, k),
//!   computed as the paper's numerically stable product
//!   1 − ∏_{i=n−c+1}^{n} (1 − k/i), which never forms a binomial.
//! - pass^k (Yao et al. 2024, "τ-bench", §4): the chance that all `k`
//!   drawn runs passed, C(c, k)/C(n, k).
//!
//! A benchmark's figure is the mean of these over its tasks.

/// C(n, k) as a float, by the running product C(n, i+1) = C(n, i)·(n−i)/(i+1).
/// Exact for n ≤ 54 and every k: each partial product is an integer below
/// 2⁵³.
pub fn binomial(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// pass@k of one task, as a share in [0, 1]: 1 − C(n−c, k)/C(n, k) in
/// Chen et al.'s product form. `k` is capped at `n`; no runs (or k = 0)
/// pass nothing.
pub fn pass_at_k(n: u64, c: u64, k: u64) -> f64 {
    let k = k.min(n);
    if n == 0 || c == 0 || k == 0 {
        return 0.0;
    }
    if n - c < k {
        return 1.0;
    }
    1.0 - ((n - c + 1)..=n)
        .map(|i| 1.0 - k as f64 / i as f64)
        .product::<f64>()
}

/// pass^k of one task, as a share in [0, 1]: C(c, k)/C(n, k), the chance
/// that `k` runs drawn without replacement all passed; 0 when `k` exceeds
/// `n` or no runs were made. The binomials are exact for n ≤ 54, so the
/// ratio is correctly rounded there, as τ-bench's integer arithmetic is;
/// beyond the float range it falls back to the product ∏_{i<k} (c−i)/(n−i).
pub fn pass_hat_k(n: u64, c: u64, k: u64) -> f64 {
    if n == 0 || k > n {
        return 0.0;
    }
    let whole = binomial(n, k);
    if whole.is_finite() {
        binomial(c, k) / whole
    } else if k > c {
        0.0
    } else {
        (0..k).map(|i| (c - i) as f64 / (n - i) as f64).product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    /// C(n, k) in integers, for the combinatorial definitions.
    fn exact(n: u64, k: u64) -> u128 {
        if k > n {
            return 0;
        }
        (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
    }

    #[test]
    fn binomial_is_exact_for_small_arguments() {
        assert_eq!(binomial(5, 2), 10.0);
        assert_eq!(binomial(3, 4), 0.0);
        assert_eq!(binomial(7, 0), 1.0);
        for n in 0..=54 {
            for k in 0..=n {
                assert_eq!(binomial(n, k), exact(n, k) as f64, "C({n}, {k})");
            }
        }
    }

    #[test]
    fn pass_at_k_is_one_minus_the_share_of_all_failing_draws() {
        for n in 1..=12 {
            for c in 0..=n {
                for k in 1..=n {
                    let want = 1.0 - exact(n - c, k) as f64 / exact(n, k) as f64;
                    let got = pass_at_k(n, c, k);
                    assert!(close(got, want), "n {n} c {c} k {k}: {got} != {want}");
                }
            }
        }
        // 1 − C(3,2)/C(5,2) = 1 − 3/10; 1 − C(7,3)/C(10,3) = 1 − 35/120.
        assert!(close(pass_at_k(5, 2, 2), 0.7));
        assert!(close(pass_at_k(10, 3, 3), 1.0 - 35.0 / 120.0));
        assert!(close(pass_at_k(3, 1, 1), 1.0 / 3.0));
    }

    #[test]
    fn pass_at_k_edges() {
        assert_eq!(pass_at_k(2, 1, 5), 1.0, "k is capped at n");
        assert_eq!(pass_at_k(0, 0, 1), 0.0);
        assert_eq!(pass_at_k(3, 0, 3), 0.0);
        assert_eq!(pass_at_k(3, 3, 1), 1.0);
        assert_eq!(pass_at_k(5, 2, 4), 1.0, "any 4 of 5 include a pass");
        // Large n stays finite, where C(n, k) overflows a float.
        let p = pass_at_k(2000, 10, 100);
        assert!(p > 0.0 && p < 1.0, "{p}");
    }

    #[test]
    fn pass_hat_k_is_the_share_of_all_passing_draws() {
        for n in 1..=12 {
            for c in 0..=n {
                for k in 1..=n {
                    let want = exact(c, k) as f64 / exact(n, k) as f64;
                    assert_eq!(pass_hat_k(n, c, k), want, "n {n} c {c} k {k}");
                }
            }
        }
        // C(2,2)/C(5,2) = 1/10; C(4,2)/C(5,2) = 6/10.
        assert_eq!(pass_hat_k(5, 2, 2), 0.1);
        assert_eq!(pass_hat_k(5, 4, 2), 0.6);
        assert_eq!(pass_hat_k(5, 2, 3), 0.0);
        assert_eq!(pass_hat_k(3, 3, 4), 0.0, "k above n");
        assert_eq!(pass_hat_k(0, 0, 1), 0.0);
        // C(3000, 1500) overflows a float: the product form takes over.
        let p = pass_hat_k(3000, 2990, 1500);
        let want: f64 = (0..1500)
            .map(|i| (2990 - i) as f64 / (3000 - i) as f64)
            .product();
        assert!(p > 0.0 && (p - want).abs() <= 1e-12 * want, "{p} vs {want}");
    }
}
