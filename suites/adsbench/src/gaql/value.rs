//! Typed field values: what a row holds and what a condition compares.

use crate::market::Date;
use serde::{Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;

/// One field's value in a row or a condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An unset field (e.g. a keyword's quality score before it has one).
    Null,
    /// `BOOLEAN`.
    Bool(bool),
    /// `INT64` (money in micros is INT64).
    Int64(i64),
    /// `DOUBLE`.
    Double(f64),
    /// `STRING`.
    String(String),
    /// `ENUM`: the constant's name, e.g. `ENABLED`.
    Enum(String),
    /// `DATE`.
    Date(Date),
    /// `RESOURCE_NAME`, e.g. `customers/1/campaigns/2`.
    ResourceName(String),
    /// A repeated field.
    List(Vec<Value>),
}

impl Value {
    /// The value as f64, for numeric comparisons.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int64(n) => Some(*n as f64),
            Value::Double(x) => Some(*x),
            _ => None,
        }
    }

    /// The text of a string-like value (string, enum, resource name).
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::String(s) | Value::Enum(s) | Value::ResourceName(s) => Some(s),
            _ => None,
        }
    }

    /// Rank of the variant, so values of different kinds still order totally.
    fn rank(&self) -> u8 {
        match self {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Int64(_) | Value::Double(_) => 2,
            Value::Date(_) => 3,
            Value::String(_) | Value::Enum(_) | Value::ResourceName(_) => 4,
            Value::List(_) => 5,
        }
    }

    /// A total order for ORDER BY: nulls first, numbers numerically (Int64
    /// and Double together), dates chronologically, text by bytes, enums by
    /// name. A total order keeps paging stable even on NaN.
    pub fn total_cmp(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Int64(a), Value::Int64(b)) => a.cmp(b),
            (Value::Date(a), Value::Date(b)) => a.cmp(b),
            (Value::List(a), Value::List(b)) => {
                for (x, y) in a.iter().zip(b) {
                    let o = x.total_cmp(y);
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                a.len().cmp(&b.len())
            }
            _ => match (
                self.as_f64(),
                other.as_f64(),
                self.as_text(),
                other.as_text(),
            ) {
                (Some(a), Some(b), _, _) => a.total_cmp(&b),
                (_, _, Some(a), Some(b)) => a.cmp(b),
                _ => self.rank().cmp(&other.rank()),
            },
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int64(n) => write!(f, "{n}"),
            Value::Double(x) => write!(f, "{x}"),
            Value::String(s) | Value::Enum(s) | Value::ResourceName(s) => f.write_str(s),
            Value::Date(d) => write!(f, "{d}"),
            Value::List(items) => {
                let texts: Vec<String> = items.iter().map(ToString::to_string).collect();
                write!(f, "[{}]", texts.join(", "))
            }
        }
    }
}

/// Serialized as Google's JSON does: INT64 as a string (JSON numbers lose
/// precision past 2^53), dates as `YYYY-MM-DD`.
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_none(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int64(n) => s.serialize_str(&n.to_string()),
            Value::Double(x) => s.serialize_f64(*x),
            Value::String(t) | Value::Enum(t) | Value::ResourceName(t) => s.serialize_str(t),
            Value::Date(d) => s.serialize_str(&d.to_string()),
            Value::List(items) => items.serialize(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_numbers_across_kinds_and_nulls_first() {
        let mut v = vec![
            Value::Double(2.5),
            Value::Null,
            Value::Int64(3),
            Value::Int64(-1),
        ];
        v.sort_by(Value::total_cmp);
        assert_eq!(
            v,
            vec![
                Value::Null,
                Value::Int64(-1),
                Value::Double(2.5),
                Value::Int64(3)
            ]
        );
        assert_eq!(
            serde_json::to_string(&Value::Int64(1 << 60)).unwrap(),
            "\"1152921504606846976\""
        );
    }
}
