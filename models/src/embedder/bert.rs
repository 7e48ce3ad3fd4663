//! The MiniLM (BERT) encoder, written against `gemm` directly.
//!
//! candle-transformers' BERT pads every batch to its longest text and runs
//! its element-wise ops on a thread pool that spin-waits (ruinous on a busy
//! 2-core machine). Here the tokens of a whole batch are stacked without
//! padding for the dense layers, attention runs per text, and only the large
//! products and the texts' attention are threaded (rayon, which parks idle
//! threads).

use crate::error::ModelError;
use crate::floats::{widen, Float};
use crate::linalg::{matmul_into, min_share, softmax};
use rayon::prelude::*;
use safetensors::{Dtype, SafeTensors};
use std::path::Path;

/// The config fields this encoder uses.
#[derive(Debug, Clone, serde::Deserialize)]
pub(super) struct Config {
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    max_position_embeddings: usize,
    #[serde(default = "default_eps")]
    layer_norm_eps: f64,
    #[serde(default)]
    hidden_act: Option<String>,
}

fn default_eps() -> f64 {
    1e-12
}

/// `y = x·Wᵀ + b`.
struct Linear {
    /// `Wᵀ`, `in × out`: `gemm` reads its right-hand side along rows, and
    /// packs less of it per call so laid out (the checkpoint stores `W`,
    /// `out × in`). Each output is the same chain of multiply-adds either
    /// way.
    w: Vec<f32>,
    b: Vec<f32>,
    out: usize,
    inp: usize,
}

struct LayerNorm {
    w: Vec<f32>,
    b: Vec<f32>,
}

struct Layer {
    qkv: Linear,
    attn_out: Linear,
    ln1: LayerNorm,
    up: Linear,
    down: Linear,
    ln2: LayerNorm,
}

pub(super) struct Bert {
    cfg: Config,
    word: Vec<f32>,
    pos: Vec<f32>,
    token_type: Vec<f32>,
    ln_emb: LayerNorm,
    layers: Vec<Layer>,
    threads: usize,
}

impl Linear {
    fn forward(&self, x: &[f32], rows: usize, threads: usize) -> Vec<f32> {
        let mut y = Vec::with_capacity(rows * self.out);
        for _ in 0..rows {
            y.extend_from_slice(&self.b);
        }
        // lhs: x (rows × in, row stride in); rhs: Wᵀ (in × out, row stride out).
        matmul_into(
            &mut y,
            true,
            rows,
            self.out,
            self.inp,
            (x, self.inp, 1),
            (&self.w, self.out, 1),
            self.out,
            threads,
        );
        y
    }
}

/// `f` on each row of `x` (`width` values), shared among the pool's
/// threads when `threads` allows and there are many.
fn rowwise(x: &mut [f32], width: usize, threads: usize, f: impl Fn(&mut [f32]) + Sync + Send) {
    let share = min_share(x.len() / width, 1, threads > 1);
    x.par_chunks_exact_mut(width)
        .with_min_len(share)
        .for_each(f);
}

impl LayerNorm {
    fn apply(&self, x: &mut [f32], eps: f32, threads: usize) {
        let d = self.w.len();
        rowwise(x, d, threads, |row| {
            let mean = row.iter().sum::<f32>() / d as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / d as f32;
            let inv = 1.0 / (var + eps).sqrt();
            for ((v, w), b) in row.iter_mut().zip(&self.w).zip(&self.b) {
                *v = (*v - mean) * inv * w + b;
            }
        });
    }
}

fn gelu(x: &mut [f32], width: usize, threads: usize) {
    rowwise(x, width, threads, super::gelu::apply);
}

