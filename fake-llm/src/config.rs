//! What the fake server does: its seed, latency, limits, fault rates and
//! tool-call behaviour.

use serde::{Deserialize, Serialize};

/// Configuration of the fake OpenAI-compatible server.
///
/// Plain data: deserialize it from a file, build it in a test with struct
/// update syntax over [`FakeLlmConfig::default`], or flatten it into a clap
/// command (`#[command(flatten)]`). Probabilities are per request attempt and
/// are decided deterministically from the seed, the request body and how many
/// times that body was seen before (see the crate docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default, deny_unknown_fields)]
pub struct FakeLlmConfig {
    /// Seed of every answer and every fault decision.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Fixed latency added to every answer that passed the rate limiter, in milliseconds.
    #[arg(long, default_value_t = 0)]
    pub latency_ms: u64,
    /// Extra latency of up to this many milliseconds, chosen per attempt.
    #[arg(long, default_value_t = 0)]
    pub latency_jitter_ms: u64,
    /// Requests per minute before the server answers 429 (no limit when unset).
    #[arg(long)]
    pub rpm: Option<u32>,
    /// Tokens (prompt + completion) per minute before the server answers 429.
    #[arg(long)]
    pub tpm: Option<u64>,
    /// Probability of an injected HTTP 500.
    #[arg(long, default_value_t = 0.0)]
    pub p_500: f64,
    /// Probability of an injected HTTP 429 with a `Retry-After` header.
    #[arg(long, default_value_t = 0.0)]
    pub p_429: f64,
    /// Probability of an injected HTTP 429 without `Retry-After`.
    #[arg(long, default_value_t = 0.0)]
    pub p_429_no_retry_after: f64,
    /// Probability that the request is held for two minutes (or until the
    /// client goes away), longer than any sensible client timeout.
    #[arg(long, default_value_t = 0.0)]
    pub p_timeout: f64,
    /// Probability of an HTTP 200 whose body is not valid JSON.
    #[arg(long, default_value_t = 0.0)]
    pub p_malformed: f64,
    /// `Retry-After` seconds sent with injected 429s.
    #[arg(long, default_value_t = 1)]
    pub injected_retry_after_s: u64,
    /// When set, requests must carry `Authorization: Bearer <key>`; others get 401.
    #[arg(long)]
    pub api_key: Option<String>,
    /// Act like a server without constrained decoding: ignore `guided_choice`
    /// and `response_format` and answer free text.
    #[arg(long, default_value_t = false)]
    pub ignore_guided: bool,
    /// Act like OpenAI, which rejects the vLLM-only `guided_choice` parameter
    /// with 400 (`response_format` is still honoured).
    #[arg(long, default_value_t = false)]
    pub reject_guided_choice: bool,
    /// Tool results a conversation must hold before a request with tools
    /// and `tool_choice` `auto` (or none) is answered with text instead of
    /// a tool call; 0 answers such requests with text at once.
    #[arg(long, default_value_t = 1)]
    pub tool_results_before_text: u32,
    /// Probability that a tool-call answer is unusable: arguments that are
    /// not JSON, or a tool the request did not offer. Drawn per request body,
    /// not per attempt: a model's mistake repeats on a retry of the same
    /// body, and a re-ask (a new body) draws afresh.
    #[arg(long, default_value_t = 0.0)]
    pub p_bad_tool_call: f64,
    /// Calls to make instead of drawn ones, to drive a tool-using client
    /// through chosen calls: a request with tools whose conversation holds
    /// `k` tool results is answered with `tool_script[k]` when it offers
    /// that tool and its `tool_choice` allows a call; past the script, or
    /// for a tool not offered, the fake answers as without one. Set from a
    /// file or in a test (it has no flag).
    #[arg(skip)]
    pub tool_script: Vec<ScriptedCall>,
}

/// One call of [`FakeLlmConfig::tool_script`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    /// The tool called.
    pub name: String,
    /// Its arguments, sent as their JSON text.
    pub arguments: serde_json::Value,
}

