//! A llama forward pass over several sequences at once, each with its own
//! KV cache and position.
//!
//! candle-transformers' `quantized_llama` keeps one KV cache per model,
//! gives logits for the last position only and cannot mix sequences of
//! different lengths; this module keeps its weight layout but stacks the new
//! tokens of all sequences into one matrix, so every weight matrix is read
//! once per step however many sequences are decoding. Weights keep the
//! file's Q4_1 blocks ([`Weights`]). Q/K/V and gate/up are fused into one
//! matrix each (fewer passes over the activations, larger work units for
//! threads).

use super::attend::{attend_group, attend_shared, HeadCache, Query};
use super::gguf::{Gguf, Tensor};
use super::kv::{KvCache, Span};
use super::silu;
use super::weights::Weights;
use crate::error::ModelError;
use crate::linalg::{matmul_into, min_share, softmax};
use half::f16;
use half::slice::HalfFloatSliceExt;
use rayon::prelude::*;
use std::path::Path;

/// Prompt tokens per forward pass of one sequence. Fixed, so a sequence is
/// cut into the same chunks whatever else is running, and its output does
/// not depend on the batch it landed in.
pub(crate) const PREFILL_CHUNK: usize = 512;

/// New tokens of one sequence from which attention uses `gemm` rather than
/// the plain loop (faster for prompts, slower for a token or two).
const MATMUL_ATTENTION_FROM: usize = 8;

/// Attention work (query rows × attended positions, all sequences) from
/// which decode attention is shared among the pool's threads:
/// below it, handing work over costs more than it saves.
const PARALLEL_ATTENTION_FROM: usize = 512;

/// Attention runs over blocks of positions aligned to multiples of this, so
/// the keys and values of a position come out bit-identical however its
/// prompt was cut into steps. That is what lets a cached prompt prefix,
/// reused from any multiple of it, give the same output as a fresh prefill.
pub(crate) const ATTENTION_BLOCK: usize = 32;

#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) n_layer: usize,
    pub(crate) n_head: usize,
    pub(crate) n_kv_head: usize,
    pub(crate) head_dim: usize,
    pub(crate) hidden: usize,
    pub(crate) ffn: usize,
    pub(crate) vocab: usize,
    pub(crate) eps: f32,
    pub(crate) context: usize,
}

struct Layer {
    attn_norm: Vec<f32>,
    wqkv: Weights,
    wo: Weights,
    ffn_norm: Vec<f32>,
    wgu: Weights,
    wdown: Weights,
}

pub(crate) struct Llama {
    pub(crate) cfg: Config,
    layers: Vec<Layer>,
    norm: Vec<f32>,
    /// Input embedding, also the output head when the file ties them.
    embed: Weights,
    output: Option<Weights>,
    /// Threads of `pool`.
    threads: usize,
    /// Where every forward pass runs: its threads stay up between the ~150
    /// products of a decoding step, so even one sequence's products are
    /// shared among them (spawning threads per product cost more than the
    /// product).
    pool: rayon::ThreadPool,
    /// cos/sin of every position × frequency, `[pos][head_dim/2]`.
    cos: Vec<f32>,
    sin: Vec<f32>,
}

/// New tokens of one segment at one layer `li`: `n` query rows (of the
/// fused Q/K/V product) from position `start`, attending to `cache`.
#[derive(Clone, Copy)]
struct Queries<'a> {
    cache: &'a KvCache,
    li: usize,
    start: usize,
    n: usize,
    rows: &'a [f32],
}

/// Which logits a segment wants back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// None (a prompt chunk that is not the last).
    Nothing,
    /// The last position only.
    Last,
    /// Every new position.
    All,
}

/// New tokens of one sequence for one forward pass.
pub(crate) struct Segment<'a> {
    pub(crate) cache: &'a mut KvCache,
    pub(crate) tokens: &'a [u32],
    pub(crate) want: Want,
}

