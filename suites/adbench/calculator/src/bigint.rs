//! Integers past 64 bits. Ints stay `i64` while they fit and become
//! `BigInt` only on overflow, so ordinary arithmetic keeps its fast path.
//! Like CPython's 4300-digit limit on printing ints, results are capped
//! so every int the calculator holds can still be printed.

use std::rc::Rc;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};

use super::ast::BinOp;
use super::error::Raised;
use super::fraction::Fraction;
use super::value::Value;

/// Bits in a 4300-digit decimal number (4300 * log2(10), rounded up).
pub const MAX_INT_BITS: u64 = 14_285;

pub fn too_large() -> Raised {
    Raised::exc(
        "OverflowError",
        "integer result has more than 4300 digits, the calculator's limit (CPython cannot print such ints either)",
    )
}

/// An int value: `Int` when it fits in 64 bits, `BigInt` otherwise.
pub fn int_value(b: BigInt) -> Result<Value, Raised> {
    if let Some(i) = b.to_i64() {
        return Ok(Value::Int(i));
    }
    if b.bits() > MAX_INT_BITS {
        return Err(too_large());
    }
    Ok(Value::BigInt(Rc::new(b)))
}

/// The value as an exact integer (ints, bools, big ints).
pub fn as_big(v: &Value) -> Option<BigInt> {
    match v {
        Value::BigInt(b) => Some((**b).clone()),
        other => other.as_int().map(BigInt::from),
    }
}

pub fn big_to_f64(b: &BigInt) -> Result<f64, Raised> {
    let f = Fraction::new(b.clone(), BigInt::from(1)).to_f64();
    if f.is_infinite() {
        return Err(Raised::exc(
            "OverflowError",
            "int too large to convert to float",
        ));
    }
    Ok(f)
}

/// A float's integer part, however large (as CPython's `int(float)`).
pub fn from_f64_trunc(f: f64) -> Result<Value, Raised> {
    if f.is_nan() {
        return Err(Raised::value_error("cannot convert float NaN to integer"));
    }
    if f.is_infinite() {
        return Err(Raised::exc(
            "OverflowError",
            "cannot convert float infinity to integer",
        ));
    }
    let t = f.trunc();
    if t.abs() < 9.0e18 {
        return Ok(Value::Int(t as i64));
    }
    // A float this large is an integer already: its exact value.
    let exact = Fraction::from_f64(t);
    int_value(exact.to_bigint().unwrap_or_default())
}

fn zero_division(msg: &str) -> Raised {
    Raised::exc("ZeroDivisionError", msg)
}

/// Integer arithmetic on exact ints, for operands or results past 64 bits.
pub fn binary(op: BinOp, x: BigInt, y: BigInt) -> Result<Value, Raised> {
    match op {
        BinOp::Add => int_value(x + y),
        BinOp::Sub => int_value(x - y),
        BinOp::Mul => {
            if x.bits() + y.bits() > MAX_INT_BITS + 1 {
                return Err(too_large());
            }
            int_value(x * y)
        }
        BinOp::Div => {
            if y.is_zero() {
                return Err(zero_division("division by zero"));
            }
            let f = Fraction::new(x, y).to_f64();
            if f.is_infinite() {
                return Err(Raised::exc(
                    "OverflowError",
                    "integer division result too large for a float",
                ));
            }
            Ok(Value::Float(f))
        }
        BinOp::FloorDiv => {
            if y.is_zero() {
                return Err(zero_division("integer division or modulo by zero"));
            }
            int_value(x.div_floor(&y))
        }
        BinOp::Mod => {
            if y.is_zero() {
                return Err(zero_division("integer modulo by zero"));
            }
            int_value(x.mod_floor(&y))
        }
        BinOp::Pow => {
            if y.is_negative() {
                let (b, e) = (big_to_f64(&x)?, big_to_f64(&y)?);
                if b == 0.0 {
                    return Err(zero_division("0.0 cannot be raised to a negative power"));
                }
                return Ok(Value::Float(b.powf(e)));
            }
            let small_base = x.magnitude().bits() <= 1;
            let exp = match y.to_u64() {
                Some(e) => e,
                None if small_base => {
                    return int_value(if x.is_negative() && y.is_odd() {
                        x
                    } else {
                        x.abs()
                    })
                }
                None => return Err(too_large()),
            };
            if !small_base && x.bits().saturating_mul(exp) > MAX_INT_BITS + 64 {
                return Err(too_large());
            }
            let exp = u32::try_from(exp).map_err(|_| too_large())?;
            int_value(num_traits::pow::Pow::pow(&x, exp))
        }
        BinOp::BitAnd => int_value(x & y),
        BinOp::BitOr => int_value(x | y),
        BinOp::BitXor => int_value(x ^ y),
        BinOp::Shl | BinOp::Shr => {
            if y.is_negative() {
                return Err(Raised::value_error("negative shift count"));
            }
            let n = y.to_u64().unwrap_or(u64::MAX);
            if op == BinOp::Shr {
                return int_value(if n > x.bits() {
                    if x.is_negative() {
                        BigInt::from(-1)
                    } else {
                        BigInt::zero()
                    }
                } else {
                    x >> n as usize
                });
            }
            if x.is_zero() {
                return Ok(Value::Int(0));
            }
            if x.bits().saturating_add(n) > MAX_INT_BITS {
                return Err(too_large());
            }
            int_value(x << n as usize)
        }
    }
}
