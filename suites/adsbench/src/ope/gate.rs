//! The release gate for a logged policy: its doubly robust estimate must beat
//! the baseline with confidence, i.e. the lower end of DR's bootstrap interval
//! lies above the baseline's value.

use super::bootstrap::Interval;
use super::error::OpeError;

/// The gate's decision and the numbers behind it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateVerdict {
    /// DR's lower bound is strictly above the baseline.
    pub passed: bool,
    /// Lower end of DR's interval.
    pub dr_lower: f64,
    /// The baseline's value (e.g. the logging policy's mean reward).
    pub baseline: f64,
    /// `dr_lower - baseline`: positive when the gate passes.
    pub margin: f64,
}

/// Judges DR's interval `dr` for the evaluated policy against `baseline`.
///
/// # Errors
/// [`OpeError::Setting`] when `baseline` or the interval is not finite, or
/// the interval's bounds are out of order.
pub fn dr_beats_baseline(dr: &Interval, baseline: f64) -> Result<GateVerdict, OpeError> {
    if !baseline.is_finite() {
        return Err(OpeError::Setting {
            field: "baseline",
            value: baseline.to_string(),
            reason: "the baseline value must be finite",
        });
    }
    if !(dr.lower.is_finite() && dr.upper.is_finite() && dr.lower <= dr.upper) {
        return Err(OpeError::Setting {
            field: "dr_interval",
            value: format!("[{}, {}]", dr.lower, dr.upper),
            reason: "DR's interval must be finite with lower <= upper",
        });
    }
    let margin = dr.lower - baseline;
    Ok(GateVerdict {
        passed: margin > 0.0,
        dr_lower: dr.lower,
        baseline,
        margin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ci(lower: f64, upper: f64) -> Interval {
        Interval {
            mean: (lower + upper) / 2.0,
            lower,
            upper,
        }
    }

    #[test]
    fn passes_only_when_the_lower_bound_clears_the_baseline() {
        let v = dr_beats_baseline(&ci(0.52, 0.60), 0.5).unwrap();
        assert!(v.passed);
        assert!((v.margin - 0.02).abs() < 1e-12);
        // The point estimate beats the baseline but the interval does not.
        assert!(!dr_beats_baseline(&ci(0.48, 0.60), 0.5).unwrap().passed);
        // A tie is not a win.
        assert!(!dr_beats_baseline(&ci(0.5, 0.6), 0.5).unwrap().passed);
    }

    #[test]
    fn malformed_inputs_are_errors() {
        let err = dr_beats_baseline(&ci(0.1, 0.2), f64::NAN).unwrap_err();
        assert!(matches!(
            err,
            OpeError::Setting {
                field: "baseline",
                ..
            }
        ));
        let err = dr_beats_baseline(&ci(0.3, 0.2), 0.1).unwrap_err();
        assert!(matches!(
            err,
            OpeError::Setting {
                field: "dr_interval",
                ..
            }
        ));
    }
}
