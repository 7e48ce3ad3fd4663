//! The JSON of the OpenAI chat and embeddings APIs: request bodies built
//! from a [`ChatRequest`], replies read into text, tool calls and usage.
//!
//! A request without tools serialises to exactly the body it always had
//! (`model`, `messages` of `role`/`content`, `max_tokens`, `temperature`,
//! `seed`, then `top_p`/`stop` when set), so servers that key on the body
//! (the fake, prompt caches) see no change.

use adfarm_llm::{ChatRequest, LlmError, Message, Speaker, Tool, ToolCall, ToolChoice};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Which constraint a closed-choice request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Constraint {
    /// Plain chat.
    None,
    /// vLLM's `guided_choice` and a `response_format` JSON schema.
    Full,
    /// Only the JSON schema, for servers (OpenAI) that reject `guided_choice`.
    SchemaOnly,
}

/// A message as the API takes it: assistant tool calls in OpenAI's nested
/// shape, and `content: null` for a turn that only calls tools.
#[derive(Serialize)]
struct WireMessage<'a> {
    role: Speaker,
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<WireToolCall<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
}

#[derive(Serialize)]
struct WireToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunctionCall<'a>,
}

#[derive(Serialize)]
struct WireFunctionCall<'a> {
    name: &'a str,
    arguments: &'a str,
}

#[derive(Serialize)]
struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

/// The chat-completions body: every field that determines the reply.
#[derive(Serialize)]
struct ChatBody<'a> {
    model: &'a str,
    messages: Vec<WireMessage<'a>>,
    max_tokens: u32,
    temperature: f32,
    seed: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f32>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    guided_choice: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Value>,
}

fn wire_message(m: &Message) -> WireMessage<'_> {
    let calls_only = m.content.is_empty() && !m.tool_calls.is_empty();
    WireMessage {
        role: m.role,
        content: (!calls_only).then_some(m.content.as_str()),
        tool_calls: m
            .tool_calls
            .iter()
            .map(|c| WireToolCall {
                id: &c.id,
                kind: "function",
                function: WireFunctionCall {
                    name: &c.name,
                    arguments: &c.arguments,
                },
            })
            .collect(),
        tool_call_id: m.tool_call_id.as_deref(),
    }
}

fn wire_tool(t: &Tool) -> WireTool<'_> {
    WireTool {
        kind: "function",
        function: WireFunction {
            name: &t.name,
            description: &t.description,
            parameters: &t.parameters,
        },
    }
}

fn wire_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
    }
}

/// The body of a chat completion of `req` by `model`, constrained to
/// `options` as `constraint` says. `tool_choice` is sent only with tools:
/// servers reject it alone.
pub(super) fn chat_body(
    model: &str,
    req: &ChatRequest,
    options: &[String],
    constraint: Constraint,
) -> Value {
    // OpenAI's strict structured outputs need an object at the root.
    let response_format = (constraint != Constraint::None).then(|| {
        json!({
            "type": "json_schema",
            "json_schema": {"name": "choice", "strict": true, "schema": {
                "type": "object",
                "properties": {"choice": {"type": "string", "enum": options}},
                "required": ["choice"],
                "additionalProperties": false,
            }},
        })
    });
    let body = ChatBody {
        model,
        messages: req.messages.iter().map(wire_message).collect(),
        max_tokens: req.max_tokens,
        temperature: req.temperature,
        seed: req.seed,
        top_p: req.top_p,
        stop: &req.stop,
        guided_choice: (constraint == Constraint::Full).then_some(options),
        response_format,
        tools: req.tools.iter().map(wire_tool).collect(),
        tool_choice: req
            .tool_choice
            .as_ref()
            .filter(|_| !req.tools.is_empty())
            .map(wire_tool_choice),
    };
    // Through `Value`, as the body always was: keys sorted and floats
    // widened the same way, so bodies without tools stay byte-identical.
    serde_json::to_value(body).expect("a chat body serialises")
}

/// A chat-completions reply.
#[derive(Deserialize)]
pub(super) struct ChatResponse {
    #[serde(default)]
    choices: Vec<ChatChoice>,
    usage: Option<ReportedUsage>,
}

#[derive(Deserialize)]
struct ChatChoice {
    message: ChatMessage,
}

#[derive(Deserialize)]
struct ChatMessage {
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ReplyToolCall>>,
}

#[derive(Deserialize)]
struct ReplyToolCall {
    #[serde(default)]
    id: Option<String>,
    function: ReplyFunction,
}

#[derive(Deserialize)]
struct ReplyFunction {
    name: String,
    /// A JSON string per the API; some servers send the object itself.
    #[serde(default)]
    arguments: Value,
}

/// Token counts a provider reported.
#[derive(Deserialize)]
pub(super) struct ReportedUsage {
    pub(super) prompt_tokens: Option<u64>,
    pub(super) completion_tokens: Option<u64>,
}

