//! The JSON Schema subset a local tool call's arguments are written under,
//! compiled from a tool's `parameters` into a [`Shape`].
//!
//! Supported: `type` (`object`, `string`, `integer`, `number`, `boolean`,
//! `null`, `array`, or a list of one of them plus `"null"`), `properties`,
//! `required`, `items`, `minItems`/`maxItems`, `minLength`/`maxLength`,
//! `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum` (either
//! draft's form), `enum`, `const`. Annotations (`description`, `title`,
//! `default`, `format` ...) are ignored, and so is `additionalProperties`:
//! the writer only ever writes declared properties, which every value of it
//! allows. Any other keyword is refused, because the call could not be
//! guaranteed to satisfy it.
//!
//! What the writer does not do unbounded is capped: a string ends after
//! [`MAX_STRING_TOKENS`] tokens, an array after [`MAX_ARRAY_ITEMS`] items
//! (unless `minLength`/`minItems` ask for more), an integer has at most
//! nine digits, a number at most four decimals (and only after an integer
//! part all of whose decimals are within the bounds).

use super::digits::{Bounds, Real};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Most tokens of a string value (past `minLength`).
pub(crate) const MAX_STRING_TOKENS: usize = 32;

/// Most items of an array (past `minItems`).
pub(crate) const MAX_ARRAY_ITEMS: usize = 8;

/// Between properties and between items.
pub(crate) const SEP: &str = ", ";

/// Between a key and its value.
pub(crate) const COLON: &str = ": ";

const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "enum",
    "const",
    "additionalProperties",
    "description",
    "title",
    "default",
    "examples",
    "format",
    "nullable",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
    "$comment",
];

/// What a value must look like.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shape {
    /// A string of `min_chars..=max_chars` characters.
    Str { min_chars: usize, max_chars: usize },
    /// An integer within bounds.
    Int(Bounds),
    /// A number: an integer part within the integer bounds, then decimals
    /// when the real bounds hold them all.
    Num(Bounds, Real),
    /// One of these JSON texts (`enum`, `const`, `boolean`, `null`).
    Literal(Vec<String>),
    /// An array.
    Array(Arc<ArrayShape>),
    /// An object.
    Object(Arc<ObjectShape>),
}

/// Items and how many.
#[derive(Debug, PartialEq)]
pub(crate) struct ArrayShape {
    pub(crate) item: Shape,
    pub(crate) min_items: usize,
    pub(crate) max_items: usize,
}

/// One declared property.
#[derive(Debug, PartialEq)]
pub(crate) struct Property {
    pub(crate) name: String,
    /// The name as a JSON string literal.
    pub(crate) key: String,
    pub(crate) shape: Shape,
    pub(crate) description: Option<String>,
}

/// Properties in the order they are written: required ones in the order
/// of `required`, then optional ones by name (an order that does not
/// depend on how the schema's JSON object was parsed).
#[derive(Debug, PartialEq)]
pub(crate) struct ObjectShape {
    pub(crate) required: Vec<Property>,
    pub(crate) optional: Vec<Property>,
}

/// Compiles a tool's `parameters`; an empty or absent schema is an object
/// without properties.
///
/// # Errors
/// What is outside the subset, with where it is (`/properties/unit`).
pub(crate) fn compile_parameters(schema: &Value) -> Result<Arc<ObjectShape>, String> {
    let empty = || ObjectShape {
        required: vec![],
        optional: vec![],
    };
    match schema {
        Value::Null => Ok(Arc::new(empty())),
        Value::Object(m) if m.is_empty() => Ok(Arc::new(empty())),
        _ => match compile(schema, "")? {
            Shape::Object(o) => Ok(o),
            _ => Err(": must be an object schema".into()),
        },
    }
}

