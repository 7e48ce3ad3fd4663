//! Python's operators on calculator values: arithmetic with CPython's
//! int/float rules (true division, floored `//` and `%`), sequence and
//! mapping indexing, membership and iteration.

use std::cell::RefCell;
use std::rc::Rc;

use num_bigint::BigInt;

use super::ast::{BinOp, CmpOp, UnOp};
use super::bigint;
use super::error::{Fault, Raised};
use super::format::percent_format;
use super::value::{compare, equals, range_len, Dict, Key, Value};

/// Containers a single operation may build, in elements; beyond this the
/// run reports a memory error instead of asking the allocator.
const MAX_ELEMENTS: usize = 1 << 24;

pub fn memory_error(what: &str) -> Raised {
    Raised::fault(Fault::Memory(format!(
        "{what} is too large for the calculator's memory limit"
    )))
}

/// Reserves room for `n` items or reports a memory error (no abort).
pub fn reserve<T>(v: &mut Vec<T>, n: usize, what: &str) -> Result<(), Raised> {
    if n > MAX_ELEMENTS {
        return Err(memory_error(what));
    }
    v.try_reserve(n).map_err(|_| memory_error(what))
}

fn unsupported(op: &str, a: &Value, b: &Value) -> Raised {
    Raised::type_error(format!(
        "unsupported operand type(s) for {op}: '{}' and '{}'",
        a.type_name(),
        b.type_name()
    ))
}

fn op_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::FloorDiv => "//",
        BinOp::Mod => "%",
        BinOp::Pow => "** or pow()",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
    }
}

pub fn unary(op: UnOp, v: &Value) -> Result<Value, Raised> {
    Ok(match (op, v) {
        (UnOp::Not, v) => Value::Bool(!v.truthy()),
        (UnOp::Neg, Value::Float(f)) => Value::Float(-f),
        (UnOp::Neg, v) if v.as_int().is_some() => {
            let i = v.as_int().unwrap_or(0);
            match i.checked_neg() {
                Some(n) => Value::Int(n),
                None => bigint::int_value(-BigInt::from(i))?,
            }
        }
        (UnOp::Neg, Value::BigInt(b)) => bigint::int_value(-(**b).clone())?,
        (UnOp::Pos, Value::Float(f)) => Value::Float(*f),
        (UnOp::Pos, v) if v.as_int().is_some() => Value::Int(v.as_int().unwrap_or(0)),
        (UnOp::Pos, Value::BigInt(b)) => Value::BigInt(b.clone()),
        (UnOp::Invert, v) if v.as_int().is_some() => Value::Int(!v.as_int().unwrap_or(0)),
        (UnOp::Invert, Value::BigInt(b)) => bigint::int_value(!(**b).clone())?,
        (op, v) => {
            let sym = match op {
                UnOp::Neg => "-",
                UnOp::Pos => "+",
                _ => "~",
            };
            return Err(Raised::type_error(format!(
                "bad operand type for unary {sym}: '{}'",
                v.type_name()
            )));
        }
    })
}

/// `a op= b`: lists extend in place (aliases see it), the rest rebinds.
pub fn inplace(op: BinOp, a: Value, b: Value) -> Result<Value, Raised> {
    if let (BinOp::Add, Value::List(l)) = (op, &a) {
        let items = iterate(&b)?;
        l.borrow_mut().extend(items);
        return Ok(a);
    }
    binary(op, &a, &b)
}

/// CPython's float `divmod`, so `//` and `%` agree with it on signs and edges.
fn float_divmod(x: f64, y: f64) -> Result<(f64, f64), Raised> {
    if y == 0.0 {
        return Err(Raised::exc("ZeroDivisionError", "float divmod()"));
    }
    let mut m = x % y;
    let mut div = (x - m) / y;
    if m != 0.0 {
        if (y < 0.0) != (m < 0.0) {
            m += y;
            div -= 1.0;
        }
    } else {
        m = 0.0_f64.copysign(y);
    }
    let floordiv = if div != 0.0 {
        let mut f = div.floor();
        if div - f > 0.5 {
            f += 1.0;
        }
        f
    } else {
        0.0_f64.copysign(x / y)
    };
    Ok((floordiv, m))
}

/// Floored division; `None` for the one overflow, `i64::MIN // -1`.
fn int_floordiv(a: i64, b: i64) -> Result<Option<i64>, Raised> {
    if b == 0 {
        return Err(Raised::exc(
            "ZeroDivisionError",
            "integer division or modulo by zero",
        ));
    }
    let Some(q) = a.checked_div(b) else {
        return Ok(None);
    };
    Ok(Some(if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }))
}

