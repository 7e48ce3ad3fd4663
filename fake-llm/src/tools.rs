//! The `tools` API: checking tools, `tool_choice` and the tool turns of a
//! conversation as OpenAI does (400 on what it refuses), counting their
//! tokens, and answering with a tool call.

use crate::answer::ApiError;
use crate::config::FakeLlmConfig;
use crate::gen::{schema_value, Rng};
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// A request's tools and what it asks of them.
pub(crate) struct Offer<'a> {
    /// Each tool's `function` object (name, description, parameters).
    functions: Vec<&'a Value>,
    choice: Choice<'a>,
}

/// `tool_choice`, checked.
enum Choice<'a> {
    Auto,
    None,
    Required,
    Named(&'a str),
}

/// The tool call the fake answers with.
pub(crate) struct Call {
    /// The assistant message carrying the call.
    pub(crate) message: Value,
    /// Its completion tokens.
    pub(crate) tokens: u64,
    /// Whether the fake made it unusable on purpose (`p_bad_tool_call`).
    pub(crate) bad: bool,
}

/// The fake's token count of JSON: runs of letters and digits, so that
/// compact JSON (no spaces) is not counted as one word.
pub(crate) fn symbol_count(s: &str) -> u64 {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .count() as u64
}

fn name_of(function: &Value) -> &str {
    function["name"].as_str().unwrap_or_default()
}

/// The request's `tools` and `tool_choice`, or `None` without tools.
///
/// # Errors
/// 400 for tools that are not functions with a name, an unknown
/// `tool_choice`, one naming a tool not offered, or one without tools.
pub(crate) fn offer(req: &Value) -> Result<Option<Offer<'_>>, ApiError> {
    let choice = req.get("tool_choice").filter(|c| !c.is_null());
    let tools = match req.get("tools") {
        None | Some(Value::Null) if choice.is_some() => {
            return Err(ApiError::bad_request(
                "tool_choice is only allowed when tools are specified.",
            ))
        }
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(tools)) if !tools.is_empty() => tools,
        Some(_) => return Err(ApiError::bad_request("tools must be a non-empty array.")),
    };
    let mut functions = Vec::with_capacity(tools.len());
    for tool in tools {
        let function = &tool["function"];
        let named = function["name"].as_str().is_some_and(|n| !n.is_empty());
        let parameters_ok = matches!(function.get("parameters"), None | Some(Value::Object(_)));
        if tool["type"] != "function" || !named || !parameters_ok {
            return Err(ApiError::bad_request(
                "Each tool must be {\"type\": \"function\", \"function\": {\"name\": ..., \"parameters\": {...}}}.",
            ));
        }
        functions.push(function);
    }
    let choice = match choice {
        None => Choice::Auto,
        Some(Value::String(s)) if s == "auto" => Choice::Auto,
        Some(Value::String(s)) if s == "none" => Choice::None,
        Some(Value::String(s)) if s == "required" => Choice::Required,
        Some(c) if c["type"] == "function" && c["function"]["name"].is_string() => {
            let name = c["function"]["name"].as_str().unwrap_or_default();
            if !functions.iter().any(|f| name_of(f) == name) {
                return Err(ApiError::bad_request(format!(
                    "tool_choice names `{name}`, which is not among the tools."
                )));
            }
            Choice::Named(name)
        }
        Some(_) => {
            return Err(ApiError::bad_request(
                "tool_choice must be \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"function\": {\"name\": ...}}.",
            ))
        }
    };
    Ok(Some(Offer { functions, choice }))
}

/// Prompt tokens of the offered tools: the symbols of each `function` object.
pub(crate) fn offer_tokens(offer: Option<&Offer<'_>>) -> u64 {
    offer.map_or(0, |o| {
        o.functions
            .iter()
            .map(|f| symbol_count(&f.to_string()))
            .sum()
    })
}

/// Checks the tool turns of `messages` as OpenAI does: assistant tool calls
/// are well formed, each `tool` message answers a call of the assistant turn
/// before it, and each call is answered before the conversation goes on.
/// Returns the prompt tokens of the calls (symbols of names and arguments)
/// and how many tool results the conversation holds.
///
/// # Errors
/// 400 for a malformed call, an orphan tool result or an unanswered call.
pub(crate) fn conversation(messages: &[Value]) -> Result<(u64, u64), ApiError> {
    let mut tokens = 0;
    let mut results = 0;
    let mut pending: BTreeSet<&str> = BTreeSet::new();
    for m in messages {
        let role = m["role"].as_str().unwrap_or_default();
        if role == "tool" {
            let id = m["tool_call_id"].as_str().unwrap_or_default();
            if !pending.remove(id) {
                return Err(ApiError::bad_request(
                    "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'.",
                ));
            }
            results += 1;
            continue;
        }
        if !pending.is_empty() {
            let ids: Vec<&str> = pending.into_iter().collect();
            return Err(ApiError::bad_request(format!(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. Unanswered: {}.",
                ids.join(", ")
            )));
        }
        let calls = match m.get("tool_calls") {
            None | Some(Value::Null) => continue,
            Some(Value::Array(calls)) if role == "assistant" => calls,
            Some(_) => {
                return Err(ApiError::bad_request(
                    "tool_calls must be an array on an assistant message.",
                ))
            }
        };
        for call in calls {
            let (id, name, arguments) = (
                call["id"].as_str(),
                call["function"]["name"].as_str(),
                call["function"]["arguments"].as_str(),
            );
            let (Some(id), Some(name), Some(arguments)) = (id, name, arguments) else {
                return Err(ApiError::bad_request(
                    "Each tool call must be {\"id\": ..., \"type\": \"function\", \"function\": {\"name\": ..., \"arguments\": \"...\"}}.",
                ));
            };
            if call["type"] != "function" {
                return Err(ApiError::bad_request(
                    "Tool calls must have type 'function'.",
                ));
            }
            pending.insert(id);
            tokens += symbol_count(name) + symbol_count(arguments);
        }
    }
    // Calls still open at the end are the model's turn to wait on, not an error.
    Ok((tokens, results))
}

