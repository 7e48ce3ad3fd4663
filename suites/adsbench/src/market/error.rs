//! The market's one error type: every message names the field at fault.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MarketError {
    /// A configuration or account-change value out of range.
    #[error("invalid {field}: {reason}")]
    Invalid { field: String, reason: String },
    /// A resource the change refers to does not exist.
    #[error("{field}: no such resource {resource}")]
    NotFound { field: String, resource: String },
    /// A change the resource's state forbids (e.g. enabling a removed one).
    #[error("{field}: {reason}")]
    Rejected { field: String, reason: String },
}

impl MarketError {
    pub fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        MarketError::Invalid {
            field: field.into(),
            reason: reason.into(),
        }
    }

    pub fn not_found(field: impl Into<String>, resource: impl Into<String>) -> Self {
        MarketError::NotFound {
            field: field.into(),
            resource: resource.into(),
        }
    }

    pub fn rejected(field: impl Into<String>, reason: impl Into<String>) -> Self {
        MarketError::Rejected {
            field: field.into(),
            reason: reason.into(),
        }
    }
}