fn int_mod(a: i64, b: i64) -> Result<i64, Raised> {
    if b == 0 {
        return Err(Raised::exc("ZeroDivisionError", "integer modulo by zero"));
    }
    let r = a.checked_rem(b).unwrap_or(0);
    Ok(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

/// `base ** exp` for 64-bit ints; `None` when the result needs more bits.
pub fn int_pow(base: i64, exp: i64) -> Result<Option<Value>, Raised> {
    if exp < 0 {
        if base == 0 {
            return Err(Raised::exc(
                "ZeroDivisionError",
                "0.0 cannot be raised to a negative power",
            ));
        }
        return Ok(Some(Value::Float((base as f64).powf(exp as f64))));
    }
    Ok(u32::try_from(exp)
        .ok()
        .and_then(|e| base.checked_pow(e))
        .map(Value::Int))
}

pub fn float_pow(a: f64, b: f64) -> Result<Value, Raised> {
    if a == 0.0 && b < 0.0 {
        return Err(Raised::exc(
            "ZeroDivisionError",
            "0.0 cannot be raised to a negative power",
        ));
    }
    if a < 0.0 && b.fract() != 0.0 && b.is_finite() {
        return Err(Raised::value_error(
            "negative number raised to a fractional power has a complex result, which the calculator does not support",
        ));
    }
    let r = a.powf(b);
    if r.is_infinite() && a.is_finite() && b.is_finite() {
        return Err(Raised::exc(
            "OverflowError",
            "(34, 'Numerical result out of range')",
        ));
    }
    Ok(Value::Float(r))
}

fn repeat_seq(items: &[Value], n: i64, what: &str) -> Result<Vec<Value>, Raised> {
    let n = n.max(0) as usize;
    let total = items
        .len()
        .checked_mul(n)
        .ok_or_else(|| memory_error(what))?;
    let mut out = Vec::new();
    reserve(&mut out, total, what)?;
    if n > 0 {
        out.extend_from_slice(items);
    }
    // Doubling copies: a million repeats take twenty copies, not a million.
    while out.len() < total {
        let take = out.len().min(total - out.len());
        out.extend_from_within(..take);
    }
    Ok(out)
}

fn repeat_str(s: &str, n: i64) -> Result<Value, Raised> {
    let n = n.max(0) as usize;
    let total = s
        .len()
        .checked_mul(n)
        .ok_or_else(|| memory_error("the string"))?;
    let mut out: Vec<u8> = Vec::new();
    out.try_reserve(total)
        .map_err(|_| memory_error("the string"))?;
    if n > 0 {
        out.extend_from_slice(s.as_bytes());
    }
    while out.len() < total {
        // Always a whole number of copies, so every cut is a char boundary.
        let take = out.len().min(total - out.len());
        out.extend_from_within(..take);
    }
    let text = String::from_utf8(out).map_err(|_| Raised::value_error("invalid text"))?;
    Ok(Value::Str(text.into()))
}

/// 64-bit integer arithmetic; `None` when the result needs more bits.
fn small_int_binary(
    op: BinOp,
    a: &Value,
    b: &Value,
    x: i64,
    y: i64,
) -> Result<Option<Value>, Raised> {
    let both_bool = matches!((a, b), (Value::Bool(_), Value::Bool(_)));
    Ok(match op {
        BinOp::Add => x.checked_add(y).map(Value::Int),
        BinOp::Sub => x.checked_sub(y).map(Value::Int),
        BinOp::Mul => x.checked_mul(y).map(Value::Int),
        BinOp::Div => {
            if y == 0 {
                return Err(Raised::exc("ZeroDivisionError", "division by zero"));
            }
            Some(Value::Float(int_true_div(x, y)))
        }
        BinOp::FloorDiv => int_floordiv(x, y)?.map(Value::Int),
        BinOp::Mod => Some(Value::Int(int_mod(x, y)?)),
        BinOp::Pow => int_pow(x, y)?,
        BinOp::BitAnd if both_bool => Some(Value::Bool(x & y != 0)),
        BinOp::BitOr if both_bool => Some(Value::Bool(x | y != 0)),
        BinOp::BitXor if both_bool => Some(Value::Bool(x ^ y != 0)),
        BinOp::BitAnd => Some(Value::Int(x & y)),
        BinOp::BitOr => Some(Value::Int(x | y)),
        BinOp::BitXor => Some(Value::Int(x ^ y)),
        BinOp::Shl => {
            if y < 0 {
                return Err(Raised::value_error("negative shift count"));
            }
            if x == 0 {
                Some(Value::Int(0))
            } else if y >= 63 {
                None
            } else {
                x.checked_mul(1i64 << y).map(Value::Int)
            }
        }
        BinOp::Shr => {
            if y < 0 {
                return Err(Raised::value_error("negative shift count"));
            }
            Some(Value::Int(x >> y.min(63)))
        }
    })
}

pub fn binary(op: BinOp, a: &Value, b: &Value) -> Result<Value, Raised> {
    // Integer arithmetic (bools count as ints), past 64 bits when needed.
    if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
        if let Some(v) = small_int_binary(op, a, b, x, y)? {
            return Ok(v);
        }
        return bigint::binary(op, x.into(), y.into());
    }
    if a.is_integral() && b.is_integral() {
        if let (Some(x), Some(y)) = (bigint::as_big(a), bigint::as_big(b)) {
            return bigint::binary(op, x, y);
        }
    }
    if a.is_number() && b.is_number() {
        // A huge int meeting a float converts, or fails as in CPython.
        for v in [a, b] {
            if let Value::BigInt(big) = v {
                bigint::big_to_f64(big)?;
            }
        }
        let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
        return Ok(match op {
            BinOp::Add => Value::Float(x + y),
            BinOp::Sub => Value::Float(x - y),
            BinOp::Mul => Value::Float(x * y),
            BinOp::Div => {
                if y == 0.0 {
                    return Err(Raised::exc("ZeroDivisionError", "float division by zero"));
                }
                Value::Float(x / y)
            }
            BinOp::FloorDiv => {
                if y == 0.0 {
                    return Err(Raised::exc(
                        "ZeroDivisionError",
                        "float floor division by zero",
                    ));
                }
                Value::Float(float_divmod(x, y)?.0)
            }
            BinOp::Mod => {
                if y == 0.0 {
                    return Err(Raised::exc("ZeroDivisionError", "float modulo"));
                }
                Value::Float(float_divmod(x, y)?.1)
            }
            BinOp::Pow => float_pow(x, y)?,
            _ => return Err(unsupported(op_symbol(op), a, b)),
        });
    }
    match (op, a, b) {
        (BinOp::Add, Value::Str(x), Value::Str(y)) => {
            let mut s = String::with_capacity(x.len() + y.len());
            s.push_str(x);
            s.push_str(y);
            Ok(Value::str(&s))
        }
        (BinOp::Add, Value::Str(_), other) => Err(Raised::type_error(format!(
            "can only concatenate str (not \"{}\") to str",
            other.type_name()
        ))),
        (BinOp::Add, Value::List(x), Value::List(y)) => {
            let mut v = x.borrow().clone();
            v.extend(y.borrow().iter().cloned());
            Ok(Value::list(v))
        }
        (BinOp::Add, Value::List(_), other) => Err(Raised::type_error(format!(
            "can only concatenate list (not \"{}\") to list",
            other.type_name()
        ))),
        (BinOp::Add, Value::Tuple(x), Value::Tuple(y)) => {
            let mut v = x.to_vec();
            v.extend(y.iter().cloned());
            Ok(Value::tuple(v))
        }
        (BinOp::Mul, Value::Str(s), n) | (BinOp::Mul, n, Value::Str(s)) if n.as_int().is_some() => {
            repeat_str(s, n.as_int().unwrap_or(0))
        }
        (BinOp::Mul, Value::List(l), n) | (BinOp::Mul, n, Value::List(l))
            if n.as_int().is_some() =>
        {
            let items = l.borrow().clone();
            Ok(Value::list(repeat_seq(
                &items,
                n.as_int().unwrap_or(0),
                "the list",
            )?))
        }
        (BinOp::Mul, Value::Tuple(t), n) | (BinOp::Mul, n, Value::Tuple(t))
            if n.as_int().is_some() =>
        {
            Ok(Value::tuple(repeat_seq(
                t,
                n.as_int().unwrap_or(0),
                "the tuple",
            )?))
        }
        (BinOp::Mod, Value::Str(fmt), args) => Ok(Value::str(&percent_format(fmt, args)?)),
        (BinOp::BitOr, Value::Dict(x), Value::Dict(y)) => {
            let mut d = x.borrow().clone();
            for (k, v) in y.borrow().iter() {
                d.insert(k.clone(), v.clone());
            }
            Ok(Value::dict(d))
        }
        (
            BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor,
            Value::Set(x),
            Value::Set(y),
        ) => {
            let (x, y) = (x.borrow(), y.borrow());
            let out: Dict = match op {
                BinOp::BitOr => x
                    .iter()
                    .chain(y.iter().filter(|(k, _)| !x.contains_key(*k)))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                BinOp::BitAnd => x
                    .iter()
                    .filter(|(k, _)| y.contains_key(*k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                BinOp::Sub => x
                    .iter()
                    .filter(|(k, _)| !y.contains_key(*k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                _ => x
                    .iter()
                    .filter(|(k, _)| !y.contains_key(*k))
                    .chain(y.iter().filter(|(k, _)| !x.contains_key(*k)))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            };
            Ok(Value::Set(Rc::new(RefCell::new(out))))
        }
        (BinOp::Mul, Value::Str(_) | Value::List(_) | Value::Tuple(_), other)
        | (BinOp::Mul, other, Value::Str(_) | Value::List(_) | Value::Tuple(_)) => {
            Err(Raised::type_error(format!(
                "can't multiply sequence by non-int of type '{}'",
                other.type_name()
            )))
        }
        _ => Err(unsupported(op_symbol(op), a, b)),
    }
}

/// `int / int` correctly rounded, as CPython does for operands beyond 2**53.
fn int_true_div(x: i64, y: i64) -> f64 {
    const EXACT: i64 = 1 << 53;
    if x.abs() <= EXACT && y.abs() <= EXACT {
        return x as f64 / y as f64;
    }
    super::fraction::Fraction::new(x.into(), y.into()).to_f64()
}

pub fn compare_op(op: CmpOp, a: &Value, b: &Value) -> Result<bool, Raised> {
    use std::cmp::Ordering::*;
    Ok(match op {
        CmpOp::Eq => equals(a, b),
        CmpOp::Ne => !equals(a, b),
        CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge => {
            // NaN compares false with everything, as in Python.
            if let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) {
                if x.is_nan() || y.is_nan() {
                    return Ok(false);
                }
            }
            let ord = compare(a, b).map_err(|_| {
                let sym = match op {
                    CmpOp::Lt => "<",
                    CmpOp::Le => "<=",
                    CmpOp::Gt => ">",
                    _ => ">=",
                };
                Raised::type_error(format!(
                    "'{sym}' not supported between instances of '{}' and '{}'",
                    a.type_name(),
                    b.type_name()
                ))
            })?;
            match op {
                CmpOp::Lt => ord == Less,
                CmpOp::Le => ord != Greater,
                CmpOp::Gt => ord == Greater,
                _ => ord != Less,
            }
        }
        CmpOp::In => contains(b, a)?,
        CmpOp::NotIn => !contains(b, a)?,
        CmpOp::Is => identical(a, b),
        CmpOp::IsNot => !identical(a, b),
    })
}

fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::None, Value::None) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => Rc::ptr_eq(x, y) || x == y,
        (Value::List(x), Value::List(y)) => Rc::ptr_eq(x, y),
        (Value::Dict(x), Value::Dict(y)) | (Value::Set(x), Value::Set(y)) => Rc::ptr_eq(x, y),
        (Value::Tuple(x), Value::Tuple(y)) => Rc::ptr_eq(x, y),
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Func(x), Value::Func(y)) => Rc::ptr_eq(x, y),
        (Value::Iter(x), Value::Iter(y)) => Rc::ptr_eq(x, y),
        (Value::Builtin(x), Value::Builtin(y)) => x == y,
        (Value::Module(x), Value::Module(y)) => x == y,
        (Value::ExcClass(x), Value::ExcClass(y)) => x == y,
        _ => false,
    }
}

