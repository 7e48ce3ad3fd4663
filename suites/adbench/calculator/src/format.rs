//! CPython's text formatting: `repr(float)`, the format-spec mini-language
//! (f-strings, `format()`, `str.format`) and printf-style `%`. Agents print
//! percentages and money with these, so the digits must match CPython's.
//! Rust's `{:.N}` rounds the exact binary value half-to-even like CPython's
//! dtoa, so fixed-precision output agrees digit for digit.

use num_traits::{Signed, ToPrimitive};

use super::bigint::{as_big, big_to_f64, from_f64_trunc};
use super::error::Raised;
use super::value::{str_repr, Key, Value};

/// `repr(float)`: the shortest digits that round-trip, in fixed notation
/// for exponents -4..16 and scientific otherwise, as CPython prints them.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    // `{:e}` gives how many digits round-trip; among the numbers with that
    // many digits CPython prints the one nearest the exact value (ties to
    // even), which is what fixed-precision formatting computes.
    let shortest = format!("{:e}", x.abs());
    let digit_count = shortest
        .split_once('e')
        .map_or(1, |(m, _)| m.replace('.', "").len());
    let sci = format!("{:.*e}", digit_count - 1, x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("exponent in {:e} output");
    let exp: i32 = exp.parse().expect("integer exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if x < 0.0 { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        let body = if exp >= 0 {
            if n > exp + 1 {
                format!(
                    "{}.{}",
                    &digits[..(exp + 1) as usize],
                    &digits[(exp + 1) as usize..]
                )
            } else {
                format!("{}{}.0", digits, "0".repeat((exp + 1 - n) as usize))
            }
        } else {
            format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
        };
        format!("{sign}{body}")
    } else {
        let mant = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        format!(
            "{sign}{mant}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    }
}

/// A parsed format spec: `[[fill]align][sign][#][0][width][,|_][.precision][type]`.
#[derive(Debug, Default, Clone)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alternate: bool,
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    kind: Option<char>,
}

