//! Request validation and the deterministic answers of the two API
//! endpoints, in OpenAI's response schema.

use crate::config::FakeLlmConfig;
use crate::gen::{embed, schema_value, sentence, word_count, Rng};
use crate::tools;
use axum::http::StatusCode;
use serde_json::{json, Value};

/// The model name the fake does not know (answers 404), so clients can
/// test their handling of permanent errors.
pub const MISSING_MODEL: &str = "missing";

/// The model name whose every plain completion is empty (`content: ""`),
/// so clients and scorers can test how they treat an empty answer.
pub const SILENT_MODEL: &str = "silent";

/// Completion word cap when the request sets none.
const DEFAULT_MAX_TOKENS: u64 = 4096;

/// An OpenAI-style error answer.
#[derive(Debug, Clone)]
pub(crate) struct ApiError {
    pub(crate) status: StatusCode,
    pub(crate) kind: &'static str,
    pub(crate) code: &'static str,
    pub(crate) message: String,
}

impl ApiError {
    pub(crate) fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            kind: "invalid_request_error",
            code: "invalid_request",
            message: message.into(),
        }
    }
}

/// A successful answer and its usage (the fake's tokens are words).
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub(crate) body: Value,
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
    pub(crate) tool_use: ToolUse,
}

/// Whether an answer calls a tool, for `/stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolUse {
    /// Text or embeddings.
    None,
    /// A usable tool call.
    Call,
    /// A tool call spoiled by `p_bad_tool_call`.
    BadCall,
}

fn model_of(req: &Value) -> Result<&str, ApiError> {
    let model = req
        .get("model")
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::bad_request("You must provide a model parameter."))?;
    if model == MISSING_MODEL {
        return Err(ApiError {
            status: StatusCode::NOT_FOUND,
            kind: "invalid_request_error",
            code: "model_not_found",
            message: format!("The model `{model}` does not exist or you do not have access to it."),
        });
    }
    Ok(model)
}

/// Text of one message: a string, a list of `{"type": "text", "text": ...}`
/// parts, or null (assistant tool calls).
fn content_text(content: &Value) -> Result<String, ApiError> {
    match content {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s.clone()),
        Value::Array(parts) => Ok(parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" ")),
        _ => Err(ApiError::bad_request(
            "Message content must be a string or a list of parts.",
        )),
    }
}

fn stop_strings(req: &Value) -> Result<Vec<String>, ApiError> {
    match req.get("stop") {
        None | Some(Value::Null) => Ok(vec![]),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(a)) => a
            .iter()
            .map(|s| {
                s.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| ApiError::bad_request("stop must be strings."))
            })
            .collect(),
        Some(_) => Err(ApiError::bad_request(
            "stop must be a string or a list of strings.",
        )),
    }
}

/// Cuts `text` before the earliest stop string, as servers do.
fn apply_stop(text: String, stops: &[String]) -> (String, bool) {
    let cut = stops
        .iter()
        .filter(|s| !s.is_empty())
        .filter_map(|s| text.find(s.as_str()))
        .min();
    match cut {
        Some(i) => (text[..i].to_string(), true),
        None => (text, false),
    }
}

/// Answers a chat completion: a tool call (see `tools::call`), a guided
/// choice, JSON fitting the requested schema, or a sentence of vocabulary
/// words, all drawn from a PRNG seeded by the fake's seed and the canonical
/// request body.
pub(crate) fn answer_chat(
    cfg: &FakeLlmConfig,
    req: &Value,
    canonical: &[u8],
) -> Result<Answer, ApiError> {
    let model = model_of(req)?;
    if req.get("stream").and_then(Value::as_bool) == Some(true) {
        return Err(ApiError::bad_request("The fake does not stream."));
    }
    let messages = req
        .get("messages")
        .and_then(Value::as_array)
        .filter(|m| !m.is_empty())
        .ok_or_else(|| ApiError::bad_request("messages must be a non-empty array."))?;
    let offer = tools::offer(req)?;
    let (call_tokens, tool_results) = tools::conversation(messages)?;
    let mut prompt_tokens = call_tokens + tools::offer_tokens(offer.as_ref());
    for m in messages {
        let content = m.get("content").unwrap_or(&Value::Null);
        prompt_tokens += word_count(&content_text(content)?);
    }
    let max_tokens = req
        .get("max_completion_tokens")
        .or_else(|| req.get("max_tokens"))
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_MAX_TOKENS);
    let stops = stop_strings(req)?;

    let guided = match req.get("guided_choice") {
        None | Some(Value::Null) => None,
        Some(_) if cfg.reject_guided_choice => {
            return Err(ApiError::bad_request(
                "Unrecognized request argument supplied: guided_choice",
            ))
        }
        Some(Value::Array(a)) if !a.is_empty() && a.iter().all(Value::is_string) => Some(a),
        Some(_) => {
            return Err(ApiError::bad_request(
                "guided_choice must be a non-empty list of strings.",
            ))
        }
    };
    let format = req.get("response_format");
    let format_type = format.and_then(|f| f.get("type")).and_then(Value::as_str);

    let mut rng = Rng::from_parts(&[&cfg.seed.to_le_bytes(), b"chat", canonical]);
    let call = offer
        .as_ref()
        .and_then(|o| tools::call(cfg, o, tool_results, canonical, &mut rng));
    if let Some(call) = call {
        let tool_use = if call.bad {
            ToolUse::BadCall
        } else {
            ToolUse::Call
        };
        let completion_tokens = call.tokens;
        let usage = (prompt_tokens, completion_tokens);
        return Ok(Answer {
            body: completion_body(model, call.message, "tool_calls", usage, &mut rng),
            prompt_tokens,
            completion_tokens,
            tool_use,
        });
    }
    let (text, length_cut) = match (guided, format_type) {
        _ if model == SILENT_MODEL => (String::new(), false),
        (Some(choices), _) if !cfg.ignore_guided => {
            let pick = &choices[rng.below(choices.len() as u64) as usize];
            (pick.as_str().unwrap_or_default().to_string(), false)
        }
        (_, Some("json_schema")) if !cfg.ignore_guided => {
            let schema = format
                .and_then(|f| f.pointer("/json_schema/schema"))
                .ok_or_else(|| ApiError::bad_request("json_schema.schema is required."))?;
            (schema_value(schema, &mut rng, 0).to_string(), false)
        }
        (_, Some("json_object")) if !cfg.ignore_guided => {
            let schema = json!({"type": "object", "properties": {"answer": {"type": "string"}}});
            (schema_value(&schema, &mut rng, 0).to_string(), false)
        }
        _ => sentence(&mut rng, max_tokens),
    };
    let (text, stopped) = apply_stop(text, &stops);
    let completion_tokens = word_count(&text);
    let finish_reason = if length_cut && !stopped {
        "length"
    } else {
        "stop"
    };
    let message = json!({"role": "assistant", "content": text});
    let usage = (prompt_tokens, completion_tokens);
    Ok(Answer {
        body: completion_body(model, message, finish_reason, usage, &mut rng),
        prompt_tokens,
        completion_tokens,
        tool_use: ToolUse::None,
    })
}

