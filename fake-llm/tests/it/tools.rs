//! The `tools` API: calls of offered tools with schema-fitting arguments,
//! `tool_choice`, text after tool results, checked tool turns, token
//! counts and spoiled calls.

use super::{chat_body, start};
use adfarm_fake_llm::FakeLlmConfig;
use serde_json::{json, Value};

/// Whether `v` fits `schema` (the subset the tools below use: type,
/// properties, required, enum, items).
fn fits(schema: &Value, v: &Value) -> bool {
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        return options.contains(v);
    }
    match schema["type"].as_str() {
        Some("object") => {
            let Some(obj) = v.as_object() else {
                return false;
            };
            let required = schema["required"].as_array().cloned().unwrap_or_default();
            let props = schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            required
                .iter()
                .all(|r| r.as_str().is_some_and(|r| obj.contains_key(r)))
                && obj
                    .iter()
                    .all(|(k, x)| props.get(k).is_some_and(|s| fits(s, x)))
        }
        Some("array") => v
            .as_array()
            .is_some_and(|a| a.iter().all(|x| fits(&schema["items"], x))),
        Some("string") => v.is_string(),
        Some("integer") => v.is_i64() || v.is_u64(),
        Some("number") => v.is_number(),
        Some("boolean") => v.is_boolean(),
        _ => false,
    }
}

fn tools() -> Value {
    json!([
        {"type": "function", "function": {
            "name": "campaign_spend",
            "description": "Spend of one campaign over a date range.",
            "parameters": {"type": "object", "required": ["campaign_id", "granularity"], "properties": {
                "campaign_id": {"type": "integer"},
                "granularity": {"type": "string", "enum": ["day", "week"]},
                "metrics": {"type": "array", "items": {"type": "string", "enum": ["clicks", "cost"]}},
                "range": {"type": "object", "required": ["from"], "properties": {
                    "from": {"type": "string"}, "to": {"type": "string"}}},
                "include_paused": {"type": "boolean"},
                "min_ctr": {"type": "number"}}}}},
        {"type": "function", "function": {
            "name": "pause_ad",
            "description": "Pauses one ad.",
            "parameters": {"type": "object", "required": ["ad_id"],
                "properties": {"ad_id": {"type": "string"}}}}},
    ])
}

fn with_tools(prompt: &str, choice: Value) -> Value {
    let mut body = chat_body(prompt);
    body["tools"] = tools();
    body["tool_choice"] = choice;
    body
}

fn message(answer: &Value) -> &Value {
    &answer["choices"][0]["message"]
}

/// The one tool call of an answer: its id, name and parsed arguments.
fn the_call(answer: &Value) -> (String, String, Value) {
    let calls = message(answer)["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{answer}");
    assert_eq!(calls[0]["type"], "function");
    let f = &calls[0]["function"];
    let args = serde_json::from_str(f["arguments"].as_str().unwrap()).unwrap();
    (
        calls[0]["id"].as_str().unwrap().to_string(),
        f["name"].as_str().unwrap().to_string(),
        args,
    )
}

fn schema_of(name: &str) -> Value {
    let all = tools();
    let tool = all
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not an offered tool"));
    tool["function"]["parameters"].clone()
}

#[tokio::test]
async fn tool_requests_get_one_deterministic_call_with_schema_fitting_arguments() {
    let fake = start(FakeLlmConfig::default()).await;
    let mut names = std::collections::BTreeSet::new();
    for i in 0..12 {
        let body = with_tools(&format!("How did campaign {i} do?"), json!("required"));
        let (status, a) = fake.chat(&body).await;
        assert_eq!(status, 200, "{a}");
        assert_eq!(a["choices"][0]["finish_reason"], "tool_calls");
        assert!(message(&a)["content"].is_null());
        let (_, name, args) = the_call(&a);
        assert!(fits(&schema_of(&name), &args), "{name} {args}");
        names.insert(name);
        let (_, again) = fake.chat(&body).await;
        assert_eq!(again, a, "the whole answer is a function of the request");
    }
    assert_eq!(names.len(), 2, "both tools get called: {names:?}");

    let body = with_tools("How did campaign 1 do?", json!("required"));
    let other = start(FakeLlmConfig {
        seed: 5,
        ..FakeLlmConfig::default()
    })
    .await;
    assert_ne!(other.chat(&body).await.1, fake.chat(&body).await.1);
    let stats = fake.stats().await;
    assert_eq!((stats.tool_calls, stats.bad_tool_calls), (stats.ok, 0));
}

#[tokio::test]
async fn tool_choice_names_forbids_or_leaves_the_call_to_the_model() {
    let fake = start(FakeLlmConfig::default()).await;
    let named = json!({"type": "function", "function": {"name": "pause_ad"}});
    for i in 0..5 {
        let (_, a) = fake
            .chat(&with_tools(&format!("q{i}"), named.clone()))
            .await;
        let (_, name, args) = the_call(&a);
        assert_eq!(name, "pause_ad");
        assert!(fits(&schema_of("pause_ad"), &args), "{args}");
    }
    let (_, a) = fake.chat(&with_tools("q", json!("none"))).await;
    assert!(message(&a)["tool_calls"].is_null(), "{a}");
    assert!(!message(&a)["content"].as_str().unwrap().is_empty());
    let (_, a) = fake.chat(&with_tools("q", json!("auto"))).await;
    the_call(&a);
    let unknown = json!({"type": "function", "function": {"name": "delete_account"}});
    assert_eq!(fake.chat(&with_tools("q", unknown)).await.0, 400);
}

