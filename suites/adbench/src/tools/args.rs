//! Typed reading of a call's JSON arguments. Models send ids as numbers or
//! digit strings, so both are accepted; anything else is rejected with the
//! argument's name. Null counts as absent for optional arguments.

use serde_json::{Map, Value};

use super::error::ToolError;
use crate::world::Day;

/// A call's arguments, checked against the names the tool takes.
pub struct Args<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    /// Wraps `v`, rejecting non-objects and unknown argument names.
    ///
    /// # Errors
    /// [`ToolError::NotAnObject`] or [`ToolError::Unknown`].
    pub fn new(v: &'a Value, allowed: &[String]) -> Result<Args<'a>, ToolError> {
        let map = v.as_object().ok_or(ToolError::NotAnObject)?;
        if let Some(k) = map.keys().find(|k| !allowed.contains(k)) {
            return Err(ToolError::Unknown(k.clone()));
        }
        Ok(Args { map })
    }

    fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    fn need(&self, name: &str) -> Result<&'a Value, ToolError> {
        self.get(name)
            .ok_or_else(|| ToolError::Missing(name.to_string()))
    }

    /// A required id.
    ///
    /// # Errors
    /// Missing or not a non-negative integer.
    pub fn id(&self, name: &str) -> Result<u64, ToolError> {
        as_id(name, self.need(name)?)
    }

    /// An optional id.
    ///
    /// # Errors
    /// Present but not a non-negative integer.
    pub fn opt_id(&self, name: &str) -> Result<Option<u64>, ToolError> {
        self.get(name).map(|v| as_id(name, v)).transpose()
    }

    /// A required non-empty list of ids (a single id is taken as a list of one).
    ///
    /// # Errors
    /// Missing, empty, or holding a non-id.
    pub fn id_list(&self, name: &str) -> Result<Vec<u64>, ToolError> {
        let v = self.need(name)?;
        let ids: Vec<u64> = match v {
            Value::Array(items) => items
                .iter()
                .map(|x| as_id(name, x))
                .collect::<Result<_, _>>()?,
            other => vec![as_id(name, other)?],
        };
        if ids.is_empty() {
            return Err(ToolError::bad(name, "must list at least one id"));
        }
        let mut seen = ids.clone();
        seen.sort_unstable();
        seen.dedup();
        if seen.len() != ids.len() {
            return Err(ToolError::bad(name, "lists an id twice"));
        }
        Ok(ids)
    }

    /// An optional list of ids.
    ///
    /// # Errors
    /// Present but empty or holding a non-id.
    pub fn opt_id_list(&self, name: &str) -> Result<Option<Vec<u64>>, ToolError> {
        if self.get(name).is_none() {
            return Ok(None);
        }
        self.id_list(name).map(Some)
    }

    /// A required string.
    ///
    /// # Errors
    /// Missing or not a string.
    pub fn string(&self, name: &str) -> Result<&'a str, ToolError> {
        self.need(name)?
            .as_str()
            .ok_or_else(|| ToolError::bad(name, "must be a string"))
    }

    /// An optional string.
    ///
    /// # Errors
    /// Present but not a string.
    pub fn opt_string(&self, name: &str) -> Result<Option<&'a str>, ToolError> {
        self.get(name)
            .map(|v| {
                v.as_str()
                    .ok_or_else(|| ToolError::bad(name, "must be a string"))
            })
            .transpose()
    }

    /// A required non-empty list of strings (a single string is a list of one).
    ///
    /// # Errors
    /// Missing, empty, or holding a non-string.
    pub fn string_list(&self, name: &str) -> Result<Vec<&'a str>, ToolError> {
        let v = self.need(name)?;
        let out: Vec<&str> = match v {
            Value::Array(items) => items
                .iter()
                .map(|x| {
                    x.as_str()
                        .ok_or_else(|| ToolError::bad(name, "must be a list of strings"))
                })
                .collect::<Result<_, _>>()?,
            Value::String(s) => vec![s.as_str()],
            _ => return Err(ToolError::bad(name, "must be a list of strings")),
        };
        if out.is_empty() {
            return Err(ToolError::bad(name, "must not be empty"));
        }
        Ok(out)
    }

    /// An optional integer in `lo..=hi`, `default` when absent.
    ///
    /// # Errors
    /// Present but not an integer in range.
    pub fn int_in(
        &self,
        name: &str,
        lo: u64,
        hi: u64,
        default: Option<u64>,
    ) -> Result<u64, ToolError> {
        let v = match (self.get(name), default) {
            (Some(v), _) => v,
            (None, Some(d)) => return Ok(d),
            (None, None) => return Err(ToolError::Missing(name.to_string())),
        };
        let n = as_id(name, v)
            .map_err(|_| ToolError::bad(name, format!("must be an integer from {lo} to {hi}")))?;
        if n < lo || n > hi {
            return Err(ToolError::bad(
                name,
                format!("must be an integer from {lo} to {hi}, got {n}"),
            ));
        }
        Ok(n)
    }

    /// A required `YYYY-MM-DD` date.
    ///
    /// # Errors
    /// Missing or not a valid date.
    pub fn date(&self, name: &str) -> Result<Day, ToolError> {
        let s = self.string(name)?;
        Day::parse(s)
            .ok_or_else(|| ToolError::bad(name, format!("must be a date YYYY-MM-DD, got {s:?}")))
    }
}

fn as_id(name: &str, v: &Value) -> Result<u64, ToolError> {
    match v {
        Value::Number(n) => n.as_u64().ok_or_else(|| {
            ToolError::bad(name, format!("must be a non-negative integer id, got {n}"))
        }),
        Value::String(s)
            if !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit()) =>
        {
            s.parse()
                .map_err(|_| ToolError::bad(name, format!("id {s:?} is too large")))
        }
        other => Err(ToolError::bad(
            name,
            format!("must be an integer id, got {other}"),
        )),
    }
}
