//! all-MiniLM-L6-v2 sentence embeddings: BERT (candle) over the shipped
//! safetensors, mean pooling over the attention mask, L2 normalisation, as
//! sentence-transformers computes them for this model.
//!
//! Texts are tokenized once, sorted by length and run in batches of
//! similar length; the encoder ([`bert`]) stacks a batch without padding.

mod bert;

use crate::error::ModelError;
use adfarm_llm::{Embedder, Embeddings, LlmError};
use adfarm_proto::{Role, Usage, UsageSource};
use async_trait::async_trait;
use bert::{Bert, Config};
use rayon::prelude::*;
use std::path::Path;
use std::sync::{mpsc, Arc};
use tokenizers::{Tokenizer, TruncationParams};

/// Token limit per text: the model's `max_seq_length` in sentence-transformers
/// (the shipped tokenizer.json says 128, which is not what the model was
/// trained with).
pub const MAX_TOKENS: usize = 256;

/// Texts per forward pass.
pub const BATCH_SIZE: usize = 32;

/// Model name used in usage records.
pub const EMBEDDER_MODEL: &str = "all-MiniLM-L6-v2";

/// Vectors and the exact token count of one embedding call.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedOutput {
    /// One unit-length vector per input, in input order.
    pub vectors: Vec<Vec<f32>>,
    /// Tokens fed to the model, special tokens included.
    pub tokens: u64,
}

struct Core {
    model: Bert,
    tokenizer: Tokenizer,
}

type Job = (
    Vec<String>,
    tokio::sync::oneshot::Sender<Result<EmbedOutput, ModelError>>,
);

/// The local MiniLM embedder. Cloning is cheap and shares the model and its
/// inference thread.
#[derive(Clone)]
pub struct LocalEmbedder {
    core: Arc<Core>,
    jobs: mpsc::Sender<Job>,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder").finish_non_exhaustive()
    }
}

impl LocalEmbedder {
    /// Loads `config.json`, `tokenizer.json` and `model.safetensors` from
    /// `dir` (see [`crate::assets::embedder_dir`]) and starts the inference
    /// thread.
    ///
    /// # Errors
    /// [`ModelError::Io`] for unreadable files, [`ModelError::Format`] for a
    /// bad config, tokenizer or weights file.
    pub fn load(dir: &Path) -> Result<LocalEmbedder, ModelError> {
        let config_path = dir.join("config.json");
        let config_text = std::fs::read_to_string(&config_path).map_err(|e| ModelError::Io {
            path: config_path.clone(),
            source: e,
        })?;
        let config: Config =
            serde_json::from_str(&config_text).map_err(|e| ModelError::format(&config_path, e))?;

        let tok_path = dir.join("tokenizer.json");
        let mut tokenizer =
            Tokenizer::from_file(&tok_path).map_err(|e| ModelError::format(&tok_path, e))?;
        // The encoder stacks texts without padding.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| ModelError::format(&tok_path, e))?;

        let model = Bert::load(config, &dir.join("model.safetensors"))?;
        let core = Arc::new(Core { model, tokenizer });
        let (jobs, rx) = mpsc::channel::<Job>();
        let worker = Arc::clone(&core);
        std::thread::Builder::new()
            .name("adfarm-embedder".into())
            .spawn(move || {
                // Ends when every LocalEmbedder clone (every sender) is dropped.
                for (texts, reply) in rx {
                    let _ = reply.send(worker.embed(&texts));
                }
            })
            .map_err(|e| ModelError::Inference(format!("cannot start thread: {e}")))?;
        Ok(LocalEmbedder { core, jobs })
    }

    /// Embeds on the calling thread (benchmarks, tools). Async callers use
    /// [`Embedder::embed`], which runs on the inference thread.
    ///
    /// # Errors
    /// [`ModelError::Tokenizer`] or [`ModelError::Inference`].
    pub fn embed_blocking(&self, texts: &[String]) -> Result<EmbedOutput, ModelError> {
        self.core.embed(texts)
    }

    /// Embeds on the inference thread; requests from many tasks queue there.
    ///
    /// # Errors
    /// As [`LocalEmbedder::embed_blocking`], or [`ModelError::Stopped`].
    pub async fn embed_async(&self, texts: Vec<String>) -> Result<EmbedOutput, ModelError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.jobs
            .send((texts, tx))
            .map_err(|_| ModelError::Stopped)?;
        rx.await.map_err(|_| ModelError::Stopped)?
    }
}

impl Core {
    fn embed(&self, texts: &[String]) -> Result<EmbedOutput, ModelError> {
        if texts.is_empty() {
            return Ok(EmbedOutput {
                vectors: vec![],
                tokens: 0,
            });
        }
        let inputs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let encodings = self
            .tokenizer
            .encode_batch(inputs, true)
            .map_err(|e| ModelError::Tokenizer(e.to_string()))?;
        let ids: Vec<&[u32]> = encodings.iter().map(|e| e.get_ids()).collect();
        let tokens = ids.iter().map(|i| i.len() as u64).sum();

        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| ids[i].len());
        let chunks: Vec<&[usize]> = order.chunks(BATCH_SIZE).collect();
        // Several batches run side by side, one core each: a batch's small
        // products and its per-text attention do not split well across
        // cores, whole batches do. A lone batch splits its work instead.
        // Either way each vector is computed by the same arithmetic.
        let split = if chunks.len() > 1 {
            Split::Batches
        } else {
            Split::Within
        };
        let run = |chunk: &&[usize]| {
            let batch: Vec<&[u32]> = chunk.iter().map(|&i| ids[i]).collect();
            self.model.embed(&batch, split == Split::Within)
        };
        let outs: Vec<Result<Vec<Vec<f32>>, ModelError>> = match split {
            Split::Batches => chunks.par_iter().map(run).collect(),
            Split::Within => chunks.iter().map(run).collect(),
        };
        let mut vectors = vec![Vec::new(); ids.len()];
        for (chunk, out) in chunks.iter().zip(outs) {
            for (&i, v) in chunk.iter().zip(out?) {
                vectors[i] = v;
            }
        }
        Ok(EmbedOutput { vectors, tokens })
    }
}

/// Where a call's parallelism goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Split {
    /// Batches side by side, each on one thread.
    Batches,
    /// The one batch's products and attention across the cores.
    Within,
}

#[async_trait]
impl Embedder for LocalEmbedder {
    fn model(&self) -> &str {
        EMBEDDER_MODEL
    }

    async fn embed(&self, texts: &[String]) -> Result<Embeddings, LlmError> {
        let out = self.embed_async(texts.to_vec()).await?;
        Ok(Embeddings {
            vectors: out.vectors,
            usage: Usage {
                model: EMBEDDER_MODEL.to_string(),
                role: Role::Embedding,
                input: out.tokens,
                output: 0,
                cached: false,
                // The model itself is the provider and counts what it ran, exactly.
                source: UsageSource::Reported,
                latency_ms: 0,
            },
        })
    }
}
