//! The Sprig and Helm functions the chart uses, for `gtmpl`.
//!
//! `gtmpl` functions are plain `fn` pointers, so `include` finds the chart's
//! named templates through a thread-local set by [`with_helpers`].

use crate::values::to_yaml;
use gtmpl::{Context, Func, FuncError, Template};
use gtmpl_value::{Number, Value};
use std::cell::RefCell;

thread_local! {
    static HELPERS: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Every function templates may call besides gtmpl's builtins.
pub(crate) const FUNCS: &[(&str, Func)] = &[
    ("include", include as Func),
    ("toYaml", to_yaml_fn as Func),
    ("nindent", nindent as Func),
    ("indent", indent as Func),
    ("quote", quote as Func),
    ("default", default as Func),
    ("trunc", trunc as Func),
    ("trimSuffix", trim_suffix as Func),
    ("max", max as Func),
];

/// Runs `f` with `helpers` (the `_*.tpl` texts) visible to `include`.
pub(crate) fn with_helpers<T>(helpers: &str, f: impl FnOnce() -> T) -> T {
    let old = HELPERS.with(|h| std::mem::replace(&mut *h.borrow_mut(), helpers.to_string()));
    let out = f();
    HELPERS.with(|h| *h.borrow_mut() = old);
    out
}

/// A template with the chart's functions and named templates.
pub(crate) fn template(name: &str, helpers: &str) -> Result<Template, String> {
    let mut t = Template::with_name(name);
    t.add_funcs(FUNCS);
    t.add_template("_helpers", helpers.to_string())
        .map_err(|e| e.to_string())?;
    Ok(t)
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::NoValue | Value::Nil => String::new(),
        other => other.to_string(),
    }
}

fn arg<'a>(args: &'a [Value], i: usize, name: &str, n: usize) -> Result<&'a Value, FuncError> {
    args.get(i)
        .ok_or_else(|| FuncError::ExactlyXArgs(name.into(), n))
}

fn int(v: &Value, name: &str) -> Result<i64, FuncError> {
    match v {
        Value::Number(n) => n.as_i64().ok_or(FuncError::UnableToConvertFromValue),
        _ => Err(FuncError::Generic(format!(
            "{name}: expected an integer, got {v}"
        ))),
    }
}

fn include(args: &[Value]) -> Result<Value, FuncError> {
    let name = text(arg(args, 0, "include", 2)?);
    let dot = arg(args, 1, "include", 2)?.clone();
    let helpers = HELPERS.with(|h| h.borrow().clone());
    let mut t = template("include", &helpers).map_err(FuncError::Generic)?;
    t.parse(format!("{{{{ template {name:?} . }}}}"))
        .map_err(|e| FuncError::Generic(e.to_string()))?;
    let out = t
        .render(&Context::from(dot))
        .map_err(|e| FuncError::Generic(format!("include {name:?}: {e}")))?;
    Ok(Value::String(out))
}

fn to_yaml_fn(args: &[Value]) -> Result<Value, FuncError> {
    let v = arg(args, 0, "toYaml", 1)?;
    let s = serde_yaml::to_string(&to_yaml(v)).map_err(|e| FuncError::Generic(e.to_string()))?;
    Ok(Value::String(s.trim_end_matches('\n').to_string()))
}

fn indent_by(n: i64, s: &str) -> String {
    let pad = " ".repeat(n.max(0) as usize);
    s.split('\n')
        .map(|l| format!("{pad}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn indent(args: &[Value]) -> Result<Value, FuncError> {
    let n = int(arg(args, 0, "indent", 2)?, "indent")?;
    Ok(Value::String(indent_by(
        n,
        &text(arg(args, 1, "indent", 2)?),
    )))
}

fn nindent(args: &[Value]) -> Result<Value, FuncError> {
    let n = int(arg(args, 0, "nindent", 2)?, "nindent")?;
    Ok(Value::String(format!(
        "\n{}",
        indent_by(n, &text(arg(args, 1, "nindent", 2)?))
    )))
}

fn quote(args: &[Value]) -> Result<Value, FuncError> {
    let s = text(arg(args, 0, "quote", 1)?);
    Ok(Value::String(format!("{s:?}")))
}

/// `default D V`: V unless it is empty, else D.
fn default(args: &[Value]) -> Result<Value, FuncError> {
    let d = arg(args, 0, "default", 2)?;
    match args.get(1) {
        Some(v) if gtmpl_truthy(v) => Ok(v.clone()),
        _ => Ok(d.clone()),
    }
}

fn gtmpl_truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) | Value::Map(o) => !o.is_empty(),
        Value::Function(_) => true,
        Value::NoValue | Value::Nil => false,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
    }
}

fn trunc(args: &[Value]) -> Result<Value, FuncError> {
    let n = int(arg(args, 0, "trunc", 2)?, "trunc")?.max(0) as usize;
    let s = text(arg(args, 1, "trunc", 2)?);
    Ok(Value::String(s.chars().take(n).collect()))
}

fn trim_suffix(args: &[Value]) -> Result<Value, FuncError> {
    let suffix = text(arg(args, 0, "trimSuffix", 2)?);
    let s = text(arg(args, 1, "trimSuffix", 2)?);
    Ok(Value::String(
        s.strip_suffix(suffix.as_str()).unwrap_or(&s).to_string(),
    ))
}

fn max(args: &[Value]) -> Result<Value, FuncError> {
    let mut best: Option<i64> = None;
    for a in args {
        let v = int(a, "max")?;
        best = Some(best.map_or(v, |b| b.max(v)));
    }
    best.map(|b| Value::Number(Number::from(b)))
        .ok_or_else(|| FuncError::AtLeastXArgs("max".into(), 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(src: &str, dot: Value) -> String {
        let mut t = template("t", r#"{{- define "x" -}}hi {{ . }}{{- end -}}"#).unwrap();
        t.parse(src).unwrap();
        with_helpers(r#"{{- define "x" -}}hi {{ . }}{{- end -}}"#, || {
            t.render(&Context::from(dot)).unwrap()
        })
    }

    #[test]
    fn include_renders_a_named_template_into_a_pipeline() {
        assert_eq!(
            render(r#"{{ include "x" . | nindent 2 }}"#, Value::from("a")),
            "\n  hi a"
        );
    }

    #[test]
    fn default_quote_trunc_and_max_behave_like_sprig() {
        assert_eq!(
            render(r#"{{ default "d" . | quote }}"#, Value::from("")),
            "\"d\""
        );
        assert_eq!(
            render(r#"{{ trunc 3 . | trimSuffix "b" }}"#, Value::from("abbb")),
            "ab"
        );
        assert_eq!(render("{{ max 1 . }}", Value::from(0i64)), "1");
    }
}
