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
                2.509_080_928_730_122_7e3,
                3.343_057_558_358_813e4,
                6.726_577_092_700_87e4,
                4.592_195_393_154_987e4,
                1.373_169_376_550_946e4,
                1.971_590_950_306_551_3e3,
                1.331_416_678_917_843_8e2,
                3.387_132_872_796_366_5,
            ],
            r,
        ) * q;
        let den = poly(
            &[
                5.226_495_278_852_854_5e3,
                2.872_908_573_572_194_3e4,
                3.930_789_580_009_271e4,
                2.121_379_430_158_659_7e4,
                5.394_196_021_424_751e3,
                6.871_870_074_920_579e2,
                4.231_333_070_160_091e1,
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
                    7.745_450_142_783_414e-4,
                    2.272_384_498_926_918_4e-2,
                    2.417_807_251_774_506e-1,
                    1.270_458_252_452_368_4,
                    3.647_848_324_763_204_5,
                    5.769_497_221_460_691,
                    4.630_337_846_156_546,
                    1.423_437_110_749_683_5,
                ],
                r,
            ),
            poly(
                &[
                    1.050_750_071_644_416_8e-9,
                    5.475_938_084_995_345e-4,
                    1.519_866_656_361_645_7e-2,
                    1.481_039_764_274_800_8e-1,
                    6.897_673_349_851e-1,
                    1.676_384_830_183_803_8,
                    2.053_191_626_637_758_8,
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
                    2.010_334_399_292_288_1e-7,
                    2.711_555_568_743_487_6e-5,
                    1.242_660_947_388_078_4e-3,
                    2.653_218_952_657_612_4e-2,
                    2.965_605_718_285_048_7e-1,
                    1.784_826_539_917_291_3,
                    5.463_784_911_164_114,
                    6.657_904_643_501_103,
                ],
                r,
            ),
            poly(
                &[
                    2.044_263_103_389_939_7e-15,
                    1.421_511_758_316_446e-7,
                    1.846_318_317_510_054_8e-5,
                    7.868_691_311_456_133e-4,
                    1.487_536_129_085_061_5e-2,
                    1.369_298_809_227_358e-1,
                    5.998_322_065_558_88e-1,
                    1.0,
                ],
                r,
            ),
        )
    };
    let x = num / den;
    Ok(mu + (if q < 0.0 { -x } else { x }) * sigma)
}