/// What a chat reply says, before any check of its tool calls.
pub(super) struct Reply {
    pub(super) text: String,
    pub(super) tool_calls: Vec<ToolCall>,
    /// `(prompt, completion)` tokens, when the provider reported both.
    pub(super) usage: Option<(u64, u64)>,
}

impl ChatResponse {
    /// The first choice's text and tool calls. A call without an id gets
    /// `call_<index>`, so its result can still refer to it.
    ///
    /// # Errors
    /// [`LlmError::Malformed`] when there is no choice, or a message with
    /// neither text nor tool calls.
    pub(super) fn into_reply(self) -> Result<Reply, LlmError> {
        let message = self
            .choices
            .into_iter()
            .next()
            .ok_or_else(|| LlmError::Malformed("reply has no choices".into()))?
            .message;
        let tool_calls: Vec<ToolCall> = message
            .tool_calls
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, c)| ToolCall {
                id: c.id.unwrap_or_else(|| format!("call_{i}")),
                name: c.function.name,
                arguments: match c.function.arguments {
                    Value::String(s) => s,
                    other => other.to_string(),
                },
            })
            .collect();
        let text = match message.content.or(message.refusal) {
            Some(text) => text,
            None if !tool_calls.is_empty() => String::new(),
            None => return Err(LlmError::Malformed("reply message has no content".into())),
        };
        let usage = match self.usage {
            Some(ReportedUsage {
                prompt_tokens: Some(input),
                completion_tokens: Some(output),
            }) => Some((input, output)),
            _ => None,
        };
        Ok(Reply {
            text,
            tool_calls,
            usage,
        })
    }
}

/// An embeddings reply.
#[derive(Deserialize)]
pub(super) struct EmbeddingResponse {
    pub(super) data: Vec<EmbeddingItem>,
    pub(super) usage: Option<ReportedUsage>,
}

/// One vector of an embeddings reply.
#[derive(Deserialize)]
pub(super) struct EmbeddingItem {
    pub(super) index: Option<usize>,
    pub(super) embedding: Vec<f32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    #[test]
    fn bodies_without_tools_are_what_they_always_were() {
        let mut req = ChatRequest::new(vec![Message::system("s"), Message::user("u")]);
        req.temperature = 0.7;
        req.top_p = Some(0.9);
        req.stop = vec!["\n".into()];
        let legacy = json!({
            "model": "m",
            "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
            "max_tokens": 256,
            "temperature": req.temperature,
            "seed": 0,
            "top_p": 0.9f32,
            "stop": ["\n"],
        });
        let body = chat_body("m", &req, &[], Constraint::None);
        assert_eq!(body, legacy);
        assert_eq!(body.to_string(), legacy.to_string());
        // A choice alone on a request without tools is not sent.
        req.tool_choice = Some(ToolChoice::Required);
        assert_eq!(chat_body("m", &req, &[], Constraint::None), legacy);
    }

    #[test]
    fn tools_choices_calls_and_results_take_the_openai_shape() {
        let mut req = ChatRequest::new(vec![
            Message::user("spend?"),
            Message::tool_calls("", vec![call("c1", "spend", r#"{"day":1}"#)]),
            Message::tool_result("c1", "12"),
        ]);
        req.tools = vec![Tool {
            name: "spend".into(),
            description: "Spend of a day.".into(),
            parameters: json!({"type": "object"}),
        }];
        req.tool_choice = Some(ToolChoice::Tool("spend".into()));
        let body = chat_body("m", &req, &[], Constraint::None);
        assert_eq!(
            body["messages"][1],
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "spend", "arguments": "{\"day\":1}"}}]})
        );
        assert_eq!(
            body["messages"][2],
            json!({"role": "tool", "content": "12", "tool_call_id": "c1"})
        );
        assert_eq!(
            body["tools"],
            json!([{"type": "function", "function": {
                "name": "spend", "description": "Spend of a day.", "parameters": {"type": "object"}}}])
        );
        assert_eq!(
            body["tool_choice"],
            json!({"type": "function", "function": {"name": "spend"}})
        );
        for (choice, wire) in [
            (ToolChoice::Auto, "auto"),
            (ToolChoice::None, "none"),
            (ToolChoice::Required, "required"),
        ] {
            assert_eq!(wire_tool_choice(&choice), json!(wire));
        }
    }

    #[test]
    fn replies_yield_tool_calls_whatever_the_server_dialect() {
        let reply: ChatResponse = serde_json::from_value(json!({
            "choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}},
                {"type": "function", "function": {"name": "g", "arguments": {"y": 2}}}]}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 4}}))
        .unwrap();
        let reply = reply.into_reply().unwrap();
        assert_eq!(reply.text, "");
        assert_eq!(
            reply.tool_calls,
            vec![
                call("a", "f", r#"{"x":1}"#),
                call("call_1", "g", r#"{"y":2}"#)
            ]
        );
        assert_eq!(reply.usage, Some((3, 4)));
        let empty: ChatResponse =
            serde_json::from_value(json!({"choices": [{"message": {"content": null}}]})).unwrap();
        assert!(matches!(empty.into_reply(), Err(LlmError::Malformed(_))));
    }
}
