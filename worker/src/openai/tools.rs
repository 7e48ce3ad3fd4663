//! Tool calls a caller can run. A call is usable when it names a tool of
//! the request and its arguments parse as a JSON object. A reply with an
//! unusable call is re-asked once, with a short corrective user message; if
//! the second reply is still unusable, the turn comes back without tool
//! calls (its text kept, the usage of both calls summed) and counts in
//! `adfarm_llm_tool_call_errors_total{model}`: the agent sees a turn without
//! a call, a format error its suite counts, never a failed job.

use super::client::{sum_usage, OpenAiClient};
use super::wire::Constraint;
use adfarm_backbone::metrics::Metrics;
use adfarm_llm::{ChatRequest, Completion, LlmError, Message, Tool, ToolCall};
use serde_json::Value;

/// Longest piece of a model-written tool name quoted back to it.
const QUOTED_NAME_CHARS: usize = 64;

/// Why a reply's tool call cannot be run.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Unusable {
    /// It names no tool of the request.
    UnknownTool(String),
    /// Its arguments are not a JSON object.
    NotAnObject(String),
}

impl Unusable {
    /// Bounded code for logs.
    fn code(&self) -> &'static str {
        match self {
            Unusable::UnknownTool(_) => "unknown-tool",
            Unusable::NotAnObject(_) => "arguments-not-object",
        }
    }
}

/// The first unusable call of `calls`, judged against the request's `tools`.
fn check(calls: &[ToolCall], tools: &[Tool]) -> Result<(), Unusable> {
    for call in calls {
        let name: String = call.name.chars().take(QUOTED_NAME_CHARS).collect();
        if !tools.iter().any(|t| t.name == call.name) {
            return Err(Unusable::UnknownTool(name));
        }
        if !matches!(
            serde_json::from_str::<Value>(&call.arguments),
            Ok(Value::Object(_))
        ) {
            return Err(Unusable::NotAnObject(name));
        }
    }
    Ok(())
}

/// The user message that re-asks: what was wrong, and what to call.
fn corrective_prompt(problem: &Unusable, tools: &[Tool]) -> String {
    let what = match problem {
        Unusable::UnknownTool(name) => format!("called `{name}`, which is not one of your tools"),
        Unusable::NotAnObject(name) => {
            format!("called `{name}` with arguments that are not a JSON object")
        }
    };
    if tools.is_empty() {
        return format!("Your last reply {what}. Answer without calling a tool.");
    }
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    format!(
        "Your last reply {what}. Call one of these tools ({}) with its arguments as one JSON object that fits its parameters, or answer in text.",
        names.join(", ")
    )
}

impl OpenAiClient {
    /// One chat turn whose tool calls are all usable, or none: see the
    /// module docs for the one re-ask and what follows a second bad reply.
    ///
    /// # Errors
    /// As one chat call (transport, status, malformed reply).
    pub(super) async fn chat_with_usable_calls(
        &self,
        req: &ChatRequest,
    ) -> Result<Completion, LlmError> {
        let first = self.complete(req, &[], Constraint::None).await?;
        let Err(problem) = check(&first.tool_calls, &req.tools) else {
            return Ok(first);
        };
        tracing::debug!(model = %self.model(), code = problem.code(), "Tool call unusable; asking once more.");
        let mut again = req.clone();
        again
            .messages
            .push(Message::user(corrective_prompt(&problem, &req.tools)));
        let second = self.complete(&again, &[], Constraint::None).await?;
        let usage = sum_usage(&first.usage, &second.usage);
        match check(&second.tool_calls, &req.tools) {
            Ok(()) => Ok(Completion { usage, ..second }),
            Err(problem) => {
                Metrics::global()
                    .llm_tool_call_errors
                    .with_label_values(&[self.model()])
                    .inc();
                tracing::warn!(model = %self.model(), code = problem.code(), "Tool call still unusable after a re-ask; the turn goes on without a call.");
                Ok(Completion {
                    text: second.text,
                    tool_calls: vec![],
                    usage,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> Tool {
        Tool {
            name: name.into(),
            description: String::new(),
            parameters: json!({"type": "object"}),
        }
    }

    fn call(name: &str, arguments: &str) -> ToolCall {
        ToolCall::new("c", name, arguments)
    }

    #[test]
    fn usable_calls_name_a_tool_and_carry_an_object() {
        let tools = [tool("spend"), tool("clicks")];
        assert_eq!(check(&[], &tools), Ok(()));
        assert_eq!(
            check(&[call("spend", "{}"), call("clicks", r#"{"d":1}"#)], &tools),
            Ok(())
        );
        let unknown = check(&[call("spend", "{}"), call("bid", "{}")], &tools).unwrap_err();
        assert_eq!(unknown, Unusable::UnknownTool("bid".into()));
        for bad in ["[1]", "\"x\"", "{\"d\":", ""] {
            let e = check(&[call("spend", bad)], &tools).unwrap_err();
            assert_eq!(e.code(), "arguments-not-object", "{bad}");
        }
        assert!(check(&[call("spend", "{}")], &[]).is_err());
    }

    #[test]
    fn the_corrective_prompt_names_the_problem_and_the_tools() {
        let tools = [tool("a"), tool("b")];
        let problem = check(&[call(&"x".repeat(500), "{}")], &tools).unwrap_err();
        let p = corrective_prompt(&problem, &tools);
        assert!(p.contains("(a, b)") && p.len() < 500, "{p}");
        let p = corrective_prompt(&Unusable::NotAnObject("a".into()), &[]);
        assert!(p.contains("not a JSON object") && p.contains("without calling"));
    }
}