pub fn contains(container: &Value, item: &Value) -> Result<bool, Raised> {
    Ok(match container {
        Value::Str(s) => match item {
            Value::Str(sub) => s.contains(&**sub),
            other => {
                return Err(Raised::type_error(format!(
                    "'in <string>' requires string as left operand, not {}",
                    other.type_name()
                )))
            }
        },
        Value::List(l) => l.borrow().iter().any(|v| equals(v, item)),
        Value::Tuple(t) | Value::View(_, t) => t.iter().any(|v| equals(v, item)),
        Value::Iter(_) => iterate(container)?.iter().any(|v| equals(v, item)),
        Value::Dict(d) | Value::Set(d) => d.borrow().contains_key(&Key::of(item)?),
        Value::Range(a, b, c) => match item.as_int() {
            Some(i) => {
                let in_bounds = if *c > 0 {
                    i >= *a && i < *b
                } else {
                    i <= *a && i > *b
                };
                in_bounds && (i as i128 - *a as i128) % *c as i128 == 0
            }
            None => false,
        },
        other => {
            return Err(Raised::type_error(format!(
                "argument of type '{}' is not iterable",
                other.type_name()
            )))
        }
    })
}

pub fn dict_insert(d: &mut Dict, k: Value, v: Value) -> Result<(), Raised> {
    let key = Key::of(&k)?;
    match d.get_mut(&key) {
        // Python keeps the first key object and replaces the value.
        Some(slot) => slot.1 = v,
        None => {
            d.insert(key, (k, v));
        }
    }
    Ok(())
}

