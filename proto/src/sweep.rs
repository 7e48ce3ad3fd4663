//! The sweep spec: what to evaluate (suites × solutions × judges × seeds),
//! with which providers, under which budget. The TOML reader lives in the
//! coordinator; this is the validated result every process shares.

use serde::{Deserialize, Serialize};

/// A whole sweep, as validated from a sweep file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Human name; the sweep id is a hash of the whole spec.
    pub name: String,
    /// Benchmark suites with the datasets to draw items from.
    pub suites: Vec<SuiteSpec>,
    /// Solutions (generators) under test.
    pub solutions: Vec<SolutionSpec>,
    /// Provider models that generations and judges call.
    pub providers: Vec<ProviderSpec>,
    /// Judges: names of providers that score generated outputs.
    #[serde(default)]
    pub judges: Vec<String>,
    /// Provider whose model embeds texts (retrieval, embedding metrics).
    #[serde(default)]
    pub embedder: Option<String>,
    /// Seeds; each item × solution runs once per seed.
    #[serde(default = "default_seeds")]
    pub seeds: Vec<u64>,
    /// Stop new spending once this many USD are spent.
    #[serde(default)]
    pub budget_usd: Option<f64>,
}

fn default_seeds() -> Vec<u64> {
    vec![0]
}

/// One suite and the datasets to draw from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteSpec {
    /// Suite name as the registry knows it, e.g. `synthetic`.
    pub name: String,
    /// Dataset names within the suite.
    pub datasets: Vec<String>,
    /// Use at most this many items per dataset.
    #[serde(default)]
    pub limit: Option<u64>,
    /// How to choose `limit` items: the first ones, or a seeded sample.
    #[serde(default)]
    pub sample: Sampling,
    /// Suite-specific parameters (e.g. `items` for `synthetic`).
    #[serde(default = "empty_table")]
    pub params: serde_json::Value,
}

/// How items are chosen when a dataset is limited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Sampling {
    /// The first `limit` items in dataset order.
    #[default]
    First,
    /// A seeded uniform sample of `limit` items, kept in dataset order.
    Random {
        /// Sampling seed.
        seed: u64,
    },
}

/// A solution under test and the provider it generates with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolutionSpec {
    /// Solution name, e.g. `ad-chat`, `gi-r`, `echo`.
    pub name: String,
    /// The suite that runs it; unset: every suite of the sweep offering a
    /// solution of this name runs its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    /// Provider name used for generation.
    pub provider: String,
    /// Maximum output tokens per generation call.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// Sampling temperature (0 = greedy).
    #[serde(default)]
    pub temperature: f32,
    /// Solution-specific parameters.
    #[serde(default = "empty_table")]
    pub params: serde_json::Value,
    /// Name of this entry in cells and tables; unset: `name`. Two entries
    /// of one solution (a parameter ablation) need distinct labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Provider whose model this solution embeds with (for an ad-retrieval
    /// step, say); unset: the sweep's `embedder`. Scoring stages keep the
    /// sweep's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedder: Option<String>,
}

impl SolutionSpec {
    /// The entry's name in cells and tables: its `label`, else its `name`.
    pub fn label(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.name)
    }

    /// The provider this solution embeds with: its own, else the sweep's.
    pub fn embedder<'a>(&'a self, sweep: &'a SweepSpec) -> Option<&'a str> {
        self.embedder.as_deref().or(sweep.embedder.as_deref())
    }
}

fn default_max_tokens() -> u32 {
    256
}

fn empty_table() -> serde_json::Value {
    serde_json::Value::Object(Default::default())
}

/// Where a provider's model runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// Any server speaking the OpenAI chat-completions/embeddings API.
    OpenaiCompatible,
    /// A model run in-process (the models crate).
    Local,
}

