//! The prompt the model sees: SmolLM2's ChatML template, plus the tool
//! syntax of the SmolLM2 family's Ollama template, since the GGUF's own
//! chat template has none:
//!
//! - Offered tools go in the system turn, after its text: first how to
//!   call (the same words for every request, so tool prompts share a cached
//!   prefix), then one line per tool, `- name(city: string, unit?: "c" |
//!   "f"): description`, and an indented line per described argument. A
//!   signature is a third of the tokens of the JSON schema it stands for,
//!   and the schema itself is enforced while decoding, not by the prompt.
//! - A call is `<tool_call>[\n{"name": "...", "arguments": {...}}\n]</tool_call>`,
//!   after the turn's text when it has any (several calls: `,\n` between
//!   them). A call the local model made renders byte for byte as it wrote
//!   it, so the next turn's prompt extends the last one's.
//! - A tool's result is a user turn `<tool_response>\n...\n</tool_response>`,
//!   as the Ollama template renders it; it answers the call just before it.

use super::tools::OfferedTool;
use adfarm_llm::{Message, Speaker};

/// The model's default system prompt, inserted by its chat template when the
/// conversation does not start with a system message.
pub const DEFAULT_SYSTEM: &str =
    "You are a helpful AI assistant named SmolLM, trained by Hugging Face";

/// Opens an assistant turn's list of calls.
pub(crate) const CALLS_OPEN: &str = "<tool_call>[\n";
/// Opens one call, before the tool's name as a JSON string.
pub(crate) const NAME_KEY: &str = "{\"name\": ";
/// Between the name and the arguments object.
pub(crate) const ARGS_KEY: &str = ", \"arguments\": ";
/// Closes one call.
pub(crate) const CALL_CLOSE: &str = "}";
/// Between two calls of one turn.
const CALLS_SEP: &str = ",\n";
/// Closes the list of calls.
pub(crate) const CALLS_CLOSE: &str = "\n]</tool_call>";

/// The model's ChatML template with the generation prompt, as its
/// `tokenizer.chat_template` renders it; tool calls and results in the
/// conversation are rendered as the module documentation says.
pub fn chat_prompt(messages: &[Message]) -> String {
    render(messages, &[])
}

/// [`chat_prompt`] with `tools` offered in the system turn (none: exactly
/// [`chat_prompt`]).
pub(crate) fn render(messages: &[Message], tools: &[OfferedTool]) -> String {
    let mut s = String::new();
    let mut system = match messages.first() {
        Some(m) if m.role == Speaker::System => m.content.clone(),
        _ => DEFAULT_SYSTEM.to_string(),
    };
    if !tools.is_empty() {
        system.push_str("\n\n");
        system.push_str(&tools_block(tools));
    }
    turn(&mut s, "system", &system);
    let rest = match messages.first() {
        Some(m) if m.role == Speaker::System => &messages[1..],
        _ => messages,
    };
    for m in rest {
        match m.role {
            Speaker::Tool => turn(
                &mut s,
                "user",
                &format!("<tool_response>\n{}\n</tool_response>", m.content),
            ),
            Speaker::Assistant if !m.tool_calls.is_empty() => {
                let mut text = m.content.clone();
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(CALLS_OPEN);
                for (i, c) in m.tool_calls.iter().enumerate() {
                    if i > 0 {
                        text.push_str(CALLS_SEP);
                    }
                    let args = c.arguments.trim();
                    let args = if args.is_empty() { "{}" } else { args };
                    let name = serde_json::Value::from(c.name.as_str());
                    text.push_str(&format!("{NAME_KEY}{name}{ARGS_KEY}{args}{CALL_CLOSE}"));
                }
                text.push_str(CALLS_CLOSE);
                turn(&mut s, "assistant", &text);
            }
            role => turn(&mut s, role.as_str(), &m.content),
        }
    }
    s.push_str("<|im_start|>assistant\n");
    s
}

fn turn(s: &mut String, role: &str, content: &str) {
    s.push_str("<|im_start|>");
    s.push_str(role);
    s.push('\n');
    s.push_str(content);
    s.push_str("<|im_end|>\n");
}

fn tools_block(tools: &[OfferedTool]) -> String {
    let mut s = format!(
        "To call a tool, answer with only:\n{CALLS_OPEN}{NAME_KEY}\"<tool name>\"{ARGS_KEY}\
         {{<arguments as JSON>}}{CALL_CLOSE}{CALLS_CLOSE}\nTools:\n"
    );
    for t in tools {
        s.push_str(&format!("- {}({})", t.name, t.args.describe_fields()));
        if !t.description.is_empty() {
            s.push_str(": ");
            s.push_str(&t.description);
        }
        s.push('\n');
        for p in t.args.required.iter().chain(&t.args.optional) {
            if let Some(d) = &p.description {
                s.push_str(&format!("  {}: {d}\n", p.name));
            }
        }
    }
    s.truncate(s.trim_end().len());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::tools::schema::compile_parameters;
    use adfarm_llm::ToolCall;
    use serde_json::json;

    #[test]
    fn template_matches_the_gguf_chat_template() {
        let p = chat_prompt(&[Message::user("Hi")]);
        assert_eq!(
            p,
            "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
        );
        let p = chat_prompt(&[Message::system("S"), Message::user("U")]);
        assert_eq!(
            p,
            "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    #[test]
    fn tools_calls_and_results_render_in_the_ollama_syntax() {
        let weather = OfferedTool::new(
            "get_weather",
            "Current weather.",
            compile_parameters(&json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "unit": {"enum": ["c", "f"]}
                },
                "required": ["city"]
            }))
            .unwrap(),
        );
        let call = ToolCall {
            id: "call_0".into(),
            name: "get_weather".into(),
            arguments: r#"{"city": "Paris"}"#.into(),
        };
        let p = render(
            &[
                Message::system("S"),
                Message::user("Weather in Paris?"),
                Message::tool_calls("", vec![call]),
                Message::tool_result("call_0", "18 C"),
            ],
            &[weather],
        );
        assert_eq!(
            p,
            "<|im_start|>system\nS\n\nTo call a tool, answer with only:\n<tool_call>[\n\
             {\"name\": \"<tool name>\", \"arguments\": {<arguments as JSON>}}\n]</tool_call>\n\
             Tools:\n- get_weather(city: string, unit?: \"c\" | \"f\"): Current weather.\n  \
             city: City name<|im_end|>\n\
             <|im_start|>user\nWeather in Paris?<|im_end|>\n\
             <|im_start|>assistant\n<tool_call>[\n{\"name\": \"get_weather\", \"arguments\": \
             {\"city\": \"Paris\"}}\n]</tool_call><|im_end|>\n\
             <|im_start|>user\n<tool_response>\n18 C\n</tool_response><|im_end|>\n\
             <|im_start|>assistant\n"
        );
    }
}
