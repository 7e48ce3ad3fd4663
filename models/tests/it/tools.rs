//! Tool calls of the real SmolLM2: whatever the schema, the reply is a call
//! of an offered tool whose arguments parse and validate. The validator
//! below reads the raw JSON Schema, independently of the crate's compiler.

use crate::llm;
use adfarm_llm::{ChatRequest, LlmError, Message, Provider, Tool, ToolCall, ToolChoice};
use adfarm_models::generator::{request_prompt, GenOptions};
use adfarm_models::{assets, LocalLlm};
use serde_json::{json, Value};

fn tool(name: &str, description: &str, parameters: Value) -> Tool {
    Tool {
        name: name.into(),
        description: description.into(),
        parameters,
    }
}

fn weather() -> Tool {
    tool(
        "get_weather",
        "Current weather in a city.",
        json!({"type": "object", "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
        }, "required": ["city"]}),
    )
}

fn search() -> Tool {
    tool(
        "search_products",
        "Search the catalogue.",
        json!({"type": "object", "properties": {
            "query": {"type": "string"},
            "max_price": {"type": "number"},
            "in_stock": {"type": "boolean"}
        }, "required": ["query"]}),
    )
}

fn list_campaigns() -> Tool {
    tool("list_campaigns", "List the account's campaigns.", json!({}))
}

