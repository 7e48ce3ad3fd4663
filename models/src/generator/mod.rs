//! SmolLM2-135M-Instruct on CPU: chat completion, tool calls and
//! closed-choice scoring.
//!
//! One model per [`LocalLlm::load`]; the model lives on a dedicated
//! inference thread ([`engine`]) that batches concurrent requests, so clones
//! of a [`LocalLlm`] share one copy of the weights and the async runtime
//! never runs a forward pass. `prompt` renders conversations (tool calls
//! and results included); `tools` makes a reply that offers tools a call
//! valid against its schema.

// AMX tile products for prompt chunks (detected and granted at run time).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[allow(unsafe_code)]
mod amx;
// SIMD attention kernels (AVX2, detected at run time).
#[allow(unsafe_code)]
mod attend;
mod engine;
mod gguf;
mod kv;
mod model;
mod prefix;
mod prompt;
// SIMD int8 dot products (AVX2 or AVX-VNNI, detected at run time).
#[allow(unsafe_code)]
mod q4;
#[allow(unsafe_code)]
mod q8;
mod sampling;
// SiLU eight at a time (AVX2, detected at run time).
#[allow(unsafe_code)]
mod silu;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod simd;
mod tokenizer;
mod tools;
mod weights;

pub use prompt::{chat_prompt, DEFAULT_SYSTEM};
pub use weights::{product_rates, ProductRate};

use crate::error::ModelError;
use adfarm_llm::{ChatRequest, Choice, Completion, LlmError, Provider, ToolCall};
use adfarm_proto::{Role, Usage, UsageSource};
use async_trait::async_trait;
use engine::{ChatJob, ChooseJob, Engine, Job, KvMeter};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;
use tokenizer::ChatTokenizer;
use tokio::sync::oneshot;
use tools::CallPlan;

/// Model name used in usage records.
pub const GENERATOR_MODEL: &str = "SmolLM2-135M-Instruct";

/// Sequences decoded together in one forward pass.
pub const MAX_BATCH: usize = engine::MAX_ACTIVE;

/// Memory for keys and values (the prefix cache and every active
/// sequence's room) unless the loader says otherwise: sized for a 16 GB
/// laptop, beside about 430 MiB of weights and the rest of the process
/// (the agent bench, 16 conversations with a raised prefix cache, peaked at
/// 2.3 GiB resident under it).
pub const DEFAULT_KV_MEMORY_BYTES: usize = 2 << 30;

/// Keys and values held against their budget, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KvMemory {
    /// The budget.
    pub budget: u64,
    /// Reserved by the sequences being run plus the prefix cache, now.
    pub in_use: u64,
    /// The most `in_use` has been since the model was loaded.
    pub peak: u64,
    /// What one token's keys and values take.
    pub per_token: u64,
}

/// Why generation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// End-of-turn token or a stop string.
    Stop,
    /// `max_tokens` or the model context was reached.
    Length,
}

/// A generated reply with exact token counts and timings.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    /// Reply text (stop strings and the end-of-turn token removed; empty
    /// when the reply is a tool call).
    pub text: String,
    /// The reply's tool call, when the request offered tools and the model
    /// called one: a tool of the request, with arguments valid against its
    /// schema.
    pub tool_call: Option<ToolCall>,
    /// Prompt tokens (chat template and rendered tools included).
    pub input_tokens: u64,
    /// Of those, tokens whose keys and values came from an earlier prompt
    /// with the same beginning (not computed again).
    pub reused_tokens: u64,
    /// Tokens of the reply: sampled ones, a call's forced ones, and the
    /// end-of-turn token when it ended the reply.
    pub output_tokens: u64,
    /// Why it stopped.
    pub finish: Finish,
    /// From the first prompt chunk to the first sampled token.
    pub prefill_time: Duration,
    /// From the first to the last sampled token.
    pub decode_time: Duration,
}

/// Options ranked by log-likelihood.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking {
    /// Index of the most likely option (the first on ties).
    pub index: usize,
    /// Total natural-log likelihood of each option's tokens plus the
    /// end-of-turn token, after the prompt.
    pub log_likelihoods: Vec<f64>,
    /// Tokens fed to the model: prompt plus every option's scored tokens.
    pub input_tokens: u64,
    /// Prompt tokens that came from an earlier prompt's cache.
    pub reused_tokens: u64,
}

/// Generation knobs outside [`ChatRequest`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GenOptions {
    /// Never stop at the end-of-turn token (benchmarks that need a fixed
    /// number of output tokens).
    pub ignore_eos: bool,
}

