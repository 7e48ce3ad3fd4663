//! Load and inference failures of the local models.

use adfarm_llm::LlmError;
use std::path::PathBuf;

/// A local model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A model file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A model file is not what it should be (bad config, missing tensor,
    /// unsupported GGUF metadata).
    #[error("invalid model file {path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Tokenizing or detokenizing failed.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// A forward pass failed.
    #[error("inference: {0}")]
    Inference(String),
    /// A request's tools cannot be honoured: a schema outside the supported
    /// subset, or a `tool_choice` naming a tool that is not offered.
    #[error("tool {tool}: {message}")]
    Tool {
        /// The tool's name (`-` when the request offers none).
        tool: String,
        /// What is wrong.
        message: String,
    },
    /// The inference thread is gone (it panicked or the process is exiting).
    #[error("local model thread stopped")]
    Stopped,
}

impl ModelError {
    /// Bounded code for logs and labels.
    pub fn code(&self) -> &'static str {
        match self {
            ModelError::Io { .. } => "io",
            ModelError::Format { .. } => "format",
            ModelError::Tokenizer(_) => "tokenizer",
            ModelError::Inference(_) => "inference",
            ModelError::Tool { .. } => "tool",
            ModelError::Stopped => "stopped",
        }
    }

    pub(crate) fn format(path: &std::path::Path, message: impl std::fmt::Display) -> ModelError {
        ModelError::Format {
            path: path.to_path_buf(),
            message: message.to_string(),
        }
    }
}

impl From<ModelError> for LlmError {
    /// A stopped thread may come back in a new process, so it is transient;
    /// everything else is a local model fault that retrying will not fix.
    fn from(e: ModelError) -> Self {
        match e {
            ModelError::Stopped => LlmError::Infra(e.to_string()),
            other => LlmError::Config(format!("local model: {other}")),
        }
    }
}