/// The `chat.completion` object around one assistant `message`, with
/// `(prompt, completion)` tokens as its usage.
fn completion_body(
    model: &str,
    message: Value,
    finish_reason: &str,
    (prompt_tokens, completion_tokens): (u64, u64),
    rng: &mut Rng,
) -> Value {
    json!({
        "id": format!("chatcmpl-{:016x}", rng.next_u64()),
        "object": "chat.completion",
        // Fixed so the whole answer, not just its text, is a function of the request.
        "created": 0,
        "model": model,
        "system_fingerprint": "adfarm-fake-llm",
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": finish_reason,
        }],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    })
}

/// Answers an embeddings request: one deterministic unit vector per input
/// (a string or a list of strings), drawn in the requested model's own
/// space (see `gen::embed`).
pub(crate) fn answer_embeddings(cfg: &FakeLlmConfig, req: &Value) -> Result<Answer, ApiError> {
    let model = model_of(req)?;
    let inputs: Vec<&str> = match req.get("input") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) if !a.is_empty() => a
            .iter()
            .map(|v| {
                v.as_str().ok_or_else(|| {
                    ApiError::bad_request("The fake embeds strings only, not token arrays.")
                })
            })
            .collect::<Result<_, _>>()?,
        _ => {
            return Err(ApiError::bad_request(
                "input must be a string or a non-empty list of strings.",
            ))
        }
    };
    let prompt_tokens: u64 = inputs.iter().map(|t| word_count(t)).sum();
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": embed(cfg.seed, model, t)}))
        .collect();
    let body = json!({
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens},
    });
    Ok(Answer {
        body,
        prompt_tokens,
        completion_tokens: 0,
        tool_use: ToolUse::None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat(cfg: &FakeLlmConfig, req: Value) -> Result<Answer, ApiError> {
        let canonical = serde_json::to_vec(&req).unwrap();
        answer_chat(cfg, &req, &canonical)
    }

    #[test]
    fn guided_choice_answers_one_of_the_choices() {
        let cfg = FakeLlmConfig::default();
        let req = json!({"model": "m", "messages": [{"role": "user", "content": "pick"}],
            "guided_choice": ["red", "green", "blue"]});
        let a = chat(&cfg, req.clone()).unwrap();
        let text = a.body["choices"][0]["message"]["content"].as_str().unwrap();
        assert!(["red", "green", "blue"].contains(&text));
        let rejecting = FakeLlmConfig {
            reject_guided_choice: true,
            ..cfg
        };
        assert_eq!(chat(&rejecting, req).unwrap_err().status, 400);
    }

    #[test]
    fn stop_cuts_and_usage_counts_words() {
        let cfg = FakeLlmConfig::default();
        let req = json!({"model": "m", "max_tokens": 40,
            "messages": [{"role": "system", "content": "be brief"},
                         {"role": "user", "content": [{"type": "text", "text": "three more words"}]}]});
        let a = chat(&cfg, req).unwrap();
        assert_eq!(a.prompt_tokens, 5);
        let text = a.body["choices"][0]["message"]["content"].as_str().unwrap();
        assert_eq!(a.completion_tokens, word_count(text));
        let (cut, stopped) = apply_stop("one two three".into(), &["two".into(), "three".into()]);
        assert_eq!((cut.as_str(), stopped), ("one ", true));
    }

    #[test]
    fn the_silent_model_answers_empty_content_with_no_output_tokens() {
        let cfg = FakeLlmConfig::default();
        let req =
            json!({"model": SILENT_MODEL, "messages": [{"role": "user", "content": "hello"}]});
        let a = chat(&cfg, req).unwrap();
        assert_eq!(a.body["choices"][0]["message"]["content"], "");
        assert_eq!(a.completion_tokens, 0);
    }

    #[test]
    fn missing_model_is_404_and_bad_input_400() {
        let cfg = FakeLlmConfig::default();
        let e = chat(
            &cfg,
            json!({"model": "missing", "messages": [{"role": "user", "content": "x"}]}),
        );
        assert_eq!(e.unwrap_err().status, 404);
        let e = answer_embeddings(&cfg, &json!({"model": "m", "input": [[1, 2]]}));
        assert_eq!(e.unwrap_err().status, 400);
    }
}
