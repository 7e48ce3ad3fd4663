//! `statistics.NormalDist`, the normal distribution agents use for
//! z-tests and confidence intervals, as CPython 3.11 computes it: its
//! inverse CDF is Wichura's AS241 (the same coefficients as CPython's),
//! `from_samples` uses the exact mean and correctly rounded stdev.

use std::rc::Rc;

use super::builtins::{arity, to_f64, Kwargs};
use super::error::Raised;
use super::fraction::Fraction;
use super::ops;
use super::value::{Record, Value};

const TYPE_NAME: &str = "NormalDist";

fn stats_error(msg: &str) -> Raised {
    Raised::exc("StatisticsError", msg)
}

fn make(mu: f64, sigma: f64) -> Result<Value, Raised> {
    if sigma < 0.0 {
        return Err(stats_error("sigma must be non-negative"));
    }
    Ok(Value::Record(Rc::new(Record {
        type_name: TYPE_NAME,
        fields: &["mu", "sigma"],
        values: Rc::from(vec![Value::Float(mu), Value::Float(sigma)]),
    })))
}

pub fn is_normal_dist(r: &Record) -> bool {
    r.type_name == TYPE_NAME
}

fn params(r: &Record) -> (f64, f64) {
    let get = |i: usize| r.values.get(i).and_then(Value::as_f64).unwrap_or(0.0);
    (get(0), get(1))
}

/// `NormalDist(mu=0.0, sigma=1.0)`.
pub fn construct(args: Vec<Value>, kwargs: Vec<(String, Value)>) -> Result<Value, Raised> {
    arity(TYPE_NAME, &args, 0, 2)?;
    let mut kw = Kwargs::new(TYPE_NAME, kwargs, &["mu", "sigma"])?;
    let mu = args.first().cloned().or_else(|| kw.take("mu"));
    let sigma = args.get(1).cloned().or_else(|| kw.take("sigma"));
    let mu = mu
        .map(|v| to_f64(&v, TYPE_NAME))
        .transpose()?
        .unwrap_or(0.0);
    let sigma = sigma
        .map(|v| to_f64(&v, TYPE_NAME))
        .transpose()?
        .unwrap_or(1.0);
    make(mu, sigma)
}

/// `NormalDist.from_samples(data)`: CPython's `_mean_stdev`.
pub fn from_samples(args: Vec<Value>) -> Result<Value, Raised> {
    arity("from_samples", &args, 1, 1)?;
    let data = ops::iterate(&args[0])?;
    let n = data.len();
    if n < 2 {
        return Err(stats_error("stdev requires at least two data points"));
    }
    let mut sx = Fraction::from_int(0);
    let mut sxx = Fraction::from_int(0);
    for v in &data {
        let x = match v {
            Value::Float(f) if f.is_finite() => Fraction::from_f64(*f),
            other => match super::bigint::as_big(other) {
                Some(i) => Fraction::new(i, 1.into()),
                None => {
                    return Err(Raised::type_error(format!(
                        "can't convert type '{}' to numerator/denominator",
                        other.type_name()
                    )))
                }
            },
        };
        sxx = sxx.add(&x.mul(&x));
        sx = sx.add(&x);
    }
    let count = Fraction::from_int(n as i64);
    let ss = count.mul(&sxx).sub(&sx.mul(&sx)).div(&count);
    let mean = sx.div(&count).to_f64();
    let sigma = ss.div(&Fraction::from_int(n as i64 - 1)).sqrt_to_f64();
    make(mean, sigma)
}

/// A property's value, or `None` when `name` is a method.
pub fn property(r: &Record, name: &str) -> Option<Value> {
    let (mu, sigma) = params(r);
    Some(Value::Float(match name {
        "mean" | "median" | "mode" => mu,
        "stdev" => sigma,
        "variance" => sigma * sigma,
        _ => return None,
    }))
}

pub const METHODS: &[&str] = &["cdf", "pdf", "inv_cdf", "zscore", "quantiles"];