/// Twenty requests: each schema feature alone and mixed, one to three tools.
fn requests() -> Vec<ChatRequest> {
    let obj = |props: Value, required: Value| json!({"type": "object", "properties": props, "required": required, "additionalProperties": false});
    // A request offering one tool whose parameters are an object.
    type Case = (&'static str, Vec<Tool>, Option<&'static str>);
    let one = |prompt, name: &str, description: &str, props, required| -> Case {
        (
            prompt,
            vec![tool(name, description, obj(props, required))],
            None,
        )
    };
    let cases: Vec<(&str, Vec<Tool>, Option<&str>)> = vec![
        ("What's the weather in Paris?", vec![weather()], None),
        ("Find running shoes under 80 dollars.", vec![search()], None),
        one(
            "Set campaign 42's daily budget to 150.",
            "set_budget",
            "Set a daily budget.",
            json!({
                "campaign_id": {"type": "integer", "minimum": 1},
                "daily_budget": {"type": "number", "minimum": 1, "maximum": 10000}
            }),
            json!(["campaign_id", "daily_budget"]),
        ),
        one(
            "Pause the campaign called spring-sale.",
            "pause_campaign",
            "Pause a campaign.",
            json!({
                "campaign_id": {"type": "string"}
            }),
            json!(["campaign_id"]),
        ),
        one(
            "Write an ad for a cosy coffee shop.",
            "create_ad",
            "Create a text ad.",
            json!({
                "headline": {"type": "string", "maxLength": 30},
                "description": {"type": "string", "maxLength": 90},
                "keywords": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5}
            }),
            json!(["headline", "description", "keywords"]),
        ),
        one(
            "Clicks and cost per week for March.",
            "get_report",
            "Performance report.",
            json!({
                "start_date": {"type": "string", "format": "date"},
                "end_date": {"type": "string", "format": "date"},
                "metrics": {"type": "array", "items": {"enum": ["clicks", "impressions", "ctr", "cost"]}, "minItems": 1},
                "granularity": {"enum": ["day", "week", "month"]}
            }),
            json!(["start_date", "end_date", "metrics"]),
        ),
        one(
            "Bid 1.20 on 'red shoes', exact match.",
            "set_bid",
            "Bid on a keyword.",
            json!({
                "keyword": {"type": "string"},
                "bid": {"type": "number"},
                "match_type": {"type": "string", "enum": ["exact", "phrase", "broad"]}
            }),
            json!(["keyword", "bid", "match_type"]),
        ),
        one(
            "Target women aged 25 to 40 who like yoga.",
            "target_audience",
            "Set the audience.",
            json!({
                "age_min": {"type": "integer", "minimum": 13, "maximum": 65},
                "age_max": {"type": "integer", "minimum": 13, "maximum": 65},
                "genders": {"type": "array", "items": {"enum": ["male", "female", "all"]}, "maxItems": 2},
                "interests": {"type": "array", "items": {"type": "string", "maxLength": 20}}
            }),
            json!(["age_min", "age_max", "genders"]),
        ),
        one(
            "Run the ads on Fridays at 6pm.",
            "schedule",
            "Schedule ads.",
            json!({
                "day_of_week": {"enum": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]},
                "hour": {"type": "integer", "minimum": 0, "maximum": 23}
            }),
            json!(["day_of_week", "hour"]),
        ),
        one(
            "Create a summer campaign in euros for Spain.",
            "create_campaign",
            "Create a campaign.",
            json!({
                "name": {"type": "string", "maxLength": 40},
                "settings": obj(json!({
                    "budget": {"type": "number", "minimum": 10, "maximum": 5000},
                    "currency": {"enum": ["USD", "EUR", "GBP"]},
                    "start": {"type": "string"}
                }), json!(["budget", "currency"])),
                "geo": obj(json!({
                    "country": {"type": "string", "minLength": 2, "maxLength": 2},
                    "radius_km": {"type": "integer", "minimum": 1, "maximum": 500}
                }), json!(["country"]))
            }),
            json!(["name", "settings"]),
        ),
        one(
            "Turn on auto-bidding.",
            "toggle_auto_bidding",
            "Auto-bidding on or off.",
            json!({
                "enabled": {"type": "boolean"}
            }),
            json!(["enabled"]),
        ),
        ("Show me my campaigns.", vec![list_campaigns()], None),
        one(
            "Add 'free' and 'cheap' as negative keywords to campaign 7.",
            "add_negative_keywords",
            "Exclude keywords.",
            json!({
                "campaign_id": {"type": "integer"},
                "keywords": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 4}
            }),
            json!(["campaign_id", "keywords"]),
        ),
        one(
            "Note: call the client back, priority 2.",
            "update_note",
            "Update the account note.",
            json!({
                "note": {"type": ["string", "null"]},
                "priority": {"type": ["integer", "null"], "minimum": 1, "maximum": 5}
            }),
            json!(["note", "priority"]),
        ),
        one(
            "Delete ad 3051.",
            "confirm",
            "Confirm an action.",
            json!({
                "action": {"const": "delete"},
                "id": {"type": "integer", "exclusiveMinimum": 0}
            }),
            json!(["action", "id"]),
        ),
        one(
            "Order two mugs and one poster.",
            "add_line_items",
            "Add items to the order.",
            json!({
                "items": {"type": "array", "minItems": 1, "maxItems": 3, "items": obj(json!({
                    "sku": {"type": "string", "maxLength": 12},
                    "qty": {"type": "integer", "minimum": 1, "maximum": 99}
                }), json!(["sku", "qty"]))}
            }),
            json!(["items"]),
        ),
        (
            "Is it raining in Oslo?",
            vec![search(), weather(), list_campaigns()],
            None,
        ),
        one(
            "Aim for a click-through rate of 3.5 percent.",
            "set_ctr_goal",
            "Set a CTR goal in percent.",
            json!({
                "goal": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 100}
            }),
            json!(["goal"]),
        ),
        (
            "Split traffic 70/30 between A and B, judged on conversions.",
            vec![
                tool(
                    "split_test",
                    "Start an A/B test.",
                    obj(
                        json!({
                            "variants": {"type": "array", "minItems": 2, "maxItems": 4, "items": obj(json!({
                                "name": {"type": "string", "maxLength": 10},
                                "weight": {"type": "integer", "minimum": 0, "maximum": 100}
                            }), json!(["name", "weight"]))},
                            "metric": {"enum": ["clicks", "conversions", "revenue"]}
                        }),
                        json!(["variants", "metric"]),
                    ),
                ),
                list_campaigns(),
            ],
            Some("split_test"),
        ),
        (
            "Set user 12's email to ana@example.com.",
            vec![
                tool(
                    "update_user",
                    "Update a user.",
                    obj(
                        json!({
                            "user": obj(json!({
                                "id": {"type": "integer", "minimum": 1},
                                "profile": obj(json!({
                                    "email": {"type": "string", "maxLength": 40},
                                    "tags": {"type": "array", "items": {"type": "string"}}
                                }), json!(["email"]))
                            }), json!(["id", "profile"]))
                        }),
                        json!(["user"]),
                    ),
                ),
                weather(),
            ],
            Some("update_user"),
        ),
    ];
    cases
        .into_iter()
        .enumerate()
        .map(|(i, (ask, tools, forced))| {
            let mut r = ChatRequest::new(vec![Message::user(ask)]);
            r.tools = tools;
            r.tool_choice =
                Some(forced.map_or(ToolChoice::Required, |n| ToolChoice::Tool(n.into())));
            r.max_tokens = 64;
            // Some sampled, some greedy: both must hold.
            if i % 4 == 3 {
                r.temperature = 0.8;
                r.seed = i as u64;
            }
            r
        })
        .collect()
}

