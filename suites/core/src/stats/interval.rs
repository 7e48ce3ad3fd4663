//! The mean of a sample and its exact Student-t confidence interval:
//! x̄ ± t(1 − (1 − level)/2, n − 1) · s/√n, s the sample standard deviation
//! (divisor n − 1), with the exact t quantile (`statrs`' inverse CDF), not
//! a table or the normal approximation (Student 1908; any statistics text,
//! e.g. Wasserman, "All of Statistics", §6.3).

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The `p` quantile of Student's t with `df` degrees of freedom (exact);
/// `None` for `df` 0 or `p` outside (0, 1).
pub fn t_quantile(p: f64, df: usize) -> Option<f64> {
    if !(p > 0.0 && p < 1.0) {
        return None;
    }
    let t = StudentsT::new(0.0, 1.0, df as f64).ok()?;
    Some(t.inverse_cdf(p))
}

/// The mean of `xs` and the half-width of its two-sided interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanInterval {
    /// The sample mean.
    pub mean: f64,
    /// Half-width of the interval; `None` below two values.
    pub half_width: Option<f64>,
    /// Sample size.
    pub n: usize,
}

/// The mean of `xs` with its Student-t interval at `level` (0.95 for a 95%
/// interval); `None` without values.
pub fn mean_interval(xs: &[f64], level: f64) -> Option<MeanInterval> {
    let n = xs.len();
    let mean = super::mean(xs.iter().copied())?;
    let half_width = (n >= 2)
        .then(|| {
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            t_quantile(0.5 + level / 2.0, n - 1).map(|t| t * (var / n as f64).sqrt())
        })
        .flatten();
    Some(MeanInterval {
        mean,
        half_width,
        n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        // Tabled two-sided 95% values to 4 decimals.
        for (df, want) in [
            (1, 12.7062),
            (2, 4.3027),
            (9, 2.2622),
            (10, 2.2281),
            (45, 2.0141),
            (200, 1.9719),
        ] {
            let t = t_quantile(0.975, df).expect("a quantile");
            assert!((t - want).abs() < 1e-4, "df {df}: {t}");
        }
        assert!((t_quantile(0.95, 9).expect("a quantile") - 1.8331).abs() < 1e-4);
        assert_eq!(t_quantile(0.975, 0), None);
        assert_eq!(t_quantile(1.0, 9), None);
    }

    #[test]
    fn a_95_percent_level_asks_for_the_0_975_quantile() {
        let direct = StudentsT::new(0.0, 1.0, 9.0).expect("t").inverse_cdf(0.975);
        let m = mean_interval(&[1.0, 3.0], 0.95).expect("values");
        let want = StudentsT::new(0.0, 1.0, 1.0).expect("t").inverse_cdf(0.975) * (1.0f64).sqrt();
        assert_eq!(m.half_width, Some(want));
        assert_eq!(t_quantile(0.5 + 0.95 / 2.0, 9), Some(direct));
    }

    #[test]
    fn ten_values_give_the_textbook_interval() {
        // 1..=10: mean 5.5, s² = 55/6; half-width 2.2622 · √(55/6/10).
        let xs: Vec<f64> = (1..=10).map(f64::from).collect();
        let m = mean_interval(&xs, 0.95).expect("values");
        assert_eq!((m.mean, m.n), (5.5, 10));
        let want = 2.262_157 * (55.0f64 / 60.0).sqrt();
        assert!(
            (m.half_width.expect("ten values") - want).abs() < 1e-5,
            "{m:?}"
        );
        let one = mean_interval(&[4.0], 0.95).expect("a value");
        assert_eq!((one.mean, one.half_width), (4.0, None));
        assert_eq!(mean_interval(&[], 0.95), None);
    }
}
