//! Builtin functions (`len`, `sorted`, `round`, the type conversions...).
//! Names that would reach outside the sandbox (`open`, `__import__`,
//! `eval`...) resolve to a refusal that names them.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::rc::Rc;

use super::bigint;
use super::error::{is_subclass, Raised, EXCEPTION_CLASSES};
use super::format::format_value;
use super::interp::Interp;
use super::modules;
use super::ops;
use super::value::{compare, range_len, Dict, Key, Value};

const FUNCTIONS: &[&str] = &[
    "print",
    "len",
    "range",
    "abs",
    "round",
    "sum",
    "min",
    "max",
    "sorted",
    "reversed",
    "enumerate",
    "zip",
    "map",
    "filter",
    "any",
    "all",
    "isinstance",
    "type",
    "divmod",
    "pow",
    "chr",
    "ord",
    "repr",
    "format",
    "hex",
    "bin",
    "oct",
    "callable",
    "iter",
    "next",
];

/// Types that are also conversion functions (`int("3")`), reachable by name.
const CONVERSIONS: &[&str] = &[
    "int",
    "float",
    "str",
    "bool",
    "list",
    "tuple",
    "dict",
    "set",
    "frozenset",
];

/// The other type names `type()` returns; they print as classes.
const OTHER_TYPES: &[&str] = &[
    "NoneType",
    "range",
    "function",
    "module",
    "type",
    "slice",
    "dict_keys",
    "dict_values",
    "dict_items",
    "builtin_function_or_method",
];

/// Names refused by policy, with the reason the agent is shown.
const REFUSED: &[(&str, &str)] = &[
    ("open", "the calculator has no file access"),
    ("input", "the calculator has no input"),
    (
        "__import__",
        "only `import math` and `import statistics` are allowed",
    ),
    ("exec", "the calculator does not run generated code"),
    ("eval", "the calculator does not run generated code"),
    ("compile", "the calculator does not run generated code"),
    ("globals", "the calculator does not expose its namespaces"),
    ("locals", "the calculator does not expose its namespaces"),
    ("vars", "the calculator does not expose its namespaces"),
    ("getattr", "use dict keys instead of dynamic attributes"),
    ("setattr", "use dict keys instead of dynamic attributes"),
    ("delattr", "use dict keys instead of dynamic attributes"),
    ("hasattr", "use dict keys instead of dynamic attributes"),
    ("breakpoint", "the calculator has no debugger"),
    ("exit", "the calculator has no process control"),
    ("quit", "the calculator has no process control"),
    ("help", "the calculator has no interactive help"),
    ("dir", "the calculator does not expose its namespaces"),
    ("id", "object identities are not deterministic"),
    ("hash", "string hashes are not deterministic"),
    ("object", "classes are not supported; use dicts"),
    ("super", "classes are not supported; use dicts"),
    ("classmethod", "classes are not supported; use dicts"),
    ("staticmethod", "classes are not supported; use dicts"),
    ("property", "classes are not supported; use dicts"),
    ("memoryview", "byte buffers are not supported"),
    ("bytes", "byte strings are not supported"),
    ("bytearray", "byte strings are not supported"),
    (
        "__builtins__",
        "the calculator does not expose its namespaces",
    ),
];

pub fn is_type_name(name: &str) -> bool {
    CONVERSIONS.contains(&name) || OTHER_TYPES.contains(&name)
}

/// Resolves a name no variable defines.
pub fn lookup(name: &str) -> Result<Value, Raised> {
    if let Some(f) = FUNCTIONS
        .iter()
        .chain(CONVERSIONS.iter())
        .find(|f| **f == name)
    {
        return Ok(Value::Builtin(f));
    }
    if let Some(c) = EXCEPTION_CLASSES.iter().find(|c| **c == name) {
        return Ok(Value::ExcClass(c));
    }
    if let Some((n, why)) = REFUSED.iter().find(|(n, _)| *n == name) {
        return Err(Raised::refused(format!("`{n}` is not available: {why}")));
    }
    Err(Raised::exc(
        "NameError",
        format!("name '{name}' is not defined"),
    ))
}

pub struct Kwargs {
    fname: String,
    items: Vec<(String, Value)>,
}