/// Whether `v` satisfies `schema` (the subset the tests use; objects may
/// hold only declared properties).
fn valid(schema: &Value, v: &Value) -> bool {
    let s = |k: &str| schema.get(k);
    let num = |k: &str| s(k).and_then(Value::as_f64);
    if s("enum")
        .and_then(Value::as_array)
        .is_some_and(|e| !e.contains(v))
    {
        return false;
    }
    if s("const").is_some_and(|c| c != v) {
        return false;
    }
    if let Some(x) = v.as_f64() {
        let in_bounds = num("minimum").is_none_or(|m| x >= m)
            && num("maximum").is_none_or(|m| x <= m)
            && num("exclusiveMinimum").is_none_or(|m| x > m)
            && num("exclusiveMaximum").is_none_or(|m| x < m);
        if !in_bounds {
            return false;
        }
    }
    let types: Vec<&str> = match s("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let typed = |t: &str| match (t, v) {
        ("string", Value::String(_)) | ("boolean", Value::Bool(_)) | ("null", Value::Null) => true,
        ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
        ("array", Value::Array(_)) | ("object", Value::Object(_)) => true,
        _ => false,
    };
    if !types.is_empty() && !types.iter().any(|t| typed(t)) {
        return false;
    }
    match v {
        Value::String(text) => {
            let n = text.chars().count() as f64;
            num("minLength").is_none_or(|m| n >= m) && num("maxLength").is_none_or(|m| n <= m)
        }
        Value::Array(items) => {
            let n = items.len() as f64;
            num("minItems").is_none_or(|m| n >= m)
                && num("maxItems").is_none_or(|m| n <= m)
                && s("items").is_none_or(|i| items.iter().all(|x| valid(i, x)))
        }
        Value::Object(fields) => {
            let empty = serde_json::Map::new();
            let props = s("properties").and_then(Value::as_object).unwrap_or(&empty);
            let required = s("required")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            required
                .iter()
                .all(|k| k.as_str().is_some_and(|k| fields.contains_key(k)))
                && fields
                    .iter()
                    .all(|(k, x)| props.get(k).is_some_and(|p| valid(p, x)))
        }
        _ => true,
    }
}

/// The call of `c`, checked against what `req` offered.
fn checked_call(req: &ChatRequest, c: &adfarm_llm::Completion) -> ToolCall {
    assert_eq!(c.tool_calls.len(), 1, "{c:?}");
    let call = c.tool_calls[0].clone();
    let offered = req.tools.iter().find(|t| t.name == call.name);
    let offered = offered.unwrap_or_else(|| panic!("{} is not offered", call.name));
    if let Some(ToolChoice::Tool(forced)) = &req.tool_choice {
        assert_eq!(&call.name, forced);
    }
    let args: Value = serde_json::from_str(&call.arguments)
        .unwrap_or_else(|e| panic!("{}: {e}: {}", call.name, call.arguments));
    let schema = match &offered.parameters {
        Value::Object(m) if m.is_empty() => json!({"type": "object"}),
        p => p.clone(),
    };
    assert!(valid(&schema, &args), "{}: {}", call.name, call.arguments);
    call
}

#[tokio::test]
async fn twenty_schemas_give_valid_calls_batched_and_repeatable() {
    let l = llm();
    let reqs = requests();
    // All at once, so the engine batches them; the first request twice.
    let handles: Vec<_> = reqs
        .iter()
        .chain(std::iter::once(&reqs[0]))
        .cloned()
        .map(|r| tokio::spawn(async move { l.chat(&r).await }))
        .collect();
    let mut got = Vec::new();
    for h in handles {
        got.push(h.await.unwrap().unwrap());
    }
    for (req, c) in reqs.iter().zip(&got) {
        let call = checked_call(req, c);
        assert_eq!(call.id, "call_0");
        assert!(c.text.is_empty());
        let prompt = request_prompt(req).unwrap();
        assert_eq!(c.usage.input, l.encode(&prompt).unwrap().len() as u64);
        assert!(c.usage.output >= 10, "{c:?}");
    }
    assert_eq!(got[0], got[20], "identical requests, identical calls");
    // Alone on a fresh model, nothing batched or cached: the same bytes
    // (request 3 is sampled, at temperature 0.8).
    let fresh = LocalLlm::load(&assets::generator_gguf(&crate::home())).unwrap();
    let alone = fresh
        .generate(&reqs[3], GenOptions::default())
        .await
        .unwrap();
    assert_eq!(alone.reused_tokens, 0);
    assert_eq!(alone.tool_call.as_ref(), got[3].tool_calls.first());
    assert_eq!(alone.output_tokens, got[3].usage.output);
}