fn md_u32(file: &Gguf, path: &Path, key: &str) -> Result<usize, ModelError> {
    file.meta(key)?
        .to_u32()
        .map(|v| v as usize)
        .ok_or_else(|| ModelError::format(path, format!("{key} is not a 32-bit count")))
}

/// `f` on each pair of rows (`x` rows of `xw` values, `out` rows of `ow`),
/// shared among the pool's threads when there are many.
fn rowwise(
    x: &[f32],
    xw: usize,
    out: &mut [f32],
    ow: usize,
    f: impl Fn(&[f32], &mut [f32]) + Sync + Send,
) {
    x.par_chunks_exact(xw)
        .zip(out.par_chunks_exact_mut(ow))
        .with_min_len(min_share(x.len() / xw, 1, true))
        .for_each(|(x, o)| f(x, o));
}

fn rms_norm(x: &[f32], w: &[f32], eps: f32, out: &mut [f32]) {
    let dim = w.len();
    rowwise(x, dim, out, dim, |row, o| {
        let ms = row.iter().map(|v| v * v).sum::<f32>() / dim as f32;
        let scale = 1.0 / (ms + eps).sqrt();
        for ((o, v), w) in o.iter_mut().zip(row).zip(w) {
            *o = v * scale * w;
        }
    });
}

