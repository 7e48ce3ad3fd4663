//! The calculator as a platform tool: `calculator(code)` runs a snippet
//! with every earlier result readable by its id (`r1`, `r2`...), and the
//! result is what it printed. Ground-truth replay runs it in process (the
//! interpreter is pure); agent episodes run it in the sandboxed child.

use adfarm_calculator::{evaluate, Calculator, Request};
use adfarm_llm::Tool;
use serde_json::{json, Value};

use crate::tools::{EpisodeState, ExternalTool, ToolError};

/// The tool's name.
pub const CALCULATOR: &str = "calculator";

/// Longest snippet accepted, in characters.
pub const MAX_CODE_CHARS: u64 = adfarm_calculator::CODE_CHARS as u64;

/// The calculator's published schema.
pub fn calculator_spec() -> Tool {
    Tool {
        name: CALCULATOR.into(),
        description: "Run a Python snippet (math and statistics only) and return what it prints. Earlier results are variables named by their result_id (r1, r2, ...), parsed from JSON.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"code": {"type": "string", "minLength": 1, "maxLength": MAX_CODE_CHARS}},
            "required": ["code"],
            "additionalProperties": false,
        }),
    }
}

/// Where snippets run.
#[derive(Debug, Clone)]
pub enum Backend {
    /// In this process: the interpreter has no I/O, so for trusted
    /// reference code this is exact and fast.
    InProcess,
    /// In a sandboxed child process, for agents' code.
    Child(Calculator),
}

/// The calculator tool over a backend.
#[derive(Debug, Clone)]
pub struct CalculatorTool {
    backend: Backend,
}

impl CalculatorTool {
    /// A calculator tool running on `backend`.
    pub fn new(backend: Backend) -> CalculatorTool {
        CalculatorTool { backend }
    }
}

impl ExternalTool for CalculatorTool {
    fn spec(&self) -> Tool {
        calculator_spec()
    }

    fn data_argument(&self) -> Option<&str> {
        Some("code")
    }

    fn run(&self, args: &Value, state: &EpisodeState) -> Result<Value, ToolError> {
        let code = args["code"]
            .as_str()
            .ok_or_else(|| ToolError::bad("code", "must be a string"))?;
        if code.trim().is_empty() {
            return Err(ToolError::bad("code", "must not be empty"));
        }
        let request = Request {
            code: code.to_string(),
            variables: state
                .bindings()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        let reply = match &self.backend {
            Backend::InProcess => evaluate(&request),
            Backend::Child(c) => c.run_request(&request),
        };
        if reply.error.is_some() {
            return Err(ToolError::Failed(reply.to_text()));
        }
        Ok(json!({"output": reply.output}))
    }
}
