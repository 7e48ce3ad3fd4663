//! Tool calls over the wire: tools and `tool_choice` reach the server,
//! calls come back, a tool turn and its result go back, and an unusable
//! call is re-asked exactly once before the turn goes on without a call.

use crate::{request, Fake};
use adfarm_backbone::metrics::Metrics;
use adfarm_fake_llm::FakeLlmConfig;
use adfarm_llm::{ChatRequest, Completion, Message, Provider, Tool, ToolCall, ToolChoice};
use adfarm_proto::UsageSource;
use serde_json::{json, Value};

fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "campaign_spend".into(),
            description: "Spend of one campaign.".into(),
            parameters: json!({"type": "object", "required": ["campaign_id"], "properties": {
                "campaign_id": {"type": "integer"},
                "granularity": {"type": "string", "enum": ["day", "week"]}}}),
        },
        Tool {
            name: "pause_ad".into(),
            description: "Pauses one ad.".into(),
            parameters: json!({"type": "object", "required": ["ad_id"],
                "properties": {"ad_id": {"type": "string"}}}),
        },
    ]
}

fn with_tools(prompt: &str, choice: Option<ToolChoice>) -> ChatRequest {
    let mut req = request(prompt);
    req.tools = tools();
    req.tool_choice = choice;
    req
}

/// Whether `call` names an offered tool and carries a JSON object.
fn usable(call: &ToolCall) -> bool {
    let object = serde_json::from_str::<Value>(&call.arguments).is_ok_and(|v| v.is_object());
    object && tools().iter().any(|t| t.name == call.name)
}

/// `adfarm_llm_tool_call_errors_total{model}`. It is process-wide, so each
/// test counts under a model name of its own.
fn tool_call_errors(model: &str) -> u64 {
    Metrics::global()
        .llm_tool_call_errors
        .with_label_values(&[model])
        .get()
}

/// The one call of a completion.
fn the_call(c: &Completion) -> &ToolCall {
    assert_eq!(c.tool_calls.len(), 1, "{c:?}");
    &c.tool_calls[0]
}

#[tokio::test]
async fn tools_and_tool_choice_reach_the_server_and_calls_come_back() {
    let fake = Fake::start(FakeLlmConfig::default()).await;
    let client = fake.client("m");
    let req = with_tools(
        "How did campaign 7 do?",
        Some(ToolChoice::Tool("pause_ad".into())),
    );
    let c = client.chat(&req).await.unwrap();
    let call = the_call(&c);
    assert_eq!(call.name, "pause_ad", "the named tool is called");
    assert!(usable(call), "{call:?}");
    assert_eq!(c.text, "");
    let stats = fake.stats().await;
    assert_eq!((stats.requests, stats.tool_calls), (1, 1));
    assert_eq!(c.usage.source, UsageSource::Reported);
    assert_eq!(c.usage.input, stats.prompt_tokens, "tool schemas are input");

    // The same request written by hand in OpenAI's shape gets the same
    // call: the answer is a function of the body, so the bodies are equal.
    let by_hand = json!({"model": "m", "max_tokens": 256, "temperature": 0.0, "seed": 0,
        "messages": req.messages,
        "tools": [
            {"type": "function", "function": {"name": "campaign_spend",
                "description": "Spend of one campaign.", "parameters": tools()[0].parameters}},
            {"type": "function", "function": {"name": "pause_ad",
                "description": "Pauses one ad.", "parameters": tools()[1].parameters}}],
        "tool_choice": {"type": "function", "function": {"name": "pause_ad"}}});
    let raw = fake.raw_chat(&by_hand).await;
    assert_eq!(raw["choices"][0]["message"]["tool_calls"][0]["id"], call.id);

    let none = with_tools("How did campaign 7 do?", Some(ToolChoice::None));
    let c = client.chat(&none).await.unwrap();
    assert!(c.tool_calls.is_empty() && !c.text.is_empty(), "{c:?}");
}

