//! The two importable modules, `math` and `statistics`, as pure builtins.
//! `statistics` follows CPython 3.11's algorithms (exact `Fraction` sums,
//! correctly rounded square roots) so results match digit for digit.

use super::ast::BinOp;
use super::bigint;
use super::builtins::{arity, sort_values, to_f64, Kwargs};
use super::error::Raised;
use super::fraction::Fraction;
use super::normaldist;
use super::ops;
use super::value::{equals, Record, Value};

const MATH_FUNCTIONS: &[&str] = &[
    "math.sqrt",
    "math.log",
    "math.log10",
    "math.log2",
    "math.log1p",
    "math.exp",
    "math.expm1",
    "math.floor",
    "math.ceil",
    "math.trunc",
    "math.fabs",
    "math.pow",
    "math.isclose",
    "math.fsum",
    "math.prod",
    "math.factorial",
    "math.gcd",
    "math.lcm",
    "math.isqrt",
    "math.comb",
    "math.perm",
    "math.sin",
    "math.cos",
    "math.tan",
    "math.asin",
    "math.acos",
    "math.atan",
    "math.atan2",
    "math.sinh",
    "math.cosh",
    "math.tanh",
    "math.hypot",
    "math.degrees",
    "math.radians",
    "math.isnan",
    "math.isinf",
    "math.isfinite",
    "math.copysign",
    "math.fmod",
    "math.modf",
    "math.erf",
    "math.erfc",
    "math.cbrt",
    "math.exp2",
];

const STATISTICS_FUNCTIONS: &[&str] = &[
    "statistics.mean",
    "statistics.fmean",
    "statistics.median",
    "statistics.median_low",
    "statistics.median_high",
    "statistics.mode",
    "statistics.multimode",
    "statistics.variance",
    "statistics.pvariance",
    "statistics.stdev",
    "statistics.pstdev",
    "statistics.quantiles",
    "statistics.geometric_mean",
    "statistics.correlation",
    "statistics.linear_regression",
    "statistics.NormalDist",
    "statistics.harmonic_mean",
    "statistics.covariance",
];

/// What `from module import *` binds: every function and constant.
pub fn public_names(module: &Value) -> Vec<(&'static str, Value)> {
    let (table, constants): (&[&'static str], &[&'static str]) = match module {
        Value::Module(super::value::Module::Statistics) => {
            (STATISTICS_FUNCTIONS, &["StatisticsError"])
        }
        _ => (MATH_FUNCTIONS, &["pi", "e", "tau", "inf", "nan"]),
    };
    let attr = match module {
        Value::Module(super::value::Module::Statistics) => statistics_attr,
        _ => math_attr,
    };
    table
        .iter()
        .filter_map(|f| f.split_once('.').map(|(_, n)| n))
        .chain(constants.iter().copied())
        .filter_map(|n| attr(n).ok().map(|v| (n, v)))
        .collect()
}

pub fn math_attr(name: &str) -> Result<Value, Raised> {
    let constant = match name {
        "pi" => Some(std::f64::consts::PI),
        "e" => Some(std::f64::consts::E),
        "tau" => Some(std::f64::consts::TAU),
        "inf" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    };
    if let Some(c) = constant {
        return Ok(Value::Float(c));
    }
    find(MATH_FUNCTIONS, "math", name)
}

pub fn statistics_attr(name: &str) -> Result<Value, Raised> {
    if name == "StatisticsError" {
        return Ok(Value::ExcClass("StatisticsError"));
    }
    find(STATISTICS_FUNCTIONS, "statistics", name)
}

fn find(table: &'static [&'static str], module: &str, name: &str) -> Result<Value, Raised> {
    table
        .iter()
        .find(|f| f.split_once('.').is_some_and(|(_, n)| n == name))
        .map(|f| Value::Builtin(f))
        .ok_or_else(|| {
            Raised::exc(
                "AttributeError",
                format!("module '{module}' has no attribute '{name}' (the calculator's {module} has: {})", names(table)),
            )
        })
}

fn names(table: &[&str]) -> String {
    table
        .iter()
        .filter_map(|f| f.split_once('.').map(|(_, n)| n))
        .collect::<Vec<_>>()
        .join(", ")
}

fn domain_error() -> Raised {
    Raised::value_error("math domain error")
}

fn range_error() -> Raised {
    Raised::exc("OverflowError", "math range error")
}

