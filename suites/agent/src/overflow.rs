//! Telling a conversation that outgrew the model's context from a real
//! model failure. Overflow ends an episode (it is the LC label's evidence);
//! every other failure is the job's.
//!
//! The seam has no variant for it, so it is read from the two providers'
//! errors as they reach an agent:
//! - the local model refuses a prompt past its window with "prompt of N
//!   tokens does not fit the model context of C", which the worker maps
//!   into `LlmError::Config("local model: inference: …")`;
//! - OpenAI-compatible servers answer 400 (some 413) with a message naming
//!   the context: OpenAI "maximum context length" / `context_length_exceeded`,
//!   vLLM "maximum context length", llama.cpp "exceeds the available context
//!   size", others "context window".

use adfarm_llm::LlmError;

/// What the local model says of a prompt past its window.
const LOCAL: &str = "does not fit the model context";

/// What servers' 400 messages say of one, lower-cased.
const SERVER: [&str; 4] = [
    "context length",
    "context_length",
    "context size",
    "context window",
];

/// True when `e` says the request did not fit the model's context.
pub fn is_context_overflow(e: &LlmError) -> bool {
    match e {
        LlmError::Config(m) => m.contains(LOCAL),
        LlmError::Status {
            status: 400 | 413,
            message,
            ..
        } => {
            let m = message.to_ascii_lowercase();
            SERVER.iter().any(|p| m.contains(p))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: u16, message: &str) -> LlmError {
        LlmError::Status {
            status,
            message: message.into(),
            retry_after: None,
        }
    }

    #[test]
    fn overflow_is_told_from_other_failures() {
        let yes = [
            LlmError::Config(
                "local model: inference: prompt of 9000 tokens does not fit the model context of 8192"
                    .into(),
            ),
            status(400, r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.","code":"context_length_exceeded"}}"#),
            status(400, "the request exceeds the available context size, try increasing it"),
            status(413, "Prompt is longer than the Context Window"),
        ];
        for e in &yes {
            assert!(is_context_overflow(e), "{e}");
        }
        let no = [
            LlmError::Config(
                "local model: tool x: parameters: a union of types is not supported".into(),
            ),
            status(400, "invalid tool_choice"),
            status(500, "context length exceeded"), // a server fault, retried as one
            status(429, "rate limit"),
            LlmError::Timeout(std::time::Duration::from_secs(1)),
        ];
        for e in &no {
            assert!(!is_context_overflow(e), "{e}");
        }
    }
}