/// A conversation whose assistant turn called `call` and got `result`.
fn after_result(call: &Value, result: &str) -> Value {
    let mut body = with_tools("How did campaign 7 do?", json!("auto"));
    let msgs = body["messages"].as_array_mut().unwrap();
    msgs.push(call.clone());
    msgs.push(
        json!({"role": "tool", "tool_call_id": call["tool_calls"][0]["id"], "content": result}),
    );
    body
}

#[tokio::test]
async fn auto_answers_text_once_the_conversation_holds_enough_tool_results() {
    let fake = start(FakeLlmConfig::default()).await;
    let (_, first) = fake
        .chat(&with_tools("How did campaign 7 do?", json!("auto")))
        .await;
    the_call(&first);
    let (status, text) = fake
        .chat(&after_result(message(&first), "spent 12.50 USD"))
        .await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(text["choices"][0]["finish_reason"], "stop");
    assert!(message(&text)["tool_calls"].is_null());
    assert!(!message(&text)["content"].as_str().unwrap().is_empty());

    let patient = start(FakeLlmConfig {
        tool_results_before_text: 2,
        ..FakeLlmConfig::default()
    })
    .await;
    let (_, first) = patient
        .chat(&with_tools("How did campaign 7 do?", json!("auto")))
        .await;
    let (_, second) = patient
        .chat(&after_result(message(&first), "spent 12.50 USD"))
        .await;
    the_call(&second);
}

#[tokio::test]
async fn tool_turns_are_checked_like_openai() {
    let fake = start(FakeLlmConfig::default()).await;
    let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1",
        "type": "function", "function": {"name": "pause_ad", "arguments": "{\"ad_id\":\"a\"}"}}]});
    let mut orphan = chat_body("q");
    orphan["messages"]
        .as_array_mut()
        .unwrap()
        .push(json!({"role": "tool", "tool_call_id": "c9", "content": "ok"}));
    assert_eq!(fake.chat(&orphan).await.0, 400);
    let mut unanswered = chat_body("q");
    let msgs = unanswered["messages"].as_array_mut().unwrap();
    msgs.insert(1, call.clone());
    assert_eq!(fake.chat(&unanswered).await.0, 400);
    let mut answered = chat_body("q");
    let msgs = answered["messages"].as_array_mut().unwrap();
    msgs.insert(1, call);
    msgs.insert(
        2,
        json!({"role": "tool", "tool_call_id": "c1", "content": "ok"}),
    );
    assert_eq!(fake.chat(&answered).await.0, 200);
    assert_eq!(fake.stats().await.client_errors, 2);
}

#[tokio::test]
async fn prompt_tokens_count_tool_schemas_and_call_arguments() {
    let fake = start(FakeLlmConfig::default()).await;
    let (_, plain) = fake.chat(&chat_body("q")).await;
    let tool = json!([{"type": "function", "function": {"name": "spend", "parameters": {"type": "object"}}}]);
    let mut body = chat_body("q");
    body["tools"] = tool;
    let (_, a) = fake.chat(&body).await;
    let prompt = |a: &Value| a["usage"]["prompt_tokens"].as_u64().unwrap();
    // name, spend, parameters, type, object.
    assert_eq!(prompt(&a), prompt(&plain) + 5);
    // The call: its name and the symbols of its arguments ({} has none).
    assert_eq!(a["usage"]["completion_tokens"], 1);

    let (_, first) = fake
        .chat(&with_tools("How did campaign 7 do?", json!("auto")))
        .await;
    let (_, name, args) = the_call(&first);
    let (_, next) = fake.chat(&after_result(message(&first), "12.50")).await;
    let symbols = |s: &str| {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .count() as u64
    };
    let call_tokens = symbols(&name) + symbols(&args.to_string());
    assert_eq!(
        first["usage"]["completion_tokens"].as_u64().unwrap(),
        call_tokens
    );
    // The call and the one-word result join the prompt.
    assert_eq!(prompt(&next), prompt(&first) + call_tokens + 1);
}

#[tokio::test]
async fn p_bad_tool_call_spoils_calls_and_stats_count_them() {
    let fake = start(FakeLlmConfig {
        p_bad_tool_call: 1.0,
        ..FakeLlmConfig::default()
    })
    .await;
    let (mut unknown, mut not_json) = (0, 0);
    for i in 0..20 {
        let (_, a) = fake
            .chat(&with_tools(&format!("q{i}"), json!("required")))
            .await;
        let f = &message(&a)["tool_calls"][0]["function"];
        let offered = ["campaign_spend", "pause_ad"].contains(&f["name"].as_str().unwrap());
        let parsed = serde_json::from_str::<Value>(f["arguments"].as_str().unwrap());
        match (offered, parsed) {
            (false, Ok(v)) if v.is_object() => unknown += 1,
            (true, Err(_)) => not_json += 1,
            other => panic!("a usable call under p_bad_tool_call = 1: {other:?}"),
        }
    }
    assert!(unknown > 0 && not_json > 0, "{unknown} {not_json}");
    let stats = fake.stats().await;
    assert_eq!((stats.tool_calls, stats.bad_tool_calls), (20, 20));
}