/// A libm result checked the way CPython's `math` checks it.
fn checked(x: f64, r: f64) -> Result<Value, Raised> {
    if r.is_nan() && !x.is_nan() {
        return Err(domain_error());
    }
    if r.is_infinite() && x.is_finite() {
        return Err(range_error());
    }
    Ok(Value::Float(r))
}

fn int_arg(v: &Value, fname: &str) -> Result<i64, Raised> {
    match v {
        Value::Float(_) => Err(Raised::type_error(format!(
            "'float' object cannot be interpreted as an integer ({fname})"
        ))),
        Value::BigInt(_) => Err(Raised::exc(
            "OverflowError",
            format!("{fname}: Python int too large to convert to C long"),
        )),
        other => other.as_int().ok_or_else(|| {
            Raised::type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                other.type_name()
            ))
        }),
    }
}

fn float_to_int(f: f64) -> Result<Value, Raised> {
    bigint::from_f64_trunc(f)
}

fn exact_sum(values: &[Value], fname: &str) -> Result<Fraction, Raised> {
    let mut total = Fraction::from_int(0);
    for v in values {
        total = total.add(&exact(v, fname)?);
    }
    Ok(total)
}

fn exact(v: &Value, fname: &str) -> Result<Fraction, Raised> {
    match v {
        Value::Float(f) => Ok(Fraction::from_f64(*f)),
        other => match bigint::as_big(other) {
            Some(i) => Ok(Fraction::new(i, 1.into())),
            None => Err(Raised::type_error(format!(
                "{fname}: can't convert type '{}' to numerator/denominator",
                other.type_name()
            ))),
        },
    }
}

fn fsum(values: &[Value]) -> Result<f64, Raised> {
    let floats: Vec<f64> = values
        .iter()
        .map(|v| to_f64(v, "fsum"))
        .collect::<Result<_, _>>()?;
    if floats.iter().any(|f| !f.is_finite()) {
        // CPython: NaN if any NaN or +inf and -inf both present, else the infinity.
        return Ok(floats.iter().sum());
    }
    let total = floats.iter().fold(Fraction::from_int(0), |acc, f| {
        acc.add(&Fraction::from_f64(*f))
    });
    let r = total.to_f64();
    if r.is_infinite() {
        return Err(Raised::exc(
            "OverflowError",
            "intermediate overflow in fsum",
        ));
    }
    Ok(r)
}

