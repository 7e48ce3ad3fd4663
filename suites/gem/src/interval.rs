//! The mean of a metric and its 95% confidence interval, over items.
//!
//! A response's score is not an independent sample: the seeds of one query
//! answer the same question, and LM-Market asks some prompts more than once
//! (93 distinct of 100). So the values are first averaged per cluster (the
//! distinct prompt of a dataset: its seeds and its repeats together), and
//! the interval is Student's t over the k cluster means, with the exact
//! quantile t(0.975, k − 1) ([`adfarm_suite::stats::mean_interval`]). The
//! mean is the mean of the cluster means, so each distinct prompt weighs
//! the same.

use adfarm_suite::stats::{mean, mean_interval};
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

/// The estimate over `values` grouped by cluster.
pub fn clustered<K: Ord>(values: &BTreeMap<K, Vec<f64>>) -> Clustered {
    let means: Vec<f64> = values
        .values()
        .filter_map(|v| mean(v.iter().copied()))
        .collect();
    let estimate = mean_interval(&means, 0.95);
    Clustered {
        mean: estimate.map(|e| e.mean),
        ci95: estimate.and_then(|e| e.half_width),
        clusters: means.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