fn parse_spec(spec: &str) -> Result<Spec, Raised> {
    let chars: Vec<char> = spec.chars().collect();
    let mut s = Spec::default();
    let mut i = 0;
    let is_align = |c: char| matches!(c, '<' | '>' | '^' | '=');
    if chars.len() >= 2 && is_align(chars[1]) {
        s.fill = Some(chars[0]);
        s.align = Some(chars[1]);
        i = 2;
    } else if !chars.is_empty() && is_align(chars[0]) {
        s.align = Some(chars[0]);
        i = 1;
    }
    if i < chars.len() && matches!(chars[i], '+' | '-' | ' ') {
        s.sign = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() && chars[i] == '#' {
        s.alternate = true;
        i += 1;
    }
    if i < chars.len() && chars[i] == '0' {
        s.zero = true;
        i += 1;
    }
    let start = i;
    while i < chars.len() && chars[i].is_ascii_digit() {
        i += 1;
    }
    if i > start {
        s.width = chars[start..i]
            .iter()
            .collect::<String>()
            .parse()
            .map_err(|_| bad_spec(spec))?;
    }
    if i < chars.len() && matches!(chars[i], ',' | '_') {
        s.grouping = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() && chars[i] == '.' {
        i += 1;
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return Err(Raised::value_error("Format specifier missing precision"));
        }
        s.precision = Some(
            chars[start..i]
                .iter()
                .collect::<String>()
                .parse()
                .map_err(|_| bad_spec(spec))?,
        );
    }
    if i < chars.len() {
        s.kind = Some(chars[i]);
        i += 1;
    }
    if i != chars.len() {
        return Err(bad_spec(spec));
    }
    Ok(s)
}

fn bad_spec(spec: &str) -> Raised {
    Raised::value_error(format!("Invalid format specifier '{spec}'"))
}

fn unknown_code(kind: char, v: &Value) -> Raised {
    Raised::value_error(format!(
        "Unknown format code '{kind}' for object of type '{}'",
        v.type_name()
    ))
}

/// `format(value, spec)`.
pub fn format_value(v: &Value, spec: &str) -> Result<String, Raised> {
    if spec.is_empty() {
        return Ok(v.to_str());
    }
    let s = parse_spec(spec)?;
    match v {
        Value::Str(text) => {
            if !matches!(s.kind, None | Some('s')) {
                return Err(unknown_code(s.kind.unwrap_or('s'), v));
            }
            if s.sign.is_some() {
                return Err(Raised::value_error(
                    "Sign not allowed in string format specifier",
                ));
            }
            let body: String = match s.precision {
                Some(p) => text.chars().take(p).collect(),
                None => text.to_string(),
            };
            Ok(pad(&s, "", &body, '<'))
        }
        Value::Bool(_) | Value::Int(_) | Value::BigInt(_) => {
            let n = as_big(v).unwrap_or_default();
            let (negative, mag) = (n.is_negative(), n.magnitude());
            match s.kind {
                None | Some('d' | 'n') => {
                    if s.precision.is_some() {
                        return Err(Raised::value_error(
                            "Precision not allowed in integer format specifier",
                        ));
                    }
                    let digits = group(&mag.to_string(), s.grouping);
                    Ok(pad(&s, sign_of(negative, s.sign), &digits, '>'))
                }
                Some(k @ ('x' | 'X' | 'o' | 'b')) => {
                    let (digits, prefix) = match k {
                        'x' => (format!("{mag:x}"), "0x"),
                        'X' => (format!("{mag:X}"), "0X"),
                        'o' => (format!("{mag:o}"), "0o"),
                        _ => (format!("{mag:b}"), "0b"),
                    };
                    let mut sign = sign_of(negative, s.sign).to_string();
                    if s.alternate {
                        sign.push_str(prefix);
                    }
                    Ok(pad(&s, &sign, &digits, '>'))
                }
                Some('c') => {
                    let c = n.to_u32().and_then(char::from_u32).ok_or_else(|| {
                        Raised::exc("OverflowError", "%c arg not in range(0x110000)")
                    })?;
                    Ok(pad(&s, "", &c.to_string(), '<'))
                }
                Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => format_float(big_to_f64(&n)?, &s),
                Some(k) => Err(unknown_code(k, v)),
            }
        }
        Value::Float(f) => match s.kind {
            None | Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%' | 'n') => format_float(*f, &s),
            Some(k) => Err(unknown_code(k, v)),
        },
        other => Err(Raised::type_error(format!(
            "unsupported format string passed to {}.__format__",
            other.type_name()
        ))),
    }
}

fn sign_of(negative: bool, sign: Option<char>) -> &'static str {
    match (negative, sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    }
}

fn format_float(x: f64, s: &Spec) -> Result<String, Raised> {
    let negative = x.is_sign_negative() && !x.is_nan();
    let a = x.abs();
    let upper = matches!(s.kind, Some('E' | 'F' | 'G'));
    let mut body = if !a.is_finite() {
        let t = if a.is_nan() { "nan" } else { "inf" };
        let t = if s.kind == Some('%') {
            format!("{t}%")
        } else {
            t.to_string()
        };
        if upper {
            t.to_uppercase()
        } else {
            t
        }
    } else {
        match s.kind {
            Some('f' | 'F') => fixed(a, s.precision.unwrap_or(6), s.alternate),
            Some('%') => format!(
                "{}%",
                fixed(a * 100.0, s.precision.unwrap_or(6), s.alternate)
            ),
            Some('e' | 'E') => sci(a, s.precision.unwrap_or(6), upper, s.alternate),
            Some('g' | 'G') => general(a, s.precision.unwrap_or(6), upper, s.alternate),
            _ => match s.precision {
                // No type and no precision: repr's digits.
                None => float_repr(a),
                Some(p) => {
                    let g = general(a, p, false, s.alternate);
                    if g.contains(['.', 'e']) {
                        g
                    } else {
                        format!("{g}.0")
                    }
                }
            },
        }
    };
    if s.grouping.is_some() && a.is_finite() {
        let split = body
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(body.len());
        body = format!("{}{}", group(&body[..split], s.grouping), &body[split..]);
    }
    Ok(pad(s, sign_of(negative, s.sign), &body, '>'))
}

