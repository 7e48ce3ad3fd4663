//! Statistics every suite shares, each module one idea with its formula
//! and source:
//!
//! - `pass_at_k`: pass@k (Chen et al. 2021) and pass^k (τ-bench) of a task;
//! - `agreement`: Cohen's κ, Krippendorff's α (nominal, ordinal,
//!   interval; missing values), Kendall's τ-b;
//! - `interval`: exact Student-t quantiles and mean intervals;
//! - `proportion`: a share with its Wilson score interval;
//! - `bootstrap`: the seeded percentile bootstrap;
//! - `ranks`: rank intervals and tiers from a paired bootstrap;
//! - `rng`: SplitMix64, the one seeded generator (its stream is part of
//!   every golden file: worlds, resamples, auctions).
//!
//! Design decision: pure functions over plain numbers (no suite types), so
//! a suite, the review court or a report can call them alike.

mod agreement;
mod bootstrap;
mod interval;
mod pass_at_k;
mod proportion;
mod ranks;
mod rng;

pub use agreement::{cohen_kappa, cohen_kappa_of_pairs, kendall_tau_b, krippendorff_alpha, Level};
pub use bootstrap::{
    means_over, percentile, resample, resample_means, summarise, PercentileInterval,
};
pub use interval::{mean_interval, t_quantile, MeanInterval};
pub use pass_at_k::{binomial, pass_at_k, pass_hat_k};
pub use proportion::{wilson_interval, Proportion};
pub use ranks::{rank_intervals, share_above, tiers};
pub use rng::{mix64, splitmix64, SplitMix64, GOLDEN_GAMMA};

/// The arithmetic mean; `None` without values. Sums in order with
/// `f64`'s `Sum` (the same bits as `xs.iter().sum::<f64>() / len`).
pub fn mean(xs: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut n = 0usize;
    let sum: f64 = xs.into_iter().inspect(|_| n += 1).sum();
    (n > 0).then(|| sum / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_of_values_and_of_none() {
        assert_eq!(mean([1.0, 2.0, 6.0]), Some(3.0));
        assert_eq!(mean(std::iter::empty()), None);
    }
}
