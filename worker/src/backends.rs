//! The raw model clients of a worker process, one per provider model,
//! built on first use and shared by every job: an OpenAI-compatible HTTP
//! client or an in-process local model, with the process's concurrency cap
//! and governor smoothing.

use crate::openai::{OpenAiClient, Secret};
use adfarm_llm::{Embedder, LlmError, Provider};
use adfarm_proto::{ProviderKind, ProviderSpec};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;

/// Looks up environment variables (API keys) for the worker; injected by
/// the binary so libraries never read the environment themselves.
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Builds in-process models for providers of kind `local`.
pub type LocalLoader = Arc<dyn Fn(&ProviderSpec) -> Result<Models, LlmError> + Send + Sync>;

/// The chat and embedding sides of one model (either may be absent).
#[derive(Clone, Default)]
pub struct Models {
    /// Chat side.
    pub chat: Option<Arc<dyn Provider>>,
    /// Embedding side.
    pub embed: Option<Arc<dyn Embedder>>,
}

/// One provider model in this process.
pub struct Backend {
    /// Its spec (from the first sweep that used it).
    pub spec: ProviderSpec,
    models: Models,
    /// In-flight calls allowed in this process.
    pub permits: Semaphore,
    /// Smooths this process's calls to the configured rate before the
    /// deployment-wide limiter is asked (shared by a limit group).
    pub smoothing: Arc<DefaultDirectRateLimiter>,
}

impl Backend {
    /// The chat side.
    ///
    /// # Errors
    /// When the model cannot chat (an embedding-only model).
    pub fn chat(&self) -> Result<Arc<dyn Provider>, LlmError> {
        self.models
            .chat
            .clone()
            .ok_or_else(|| LlmError::Config(format!("model {} does not chat", self.spec.model)))
    }

    /// The embedding side.
    ///
    /// # Errors
    /// When the model cannot embed.
    pub fn embedder(&self) -> Result<Arc<dyn Embedder>, LlmError> {
        self.models
            .embed
            .clone()
            .ok_or_else(|| LlmError::Config(format!("model {} does not embed", self.spec.model)))
    }
}

/// Backends by provider identity.
pub struct Backends {
    env: EnvLookup,
    local: LocalLoader,
    built: Mutex<HashMap<String, Arc<Backend>>>,
    // By limit key: providers of one limit group smooth together.
    smoothers: Mutex<HashMap<String, Arc<DefaultDirectRateLimiter>>>,
}

impl Backends {
    /// Backends reading API keys through `env` and loading local models with `local`.
    pub fn new(env: EnvLookup, local: LocalLoader) -> Backends {
        Backends {
            env,
            local,
            built: Mutex::new(HashMap::new()),
            smoothers: Mutex::new(HashMap::new()),
        }
    }

    /// The backend for `spec`, built on first use.
    ///
    /// # Errors
    /// Missing API key, bad base URL, unloadable local model.
    pub fn get(&self, spec: &ProviderSpec) -> Result<Arc<Backend>, LlmError> {
        let key = format!(
            "{:?}|{:?}|{}|{}",
            spec.kind, spec.base_url, spec.model, spec.name
        );
        if let Some(b) = self
            .built
            .lock()
            .expect("backends lock is never poisoned")
            .get(&key)
        {
            return Ok(b.clone());
        }
        let models = match spec.kind {
            ProviderKind::OpenaiCompatible => {
                let api_key = match &spec.api_key_env {
                    Some(var) => Some(Secret::new((self.env)(var).ok_or_else(|| {
                        LlmError::Config(format!("environment variable {var} is not set"))
                    })?)),
                    None => None,
                };
                let base = spec
                    .base_url
                    .as_deref()
                    .ok_or_else(|| LlmError::Config("base_url is missing".into()))?;
                let client = Arc::new(OpenAiClient::new(
                    base,
                    &spec.model,
                    api_key,
                    Duration::from_secs_f64(spec.timeout_secs),
                )?);
                Models {
                    chat: Some(client.clone()),
                    embed: Some(client),
                }
            }
            ProviderKind::Local => (self.local)(spec)?,
        };
        let smoothing = self
            .smoothers
            .lock()
            .expect("backends lock is never poisoned")
            .entry(spec.limit_key())
            .or_insert_with(|| {
                let period = Duration::from_secs_f64(60.0 / spec.requests_per_minute);
                let quota = Quota::with_period(period)
                    .unwrap_or_else(|| Quota::per_second(NonZeroU32::MAX))
                    .allow_burst(NonZeroU32::MIN);
                Arc::new(RateLimiter::direct(quota))
            })
            .clone();
        let backend = Arc::new(Backend {
            spec: spec.clone(),
            models,
            permits: Semaphore::new(spec.max_concurrency as usize),
            smoothing,
        });
        let mut built = self.built.lock().expect("backends lock is never poisoned");
        Ok(built.entry(key).or_insert(backend).clone())
    }
}
