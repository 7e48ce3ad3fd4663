//! Runtime values of the calculator's Python subset, with CPython's
//! equality, ordering, truthiness and `repr`/`str`.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt::Write as _;
use std::rc::Rc;

use indexmap::IndexMap;

use super::ast::FuncDef;
use super::error::Raised;
use super::format::float_repr;
use super::interp::Frame;

/// The importable modules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Module {
    Math,
    Statistics,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    Keys,
    Values,
    Items,
}

#[derive(Clone)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    /// An int past 64 bits (never one that fits: see `bigint::int_value`).
    BigInt(Rc<num_bigint::BigInt>),
    Float(f64),
    Str(Rc<str>),
    List(Rc<RefCell<Vec<Value>>>),
    Tuple(Rc<[Value]>),
    /// A named tuple such as `LinearRegression(slope=..., intercept=...)`:
    /// a tuple whose fields are also attributes.
    Record(Rc<Record>),
    Dict(Rc<RefCell<Dict>>),
    Set(Rc<RefCell<Dict>>),
    /// A snapshot of `d.keys()`/`values()`/`items()`, printed like CPython's views.
    View(ViewKind, Rc<[Value]>),
    Range(i64, i64, i64),
    /// A one-pass iterator (`zip(...)`, a generator expression...): its
    /// items are computed eagerly, but consumed once, as in Python.
    Iter(Rc<RefCell<IterState>>),
    /// `a[start:stop:step]`'s index; only made by slice syntax.
    Slice(Box<[Option<i64>; 3]>),
    Func(Rc<Closure>),
    /// A builtin function: `len`, `math.sqrt`, the type `int`...
    Builtin(&'static str),
    /// `obj.method`, bound.
    Method(Box<Value>, Rc<str>),
    Module(Module),
    /// An exception class such as `ValueError`, callable to make an instance.
    ExcClass(&'static str),
    Exception(Rc<(String, String)>),
}

pub struct Record {
    pub type_name: &'static str,
    pub fields: &'static [&'static str],
    pub values: Rc<[Value]>,
}

pub struct IterState {
    /// The CPython type name: `zip`, `generator`, `enumerate`...
    pub kind: &'static str,
    pub items: Vec<Value>,
    pub pos: usize,
}

pub struct Closure {
    pub def: Rc<FuncDef>,
    pub defaults: Vec<Option<Value>>,
    pub env: Option<Rc<Frame>>,
}

/// Dict (and set) storage: insertion-ordered like CPython's dicts. The key
/// is normalised so that `1`, `1.0` and `True` are one key, as in Python.
pub type Dict = IndexMap<Key, (Value, Value)>;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    None,
    Int(i64),
    Float(u64),
    Big(num_bigint::BigInt),
    Str(Rc<str>),
    Tuple(Vec<Key>),
}

impl Key {
    pub fn of(v: &Value) -> Result<Key, Raised> {
        Ok(match v {
            Value::None => Key::None,
            Value::Bool(b) => Key::Int(*b as i64),
            Value::Int(i) => Key::Int(*i),
            Value::BigInt(b) => Key::Big((**b).clone()),
            Value::Float(f) => {
                if f.fract() == 0.0 && f.abs() < 9.2e18 {
                    Key::Int(*f as i64)
                } else {
                    Key::Float(f.to_bits())
                }
            }
            Value::Str(s) => Key::Str(s.clone()),
            Value::Tuple(items) => Key::Tuple(items.iter().map(Key::of).collect::<Result<_, _>>()?),
            Value::Range(a, b, c) => Key::Tuple(vec![Key::Int(*a), Key::Int(*b), Key::Int(*c)]),
            other => {
                return Err(Raised::type_error(format!(
                    "unhashable type: '{}'",
                    other.type_name()
                )))
            }
        })
    }
}