#[tokio::test]
async fn a_tool_episode_renders_calls_and_results_and_reuses_the_prompt() {
    // Its own model, so the prefix cache holds only this episode.
    let l = LocalLlm::load(&assets::generator_gguf(&crate::home())).unwrap();
    let mut req = ChatRequest::new(vec![
        Message::system("You help advertisers. Use the tools."),
        Message::user("What's the weather in Paris?"),
    ]);
    req.tools = vec![weather(), list_campaigns()];
    req.tool_choice = Some(ToolChoice::Required);
    req.max_tokens = 48;
    let first = l.generate(&req, GenOptions::default()).await.unwrap();
    let call = first.tool_call.clone().expect("a call");
    assert_eq!(call.id, "call_0");
    req.messages
        .push(Message::tool_calls("", vec![call.clone()]));
    req.messages
        .push(Message::tool_result(&call.id, "18 C, sunny"));
    req.tool_choice = Some(ToolChoice::Auto);
    let second = l.generate(&req, GenOptions::default()).await.unwrap();
    // The call renders as the model wrote it, so the second prompt extends
    // the first and starts from its cached keys and values.
    let p1 = request_prompt(&ChatRequest {
        messages: req.messages[..2].to_vec(),
        ..req.clone()
    })
    .unwrap();
    let p2 = request_prompt(&req).unwrap();
    assert!(p2.starts_with(&p1), "{p2}");
    assert!(p2.contains("<tool_response>\n18 C, sunny\n</tool_response>"));
    assert!(second.reused_tokens >= 64, "{second:?}");
    assert_eq!(second.input_tokens, l.encode(&p2).unwrap().len() as u64);
    match &second.tool_call {
        Some(c) => assert_eq!(c.id, "call_1"),
        None => assert!(!second.text.is_empty() && second.output_tokens <= 48),
    }
}

#[tokio::test]
async fn auto_answers_in_text_or_calls_and_none_never_calls() {
    let l = llm();
    let mut req = ChatRequest::new(vec![Message::user("Is it raining in Oslo?")]);
    req.tools = vec![search(), weather()];
    req.max_tokens = 40;
    let auto = l.chat(&req).await.unwrap();
    assert!(
        auto.tool_calls.is_empty() != auto.text.is_empty(),
        "{auto:?}"
    );
    if !auto.tool_calls.is_empty() {
        checked_call(&req, &auto);
    }
    req.tool_choice = Some(ToolChoice::None);
    let none = l.chat(&req).await.unwrap();
    assert!(none.tool_calls.is_empty() && !none.text.is_empty());
    let plain = ChatRequest {
        tools: vec![],
        tool_choice: None,
        ..req.clone()
    };
    assert_eq!(
        none,
        l.chat(&plain).await.unwrap(),
        "tools are not rendered"
    );
}

#[tokio::test]
async fn a_schema_outside_the_subset_is_refused_for_good() {
    let mut req = ChatRequest::new(vec![Message::user("hi")]);
    req.tools = vec![tool(
        "lookup",
        "",
        json!({"type": "object", "properties": {"id": {"type": "string", "pattern": "^[0-9]+$"}}}),
    )];
    req.tool_choice = Some(ToolChoice::Required);
    let err = llm().chat(&req).await.unwrap_err();
    assert!(matches!(err, LlmError::Config(_)), "{err:?}");
    assert!(err.to_string().contains("pattern"), "{err}");
    req.tools[0].parameters = json!({});
    req.tool_choice = Some(ToolChoice::Tool("other".into()));
    let err = llm().chat(&req).await.unwrap_err();
    assert!(err.to_string().contains("not offered"), "{err}");
}
