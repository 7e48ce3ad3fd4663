//! Agreement between judges: Cohen's κ for a pair of judges,
//! Krippendorff's α for any number of judges with missing verdicts (judge
//! scores 0/30/60/75/90 are ordered categories, so reports use ordinal α),
//! and Kendall's τ-b between two judges' rankings of the solutions, all from
//! [`adfarm_suite::stats`]; here, how a verdict becomes a category.

use adfarm_proto::Verdict;

pub use adfarm_suite::stats::{cohen_kappa, kendall_tau_b, krippendorff_alpha, Level};

/// A verdict as a category for κ and α: the score rounded to an integer
/// (judge scores are 0/30/60/75/90), `None` when unscored.
pub fn verdict_category(v: &Verdict) -> Option<i64> {
    match v {
        Verdict::Score(s) if s.is_finite() => Some(s.round() as i64),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_become_categories() {
        assert_eq!(verdict_category(&Verdict::Score(75.0)), Some(75));
        assert_eq!(verdict_category(&Verdict::Score(74.6)), Some(75));
        assert_eq!(
            verdict_category(&Verdict::Unscored("parse-failure".into())),
            None
        );
        assert_eq!(verdict_category(&Verdict::Score(f64::NAN)), None);
    }
}
