//! Why a tool call gets an error observation instead of a result. Every
//! variant about an argument names it, so the agent can fix the call.

/// A tool call the platform answers with an error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The call names a tool that was not offered.
    #[error("there is no tool {0:?}")]
    UnknownTool(String),
    /// The arguments are not a JSON object.
    #[error("arguments must be a JSON object")]
    NotAnObject,
    /// A required argument is absent.
    #[error("missing required argument `{0}`")]
    Missing(String),
    /// An argument the tool does not take.
    #[error("unknown argument `{0}`")]
    Unknown(String),
    /// An argument with a bad value.
    #[error("argument `{arg}`: {reason}")]
    Bad {
        /// The argument's name.
        arg: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A dependency between calls was violated (only under strict dependencies).
    #[error("argument `{arg}`: {reason}")]
    Dependency {
        /// The argument that used an id or data not obtained earlier.
        arg: String,
        /// What was missing.
        reason: String,
    },
    /// The episode was ended by `summarize_results`.
    #[error("the episode has ended; no more tool calls are accepted")]
    Ended,
    /// A tool ran but failed (e.g. a calculator program raised).
    #[error("{0}")]
    Failed(String),
}

impl ToolError {
    /// A bad value for `arg`.
    pub fn bad(arg: &str, reason: impl Into<String>) -> ToolError {
        ToolError::Bad {
            arg: arg.to_string(),
            reason: reason.into(),
        }
    }

    /// The argument the error is about, if any.
    pub fn argument(&self) -> Option<&str> {
        match self {
            ToolError::Missing(a) | ToolError::Unknown(a) => Some(a),
            ToolError::Bad { arg, .. } | ToolError::Dependency { arg, .. } => Some(arg),
            _ => None,
        }
    }

    /// Bounded code, recorded in the trajectory.
    pub fn code(&self) -> &'static str {
        match self {
            ToolError::UnknownTool(_) => "unknown-tool",
            ToolError::NotAnObject => "not-an-object",
            ToolError::Missing(_) => "missing-argument",
            ToolError::Unknown(_) => "unknown-argument",
            ToolError::Bad { .. } => "bad-argument",
            ToolError::Dependency { .. } => "dependency",
            ToolError::Ended => "episode-ended",
            ToolError::Failed(_) => "tool-failed",
        }
    }
}