impl Llama {
    /// Reads the GGUF at `path`: Q4_1 matrices as they are, any other type
    /// re-quantised to 8-bit blocks.
    pub(crate) fn load(ct: &Gguf, path: &Path) -> Result<Llama, ModelError> {
        let n_layer = md_u32(ct, path, "llama.block_count")?;
        let n_head = md_u32(ct, path, "llama.attention.head_count")?;
        let n_kv_head = md_u32(ct, path, "llama.attention.head_count_kv")?;
        let hidden = md_u32(ct, path, "llama.embedding_length")?;
        let ffn = md_u32(ct, path, "llama.feed_forward_length")?;
        let context = md_u32(ct, path, "llama.context_length")?;
        let eps = ct
            .get("llama.attention.layer_norm_rms_epsilon")
            .and_then(|v| v.to_f32())
            .unwrap_or(1e-5);
        let base = ct
            .get("llama.rope.freq_base")
            .and_then(|v| v.to_f32())
            .unwrap_or(10_000.0);
        if n_head == 0 || n_kv_head == 0 || hidden % n_head != 0 || n_head % n_kv_head != 0 {
            return Err(ModelError::format(path, "inconsistent head counts"));
        }
        let head_dim = hidden / n_head;
        if head_dim % 8 != 0 {
            // The attention kernels work in lanes of eight.
            return Err(ModelError::format(
                path,
                format!("head dim {head_dim} is not a multiple of 8"),
            ));
        }
        // Stacked along the output dimension.
        let stack = |parts: Vec<Tensor>| Weights::from_tensors(&parts);
        let mut layers = Vec::with_capacity(n_layer);
        for i in 0..n_layer {
            let p = format!("blk.{i}");
            let q = ct.tensor(&format!("{p}.attn_q.weight"))?;
            let k = ct.tensor(&format!("{p}.attn_k.weight"))?;
            let v = ct.tensor(&format!("{p}.attn_v.weight"))?;
            let o = ct.tensor(&format!("{p}.attn_output.weight"))?;
            let gate = ct.tensor(&format!("{p}.ffn_gate.weight"))?;
            let up = ct.tensor(&format!("{p}.ffn_up.weight"))?;
            let down = ct.tensor(&format!("{p}.ffn_down.weight"))?;
            let attn_norm = ct.tensor(&format!("{p}.attn_norm.weight"))?.to_f32();
            let ffn_norm = ct.tensor(&format!("{p}.ffn_norm.weight"))?.to_f32();
            layers.push(Layer {
                attn_norm,
                wqkv: stack(vec![q, k, v])?,
                wo: stack(vec![o])?,
                ffn_norm,
                wgu: stack(vec![gate, up])?,
                wdown: stack(vec![down])?,
            });
        }
        let norm = ct.tensor("output_norm.weight")?.to_f32();
        let embed = stack(vec![ct.tensor("token_embd.weight")?])?;
        let vocab = embed.rows();
        // Tied embeddings: no output matrix of its own.
        let output = match ct.has_tensor("output.weight") {
            true => Some(stack(vec![ct.tensor("output.weight")?])?),
            false => None,
        };
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("adfarm-llm-{i}"))
            .build()
            .map_err(|e| ModelError::Inference(format!("cannot start the model's threads: {e}")))?;
        let half = head_dim / 2;
        let mut cos = Vec::with_capacity(context * half);
        let mut sin = Vec::with_capacity(context * half);
        for pos in 0..context {
            for i in 0..half {
                let theta = pos as f32 / base.powf(2.0 * i as f32 / head_dim as f32);
                cos.push(theta.cos());
                sin.push(theta.sin());
            }
        }
        Ok(Llama {
            cfg: Config {
                n_layer,
                n_head,
                n_kv_head,
                head_dim,
                hidden,
                ffn,
                vocab,
                eps,
                context,
            },
            layers,
            norm,
            embed,
            output,
            threads,
            pool,
            cos,
            sin,
        })
    }

    /// Floats of one position's keys (or values) in one layer, all KV heads.
    fn kv_row(&self) -> usize {
        self.cfg.n_kv_head * self.cfg.head_dim
    }

    /// Floats per position in one stream of a cache (one layer's KV head).
    pub(crate) fn cache_row(&self) -> usize {
        self.cfg.head_dim
    }

    /// The cache stream of layer `li`'s KV head `kvh`.
    fn stream(&self, li: usize, kvh: usize) -> usize {
        li * self.cfg.n_kv_head + kvh
    }

    /// Bytes of keys and values one position takes: a K and a V row of f16
    /// in every layer.
    pub(crate) fn kv_bytes_per_position(&self) -> usize {
        2 * self.cfg.n_layer * self.kv_row() * size_of::<f16>()
    }

    /// Floats of one token's attention output that one KV head's query
    /// group writes: `group × head_dim`.
    fn group_width(&self) -> usize {
        self.cfg.n_head / self.cfg.n_kv_head * self.cfg.head_dim
    }

    /// Floats per row of the fused Q/K/V product.
    fn qkv_width(&self) -> usize {
        self.cfg.hidden + 2 * self.kv_row()
    }

    pub(crate) fn new_cache(&self) -> KvCache {
        KvCache::new(self.cfg.n_layer * self.cfg.n_kv_head)
    }

    fn embed_rows(&self, tokens: &[u32], out: &mut Vec<f32>) -> Result<(), ModelError> {
        let h = self.cfg.hidden;
        for &t in tokens {
            let t = t as usize;
            if t >= self.cfg.vocab {
                return Err(ModelError::Inference(format!(
                    "token id {t} out of vocabulary"
                )));
            }
            let at = out.len();
            out.resize(at + h, 0.0);
            self.embed.row_f32(t, &mut out[at..]);
        }
        Ok(())
    }

    fn matmul(&self, w: &Weights, x: &[f32], rows: usize) -> Vec<f32> {
        w.matmul(x, rows, self.threads)
    }

    /// Interleaved RoPE (GGUF llama layout) on `n_heads` heads of one row.
    fn rope(&self, row: &mut [f32], pos: usize) {
        let half = self.cfg.head_dim / 2;
        let (cos, sin) = (
            &self.cos[pos * half..(pos + 1) * half],
            &self.sin[pos * half..(pos + 1) * half],
        );
        for head in row.chunks_exact_mut(self.cfg.head_dim) {
            for i in 0..half {
                let (a, b) = (head[2 * i], head[2 * i + 1]);
                head[2 * i] = a * cos[i] - b * sin[i];
                head[2 * i + 1] = a * sin[i] + b * cos[i];
            }
        }
    }

    /// Runs the new tokens of every segment through the model, appending to
    /// their caches; returns, per segment, the logits rows it asked for.
    pub(crate) fn forward(
        &self,
        segs: &mut [Segment<'_>],
    ) -> Result<Vec<Vec<Vec<f32>>>, ModelError> {
        self.pool.install(|| self.forward_on_pool(segs))
    }

    fn forward_on_pool(&self, segs: &mut [Segment<'_>]) -> Result<Vec<Vec<Vec<f32>>>, ModelError> {
        let c = &self.cfg;
        let (h, hd, nkv) = (c.hidden, c.head_dim, c.n_kv_head);
        let kv = nkv * hd;
        let qkv_w = h + 2 * kv;
        let total: usize = segs.iter().map(|s| s.tokens.len()).sum();
        if total == 0 {
            return Ok(segs.iter().map(|_| Vec::new()).collect());
        }
        for s in segs.iter() {
            if s.cache.len + s.tokens.len() > c.context {
                return Err(ModelError::Inference(format!(
                    "sequence of {} tokens exceeds the model context of {}",
                    s.cache.len + s.tokens.len(),
                    c.context
                )));
            }
        }
        let mut x = Vec::with_capacity(total * h);
        for s in segs.iter() {
            self.embed_rows(s.tokens, &mut x)?;
        }
        let mut normed = vec![0f32; total * h];
        for (li, layer) in self.layers.iter().enumerate() {
            rms_norm(&x, &layer.attn_norm, c.eps, &mut normed);
            let mut qkv = self.matmul(&layer.wqkv, &normed, total);
            let mut attn = vec![0f32; total * h];
            // Keys and values of the new tokens first: attention reads them.
            let mut spans = Vec::with_capacity(segs.len());
            let mut row0 = 0;
            for s in segs.iter_mut() {
                let n = s.tokens.len();
                let start = s.cache.len;
                for t in 0..n {
                    let r = &mut qkv[(row0 + t) * qkv_w..(row0 + t + 1) * qkv_w];
                    self.rope(&mut r[..h + kv], start + t);
                    let (k, v) = r[h..].split_at(kv);
                    for (kvh, (k, v)) in k.chunks_exact(hd).zip(v.chunks_exact(hd)).enumerate() {
                        let si = self.stream(li, kvh);
                        s.cache.k[si].extend(k.iter().map(|&x| f16::from_f32(x)));
                        s.cache.v[si].extend(v.iter().map(|&x| f16::from_f32(x)));
                    }
                }
                spans.push((row0, n, start));
                row0 += n;
            }
            let caches: Vec<&KvCache> = segs.iter().map(|s| &*s.cache).collect();
            self.attention(li, &caches, &spans, &qkv, &mut attn);
            let o = self.matmul(&layer.wo, &attn, total);
            for (a, b) in x.iter_mut().zip(&o) {
                *a += b;
            }
            rms_norm(&x, &layer.ffn_norm, c.eps, &mut normed);
            let gu = self.matmul(&layer.wgu, &normed, total);
            let mut act = vec![0f32; total * c.ffn];
            rowwise(&gu, 2 * c.ffn, &mut act, c.ffn, |row, act| {
                let (g, u) = row.split_at(c.ffn);
                silu::apply(g, u, act);
            });
            let d = self.matmul(&layer.wdown, &act, total);
            for (a, b) in x.iter_mut().zip(&d) {
                *a += b;
            }
        }
        for s in segs.iter_mut() {
            s.cache.len += s.tokens.len();
        }
        // Final norm and output head only on the rows someone wants.
        let mut picked = Vec::new();
        let mut owners = Vec::new();
        let mut row0 = 0;
        for (i, s) in segs.iter().enumerate() {
            let n = s.tokens.len();
            let rows = match s.want {
                Want::Nothing => 0..0,
                Want::Last => n.saturating_sub(1)..n,
                Want::All => 0..n,
            };
            for r in rows {
                picked.extend_from_slice(&x[(row0 + r) * h..(row0 + r + 1) * h]);
                owners.push(i);
            }
            row0 += n;
        }
        let mut result: Vec<Vec<Vec<f32>>> = segs.iter().map(|_| Vec::new()).collect();
        if !owners.is_empty() {
            let mut normed = vec![0f32; picked.len()];
            rms_norm(&picked, &self.norm, c.eps, &mut normed);
            let head = self.output.as_ref().unwrap_or(&self.embed);
            let logits = self.matmul(head, &normed, owners.len());
            for (row, &i) in logits.chunks_exact(c.vocab).zip(&owners) {
                result[i].push(row.to_vec());
            }
        }
        Ok(result)
    }

    /// Attention of every segment's new tokens (`news`: first row, new
    /// tokens, first position) into its rows of `out`. Each segment reads
    /// only its own cache and writes only its own rows. Prompt chunks go
    /// first, one at a time, each spreading its blocks and KV heads over the
    /// threads; then the decoding segments, grouped by the frozen prefix
    /// their caches begin with (read once per group), each query head of
    /// each group an item for the pool when there is enough work. A query's
    /// bits are the same whatever its group, item or thread.
    fn attention(
        &self,
        li: usize,
        caches: &[&KvCache],
        news: &[(usize, usize, usize)],
        qkv: &[f32],
        out: &mut [f32],
    ) {
        let (h, qkv_w) = (self.cfg.hidden, self.qkv_width());
        // Work of a segment: query rows × positions they attend to.
        let cost = |&(_, n, start): &(usize, usize, usize)| n * (start + n);
        let decoding = |&(_, n, _): &(usize, usize, usize)| n < MATMUL_ATTENTION_FROM;
        let queries = |i: usize| {
            let (row0, n, start) = news[i];
            Queries {
                cache: caches[i],
                li,
                start,
                n,
                rows: &qkv[row0 * qkv_w..(row0 + n) * qkv_w],
            }
        };
        // Each segment's rows of `out`, prompt chunks run as they come.
        let mut decode_rows: Vec<(usize, &mut [f32])> = Vec::new();
        let mut rest = out;
        for (i, new) in news.iter().enumerate() {
            let (rows, tail) = std::mem::take(&mut rest).split_at_mut(new.1 * h);
            rest = tail;
            if decoding(new) {
                decode_rows.push((i, rows));
            } else {
                self.attend_segment(queries(i), rows);
            }
        }
        if decode_rows.is_empty() {
            return;
        }
        // Decoding segments whose caches begin with the same frozen part,
        // in order of arrival.
        let mut groups: Vec<(Option<usize>, usize, Vec<usize>)> = Vec::new();
        for &(i, _) in &decode_rows {
            let first = caches[i].first_part();
            let key = first.map(|(p, _)| p);
            let len = first.map_or(0, |(_, len)| len);
            match groups
                .iter_mut()
                .find(|(k, _, _)| key.is_some() && *k == key)
            {
                Some((_, common, members)) => {
                    *common = (*common).min(len);
                    members.push(i);
                }
                None => groups.push((key, len, vec![i])),
            }
        }
        let (hd, width) = (self.cfg.head_dim, self.group_width());
        let kv_heads = self.cfg.n_kv_head;
        // Span lists of the decoding segments only, per KV head (prompt
        // chunks read their caches in `attend_segment`).
        let mut kv_spans: Vec<Vec<Vec<Span<'_>>>> = vec![Vec::new(); caches.len()];
        for &(i, _) in &decode_rows {
            kv_spans[i] = (0..kv_heads)
                .map(|kvh| caches[i].spans(self.stream(li, kvh), hd))
                .collect();
        }
        // One group's KV head `kvh` for members `from..to`: each member's
        // new tokens in turn, all the query heads of that KV head at once.
        let item = |&(g, kvh, from, to): &(usize, usize, usize, usize)| -> Vec<f32> {
            let members = &groups[g].2[from..to];
            let tokens: usize = members.iter().map(|&i| news[i].1).sum();
            let mut outs = vec![0f32; tokens * width];
            let mut free = outs.chunks_exact_mut(width);
            let mut batch = Vec::with_capacity(tokens);
            for &i in members {
                let qs = queries(i);
                for t in 0..qs.n {
                    batch.push(Query {
                        q: &qs.rows[t * qkv_w + kvh * width..][..width],
                        head: HeadCache {
                            spans: &kv_spans[i][kvh],
                            len: qs.start + t + 1,
                            hd,
                            scale: 1.0 / (hd as f32).sqrt(),
                        },
                        out: free.next().expect("a row per new token"),
                    });
                }
            }
            attend_shared(&mut batch, groups[g].1);
            outs
        };
        // Members are split so that every thread gets items: a split costs
        // one more read of the shared positions, an idle thread far more.
        let splits = (2 * self.threads).div_ceil(groups.len() * kv_heads).max(1);
        let items: Vec<(usize, usize, usize, usize)> = groups
            .iter()
            .enumerate()
            .flat_map(|(g, (_, _, members))| {
                let n = members.len();
                let parts = splits.min(n);
                (0..kv_heads).flat_map(move |kvh| {
                    (0..parts).map(move |p| (g, kvh, p * n / parts, (p + 1) * n / parts))
                })
            })
            .collect();
        let work: usize = decode_rows.iter().map(|&(i, _)| cost(&news[i])).sum();
        let parts: Vec<Vec<f32>> = if self.threads < 2 || work < PARALLEL_ATTENTION_FROM {
            items.iter().map(item).collect()
        } else {
            items.par_iter().map(item).collect()
        };
        let mut rows_of: Vec<Option<&mut [f32]>> = (0..news.len()).map(|_| None).collect();
        for (i, rows) in decode_rows {
            rows_of[i] = Some(rows);
        }
        for (&(g, kvh, from, to), part) in items.iter().zip(&parts) {
            let mut part = part.chunks_exact(width);
            for &i in &groups[g].2[from..to] {
                let rows = rows_of[i].as_mut().expect("a decoding segment's rows");
                for row in rows.chunks_exact_mut(h) {
                    let from = part.next().expect("one result per new token");
                    row[kvh * width..(kvh + 1) * width].copy_from_slice(from);
                }
            }
        }
    }

    /// Attention of one segment's `n` new tokens from position `start`, in
    /// blocks aligned to [`ATTENTION_BLOCK`].
    fn attend_segment(&self, qs: Queries<'_>, out: &mut [f32]) {
        let (start, n) = (qs.start, qs.n);
        let h = self.cfg.hidden;
        // (first new token, tokens) of each block; a block shorter than
        // `MATMUL_ATTENTION_FROM` (the prompt's ragged first or last) takes
        // the plain loop.
        let mut blocks = Vec::new();
        let mut t = 0;
        while t < n {
            let pos = start + t;
            let m = ((pos / ATTENTION_BLOCK + 1) * ATTENTION_BLOCK).min(start + n) - pos;
            blocks.push((t, m));
            t += m;
        }
        let (large, small): (Vec<_>, Vec<_>) = blocks
            .into_iter()
            .partition(|&(_, m)| m >= MATMUL_ATTENTION_FROM);
        for (t, m) in small {
            let block = Queries {
                start: start + t,
                n: m,
                rows: &qs.rows[t * self.qkv_width()..(t + m) * self.qkv_width()],
                ..qs
            };
            self.attention_loop(block, &mut out[t * h..(t + m) * h]);
        }
        if !large.is_empty() {
            self.attention_matmul(qs, &large, out);
        }
    }

    /// Attention for a few new tokens: plain loops over the cache, no copies.
    fn attention_loop(&self, qs: Queries<'_>, out: &mut [f32]) {
        let c = &self.cfg;
        let (h, hd) = (c.hidden, c.head_dim);
        let width = self.group_width();
        let spans: Vec<Vec<Span<'_>>> = (0..c.n_kv_head)
            .map(|kvh| qs.cache.spans(self.stream(qs.li, kvh), hd))
            .collect();
        let mut scores = Vec::new();
        for (t, row) in out.chunks_exact_mut(h).take(qs.n).enumerate() {
            let q = &qs.rows[t * self.qkv_width()..][..h];
            for (kvh, (q, out)) in q
                .chunks_exact(width)
                .zip(row.chunks_exact_mut(width))
                .enumerate()
            {
                let head = HeadCache {
                    spans: &spans[kvh],
                    len: qs.start + t + 1,
                    hd,
                    scale: 1.0 / (hd as f32).sqrt(),
                };
                attend_group(q, head, &mut scores, out);
            }
        }
    }

    /// Attention for the `blocks` (first new token, tokens) of a prompt
    /// chunk: per query head, `gemm` products over the cache up to the
    /// chunk's end, widened to f32 once (exactly: every f16 is an f32), with
    /// the causal softmax in between. Each block and KV head is an item for
    /// the pool, its products single-threaded: the same code per item, so
    /// the same bits whichever thread ran it, and the softmax runs on every
    /// thread rather than between two threaded products.
    fn attention_matmul(&self, qs: Queries<'_>, blocks: &[(usize, usize)], out: &mut [f32]) {
        let (start, n, q_rows) = (qs.start, qs.n, qs.rows);
        let c = &self.cfg;
        let (h, hd) = (c.hidden, c.head_dim);
        let kv = c.n_kv_head * hd;
        let qkv_w = h + 2 * kv;
        let group = c.n_head / c.n_kv_head;
        let width = group * hd;
        let len = start + n;
        let scale = 1.0 / (hd as f32).sqrt();
        // Each KV head's keys or values of positions `..len`, `hd` floats each.
        let widen = |kvh: usize, keys: bool| {
            let mut f = vec![0f32; len * hd];
            let mut at = 0;
            for span in &qs.cache.spans(self.stream(qs.li, kvh), hd) {
                let m = span.len.min(len - at);
                let from = if keys { span.k } else { span.v };
                from[..m * hd].convert_to_f32_slice(&mut f[at * hd..(at + m) * hd]);
                at += m;
            }
            f
        };
        let kc: Vec<Vec<f32>> = (0..c.n_kv_head).map(|kvh| widen(kvh, true)).collect();
        let vc: Vec<Vec<f32>> = (0..c.n_kv_head).map(|kvh| widen(kvh, false)).collect();
        let items: Vec<(usize, usize, usize)> = blocks
            .iter()
            .flat_map(|&(t, m)| (0..c.n_kv_head).map(move |kvh| (t, m, kvh)))
            .collect();
        let parts: Vec<Vec<f32>> = items
            .par_iter()
            .map(|&(t, m, kvh)| {
                let mut part = vec![0f32; m * width];
                let mut scores = vec![0f32; m * len];
                for g in 0..group {
                    let head = kvh * group + g;
                    // scores (m × len) = Q_head (row stride qkv_w) · Kᵀ ((d, j) at j·hd + d).
                    matmul_into(
                        &mut scores,
                        false,
                        m,
                        len,
                        hd,
                        (&q_rows[t * qkv_w + head * hd..], qkv_w, 1),
                        (&kc[kvh], 1, hd),
                        len,
                        1,
                    );
                    for (i, row) in scores.chunks_exact_mut(len).enumerate() {
                        let visible = start + t + i + 1;
                        let (row, hidden) = row.split_at_mut(visible);
                        softmax(row, scale);
                        hidden.fill(0.0);
                    }
                    // This head's columns of the part = P (m × len) · V ((j, d) at j·hd + d).
                    matmul_into(
                        &mut part[g * hd..],
                        false,
                        m,
                        hd,
                        len,
                        (&scores, len, 1),
                        (&vc[kvh], hd, 1),
                        width,
                        1,
                    );
                }
                part
            })
            .collect();
        for (&(t, m, kvh), part) in items.iter().zip(&parts) {
            for (i, row) in part.chunks_exact(width).enumerate().take(m) {
                let at = (t + i) * h + kvh * width;
                out[at..at + width].copy_from_slice(row);
            }
        }
    }
}
