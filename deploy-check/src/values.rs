//! Chart values: YAML to `gtmpl` values and back, and Helm's deep merge.

use gtmpl_value::{Number, Value};
use std::collections::HashMap;

/// Merges `over` into `base` the way Helm merges `-f` files: maps merge key
/// by key, anything else replaces.
pub fn merge(base: &mut serde_yaml::Value, over: serde_yaml::Value) {
    match (base, over) {
        (serde_yaml::Value::Mapping(b), serde_yaml::Value::Mapping(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

/// A YAML value as the template engine sees it.
pub(crate) fn to_template(v: &serde_yaml::Value) -> Value {
    match v {
        serde_yaml::Value::Null => Value::Nil,
        serde_yaml::Value::Bool(b) => Value::Bool(*b),
        serde_yaml::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Number(Number::from(i))
            } else if let Some(u) = n.as_u64() {
                Value::Number(Number::from(u))
            } else {
                Value::Number(Number::from(n.as_f64().unwrap_or(f64::NAN)))
            }
        }
        serde_yaml::Value::String(s) => Value::String(s.clone()),
        serde_yaml::Value::Sequence(s) => Value::Array(s.iter().map(to_template).collect()),
        serde_yaml::Value::Mapping(m) => Value::Map(
            m.iter()
                .map(|(k, v)| (key_string(k), to_template(v)))
                .collect::<HashMap<_, _>>(),
        ),
        serde_yaml::Value::Tagged(t) => to_template(&t.value),
    }
}

fn key_string(k: &serde_yaml::Value) -> String {
    match k {
        serde_yaml::Value::String(s) => s.clone(),
        other => serde_yaml::to_string(other)
            .unwrap_or_default()
            .trim_end()
            .to_string(),
    }
}

/// A template value back as YAML (for `toYaml`); functions become null.
pub(crate) fn to_yaml(v: &Value) -> serde_yaml::Value {
    match v {
        Value::NoValue | Value::Nil | Value::Function(_) => serde_yaml::Value::Null,
        Value::Bool(b) => serde_yaml::Value::Bool(*b),
        Value::String(s) => serde_yaml::Value::String(s.clone()),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                serde_yaml::Value::Number(i.into())
            } else if let Some(u) = n.as_u64() {
                serde_yaml::Value::Number(u.into())
            } else {
                serde_yaml::Value::Number(n.as_f64().unwrap_or(f64::NAN).into())
            }
        }
        Value::Array(a) => serde_yaml::Value::Sequence(a.iter().map(to_yaml).collect()),
        Value::Map(m) | Value::Object(m) => {
            // Sorted keys, as Helm's toYaml writes them.
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            serde_yaml::Value::Mapping(
                keys.into_iter()
                    .map(|k| (serde_yaml::Value::String(k.clone()), to_yaml(&m[k])))
                    .collect(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_overrides_scalars_and_merges_maps() {
        let mut base: serde_yaml::Value =
            serde_yaml::from_str("a: {b: 1, c: 2}\nl: [1, 2]").unwrap();
        merge(
            &mut base,
            serde_yaml::from_str("a: {c: 3}\nl: [9]").unwrap(),
        );
        let want: serde_yaml::Value = serde_yaml::from_str("a: {b: 1, c: 3}\nl: [9]").unwrap();
        assert_eq!(base, want);
    }

    #[test]
    fn yaml_round_trips_through_template_values() {
        let v: serde_yaml::Value =
            serde_yaml::from_str("x: [1, true, s, 0.5]\ny: {z: null}").unwrap();
        assert_eq!(to_yaml(&to_template(&v)), v);
    }
}
