//! The loader's checks on one task, each error naming the file and step:
//! the tool exists; the arguments match its published schema (templated
//! values are checked after resolving dates at D0, references only by
//! replay); every `${...}` names an earlier step this one waits for;
//! `after` names earlier steps; account-scoped tools wait for
//! `get_user_account_list`, the calculator for fetched data; the
//! trajectory ends with `summarize_results` in the task's outcome.

use adfarm_llm::Tool;
use serde_json::Value;

use super::lines::line_of;
use super::template::{self, has_reference};
use super::{reference_day, LoadError, Task};
use crate::replay::calculator_tool::{calculator_spec, CALCULATOR};
use crate::tools::spec::{self, specs};
use crate::tools::Outcome;
use crate::world::Day;

/// Tools whose results are fetched data (what the calculator needs first;
/// as for the platform's own flag, any stored result counts, search included).
pub const DATA_TOOLS: [&str; 7] = [
    spec::SEARCH,
    spec::GET_USER_ACCOUNT_LIST,
    spec::GET_ACCOUNT_INFO,
    spec::GET_ACCOUNT_ADGROUP_INFO,
    spec::DAILY_DATA,
    spec::HOURLY_DATA,
    spec::GET_TOP_GOOD_CREATIVE,
];

/// True when the call reads account-scoped data, so it needs account ids
/// from `get_user_account_list` (hourly reports only when they name accounts
/// or an ad group; without, they cover all of the user's accounts).
pub fn account_scoped(tool: &str, args: &Value) -> bool {
    match tool {
        spec::GET_ACCOUNT_INFO | spec::GET_ACCOUNT_ADGROUP_INFO | spec::DAILY_DATA => true,
        spec::HOURLY_DATA => {
            args.get("account_id_list").is_some() || args.get("adgroup_id").is_some()
        }
        _ => false,
    }
}

/// Every tool a task may call: the platform's and the calculator.
pub fn all_specs() -> Vec<Tool> {
    let mut s = specs();
    s.push(calculator_spec());
    s
}

