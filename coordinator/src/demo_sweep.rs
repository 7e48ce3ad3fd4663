//! The small sweep the coordinator's own tests parse, plan, submit and
//! report on.

/// A sweep of `items` items of the synthetic suite with one solution,
/// `answer`, on one provider, `fake` (an OpenAI-compatible endpoint nothing
/// listens at). `top` holds the top-level keys, `name` among them;
/// `provider` holds extra lines of the provider's table, which comes last.
pub(crate) fn demo_sweep(top: &str, items: u32, provider: &str) -> String {
    format!(
        r#"
{top}

[[suites]]
name = "synthetic"
datasets = ["default"]
params = {{ items = {items} }}

[[solutions]]
name = "answer"
provider = "fake"
max_tokens = 32

[[providers]]
name = "fake"
kind = "openai-compatible"
base_url = "http://127.0.0.1:9/v1"
model = "fake-1"
requests_per_minute = 600
{provider}"#
    )
}
