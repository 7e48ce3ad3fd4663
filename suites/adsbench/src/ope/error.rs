//! Why an off-policy estimate cannot be computed: every error names the
//! offending input field, and the round where it applies.

/// Bad input to an estimator, a bootstrap or a loader.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OpeError {
    /// Two inputs that must describe the same rounds differ in length.
    #[error("`{field}` has {actual} entries, expected {expected} (one per logged round)")]
    Length {
        /// The field with the wrong length.
        field: &'static str,
        /// What the other inputs imply.
        expected: usize,
        /// What it has.
        actual: usize,
    },
    /// A tensor has the wrong shape.
    #[error("`{field}` has shape {actual:?}, expected {expected:?}")]
    Shape {
        /// The field with the wrong shape.
        field: &'static str,
        /// `(n_rounds, n_actions, len_list)` expected.
        expected: (usize, usize, usize),
        /// `(n_rounds, n_actions, len_list)` given.
        actual: (usize, usize, usize),
    },
    /// A value is outside its domain.
    #[error("`{field}`[{index}] = {value}: {reason}")]
    Value {
        /// The field.
        field: &'static str,
        /// Round (or flat index) of the bad value.
        index: usize,
        /// The value, as text so integers and floats read naturally.
        value: String,
        /// What it must be.
        reason: &'static str,
    },
    /// A setting (clip, alpha, resample count) is invalid.
    #[error("`{field}` = {value}: {reason}")]
    Setting {
        /// The setting.
        field: &'static str,
        /// Its value.
        value: String,
        /// What it must be.
        reason: &'static str,
    },
    /// The log holds no rounds.
    #[error("no logged rounds: `{field}` is empty")]
    Empty {
        /// The empty field.
        field: &'static str,
    },
    /// A self-normalised estimator has no weight to normalise by.
    #[error("every importance weight is zero: the evaluated policy never picks a logged action, so `{field}` cannot be self-normalised")]
    ZeroWeights {
        /// The estimator's field (`action_dist`).
        field: &'static str,
    },
}

impl OpeError {
    pub(crate) fn value(
        field: &'static str,
        index: usize,
        value: impl ToString,
        reason: &'static str,
    ) -> OpeError {
        OpeError::Value {
            field,
            index,
            value: value.to_string(),
            reason,
        }
    }
}
