//! Builtin functions and the methods of str, list, dict, set and tuple.
//! Names that would reach outside the sandbox (`open`, `__import__`,
//! `eval`...) resolve to a refusal that names them.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::rc::Rc;

use super::error::{is_subclass, Raised, EXCEPTION_CLASSES};
use super::format::{format_value, str_format};
use super::interp::Interp;
use super::modules;
use super::ops;
use super::value::{compare, equals, range_len, Dict, Key, Module, Value, ViewKind};

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

/// Types that are also conversion functions, plus the names `type()` returns.
const TYPES: &[&str] = &[
    "int",
    "float",
    "str",
    "bool",
    "list",
    "tuple",
    "dict",
    "set",
    "frozenset",
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
    TYPES.contains(&name)
}

/// Resolves a name no variable defines.
pub fn lookup(name: &str) -> Result<Value, Raised> {
    if let Some(f) = FUNCTIONS
        .iter()
        .chain(TYPES[..9].iter())
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

const STR_METHODS: &[&str] = &[
    "upper",
    "lower",
    "strip",
    "lstrip",
    "rstrip",
    "split",
    "rsplit",
    "join",
    "replace",
    "startswith",
    "endswith",
    "find",
    "rfind",
    "index",
    "rindex",
    "count",
    "format",
    "title",
    "capitalize",
    "isdigit",
    "isalpha",
    "isnumeric",
    "isdecimal",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "ljust",
    "rjust",
    "center",
    "zfill",
    "splitlines",
    "partition",
    "rpartition",
    "swapcase",
    "casefold",
    "removeprefix",
    "removesuffix",
];
const LIST_METHODS: &[&str] = &[
    "append", "extend", "insert", "pop", "remove", "index", "count", "sort", "reverse", "copy",
    "clear",
];
const DICT_METHODS: &[&str] = &[
    "get",
    "keys",
    "values",
    "items",
    "setdefault",
    "pop",
    "update",
    "copy",
    "clear",
    "popitem",
];
const SET_METHODS: &[&str] = &[
    "add",
    "remove",
    "discard",
    "union",
    "intersection",
    "difference",
    "symmetric_difference",
    "update",
    "issubset",
    "issuperset",
    "isdisjoint",
    "copy",
    "clear",
    "pop",
];
const TUPLE_METHODS: &[&str] = &["index", "count"];

pub fn get_attr(obj: &Value, name: &str) -> Result<Value, Raised> {
    let methods: &[&str] = match obj {
        Value::Module(Module::Math) => return modules::math_attr(name),
        Value::Module(Module::Statistics) => return modules::statistics_attr(name),
        Value::Str(_) => STR_METHODS,
        Value::List(_) => LIST_METHODS,
        Value::Dict(_) => DICT_METHODS,
        Value::Set(_) => SET_METHODS,
        Value::Tuple(_) => TUPLE_METHODS,
        Value::Float(f) => {
            return match name {
                "is_integer" => Ok(Value::Method(Box::new(obj.clone()), name.into())),
                "real" => Ok(Value::Float(*f)),
                "imag" => Ok(Value::Float(0.0)),
                _ => Err(no_attr(obj, name)),
            }
        }
        Value::Int(i) => {
            return match name {
                "bit_length" => Ok(Value::Method(Box::new(obj.clone()), name.into())),
                "real" | "numerator" => Ok(Value::Int(*i)),
                "denominator" => Ok(Value::Int(1)),
                "imag" => Ok(Value::Int(0)),
                _ => Err(no_attr(obj, name)),
            }
        }
        Value::Exception(e) if name == "args" => {
            return Ok(Value::tuple(vec![Value::str(&e.1)]));
        }
        Value::Builtin(n) | Value::ExcClass(n) if name == "__name__" => {
            return Ok(Value::str(n.rsplit('.').next().unwrap_or(n)));
        }
        Value::Func(f) if name == "__name__" => return Ok(Value::str(&f.def.name)),
        // `str.lower` and friends: unbound methods, called with the object first.
        Value::Builtin("str") => STR_METHODS,
        Value::Builtin("list") => LIST_METHODS,
        Value::Builtin("dict") if name == "fromkeys" => {
            return Ok(Value::Method(Box::new(obj.clone()), name.into()))
        }
        Value::Builtin("dict") => DICT_METHODS,
        Value::Builtin("set") => SET_METHODS,
        Value::Builtin("tuple") => TUPLE_METHODS,
        _ => &[],
    };
    if methods.contains(&name) {
        Ok(Value::Method(Box::new(obj.clone()), name.into()))
    } else {
        Err(no_attr(obj, name))
    }
}

fn no_attr(obj: &Value, name: &str) -> Raised {
    Raised::exc(
        "AttributeError",
        format!("'{}' object has no attribute '{name}'", obj.type_name()),
    )
}

/// Checks the keyword arguments a builtin accepts and hands them out by name.
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

fn to_int(v: &Value, what: &str) -> Result<i64, Raised> {
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

fn apply_key(
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
        (Value::Float(f), None) => Ok(Value::Int(ops::float_to_int(f.round_ties_even())?)),
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

pub fn parse_int(text: &str, base: u32) -> Result<i64, Raised> {
    let bad = || {
        Raised::value_error(format!(
            "invalid literal for int() with base {base}: {}",
            super::value::str_repr(text)
        ))
    };
    let t = text.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return Err(bad());
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    let mag = i64::from_str_radix(&clean, base).map_err(|_| bad())?;
    Ok(if neg { -mag } else { mag })
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
        set.insert(Key::of(&v)?, (v, Value::None));
    }
    Ok(Value::Set(Rc::new(RefCell::new(set))))
}

fn dict_from(v: &Value) -> Result<Dict, Raised> {
    if let Value::Dict(d) = v {
        return Ok(d.borrow().clone());
    }
    let mut d = Dict::new();
    for (i, item) in ops::iterate(v)?.into_iter().enumerate() {
        let pair = ops::iterate(&item)?;
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
                v if v.as_int().is_some() => Value::Int(
                    v.as_int()
                        .unwrap_or(0)
                        .checked_abs()
                        .ok_or_else(|| Raised::exc("OverflowError", "integer too large"))?,
                ),
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
            let i = to_int(&args[0], name)?;
            let spec = match name {
                "hex" => "#x",
                "bin" => "#b",
                _ => "#o",
            };
            Value::str(&format_value(&Value::Int(i), spec)?)
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
                    if !(2..=36).contains(&b) {
                        return Err(Raised::value_error(
                            "int() base must be >= 2 and <= 36, or 0",
                        ));
                    }
                    Value::Int(parse_int(s, b as u32)?)
                }
                (Some(Value::Str(s)), None) => Value::Int(parse_int(s, 10)?),
                (Some(Value::Float(f)), None) => Value::Int(ops::float_to_int(*f)?),
                (Some(v), None) if v.as_int().is_some() => Value::Int(v.as_int().unwrap_or(0)),
                (Some(v), _) => {
                    return Err(Raised::type_error(format!(
                        "int() argument must be a string or a real number, not '{}'",
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

fn str_arg<'a>(args: &'a [Value], i: usize, method: &str) -> Result<Option<&'a str>, Raised> {
    match args.get(i) {
        None | Some(Value::None) => Ok(None),
        Some(Value::Str(s)) => Ok(Some(s)),
        Some(other) => Err(Raised::type_error(format!(
            "{method}() argument must be str, not {}",
            other.type_name()
        ))),
    }
}

fn pad_str(s: &str, width: &Value, fill: Option<&str>, how: char) -> Result<Value, Raised> {
    let width = to_int(width, "width")?.max(0) as usize;
    let fill = match fill {
        None => ' ',
        Some(f) if f.chars().count() == 1 => f.chars().next().unwrap_or(' '),
        Some(_) => {
            return Err(Raised::type_error(
                "The fill character must be exactly one character long",
            ))
        }
    };
    let n = s.chars().count();
    if n >= width {
        return Ok(Value::str(s));
    }
    let gap = width - n;
    let fills = |k: usize| std::iter::repeat_n(fill, k).collect::<String>();
    Ok(Value::str(&match how {
        '<' => format!("{s}{}", fills(gap)),
        '>' => format!("{}{s}", fills(gap)),
        _ => {
            // CPython's center puts the extra fill on the left when width and
            // the length are both odd... precisely: left = gap/2 + (gap & width & 1).
            let left = gap / 2 + (gap & width & 1);
            format!("{}{s}{}", fills(left), fills(gap - left))
        }
    }))
}

fn split_whitespace(s: &str, maxsplit: i64) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rest = s.trim_start();
    while !rest.is_empty() {
        if maxsplit >= 0 && out.len() as i64 == maxsplit {
            out.push(Value::str(rest));
            return out;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        out.push(Value::str(&rest[..end]));
        rest = rest[end..].trim_start();
    }
    out
}

fn prefix_match(s: &str, arg: &Value, method: &str, starts: bool) -> Result<bool, Raised> {
    let test = |p: &str| {
        if starts {
            s.starts_with(p)
        } else {
            s.ends_with(p)
        }
    };
    match arg {
        Value::Str(p) => Ok(test(p)),
        Value::Tuple(options) => {
            for o in options.iter() {
                match o {
                    Value::Str(p) if test(p) => return Ok(true),
                    Value::Str(_) => {}
                    other => {
                        return Err(Raised::type_error(format!(
                            "tuple for {method} must only contain str, not {}",
                            other.type_name()
                        )))
                    }
                }
            }
            Ok(false)
        }
        other => Err(Raised::type_error(format!(
            "{method} first arg must be str or a tuple of str, not {}",
            other.type_name()
        ))),
    }
}

fn char_find(s: &str, sub: &str, from_right: bool) -> i64 {
    let found = if from_right {
        s.rfind(sub)
    } else {
        s.find(sub)
    };
    match found {
        Some(byte) => s[..byte].chars().count() as i64,
        None => -1,
    }
}

fn str_method(
    s: &str,
    name: &str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value, Raised> {
    if name == "format" {
        return Ok(Value::str(&str_format(s, &args, &kwargs)?));
    }
    let mut kw = Kwargs::new(name, kwargs, &["sep", "maxsplit", "keepends"])?;
    Ok(match name {
        "upper" => Value::str(&s.to_uppercase()),
        "lower" | "casefold" => Value::str(&s.to_lowercase()),
        "swapcase" => Value::str(
            &s.chars()
                .map(|c| {
                    if c.is_uppercase() {
                        c.to_lowercase().collect::<String>()
                    } else {
                        c.to_uppercase().collect()
                    }
                })
                .collect::<String>(),
        ),
        "strip" | "lstrip" | "rstrip" => {
            arity(name, &args, 0, 1)?;
            let chars: Option<Vec<char>> = str_arg(&args, 0, name)?.map(|c| c.chars().collect());
            let matcher = |c: char| match &chars {
                Some(set) => set.contains(&c),
                None => c.is_whitespace(),
            };
            Value::str(match name {
                "strip" => s.trim_matches(matcher),
                "lstrip" => s.trim_start_matches(matcher),
                _ => s.trim_end_matches(matcher),
            })
        }
        "split" | "rsplit" => {
            arity(name, &args, 0, 2)?;
            let sep_value = args.first().cloned().or_else(|| kw.take("sep"));
            let sep = str_arg(sep_value.as_slice(), 0, name)?.map(str::to_string);
            let maxsplit = match args.get(1).cloned().or_else(|| kw.take("maxsplit")) {
                Some(v) => to_int(&v, "maxsplit")?,
                None => -1,
            };
            let parts: Vec<Value> = match sep {
                None if name == "split" => split_whitespace(s, maxsplit),
                None => {
                    let rev: String = s.chars().rev().collect();
                    let mut parts: Vec<Value> = split_whitespace(&rev, maxsplit)
                        .into_iter()
                        .map(|v| Value::str(&v.to_str().chars().rev().collect::<String>()))
                        .collect();
                    parts.reverse();
                    parts
                }
                Some(sep) if sep.is_empty() => return Err(Raised::value_error("empty separator")),
                Some(sep) => {
                    let pieces: Vec<&str> = if maxsplit < 0 {
                        s.split(sep.as_str()).collect()
                    } else if name == "split" {
                        s.splitn(maxsplit as usize + 1, sep.as_str()).collect()
                    } else {
                        let mut v: Vec<&str> =
                            s.rsplitn(maxsplit as usize + 1, sep.as_str()).collect();
                        v.reverse();
                        v
                    };
                    pieces.into_iter().map(Value::str).collect()
                }
            };
            Value::list(parts)
        }
        "splitlines" => {
            let keep = kw
                .take("keepends")
                .or_else(|| args.first().cloned())
                .is_some_and(|v| v.truthy());
            let mut out = Vec::new();
            let mut rest = s;
            while !rest.is_empty() {
                let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
                let nl = if rest[end..].starts_with("\r\n") {
                    2
                } else if end < rest.len() {
                    1
                } else {
                    0
                };
                out.push(Value::str(if keep {
                    &rest[..end + nl]
                } else {
                    &rest[..end]
                }));
                rest = &rest[end + nl..];
            }
            Value::list(out)
        }
        "join" => {
            arity(name, &args, 1, 1)?;
            let mut out = String::new();
            for (i, item) in ops::iterate(&args[0])?.iter().enumerate() {
                if i > 0 {
                    out.push_str(s);
                }
                match item {
                    Value::Str(t) => out.push_str(t),
                    other => {
                        return Err(Raised::type_error(format!(
                            "sequence item {i}: expected str instance, {} found",
                            other.type_name()
                        )))
                    }
                }
            }
            Value::str(&out)
        }
        "replace" => {
            arity(name, &args, 2, 3)?;
            let old = str_arg(&args, 0, name)?.unwrap_or_default();
            let new = str_arg(&args, 1, name)?.unwrap_or_default();
            match args.get(2) {
                Some(n) if to_int(n, "count")? >= 0 => {
                    Value::str(&s.replacen(old, new, to_int(n, "count")? as usize))
                }
                _ => Value::str(&s.replace(old, new)),
            }
        }
        "startswith" | "endswith" => {
            arity(name, &args, 1, 1)?;
            Value::Bool(prefix_match(s, &args[0], name, name == "startswith")?)
        }
        "find" | "rfind" | "index" | "rindex" | "count" => {
            arity(name, &args, 1, 1)?;
            let sub = str_arg(&args, 0, name)?.unwrap_or_default();
            if name == "count" {
                let n = if sub.is_empty() {
                    s.chars().count() + 1
                } else {
                    s.matches(sub).count()
                };
                return Ok(Value::Int(n as i64));
            }
            let pos = char_find(s, sub, name.starts_with('r'));
            if pos < 0 && name.ends_with("index") {
                return Err(Raised::value_error("substring not found"));
            }
            Value::Int(pos)
        }
        "title" => {
            let mut out = String::new();
            let mut prev_cased = false;
            for c in s.chars() {
                if c.is_alphabetic() {
                    if prev_cased {
                        out.extend(c.to_lowercase());
                    } else {
                        out.extend(c.to_uppercase());
                    }
                    prev_cased = true;
                } else {
                    out.push(c);
                    prev_cased = false;
                }
            }
            Value::str(&out)
        }
        "capitalize" => {
            let mut chars = s.chars();
            let out: String = match chars.next() {
                Some(first) => first
                    .to_uppercase()
                    .chain(chars.flat_map(char::to_lowercase))
                    .collect(),
                None => String::new(),
            };
            Value::str(&out)
        }
        "isdigit" | "isnumeric" | "isdecimal" => {
            Value::Bool(!s.is_empty() && s.chars().all(|c| c.is_numeric()))
        }
        "isalpha" => Value::Bool(!s.is_empty() && s.chars().all(char::is_alphabetic)),
        "isalnum" => Value::Bool(!s.is_empty() && s.chars().all(char::is_alphanumeric)),
        "isspace" => Value::Bool(!s.is_empty() && s.chars().all(char::is_whitespace)),
        "isupper" => {
            Value::Bool(s.chars().any(char::is_uppercase) && !s.chars().any(char::is_lowercase))
        }
        "islower" => {
            Value::Bool(s.chars().any(char::is_lowercase) && !s.chars().any(char::is_uppercase))
        }
        "ljust" | "rjust" | "center" => {
            arity(name, &args, 1, 2)?;
            let fill = str_arg(&args, 1, name)?;
            let how = match name {
                "ljust" => '<',
                "rjust" => '>',
                _ => '^',
            };
            pad_str(s, &args[0], fill, how)?
        }
        "zfill" => {
            arity(name, &args, 1, 1)?;
            let width = to_int(&args[0], "width")?.max(0) as usize;
            let n = s.chars().count();
            if n >= width {
                Value::str(s)
            } else {
                let (sign, digits) = match s.chars().next() {
                    Some(c @ ('+' | '-')) => (c.to_string(), &s[1..]),
                    _ => (String::new(), s),
                };
                Value::str(&format!("{sign}{}{digits}", "0".repeat(width - n)))
            }
        }
        "partition" | "rpartition" => {
            arity(name, &args, 1, 1)?;
            let sep = str_arg(&args, 0, name)?.unwrap_or_default();
            if sep.is_empty() {
                return Err(Raised::value_error("empty separator"));
            }
            let found = if name == "partition" {
                s.split_once(sep)
            } else {
                s.rsplit_once(sep)
            };
            let parts = match (found, name) {
                (Some((a, b)), _) => [a, sep, b],
                (None, "partition") => [s, "", ""],
                (None, _) => ["", "", s],
            };
            Value::tuple(parts.iter().map(|p| Value::str(p)).collect())
        }
        "removeprefix" => {
            arity(name, &args, 1, 1)?;
            let p = str_arg(&args, 0, name)?.unwrap_or_default();
            Value::str(s.strip_prefix(p).unwrap_or(s))
        }
        "removesuffix" => {
            arity(name, &args, 1, 1)?;
            let p = str_arg(&args, 0, name)?.unwrap_or_default();
            Value::str(s.strip_suffix(p).unwrap_or(s))
        }
        other => {
            return Err(Raised::exc(
                "AttributeError",
                format!("'str' object has no attribute '{other}'"),
            ))
        }
    })
}

pub fn call_method(
    interp: &mut Interp,
    obj: &Value,
    name: &str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value, Raised> {
    if let (Value::Builtin("dict"), "fromkeys") = (obj, name) {
        arity("fromkeys", &args, 1, 2)?;
        let fill = args.get(1).cloned().unwrap_or(Value::None);
        let mut d = Dict::new();
        for k in ops::iterate(&args[0])? {
            ops::dict_insert(&mut d, k, fill.clone())?;
        }
        return Ok(Value::dict(d));
    }
    if let Value::Builtin(type_name) = obj {
        let mut args = args.into_iter();
        let Some(receiver) = args.next() else {
            return Err(Raised::type_error(format!(
                "unbound method {type_name}.{name}() needs an argument"
            )));
        };
        if receiver.type_name() != *type_name {
            return Err(Raised::type_error(format!(
                "descriptor '{name}' for '{type_name}' objects doesn't apply to a '{}' object",
                receiver.type_name()
            )));
        }
        return call_method(interp, &receiver, name, args.collect(), kwargs);
    }
    match obj {
        Value::Str(s) => str_method(s, name, args, kwargs),
        Value::List(l) => list_method(interp, l, name, args, kwargs),
        Value::Dict(d) => dict_method(d, name, args, kwargs),
        Value::Set(s) => set_method(s, name, args),
        Value::Tuple(t) => seq_query(t, name, &args, "tuple"),
        Value::Float(f) if name == "is_integer" => {
            Ok(Value::Bool(f.is_finite() && f.fract() == 0.0))
        }
        Value::Int(i) if name == "bit_length" => {
            Ok(Value::Int(64 - i.unsigned_abs().leading_zeros() as i64))
        }
        other => Err(no_attr(other, name)),
    }
}

fn seq_query(items: &[Value], name: &str, args: &[Value], kind: &str) -> Result<Value, Raised> {
    arity(name, args, 1, 1)?;
    match name {
        "count" => Ok(Value::Int(
            items.iter().filter(|v| equals(v, &args[0])).count() as i64,
        )),
        _ => items
            .iter()
            .position(|v| equals(v, &args[0]))
            .map(|i| Value::Int(i as i64))
            .ok_or_else(|| Raised::value_error(format!("{} is not in {kind}", args[0].repr()))),
    }
}

fn list_method(
    interp: &mut Interp,
    l: &Rc<RefCell<Vec<Value>>>,
    name: &str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value, Raised> {
    let mut kw = Kwargs::new(
        name,
        kwargs,
        if name == "sort" {
            &["key", "reverse"]
        } else {
            &[]
        },
    )?;
    match name {
        "append" => {
            arity(name, &args, 1, 1)?;
            let mut v = l.borrow_mut();
            if v.len() == v.capacity() {
                let extra = v.len().max(4);
                ops::reserve(&mut v, extra, "the list")?;
            }
            v.push(args.into_iter().next().unwrap_or(Value::None));
        }
        "extend" => {
            arity(name, &args, 1, 1)?;
            let items = ops::iterate(&args[0])?;
            l.borrow_mut().extend(items);
        }
        "insert" => {
            arity(name, &args, 2, 2)?;
            let mut v = l.borrow_mut();
            let n = v.len() as i64;
            let i = to_int(&args[0], "insert index")?;
            let i = if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
            v.insert(i, args[1].clone());
        }
        "pop" => {
            arity(name, &args, 0, 1)?;
            let mut v = l.borrow_mut();
            if v.is_empty() {
                return Err(Raised::exc("IndexError", "pop from empty list"));
            }
            let n = v.len() as i64;
            let i = match args.first() {
                Some(i) => to_int(i, "pop index")?,
                None => -1,
            };
            let j = if i < 0 { i + n } else { i };
            if j < 0 || j >= n {
                return Err(Raised::exc("IndexError", "pop index out of range"));
            }
            return Ok(v.remove(j as usize));
        }
        "remove" => {
            arity(name, &args, 1, 1)?;
            let mut v = l.borrow_mut();
            let i = v
                .iter()
                .position(|x| equals(x, &args[0]))
                .ok_or_else(|| Raised::value_error("list.remove(x): x not in list"))?;
            v.remove(i);
        }
        "index" | "count" => {
            let items = l.borrow().clone();
            return seq_query(&items, name, &args, "list");
        }
        "sort" => {
            arity(name, &args, 0, 0)?;
            let mut items = l.borrow().clone();
            let key = kw.take("key");
            let reverse = kw.take("reverse").is_some_and(|v| v.truthy());
            let keys = apply_key(interp, &key, &items)?;
            sort_values(&mut items, keys, reverse)?;
            *l.borrow_mut() = items;
        }
        "reverse" => l.borrow_mut().reverse(),
        "copy" => return Ok(Value::list(l.borrow().clone())),
        "clear" => l.borrow_mut().clear(),
        other => {
            return Err(Raised::exc(
                "AttributeError",
                format!("'list' object has no attribute '{other}'"),
            ))
        }
    }
    Ok(Value::None)
}

fn dict_method(
    d: &Rc<RefCell<Dict>>,
    name: &str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value, Raised> {
    if name == "update" {
        arity(name, &args, 0, 1)?;
        let mut new = match args.first() {
            Some(v) => dict_from(v)?,
            None => Dict::new(),
        };
        for (k, v) in kwargs {
            ops::dict_insert(&mut new, Value::str(&k), v)?;
        }
        let mut target = d.borrow_mut();
        for (_, (k, v)) in new {
            ops::dict_insert(&mut target, k, v)?;
        }
        return Ok(Value::None);
    }
    Kwargs::new(name, kwargs, &[])?;
    let view = |kind: ViewKind| -> Value {
        let d = d.borrow();
        let items: Vec<Value> = d
            .values()
            .map(|(k, v)| match kind {
                ViewKind::Keys => k.clone(),
                ViewKind::Values => v.clone(),
                ViewKind::Items => Value::tuple(vec![k.clone(), v.clone()]),
            })
            .collect();
        Value::View(kind, Rc::from(items))
    };
    Ok(match name {
        "get" => {
            arity(name, &args, 1, 2)?;
            let key = Key::of(&args[0])?;
            d.borrow()
                .get(&key)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| args.get(1).cloned().unwrap_or(Value::None))
        }
        "keys" => view(ViewKind::Keys),
        "values" => view(ViewKind::Values),
        "items" => view(ViewKind::Items),
        "setdefault" => {
            arity(name, &args, 1, 2)?;
            let key = Key::of(&args[0])?;
            let mut d = d.borrow_mut();
            d.entry(key)
                .or_insert_with(|| (args[0].clone(), args.get(1).cloned().unwrap_or(Value::None)))
                .1
                .clone()
        }
        "pop" => {
            arity(name, &args, 1, 2)?;
            let key = Key::of(&args[0])?;
            match d.borrow_mut().shift_remove(&key) {
                Some((_, v)) => v,
                None => match args.get(1) {
                    Some(default) => default.clone(),
                    None => return Err(Raised::exc("KeyError", args[0].repr())),
                },
            }
        }
        "popitem" => {
            let (_, (k, v)) = d
                .borrow_mut()
                .pop()
                .ok_or_else(|| Raised::exc("KeyError", "'popitem(): dictionary is empty'"))?;
            Value::tuple(vec![k, v])
        }
        "copy" => Value::dict(d.borrow().clone()),
        "clear" => {
            d.borrow_mut().clear();
            Value::None
        }
        other => {
            return Err(Raised::exc(
                "AttributeError",
                format!("'dict' object has no attribute '{other}'"),
            ))
        }
    })
}

fn set_method(s: &Rc<RefCell<Dict>>, name: &str, args: Vec<Value>) -> Result<Value, Raised> {
    let other_keys = |v: &Value| -> Result<Dict, Raised> {
        let mut out = Dict::new();
        for item in ops::iterate(v)? {
            out.insert(Key::of(&item)?, (item, Value::None));
        }
        Ok(out)
    };
    let new_set = |d: Dict| Value::Set(Rc::new(RefCell::new(d)));
    Ok(match name {
        "add" => {
            arity(name, &args, 1, 1)?;
            let key = Key::of(&args[0])?;
            s.borrow_mut()
                .entry(key)
                .or_insert((args[0].clone(), Value::None));
            Value::None
        }
        "remove" | "discard" => {
            arity(name, &args, 1, 1)?;
            let removed = s.borrow_mut().shift_remove(&Key::of(&args[0])?).is_some();
            if !removed && name == "remove" {
                return Err(Raised::exc("KeyError", args[0].repr()));
            }
            Value::None
        }
        "pop" => {
            let (_, (k, _)) = s
                .borrow_mut()
                .shift_remove_index(0)
                .ok_or_else(|| Raised::exc("KeyError", "'pop from an empty set'"))?;
            k
        }
        "update" => {
            for a in &args {
                let keys = other_keys(a)?;
                let mut me = s.borrow_mut();
                for (k, v) in keys {
                    me.entry(k).or_insert(v);
                }
            }
            Value::None
        }
        "union" | "intersection" | "difference" | "symmetric_difference" => {
            let mut acc = s.borrow().clone();
            for a in &args {
                let other = other_keys(a)?;
                acc = match name {
                    "union" => {
                        let mut u = acc;
                        for (k, v) in other {
                            u.entry(k).or_insert(v);
                        }
                        u
                    }
                    "intersection" => acc
                        .into_iter()
                        .filter(|(k, _)| other.contains_key(k))
                        .collect(),
                    "difference" => acc
                        .into_iter()
                        .filter(|(k, _)| !other.contains_key(k))
                        .collect(),
                    _ => {
                        let mut x: Dict = acc
                            .iter()
                            .filter(|(k, _)| !other.contains_key(*k))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect();
                        for (k, v) in other {
                            if !acc.contains_key(&k) {
                                x.insert(k, v);
                            }
                        }
                        x
                    }
                };
            }
            new_set(acc)
        }
        "issubset" | "issuperset" | "isdisjoint" => {
            arity(name, &args, 1, 1)?;
            let other = other_keys(&args[0])?;
            let me = s.borrow();
            Value::Bool(match name {
                "issubset" => me.keys().all(|k| other.contains_key(k)),
                "issuperset" => other.keys().all(|k| me.contains_key(k)),
                _ => !me.keys().any(|k| other.contains_key(k)),
            })
        }
        "copy" => new_set(s.borrow().clone()),
        "clear" => {
            s.borrow_mut().clear();
            Value::None
        }
        other => {
            return Err(Raised::exc(
                "AttributeError",
                format!("'set' object has no attribute '{other}'"),
            ))
        }
    })
}