/// Checks `value` against the subset of JSON Schema the tools publish.
///
/// # Errors
/// A description naming the argument path.
pub fn against_schema(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Value::String(s) = value {
        if has_reference(s) {
            return Ok(()); // checked by replay, once the data exists
        }
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let type_ok = types.is_empty()
        || types.iter().any(|t| match *t {
            "string" => value.is_string(),
            "integer" => value.is_u64() || value.is_i64(),
            "number" => value.is_number(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            "boolean" => value.is_boolean(),
            _ => false,
        });
    if !type_ok {
        return Err(format!("{at}: expected {types:?}, got {value}"));
    }
    if let Some(options) = schema["enum"].as_array() {
        if !options.contains(value) {
            return Err(format!("{at}: {value} is not one of {options:?}"));
        }
    }
    if let Some(n) = value.as_f64() {
        if schema["minimum"].as_f64().is_some_and(|m| n < m)
            || schema["maximum"].as_f64().is_some_and(|m| n > m)
        {
            return Err(format!("{at}: {n} is out of range"));
        }
    }
    if let Some(s) = value.as_str() {
        let n = s.chars().count() as u64;
        if schema["minLength"].as_u64().is_some_and(|m| n < m)
            || schema["maxLength"].as_u64().is_some_and(|m| n > m)
        {
            return Err(format!("{at}: length {n} is out of range"));
        }
        if schema["format"] == "date" && Day::parse(s).is_none() {
            return Err(format!("{at}: {s:?} is not a YYYY-MM-DD date"));
        }
    }
    if let Some(items) = value.as_array() {
        if schema["minItems"]
            .as_u64()
            .is_some_and(|m| (items.len() as u64) < m)
        {
            return Err(format!("{at}: too few items"));
        }
        for (i, item) in items.iter().enumerate() {
            against_schema(&schema["items"], item, &format!("{at}[{i}]"))?;
        }
    }
    if let Some(m) = value.as_object() {
        let props = schema["properties"].as_object();
        for key in schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !m.contains_key(key) {
                return Err(format!("{at}: missing required argument {key}"));
            }
        }
        for (k, v) in m {
            match props.and_then(|p| p.get(k)) {
                Some(s) => against_schema(s, v, &format!("{at}.{k}"))?,
                None if schema["additionalProperties"] == false => {
                    return Err(format!("{at}: unknown argument {k}"))
                }
                None => {}
            }
        }
    }
    Ok(())
}

/// Resolves the date and user templates of `args`, leaving strings that
/// refer to earlier steps as they are (their data does not exist yet).
///
/// # Errors
/// `(path, reason)`: the argument path (`args.begin`) and why its
/// template does not resolve.
fn dates_only(
    args: &Value,
    ctx: &template::Context<'_>,
    at: &str,
) -> Result<Value, (String, String)> {
    Ok(match args {
        Value::String(s) if has_reference(s) => args.clone(),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| dates_only(v, ctx, &format!("{at}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), dates_only(v, ctx, &format!("{at}.{k}"))?)))
                .collect::<Result<_, (String, String)>>()?,
        ),
        other => template::resolve(other, ctx).map_err(|e| (at.to_string(), e))?,
    })
}

/// Checks one parsed task.
///
/// # Errors
/// [`LoadError::Check`] naming the file and field (line 0: the parsed task
/// keeps no positions; [`check_text`] finds the line).
pub fn check(task: &Task) -> Result<(), LoadError> {
    let fail = |step: &str, field: &str, message: String| LoadError::Check {
        path: task.source.clone(),
        line: 0,
        field: if step.is_empty() {
            field.to_string()
        } else {
            format!("{step}.{field}")
        },
        message,
    };
    let specs = all_specs();
    if task.steps.is_empty() {
        return Err(fail("", "steps", "no steps".into()));
    }
    match (&task.answer, task.outcome) {
        (None, Outcome::Resolved) => {
            return Err(fail("", "answer", "a Resolved task needs an answer".into()))
        }
        (Some(_), Outcome::Unresolved) => {
            return Err(fail(
                "",
                "answer",
                "an Unresolved task has no answer".into(),
            ))
        }
        _ => {}
    }
    let no_data = |_: &str| None;
    let at_d0 = template::Context {
        today: reference_day(),
        user: 1,
        steps: &no_data,
    };
    for (i, step) in task.steps.iter().enumerate() {
        let id = step.id.as_str();
        let earlier = &task.steps[..i];
        if earlier.iter().any(|s| s.id == step.id) {
            return Err(fail(id, "id", "duplicate step id".into()));
        }
        for a in &step.after {
            if !earlier.iter().any(|s| &s.id == a) {
                return Err(fail(
                    id,
                    "after",
                    format!("names {a:?}, which is not an earlier step"),
                ));
            }
        }
        let tool = specs
            .iter()
            .find(|s| s.name == step.tool)
            .ok_or_else(|| fail(id, "tool", format!("unknown tool {:?}", step.tool)))?;
        // Dates resolve now; references wait for the data.
        let text = step.args.to_string();
        let dated = dates_only(&step.args, &at_d0, "args").map_err(|(at, e)| fail(id, &at, e))?;
        against_schema(&tool.parameters, &dated, "args").map_err(|e| match e.split_once(": ") {
            Some((at, why)) => fail(id, at, why.to_string()),
            None => fail(id, "args", e),
        })?;
        for k in &step.key_args {
            if step.args.get(k).is_none() {
                return Err(fail(
                    id,
                    "key_args",
                    format!("key arg {k} is not among the args"),
                ));
            }
        }
        let ancestors = task.ancestors(&step.id);
        for r in template::references(&text) {
            if !ancestors.iter().any(|a| a.id == r) {
                return Err(fail(
                    id,
                    "args",
                    format!("${{{r}...}} refers to a step this one does not wait for"),
                ));
            }
        }
        if account_scoped(&step.tool, &step.args)
            && !ancestors
                .iter()
                .any(|a| a.tool == spec::GET_USER_ACCOUNT_LIST)
        {
            return Err(fail(
                id,
                "after",
                format!("{} must come after get_user_account_list", step.tool),
            ));
        }
        if step.tool == CALCULATOR
            && !ancestors
                .iter()
                .any(|a| DATA_TOOLS.contains(&a.tool.as_str()))
        {
            return Err(fail(
                id,
                "after",
                "the calculator must come after fetched data".into(),
            ));
        }
        if !step.entry.is_empty() && step.tool != spec::SEARCH {
            return Err(fail(
                id,
                "entry",
                "only search steps name knowledge entries".into(),
            ));
        }
        let last = i + 1 == task.steps.len();
        if (step.tool == spec::SUMMARIZE_RESULTS) != last {
            return Err(fail(
                id,
                "tool",
                "summarize_results must be the last step, and only it".into(),
            ));
        }
        if last {
            let expected = match task.outcome {
                Outcome::Resolved => "Resolved",
                Outcome::Unresolved => "Unresolved",
            };
            if step.args["query"] != expected {
                return Err(fail(
                    id,
                    "args.query",
                    format!("the task's outcome is {expected}"),
                ));
            }
        }
    }
    if let Some(a) = &task.answer {
        let head = a.from.split(['.', '[']).next().unwrap_or("");
        if task.step(head).is_none() {
            return Err(fail(
                "",
                "answer.from",
                format!("names no step: {}", a.from),
            ));
        }
        if (a.kind == super::AnswerKind::Choice) == a.choices.is_empty() {
            return Err(fail(
                "",
                "answer.choices",
                "choices go with kind = \"choice\", and only with it".into(),
            ));
        }
        if let Some(problem) = a.problem() {
            return Err(fail("", "answer", problem));
        }
    }
    Ok(())
}

/// [`check`], the error's line found in the task's file text.
///
/// # Errors
/// [`LoadError::Check`] naming the file, line and field.
pub fn check_text(task: &Task, text: &str) -> Result<(), LoadError> {
    check(task).map_err(|e| match e {
        LoadError::Check {
            path,
            field,
            message,
            ..
        } => {
            let line = match task.steps.iter().find(|s| {
                field
                    .strip_prefix(s.id.as_str())
                    .is_some_and(|r| r.starts_with('.'))
            }) {
                Some(s) => line_of(text, Some(&s.id), &field[s.id.len() + 1..]),
                None => line_of(text, None, &field),
            };
            LoadError::Check {
                path,
                line,
                field,
                message,
            }
        }
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{parse, Split};
    use super::*;
    use std::path::Path;

    const GOOD: &str = r#"
id = "T"
tier = "L1"
user = 0
question = "q"
answer = { kind = "number", from = "s2.rows[0].Cost (CNY)" }
[[steps]]
id = "s1"
tool = "get_user_account_list"
args = { user_id = "{user}", page_size = 100 }
[[steps]]
id = "s2"
tool = "daily_data_by_group_and_field"
after = ["s1"]
args = { user_id = "{user}", begin = "{D-7}", end = "{D-1}", group_by_type = "SUM", fields = ["cost"], account_id_list = "${s1.rows[*].Account ID}", page_size = 1 }
[[steps]]
id = "s3"
tool = "summarize_results"
after = ["s2"]
args = { query = "Resolved" }
"#;

    fn checked(text: &str) -> Result<(), String> {
        let t = parse(Path::new("t.toml"), text, Split::Public).map_err(|e| e.to_string())?;
        check_text(&t, text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_good_task_passes_and_each_fault_is_named() {
        checked(GOOD).expect("good");
        let ours = "(CNY)\" }";
        checked(&GOOD.replace(ours, "(CNY)\", tolerance = 0.5, unit = \"cny\" }"))
            .expect("a declared tolerance and unit");
        // Each case edits the good task (every `(from, to)` replaced) and
        // names the fault the check must report.
        let cases: [(&[(&str, &str)], &str); 13] = [
            (
                &[("\"daily_data_by_group_and_field\"", "\"daily\"")],
                "t.toml:13: s2.tool: unknown tool",
            ),
            (
                &[
                    ("after = [\"s1\"]\n", ""),
                    ("\"${s1.rows[*].Account ID}\"", "[123]"),
                ],
                "t.toml:12: s2.after: daily_data_by_group_and_field must come after",
            ),
            (
                &[("after = [\"s1\"]\n", "")],
                "s2.args: ${s1...} refers to a step this one does not wait for",
            ),
            (
                &[("\"SUM\"", "\"TOTAL\"")],
                "t.toml:15: s2.args.group_by_type: \"TOTAL\" is not one of",
            ),
            (
                &[("page_size = 1 }", "page_size = 1, colour = 2 }")],
                "s2.args: unknown argument colour",
            ),
            (
                &[("{D-7}", "{D.next_week}")],
                "t.toml:15: s2.args.begin: unknown date term",
            ),
            (
                &[("after = [\"s2\"]", "after = [\"s4\"]")],
                "t.toml:19: s3.after: names \"s4\"",
            ),
            (
                &[("query = \"Resolved\"", "query = \"Unresolved\"")],
                "s3.args.query: the task's outcome is Resolved",
            ),
            (
                &[("s2.rows[0]", "s7.rows[0]")],
                "t.toml:6: answer.from: names no step",
            ),
            (
                &[("user = 0", "user = \"zero\"")],
                "t.toml:4: user: invalid type",
            ),
            (
                &[("(CNY)\" }", "(CNY)\", tolerance = -1.0 }")],
                "tolerance must be a number >= 0",
            ),
            (
                &[("(CNY)\" }", "(CNY)\", fraction = true }")],
                "fraction goes with a percent answer only",
            ),
            (
                &[("(CNY)\" }", "(CNY)\", tolerence = 1.0 }")],
                "unknown field",
            ),
        ];
        for (edits, want) in cases {
            let text = edits
                .iter()
                .fold(GOOD.to_string(), |t, (from, to)| t.replace(from, to));
            let err = checked(&text).expect_err(want);
            assert!(err.contains(want), "{err} should contain {want}");
        }
    }
}
