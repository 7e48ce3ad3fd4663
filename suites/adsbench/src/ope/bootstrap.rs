//! Percentile bootstrap confidence intervals, as obp computes them: resample
//! the per-round terms with replacement, average each resample, and take the
//! `α/2` and `1 - α/2` percentiles (numpy's default linear interpolation) of
//! those averages. Resamples are either drawn from a seed (deterministic) or
//! given as index rows, which reproduces obp's interval exactly.

use super::error::OpeError;
use super::rng::SplitMix64;

/// Resamples an interval uses unless told otherwise.
pub const DEFAULT_RESAMPLES: usize = 10_000;
/// Significance level unless told otherwise (95% intervals).
pub const DEFAULT_ALPHA: f64 = 0.05;

/// A bootstrap interval: obp's `mean` (of the resample averages) and bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Mean of the resample averages.
    pub mean: f64,
    /// `α/2` percentile.
    pub lower: f64,
    /// `1 - α/2` percentile.
    pub upper: f64,
}

/// Where resample indices come from.
#[derive(Debug, Clone, Copy)]
pub enum Resamples<'a> {
    /// `count` resamples of size n, drawn from `seed`: resample `b` uses
    /// stream `b` of the seed, so results do not depend on evaluation order.
    Seeded {
        /// Number of resamples.
        count: usize,
        /// Seed.
        seed: u64,
    },
    /// Explicit resamples, one row of round indices each.
    Given(&'a [Vec<usize>]),
}

impl Resamples<'_> {
    /// [`DEFAULT_RESAMPLES`] seeded resamples.
    pub fn seeded(seed: u64) -> Resamples<'static> {
        Resamples::Seeded {
            count: DEFAULT_RESAMPLES,
            seed,
        }
    }

    fn count(&self) -> usize {
        match self {
            Resamples::Seeded { count, .. } => *count,
            Resamples::Given(rows) => rows.len(),
        }
    }
}

/// The average of every sample set on each resample: `out[s][b]` is set
/// `s`'s mean on resample `b`. All sets share the resamples (a paired
/// bootstrap), so differences between estimators are not resampling noise.
///
/// # Errors
/// [`OpeError`] when the sets differ in length or are empty, or a given
/// index row is empty or points past the samples.
pub fn resample_means(
    sets: &[&[f64]],
    resamples: &Resamples<'_>,
) -> Result<Vec<Vec<f64>>, OpeError> {
    let n = sets.first().map_or(0, |s| s.len());
    if n == 0 {
        return Err(OpeError::Empty { field: "samples" });
    }
    if let Some(bad) = sets.iter().find(|s| s.len() != n) {
        return Err(OpeError::Length {
            field: "samples",
            expected: n,
            actual: bad.len(),
        });
    }
    let count = resamples.count();
    if count == 0 {
        return Err(OpeError::Setting {
            field: "resamples",
            value: "0".into(),
            reason: "need at least one resample",
        });
    }
    let mut out = vec![Vec::with_capacity(count); sets.len()];
    let mut sums = vec![0.0; sets.len()];
    match resamples {
        Resamples::Seeded { seed, .. } => {
            for b in 0..count {
                let mut rng = SplitMix64::stream(*seed, b as u64);
                sums.fill(0.0);
                for _ in 0..n {
                    let i = rng.below(n);
                    for (sum, set) in sums.iter_mut().zip(sets) {
                        *sum += set[i];
                    }
                }
                for (o, sum) in out.iter_mut().zip(&sums) {
                    o.push(sum / n as f64);
                }
            }
        }
        Resamples::Given(rows) => {
            for (b, row) in rows.iter().enumerate() {
                if row.is_empty() {
                    return Err(OpeError::value(
                        "resample_indices",
                        b,
                        "[]",
                        "a resample needs at least one index",
                    ));
                }
                if let Some(&i) = row.iter().find(|&&i| i >= n) {
                    return Err(OpeError::value(
                        "resample_indices",
                        b,
                        i,
                        "an index must point at a logged round",
                    ));
                }
                sums.fill(0.0);
                for &i in row {
                    for (sum, set) in sums.iter_mut().zip(sets) {
                        *sum += set[i];
                    }
                }
                for (o, sum) in out.iter_mut().zip(&sums) {
                    o.push(sum / row.len() as f64);
                }
            }
        }
    }
    Ok(out)
}

/// Percentile interval of `samples` (per-round terms) at level `1 - alpha`.
///
/// # Errors
/// As [`resample_means`], and [`OpeError::Setting`] for `alpha` outside (0, 1).
pub fn interval(
    samples: &[f64],
    resamples: &Resamples<'_>,
    alpha: f64,
) -> Result<Interval, OpeError> {
    check_alpha(alpha)?;
    let means = resample_means(&[samples], resamples)?;
    Ok(summarise(
        means.into_iter().next().unwrap_or_default(),
        alpha,
    ))
}

/// obp's summary of resample averages: their mean and percentile bounds.
pub fn summarise(mut means: Vec<f64>, alpha: f64) -> Interval {
    // Same operation order as obp's `np.mean(boot_samples)` up to summation
    // order (numpy sums pairwise; the difference is far below 1e-12).
    let mean = means.iter().sum::<f64>() / means.len() as f64;
    means.sort_by(f64::total_cmp);
    Interval {
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

pub(crate) fn check_alpha(alpha: f64) -> Result<(), OpeError> {
    if alpha.is_nan() || alpha <= 0.0 || alpha >= 1.0 {
        return Err(OpeError::Setting {
            field: "alpha",
            value: alpha.to_string(),
            reason: "the significance level must lie in (0, 1)",
        });
    }
    Ok(())
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
    fn seeded_resamples_are_deterministic_and_seed_dependent() {
        let samples: Vec<f64> = (0..50).map(|i| (i % 7) as f64).collect();
        let a = interval(
            &samples,
            &Resamples::Seeded {
                count: 500,
                seed: 1,
            },
            0.05,
        )
        .unwrap();
        let b = interval(
            &samples,
            &Resamples::Seeded {
                count: 500,
                seed: 1,
            },
            0.05,
        )
        .unwrap();
        let c = interval(
            &samples,
            &Resamples::Seeded {
                count: 500,
                seed: 2,
            },
            0.05,
        )
        .unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let mean = samples.iter().sum::<f64>() / 50.0;
        assert!(a.lower < mean && mean < a.upper, "{a:?}");
        assert!((a.mean - mean).abs() < 0.1, "{a:?}");
    }

    #[test]
    fn given_indices_are_used_as_is() {
        let samples = [0.0, 10.0, 20.0];
        let rows = vec![vec![0, 0, 0], vec![1, 2, 2], vec![2, 2, 2]];
        let means = resample_means(&[&samples], &Resamples::Given(&rows)).unwrap();
        assert_eq!(means[0], vec![0.0, 50.0 / 3.0, 20.0]);
        let bad = vec![vec![0, 3]];
        let err = interval(&samples, &Resamples::Given(&bad), 0.05).unwrap_err();
        assert!(matches!(
            err,
            OpeError::Value {
                field: "resample_indices",
                ..
            }
        ));
        let err = interval(&samples, &Resamples::Given(&rows), 1.0).unwrap_err();
        assert!(matches!(err, OpeError::Setting { field: "alpha", .. }));
    }
}