pub fn call_math(f: &str, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> Result<Value, Raised> {
    let fname = format!("math.{f}");
    let one = |args: &[Value]| -> Result<f64, Raised> {
        arity(&fname, args, 1, 1)?;
        to_f64(&args[0], &fname)
    };
    Ok(match f {
        "sqrt" => {
            let x = one(&args)?;
            if x < 0.0 {
                return Err(domain_error());
            }
            Value::Float(x.sqrt())
        }
        "log" => {
            arity(&fname, &args, 1, 2)?;
            let x = to_f64(&args[0], &fname)?;
            if x <= 0.0 {
                return Err(domain_error());
            }
            match args.get(1) {
                None => Value::Float(x.ln()),
                Some(b) => {
                    let b = to_f64(b, &fname)?;
                    if b <= 0.0 {
                        return Err(domain_error());
                    }
                    let den = b.ln();
                    if den == 0.0 {
                        return Err(Raised::exc("ZeroDivisionError", "float division by zero"));
                    }
                    Value::Float(x.ln() / den)
                }
            }
        }
        "log10" | "log2" | "log1p" => {
            let x = one(&args)?;
            let bad = if f == "log1p" { x <= -1.0 } else { x <= 0.0 };
            if bad {
                return Err(domain_error());
            }
            Value::Float(match f {
                "log10" => x.log10(),
                "log2" => x.log2(),
                _ => x.ln_1p(),
            })
        }
        "exp" => {
            let x = one(&args)?;
            checked(x, x.exp())?
        }
        "expm1" => {
            let x = one(&args)?;
            checked(x, x.exp_m1())?
        }
        "floor" | "ceil" | "trunc" => {
            arity(&fname, &args, 1, 1)?;
            match &args[0] {
                Value::Float(x) => float_to_int(match f {
                    "floor" => x.floor(),
                    "ceil" => x.ceil(),
                    _ => x.trunc(),
                })?,
                Value::BigInt(b) => Value::BigInt(b.clone()),
                v => Value::Int(int_arg(v, &fname)?),
            }
        }
        "fabs" => Value::Float(one(&args)?.abs()),
        "pow" => {
            arity(&fname, &args, 2, 2)?;
            let (x, y) = (to_f64(&args[0], &fname)?, to_f64(&args[1], &fname)?);
            if x == 0.0 && y < 0.0 {
                return Err(domain_error());
            }
            if x < 0.0 && y.is_finite() && y.fract() != 0.0 {
                return Err(domain_error());
            }
            let r = x.powf(y);
            if r.is_infinite() && x.is_finite() && y.is_finite() {
                return Err(range_error());
            }
            Value::Float(r)
        }
        "isclose" => {
            arity(&fname, &args, 2, 2)?;
            let mut kw = Kwargs::new(&fname, kwargs, &["rel_tol", "abs_tol"])?;
            let rel = kw
                .take("rel_tol")
                .map(|v| to_f64(&v, "isclose"))
                .transpose()?
                .unwrap_or(1e-9);
            let abs = kw
                .take("abs_tol")
                .map(|v| to_f64(&v, "isclose"))
                .transpose()?
                .unwrap_or(0.0);
            if rel < 0.0 || abs < 0.0 {
                return Err(Raised::value_error("tolerances must be non-negative"));
            }
            let (a, b) = (to_f64(&args[0], &fname)?, to_f64(&args[1], &fname)?);
            let close = if a == b {
                true
            } else if a.is_infinite() || b.is_infinite() {
                false
            } else {
                let diff = (b - a).abs();
                (diff <= (rel * b).abs()) || (diff <= (rel * a).abs()) || diff <= abs
            };
            Value::Bool(close)
        }
        "fsum" => {
            arity(&fname, &args, 1, 1)?;
            Value::Float(fsum(&ops::iterate(&args[0])?)?)
        }
        "prod" => {
            arity(&fname, &args, 1, 1)?;
            let mut kw = Kwargs::new(&fname, kwargs, &["start"])?;
            let mut acc = kw.take("start").unwrap_or(Value::Int(1));
            for v in ops::iterate(&args[0])? {
                acc = ops::binary(BinOp::Mul, &acc, &v)?;
            }
            acc
        }
        "factorial" => {
            arity(&fname, &args, 1, 1)?;
            let n = int_arg(&args[0], &fname)?;
            if n < 0 {
                return Err(Raised::value_error(
                    "factorial() not defined for negative values",
                ));
            }
            let mut acc = num_bigint::BigInt::from(1);
            for k in 2..=n {
                acc *= k;
                if acc.bits() > bigint::MAX_INT_BITS {
                    return Err(bigint::too_large());
                }
            }
            bigint::int_value(acc)?
        }
        "gcd" | "lcm" => {
            let mut acc: i64 = if f == "gcd" { 0 } else { 1 };
            for a in &args {
                let x = int_arg(a, &fname)?.unsigned_abs() as i64;
                acc = if f == "gcd" {
                    gcd(acc, x)
                } else if x == 0 || acc == 0 {
                    0
                } else {
                    (acc / gcd(acc, x))
                        .checked_mul(x)
                        .ok_or_else(|| Raised::exc("OverflowError", "lcm result too large"))?
                };
            }
            Value::Int(acc)
        }
        "isqrt" => {
            arity(&fname, &args, 1, 1)?;
            let n = int_arg(&args[0], &fname)?;
            if n < 0 {
                return Err(Raised::value_error("isqrt() argument must be nonnegative"));
            }
            let mut r = (n as f64).sqrt() as i64;
            while r.checked_mul(r).is_none_or(|sq| sq > n) {
                r -= 1;
            }
            while (r + 1).checked_mul(r + 1).is_some_and(|sq| sq <= n) {
                r += 1;
            }
            Value::Int(r)
        }
        "comb" | "perm" => {
            arity(&fname, &args, if f == "perm" { 1 } else { 2 }, 2)?;
            let n = int_arg(&args[0], &fname)?;
            let k = match args.get(1) {
                Some(k) => int_arg(k, &fname)?,
                None => n,
            };
            if n < 0 || k < 0 {
                return Err(Raised::value_error(format!(
                    "{f}() arguments must be non-negative"
                )));
            }
            if k > n {
                return Ok(Value::Int(0));
            }
            let mut acc = num_bigint::BigInt::from(1);
            let k = if f == "comb" { k.min(n - k) } else { k };
            for i in 0..k {
                acc *= n - i;
                if f == "comb" {
                    // Exact: a product of i + 1 consecutive ints divides by (i + 1)!.
                    acc /= i + 1;
                }
                if acc.bits() > bigint::MAX_INT_BITS {
                    return Err(bigint::too_large());
                }
            }
            bigint::int_value(acc)?
        }
        "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "sinh" | "cosh" | "tanh" => {
            let x = one(&args)?;
            let r = match f {
                "sin" => x.sin(),
                "cos" => x.cos(),
                "tan" => x.tan(),
                "asin" => x.asin(),
                "acos" => x.acos(),
                "atan" => x.atan(),
                "sinh" => x.sinh(),
                "cosh" => x.cosh(),
                _ => x.tanh(),
            };
            checked(x, r)?
        }
        // fdlibm's erf, the same algorithm as glibc's, which CPython calls.
        "erf" => Value::Float(libm::erf(one(&args)?)),
        "erfc" => Value::Float(libm::erfc(one(&args)?)),
        "cbrt" => Value::Float(one(&args)?.cbrt()),
        "exp2" => {
            let x = one(&args)?;
            checked(x, x.exp2())?
        }
        "atan2" => {
            arity(&fname, &args, 2, 2)?;
            Value::Float(to_f64(&args[0], &fname)?.atan2(to_f64(&args[1], &fname)?))
        }
        "hypot" => {
            let xs: Vec<f64> = args
                .iter()
                .map(|a| to_f64(a, &fname))
                .collect::<Result<_, _>>()?;
            Value::Float(match xs.as_slice() {
                [] => 0.0,
                [x] => x.abs(),
                [x, y] => x.hypot(*y),
                many => many.iter().map(|x| x * x).sum::<f64>().sqrt(),
            })
        }
        "degrees" => Value::Float(one(&args)?.to_degrees()),
        "radians" => Value::Float(one(&args)?.to_radians()),
        "isnan" => Value::Bool(one(&args)?.is_nan()),
        "isinf" => Value::Bool(one(&args)?.is_infinite()),
        "isfinite" => Value::Bool(one(&args)?.is_finite()),
        "copysign" => {
            arity(&fname, &args, 2, 2)?;
            Value::Float(to_f64(&args[0], &fname)?.copysign(to_f64(&args[1], &fname)?))
        }
        "fmod" => {
            arity(&fname, &args, 2, 2)?;
            let (x, y) = (to_f64(&args[0], &fname)?, to_f64(&args[1], &fname)?);
            if y == 0.0 || x.is_infinite() {
                return Err(domain_error());
            }
            Value::Float(x % y)
        }
        "modf" => {
            let x = one(&args)?;
            let int = x.trunc();
            Value::tuple(vec![Value::Float((x - int).copysign(x)), Value::Float(int)])
        }
        other => {
            return Err(Raised::exc(
                "AttributeError",
                format!("module 'math' has no attribute '{other}'"),
            ));
        }
    })
}