impl Default for FakeLlmConfig {
    fn default() -> Self {
        FakeLlmConfig {
            seed: 0,
            latency_ms: 0,
            latency_jitter_ms: 0,
            rpm: None,
            tpm: None,
            p_500: 0.0,
            p_429: 0.0,
            p_429_no_retry_after: 0.0,
            p_timeout: 0.0,
            p_malformed: 0.0,
            injected_retry_after_s: 1,
            api_key: None,
            ignore_guided: false,
            reject_guided_choice: false,
            tool_results_before_text: 1,
            p_bad_tool_call: 0.0,
            tool_script: Vec::new(),
        }
    }
}

/// A configuration the server cannot run with.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// A probability outside `[0, 1]` (or NaN).
    #[error("{field} must be a probability in [0, 1], got {value}")]
    Probability {
        /// The field.
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// The fault probabilities add up to more than one.
    #[error("fault probabilities add up to {0}, more than 1")]
    FaultSum(f64),
    /// A limit of zero would refuse every request forever.
    #[error("{0} must be at least 1 when set")]
    ZeroLimit(&'static str),
}

impl ConfigError {
    /// Bounded code for labels.
    pub fn code(&self) -> &'static str {
        match self {
            ConfigError::Probability { .. } => "probability",
            ConfigError::FaultSum(_) => "fault-sum",
            ConfigError::ZeroLimit(_) => "zero-limit",
        }
    }
}

impl FakeLlmConfig {
    /// The fault probabilities in the order they are drawn.
    pub(crate) fn faults(&self) -> [(&'static str, f64); 5] {
        [
            ("p_500", self.p_500),
            ("p_429", self.p_429),
            ("p_429_no_retry_after", self.p_429_no_retry_after),
            ("p_timeout", self.p_timeout),
            ("p_malformed", self.p_malformed),
        ]
    }

    /// Checks the whole configuration.
    ///
    /// # Errors
    /// A probability outside `[0, 1]`, probabilities summing past 1, or a
    /// limit of zero.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let mut sum = 0.0;
        for (field, value) in self.faults() {
            if !(0.0..=1.0).contains(&value) {
                return Err(ConfigError::Probability { field, value });
            }
            sum += value;
        }
        // A little slack: 0.1 + 0.2 + 0.7 is not exactly 1 in floating point.
        if sum > 1.0 + 1e-9 {
            return Err(ConfigError::FaultSum(sum));
        }
        // Not a transport fault, so not part of the sum: it spoils answers.
        if !(0.0..=1.0).contains(&self.p_bad_tool_call) {
            return Err(ConfigError::Probability {
                field: "p_bad_tool_call",
                value: self.p_bad_tool_call,
            });
        }
        if self.rpm == Some(0) {
            return Err(ConfigError::ZeroLimit("rpm"));
        }
        if self.tpm == Some(0) {
            return Err(ConfigError::ZeroLimit("tpm"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_and_fault_free() {
        let cfg = FakeLlmConfig::default();
        assert_eq!(cfg.validate(), Ok(()));
        assert!(cfg.faults().iter().all(|(_, p)| *p == 0.0));
    }

    #[test]
    fn rejects_bad_probabilities_and_limits() {
        let bad = FakeLlmConfig {
            p_500: 1.5,
            ..FakeLlmConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().code(), "probability");
        let sum = FakeLlmConfig {
            p_500: 0.6,
            p_malformed: 0.6,
            ..FakeLlmConfig::default()
        };
        assert_eq!(sum.validate().unwrap_err().code(), "fault-sum");
        let spoiled = FakeLlmConfig {
            p_bad_tool_call: f64::NAN,
            ..FakeLlmConfig::default()
        };
        assert_eq!(spoiled.validate().unwrap_err().code(), "probability");
        let zero = FakeLlmConfig {
            rpm: Some(0),
            ..FakeLlmConfig::default()
        };
        assert_eq!(zero.validate().unwrap_err().code(), "zero-limit");
    }

    #[test]
    fn parses_as_clap_args() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            fake: FakeLlmConfig,
        }
        let cli = Cli::parse_from(["x", "--seed", "7", "--rpm", "60", "--p-500", "0.1"]);
        assert_eq!(cli.fake.seed, 7);
        assert_eq!(cli.fake.rpm, Some(60));
        assert_eq!(cli.fake.p_500, 0.1);
        assert_eq!(cli.fake.injected_retry_after_s, 1);
    }
}