pub fn range_items(start: i64, stop: i64, step: i64) -> Result<Vec<Value>, Raised> {
    let n = range_len(start, stop, step) as usize;
    let mut out = Vec::new();
    reserve(&mut out, n, "the range")?;
    let mut i = start;
    for _ in 0..n {
        out.push(Value::Int(i));
        i = i.wrapping_add(step);
    }
    Ok(out)
}

/// The items a `for` loop would visit, as a snapshot.
pub fn iterate(v: &Value) -> Result<Vec<Value>, Raised> {
    Ok(match v {
        Value::List(l) => l.borrow().clone(),
        Value::Tuple(t) | Value::View(_, t) => t.to_vec(),
        Value::Record(r) => r.values.to_vec(),
        Value::Str(s) => s
            .chars()
            .map(|c| Value::str(c.encode_utf8(&mut [0; 4])))
            .collect(),
        Value::Dict(d) => d.borrow().values().map(|(k, _)| k.clone()).collect(),
        Value::Set(s) => super::setorder::iteration_order(&s.borrow()),
        Value::Range(a, b, c) => range_items(*a, *b, *c)?,
        Value::Iter(it) => {
            // Iterating consumes what is left.
            let mut it = it.borrow_mut();
            let pos = it.pos.min(it.items.len());
            let rest = it.items.split_off(pos);
            it.pos = it.items.len();
            rest
        }
        other => {
            return Err(Raised::type_error(format!(
                "'{}' object is not iterable",
                other.type_name()
            )))
        }
    })
}