/// One provider model with its limits and prices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSpec {
    /// Name that solutions and judges refer to.
    pub name: String,
    /// HTTP or in-process.
    pub kind: ProviderKind,
    /// Base URL ending before `/chat/completions` (HTTP providers).
    #[serde(default)]
    pub base_url: Option<String>,
    /// Model name sent to the provider (and used in metrics and reports).
    pub model: String,
    /// Name of the environment variable holding the API key; never the key.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Requests per minute for the whole deployment.
    pub requests_per_minute: f64,
    /// Tokens (input + output) per minute for the whole deployment.
    #[serde(default)]
    pub tokens_per_minute: Option<f64>,
    /// In-flight requests per worker process.
    #[serde(default = "default_concurrency")]
    pub max_concurrency: u32,
    /// Per-request timeout in seconds.
    #[serde(default = "default_timeout")]
    pub timeout_secs: f64,
    /// Transport attempts per call before the job is retried via the queue.
    #[serde(default = "default_attempts")]
    pub max_attempts: u32,
    /// USD per million input tokens; unset is priced 0, but a suite may
    /// require it stated (`0` for a free model), so the two are kept apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_usd_per_mtok: Option<f64>,
    /// USD per million output tokens; unset as for input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_usd_per_mtok: Option<f64>,
    /// A rate limit shared with other providers (a self-hosted server with
    /// one limit for all its models, an account-wide cap): every provider
    /// naming the group draws on one `requests_per_minute` (and
    /// `tokens_per_minute`), which they must all state alike. Without it,
    /// each model has its own limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_group: Option<String>,
    /// Local models only: prompt tokens whose keys and values the model
    /// keeps for reuse (16,384 when unset; about 46 KiB each for
    /// SmolLM2-135M). Agent sweeps want room for one conversation per
    /// request in flight: each turn's prompt extends the last, and a kept
    /// prompt is prefilled only from where it left off. Providers sharing a
    /// model share its cache, sized by the largest of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_cache_tokens: Option<u32>,
}

fn default_concurrency() -> u32 {
    8
}
fn default_timeout() -> f64 {
    60.0
}
fn default_attempts() -> u32 {
    6
}

impl ProviderSpec {
    /// The name of the rate limit this provider draws on: its model's, or
    /// its limit group's (prefixed, so a group never shares a model's).
    pub fn limit_key(&self) -> String {
        match &self.limit_group {
            Some(group) => format!("group:{group}"),
            None => self.model.clone(),
        }
    }

    /// Cost in USD of `input` and `output` tokens at this provider's prices
    /// (an unset price counts 0).
    pub fn cost_usd(&self, input: u64, output: u64) -> f64 {
        let (i, o) = (
            self.input_usd_per_mtok.unwrap_or(0.0),
            self.output_usd_per_mtok.unwrap_or(0.0),
        );
        (input as f64 * i + output as f64 * o) / 1e6
    }

    /// The price fields this provider leaves unset.
    pub fn unpriced(&self) -> Vec<&'static str> {
        let mut out = vec![];
        if self.input_usd_per_mtok.is_none() {
            out.push("input_usd_per_mtok");
        }
        if self.output_usd_per_mtok.is_none() {
            out.push("output_usd_per_mtok");
        }
        out
    }
}

impl SweepSpec {
    /// The provider named `name`, if configured.
    pub fn provider(&self, name: &str) -> Option<&ProviderSpec> {
        self.providers.iter().find(|p| p.name == name)
    }

    /// Provider by model name (usage is keyed by model).
    pub fn provider_for_model(&self, model: &str) -> Option<&ProviderSpec> {
        self.providers.iter().find(|p| p.model == model)
    }

    /// Content-hash id: equal specs are the same sweep, so a re-run resumes.
    /// The budget is left out so raising it continues a stopped sweep.
    pub fn id(&self) -> crate::SweepId {
        let unbudgeted = SweepSpec {
            budget_usd: None,
            ..self.clone()
        };
        let bytes = serde_json::to_vec(&unbudgeted).expect("sweep spec serialises");
        crate::SweepId(crate::content_hash(&[b"sweep", &bytes])[..16].to_string())
    }
}