impl Value {
    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }

    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(RefCell::new(items)))
    }

    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Rc::from(items))
    }

    pub fn iter(kind: &'static str, items: Vec<Value>) -> Value {
        Value::Iter(Rc::new(RefCell::new(IterState {
            kind,
            items,
            pos: 0,
        })))
    }

    pub fn dict(d: Dict) -> Value {
        Value::Dict(Rc::new(RefCell::new(d)))
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::BigInt(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Record(r) => r.type_name,
            Value::Dict(_) => "dict",
            Value::Set(_) => "set",
            Value::View(ViewKind::Keys, _) => "dict_keys",
            Value::View(ViewKind::Values, _) => "dict_values",
            Value::View(ViewKind::Items, _) => "dict_items",
            Value::Range(..) => "range",
            Value::Iter(it) => it.borrow().kind,
            Value::Slice(_) => "slice",
            Value::Func(_) => "function",
            Value::Builtin(_) | Value::Method(..) => "builtin_function_or_method",
            Value::Module(_) => "module",
            Value::ExcClass(_) => "type",
            Value::Exception(e) => exception_type_name(&e.0),
        }
    }

    pub fn truthy(&self) -> bool {
        match self {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::BigInt(_) => true,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.borrow().is_empty(),
            Value::Tuple(t) => !t.is_empty(),
            Value::Record(r) => !r.values.is_empty(),
            Value::Dict(d) | Value::Set(d) => !d.borrow().is_empty(),
            Value::View(_, items) => !items.is_empty(),
            Value::Range(a, b, c) => range_len(*a, *b, *c) > 0,
            _ => true,
        }
    }

    /// The value as a number for arithmetic: bools count as ints.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Bool(b) => Some(*b as i64),
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Bool(b) => Some(*b as i64 as f64),
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            // Past the float range this is infinite; arithmetic checks first.
            Value::BigInt(b) => Some(super::bigint::big_to_f64(b).unwrap_or(
                if b.sign() == num_bigint::Sign::Minus {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                },
            )),
            _ => None,
        }
    }

    pub fn is_number(&self) -> bool {
        matches!(
            self,
            Value::Bool(_) | Value::Int(_) | Value::BigInt(_) | Value::Float(_)
        )
    }

    /// An exact integer: int, bool or big int.
    pub fn is_integral(&self) -> bool {
        matches!(self, Value::Bool(_) | Value::Int(_) | Value::BigInt(_))
    }

    pub fn repr(&self) -> String {
        let mut out = String::new();
        write_repr(&mut out, self, 0);
        out
    }

    pub fn to_str(&self) -> String {
        match self {
            Value::Str(s) => s.to_string(),
            Value::Exception(e) => e.1.clone(),
            other => other.repr(),
        }
    }
}

/// A literal in the syntax tree prints as Python writes it.
impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.repr())
    }
}

/// The static name of an exception class (`Exception` for unknown ones).
pub fn exception_type_name(kind: &str) -> &'static str {
    super::error::EXCEPTION_CLASSES
        .iter()
        .find(|c| **c == kind)
        .copied()
        .unwrap_or("Exception")
}

pub fn range_len(start: i64, stop: i64, step: i64) -> i64 {
    if step > 0 && start < stop {
        ((stop as i128 - start as i128 - 1) / step as i128 + 1) as i64
    } else if step < 0 && start > stop {
        ((start as i128 - stop as i128 - 1) / (-(step as i128)) + 1) as i64
    } else {
        0
    }
}

/// Nesting cut-off for printing self-referencing containers.
const REPR_DEPTH: usize = 100;

fn write_seq(out: &mut String, items: &[Value], depth: usize) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_repr(out, item, depth + 1);
    }
}

fn write_repr(out: &mut String, v: &Value, depth: usize) {
    if depth > REPR_DEPTH {
        out.push_str("...");
        return;
    }
    match v {
        Value::None => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::BigInt(b) => {
            let _ = write!(out, "{b}");
        }
        Value::Float(f) => out.push_str(&float_repr(*f)),
        Value::Str(s) => out.push_str(&str_repr(s)),
        Value::List(items) => {
            out.push('[');
            write_seq(out, &items.borrow(), depth);
            out.push(']');
        }
        Value::Tuple(items) => {
            out.push('(');
            write_seq(out, items, depth);
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Value::Record(r) => {
            let _ = write!(out, "{}(", r.type_name);
            for (i, (field, v)) in r.fields.iter().zip(r.values.iter()).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{field}=");
                write_repr(out, v, depth + 1);
            }
            out.push(')');
        }
        Value::Dict(d) => {
            out.push('{');
            for (i, (k, v)) in d.borrow().values().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, k, depth + 1);
                out.push_str(": ");
                write_repr(out, v, depth + 1);
            }
            out.push('}');
        }
        Value::Set(s) => {
            let s = s.borrow();
            if s.is_empty() {
                out.push_str("set()");
                return;
            }
            out.push('{');
            for (i, k) in super::setorder::iteration_order(&s).iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, k, depth + 1);
            }
            out.push('}');
        }
        Value::View(kind, items) => {
            let name = match kind {
                ViewKind::Keys => "dict_keys",
                ViewKind::Values => "dict_values",
                ViewKind::Items => "dict_items",
            };
            out.push_str(name);
            out.push_str("([");
            write_seq(out, items, depth);
            out.push_str("])");
        }
        Value::Range(a, b, c) => {
            if *c == 1 {
                let _ = write!(out, "range({a}, {b})");
            } else {
                let _ = write!(out, "range({a}, {b}, {c})");
            }
        }
        Value::Iter(it) => {
            let _ = write!(out, "<{} object>", it.borrow().kind);
        }
        Value::Slice(parts) => {
            let show = |p: &Option<i64>| p.map_or("None".to_string(), |i| i.to_string());
            let _ = write!(
                out,
                "slice({}, {}, {})",
                show(&parts[0]),
                show(&parts[1]),
                show(&parts[2])
            );
        }
        Value::Func(f) => {
            let _ = write!(out, "<function {}>", f.def.name);
        }
        Value::Builtin(name) => {
            if super::builtins::is_type_name(name) {
                let _ = write!(out, "<class '{name}'>");
            } else {
                let _ = write!(
                    out,
                    "<built-in function {}>",
                    name.rsplit('.').next().unwrap_or(name)
                );
            }
        }
        Value::Method(obj, name) => {
            let _ = write!(
                out,
                "<built-in method {name} of {} object>",
                obj.type_name()
            );
        }
        Value::Module(m) => {
            let name = match m {
                Module::Math => "math",
                Module::Statistics => "statistics",
            };
            let _ = write!(out, "<module '{name}' (built-in)>");
        }
        Value::ExcClass(name) => {
            let _ = write!(out, "<class '{name}'>");
        }
        Value::Exception(e) => {
            // A KeyError's message is already its key's repr.
            let arg = match (e.0.as_str(), e.1.is_empty()) {
                (_, true) => String::new(),
                ("KeyError", false) => e.1.clone(),
                _ => str_repr(&e.1),
            };
            let _ = write!(out, "{}({arg})", e.0);
        }
    }
}