pub fn make_slice(a: Value, b: Value, c: Value) -> Value {
    let part = |v: &Value| v.as_int();
    Value::Slice(Box::new([part(&a), part(&b), part(&c)]))
}

/// Python's `slice.indices(len)` followed by the positions it selects.
fn slice_positions(parts: &[Option<i64>; 3], len: usize) -> Result<Vec<usize>, Raised> {
    let len = len as i64;
    let step = parts[2].unwrap_or(1);
    if step == 0 {
        return Err(Raised::value_error("slice step cannot be zero"));
    }
    let clamp = |v: Option<i64>, default: i64| -> i64 {
        match v {
            None => default,
            Some(i) => {
                let i = if i < 0 { i + len } else { i };
                if step > 0 {
                    i.clamp(0, len)
                } else {
                    i.clamp(-1, len - 1)
                }
            }
        }
    };
    let (start, stop) = if step > 0 {
        (clamp(parts[0], 0), clamp(parts[1], len))
    } else {
        (clamp(parts[0], len - 1), clamp(parts[1], -1))
    };
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(i as usize);
        i = match i.checked_add(step) {
            Some(next) => next,
            None => break,
        };
    }
    Ok(out)
}

fn index_of(i: i64, len: usize, what: &str) -> Result<usize, Raised> {
    let j = if i < 0 { i + len as i64 } else { i };
    if j < 0 || j >= len as i64 {
        return Err(Raised::exc(
            "IndexError",
            format!("{what} index out of range"),
        ));
    }
    Ok(j as usize)
}

fn int_index(idx: &Value, what: &str) -> Result<i64, Raised> {
    idx.as_int().ok_or_else(|| {
        Raised::type_error(format!(
            "{what} indices must be integers or slices, not {}",
            idx.type_name()
        ))
    })
}