struct Shared {
    jobs: mpsc::Sender<Job>,
    tok: Arc<ChatTokenizer>,
    /// Tokens the inference thread's prefix cache may hold.
    prefix_budget: Arc<AtomicUsize>,
    /// Keys and values held against the memory budget, in positions.
    meter: Arc<KvMeter>,
    /// Bytes of one position's keys and values.
    per_token: usize,
}

/// The local SmolLM2 generator and judge. Cloning is cheap and shares the
/// model and its inference thread.
#[derive(Clone)]
pub struct LocalLlm {
    shared: Arc<Shared>,
    role: Role,
}

impl std::fmt::Debug for LocalLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalLlm")
            .field("role", &self.role)
            .finish_non_exhaustive()
    }
}

impl LocalLlm {
    /// [`LocalLlm::load_within`] the [`DEFAULT_KV_MEMORY_BYTES`].
    ///
    /// # Errors
    /// As [`LocalLlm::load_within`].
    pub fn load(gguf: &Path) -> Result<LocalLlm, ModelError> {
        LocalLlm::load_within(gguf, DEFAULT_KV_MEMORY_BYTES)
    }

    /// Loads the GGUF at `gguf` (see [`crate::assets::generator_gguf`]),
    /// keeping its Q4_1 matrices as they are (any other type re-quantised
    /// to 8-bit blocks), builds the tokenizer from its metadata and
    /// starts the inference thread, whose keys and values (prefix cache and
    /// running sequences together) stay within `kv_memory` bytes: a request
    /// waits for room, and one that needs more than all of it fails. Usage
    /// records say [`Role::Generation`] until [`LocalLlm::with_role`].
    ///
    /// # Errors
    /// [`ModelError::Io`] when the file cannot be read, [`ModelError::Format`]
    /// when it is not a llama GGUF with a byte-level BPE tokenizer.
    pub fn load_within(gguf: &Path, kv_memory: usize) -> Result<LocalLlm, ModelError> {
        let file = gguf::Gguf::open(gguf)?;
        let tok = Arc::new(ChatTokenizer::from_gguf(&file, gguf)?);
        let model = model::Llama::load(&file, gguf)?;
        let (jobs, rx) = mpsc::channel();
        let prefix_budget = Arc::new(AtomicUsize::new(engine::PREFIX_CACHE_TOKENS));
        let per_token = model.kv_bytes_per_position();
        let meter = Arc::new(KvMeter::default());
        meter.budget.store(kv_memory / per_token, Ordering::Relaxed);
        let engine = Engine::new(
            model,
            Arc::clone(&tok),
            Arc::clone(&prefix_budget),
            Arc::clone(&meter),
        );
        std::thread::Builder::new()
            .name("adfarm-llm".into())
            .spawn(move || engine.run(rx))
            .map_err(|e| ModelError::Inference(format!("cannot start thread: {e}")))?;
        Ok(LocalLlm {
            shared: Arc::new(Shared {
                jobs,
                tok,
                prefix_budget,
                meter,
                per_token,
            }),
            role: Role::Generation,
        })
    }

    /// The same model, recording usage under `role` (judge or generation).
    pub fn with_role(&self, role: Role) -> LocalLlm {
        LocalLlm {
            shared: Arc::clone(&self.shared),
            role,
        }
    }

    /// Lets the prefix cache hold at least `tokens` prompt tokens (it never
    /// shrinks): agent episodes want one conversation per request in
    /// flight, so each turn is prefilled only from where the last left off.
    pub fn reserve_prefix_cache(&self, tokens: usize) {
        self.shared
            .prefix_budget
            .fetch_max(tokens, Ordering::Relaxed);
    }

    /// Keys and values held against the memory budget.
    pub fn kv_memory(&self) -> KvMemory {
        let m = &self.shared.meter;
        let bytes = |a: &AtomicUsize| (a.load(Ordering::Relaxed) * self.shared.per_token) as u64;
        KvMemory {
            budget: bytes(&m.budget),
            in_use: bytes(&m.in_use),
            peak: bytes(&m.peak),
            per_token: self.shared.per_token as u64,
        }
    }

    /// Token ids of `text` under the model's tokenizer (special tokens such
    /// as `<|im_start|>` recognised).
    ///
    /// # Errors
    /// [`ModelError::Tokenizer`].
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, ModelError> {
        self.shared.tok.encode(text)
    }