/// The tool call answering a request with `offer`, or `None` to answer
/// with text: `none` never calls, `required` and a named tool always do,
/// `auto` calls until the conversation holds
/// [`FakeLlmConfig::tool_results_before_text`] tool results. The tool is the
/// named one or drawn from `rng`; its arguments fit its parameters' schema,
/// unless the `p_bad_tool_call` draw (per body, from `canonical`) spoils the
/// call: half of those get arguments that are not JSON, half an unknown name.
/// A [`FakeLlmConfig::tool_script`] call comes first where one is due.
pub(crate) fn call(
    cfg: &FakeLlmConfig,
    offer: &Offer<'_>,
    tool_results: u64,
    canonical: &[u8],
    rng: &mut Rng,
) -> Option<Call> {
    let calls = match offer.choice {
        Choice::None => false,
        Choice::Required | Choice::Named(_) => true,
        Choice::Auto => tool_results < u64::from(cfg.tool_results_before_text),
    };
    let scripted = match offer.choice {
        Choice::None => None,
        _ => usize::try_from(tool_results)
            .ok()
            .and_then(|k| cfg.tool_script.get(k))
            .filter(|s| offer.functions.iter().any(|f| name_of(f) == s.name))
            .filter(|s| !matches!(offer.choice, Choice::Named(n) if n != s.name)),
    };
    if let Some(s) = scripted {
        let arguments = s.arguments.to_string();
        let tokens = symbol_count(&s.name) + symbol_count(&arguments);
        return Some(Call {
            message: call_message(&s.name, &arguments, rng),
            tokens,
            bad: false,
        });
    }
    if !calls {
        return None;
    }
    let function = match offer.choice {
        Choice::Named(name) => offer.functions.iter().find(|f| name_of(f) == name)?,
        _ => &offer.functions[rng.below(offer.functions.len() as u64) as usize],
    };
    let empty = json!({"type": "object"});
    let schema = function.get("parameters").unwrap_or(&empty);
    let arguments = match schema_value(schema, rng, 0) {
        v @ Value::Object(_) => v,
        _ => json!({}),
    };
    let mut name = name_of(function).to_string();
    let mut arguments = arguments.to_string();
    let mut spoil = Rng::from_parts(&[&cfg.seed.to_le_bytes(), b"bad-tool-call", canonical]);
    let bad = spoil.unit() < cfg.p_bad_tool_call;
    if bad {
        if spoil.below(2) == 0 {
            // Cut mid-object, as a model that ran out of patience would.
            arguments.pop();
        } else {
            while offer.functions.iter().any(|f| name_of(f) == name) {
                name.push_str("_unknown");
            }
        }
    }
    let tokens = symbol_count(&name) + symbol_count(&arguments);
    Some(Call {
        message: call_message(&name, &arguments, rng),
        tokens,
        bad,
    })
}

