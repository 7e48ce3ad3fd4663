//! Reading a solution's `params` table: each error names the parameter
//! (`params.<name>`), so the sweep file reports its line.

use adfarm_suite::DataError;
use serde_json::{Map, Value};

/// An invalid parameter `name`.
pub fn param_err(name: &str, reason: impl Into<String>) -> DataError {
    DataError::Param {
        field: format!("params.{name}"),
        reason: reason.into(),
    }
}

/// The `params` table of `solution`, checked to hold only `valid` names.
///
/// # Errors
/// A parameter not in `valid`, or `params` that is not a table.
pub fn table<'a>(
    solution: &str,
    params: &'a Value,
    valid: &[&str],
) -> Result<Option<&'a Map<String, Value>>, DataError> {
    let obj = match params {
        Value::Null => return Ok(None),
        Value::Object(o) => o,
        other => {
            return Err(DataError::Param {
                field: "params".into(),
                reason: format!("must be a table, got {other}"),
            })
        }
    };
    for key in obj.keys() {
        if !valid.contains(&key.as_str()) {
            let valid = if valid.is_empty() {
                format!("{solution} takes no parameters")
            } else {
                format!(
                    "unknown parameter of {solution}; valid: {}",
                    valid.join(", ")
                )
            };
            return Err(param_err(key, valid));
        }
    }
    Ok(Some(obj))
}

/// Parameter `name` as a non-negative integer, if set.
///
/// # Errors
/// A value of another type.
pub fn count(obj: Option<&Map<String, Value>>, name: &str) -> Result<Option<u64>, DataError> {
    match obj.and_then(|o| o.get(name)) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| param_err(name, format!("must be a non-negative integer, got {v}"))),
    }
}

/// Parameter `name` as a number, if set.
///
/// # Errors
/// A value of another type.
pub fn number(obj: Option<&Map<String, Value>>, name: &str) -> Result<Option<f64>, DataError> {
    match obj.and_then(|o| o.get(name)) {
        None => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| param_err(name, format!("must be a number, got {v}"))),
    }
}

/// Parameter `name` as text, if set.
///
/// # Errors
/// A value of another type.
pub fn text<'a>(
    obj: Option<&'a Map<String, Value>>,
    name: &str,
) -> Result<Option<&'a str>, DataError> {
    match obj.and_then(|o| o.get(name)) {
        None => Ok(None),
        Some(v) => v
            .as_str()
            .map(Some)
            .ok_or_else(|| param_err(name, format!("must be a string, got {v}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn errors_name_the_parameter() {
        let p = json!({"top_t": "x", "nope": 1});
        let e = table("gi-r", &p, &["top_t"]).unwrap_err();
        assert!(
            matches!(e, DataError::Param { ref field, .. } if field == "params.nope"),
            "{e}"
        );
        let p = json!({"top_t": "x"});
        let obj = table("gi-r", &p, &["top_t"]).unwrap();
        let e = count(obj, "top_t").unwrap_err();
        assert!(
            matches!(e, DataError::Param { ref field, .. } if field == "params.top_t"),
            "{e}"
        );
        let e = table("no-ads", &json!({"a": 1}), &[]).unwrap_err();
        assert!(e.to_string().contains("no-ads takes no parameters"), "{e}");
        assert_eq!(table("x", &Value::Null, &[]).unwrap(), None);
    }
}