impl Kwargs {
    pub fn new(
        fname: &str,
        items: Vec<(String, Value)>,
        allowed: &[&str],
    ) -> Result<Kwargs, Raised> {
        if let Some((bad, _)) = items.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            return Err(Raised::type_error(format!(
                "{fname}() got an unexpected keyword argument '{bad}'"
            )));
        }
        Ok(Kwargs {
            fname: fname.to_string(),
            items,
        })
    }

    pub fn take(&mut self, name: &str) -> Option<Value> {
        let i = self.items.iter().position(|(k, _)| k == name)?;
        Some(self.items.remove(i).1)
    }

    pub fn name(&self) -> &str {
        &self.fname
    }
}

pub fn arity(fname: &str, args: &[Value], min: usize, max: usize) -> Result<(), Raised> {
    if args.len() < min || args.len() > max {
        let expected = if min == max {
            format!("exactly {min}")
        } else if args.len() < min {
            format!("at least {min}")
        } else {
            format!("at most {max}")
        };
        let s = if expected.ends_with(" 1") { "" } else { "s" };
        return Err(Raised::type_error(format!(
            "{fname}() takes {expected} argument{s} ({} given)",
            args.len()
        )));
    }
    Ok(())
}

pub fn to_f64(v: &Value, fname: &str) -> Result<f64, Raised> {
    v.as_f64().ok_or_else(|| {
        Raised::type_error(format!(
            "{fname}: must be real number, not {}",
            v.type_name()
        ))
    })
}

pub fn to_int(v: &Value, what: &str) -> Result<i64, Raised> {
    if let Value::BigInt(_) = v {
        return Err(Raised::exc(
            "OverflowError",
            format!("Python int too large to convert to C ssize_t ({what})"),
        ));
    }
    v.as_int().ok_or_else(|| {
        Raised::type_error(format!(
            "'{}' object cannot be interpreted as an integer ({what})",
            v.type_name()
        ))
    })
}

