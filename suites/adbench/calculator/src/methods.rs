//! Attributes and methods: str, list, dict, set and tuple methods, the
//! unbound forms (`str.lower`), and module attributes.

use std::cell::RefCell;
use std::rc::Rc;

use super::builtins::{apply_key, arity, dict_from, sort_values, to_int, Kwargs};
use super::error::Raised;
use super::format::str_format;
use super::interp::Interp;
use super::modules;
use super::normaldist;
use super::ops;
use super::value::{equals, Dict, Key, Module, Value, ViewKind};

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
        Value::Record(r) if normaldist::is_normal_dist(r) => {
            if let Some(v) = normaldist::property(r, name) {
                return Ok(v);
            }
            normaldist::METHODS
        }
        Value::Record(r) => {
            return match r.fields.iter().position(|f| *f == name) {
                Some(i) => Ok(r.values[i].clone()),
                None => Err(no_attr(obj, name)),
            }
        }
        Value::Builtin("statistics.NormalDist") if name == "from_samples" => {
            return Ok(Value::Method(Box::new(obj.clone()), name.into()))
        }
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
            arity(name, &args, 1, 3)?;
            let sub = str_arg(&args, 0, name)?.unwrap_or_default();
            // `s.find(sub, start, end)` searches `s[start:end]`, in characters.
            let chars: Vec<char> = s.chars().collect();
            let bound = |i: usize, default: usize| -> Result<usize, Raised> {
                match args.get(i) {
                    None | Some(Value::None) => Ok(default),
                    Some(v) => {
                        let n = chars.len() as i64;
                        let k = to_int(v, name)?;
                        Ok((if k < 0 { (k + n).max(0) } else { k.min(n) }) as usize)
                    }
                }
            };
            let (start, end) = (bound(1, 0)?, bound(2, chars.len())?);
            // A start past the end finds nothing, not even "" (CPython).
            let past_end = args
                .get(1)
                .and_then(Value::as_int)
                .is_some_and(|k| k > chars.len() as i64);
            let (start, end) = if past_end { (1, 0) } else { (start, end) };
            let window: String = if start <= end {
                chars[start..end].iter().collect()
            } else {
                String::new()
            };
            if name == "count" {
                let n = if start > end {
                    0
                } else if sub.is_empty() {
                    window.chars().count() + 1
                } else {
                    window.matches(sub).count()
                };
                return Ok(Value::Int(n as i64));
            }
            let pos = if start > end {
                -1
            } else {
                char_find(&window, sub, name.starts_with('r'))
            };
            if pos < 0 && name.ends_with("index") {
                return Err(Raised::value_error("substring not found"));
            }
            Value::Int(if pos < 0 { pos } else { pos + start as i64 })
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
    if let (Value::Builtin("statistics.NormalDist"), "from_samples") = (obj, name) {
        return normaldist::from_samples(args);
    }
    if let Value::Record(r) = obj {
        return normaldist::call(r, name, args);
    }
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
            // CPython pops the element its iteration would visit first.
            let first = super::setorder::iteration_order(&s.borrow())
                .into_iter()
                .next()
                .ok_or_else(|| Raised::exc("KeyError", "'pop from an empty set'"))?;
            s.borrow_mut().shift_remove(&Key::of(&first)?);
            first
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
