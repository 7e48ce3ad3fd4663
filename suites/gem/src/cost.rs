//! Cost as the paper measures it (Table 6): ITTFT and OTTFT, the input and
//! output tokens of every model call made before the response is shown
//! (system prompts included), and Overall = ratio·ITTFT + OTTFT with the
//! sweep's `cost_input_ratio` as ratio (0.5 by default). Calls served from
//! the AdFarm cache still count: they are the solution's cost, the cache
//! only saves the farm money.

use serde::{Deserialize, Serialize};

/// Default weight of input tokens in [`overall`].
pub const DEFAULT_INPUT_RATIO: f64 = 0.5;

/// One model call of a solution, as recorded in `Output.meta.calls`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallRecord {
    /// What the call was for (`answer`, `topic`, `rewrite`, ...).
    pub step: String,
    /// Model name.
    pub model: String,
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens.
    pub output: u64,
    /// Served from the AdFarm cache.
    pub cached: bool,
    /// Wall time of the provider call (the original call's, when cached).
    #[serde(default)]
    pub latency_ms: u64,
}

/// Input tokens to first token: all calls' prompt tokens.
pub fn ittft(calls: &[CallRecord]) -> u64 {
    calls.iter().map(|c| c.input).sum()
}

/// Output tokens to first token: all calls' completion tokens.
pub fn ottft(calls: &[CallRecord]) -> u64 {
    calls.iter().map(|c| c.output).sum()
}

/// Time to the response: the calls run one after another, so their
/// latencies add up (the original call's time for cached calls).
pub fn latency_ms(calls: &[CallRecord]) -> u64 {
    calls.iter().map(|c| c.latency_ms).sum()
}

/// Overall cost in tokens: `input_ratio`·ITTFT + OTTFT.
pub fn overall(ittft: u64, ottft: u64, input_ratio: f64) -> f64 {
    input_ratio * ittft as f64 + ottft as f64
}

/// The calls recorded in an output's meta (`meta.calls`); empty when absent.
pub fn calls_from_meta(meta: &serde_json::Value) -> Vec<CallRecord> {
    meta.get("calls")
        .and_then(|c| serde_json::from_value(c.clone()).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(step: &str, input: u64, output: u64, cached: bool) -> CallRecord {
        CallRecord {
            step: step.into(),
            model: "m".into(),
            input,
            output,
            cached,
            latency_ms: 10 * input,
        }
    }

    #[test]
    fn overall_is_half_input_plus_output_and_counts_cached_calls() {
        let calls = [
            call("answer", 100, 40, true),
            call("rewrite", 300, 60, false),
        ];
        assert_eq!(ittft(&calls), 400);
        assert_eq!(ottft(&calls), 100);
        assert_eq!(overall(400, 100, DEFAULT_INPUT_RATIO), 300.0);
        assert_eq!(overall(400, 100, 0.25), 200.0);
        assert_eq!(latency_ms(&calls), 4000, "cached calls keep their time");
    }

    #[test]
    fn calls_round_trip_through_meta() {
        let calls = vec![call("answer", 1, 2, false)];
        let meta = serde_json::json!({ "calls": calls });
        assert_eq!(calls_from_meta(&meta), calls);
        assert!(calls_from_meta(&serde_json::Value::Null).is_empty());
    }
}