fn gcd(mut a: i64, mut b: i64) -> i64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn stats_error(msg: &str) -> Raised {
    Raised::exc("StatisticsError", msg)
}

/// CPython's `_convert`: an int result stays int when exact.
fn convert(value: Fraction, all_int: bool) -> Value {
    if all_int {
        if let Some(v) = value.to_bigint().and_then(|b| bigint::int_value(b).ok()) {
            return v;
        }
    }
    Value::Float(value.to_f64())
}

fn numeric_data(args: &[Value], fname: &str) -> Result<(Vec<Value>, bool), Raised> {
    let data = ops::iterate(&args[0])?;
    let mut all_int = true;
    for v in &data {
        match v {
            Value::Float(_) => all_int = false,
            other if other.is_integral() => {}
            other => {
                return Err(Raised::type_error(format!(
                    "{fname}: can't convert type '{}' to numerator/denominator",
                    other.type_name()
                )))
            }
        }
    }
    Ok((data, all_int))
}

/// Data with a NaN or infinity: CPython's exact paths return the special value.
fn special_float(data: &[Value]) -> Option<f64> {
    let specials: Vec<f64> = data
        .iter()
        .filter_map(|v| match v {
            Value::Float(f) if !f.is_finite() => Some(*f),
            _ => None,
        })
        .collect();
    if specials.is_empty() {
        None
    } else {
        Some(specials.iter().sum())
    }
}