fn compile(schema: &Value, at: &str) -> Result<Shape, String> {
    let s = schema
        .as_object()
        .ok_or_else(|| format!("{at}: a schema must be an object"))?;
    if let Some(k) = s.keys().find(|k| !KEYWORDS.contains(&k.as_str())) {
        return Err(format!("{at}: unsupported keyword `{k}`"));
    }
    let ty = match s.get("type") {
        None => None,
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(list)) => {
            // A value of one type satisfies "that type or null".
            let kinds: Vec<&str> = list
                .iter()
                .filter_map(Value::as_str)
                .filter(|k| *k != "null")
                .collect();
            match kinds[..] {
                [] => Some("null"),
                [one] => Some(one),
                _ => return Err(format!("{at}: a union of types is not supported")),
            }
        }
        Some(_) => return Err(format!("{at}: `type` must be a string or a list")),
    };
    let base = match ty {
        Some("string") => Some(string(s, at)?),
        Some("integer") => Some(Shape::Int(integers(s, at)?)),
        Some("number") => Some(Shape::Num(integers(s, at)?, real(s))),
        Some("boolean") => Some(Shape::Literal(vec!["true".into(), "false".into()])),
        Some("null") => Some(Shape::Literal(vec!["null".into()])),
        Some("array") => Some(array(s, at)?),
        Some("object") => Some(object(s, at)?),
        Some(other) => return Err(format!("{at}: unknown type `{other}`")),
        None if s.contains_key("properties") => Some(object(s, at)?),
        None if s.contains_key("items") => Some(array(s, at)?),
        None => None,
    };
    let values = match (s.get("const"), s.get("enum")) {
        (Some(c), _) => Some(vec![c.clone()]),
        (None, Some(Value::Array(v))) => Some(v.clone()),
        (None, Some(_)) => return Err(format!("{at}: `enum` must be a list")),
        (None, None) => None,
    };
    match (values, base) {
        (Some(values), base) => {
            let mut texts: Vec<String> = Vec::new();
            for v in values {
                if base.as_ref().is_none_or(|b| b.admits(&v)) {
                    let t = v.to_string();
                    if !texts.contains(&t) {
                        texts.push(t);
                    }
                }
            }
            if texts.is_empty() {
                return Err(format!("{at}: no `enum`/`const` value fits the type"));
            }
            Ok(Shape::Literal(texts))
        }
        (None, Some(base)) => Ok(base),
        (None, None) => Err(format!("{at}: a schema needs a `type`")),
    }
}

fn count(s: &Map<String, Value>, key: &str, at: &str) -> Result<Option<usize>, String> {
    match s.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .map(|n| Some(n as usize))
            .ok_or_else(|| format!("{at}: `{key}` must be a non-negative integer")),
    }
}

fn string(s: &Map<String, Value>, at: &str) -> Result<Shape, String> {
    let min_chars = count(s, "minLength", at)?.unwrap_or(0);
    let max_chars = count(s, "maxLength", at)?.unwrap_or(usize::MAX);
    if min_chars > max_chars {
        return Err(format!("{at}: minLength is above maxLength"));
    }
    Ok(Shape::Str {
        min_chars,
        max_chars,
    })
}

/// The declared bounds; draft 4 writes `exclusiveMinimum: true` next to
/// `minimum`, later drafts a number of its own. The tighter one wins.
fn real(s: &Map<String, Value>) -> Real {
    let num = |k: &str| s.get(k).and_then(Value::as_f64);
    let flag = |k: &str| s.get(k).and_then(Value::as_bool).unwrap_or(false);
    let mut r = Real::ANY;
    for (m, open) in [
        (num("minimum"), flag("exclusiveMinimum")),
        (num("exclusiveMinimum"), true),
    ] {
        if let Some(m) = m.filter(|&m| m > r.lo || (m == r.lo && open)) {
            (r.lo, r.lo_open) = (m, open);
        }
    }
    for (m, open) in [
        (num("maximum"), flag("exclusiveMaximum")),
        (num("exclusiveMaximum"), true),
    ] {
        if let Some(m) = m.filter(|&m| m < r.hi || (m == r.hi && open)) {
            (r.hi, r.hi_open) = (m, open);
        }
    }
    r
}

