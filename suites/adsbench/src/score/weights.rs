//! The composite's weights: the proposal's defaults (business 0.46,
//! operational efficiency 0.18, safety and risk 0.14, explainability 0.12,
//! compute cost 0.10), or a sweep's own, read from the suite's parameters
//! (`weights = { business = 0.5, operations = 0.14 }`). A key left out
//! keeps its default; every weight must be a non-negative number and the
//! five must sum to 1 (within 1e-9). Errors are [`DataError::Param`]
//! naming the field, which the farm prefixes with the sweep file's line.

use adfarm_suite::DataError;
use serde::{Deserialize, Serialize};

/// How far from 1 the weights' sum may be.
pub const SUM_TOLERANCE: f64 = 1e-9;

/// The weight of each component in the composite.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// Business outcome (utility or answer correctness).
    pub business: f64,
    /// Operational efficiency.
    pub operations: f64,
    /// Safety and risk.
    pub safety: f64,
    /// Explainability of the agent's changes.
    pub explainability: f64,
    /// Compute cost.
    pub compute: f64,
}

impl Default for Weights {
    /// The proposal's weights: 46 / 18 / 14 / 12 / 10.
    fn default() -> Weights {
        Weights {
            business: 0.46,
            operations: 0.18,
            safety: 0.14,
            explainability: 0.12,
            compute: 0.10,
        }
    }
}

/// The keys of a `weights` table, in component order.
pub const KEYS: [&str; 5] = [
    "business",
    "operations",
    "safety",
    "explainability",
    "compute",
];

impl Weights {
    /// The weights in [`KEYS`] order.
    pub fn values(&self) -> [f64; 5] {
        [
            self.business,
            self.operations,
            self.safety,
            self.explainability,
            self.compute,
        ]
    }

    fn slot(&mut self, key: &str) -> Option<&mut f64> {
        Some(match key {
            "business" => &mut self.business,
            "operations" => &mut self.operations,
            "safety" => &mut self.safety,
            "explainability" => &mut self.explainability,
            "compute" => &mut self.compute,
            _ => return None,
        })
    }

    /// The weights a suite's parameters set in their optional `weights`
    /// table; the defaults without one.
    ///
    /// # Errors
    /// [`DataError::Param`] naming `params.weights` (not a table, or a sum
    /// other than 1) or `params.weights.<key>` (an unknown key, a value
    /// that is not a number, a negative one).
    pub fn from_params(params: &serde_json::Value) -> Result<Weights, DataError> {
        let mut w = Weights::default();
        let Some(table) = params.get("weights") else {
            return Ok(w);
        };
        let obj = table.as_object().ok_or_else(|| DataError::Param {
            field: "params.weights".into(),
            reason: format!("must be a table of {}, got {table}", KEYS.join(", ")),
        })?;
        for (key, v) in obj {
            let field = format!("params.weights.{key}");
            let slot = w.slot(key).ok_or_else(|| DataError::Param {
                field: field.clone(),
                reason: format!("unknown weight; valid: {}", KEYS.join(", ")),
            })?;
            *slot = v.as_f64().ok_or_else(|| DataError::Param {
                field,
                reason: format!("must be a number, got {v}"),
            })?;
        }
        w.check()?;
        Ok(w)
    }

    /// Whether these weights can weigh a composite.
    ///
    /// # Errors
    /// [`DataError::Param`] naming `params.weights.<key>` for a negative
    /// or non-finite weight, or `params.weights` when they do not sum to 1.
    pub fn check(&self) -> Result<(), DataError> {
        for (key, v) in KEYS.iter().zip(self.values()) {
            if !(v.is_finite() && v >= 0.0) {
                return Err(DataError::Param {
                    field: format!("params.weights.{key}"),
                    reason: format!("must be a non-negative number, got {v}"),
                });
            }
        }
        let sum: f64 = self.values().iter().sum();
        if (sum - 1.0).abs() > SUM_TOLERANCE {
            return Err(DataError::Param {
                field: "params.weights".into(),
                reason: format!("must sum to 1, got {sum}"),
            });
        }
        Ok(())
    }
}
