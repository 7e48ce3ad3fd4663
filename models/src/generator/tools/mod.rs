//! Tool calls of the local model. A request offering tools (with a
//! `tool_choice` other than `None`) becomes a [`CallPlan`]: its tools'
//! schemas compiled, which of them the call may name, and the call's id.
//! The engine then runs a [`CallWriter`], which makes the reply a call that
//! parses and satisfies its schema whatever the model prefers, deciding
//! only what the schema leaves open.
//!
//! - `schema`: the supported JSON Schema subset, compiled into shapes, and
//!   the most tokens each shape's shortest value takes.
//! - `digits`: numbers within bounds, one character at a time.
//! - `vocab`: the bytes each token writes, for masking.
//! - `leaf`: the open points (string, number, literal, next array item,
//!   call or text) and what each becomes after a pick.
//! - `choice`: the options at an open point, their scores, the sampled one.
//! - `writer`: the walk through the schema, forced text and the budget.
//!
//! One call per turn: a 135M model does not plan parallel calls, and an
//! agent loop calls again after reading the result. Ids are `call_<n>`,
//! `n` counting the calls already in the conversation.

mod choice;
mod digits;
mod leaf;
pub(crate) mod schema;
mod vocab;
mod writer;

#[cfg(test)]
pub(crate) use vocab::token_text;
pub(crate) use vocab::Vocab;
pub(crate) use writer::{CallWriter, Next};

use super::prompt::{ARGS_KEY, CALLS_CLOSE, CALLS_OPEN, CALL_CLOSE, NAME_KEY};
use crate::error::ModelError;
use adfarm_llm::{ChatRequest, ToolChoice};
use schema::ObjectShape;
use std::sync::Arc;

/// A tool as the local model sees it.
#[derive(Debug)]
pub(crate) struct OfferedTool {
    pub(crate) name: String,
    /// The name as a JSON string literal.
    pub(crate) name_json: String,
    pub(crate) description: String,
    pub(crate) args: Arc<ObjectShape>,
}

impl OfferedTool {
    pub(crate) fn new(name: &str, description: &str, args: Arc<ObjectShape>) -> OfferedTool {
        OfferedTool {
            name: name.to_string(),
            name_json: serde_json::Value::from(name).to_string(),
            description: description.to_string(),
            args,
        }
    }
}

/// Whether the reply must be a call, and of what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The model decides between a call and a text answer.
    Auto,
    /// A call of any offered tool.
    Required,
    /// A call of this tool (index into [`CallPlan::tools`]).
    Tool(usize),
}

/// A request's tools, compiled, and what the reply must be.
#[derive(Debug)]
pub(crate) struct CallPlan {
    pub(crate) tools: Vec<OfferedTool>,
    pub(crate) mode: Mode,
    /// Id of the call this reply may make.
    pub(crate) call_id: String,
}

impl CallPlan {
    /// The plan for `req`, or `None` when it offers no tools or says
    /// `ToolChoice::None` (a plain chat reply). An absent `tool_choice` is
    /// `Auto`, the usual provider default.
    ///
    /// # Errors
    /// [`ModelError::Tool`] for a schema outside the supported subset, two
    /// tools of one name, a forced tool that is not offered, or a forced
    /// call without tools.
    pub(crate) fn for_request(req: &ChatRequest) -> Result<Option<CallPlan>, ModelError> {
        let choice = req.tool_choice.as_ref().unwrap_or(&ToolChoice::Auto);
        let refuse = |tool: &str, message: String| ModelError::Tool {
            tool: tool.to_string(),
            message,
        };
        match choice {
            ToolChoice::None => return Ok(None),
            ToolChoice::Auto if req.tools.is_empty() => return Ok(None),
            _ if req.tools.is_empty() => {
                return Err(refuse(
                    "-",
                    "a call is required but no tool is offered".into(),
                ))
            }
            _ => {}
        }
        let mut tools: Vec<OfferedTool> = Vec::with_capacity(req.tools.len());
        for t in &req.tools {
            if tools.iter().any(|o| o.name == t.name) {
                return Err(refuse(&t.name, "offered twice".into()));
            }
            let args = schema::compile_parameters(&t.parameters)
                .map_err(|m| refuse(&t.name, format!("parameters{m}")))?;
            tools.push(OfferedTool::new(&t.name, &t.description, args));
        }
        let mode = match choice {
            ToolChoice::Tool(name) => Mode::Tool(
                tools
                    .iter()
                    .position(|t| &t.name == name)
                    .ok_or_else(|| refuse(name, "forced but not offered".into()))?,
            ),
            ToolChoice::Required => Mode::Required,
            ToolChoice::Auto | ToolChoice::None => Mode::Auto,
        };
        let earlier: usize = req.messages.iter().map(|m| m.tool_calls.len()).sum();
        Ok(Some(CallPlan {
            tools,
            mode,
            call_id: format!("call_{earlier}"),
        }))
    }