/// Sorts stably with a fallible comparison, keeping the first error.
pub fn sort_values(
    items: &mut [Value],
    keys: Option<Vec<Value>>,
    reverse: bool,
) -> Result<(), Raised> {
    let mut error: Option<Raised> = None;
    let mut cmp = |a: &Value, b: &Value| -> Ordering {
        if error.is_some() {
            return Ordering::Equal;
        }
        let r = if reverse {
            compare(b, a)
        } else {
            compare(a, b)
        };
        r.unwrap_or_else(|e| {
            error = Some(e);
            Ordering::Equal
        })
    };
    match keys {
        None => items.sort_by(&mut cmp),
        Some(keys) => {
            let mut pairs: Vec<(Value, Value)> =
                keys.into_iter().zip(items.iter().cloned()).collect();
            pairs.sort_by(|a, b| cmp(&a.0, &b.0));
            for (slot, (_, v)) in items.iter_mut().zip(pairs) {
                *slot = v;
            }
        }
    }
    match error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

pub fn apply_key(
    interp: &mut Interp,
    key: &Option<Value>,
    items: &[Value],
) -> Result<Option<Vec<Value>>, Raised> {
    match key {
        None | Some(Value::None) => Ok(None),
        Some(f) => {
            let mut keys = Vec::with_capacity(items.len());
            for item in items {
                keys.push(interp.call(f, vec![item.clone()], Vec::new())?);
            }
            Ok(Some(keys))
        }
    }
}

fn min_max(
    interp: &mut Interp,
    name: &str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value, Raised> {
    let mut kw = Kwargs::new(name, kwargs, &["key", "default"])?;
    let key = kw.take("key");
    let default = kw.take("default");
    let items = match args.len() {
        0 => {
            return Err(Raised::type_error(format!(
                "{name} expected at least 1 argument, got 0"
            )))
        }
        1 => ops::iterate(&args[0])?,
        _ => args,
    };
    if items.is_empty() {
        return default
            .ok_or_else(|| Raised::value_error(format!("{name}() arg is an empty sequence")));
    }
    let keys = apply_key(interp, &key, &items)?.unwrap_or_else(|| items.clone());
    let mut best = 0;
    for i in 1..items.len() {
        let ord = compare(&keys[i], &keys[best])?;
        let better = if name == "max" {
            ord == Ordering::Greater
        } else {
            ord == Ordering::Less
        };
        if better {
            best = i;
        }
    }
    Ok(items[best].clone())
}

/// Python's `round()`: half-to-even on the exact binary value.
pub fn round(x: &Value, ndigits: Option<&Value>) -> Result<Value, Raised> {
    let nd = match ndigits {
        None | Some(Value::None) => None,
        Some(v) => Some(to_int(v, "round() ndigits")?),
    };
    match (x, nd) {
        (Value::Float(f), None) => bigint::from_f64_trunc(f.round_ties_even()),
        (Value::BigInt(_), _) => Ok(x.clone()),
        (Value::Float(f), Some(n)) => {
            if !f.is_finite() || n > 323 {
                return Ok(Value::Float(*f));
            }
            if n >= 0 {
                // Same route as CPython: correctly rounded decimal text, parsed back.
                let text = format!("{:.*}", n as usize, f);
                Ok(Value::Float(text.parse().unwrap_or(*f)))
            } else {
                let p = 10f64.powi((-n).min(308) as i32);
                let r = (f / p).round_ties_even() * p;
                Ok(Value::Float(if r == 0.0 { 0.0f64.copysign(*f) } else { r }))
            }
        }
        (v, nd) if v.as_int().is_some() => {
            let i = v.as_int().unwrap_or(0);
            match nd {
                Some(n) if n < 0 => {
                    if n < -18 {
                        return Ok(Value::Int(0));
                    }
                    let p = 10i64.pow((-n) as u32);
                    let (q, r) = (i.div_euclid(p), i.rem_euclid(p));
                    let half = p / 2;
                    let q = if r > half || (r == half && q % 2 != 0) {
                        q + 1
                    } else {
                        q
                    };
                    Ok(Value::Int(q.checked_mul(p).ok_or_else(|| {
                        Raised::exc("OverflowError", "integer too large")
                    })?))
                }
                _ => Ok(Value::Int(i)),
            }
        }
        (other, _) => Err(Raised::type_error(format!(
            "type {} doesn't define __round__ method",
            other.type_name()
        ))),
    }
}

/// `int(text, base)`: signs, underscores between digits, `0x`/`0o`/`0b`
/// prefixes matching the base, and base 0 meaning "as a literal".
pub fn parse_int(text: &str, base: u32) -> Result<Value, Raised> {
    let bad = || {
        Raised::value_error(format!(
            "invalid literal for int() with base {base}: {}",
            super::value::str_repr(text)
        ))
    };
    let t = text.trim();
    let (neg, mut digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let mut radix = base;
    let lower = digits.get(..2).map(str::to_ascii_lowercase);
    for (prefix, prefix_radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if lower.as_deref() == Some(prefix) && (base == 0 || base == prefix_radix) {
            radix = prefix_radix;
            // A prefix may be followed by one underscore: 0x_ff.
            digits = digits[2..].strip_prefix('_').unwrap_or(&digits[2..]);
        }
    }
    if radix == 0 {
        radix = 10;
        // Base 0 reads a literal, and literals have no leading zeros.
        if digits.len() > 1
            && digits.starts_with('0')
            && digits.chars().any(|c| c != '0' && c != '_')
        {
            return Err(bad());
        }
    }
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return Err(bad());
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    let mag = num_bigint::BigInt::parse_bytes(clean.as_bytes(), radix).ok_or_else(bad)?;
    bigint::int_value(if neg { -mag } else { mag })
}

pub fn parse_float(text: &str) -> Result<f64, Raised> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let special = match lower.trim_start_matches(['+', '-']) {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    };
    if let Some(v) = special {
        return Ok(if lower.starts_with('-') { -v } else { v });
    }
    let valid = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || "+-.eE_".contains(c))
        && !t.contains("__");
    let clean: String = t.chars().filter(|c| *c != '_').collect();
    match clean.parse::<f64>() {
        Ok(v) if valid => Ok(v),
        _ => Err(Raised::value_error(format!(
            "could not convert string to float: {}",
            super::value::str_repr(text)
        ))),
    }
}

fn set_of(items: Vec<Value>) -> Result<Value, Raised> {
    let mut set = Dict::new();
    for v in items {
        // A set keeps the first of equal elements (`{True, 1.0}` holds True).
        set.entry(Key::of(&v)?).or_insert((v, Value::None));
    }
    Ok(Value::Set(Rc::new(RefCell::new(set))))
}

pub fn dict_from(v: &Value) -> Result<Dict, Raised> {
    if let Value::Dict(d) = v {
        return Ok(d.borrow().clone());
    }
    let mut d = Dict::new();
    for (i, item) in ops::iterate(v)?.into_iter().enumerate() {
        let pair = ops::iterate(&item).map_err(|_| {
            Raised::type_error(format!(
                "cannot convert dictionary update sequence element #{i} to a sequence"
            ))
        })?;
        if pair.len() != 2 {
            return Err(Raised::value_error(format!(
                "dictionary update sequence element #{i} has length {}; 2 is required",
                pair.len()
            )));
        }
        let mut pair = pair.into_iter();
        let (k, val) = (
            pair.next().unwrap_or(Value::None),
            pair.next().unwrap_or(Value::None),
        );
        ops::dict_insert(&mut d, k, val)?;
    }
    Ok(d)
}

fn is_instance(v: &Value, class: &Value) -> Result<bool, Raised> {
    Ok(match class {
        Value::Tuple(options) => {
            for c in options.iter() {
                if is_instance(v, c)? {
                    return Ok(true);
                }
            }
            false
        }
        Value::Builtin(t) if is_type_name(t) => match *t {
            "int" => matches!(v, Value::Int(_) | Value::Bool(_)),
            "frozenset" => false,
            t => v.type_name() == t,
        },
        Value::ExcClass(c) => matches!(v, Value::Exception(e) if is_subclass(&e.0, c)),
        _ => {
            return Err(Raised::type_error(
                "isinstance() arg 2 must be a type, a tuple of types, or a union",
            ))
        }
    })
}

pub fn call(
    interp: &mut Interp,
    name: &'static str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value, Raised> {
    if let Some(f) = name.strip_prefix("math.") {
        Kwargs::new(name, kwargs.clone(), &["rel_tol", "abs_tol", "start"])?;
        return modules::call_math(f, args, kwargs);
    }
    if let Some(f) = name.strip_prefix("statistics.") {
        return modules::call_statistics(f, args, kwargs);
    }
    if name == "print" {
        let mut kw = Kwargs::new(name, kwargs, &["sep", "end", "flush", "file"])?;
        if kw.take("file").is_some_and(|f| !matches!(f, Value::None)) {
            return Err(Raised::refused("`print(file=...)` is not available: the calculator has no files; print to the output"));
        }
        let text_of = |v: Option<Value>, default: &str| -> Result<String, Raised> {
            match v {
                None | Some(Value::None) => Ok(default.to_string()),
                Some(Value::Str(s)) => Ok(s.to_string()),
                Some(other) => Err(Raised::type_error(format!(
                    "sep/end must be None or a string, not {}",
                    other.type_name()
                ))),
            }
        };
        let sep = text_of(kw.take("sep"), " ")?;
        let end = text_of(kw.take("end"), "\n")?;
        let mut line = String::new();
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                line.push_str(&sep);
            }
            line.push_str(&a.to_str());
        }
        line.push_str(&end);
        interp.out.write(&line)?;
        return Ok(Value::None);
    }
    let kw_allowed: &[&str] = match name {
        "sorted" => &["key", "reverse"],
        "min" | "max" => &["key", "default"],
        "sum" | "enumerate" => &["start"],
        "round" => &["ndigits"],
        "int" => &["base"],
        "zip" => &["strict"],
        "dict" => {
            return {
                let mut d = match args.as_slice() {
                    [] => Dict::new(),
                    [one] => dict_from(one)?,
                    _ => return Err(Raised::type_error("dict expected at most 1 argument")),
                };
                for (k, v) in kwargs {
                    ops::dict_insert(&mut d, Value::str(&k), v)?;
                }
                Ok(Value::dict(d))
            }
        }
        _ => &[],
    };
    let mut kw = Kwargs::new(name, kwargs, kw_allowed)?;
    Ok(match name {
        "min" | "max" => return min_max(interp, name, args, kw.items),
        "len" => {
            arity(name, &args, 1, 1)?;
            let n = match &args[0] {
                Value::Str(s) => s.chars().count(),
                Value::List(l) => l.borrow().len(),
                Value::Tuple(t) | Value::View(_, t) => t.len(),
                Value::Record(r) => r.values.len(),
                Value::Dict(d) | Value::Set(d) => d.borrow().len(),
                Value::Range(a, b, c) => range_len(*a, *b, *c) as usize,
                other => {
                    return Err(Raised::type_error(format!(
                        "object of type '{}' has no len()",
                        other.type_name()
                    )))
                }
            };
            Value::Int(n as i64)
        }
        "range" => {
            arity(name, &args, 1, 3)?;
            let ints: Vec<i64> = args
                .iter()
                .map(|a| to_int(a, "range"))
                .collect::<Result<_, _>>()?;
            let (start, stop, step) = match ints.as_slice() {
                [stop] => (0, *stop, 1),
                [start, stop] => (*start, *stop, 1),
                [start, stop, step] => (*start, *stop, *step),
                _ => unreachable!("arity checked"),
            };
            if step == 0 {
                return Err(Raised::value_error("range() arg 3 must not be zero"));
            }
            Value::Range(start, stop, step)
        }
        "abs" => {
            arity(name, &args, 1, 1)?;
            match &args[0] {
                Value::Float(f) => Value::Float(f.abs()),
                v if v.is_integral() => {
                    let b = bigint::as_big(v).unwrap_or_default();
                    bigint::int_value(num_traits::Signed::abs(&b))?
                }
                other => {
                    return Err(Raised::type_error(format!(
                        "bad operand type for abs(): '{}'",
                        other.type_name()
                    )))
                }
            }
        }
        "round" => {
            arity(name, &args, 1, 2)?;
            let nd = args.get(1).cloned().or_else(|| kw.take("ndigits"));
            round(&args[0], nd.as_ref())?
        }
        "sum" => {
            arity(name, &args, 1, 2)?;
            let mut total = args
                .get(1)
                .cloned()
                .or_else(|| kw.take("start"))
                .unwrap_or(Value::Int(0));
            if matches!(total, Value::Str(_)) {
                return Err(Raised::type_error(
                    "sum() can't sum strings [use ''.join(seq) instead]",
                ));
            }
            for item in ops::iterate(&args[0])? {
                total = ops::binary(super::ast::BinOp::Add, &total, &item)?;
            }
            total
        }
        "sorted" => {
            arity(name, &args, 1, 1)?;
            let mut items = ops::iterate(&args[0])?;
            let key = kw.take("key");
            let reverse = kw.take("reverse").is_some_and(|v| v.truthy());
            let keys = apply_key(interp, &key, &items)?;
            sort_values(&mut items, keys, reverse)?;
            Value::list(items)
        }
        "reversed" => {
            arity(name, &args, 1, 1)?;
            if matches!(args[0], Value::Set(_)) {
                return Err(Raised::type_error("'set' object is not reversible"));
            }
            let mut items = ops::iterate(&args[0])?;
            items.reverse();
            Value::iter("list_reverseiterator", items)
        }
        "enumerate" => {
            arity(name, &args, 1, 2)?;
            let start = match args.get(1).cloned().or_else(|| kw.take("start")) {
                Some(v) => to_int(&v, "enumerate start")?,
                None => 0,
            };
            let items = ops::iterate(&args[0])?;
            Value::iter(
                "enumerate",
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| Value::tuple(vec![Value::Int(start.saturating_add(i as i64)), v]))
                    .collect(),
            )
        }
        "zip" => {
            let strict = kw.take("strict").is_some_and(|v| v.truthy());
            let lists: Vec<Vec<Value>> = args.iter().map(ops::iterate).collect::<Result<_, _>>()?;
            let n = lists.iter().map(Vec::len).min().unwrap_or(0);
            if strict && lists.iter().any(|l| l.len() != n) {
                return Err(Raised::value_error(
                    "zip() arguments have different lengths",
                ));
            }
            Value::iter(
                "zip",
                (0..n)
                    .map(|i| Value::tuple(lists.iter().map(|l| l[i].clone()).collect()))
                    .collect(),
            )
        }
        "map" => {
            if args.len() < 2 {
                return Err(Raised::type_error(
                    "map() must have at least two arguments.",
                ));
            }
            let lists: Vec<Vec<Value>> = args[1..]
                .iter()
                .map(ops::iterate)
                .collect::<Result<_, _>>()?;
            let n = lists.iter().map(Vec::len).min().unwrap_or(0);
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                out.push(interp.call(
                    &args[0],
                    lists.iter().map(|l| l[i].clone()).collect(),
                    Vec::new(),
                )?);
            }
            Value::iter("map", out)
        }
        "filter" => {
            arity(name, &args, 2, 2)?;
            let mut out = Vec::new();
            for item in ops::iterate(&args[1])? {
                let keep = match &args[0] {
                    Value::None => item.truthy(),
                    f => interp.call(f, vec![item.clone()], Vec::new())?.truthy(),
                };
                if keep {
                    out.push(item);
                }
            }
            Value::iter("filter", out)
        }
        "iter" => {
            arity(name, &args, 1, 1)?;
            match &args[0] {
                Value::Iter(_) => args[0].clone(),
                other => {
                    let kind = match other {
                        Value::List(_) => "list_iterator",
                        Value::Tuple(_) => "tuple_iterator",
                        Value::Str(_) => "str_ascii_iterator",
                        Value::Dict(_) => "dict_keyiterator",
                        Value::Set(_) => "set_iterator",
                        Value::Range(..) => "range_iterator",
                        _ => "iterator",
                    };
                    Value::iter(kind, ops::iterate(other)?)
                }
            }
        }
        "next" => {
            arity(name, &args, 1, 2)?;
            let Value::Iter(it) = &args[0] else {
                return Err(Raised::type_error(format!(
                    "'{}' object is not an iterator",
                    args[0].type_name()
                )));
            };
            let mut it = it.borrow_mut();
            match it.items.get(it.pos).cloned() {
                Some(v) => {
                    it.pos += 1;
                    v
                }
                None => match args.get(1) {
                    Some(default) => default.clone(),
                    None => return Err(Raised::exc("StopIteration", "")),
                },
            }
        }
        "any" => {
            arity(name, &args, 1, 1)?;
            Value::Bool(ops::iterate(&args[0])?.iter().any(Value::truthy))
        }
        "all" => {
            arity(name, &args, 1, 1)?;
            Value::Bool(ops::iterate(&args[0])?.iter().all(Value::truthy))
        }
        "isinstance" => {
            arity(name, &args, 2, 2)?;
            Value::Bool(is_instance(&args[0], &args[1])?)
        }
        "type" => {
            arity(name, &args, 1, 1)?;
            match &args[0] {
                Value::Exception(e) => Value::ExcClass(super::value::exception_type_name(&e.0)),
                v => Value::Builtin(v.type_name()),
            }
        }
        "divmod" => {
            arity(name, &args, 2, 2)?;
            let q = ops::binary(super::ast::BinOp::FloorDiv, &args[0], &args[1])?;
            let r = ops::binary(super::ast::BinOp::Mod, &args[0], &args[1])?;
            Value::tuple(vec![q, r])
        }
        "pow" => {
            arity(name, &args, 2, 3)?;
            match args.get(2) {
                None | Some(Value::None) => {
                    ops::binary(super::ast::BinOp::Pow, &args[0], &args[1])?
                }
                Some(m) => {
                    let (b, e, m) = (
                        to_int(&args[0], "pow")?,
                        to_int(&args[1], "pow")?,
                        to_int(m, "pow")?,
                    );
                    if m == 0 {
                        return Err(Raised::value_error("pow() 3rd argument cannot be 0"));
                    }
                    if e < 0 {
                        return Err(Raised::value_error("pow() negative exponent with modulus is not supported by the calculator"));
                    }
                    let (mut result, mut base, mut exp, m128) =
                        (1i128, (b as i128).rem_euclid(m as i128), e, m as i128);
                    while exp > 0 {
                        if exp & 1 == 1 {
                            result = (result * base).rem_euclid(m128);
                        }
                        base = (base * base).rem_euclid(m128);
                        exp >>= 1;
                    }
                    let r = result.rem_euclid(m128) as i64;
                    // Python's result takes the modulus's sign.
                    Value::Int(if m < 0 && r != 0 { r + m } else { r })
                }
            }
        }
        "chr" => {
            arity(name, &args, 1, 1)?;
            let i = to_int(&args[0], "chr")?;
            let c = u32::try_from(i)
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| Raised::value_error("chr() arg not in range(0x110000)"))?;
            Value::str(c.encode_utf8(&mut [0; 4]))
        }
        "ord" => {
            arity(name, &args, 1, 1)?;
            match &args[0] {
                Value::Str(s) if s.chars().count() == 1 => {
                    Value::Int(s.chars().next().map_or(0, |c| c as i64))
                }
                Value::Str(s) => {
                    return Err(Raised::type_error(format!(
                        "ord() expected a character, but string of length {} found",
                        s.chars().count()
                    )))
                }
                other => {
                    return Err(Raised::type_error(format!(
                        "ord() expected string of length 1, but {} found",
                        other.type_name()
                    )))
                }
            }
        }
        "repr" => {
            arity(name, &args, 1, 1)?;
            Value::str(&args[0].repr())
        }
        "format" => {
            arity(name, &args, 1, 2)?;
            let spec = match args.get(1) {
                Some(Value::Str(s)) => s.to_string(),
                None => String::new(),
                Some(other) => {
                    return Err(Raised::type_error(format!(
                        "format() argument 2 must be str, not {}",
                        other.type_name()
                    )))
                }
            };
            Value::str(&format_value(&args[0], &spec)?)
        }
        "hex" | "bin" | "oct" => {
            arity(name, &args, 1, 1)?;
            if !args[0].is_integral() {
                to_int(&args[0], name)?;
            }
            let spec = match name {
                "hex" => "#x",
                "bin" => "#b",
                _ => "#o",
            };
            Value::str(&format_value(&args[0], spec)?)
        }
        "callable" => {
            arity(name, &args, 1, 1)?;
            Value::Bool(matches!(
                args[0],
                Value::Func(_) | Value::Builtin(_) | Value::Method(..) | Value::ExcClass(_)
            ))
        }
        "int" => {
            arity(name, &args, 0, 2)?;
            let base = args.get(1).cloned().or_else(|| kw.take("base"));
            match (args.first(), base) {
                (None, _) => Value::Int(0),
                (Some(Value::Str(s)), Some(b)) => {
                    let b = to_int(&b, "int base")?;
                    if b != 0 && !(2..=36).contains(&b) {
                        return Err(Raised::value_error(
                            "int() base must be >= 2 and <= 36, or 0",
                        ));
                    }
                    parse_int(s, b as u32)?
                }
                (Some(Value::Str(s)), None) => parse_int(s, 10)?,
                (Some(Value::Float(f)), None) => bigint::from_f64_trunc(*f)?,
                (Some(Value::BigInt(b)), None) => Value::BigInt(b.clone()),
                (Some(v), None) if v.as_int().is_some() => Value::Int(v.as_int().unwrap_or(0)),
                (Some(v), _) => {
                    return Err(Raised::type_error(format!(
                        "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                        v.type_name()
                    )))
                }
            }
        }
        "float" => {
            arity(name, &args, 0, 1)?;
            match args.first() {
                None => Value::Float(0.0),
                Some(Value::Str(s)) => Value::Float(parse_float(s)?),
                Some(Value::BigInt(b)) => Value::Float(bigint::big_to_f64(b)?),
                Some(v) if v.is_number() => Value::Float(v.as_f64().unwrap_or(0.0)),
                Some(v) => {
                    return Err(Raised::type_error(format!(
                        "float() argument must be a string or a real number, not '{}'",
                        v.type_name()
                    )))
                }
            }
        }
        "str" => {
            arity(name, &args, 0, 1)?;
            Value::str(&args.first().map(Value::to_str).unwrap_or_default())
        }
        "bool" => {
            arity(name, &args, 0, 1)?;
            Value::Bool(args.first().is_some_and(Value::truthy))
        }
        "list" => {
            arity(name, &args, 0, 1)?;
            Value::list(match args.first() {
                Some(v) => ops::iterate(v)?,
                None => Vec::new(),
            })
        }
        "tuple" => {
            arity(name, &args, 0, 1)?;
            Value::tuple(match args.first() {
                Some(v) => ops::iterate(v)?,
                None => Vec::new(),
            })
        }
        "set" | "frozenset" => {
            arity(name, &args, 0, 1)?;
            set_of(match args.first() {
                Some(v) => ops::iterate(v)?,
                None => Vec::new(),
            })?
        }
        other => {
            return Err(Raised::type_error(format!(
                "cannot create '{other}' instances"
            )));
        }
    })
}