#[tokio::test]
async fn a_tool_turn_and_its_result_go_back_and_the_model_answers() {
    let fake = Fake::start(FakeLlmConfig::default()).await;
    let client = fake.client("m");
    let mut req = with_tools("How did campaign 7 do?", None);
    let first = client.chat(&req).await.unwrap();
    let call = the_call(&first).clone();
    assert!(usable(&call), "{call:?}");
    req.messages
        .push(Message::tool_calls(first.text.clone(), vec![call.clone()]));
    req.messages
        .push(Message::tool_result(call.id.clone(), "spent 12.50 USD"));
    // The fake refuses (400) tool results that do not answer a call.
    let second = client.chat(&req).await.unwrap();
    assert!(second.tool_calls.is_empty(), "{second:?}");
    assert!(!second.text.is_empty());
    let stats = fake.stats().await;
    assert_eq!((stats.ok, stats.client_errors), (2, 0));

    let mut by_hand = json!({"model": "m", "max_tokens": 256, "temperature": 0.0, "seed": 0,
        "messages": [req.messages[0], req.messages[1],
            {"role": "assistant", "content": null, "tool_calls": [{"id": call.id,
                "type": "function", "function": {"name": call.name, "arguments": call.arguments}}]},
            {"role": "tool", "content": "spent 12.50 USD", "tool_call_id": call.id}]});
    let raw_tools: Vec<Value> = tools()
        .iter()
        .map(|t| json!({"type": "function", "function": t}))
        .collect();
    by_hand["tools"] = json!(raw_tools);
    let raw = fake.raw_chat(&by_hand).await;
    assert_eq!(
        raw["choices"][0]["message"]["content"],
        second.text.as_str()
    );
}

#[tokio::test]
async fn an_unusable_call_is_reasked_once_then_the_turn_has_no_call() {
    let fake = Fake::start(FakeLlmConfig {
        p_bad_tool_call: 1.0,
        ..FakeLlmConfig::default()
    })
    .await;
    let model = "tools-always-bad";
    let before = tool_call_errors(model);
    let req = with_tools("How did campaign 7 do?", Some(ToolChoice::Required));
    let c = fake.client(model).chat(&req).await.unwrap();
    assert!(c.tool_calls.is_empty(), "{c:?}");
    assert_eq!(c.text, "", "the second reply's text, which had none");
    let stats = fake.stats().await;
    assert_eq!(
        stats.by_endpoint["chat_completions"], 2,
        "exactly one re-ask"
    );
    assert_eq!(stats.bad_tool_calls, 2);
    assert_eq!(c.usage.input, stats.prompt_tokens, "both calls are paid");
    assert_eq!(c.usage.output, stats.completion_tokens);
    assert_eq!(c.usage.source, UsageSource::Reported);
    assert_eq!(tool_call_errors(model), before + 1);
}

#[tokio::test]
async fn a_reask_that_fixes_the_call_returns_it() {
    let fake = Fake::start(FakeLlmConfig {
        p_bad_tool_call: 0.5,
        ..FakeLlmConfig::default()
    })
    .await;
    let model = "tools-sometimes-bad";
    let client = fake.client(model);
    let before = tool_call_errors(model);
    let (mut first_time, mut fixed, mut gave_up) = (0, 0, 0);
    for i in 0..24 {
        fake.reset().await;
        let req = with_tools(&format!("How did campaign {i} do?"), None);
        let c = client.chat(&req).await.unwrap();
        let stats = fake.stats().await;
        match (stats.requests, c.tool_calls.as_slice()) {
            (1, [call]) if usable(call) => first_time += 1,
            (2, [call]) if usable(call) && stats.bad_tool_calls == 1 => fixed += 1,
            (2, []) if stats.bad_tool_calls == 2 => gave_up += 1,
            other => panic!("request {i}: {other:?} {stats:?}"),
        }
    }
    assert!(
        first_time > 0 && fixed > 0 && gave_up > 0,
        "{first_time} {fixed} {gave_up}"
    );
    let after = tool_call_errors(model);
    assert_eq!(after - before, gave_up);
}