/// The assistant message calling `name` with `arguments`.
fn call_message(name: &str, arguments: &str, rng: &mut Rng) -> Value {
    json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [{
            "id": format!("call_{:016x}", rng.next_u64()),
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools_req(choice: Value) -> Value {
        json!({"tools": [
            {"type": "function", "function": {"name": "spend", "parameters": {"type": "object",
                "properties": {"day": {"type": "string"}}}}},
            {"type": "function", "function": {"name": "clicks"}}],
            "tool_choice": choice})
    }

    #[test]
    fn symbols_are_runs_of_letters_and_digits() {
        assert_eq!(symbol_count(r#"{"day":"2024-01-02"}"#), 4);
        assert_eq!(symbol_count(""), 0);
    }

    #[test]
    fn offers_are_checked_like_openai() {
        assert!(offer(&json!({})).unwrap().is_none());
        let code = |req: Value| offer(&req).err().map(|e| e.status.as_u16());
        assert_eq!(code(json!({"tool_choice": "auto"})), Some(400));
        assert_eq!(code(json!({"tools": []})), Some(400));
        assert_eq!(code(json!({"tools": [{"type": "function"}]})), Some(400));
        assert_eq!(code(tools_req(json!("sometimes"))), Some(400));
        let unknown = json!({"type": "function", "function": {"name": "bid"}});
        assert_eq!(code(tools_req(unknown)), Some(400));
        let req = tools_req(json!("required"));
        let o = offer(&req).unwrap().unwrap();
        assert_eq!(o.functions.len(), 2);
        assert!(offer_tokens(Some(&o)) >= 6);
    }

    #[test]
    fn tool_turns_must_pair_calls_with_results() {
        let call = json!({"id": "c1", "type": "function",
            "function": {"name": "spend", "arguments": "{\"day\":\"x\"}"}});
        let good = [
            json!({"role": "user", "content": "q"}),
            json!({"role": "assistant", "content": null, "tool_calls": [call]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": "12"}),
        ];
        assert_eq!(conversation(&good).unwrap(), (3, 1));
        let orphan = [json!({"role": "tool", "tool_call_id": "c9", "content": "12"})];
        assert!(conversation(&orphan).is_err());
        let unanswered = [good[1].clone(), json!({"role": "user", "content": "q"})];
        assert!(conversation(&unanswered).is_err());
        let malformed = [json!({"role": "assistant", "tool_calls": [{"id": "c1"}]})];
        assert!(conversation(&malformed).is_err());
    }

    #[test]
    fn calls_follow_the_choice_and_the_result_count() {
        let cfg = FakeLlmConfig::default();
        let mut rng = Rng::from_parts(&[b"t"]);
        let req = tools_req(json!({"type": "function", "function": {"name": "spend"}}));
        let named = offer(&req).unwrap().unwrap();
        let c = call(&cfg, &named, 5, b"x", &mut rng).expect("a named tool is always called");
        let f = &c.message["tool_calls"][0]["function"];
        assert_eq!(f["name"], "spend");
        let args: Value = serde_json::from_str(f["arguments"].as_str().unwrap()).unwrap();
        assert!(args["day"].is_string(), "{args}");
        let req = tools_req(json!("auto"));
        let auto = offer(&req).unwrap().unwrap();
        assert!(call(&cfg, &auto, 0, b"x", &mut rng).is_some());
        assert!(call(&cfg, &auto, 1, b"x", &mut rng).is_none());
        let req = tools_req(json!("none"));
        let none = offer(&req).unwrap().unwrap();
        assert!(call(&cfg, &none, 0, b"x", &mut rng).is_none());
    }

    #[test]
    fn a_script_makes_its_calls_in_order_then_the_fake_answers_as_usual() {
        let script = |name: &str, n: u32| crate::config::ScriptedCall {
            name: name.into(),
            arguments: json!({"day": format!("d{n}")}),
        };
        let cfg = FakeLlmConfig {
            tool_script: vec![script("clicks", 0), script("spend", 1), script("nope", 2)],
            ..FakeLlmConfig::default()
        };
        let mut rng = Rng::from_parts(&[b"t"]);
        let req = tools_req(json!("auto"));
        let auto = offer(&req).unwrap().unwrap();
        let function = |results: u64, rng: &mut Rng| {
            call(&cfg, &auto, results, b"x", rng)
                .map(|c| c.message["tool_calls"][0]["function"].clone())
        };
        let first = function(0, &mut rng).expect("the script's first call");
        assert_eq!(
            (first["name"].as_str(), first["arguments"].as_str()),
            (Some("clicks"), Some(r#"{"day":"d0"}"#))
        );
        let second = function(1, &mut rng).expect("the script's second call");
        assert_eq!(second["name"], "spend");
        // A tool not offered, or past the script: the usual answer (text
        // once a result is in, for `auto`).
        assert!(function(2, &mut rng).is_none());
        assert!(function(3, &mut rng).is_none());
        let req = tools_req(json!("none"));
        let none = offer(&req).unwrap().unwrap();
        assert!(call(&cfg, &none, 0, b"x", &mut rng).is_none());
    }

    #[test]
    fn a_spoiled_call_is_unusable() {
        let cfg = FakeLlmConfig {
            p_bad_tool_call: 1.0,
            ..FakeLlmConfig::default()
        };
        let req = tools_req(json!("required"));
        let o = offer(&req).unwrap().unwrap();
        for body in [b"a".as_slice(), b"b", b"c", b"d", b"e", b"f"] {
            let c = call(&cfg, &o, 0, body, &mut Rng::from_parts(&[body])).unwrap();
            let f = &c.message["tool_calls"][0]["function"];
            let known = ["spend", "clicks"].contains(&f["name"].as_str().unwrap());
            let object = serde_json::from_str::<Value>(f["arguments"].as_str().unwrap())
                .is_ok_and(|v| v.is_object());
            assert!(c.bad && !(known && object), "{}", c.message);
        }
    }
}
