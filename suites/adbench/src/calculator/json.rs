//! Earlier tool results (JSON) as calculator values: objects become dicts
//! in the order their keys were written, arrays lists, numbers int or float.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::ops::dict_insert;
use super::value::{Dict, Value};

/// A JSON document decoded straight into a calculator value.
pub struct JsonValue(pub Value);

impl<'de> Deserialize<'de> for JsonValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<JsonValue, D::Error> {
        d.deserialize_any(JsonVisitor).map(JsonValue)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::None)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Int(i))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(match i64::try_from(u) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::BigInt(std::rc::Rc::new(u.into())),
        })
    }

    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Value::Float(f))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(JsonValue(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::list(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut d = Dict::new();
        while let Some((k, JsonValue(v))) = map.next_entry::<String, JsonValue>()? {
            dict_insert(&mut d, Value::str(&k), v)
                .map_err(|_| serde::de::Error::custom("unhashable key"))?;
        }
        Ok(Value::dict(d))
    }
}

/// Parses one variable's JSON text.
pub fn parse(text: &str) -> Result<Value, String> {
    serde_json::from_str::<JsonValue>(text)
        .map(|j| j.0)
        .map_err(|e| e.to_string())
}