/// CPython's `repr(str)`: single quotes unless the text has one and no double.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `==`.
pub fn equals(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::None, Value::None) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (x, y) if x.is_number() && y.is_number() => match (x.as_int(), y.as_int()) {
            (Some(i), Some(j)) => i == j,
            _ if x.is_integral() && y.is_integral() => {
                super::bigint::as_big(x) == super::bigint::as_big(y)
            }
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::List(x), Value::List(y)) => {
            Rc::ptr_eq(x, y) || seq_equals(&x.borrow(), &y.borrow())
        }
        (Value::Tuple(x), Value::Tuple(y)) => seq_equals(x, y),
        (Value::Record(x), Value::Record(y)) => seq_equals(&x.values, &y.values),
        (Value::Record(x), Value::Tuple(y)) | (Value::Tuple(y), Value::Record(x)) => {
            seq_equals(&x.values, y)
        }
        (Value::View(kx, x), Value::View(ky, y)) => kx == ky && seq_equals(x, y),
        (Value::Dict(x), Value::Dict(y)) => {
            if Rc::ptr_eq(x, y) {
                return true;
            }
            let (x, y) = (x.borrow(), y.borrow());
            x.len() == y.len()
                && x.iter()
                    .all(|(k, (_, v))| y.get(k).is_some_and(|(_, w)| equals(v, w)))
        }
        (Value::Set(x), Value::Set(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            x.len() == y.len() && x.keys().all(|k| y.contains_key(k))
        }
        (Value::Range(a1, b1, c1), Value::Range(a2, b2, c2)) => (a1, b1, c1) == (a2, b2, c2),
        (Value::Builtin(x), Value::Builtin(y)) => x == y,
        (Value::ExcClass(x), Value::ExcClass(y)) => x == y,
        (Value::Module(x), Value::Module(y)) => x == y,
        (Value::Func(x), Value::Func(y)) => Rc::ptr_eq(x, y),
        (Value::Iter(x), Value::Iter(y)) => Rc::ptr_eq(x, y),
        (Value::Exception(x), Value::Exception(y)) => Rc::ptr_eq(x, y),
        _ => false,
    }
}

fn seq_equals(x: &[Value], y: &[Value]) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equals(a, b))
}

/// Python's ordering (`<` and friends, `sorted`): numbers with numbers,
/// strings with strings, sequences lexicographically; otherwise TypeError.
pub fn compare(a: &Value, b: &Value) -> Result<Ordering, Raised> {
    match (a, b) {
        (x, y) if x.is_number() && y.is_number() => match (x.as_int(), y.as_int()) {
            (Some(i), Some(j)) => Ok(i.cmp(&j)),
            _ if x.is_integral() && y.is_integral() => {
                Ok(super::bigint::as_big(x).cmp(&super::bigint::as_big(y)))
            }
            _ => {
                let (p, q) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
                // NaN compares false both ways; treat as equal for sorting.
                Ok(p.partial_cmp(&q).unwrap_or(Ordering::Equal))
            }
        },
        (Value::Str(x), Value::Str(y)) => Ok(x.cmp(y)),
        (Value::List(x), Value::List(y)) => seq_compare(&x.borrow(), &y.borrow()),
        (Value::Tuple(x), Value::Tuple(y)) => seq_compare(x, y),
        (Value::Set(x), Value::Set(y)) => {
            // Subset order; only used for <=, >= style checks.
            let (x, y) = (x.borrow(), y.borrow());
            if x.len() == y.len() && x.keys().all(|k| y.contains_key(k)) {
                Ok(Ordering::Equal)
            } else if x.keys().all(|k| y.contains_key(k)) {
                Ok(Ordering::Less)
            } else if y.keys().all(|k| x.contains_key(k)) {
                Ok(Ordering::Greater)
            } else {
                Err(Raised::type_error("sets are only partially ordered"))
            }
        }
        _ => Err(Raised::type_error(format!(
            "'<' not supported between instances of '{}' and '{}'",
            a.type_name(),
            b.type_name()
        ))),
    }
}

fn seq_compare(x: &[Value], y: &[Value]) -> Result<Ordering, Raised> {
    for (a, b) in x.iter().zip(y) {
        if !equals(a, b) {
            return compare(a, b);
        }
    }
    Ok(x.len().cmp(&y.len()))
}
