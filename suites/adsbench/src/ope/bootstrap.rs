//! Percentile bootstrap confidence intervals, as obp computes them
//! ([`adfarm_suite::stats`]'s seeded percentile bootstrap): resample the
//! per-round terms with replacement, average each resample, and take the
//! `α/2` and `1 - α/2` percentiles (numpy's default linear interpolation) of
//! those averages. Resamples are either drawn from a seed (deterministic) or
//! given as index rows, which reproduces obp's interval exactly.

use super::error::OpeError;
use adfarm_suite::stats;

pub use adfarm_suite::stats::{percentile, summarise, PercentileInterval as Interval};

/// Resamples an interval uses unless told otherwise.
pub const DEFAULT_RESAMPLES: usize = 10_000;
/// Significance level unless told otherwise (95% intervals).
pub const DEFAULT_ALPHA: f64 = 0.05;

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
    let rows = match resamples {
        Resamples::Seeded { seed, .. } => return Ok(stats::resample_means(sets, count, *seed)),
        Resamples::Given(rows) => rows,
    };
    let mut out = vec![Vec::with_capacity(count); sets.len()];
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
        for (o, m) in out
            .iter_mut()
            .zip(stats::means_over(sets, row.iter().copied()))
        {
            o.push(m);
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
    fn seeded_resamples_are_the_shared_bootstrap_of_the_seed() {
        let samples: Vec<f64> = (0..50).map(|i| f64::from(i % 7)).collect();
        let seeded = |seed| Resamples::Seeded { count: 500, seed };
        let a = interval(&samples, &seeded(1), 0.05).unwrap();
        let shared = stats::resample_means(&[&samples], 500, 1).remove(0);
        assert_eq!(a, summarise(shared, 0.05));
        assert_ne!(a, interval(&samples, &seeded(2), 0.05).unwrap());
        let mean = samples.iter().sum::<f64>() / 50.0;
        assert!(a.lower < mean && mean < a.upper, "{a:?}");
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