impl Bert {
    /// Reads the weights of a `BertModel` checkpoint.
    pub(super) fn load(cfg: Config, weights: &Path) -> Result<Bert, ModelError> {
        if cfg.hidden_act.as_deref().is_some_and(|a| a != "gelu") {
            return Err(ModelError::format(
                weights,
                "only hidden_act = gelu is supported",
            ));
        }
        if cfg.num_attention_heads == 0 || !cfg.hidden_size.is_multiple_of(cfg.num_attention_heads)
        {
            return Err(ModelError::format(
                weights,
                "hidden size not divisible by heads",
            ));
        }
        let bytes = std::fs::read(weights).map_err(|e| ModelError::Io {
            path: weights.to_path_buf(),
            source: e,
        })?;
        let file = SafeTensors::deserialize(&bytes).map_err(|e| ModelError::format(weights, e))?;
        // Checkpoints saved from `BertForMaskedLM` and the like name the
        // encoder's tensors under `bert.`.
        let prefix = if file
            .tensor("bert.embeddings.word_embeddings.weight")
            .is_ok()
        {
            "bert."
        } else {
            ""
        };
        let get = |name: &str| -> Result<Vec<f32>, ModelError> {
            let t = file
                .tensor(&format!("{prefix}{name}"))
                .map_err(|e| ModelError::format(weights, format!("{name}: {e}")))?;
            let kind = match t.dtype() {
                Dtype::F32 => Float::F32,
                Dtype::F16 => Float::F16,
                Dtype::BF16 => Float::Bf16,
                other => {
                    return Err(ModelError::format(
                        weights,
                        format!("{name}: {other:?} weights (f32, f16 and bf16 are read)"),
                    ))
                }
            };
            Ok(widen(kind, t.data()))
        };
        let h = cfg.hidden_size;
        let linear = |names: &[&str], out: usize, inp: usize| -> Result<Linear, ModelError> {
            let mut w = Vec::new();
            let mut b = Vec::new();
            for n in names {
                w.extend(get(&format!("{n}.weight"))?);
                b.extend(get(&format!("{n}.bias"))?);
            }
            if w.len() != out * inp || b.len() != out {
                return Err(ModelError::format(
                    weights,
                    format!("{} has the wrong shape", names[0]),
                ));
            }
            let mut t = vec![0f32; w.len()];
            for (o, row) in w.chunks_exact(inp).enumerate() {
                for (i, v) in row.iter().enumerate() {
                    t[i * out + o] = *v;
                }
            }
            Ok(Linear { w: t, b, out, inp })
        };
        let ln = |name: &str| -> Result<LayerNorm, ModelError> {
            Ok(LayerNorm {
                w: get(&format!("{name}.weight"))?,
                b: get(&format!("{name}.bias"))?,
            })
        };
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            layers.push(Layer {
                qkv: linear(
                    &[
                        &format!("{p}.attention.self.query"),
                        &format!("{p}.attention.self.key"),
                        &format!("{p}.attention.self.value"),
                    ],
                    3 * h,
                    h,
                )?,
                attn_out: linear(&[&format!("{p}.attention.output.dense")], h, h)?,
                ln1: ln(&format!("{p}.attention.output.LayerNorm"))?,
                up: linear(
                    &[&format!("{p}.intermediate.dense")],
                    cfg.intermediate_size,
                    h,
                )?,
                down: linear(&[&format!("{p}.output.dense")], h, cfg.intermediate_size)?,
                ln2: ln(&format!("{p}.output.LayerNorm"))?,
            });
        }
        Ok(Bert {
            word: get("embeddings.word_embeddings.weight")?,
            pos: get("embeddings.position_embeddings.weight")?,
            token_type: get("embeddings.token_type_embeddings.weight")?,
            ln_emb: ln("embeddings.LayerNorm")?,
            layers,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get().min(8)),
            cfg,
        })
    }

    /// Mean-pooled, L2-normalised embeddings of already tokenized texts,
    /// on the calling thread, or with `parallel` across the cores (the
    /// same arithmetic, so the same bits).
    pub(super) fn embed(
        &self,
        texts: &[&[u32]],
        parallel: bool,
    ) -> Result<Vec<Vec<f32>>, ModelError> {
        let threads = if parallel { self.threads } else { 1 };
        let h = self.cfg.hidden_size;
        let eps = self.cfg.layer_norm_eps as f32;
        let vocab = self.word.len() / h;
        let total: usize = texts.iter().map(|t| t.len()).sum();
        let mut x = Vec::with_capacity(total * h);
        for t in texts {
            if t.len() > self.cfg.max_position_embeddings {
                return Err(ModelError::Inference(format!(
                    "{} tokens exceed {} positions",
                    t.len(),
                    self.cfg.max_position_embeddings
                )));
            }
            for (p, &id) in t.iter().enumerate() {
                let id = id as usize;
                if id >= vocab {
                    return Err(ModelError::Inference(format!(
                        "token id {id} out of vocabulary"
                    )));
                }
                let (w, ps, ty) = (
                    &self.word[id * h..(id + 1) * h],
                    &self.pos[p * h..(p + 1) * h],
                    &self.token_type[..h],
                );
                x.extend(w.iter().zip(ps).zip(ty).map(|((a, b), c)| a + b + c));
            }
        }
        self.ln_emb.apply(&mut x, eps, threads);
        for layer in &self.layers {
            let qkv = layer.qkv.forward(&x, total, threads);
            let ctx = self.attention(&qkv, texts, parallel);
            let mut a = layer.attn_out.forward(&ctx, total, threads);
            for (a, r) in a.iter_mut().zip(&x) {
                *a += r;
            }
            layer.ln1.apply(&mut a, eps, threads);
            let mut u = layer.up.forward(&a, total, threads);
            gelu(&mut u, self.cfg.intermediate_size, threads);
            let mut d = layer.down.forward(&u, total, threads);
            for (d, r) in d.iter_mut().zip(&a) {
                *d += r;
            }
            layer.ln2.apply(&mut d, eps, threads);
            x = d;
        }
        let mut out = Vec::with_capacity(texts.len());
        let mut row0 = 0;
        for t in texts {
            let n = t.len();
            let mut v = vec![0f32; h];
            for row in x[row0 * h..(row0 + n) * h].chunks_exact(h) {
                for (a, b) in v.iter_mut().zip(row) {
                    *a += b;
                }
            }
            let norm = v.iter().map(|a| a * a).sum::<f32>().sqrt().max(1e-12);
            for a in v.iter_mut() {
                *a /= norm;
            }
            out.push(v);
            row0 += n;
        }
        Ok(out)
    }

    /// Self-attention of each text over itself; `qkv` rows are `[q | k | v]`.
    /// With `parallel`, texts are spread over the cores.
    fn attention(&self, qkv: &[f32], texts: &[&[u32]], parallel: bool) -> Vec<f32> {
        let h = self.cfg.hidden_size;
        let total: usize = texts.iter().map(|t| t.len()).sum();
        let mut ctx = vec![0f32; total * h];
        // Each text's rows of qkv and ctx, paired.
        let mut parts = Vec::with_capacity(texts.len());
        let (mut rest, mut row0) = (ctx.as_mut_slice(), 0);
        for t in texts {
            let n = t.len();
            let (mine, tail) = rest.split_at_mut(n * h);
            parts.push((&qkv[row0 * 3 * h..(row0 + n) * 3 * h], mine, n));
            (rest, row0) = (tail, row0 + n);
        }
        if parallel {
            parts
                .into_par_iter()
                .for_each(|(qkv, ctx, n)| self.attend(qkv, ctx, n));
        } else {
            for (qkv, ctx, n) in parts {
                self.attend(qkv, ctx, n);
            }
        }
        ctx
    }

    /// One text's attention: `qkv` and `ctx` hold its `n` rows.
    fn attend(&self, qkv: &[f32], ctx: &mut [f32], n: usize) {
        let h = self.cfg.hidden_size;
        let heads = self.cfg.num_attention_heads;
        let hd = h / heads;
        let scale = 1.0 / (hd as f32).sqrt();
        let mut scores = vec![0f32; n * n];
        for head in 0..heads {
            let q = &qkv[head * hd..];
            let k = &qkv[h + head * hd..];
            let v = &qkv[2 * h + head * hd..];
            // scores (n×n) = Q (n×hd, row stride 3h) · Kᵀ ((d, j) at j·3h + d).
            matmul_into(
                &mut scores,
                false,
                n,
                n,
                hd,
                (q, 3 * h, 1),
                (k, 1, 3 * h),
                n,
                1,
            );
            for row in scores.chunks_exact_mut(n) {
                softmax(row, scale);
            }
            // The text's ctx rows, head columns = P (n×n) · V (n×hd, row stride 3h).
            matmul_into(
                &mut ctx[head * hd..],
                false,
                n,
                hd,
                n,
                (&scores, n, 1),
                (v, 3 * h, 1),
                h,
                1,
            );
        }
    }
}
