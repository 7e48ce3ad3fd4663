//! Argument templates of reference steps. Two forms, chosen so they never
//! clash with the Python braces of calculator code:
//!
//! - `{user}` and date terms `{D}`, `{D-7}`, `{D.last_week.monday}`,
//!   `{D.last_month.first}`... resolved from the job's date D;
//! - `${s2.rows[0].Ad group ID}`, `${s1.rows[*].Account ID}`, `${s3.rid}`:
//!   a path into an earlier step's observation (`rid` is its result id,
//!   the name the calculator reads it by). A string that is exactly one
//!   `${...}` becomes the JSON value itself (a list stays a list).

use serde_json::Value;

use crate::world::Day;

/// What templates are resolved against.
pub struct Context<'a> {
    /// The job's date D.
    pub today: Day,
    /// The task's user id.
    pub user: u64,
    /// Earlier steps' observations by step id, parsed, with `rid` set.
    pub steps: &'a dyn Fn(&str) -> Option<Value>,
}

/// Resolves a date term (the text between the braces), or None when the
/// text is not one.
pub fn date_term(term: &str, d: Day) -> Option<Day> {
    let rest = term.strip_prefix('D')?;
    if rest.is_empty() {
        return Some(d);
    }
    if let Some(n) = rest.strip_prefix('-') {
        return n.parse::<i32>().ok().map(|n| d.plus(-n));
    }
    let monday = d.week_start();
    let last_month_first = d.month_start().plus(-1).month_start();
    Some(match rest {
        ".this_week.monday" => monday,
        ".last_week.monday" => monday.plus(-7),
        ".last_week.sunday" => monday.plus(-1),
        ".week_before_last.monday" => monday.plus(-14),
        ".week_before_last.sunday" => monday.plus(-8),
        ".this_month.first" => d.month_start(),
        ".last_month.first" => last_month_first,
        ".last_month.last" => d.month_start().plus(-1),
        ".month_before_last.first" => last_month_first.plus(-1).month_start(),
        ".month_before_last.last" => last_month_first.plus(-1),
        _ => return None,
    })
}

/// True when `s` holds a `${...}` reference to an earlier step.
pub fn has_reference(s: &str) -> bool {
    s.contains("${")
}

/// The step ids a string refers to with `${...}`.
pub fn references(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        let Some(j) = after.find('}') else { break };
        let path = &after[..j];
        out.push(path.split(['.', '[']).next().unwrap_or("").to_string());
        rest = &after[j + 1..];
    }
    out
}