/// The integers a schema allows, clamped to nine digits.
fn integers(s: &Map<String, Value>, at: &str) -> Result<Bounds, String> {
    real(s)
        .integers()
        .ok_or_else(|| format!("{at}: no integer of at most nine digits within the bounds"))
}

fn array(s: &Map<String, Value>, at: &str) -> Result<Shape, String> {
    let items = s
        .get("items")
        .ok_or_else(|| format!("{at}: an array needs `items`"))?;
    let item = compile(items, &format!("{at}/items"))?;
    let min_items = count(s, "minItems", at)?.unwrap_or(0);
    let declared_max = count(s, "maxItems", at)?.unwrap_or(usize::MAX);
    if min_items > declared_max {
        return Err(format!("{at}: minItems is above maxItems"));
    }
    Ok(Shape::Array(Arc::new(ArrayShape {
        item,
        min_items,
        max_items: declared_max.min(MAX_ARRAY_ITEMS.max(min_items)),
    })))
}

fn object(s: &Map<String, Value>, at: &str) -> Result<Shape, String> {
    let empty = Map::new();
    let props = match s.get("properties") {
        None => &empty,
        Some(Value::Object(p)) => p,
        Some(_) => return Err(format!("{at}: `properties` must be an object")),
    };
    let mut required_names: Vec<&str> = Vec::new();
    if let Some(r) = s.get("required") {
        for name in r
            .as_array()
            .ok_or_else(|| format!("{at}: `required` must be a list"))?
        {
            let name = name
                .as_str()
                .ok_or_else(|| format!("{at}: `required` must list names"))?;
            if !props.contains_key(name) {
                return Err(format!("{at}: required property `{name}` is not declared"));
            }
            if !required_names.contains(&name) {
                required_names.push(name);
            }
        }
    }
    let property = |name: &str| -> Result<Property, String> {
        let schema = &props[name];
        Ok(Property {
            name: name.to_string(),
            key: Value::from(name).to_string(),
            shape: compile(schema, &format!("{at}/properties/{name}"))?,
            description: schema
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
        })
    };
    let required = required_names
        .iter()
        .map(|n| property(n))
        .collect::<Result<Vec<_>, _>>()?;
    let mut optional_names: Vec<&String> = props
        .keys()
        .filter(|k| !required_names.contains(&k.as_str()))
        .collect();
    optional_names.sort();
    let optional = optional_names
        .into_iter()
        .map(|n| property(n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Shape::Object(Arc::new(ObjectShape { required, optional })))
}

impl Shape {
    /// Whether `v` is a value of this shape as the writer writes them
    /// (filters `enum` and `const` values; checks written calls in tests).
    pub(crate) fn admits(&self, v: &Value) -> bool {
        match self {
            Shape::Str {
                min_chars,
                max_chars,
            } => v
                .as_str()
                .is_some_and(|s| (*min_chars..=*max_chars).contains(&s.chars().count())),
            Shape::Int(b) => v
                .as_f64()
                .is_some_and(|x| x.fract() == 0.0 && x >= b.lo as f64 && x <= b.hi as f64),
            Shape::Num(_, r) => v.as_f64().is_some_and(|x| r.contains(x)),
            Shape::Literal(texts) => texts.contains(&v.to_string()),
            Shape::Array(a) => v.as_array().is_some_and(|items| {
                (a.min_items..=a.max_items).contains(&items.len())
                    && items.iter().all(|i| a.item.admits(i))
            }),
            Shape::Object(o) => v.as_object().is_some_and(|m| {
                let props = || o.required.iter().chain(&o.optional);
                o.required.iter().all(|p| m.contains_key(&p.name))
                    && m.keys().all(|k| props().any(|p| &p.name == k))
                    && props().all(|p| m.get(&p.name).is_none_or(|x| p.shape.admits(x)))
            }),
        }
    }

    /// Most tokens the shortest value of this shape takes: one per byte of
    /// its text (a token writes at least one byte), one per character a
    /// string must have (a token writes at least one character).
    pub(crate) fn min_cost(&self) -> usize {
        match self {
            Shape::Str { min_chars, .. } => 2 + min_chars,
            Shape::Int(b) | Shape::Num(b, _) => b.shortest().len(),
            Shape::Literal(texts) => texts.iter().map(String::len).min().unwrap_or(0),
            Shape::Array(a) => {
                2 + a.min_items * a.item.min_cost() + a.min_items.saturating_sub(1) * SEP.len()
            }
            Shape::Object(o) => o.min_cost(),
        }
    }

    /// Bytes a value of this shape can start with.
    pub(crate) fn first_bytes(&self) -> Vec<u8> {
        match self {
            Shape::Str { .. } => vec![b'"'],
            Shape::Int(_) | Shape::Num(..) => b"-0123456789".to_vec(),
            Shape::Literal(texts) => texts.iter().filter_map(|t| t.bytes().next()).collect(),
            Shape::Array(_) => vec![b'['],
            Shape::Object(_) => vec![b'{'],
        }
    }

    /// A TypeScript-like rendering for the prompt: `string`, `integer`,
    /// `"a" | "b"`, `string[]`, `{city: string, unit?: ...}`.
    pub(crate) fn describe(&self) -> String {
        match self {
            Shape::Str { .. } => "string".into(),
            Shape::Int(b) => {
                let lo = (b.lo > Bounds::ANY.lo).then_some(b.lo as f64);
                let hi = (b.hi < Bounds::ANY.hi).then_some(b.hi as f64);
                format!("integer{}", span(lo, hi))
            }
            Shape::Num(_, r) => {
                let finite = |x: f64| x.is_finite().then_some(x);
                format!("number{}", span(finite(r.lo), finite(r.hi)))
            }
            Shape::Literal(t) if t[..] == ["true", "false"] => "boolean".into(),
            Shape::Literal(t) => t.join(" | "),
            Shape::Array(a) => match &a.item {
                Shape::Literal(t) if t.len() > 1 => format!("({})[]", a.item.describe()),
                item => format!("{}[]", item.describe()),
            },
            Shape::Object(o) => format!("{{{}}}", o.describe_fields()),
        }
    }
}

/// ` 1..10`, ` >= 1`, ` <= 5` or nothing.
fn span(lo: Option<f64>, hi: Option<f64>) -> String {
    match (lo, hi) {
        (Some(lo), Some(hi)) => format!(" {lo}..{hi}"),
        (Some(lo), None) => format!(" >= {lo}"),
        (None, Some(hi)) => format!(" <= {hi}"),
        (None, None) => String::new(),
    }
}

impl ObjectShape {
    /// Most tokens of the shortest object: its required properties with
    /// their shortest values.
    pub(crate) fn min_cost(&self) -> usize {
        2 + self
            .required
            .iter()
            .enumerate()
            .map(|(i, p)| usize::from(i > 0) * SEP.len() + p.cost_with(p.shape.min_cost()))
            .sum::<usize>()
    }

    /// `city: string, unit?: "celsius" | "fahrenheit"`.
    pub(crate) fn describe_fields(&self) -> String {
        let required = self.required.iter().map(|p| (p, ""));
        let optional = self.optional.iter().map(|p| (p, "?"));
        required
            .chain(optional)
            .map(|(p, mark)| format!("{}{mark}: {}", p.name, p.shape.describe()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Property {
    /// Tokens of `"key": ` plus a value costing `value`.
    pub(crate) fn cost_with(&self, value: usize) -> usize {
        self.key.len() + COLON.len() + value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shape(v: Value) -> Result<Shape, String> {
        compile(&v, "")
    }

    #[test]
    fn objects_order_required_then_optional_by_name() {
        let o = compile_parameters(&json!({
            "type": "object",
            "properties": {
                "zip": {"type": "string"}, "b": {"type": "integer"},
                "city": {"type": "string", "description": "City name"},
                "a": {"type": "boolean"}
            },
            "required": ["city", "zip"],
            "additionalProperties": false
        }))
        .unwrap();
        let names = |ps: &[Property]| ps.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&o.required), ["city", "zip"]);
        assert_eq!(names(&o.optional), ["a", "b"]);
        assert_eq!(o.required[0].description.as_deref(), Some("City name"));
        assert_eq!(o.required[0].key, "\"city\"");
        // {"city": "", "zip": ""}
        assert_eq!(o.min_cost(), r#"{"city": "", "zip": ""}"#.len());
        assert_eq!(
            o.describe_fields(),
            "city: string, zip: string, a?: boolean, b?: integer"
        );
    }

    #[test]
    fn enums_bounds_and_nullable_types() {
        assert_eq!(
            shape(json!({"type": "string", "enum": ["a", "b", 3, "a"]})),
            Ok(Shape::Literal(vec!["\"a\"".into(), "\"b\"".into()]))
        );
        assert_eq!(
            shape(json!({"type": ["integer", "null"], "minimum": 0.5, "exclusiveMaximum": 10})),
            Ok(Shape::Int(Bounds { lo: 1, hi: 9 }))
        );
        let draft4 = Real {
            lo: 0.0,
            lo_open: true,
            hi: 5.0,
            hi_open: false,
        };
        assert_eq!(
            shape(json!({"type": "number", "minimum": 0, "maximum": 5, "exclusiveMinimum": true})),
            Ok(Shape::Num(Bounds { lo: 1, hi: 5 }, draft4)),
            "draft 4 exclusive flag"
        );
        let both = json!({"type": "number", "minimum": 1, "exclusiveMinimum": 1, "maximum": 7.5});
        let Ok(Shape::Num(b, r)) = shape(both) else {
            panic!("a number")
        };
        assert_eq!(
            (b, r.lo, r.lo_open, r.hi),
            (Bounds { lo: 2, hi: 7 }, 1.0, true, 7.5)
        );
        assert_eq!(Shape::Num(b, r).describe(), "number 1..7.5");
        assert_eq!(
            shape(json!({"type": "number"})),
            Ok(Shape::Num(Bounds::ANY, Real::ANY))
        );
        assert_eq!(
            shape(json!({"type": "integer", "minimum": 1}))
                .unwrap()
                .describe(),
            "integer >= 1"
        );
        assert_eq!(
            shape(json!({"const": 7})),
            Ok(Shape::Literal(vec!["7".into()]))
        );
        let Ok(Shape::Array(a)) =
            shape(json!({"type": "array", "items": {"type": "string"}, "minItems": 1}))
        else {
            panic!("an array")
        };
        assert_eq!((a.min_items, a.max_items), (1, MAX_ARRAY_ITEMS));
        assert_eq!(Shape::Array(a).describe(), "string[]");
    }

    #[test]
    fn what_cannot_be_guaranteed_is_refused() {
        for (schema, why) in [
            (
                json!({"type": "string", "pattern": "^a"}),
                "unsupported keyword `pattern`",
            ),
            (json!({"anyOf": []}), "unsupported keyword `anyOf`"),
            (json!({"type": ["string", "integer"]}), "union"),
            (
                json!({"type": "integer", "minimum": 5, "maximum": 4}),
                "no integer",
            ),
            (
                json!({"type": "number", "minimum": 0.2, "maximum": 0.8}),
                "no integer",
            ),
            (json!({"type": "array"}), "needs `items`"),
            (json!({"type": "object", "required": ["x"]}), "not declared"),
            (json!({"type": "string", "enum": [1, 2]}), "no `enum`"),
            (json!({"description": "anything"}), "needs a `type`"),
        ] {
            let err = shape(schema.clone()).expect_err(&schema.to_string());
            assert!(err.contains(why), "{schema}: {err}");
        }
        assert!(compile_parameters(&json!({"type": "string"})).is_err());
        assert!(compile_parameters(&json!({})).unwrap().required.is_empty());
    }
}
