//! Tokenizer-free token estimates: for rate-limit admission, pre-run cost
//! plans, and the usage of providers that report none (flagged
//! `UsageSource::Counted`). One rule everywhere, so a plan, a limiter and a
//! counted bill agree with each other.

use crate::{ChatRequest, ToolCall};

/// Rough token count of `text`: one token per four characters, rounded up
/// (the usual rule of thumb for English and BPE tokenizers).
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

impl ToolCall {
    /// Estimated tokens of the call as the model wrote it: name and arguments.
    pub fn estimate_tokens(&self) -> u64 {
        estimate_tokens(&self.name) + estimate_tokens(&self.arguments)
    }
}

impl ChatRequest {
    /// Estimated prompt tokens: every message's text and tool calls, and the
    /// tools on offer (servers render their names, descriptions and schemas
    /// into the prompt, so they cost input tokens too).
    pub fn estimate_prompt_tokens(&self) -> u64 {
        let messages: u64 = self
            .messages
            .iter()
            .map(|m| {
                estimate_tokens(&m.content)
                    + m.tool_calls
                        .iter()
                        .map(ToolCall::estimate_tokens)
                        .sum::<u64>()
            })
            .sum();
        let tools: u64 = self
            .tools
            .iter()
            .map(|t| {
                estimate_tokens(&t.name)
                    + estimate_tokens(&t.description)
                    + estimate_tokens(&t.parameters.to_string())
            })
            .sum();
        messages + tools
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Message, Tool};

    #[test]
    fn four_characters_make_a_token() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("Hello, world!"), 4);
        // Characters, not bytes: "é" is one.
        assert_eq!(estimate_tokens("éééé"), 1);
    }

    #[test]
    fn prompts_count_tool_calls_and_tool_schemas() {
        let call = ToolCall {
            id: "call_1".into(),
            name: "spend".into(),
            arguments: r#"{"day":"2024-01-02"}"#.into(),
        };
        let mut req = ChatRequest::new(vec![
            Message::user("How much?"),
            Message::tool_calls("", vec![call.clone()]),
            Message::tool_result("call_1", "12.5"),
        ]);
        let plain = req.estimate_prompt_tokens();
        assert_eq!(plain, 3 + call.estimate_tokens() + 1);
        assert_eq!(call.estimate_tokens(), 2 + 5);
        req.tools.push(Tool {
            name: "spend".into(),
            description: "Spend of a day.".into(),
            parameters: serde_json::json!({"type": "object"}),
        });
        assert_eq!(req.estimate_prompt_tokens(), plain + 2 + 4 + 5);
    }
}
