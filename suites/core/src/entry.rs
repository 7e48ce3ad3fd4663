//! A sweep's solution entry built in code (tests, commands), with what a
//! sweep file leaves unset left unset.

use adfarm_proto::SolutionSpec;

/// The solution entry `name` on `provider` with `params`, at most
/// `max_tokens` output tokens per call, greedy (temperature 0), for every
/// suite offering `name`, with no label and the sweep's embedder.
pub fn solution_entry(
    name: &str,
    provider: &str,
    max_tokens: u32,
    params: serde_json::Value,
) -> SolutionSpec {
    SolutionSpec {
        name: name.into(),
        suite: None,
        provider: provider.into(),
        max_tokens,
        temperature: 0.0,
        params,
        label: None,
        embedder: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_as_the_same_sweep_file_entry() {
        let e = solution_entry("gi-r", "fake", 64, serde_json::json!({"top": 3}));
        let from_file: SolutionSpec = serde_json::from_value(serde_json::json!({
            "name": "gi-r",
            "provider": "fake",
            "max_tokens": 64,
            "params": {"top": 3},
        }))
        .expect("an entry");
        assert_eq!(e, from_file);
        assert_eq!(e.label(), "gi-r");
    }
}