pub fn call(r: &Record, name: &str, args: Vec<Value>) -> Result<Value, Raised> {
    let (mu, sigma) = params(r);
    if name == "quantiles" {
        arity(name, &args, 0, 1)?;
        let n = match args.first() {
            Some(v) => super::builtins::to_int(v, "quantiles")?,
            None => 4,
        };
        let mut out = Vec::new();
        for i in 1..n {
            out.push(Value::Float(inv_cdf(i as f64 / n as f64, mu, sigma)?));
        }
        return Ok(Value::list(out));
    }
    arity(name, &args, 1, 1)?;
    let x = to_f64(&args[0], name)?;
    Ok(Value::Float(match name {
        "cdf" => {
            if sigma == 0.0 {
                return Err(stats_error("cdf() not defined when sigma is zero"));
            }
            0.5 * (1.0 + libm::erf((x - mu) / (sigma * std::f64::consts::SQRT_2)))
        }
        "pdf" => {
            let variance = sigma * sigma;
            if variance == 0.0 {
                return Err(stats_error("pdf() not defined when sigma is zero"));
            }
            let diff = x - mu;
            (diff * diff / (-2.0 * variance)).exp() / (std::f64::consts::TAU * variance).sqrt()
        }
        "inv_cdf" => inv_cdf(x, mu, sigma)?,
        "zscore" => {
            if sigma == 0.0 {
                return Err(stats_error("zscore() not defined when sigma is zero"));
            }
            (x - mu) / sigma
        }
        other => {
            return Err(Raised::exc(
                "AttributeError",
                format!("'NormalDist' object has no attribute '{other}'"),
            ))
        }
    }))
}

/// Horner evaluation, highest coefficient first, as CPython writes it.
fn poly(coefficients: &[f64], r: f64) -> f64 {
    coefficients
        .iter()
        .skip(1)
        .fold(coefficients[0], |acc, c| acc * r + c)
}

fn inv_cdf(p: f64, mu: f64, sigma: f64) -> Result<f64, Raised> {
    if p <= 0.0 || p >= 1.0 {
        return Err(stats_error("p must be in the range 0.0 < p < 1.0"));
    }
    if sigma <= 0.0 {
        return Err(stats_error("cdf() not defined when sigma at or below zero"));
    }
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        let num = poly(
            &[
                2509.0809287301227,
                33430.57558358813,
                67265.7709270087,
                45921.95393154987,
                13731.69376550946,
                1971.5909503065513,
                133.14166789178438,
                3.3871328727963665,
            ],
            r,
        ) * q;
        let den = poly(
            &[
                5226.495278852854,
                28729.085735721943,
                39307.89580009271,
                21213.794301586597,
                5394.196021424751,
                687.1870074920579,
                42.31333070160091,
                1.0,
            ],
            r,
        );
        return Ok(mu + (num / den) * sigma);
    }
    let r = if q <= 0.0 { p } else { 1.0 - p };
    let r = (-r.ln()).sqrt();
    let (num, den) = if r <= 5.0 {
        let r = r - 1.6;
        (
            poly(
                &[
                    0.0007745450142783414,
                    0.022723844989269184,
                    0.2417807251774506,
                    1.2704582524523684,
                    3.6478483247632045,
                    5.769497221460691,
                    4.630337846156546,
                    1.4234371107496835,
                ],
                r,
            ),
            poly(
                &[
                    1.0507500716444169e-09,
                    0.0005475938084995345,
                    0.015198666563616457,
                    0.14810397642748008,
                    0.6897673349851,
                    1.6763848301838038,
                    2.053191626637759,
                    1.0,
                ],
                r,
            ),
        )
    } else {
        let r = r - 5.0;
        (
            poly(
                &[
                    2.0103343992922881e-07,
                    2.7115555687434876e-05,
                    0.0012426609473880784,
                    0.026532189526576124,
                    0.29656057182850487,
                    1.7848265399172913,
                    5.463784911164114,
                    6.657904643501103,
                ],
                r,
            ),
            poly(
                &[
                    2.0442631033899397e-15,
                    1.421511758316446e-07,
                    1.8463183175100548e-05,
                    0.0007868691311456133,
                    0.014875361290850615,
                    0.1369298809227358,
                    0.599832206555888,
                    1.0,
                ],
                r,
            ),
        )
    };
    let x = num / den;
    Ok(mu + (if q < 0.0 { -x } else { x }) * sigma)
}
