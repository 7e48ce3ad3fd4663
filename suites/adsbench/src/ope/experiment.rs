//! The classic OPE experiment: estimate an evaluated policy's value from
//! another policy's logs with each estimator, and score each estimate by its
//! relative error against the evaluated policy's on-policy value, with
//! bootstrap intervals for both.

use super::bootstrap::{self, Interval, Resamples};
use super::data::OpeInput;
use super::error::OpeError;
use super::estimator::Estimator;

/// One estimator's result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorRow {
    /// Which estimator.
    pub estimator: Estimator,
    /// Its estimate of the policy value.
    pub estimate: f64,
    /// Bootstrap interval of the estimate.
    pub interval: Interval,
    /// `|estimate - on_policy| / on_policy`.
    pub relative_error: f64,
    /// Percentile interval of the relative error over the same resamples.
    pub relative_error_interval: (f64, f64),
}

/// Runs `estimators` on `input` and compares them with `on_policy`, all on
/// the same resamples.
///
/// # Errors
/// [`OpeError`] from an estimator or the bootstrap, or for an `on_policy`
/// value that is zero or not finite.
pub fn relative_errors(
    input: &OpeInput<'_>,
    estimators: &[Estimator],
    on_policy: f64,
    resamples: &Resamples<'_>,
    alpha: f64,
) -> Result<Vec<ErrorRow>, OpeError> {
    bootstrap::check_alpha(alpha)?;
    if !(on_policy.is_finite() && on_policy != 0.0) {
        return Err(OpeError::Setting {
            field: "on_policy",
            value: on_policy.to_string(),
            reason: "the reference value must be finite and non-zero",
        });
    }
    let rounds = estimators
        .iter()
        .map(|e| e.round_rewards(input))
        .collect::<Result<Vec<_>, _>>()?;
    let sets: Vec<&[f64]> = rounds.iter().map(Vec::as_slice).collect();
    let means = bootstrap::resample_means(&sets, resamples)?;
    let rel = |v: f64| (v - on_policy).abs() / on_policy;
    Ok(estimators
        .iter()
        .zip(rounds.iter().zip(means))
        .map(|(&estimator, (r, m))| {
            let estimate = r.iter().sum::<f64>() / r.len() as f64;
            let mut errs: Vec<f64> = m.iter().map(|&v| rel(v)).collect();
            errs.sort_by(f64::total_cmp);
            let relative_error_interval = (
                bootstrap::percentile(&errs, alpha / 2.0),
                bootstrap::percentile(&errs, 1.0 - alpha / 2.0),
            );
            ErrorRow {
                estimator,
                estimate,
                interval: bootstrap::summarise(m, alpha),
                relative_error: rel(estimate),
                relative_error_interval,
            }
        })
        .collect())
}

/// A Markdown table of `rows` (for reports and the README).
pub fn table(rows: &[ErrorRow], on_policy: f64, alpha: f64) -> String {
    let level = 100.0 * (1.0 - alpha);
    let mut s = format!(
        "| estimator | estimate | {level}% CI | relative error | {level}% CI |\n|---|---|---|---|---|\n"
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {:.6} | [{:.6}, {:.6}] | {:.4} | [{:.4}, {:.4}] |\n",
            r.estimator,
            r.estimate,
            r.interval.lower,
            r.interval.upper,
            r.relative_error,
            r.relative_error_interval.0,
            r.relative_error_interval.1
        ));
    }
    s.push_str(&format!("\non-policy value: {on_policy:.6}\n"));
    s
}

#[cfg(test)]
mod tests {
    use super::super::synthetic::SyntheticBandit;
    use super::*;

    #[test]
    fn errors_are_relative_to_the_on_policy_value() {
        let b = SyntheticBandit::new(3, 4, 5);
        let s = b.sample(400, 1).unwrap();
        let input = OpeInput::new(&s.log, &s.action_dist, Some(&s.estimated_rewards)).unwrap();
        let truth = b.true_value();
        let rs = Resamples::Seeded {
            count: 300,
            seed: 2,
        };
        let rows = relative_errors(&input, &Estimator::ALL, truth, &rs, 0.05).unwrap();
        assert_eq!(rows.len(), 5);
        for r in &rows {
            assert_eq!(r.estimate, r.estimator.estimate(&input).unwrap());
            assert!((r.relative_error - (r.estimate - truth).abs() / truth).abs() < 1e-15);
            assert!(
                r.interval.lower <= r.estimate && r.estimate <= r.interval.upper,
                "{r:?}"
            );
            assert!(r.relative_error_interval.0 <= r.relative_error_interval.1);
        }
        let t = table(&rows, truth, 0.05);
        assert_eq!(t.lines().filter(|l| l.starts_with("| ")).count(), 6, "{t}");
        let err = relative_errors(&input, &Estimator::ALL, 0.0, &rs, 0.05).unwrap_err();
        assert!(matches!(
            err,
            OpeError::Setting {
                field: "on_policy",
                ..
            }
        ));
    }
}
