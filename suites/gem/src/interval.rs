//! The mean of a metric and its 95% confidence interval, over items.
//!
//! A response's score is not an independent sample: the seeds of one query
//! answer the same question, and LM-Market asks some prompts more than once
//! (93 distinct of 100). So the values are first averaged per cluster (the
//! distinct prompt of a dataset: its seeds and its repeats together), and
//! the interval is Student's t over the k cluster means, with the exact
//! quantile t(0.975, k − 1). The mean is the mean of the cluster means, so
//! each distinct prompt weighs the same.

use statrs::distribution::{ContinuousCDF, StudentsT};
use std::collections::BTreeMap;

/// A clustered estimate: the mean of the cluster means and the half-width
/// of its 95% interval (`None` with fewer than two clusters).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clustered {
    /// Mean of the cluster means; `None` without a value.
    pub mean: Option<f64>,
    /// Half-width of the 95% interval of the mean.
    pub ci95: Option<f64>,
    /// Clusters with at least one value.
    pub clusters: usize,
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom (exact).
pub fn t_975(df: usize) -> Option<f64> {
    let t = StudentsT::new(0.0, 1.0, df as f64).ok()?;
    Some(t.inverse_cdf(0.975))
}

/// The estimate over `values` grouped by cluster.
pub fn clustered<K: Ord>(values: &BTreeMap<K, Vec<f64>>) -> Clustered {
    let means: Vec<f64> = values
        .values()
        .filter(|v| !v.is_empty())
        .map(|v| v.iter().sum::<f64>() / v.len() as f64)
        .collect();
    let k = means.len();
    if k == 0 {
        return Clustered {
            mean: None,
            ci95: None,
            clusters: 0,
        };
    }
    let mean = means.iter().sum::<f64>() / k as f64;
    let ci95 = (k >= 2).then(|| {
        let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (k - 1) as f64;
        t_975(k - 1).map(|t| t * (var / k as f64).sqrt())
    });
    Clustered {
        mean: Some(mean),
        ci95: ci95.flatten(),
        clusters: k,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_are_exact() {
        // Tabled values to 4 decimals; the old table interpolated df 31-120
        // linearly (df 45: 2.021 against the exact 2.0141).
        for (df, want) in [
            (1, 12.7062),
            (2, 4.3027),
            (10, 2.2281),
            (45, 2.0141),
            (200, 1.9719),
        ] {
            let t = t_975(df).expect("a quantile");
            assert!((t - want).abs() < 1e-4, "df {df}: {t}");
        }
    }

    #[test]
    fn seeds_of_an_item_are_one_sample() {
        // Two items, three seeds each: the interval has one degree of
        // freedom (two cluster means 10 and 30), not five.
        let v = BTreeMap::from([("a", vec![9.0, 10.0, 11.0]), ("b", vec![29.0, 30.0, 31.0])]);
        let c = clustered(&v);
        assert_eq!((c.mean, c.clusters), (Some(20.0), 2));
        // sd of {10, 30} = 14.142; × t(0.975, 1) / √2.
        let want = 12.7062 * 14.1421 / 2f64.sqrt();
        assert!((c.ci95.expect("two clusters") - want).abs() < 1e-2, "{c:?}");
        // A repeated prompt weighs once: {10, 10, 40} in two clusters.
        let v = BTreeMap::from([("p", vec![10.0, 10.0]), ("q", vec![40.0])]);
        assert_eq!(clustered(&v).mean, Some(25.0));
        let one = BTreeMap::from([("p", vec![1.0, 3.0])]);
        assert_eq!(clustered(&one).ci95, None, "one cluster has no interval");
        assert_eq!(clustered::<&str>(&BTreeMap::new()).mean, None);
    }
}