pub fn subscript(obj: &Value, idx: &Value) -> Result<Value, Raised> {
    match obj {
        Value::List(l) => {
            let l = l.borrow();
            match idx {
                Value::Slice(parts) => Ok(Value::list(
                    slice_positions(parts, l.len())?
                        .into_iter()
                        .map(|i| l[i].clone())
                        .collect(),
                )),
                _ => Ok(l[index_of(int_index(idx, "list")?, l.len(), "list")?].clone()),
            }
        }
        Value::Record(r) => subscript(&Value::Tuple(r.values.clone()), idx),
        Value::Tuple(t) => match idx {
            Value::Slice(parts) => Ok(Value::tuple(
                slice_positions(parts, t.len())?
                    .into_iter()
                    .map(|i| t[i].clone())
                    .collect(),
            )),
            _ => Ok(t[index_of(int_index(idx, "tuple")?, t.len(), "tuple")?].clone()),
        },
        Value::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            match idx {
                Value::Slice(parts) => Ok(Value::str(
                    &slice_positions(parts, chars.len())?
                        .into_iter()
                        .map(|i| chars[i])
                        .collect::<String>(),
                )),
                _ => {
                    let c = chars[index_of(int_index(idx, "string")?, chars.len(), "string")?];
                    Ok(Value::str(c.encode_utf8(&mut [0; 4])))
                }
            }
        }
        Value::Dict(d) => d
            .borrow()
            .get(&Key::of(idx)?)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| Raised::exc("KeyError", idx.repr())),
        Value::Range(a, b, c) => {
            let n = range_len(*a, *b, *c) as usize;
            match idx {
                Value::Slice(_) => Err(Raised::type_error(
                    "slicing a range is not supported by the calculator; use list(range(...))",
                )),
                _ => {
                    let i = index_of(int_index(idx, "range object")?, n, "range object")?;
                    Ok(Value::Int(a + c * i as i64))
                }
            }
        }
        other => Err(Raised::type_error(format!(
            "'{}' object is not subscriptable",
            other.type_name()
        ))),
    }
}

pub fn set_item(obj: &Value, idx: Value, value: Value) -> Result<(), Raised> {
    match obj {
        Value::List(l) => {
            if let Value::Slice(parts) = &idx {
                let new = iterate(&value)?;
                let mut l = l.borrow_mut();
                let positions = slice_positions(parts, l.len())?;
                if parts[2].unwrap_or(1) == 1 {
                    let start = positions.first().copied().unwrap_or_else(|| {
                        let s = parts[0].unwrap_or(0);
                        let s = if s < 0 { s + l.len() as i64 } else { s };
                        s.clamp(0, l.len() as i64) as usize
                    });
                    let end = start + positions.len();
                    l.splice(start..end, new);
                } else {
                    if positions.len() != new.len() {
                        return Err(Raised::value_error(format!(
                            "attempt to assign sequence of size {} to extended slice of size {}",
                            new.len(),
                            positions.len()
                        )));
                    }
                    for (p, v) in positions.into_iter().zip(new) {
                        l[p] = v;
                    }
                }
                return Ok(());
            }
            let mut l = l.borrow_mut();
            let i = index_of(int_index(&idx, "list")?, l.len(), "list assignment")?;
            l[i] = value;
            Ok(())
        }
        Value::Dict(d) => dict_insert(&mut d.borrow_mut(), idx, value),
        other => Err(Raised::type_error(format!(
            "'{}' object does not support item assignment",
            other.type_name()
        ))),
    }
}

pub fn del_item(obj: &Value, idx: &Value) -> Result<(), Raised> {
    match obj {
        Value::List(l) => {
            let mut l = l.borrow_mut();
            if let Value::Slice(parts) = idx {
                let positions = slice_positions(parts, l.len())?;
                let mut keep = vec![true; l.len()];
                for p in positions {
                    keep[p] = false;
                }
                let mut k = keep.into_iter();
                l.retain(|_| k.next().unwrap_or(true));
                return Ok(());
            }
            let i = index_of(int_index(idx, "list")?, l.len(), "list assignment")?;
            l.remove(i);
            Ok(())
        }
        Value::Dict(d) => d
            .borrow_mut()
            .shift_remove(&Key::of(idx)?)
            .map(|_| ())
            .ok_or_else(|| Raised::exc("KeyError", idx.repr())),
        other => Err(Raised::type_error(format!(
            "'{}' object doesn't support item deletion",
            other.type_name()
        ))),
    }
}