fn fixed(a: f64, precision: usize, alternate: bool) -> String {
    let mut out = format!("{a:.precision$}");
    if alternate && precision == 0 {
        out.push('.');
    }
    out
}

fn sci(a: f64, precision: usize, upper: bool, alternate: bool) -> String {
    let raw = format!("{a:.precision$e}");
    let (mant, exp) = raw.split_once('e').expect("exponent in {:e} output");
    let exp: i32 = exp.parse().expect("integer exponent");
    let mut mant = mant.to_string();
    if alternate && precision == 0 {
        mant.push('.');
    }
    let e = if upper { 'E' } else { 'e' };
    format!(
        "{mant}{e}{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

/// The `g` type: fixed or scientific by the exponent after rounding to
/// `precision` significant digits, trailing zeros removed unless `#`.
fn general(a: f64, precision: usize, upper: bool, alternate: bool) -> String {
    let p = precision.max(1);
    let exp: i32 = if a == 0.0 {
        0
    } else {
        let raw = format!("{:.*e}", p - 1, a);
        raw.split_once('e')
            .map(|(_, e)| e.parse().unwrap_or(0))
            .unwrap_or(0)
    };
    let mut out = if -4 <= exp && exp < p as i32 {
        fixed(a, (p as i32 - 1 - exp) as usize, false)
    } else {
        sci(a, p - 1, upper, false)
    };
    if !alternate {
        let (num, tail) = match out.find(['e', 'E']) {
            Some(i) => (out[..i].to_string(), out[i..].to_string()),
            None => (out.clone(), String::new()),
        };
        let num = if num.contains('.') {
            num.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            num
        };
        out = format!("{num}{tail}");
    } else if !out.contains('.') {
        match out.find(['e', 'E']) {
            Some(i) => out.insert(i, '.'),
            None => out.push('.'),
        }
    }
    out
}

fn group(digits: &str, sep: Option<char>) -> String {
    let Some(sep) = sep else {
        return digits.to_string();
    };
    let n = digits.len();
    let mut out = String::with_capacity(n + n / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

fn pad(s: &Spec, sign: &str, body: &str, default_align: char) -> String {
    let (fill, align) = match (s.align, s.zero) {
        (Some(a), _) => (s.fill.unwrap_or(' '), a),
        (None, true) if default_align == '>' => ('0', '='),
        (None, true) => ('0', default_align),
        (None, false) => (' ', default_align),
    };
    let len = sign.chars().count() + body.chars().count();
    if len >= s.width {
        return format!("{sign}{body}");
    }
    let gap = s.width - len;
    let fills = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    match align {
        '<' => format!("{sign}{body}{}", fills(gap)),
        '^' => format!("{}{sign}{body}{}", fills(gap / 2), fills(gap - gap / 2)),
        '=' => format!("{sign}{}{body}", fills(gap)),
        _ => format!("{}{sign}{body}", fills(gap)),
    }
}

/// printf-style `fmt % args`.
pub fn percent_format(fmt: &str, args: &Value) -> Result<String, Raised> {
    let positional: Vec<Value> = match args {
        Value::Tuple(items) => items.to_vec(),
        other => vec![other.clone()],
    };
    let mapping = match args {
        Value::Dict(d) => Some(d.clone()),
        _ => None,
    };
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut next = 0usize;
    let mut used_mapping = false;
    let mut i = 0;
    let take = |next: &mut usize| -> Result<Value, Raised> {
        let v = positional
            .get(*next)
            .cloned()
            .ok_or_else(|| Raised::type_error("not enough arguments for format string"))?;
        *next += 1;
        Ok(v)
    };
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        let mut arg: Option<Value> = None;
        if chars.get(i) == Some(&'(') {
            let end = chars[i..]
                .iter()
                .position(|c| *c == ')')
                .ok_or_else(|| Raised::value_error("incomplete format key"))?;
            let key: String = chars[i + 1..i + end].iter().collect();
            let map = mapping
                .as_ref()
                .ok_or_else(|| Raised::type_error("format requires a mapping"))?;
            let v = map
                .borrow()
                .get(&Key::Str(key.as_str().into()))
                .map(|(_, v)| v.clone())
                .ok_or_else(|| Raised::exc("KeyError", str_repr(&key)))?;
            arg = Some(v);
            used_mapping = true;
            i += end + 1;
        }
        let mut spec = Spec::default();
        let mut left = false;
        while let Some(&c) = chars.get(i) {
            match c {
                '-' => left = true,
                '0' => spec.zero = true,
                '+' => spec.sign = Some('+'),
                ' ' => {
                    if spec.sign.is_none() {
                        spec.sign = Some(' ')
                    }
                }
                '#' => spec.alternate = true,
                _ => break,
            }
            i += 1;
        }
        if chars.get(i) == Some(&'*') {
            spec.width = take(&mut next)?.as_int().unwrap_or(0).max(0) as usize;
            i += 1;
        } else {
            while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
                spec.width = spec.width * 10 + d as usize;
                i += 1;
            }
        }
        if chars.get(i) == Some(&'.') {
            i += 1;
            if chars.get(i) == Some(&'*') {
                spec.precision = Some(take(&mut next)?.as_int().unwrap_or(0).max(0) as usize);
                i += 1;
            } else {
                let mut p = 0;
                while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
                    p = p * 10 + d as usize;
                    i += 1;
                }
                spec.precision = Some(p);
            }
        }
        while matches!(chars.get(i), Some('h' | 'l' | 'L')) {
            i += 1;
        }
        let Some(&kind) = chars.get(i) else {
            return Err(Raised::value_error("incomplete format"));
        };
        i += 1;
        if kind == '%' {
            out.push('%');
            continue;
        }
        let v = match arg.take() {
            Some(v) => v,
            None if mapping.is_some() && positional.len() == 1 && used_mapping => {
                return Err(Raised::type_error("format requires a mapping"))
            }
            None => take(&mut next)?,
        };
        if left {
            spec.align = Some('<');
            spec.zero = false;
        }
        let piece = match kind {
            's' | 'r' | 'a' => {
                let text = if kind == 's' { v.to_str() } else { v.repr() };
                let text: String = match spec.precision {
                    Some(p) => text.chars().take(p).collect(),
                    None => text,
                };
                spec.zero = false;
                pad(&spec, "", &text, '>')
            }
            'd' | 'i' | 'u' => {
                let int = match &v {
                    Value::Float(f) => from_f64_trunc(*f)?,
                    other if other.is_integral() => other.clone(),
                    other => {
                        return Err(Raised::type_error(format!(
                            "%{kind} format: a real number is required, not {}",
                            other.type_name()
                        )))
                    }
                };
                let n = as_big(&int).unwrap_or_default();
                let digits = n.magnitude().to_string();
                let digits = match spec.precision {
                    Some(p) if p > digits.len() => {
                        format!("{}{digits}", "0".repeat(p - digits.len()))
                    }
                    _ => digits,
                };
                pad(&spec, sign_of(n.is_negative(), spec.sign), &digits, '>')
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
                let f = v.as_f64().ok_or_else(|| {
                    Raised::type_error(format!("must be real number, not {}", v.type_name()))
                })?;
                spec.kind = Some(kind);
                format_float(f, &spec)?
            }
            'x' | 'X' | 'o' | 'c' => {
                spec.kind = Some(kind);
                let int = match &v {
                    Value::Str(s) if kind == 'c' && s.chars().count() == 1 => {
                        out.push_str(&pad(&spec, "", s, '>'));
                        continue;
                    }
                    other if other.is_integral() => other.clone(),
                    other => {
                        return Err(Raised::type_error(format!(
                            "%{kind} format: an integer is required, not {}",
                            other.type_name()
                        )))
                    }
                };
                let mut s2 = spec.clone();
                s2.precision = None;
                format_value(&int, &spec_string(&s2))?
            }
            other => {
                return Err(Raised::value_error(format!(
                    "unsupported format character '{other}' (0x{:x})",
                    other as u32
                )))
            }
        };
        out.push_str(&piece);
    }
    if next < positional.len() && !used_mapping && mapping.is_none() {
        return Err(Raised::type_error(
            "not all arguments converted during string formatting",
        ));
    }
    Ok(out)
}

/// Writes a spec back as mini-language text (for `%x` and friends).
fn spec_string(s: &Spec) -> String {
    let mut out = String::new();
    if let Some(a) = s.align {
        out.push(s.fill.unwrap_or(' '));
        out.push(a);
    }
    if let Some(sign) = s.sign {
        out.push(sign);
    }
    if s.alternate {
        out.push('#');
    }
    if s.zero {
        out.push('0');
    }
    if s.width > 0 {
        out.push_str(&s.width.to_string());
    }
    if let Some(k) = s.kind {
        out.push(k);
    }
    out
}

/// `str.format(*args, **kwargs)`.
pub fn str_format(fmt: &str, args: &[Value], kwargs: &[(String, Value)]) -> Result<String, Raised> {
    str_format_numbered(fmt, args, kwargs, &mut 0)
}

/// `auto` is the next automatic field number, shared with nested specs
/// (`"{:>{}}"`), which CPython numbers after their outer field.
fn str_format_numbered(
    fmt: &str,
    args: &[Value],
    kwargs: &[(String, Value)],
    auto: &mut usize,
) -> Result<String, Raised> {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' && chars.get(i + 1) == Some(&'{') {
            out.push('{');
            i += 2;
            continue;
        }
        if c == '}' {
            if chars.get(i + 1) == Some(&'}') {
                out.push('}');
                i += 2;
                continue;
            }
            return Err(Raised::value_error(
                "Single '}' encountered in format string",
            ));
        }
        if c != '{' {
            out.push(c);
            i += 1;
            continue;
        }
        // Find the matching close brace, allowing one level of nesting in the spec.
        let mut depth = 0;
        let mut j = i + 1;
        while j < chars.len() {
            match chars[j] {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                _ => {}
            }
            j += 1;
        }
        if j >= chars.len() {
            return Err(Raised::value_error("expected '}' before end of string"));
        }
        let field: String = chars[i + 1..j].iter().collect();
        i = j + 1;
        let (head, spec) = match field.find(':') {
            Some(k) => (&field[..k], &field[k + 1..]),
            None => (field.as_str(), ""),
        };
        let (name, conversion) = match head.find('!') {
            Some(k) => (&head[..k], head[k + 1..].chars().next()),
            None => (head, None),
        };
        let split = name.find(['.', '[']).unwrap_or(name.len());
        let (base, mut accessors) = (&name[..split], &name[split..]);
        let mut value = if base.is_empty() {
            let v = args.get(*auto).cloned().ok_or_else(|| {
                Raised::exc(
                    "IndexError",
                    format!("Replacement index {auto} out of range for positional args tuple"),
                )
            })?;
            *auto += 1;
            v
        } else if let Ok(n) = base.parse::<usize>() {
            args.get(n).cloned().ok_or_else(|| {
                Raised::exc(
                    "IndexError",
                    format!("Replacement index {n} out of range for positional args tuple"),
                )
            })?
        } else {
            kwargs
                .iter()
                .find(|(k, _)| k == base)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| Raised::exc("KeyError", str_repr(base)))?
        };
        while let Some(rest) = accessors.strip_prefix('[') {
            let end = rest
                .find(']')
                .ok_or_else(|| Raised::value_error("Missing ']' in format string"))?;
            let key = &rest[..end];
            let key_value = match key.parse::<i64>() {
                Ok(n) => Value::Int(n),
                Err(_) => Value::str(key),
            };
            value = super::ops::subscript(&value, &key_value)?;
            accessors = &rest[end + 1..];
        }
        if !accessors.is_empty() {
            return Err(Raised::value_error(format!(
                "attribute access in format fields (`{name}`) is not supported by the calculator"
            )));
        }
        let spec = if spec.contains('{') {
            str_format_numbered(spec, args, kwargs, auto)?
        } else {
            spec.to_string()
        };
        let value = match conversion {
            Some('r' | 'a') => Value::str(&value.repr()),
            Some('s') => Value::str(&value.to_str()),
            None => value,
            Some(c) => {
                return Err(Raised::value_error(format!(
                    "Unknown conversion specifier {c}"
                )))
            }
        };
        out.push_str(&format_value(&value, &spec)?);
    }
    Ok(out)
}
