//! all-MiniLM-L6-v2 sentence embeddings: BERT (candle) over the shipped
//! safetensors, mean pooling over the attention mask, L2 normalisation, as
//! sentence-transformers computes them for this model.
//!
//! Texts are tokenized once, sorted by length and run in batches of
//! similar length; the encoder ([`bert`]) stacks a batch without padding.
//! Calls that queue while the model is busy are embedded together, their
//! batches spread over the cores.

mod bert;
#[allow(unsafe_code)]
mod gelu;

use crate::error::ModelError;
use adfarm_llm::{Embedder, Embeddings, LlmError};
use adfarm_proto::{Role, Usage, UsageSource};
use async_trait::async_trait;
use bert::{Bert, Config};
use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

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
                while let Ok(first) = rx.recv() {
                    // Calls that queued while the last ones ran are embedded
                    // together, so that their batches share the cores.
                    let (texts, replies): (Vec<_>, Vec<_>) =
                        std::iter::once(first).chain(rx.try_iter()).unzip();
                    let calls: Vec<&[String]> = texts.iter().map(Vec::as_slice).collect();
                    for (reply, out) in replies.into_iter().zip(worker.embed(&calls)) {
                        let _ = reply.send(out);
                    }
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
        let [out] = <[_; 1]>::try_from(self.core.embed(&[texts])).expect("one call, one output");
        out
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
    /// Each call's vectors: its texts tokenized, sorted by length and cut
    /// into batches of [`BATCH_SIZE`]; then every call's batches, longest
    /// first, each core taking the next one as it comes free. Batches of
    /// a few calls balance the cores where one call's few batches cannot
    /// (its longest would run on one core while the other idles). A
    /// batch's vectors do not depend on which call or core runs it.
    fn embed(&self, calls: &[&[String]]) -> Vec<Result<EmbedOutput, ModelError>> {
        let tokenized: Vec<Result<Vec<Encoding>, String>> = calls
            .iter()
            .map(|texts| {
                if texts.is_empty() {
                    return Ok(Vec::new());
                }
                let inputs: Vec<&str> = texts.iter().map(String::as_str).collect();
                self.tokenizer
                    .encode_batch(inputs, true)
                    .map_err(|e| e.to_string())
            })
            .collect();
        let mut batches: Vec<Batch<'_>> = Vec::new();
        for (call, encodings) in tokenized.iter().enumerate() {
            let Ok(encodings) = encodings else { continue };
            let ids: Vec<&[u32]> = encodings.iter().map(Encoding::get_ids).collect();
            let mut order: Vec<usize> = (0..ids.len()).collect();
            order.sort_by_key(|&i| ids[i].len());
            for chunk in order.chunks(BATCH_SIZE) {
                batches.push(Batch {
                    call,
                    texts: chunk.iter().map(|&i| ids[i]).collect(),
                    positions: chunk.to_vec(),
                });
            }
        }
        batches.sort_by_key(|b| std::cmp::Reverse(b.tokens()));
        let outs: Vec<(usize, BatchVectors)> = if batches.len() == 1 {
            // A lone batch splits its products and attention instead.
            vec![(0, self.model.embed(&batches[0].texts, true))]
        } else {
            let next = AtomicUsize::new(0);
            let cores = rayon::current_num_threads().min(batches.len());
            (0..cores)
                .into_par_iter()
                .flat_map_iter(|_| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(batch) = batches.get(i) else {
                            break mine;
                        };
                        mine.push((i, self.model.embed(&batch.texts, false)));
                    }
                })
                .collect()
        };

        let mut results: Vec<Result<EmbedOutput, ModelError>> = calls
            .iter()
            .zip(&tokenized)
            .map(|(texts, encodings)| match encodings {
                Ok(encodings) => Ok(EmbedOutput {
                    vectors: vec![Vec::new(); texts.len()],
                    tokens: encodings.iter().map(|e| e.get_ids().len() as u64).sum(),
                }),
                Err(e) => Err(ModelError::Tokenizer(e.clone())),
            })
            .collect();
        for (i, out) in outs {
            let batch = &batches[i];
            match (out, &mut results[batch.call]) {
                (Ok(vectors), Ok(result)) => {
                    for (&p, v) in batch.positions.iter().zip(vectors) {
                        result.vectors[p] = v;
                    }
                }
                (Err(e), result @ Ok(_)) => *result = Err(e),
                (_, Err(_)) => {}
            }
        }
        results
    }
}

/// One batch's vectors, in its texts' order.
type BatchVectors = Result<Vec<Vec<f32>>, ModelError>;

/// Up to [`BATCH_SIZE`] texts of one call, run through the encoder together.
struct Batch<'a> {
    /// Which of the calls embedded together the texts came from.
    call: usize,
    /// The texts' token ids, shortest first.
    texts: Vec<&'a [u32]>,
    /// Each text's place in its call.
    positions: Vec<usize>,
}

impl Batch<'_> {
    /// Tokens in the batch: what its run costs, near enough.
    fn tokens(&self) -> usize {
        self.texts.iter().map(|t| t.len()).sum()
    }
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