/// Follows `rows[0].Ad group ID` (or `rows[*].X`, which maps) into `v`.
pub fn follow(v: &Value, path: &str) -> Result<Value, String> {
    let mut segments = path.splitn(2, '.');
    let head = segments.next().unwrap_or("");
    let rest = segments.next();
    let (name, index) = match head.find('[') {
        Some(i) if head.ends_with(']') => (&head[..i], Some(&head[i + 1..head.len() - 1])),
        _ => (head, None),
    };
    let mut cur = if name.is_empty() {
        v.clone()
    } else {
        v.get(name)
            .cloned()
            .ok_or_else(|| format!("no field {name:?}"))?
    };
    match index {
        Some("*") => {
            let items = cur
                .as_array()
                .ok_or_else(|| format!("{name} is not a list"))?;
            return items
                .iter()
                .map(|item| match rest {
                    Some(r) => follow(item, r),
                    None => Ok(item.clone()),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array);
        }
        Some(i) => {
            let i: usize = i.parse().map_err(|_| format!("bad index [{i}]"))?;
            cur = cur
                .get(i)
                .cloned()
                .ok_or_else(|| format!("{name}[{i}] is out of range"))?;
        }
        None => {}
    }
    match rest {
        Some(r) => follow(&cur, r),
        None => Ok(cur),
    }
}

/// Resolves one `${step.path}` reference.
fn reference(path: &str, ctx: &Context<'_>) -> Result<Value, String> {
    let (step, rest) = match path.find(['.', '[']) {
        Some(i) => (&path[..i], path[i..].trim_start_matches('.')),
        None => (path, ""),
    };
    let obs = (ctx.steps)(step).ok_or_else(|| format!("step {step:?} has no observation"))?;
    if rest.is_empty() {
        return Ok(obs);
    }
    follow(&obs, rest).map_err(|e| format!("${{{path}}}: {e}"))
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Resolves the templates of one string.
fn string(s: &str, ctx: &Context<'_>) -> Result<Value, String> {
    if let Some(inner) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}')) {
        if !inner.contains('}') {
            return reference(inner, ctx);
        }
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('{') {
        let dollar = i > 0 && rest.as_bytes()[i - 1] == b'$';
        let Some(j) = rest[i..].find('}') else { break };
        let term = &rest[i + 1..i + j];
        let replaced = if dollar {
            Some(text_of(&reference(term, ctx)?))
        } else if term == "user" {
            Some(ctx.user.to_string())
        } else if term.starts_with('D') && !term.contains([' ', '{', '\'']) {
            Some(
                date_term(term, ctx.today)
                    .ok_or_else(|| format!("unknown date term {{{term}}}"))?
                    .to_string(),
            )
        } else {
            None
        };
        match replaced {
            Some(r) => {
                out.push_str(&rest[..if dollar { i - 1 } else { i }]);
                out.push_str(&r);
                rest = &rest[i + j + 1..];
            }
            // Python braces: keep the `{` and scan on inside them.
            None => {
                out.push_str(&rest[..=i]);
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    // `{user}` alone is an id: keep it a number as the schema wants.
    if s == "{user}" {
        return Ok(Value::from(ctx.user));
    }
    Ok(Value::String(out))
}

/// Resolves every template in `args`.
///
/// # Errors
/// The first template that does not resolve, described.
pub fn resolve(args: &Value, ctx: &Context<'_>) -> Result<Value, String> {
    Ok(match args {
        Value::String(s) => string(s, ctx)?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| resolve(v, ctx))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), resolve(v, ctx)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dates_and_references_resolve() {
        let d = Day::parse("2026-07-25").expect("date"); // a Saturday
        let steps = |id: &str| {
            (id == "s1")
                .then(|| json!({"rid": "r1", "rows": [{"Account ID": 5}, {"Account ID": 9}]}))
        };
        let ctx = Context {
            today: d,
            user: 42,
            steps: &steps,
        };
        let args = json!({
            "user_id": "{user}", "begin": "{D.last_week.monday}", "end": "{D.last_week.sunday}",
            "y": "{D-1}", "ids": "${s1.rows[*].Account ID}",
            "code": "x = ${s1.rid}['rows'][0]\nd = {k: 1 for k in ${s1.rid}}\nprint(f\"{x:.2f}\")",
        });
        let r = resolve(&args, &ctx).expect("resolves");
        assert_eq!(r["user_id"], json!(42));
        assert_eq!(r["begin"], json!("2026-07-13"));
        assert_eq!(r["end"], json!("2026-07-19"));
        assert_eq!(r["y"], json!("2026-07-24"));
        assert_eq!(r["ids"], json!([5, 9]));
        assert_eq!(
            r["code"],
            json!("x = r1['rows'][0]\nd = {k: 1 for k in r1}\nprint(f\"{x:.2f}\")")
        );
        assert!(resolve(&json!("${s9.rows}"), &ctx).is_err());
        assert!(resolve(&json!("{D.next_year}"), &ctx).is_err());
        assert_eq!(
            references("a ${s1.rid} b ${s2.rows[0].X}"),
            vec!["s1", "s2"]
        );
        let last = date_term("D.last_month.last", d).expect("term");
        assert_eq!(last.to_string(), "2026-06-30");
    }
}