    /// Indices of the tools the call may name.
    pub(crate) fn candidates(&self) -> Vec<usize> {
        match self.mode {
            Mode::Tool(i) => vec![i],
            Mode::Auto | Mode::Required => (0..self.tools.len()).collect(),
        }
    }

    /// Most tokens of the shortest call, end-of-turn token included: what a
    /// call takes at least, whatever `max_tokens` says.
    pub(crate) fn floor(&self) -> usize {
        self.candidates()
            .into_iter()
            .map(|i| {
                let t = &self.tools[i];
                CALLS_OPEN.len() + NAME_KEY.len() + t.name_json.len() + after_name(t)
            })
            .min()
            .unwrap_or(0)
    }
}

/// Most tokens of a shortest call after the tool's name.
fn after_name(t: &OfferedTool) -> usize {
    ARGS_KEY.len() + t.args.min_cost() + CALL_CLOSE.len() + CALLS_CLOSE.len() + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use adfarm_llm::{Message, Tool, ToolCall};
    use serde_json::json;

    fn request(choice: Option<ToolChoice>) -> ChatRequest {
        let mut r = ChatRequest::new(vec![
            Message::user("a"),
            Message::tool_calls(
                "",
                vec![ToolCall {
                    id: "x".into(),
                    name: "ping".into(),
                    arguments: "{}".into(),
                }],
            ),
            Message::tool_result("x", "pong"),
        ]);
        r.tools = vec![
            Tool {
                name: "ping".into(),
                description: String::new(),
                parameters: json!({}),
            },
            Tool {
                name: "echo".into(),
                description: String::new(),
                parameters: json!({"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]}),
            },
        ];
        r.tool_choice = choice;
        r
    }

    #[test]
    fn the_choice_decides_the_plan() {
        assert!(CallPlan::for_request(&request(Some(ToolChoice::None)))
            .unwrap()
            .is_none());
        let auto = CallPlan::for_request(&request(None)).unwrap().unwrap();
        assert_eq!(auto.mode, Mode::Auto);
        assert_eq!(
            auto.call_id, "call_1",
            "one call is already in the conversation"
        );
        let forced = CallPlan::for_request(&request(Some(ToolChoice::Tool("echo".into()))))
            .unwrap()
            .unwrap();
        assert_eq!(forced.candidates(), vec![1]);
        // <tool_call>[\n{"name": "echo", "arguments": {"s": ""}}\n]</tool_call> + <|im_end|>
        let shortest =
            "<tool_call>[\n{\"name\": \"echo\", \"arguments\": {\"s\": \"\"}}\n]</tool_call>";
        assert_eq!(forced.floor(), shortest.len() + 1);
        let err =
            CallPlan::for_request(&request(Some(ToolChoice::Tool("nope".into())))).unwrap_err();
        assert_eq!(err.code(), "tool");
        let mut none = request(Some(ToolChoice::Required));
        none.tools.clear();
        assert!(CallPlan::for_request(&none).is_err());
        none.tool_choice = None;
        assert!(CallPlan::for_request(&none).unwrap().is_none());
    }

    #[test]
    fn unsupported_schemas_name_the_tool_and_the_place() {
        let mut r = request(Some(ToolChoice::Required));
        r.tools[1].parameters =
            json!({"type": "object", "properties": {"s": {"type": "string", "pattern": "x"}}});
        let err = CallPlan::for_request(&r).unwrap_err().to_string();
        assert!(
            err.contains("echo") && err.contains("/properties/s"),
            "{err}"
        );
    }
}
