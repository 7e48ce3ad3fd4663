//! The percentile bootstrap (Efron & Tibshirani 1993, "An Introduction to
//! the Bootstrap", §13.3), seeded: resample the sample with replacement,
//! average each resample, and take the `α/2` and `1 − α/2` percentiles of
//! those averages (numpy's default linear interpolation, as obp does).
//! Resample `b` draws its indices from stream `b` of the seed
//! ([`SplitMix64::stream`]), so results do not depend on evaluation order
//! and are the same on every machine.

use super::rng::SplitMix64;

/// A percentile bootstrap interval: the mean of the resample averages and
/// the two percentile bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PercentileInterval {
    /// Mean of the resample averages.
    pub mean: f64,
    /// `α/2` percentile.
    pub lower: f64,
    /// `1 − α/2` percentile.
    pub upper: f64,
}

/// The `n` indices of resample `b` of `seed`, each uniform in `0..n`.
///
/// # Panics
/// When `n` is 0 (there is nothing to resample).
pub fn resample(seed: u64, b: u64, n: usize) -> impl Iterator<Item = usize> {
    let mut rng = SplitMix64::stream(seed, b);
    (0..n).map(move |_| rng.below(n))
}

/// Each set's mean over `indices` (one resample): `out[s]` is the mean of
/// `sets[s][i]` for every `i`, summed in index order. Every index must be
/// within every set; no indices give NaN.
pub fn means_over(sets: &[&[f64]], indices: impl IntoIterator<Item = usize>) -> Vec<f64> {
    let mut sums = vec![0.0; sets.len()];
    let mut count = 0usize;
    for i in indices {
        count += 1;
        for (sum, set) in sums.iter_mut().zip(sets) {
            *sum += set[i];
        }
    }
    sums.into_iter().map(|s| s / count as f64).collect()
}

/// The average of every set on each of `count` seeded resamples:
/// `out[s][b]` is set `s`'s mean on resample `b`. All sets share the
/// resamples (a paired bootstrap), so differences between them are not
/// resampling noise. The sets must be as long as the first; an empty
/// first set gives no resamples.
pub fn resample_means(sets: &[&[f64]], count: usize, seed: u64) -> Vec<Vec<f64>> {
    let n = sets.first().map_or(0, |s| s.len());
    let mut out = vec![Vec::with_capacity(count); sets.len()];
    if n == 0 {
        return out;
    }
    for b in 0..count {
        for (o, m) in out
            .iter_mut()
            .zip(means_over(sets, resample(seed, b as u64, n)))
        {
            o.push(m);
        }
    }
    out
}

/// The percentile interval at level `1 − alpha` of resample averages.
/// `means` must not be empty.
pub fn summarise(mut means: Vec<f64>, alpha: f64) -> PercentileInterval {
    // numpy's `np.mean` up to summation order (it sums pairwise; the
    // difference is far below 1e-12).
    let mean = means.iter().sum::<f64>() / means.len() as f64;
    means.sort_by(f64::total_cmp);
    PercentileInterval {
        mean,
        // obp passes `100 * (alpha / 2)` and `100 * (1 - alpha / 2)` to
        // `np.percentile`, which divides by 100 again: keep those roundings.
        lower: percentile(&means, (100.0 * (alpha / 2.0)) / 100.0),
        upper: percentile(&means, (100.0 * (1.0 - alpha / 2.0)) / 100.0),
    }
}

/// numpy's default (`linear`) quantile `q ∈ [0, 1]` of `sorted` (ascending,
/// non-empty), with numpy's interpolation formula so results match bit for bit.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    let last = sorted.len() - 1;
    let virtual_index = last as f64 * q;
    if virtual_index >= last as f64 {
        return sorted[last];
    }
    if virtual_index <= 0.0 {
        return sorted[0];
    }
    let below = virtual_index.floor();
    let (a, b) = (sorted[below as usize], sorted[below as usize + 1]);
    let t = virtual_index - below;
    let diff = b - a;
    // numpy's `_lerp`: interpolate from the nearer end.
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_matches_numpy() {
        // np.percentile([1, 2, 4, 8], [2.5, 50, 97.5]) = [1.075, 3.0, 7.7]
        let s = [1.0, 2.0, 4.0, 8.0];
        assert!((percentile(&s, 0.025) - 1.075).abs() < 1e-15);
        assert_eq!(percentile(&s, 0.5), 3.0);
        assert!((percentile(&s, 0.975) - 7.7).abs() < 1e-15);
        assert_eq!(percentile(&s, 0.0), 1.0);
        assert_eq!(percentile(&s, 1.0), 8.0);
        assert_eq!(percentile(&[5.0], 0.3), 5.0);
    }

    #[test]
    fn a_seed_fixes_the_resamples_and_another_seed_changes_them() {
        let samples: Vec<f64> = (0..50).map(|i| f64::from(i % 7)).collect();
        let a = resample_means(&[&samples], 500, 1);
        assert_eq!(a, resample_means(&[&samples], 500, 1));
        assert_ne!(a, resample_means(&[&samples], 500, 2));
        let ci = summarise(a[0].clone(), 0.05);
        let mean = samples.iter().sum::<f64>() / 50.0;
        assert!(ci.lower < mean && mean < ci.upper, "{ci:?}");
        assert!((ci.mean - mean).abs() < 0.1, "{ci:?}");
    }

    #[test]
    fn resample_b_draws_from_stream_b_of_the_seed() {
        let mut rng = SplitMix64::stream(9, 3);
        let want: Vec<usize> = (0..20).map(|_| rng.below(20)).collect();
        assert_eq!(resample(9, 3, 20).collect::<Vec<_>>(), want);
        assert!(resample(9, 3, 20).all(|i| i < 20));
    }

    #[test]
    fn paired_sets_share_their_resamples() {
        let x = [0.0, 10.0, 20.0];
        let twice = [0.0, 20.0, 40.0];
        let m = resample_means(&[&x, &twice], 50, 4);
        assert!(m[0].iter().zip(&m[1]).all(|(a, b)| *b == 2.0 * a));
        assert_eq!(means_over(&[&x], [1, 2, 2]), vec![50.0 / 3.0]);
        assert!(resample_means(&[&[]], 5, 1)[0].is_empty());
    }
}