/// `_ss`: the exact mean and sum of squared deviations.
fn sum_of_squares(data: &[Value], fname: &str) -> Result<Fraction, Raised> {
    let n = Fraction::from_int(data.len() as i64);
    let mut sx = Fraction::from_int(0);
    let mut sxx = Fraction::from_int(0);
    for v in data {
        let x = exact(v, fname)?;
        sxx = sxx.add(&x.mul(&x));
        sx = sx.add(&x);
    }
    Ok(n.mul(&sxx).sub(&sx.mul(&sx)).div(&n))
}

fn sorted_data(data: &[Value]) -> Result<Vec<Value>, Raised> {
    let mut sorted = data.to_vec();
    sort_values(&mut sorted, None, false)?;
    Ok(sorted)
}

pub fn call_statistics(
    f: &str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value, Raised> {
    if f == "NormalDist" {
        return normaldist::construct(args, kwargs);
    }
    let fname = f.to_string();
    let mut kw = Kwargs::new(
        &fname,
        kwargs,
        match f {
            "quantiles" => &["n", "method"],
            "linear_regression" => &["proportional"],
            _ => &[],
        },
    )?;
    let (min_args, max_args) = match f {
        "variance" | "stdev" | "pvariance" | "pstdev" => (1, 2),
        "correlation" | "covariance" | "linear_regression" => (2, 2),
        _ => (1, 1),
    };
    arity(kw.name(), &args, min_args, max_args)?;
    Ok(match f {
        "mean" => {
            let (data, all_int) = numeric_data(&args, f)?;
            if data.is_empty() {
                return Err(stats_error("mean requires at least one data point"));
            }
            if let Some(s) = special_float(&data) {
                return Ok(Value::Float(s));
            }
            let total = exact_sum(&data, f)?;
            convert(total.div(&Fraction::from_int(data.len() as i64)), all_int)
        }
        "fmean" => {
            let data = ops::iterate(&args[0])?;
            if data.is_empty() {
                return Err(stats_error("fmean requires at least one data point"));
            }
            Value::Float(fsum(&data)? / data.len() as f64)
        }
        "harmonic_mean" => {
            let data = ops::iterate(&args[0])?;
            let negative = || stats_error("harmonic mean does not support negative values");
            if data.is_empty() {
                return Err(stats_error(
                    "harmonic_mean requires at least one data point",
                ));
            }
            if data.len() == 1 {
                if !data[0].is_number() {
                    return Err(Raised::type_error("unsupported type"));
                }
                if data[0].as_f64().unwrap_or(0.0) < 0.0 {
                    return Err(negative());
                }
                return Ok(data[0].clone());
            }
            // CPython sums 1 / x (Python division) exactly, then divides n by it.
            let mut total = Fraction::from_int(0);
            for x in &data {
                if x.as_f64().is_some_and(|f| f < 0.0) {
                    return Err(negative());
                }
                match ops::binary(BinOp::Div, &Value::Int(1), x) {
                    Ok(term) => total = total.add(&exact(&term, f)?),
                    Err(Raised::Exception(e)) if e.kind == "ZeroDivisionError" => {
                        return Ok(Value::Int(0))
                    }
                    Err(e) => return Err(e),
                }
            }
            if total.is_negative() || total == Fraction::from_int(0) {
                return Err(stats_error("Weighted sum must be positive"));
            }
            Value::Float(Fraction::from_int(data.len() as i64).div(&total).to_f64())
        }
        "geometric_mean" => {
            let data = ops::iterate(&args[0])?;
            if data.is_empty() {
                return Err(stats_error("fmean requires at least one data point"));
            }
            let mut logs = Vec::with_capacity(data.len());
            for v in &data {
                let x = to_f64(v, "geometric_mean")?;
                if x <= 0.0 {
                    return Err(stats_error(
                        "geometric mean requires a non-empty dataset containing positive numbers",
                    ));
                }
                logs.push(Value::Float(x.ln()));
            }
            Value::Float((fsum(&logs)? / logs.len() as f64).exp())
        }
        "linear_regression" => {
            let proportional = kw.take("proportional").is_some_and(|v| v.truthy());
            let floats = |v: &Value| -> Result<Vec<f64>, Raised> {
                ops::iterate(v)?.iter().map(|x| to_f64(x, f)).collect()
            };
            let (x, y) = (floats(&args[0])?, floats(&args[1])?);
            let n = x.len();
            if y.len() != n {
                return Err(stats_error(
                    "linear regression requires that both inputs have same number of data points",
                ));
            }
            if n < 2 {
                return Err(stats_error(
                    "linear regression requires at least two data points",
                ));
            }
            let fsum_of =
                |xs: Vec<f64>| fsum(&xs.into_iter().map(Value::Float).collect::<Vec<_>>());
            let (sxy, sxx, xbar, ybar) = if proportional {
                (
                    fsum_of(x.iter().zip(&y).map(|(a, b)| a * b).collect())?,
                    fsum_of(x.iter().map(|a| a * a).collect())?,
                    0.0,
                    0.0,
                )
            } else {
                let xbar = fsum_of(x.clone())? / n as f64;
                let ybar = fsum_of(y.clone())? / n as f64;
                (
                    fsum_of(
                        x.iter()
                            .zip(&y)
                            .map(|(a, b)| (a - xbar) * (b - ybar))
                            .collect(),
                    )?,
                    fsum_of(x.iter().map(|a| (a - xbar) * (a - xbar)).collect())?,
                    xbar,
                    ybar,
                )
            };
            if sxx == 0.0 {
                return Err(stats_error("x is constant"));
            }
            let slope = sxy / sxx;
            let intercept = if proportional {
                0.0
            } else {
                ybar - slope * xbar
            };
            Value::Record(std::rc::Rc::new(Record {
                type_name: "LinearRegression",
                fields: &["slope", "intercept"],
                values: std::rc::Rc::from(vec![Value::Float(slope), Value::Float(intercept)]),
            }))
        }
        "correlation" | "covariance" => {
            let floats = |v: &Value| -> Result<Vec<f64>, Raised> {
                ops::iterate(v)?.iter().map(|x| to_f64(x, f)).collect()
            };
            let (x, y) = (
                floats(&args[0])?,
                floats(args.get(1).unwrap_or(&Value::None))?,
            );
            let n = x.len();
            if y.len() != n {
                return Err(stats_error(&format!(
                    "{f} requires that both inputs have same number of data points"
                )));
            }
            if n < 2 {
                return Err(stats_error(&format!(
                    "{f} requires at least two data points"
                )));
            }
            let fsum_of =
                |xs: Vec<f64>| fsum(&xs.into_iter().map(Value::Float).collect::<Vec<_>>());
            let xbar = fsum_of(x.clone())? / n as f64;
            let ybar = fsum_of(y.clone())? / n as f64;
            let sxy = fsum_of(
                x.iter()
                    .zip(&y)
                    .map(|(a, b)| (a - xbar) * (b - ybar))
                    .collect(),
            )?;
            if f == "covariance" {
                return Ok(Value::Float(sxy / (n - 1) as f64));
            }
            let sxx = fsum_of(x.iter().map(|a| (a - xbar) * (a - xbar)).collect())?;
            let syy = fsum_of(y.iter().map(|b| (b - ybar) * (b - ybar)).collect())?;
            let den = (sxx * syy).sqrt();
            if den == 0.0 {
                return Err(stats_error("at least one of the inputs is constant"));
            }
            Value::Float(sxy / den)
        }
        "median" | "median_low" | "median_high" => {
            let data = sorted_data(&ops::iterate(&args[0])?)?;
            let n = data.len();
            if n == 0 {
                return Err(stats_error("no median for empty data"));
            }
            match f {
                "median_low" if n % 2 == 0 => data[n / 2 - 1].clone(),
                "median_low" | "median_high" => data[n / 2].clone(),
                _ if n % 2 == 1 => data[n / 2].clone(),
                _ => {
                    let s = ops::binary(BinOp::Add, &data[n / 2 - 1], &data[n / 2])?;
                    ops::binary(BinOp::Div, &s, &Value::Int(2))?
                }
            }
        }
        "mode" | "multimode" => {
            let data = ops::iterate(&args[0])?;
            // First-seen order breaks ties, as CPython's Counter does.
            let mut counts: Vec<(Value, usize)> = Vec::new();
            for v in data {
                match counts.iter_mut().find(|(k, _)| equals(k, &v)) {
                    Some(slot) => slot.1 += 1,
                    None => counts.push((v, 1)),
                }
            }
            let best = counts.iter().map(|(_, c)| *c).max().unwrap_or(0);
            if f == "mode" {
                return counts
                    .into_iter()
                    .find(|(_, c)| *c == best)
                    .map(|(v, _)| v)
                    .ok_or_else(|| stats_error("no mode for empty data"));
            }
            Value::list(
                counts
                    .into_iter()
                    .filter(|(_, c)| *c == best)
                    .map(|(v, _)| v)
                    .collect(),
            )
        }
        "variance" | "pvariance" | "stdev" | "pstdev" => {
            let (data, all_int) = numeric_data(&args, f)?;
            let sample = !f.starts_with('p');
            let n = data.len();
            if (sample && n < 2) || n < 1 {
                return Err(stats_error(&format!(
                    "{f} requires at least {} data point{}",
                    if sample { "two" } else { "one" },
                    if sample { "s" } else { "" }
                )));
            }
            if let Some(s) = special_float(&data) {
                return Ok(Value::Float(s));
            }
            let ss = match args.get(1) {
                None | Some(Value::None) => sum_of_squares(&data, f)?,
                Some(center) => {
                    // A given mean: CPython sums (x - c)**2 with Python arithmetic, exactly.
                    let mut total = Fraction::from_int(0);
                    for v in &data {
                        let d = ops::binary(BinOp::Sub, v, center)?;
                        let sq = ops::binary(BinOp::Mul, &d, &d)?;
                        total = total.add(&exact(&sq, f)?);
                    }
                    total
                }
            };
            let all_int = all_int && args.get(1).is_none_or(|c| c.as_int().is_some());
            let divisor = Fraction::from_int(if sample { n as i64 - 1 } else { n as i64 });
            let mss = ss.div(&divisor);
            if f.ends_with("variance") {
                convert(mss, all_int)
            } else {
                if mss.is_negative() {
                    return Err(domain_error());
                }
                Value::Float(mss.sqrt_to_f64())
            }
        }
        "quantiles" => {
            let n = match kw.take("n") {
                Some(v) => int_arg(&v, "quantiles")?,
                None => 4,
            };
            let method = match kw.take("method") {
                Some(Value::Str(s)) => s.to_string(),
                Some(other) => {
                    return Err(Raised::value_error(format!(
                        "Unknown method: {}",
                        other.repr()
                    )))
                }
                None => "exclusive".to_string(),
            };
            if n < 1 {
                return Err(stats_error("n must be at least 1"));
            }
            let data = sorted_data(&ops::iterate(&args[0])?)?;
            let ld = data.len() as i64;
            if ld < 2 {
                return Err(stats_error("must have at least two data points"));
            }
            let mut result = Vec::new();
            let interpolate = |lo: &Value, hi: &Value, delta: i64| -> Result<Value, Raised> {
                let a = ops::binary(BinOp::Mul, lo, &Value::Int(n - delta))?;
                let b = ops::binary(BinOp::Mul, hi, &Value::Int(delta))?;
                ops::binary(
                    BinOp::Div,
                    &ops::binary(BinOp::Add, &a, &b)?,
                    &Value::Int(n),
                )
            };
            match method.as_str() {
                "inclusive" => {
                    let m = ld - 1;
                    for i in 1..n {
                        let (j, delta) = ((i * m).div_euclid(n), (i * m).rem_euclid(n));
                        let hi = data.get(j as usize + 1).unwrap_or(&data[j as usize]);
                        result.push(interpolate(&data[j as usize], hi, delta)?);
                    }
                }
                "exclusive" => {
                    let m = ld + 1;
                    for i in 1..n {
                        let j = (i * m).div_euclid(n).clamp(1, ld - 1);
                        let delta = i * m - j * n;
                        result.push(interpolate(
                            &data[j as usize - 1],
                            &data[j as usize],
                            delta,
                        )?);
                    }
                }
                other => return Err(Raised::value_error(format!("Unknown method: '{other}'"))),
            }
            Value::list(result)
        }
        other => {
            return Err(Raised::exc(
                "AttributeError",
                format!("module 'statistics' has no attribute '{other}'"),
            ))
        }
    })
}
