//! The environment: a counter behind two tools, `add` (a step of 1, 2 or 3)
//! and `read`. Deterministic, so an episode replayed from cached model
//! calls ends with the same value.

use adfarm_llm::Tool;
use serde_json::{json, Value};

/// Name of the tool that moves the counter.
pub const ADD: &str = "add";
/// Name of the tool that reports the counter.
pub const READ: &str = "read";
/// The steps `add` accepts: small, so a far target takes several calls.
pub const STEPS: [i64; 3] = [1, 2, 3];

/// The tools offered to the agent on every turn.
pub fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: ADD.into(),
            description: "Add a step of 1, 2 or 3 to the counter; returns its new value.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"amount": {"type": "integer", "enum": STEPS}},
                "required": ["amount"],
                "additionalProperties": false,
            }),
        },
        Tool {
            name: READ.into(),
            description: "Return the counter's value.".into(),
            parameters: json!({"type": "object", "properties": {}}),
        },
    ]
}

/// A tool call the environment cannot run: the model is told why, and the
/// counter is left as it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The call names a tool that was not offered.
    #[error("there is no tool {0:?}; the tools are add and read")]
    UnknownTool(String),
    /// The arguments are not a JSON object.
    #[error("arguments must be a JSON object, got {0:?}")]
    NotAnObject(String),
    /// `add` without a step it accepts.
    #[error("amount must be 1, 2 or 3, got {0}")]
    BadAmount(String),
}

impl ToolError {
    /// Bounded code, recorded in the trajectory.
    pub fn code(&self) -> &'static str {
        match self {
            ToolError::UnknownTool(_) => "unknown-tool",
            ToolError::NotAnObject(_) => "not-an-object",
            ToolError::BadAmount(_) => "bad-amount",
        }
    }
}

/// The counter of one episode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    value: i64,
}

impl Counter {
    /// A counter holding `start`.
    pub fn new(start: i64) -> Counter {
        Counter { value: start }
    }

    /// Its value.
    pub fn value(self) -> i64 {
        self.value
    }

    /// Runs tool `tool` with `args`, returning the counter's value after it.
    ///
    /// # Errors
    /// A call the environment cannot run ([`ToolError`]); the counter is
    /// unchanged.
    pub fn call(&mut self, tool: &str, args: &Value) -> Result<i64, ToolError> {
        let args = args
            .as_object()
            .ok_or_else(|| ToolError::NotAnObject(args.to_string()))?;
        match tool {
            ADD => {
                let amount = args.get("amount").cloned().unwrap_or(Value::Null);
                let step = amount
                    .as_i64()
                    .filter(|a| STEPS.contains(a))
                    .ok_or_else(|| ToolError::BadAmount(amount.to_string()))?;
                self.value += step;
                Ok(self.value)
            }
            READ => Ok(self.value),
            other => Err(ToolError::UnknownTool(other.into())),
        }
    }
}

/// What the model is sent back for a call: the value, or the error.
pub fn tool_result(outcome: &Result<i64, ToolError>) -> String {
    match outcome {
        Ok(value) => json!({ "value": value }).to_string(),
        Err(e) => json!({ "error": e.to_string() }).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: &str) -> (String, Value) {
        (
            name.into(),
            serde_json::from_str(arguments).unwrap_or(Value::String(arguments.into())),
        )
    }

    #[test]
    fn add_moves_by_an_accepted_step_and_read_reports() {
        let mut c = Counter::new(4);
        let mut run = |(tool, args): (String, Value)| c.call(&tool, &args);
        assert_eq!(run(call(ADD, r#"{"amount": 3}"#)), Ok(7));
        assert_eq!(run(call(READ, "{}")), Ok(7));
        assert_eq!(run(call(ADD, r#"{"amount": 1}"#)), Ok(8));
        assert_eq!(c.value(), 8);
        assert_eq!(tool_result(&Ok(8)), r#"{"value":8}"#);
    }

    #[test]
    fn unusable_calls_leave_the_counter_and_say_why() {
        let mut c = Counter::new(2);
        let cases = [
            (call(ADD, r#"{"amount": 4}"#), "bad-amount"),
            (call(ADD, r#"{"amount": "2"}"#), "bad-amount"),
            (call(ADD, "{}"), "bad-amount"),
            (call(ADD, "amount=2"), "not-an-object"),
            (call(READ, "[]"), "not-an-object"),
            (call("reset", "{}"), "unknown-tool"),
        ];
        for ((tool, args), code) in cases {
            let err = c.call(&tool, &args).expect_err("unusable");
            assert_eq!(err.code(), code, "{tool} {args}");
            assert!(tool_result(&Err(err)).contains("\"error\""));
        }
        assert_eq!(c.value(), 2);
    }

    #[test]
    fn the_tools_schemas_name_the_steps() {
        let t = tools();
        assert_eq!(
            t.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
            [ADD, READ]
        );
        assert_eq!(
            t[0].parameters["properties"]["amount"]["enum"],
            json!([1, 2, 3])
        );
    }
}
