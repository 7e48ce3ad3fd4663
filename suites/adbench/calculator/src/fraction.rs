//! Exact rationals over big integers, for what CPython computes exactly:
//! `statistics` sums and variances (via `Fraction`), `math.fsum`, and
//! correctly rounded division and square roots of such values.

use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

#[derive(Debug, Clone, PartialEq)]
pub struct Fraction {
    num: BigInt,
    /// Always positive; the fraction is kept in lowest terms.
    den: BigInt,
}

impl Fraction {
    pub fn new(num: BigInt, den: BigInt) -> Fraction {
        let (num, den) = if den.is_negative() {
            (-num, -den)
        } else {
            (num, den)
        };
        let g = num.gcd(&den);
        if g.is_zero() || g.is_one() {
            return Fraction { num, den };
        }
        Fraction {
            num: num / &g,
            den: den / &g,
        }
    }

    pub fn from_int(i: i64) -> Fraction {
        Fraction {
            num: i.into(),
            den: BigInt::one(),
        }
    }

    /// The exact value of a finite float.
    pub fn from_f64(x: f64) -> Fraction {
        let bits = x.to_bits();
        let negative = bits >> 63 == 1;
        let exp = ((bits >> 52) & 0x7ff) as i64;
        let frac = bits & ((1u64 << 52) - 1);
        let (mantissa, e) = if exp == 0 {
            (frac, -1074)
        } else {
            (frac | (1u64 << 52), exp - 1075)
        };
        let mut num = BigInt::from(mantissa);
        if negative {
            num = -num;
        }
        if e >= 0 {
            Fraction::new(num << e as usize, BigInt::one())
        } else {
            Fraction::new(num, BigInt::one() << (-e) as usize)
        }
    }

    pub fn add(&self, o: &Fraction) -> Fraction {
        Fraction::new(&self.num * &o.den + &o.num * &self.den, &self.den * &o.den)
    }

    pub fn sub(&self, o: &Fraction) -> Fraction {
        Fraction::new(&self.num * &o.den - &o.num * &self.den, &self.den * &o.den)
    }

    pub fn mul(&self, o: &Fraction) -> Fraction {
        Fraction::new(&self.num * &o.num, &self.den * &o.den)
    }

    /// Division; the caller guarantees a non-zero divisor.
    pub fn div(&self, o: &Fraction) -> Fraction {
        Fraction::new(&self.num * &o.den, &self.den * &o.num)
    }

    pub fn is_integer(&self) -> bool {
        self.den.is_one()
    }

    /// The value when it is an integer.
    pub fn to_bigint(&self) -> Option<BigInt> {
        if self.is_integer() {
            Some(self.num.clone())
        } else {
            None
        }
    }

    pub fn is_negative(&self) -> bool {
        self.num.is_negative()
    }

    /// Correctly rounded (half to even), as CPython's `int / int` and `float(Fraction)`.
    pub fn to_f64(&self) -> f64 {
        ratio_to_f64(&self.num, &self.den)
    }

    /// `sqrt` correctly rounded: CPython's `statistics._float_sqrt_of_frac`.
    pub fn sqrt_to_f64(&self) -> f64 {
        let (n, m) = (&self.num, &self.den);
        if n.is_zero() {
            return 0.0;
        }
        // 2 * mantissa digits + 3, as in CPython.
        const SQRT_BIT_WIDTH: i64 = 2 * 53 + 3;
        let q = (n.bits() as i64 - m.bits() as i64 - SQRT_BIT_WIDTH).div_euclid(2);
        if q >= 0 {
            let numerator = isqrt_frac_rto(n, &(m << (2 * q) as usize)) << q as usize;
            ratio_to_f64(&numerator, &BigInt::one())
        } else {
            let numerator = isqrt_frac_rto(&(n << (-2 * q) as usize), m);
            ratio_to_f64(&numerator, &(BigInt::one() << (-q) as usize))
        }
    }
}

/// `isqrt(n // m)`, rounded to odd: the low bit records an inexact root.
fn isqrt_frac_rto(n: &BigInt, m: &BigInt) -> BigInt {
    let a = (n / m).sqrt();
    let exact = &a * &a * m == *n;
    if exact {
        a
    } else {
        a | BigInt::one()
    }
}

/// `a / b` to the nearest float: a quotient with spare bits, its low bit
/// set when inexact (round to odd), then one rounding to 53 bits.
fn ratio_to_f64(a: &BigInt, b: &BigInt) -> f64 {
    if a.is_zero() {
        return 0.0;
    }
    let negative = (a.sign() == Sign::Minus) != (b.sign() == Sign::Minus);
    let (a, b) = (a.abs(), b.abs());
    let shift = a.bits() as i64 - b.bits() as i64 - 60;
    let (q, r) = if shift >= 0 {
        a.div_rem(&(&b << shift as usize))
    } else {
        (&a << (-shift) as usize).div_rem(&b)
    };
    let mut q = q.to_u64().unwrap_or(u64::MAX);
    if !r.is_zero() {
        q |= 1;
    }
    let mut x = q as f64;
    // Scale by 2**shift in steps that stay exact within the float range.
    let mut s = shift;
    while s > 0 {
        let step = s.min(1000);
        x *= 2f64.powi(step as i32);
        s -= step;
    }
    while s < 0 {
        let step = (-s).min(1000);
        x /= 2f64.powi(step as i32);
        s += step;
    }
    if negative {
        -x
    } else {
        x
    }
}