    /// Text of `ids`, special tokens included.
    ///
    /// # Errors
    /// [`ModelError::Tokenizer`].
    pub fn decode(&self, ids: &[u32]) -> Result<String, ModelError> {
        self.shared.tok.decode(ids)
    }

    /// Generates a reply to `req` (ChatML template, sampling, stop
    /// strings). When `req` offers tools and `tool_choice` is not `None`,
    /// the reply is a tool call written under the tool's schema: always
    /// under `Required` or `Tool(name)`, when the model prefers a call to
    /// text under `Auto`. Stop strings do not cut a call.
    ///
    /// # Errors
    /// [`ModelError::Tool`] when the tools cannot be honoured;
    /// [`ModelError::Inference`] when the prompt does not fit the context or
    /// a forward pass fails; [`ModelError::Stopped`] when the thread is gone.
    pub async fn generate(
        &self,
        req: &ChatRequest,
        opts: GenOptions,
    ) -> Result<Generation, ModelError> {
        let (prompt, call) = prepare(req)?;
        self.submit(|reply| {
            Job::Chat(ChatJob {
                prompt,
                max_tokens: req.max_tokens,
                temperature: req.temperature,
                top_p: req.top_p.unwrap_or(1.0),
                seed: req.seed,
                stop: req.stop.clone(),
                ignore_eos: opts.ignore_eos,
                call,
                reply,
            })
        })
        .await
    }

    /// Ranks `options` as the assistant's reply to `req` by total
    /// log-likelihood; the answer is always a valid index.
    ///
    /// # Errors
    /// As [`LocalLlm::generate`]; also when `options` is empty.
    pub async fn rank(&self, req: &ChatRequest, options: &[String]) -> Result<Ranking, ModelError> {
        self.submit(|reply| {
            Job::Choose(ChooseJob {
                prompt: chat_prompt(&req.messages),
                options: options.to_vec(),
                reply,
            })
        })
        .await
    }

    /// Sends the job `job` builds around its reply channel to the inference
    /// thread and waits for the answer.
    async fn submit<T>(
        &self,
        job: impl FnOnce(oneshot::Sender<Result<T, ModelError>>) -> Job,
    ) -> Result<T, ModelError> {
        let (reply, rx) = oneshot::channel();
        self.shared
            .jobs
            .send(job(reply))
            .map_err(|_| ModelError::Stopped)?;
        rx.await.map_err(|_| ModelError::Stopped)?
    }

    fn usage(&self, input: u64, output: u64) -> Usage {
        Usage {
            model: GENERATOR_MODEL.to_string(),
            role: self.role,
            input,
            output,
            cached: false,
            // The model itself is the provider and counts what it ran, exactly.
            source: UsageSource::Reported,
            latency_ms: 0,
        }
    }
}

/// The prompt the model sees for `req`: [`chat_prompt`] with the tools in
/// the system turn when `req` offers them and `tool_choice` is not `None`.
///
/// # Errors
/// [`ModelError::Tool`] when the tools cannot be honoured.
pub fn request_prompt(req: &ChatRequest) -> Result<String, ModelError> {
    prepare(req).map(|(prompt, _)| prompt)
}

fn prepare(req: &ChatRequest) -> Result<(String, Option<CallPlan>), ModelError> {
    let call = CallPlan::for_request(req)?;
    let tools = call.as_ref().map_or(&[][..], |c| &c.tools[..]);
    Ok((prompt::render(&req.messages, tools), call))
}

#[async_trait]
impl Provider for LocalLlm {
    fn model(&self) -> &str {
        GENERATOR_MODEL
    }

    async fn chat(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let g = self.generate(req, GenOptions::default()).await?;
        Ok(Completion {
            text: g.text,
            tool_calls: g.tool_call.into_iter().collect(),
            usage: self.usage(g.input_tokens, g.output_tokens),
        })
    }

    async fn choose(&self, req: &ChatRequest, options: &[String]) -> Result<Choice, LlmError> {
        if options.is_empty() {
            return Ok(Choice {
                index: None,
                completion: Completion {
                    text: String::new(),
                    tool_calls: vec![],
                    usage: self.usage(0, 0),
                },
            });
        }
        let r = self.rank(req, options).await?;
        Ok(Choice {
            index: Some(r.index),
            completion: Completion {
                text: options[r.index].clone(),
                tool_calls: vec![],
                // Every scored token is fed to the model; nothing is sampled.
                usage: self.usage(r.input_tokens, 0),
            },
        })
    }
}
