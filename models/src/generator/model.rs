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

use super::gguf::{Gguf, Tensor};
use super::weights::Weights;
use crate::error::ModelError;
use crate::linalg::{matmul_into, softmax};
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
/// which decoding sequences' query heads are shared among the pool's threads:
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

/// Keys and values of one sequence, per layer `[pos][kv_head][head_dim]`,
/// in f16 as llama.cpp keeps them: half the bytes of f32, which decoding
/// against thousands of positions reads once per token, and twice the
/// conversations the memory budget holds. A new position is rounded when
/// it is written, before anything attends to it, so a position reads the
/// same whether it was computed now or reused from a cached prefix.
#[derive(Clone, Default)]
pub(crate) struct KvCache {
    k: Vec<Vec<f16>>,
    v: Vec<Vec<f16>>,
    len: usize,
}

impl KvCache {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Forgets everything after `len` tokens (closed-choice scoring reuses the
    /// prompt's cache for each option).
    pub(crate) fn truncate(&mut self, len: usize, row: usize) {
        if len < self.len {
            for l in self.k.iter_mut().chain(self.v.iter_mut()) {
                l.truncate(len * row);
            }
            self.len = len;
        }
    }

    /// A cache of `len` positions over `layers` layers, each position's
    /// values its index (for tests of code that moves caches around).
    #[cfg(test)]
    pub(crate) fn filled(layers: usize, len: usize, row: usize) -> KvCache {
        let layer: Vec<f16> = (0..len * row)
            .map(|i| f16::from_f32((i / row) as f32))
            .collect();
        KvCache {
            k: vec![layer.clone(); layers],
            v: vec![layer; layers],
            len,
        }
    }

    /// Positions each layer has room for without reallocating.
    #[cfg(test)]
    pub(crate) fn room(&self, row: usize) -> usize {
        self.k
            .iter()
            .chain(&self.v)
            .map(|l| l.capacity() / row)
            .min()
            .unwrap_or(0)
    }

    /// Makes room for `positions` in all, at once: grown by doubling, a
    /// sequence's layers hold up to twice what they use and leave the
    /// outgrown buffers to the allocator (the agent bench peaked at twice
    /// the RSS it reaches with this).
    pub(crate) fn reserve(&mut self, positions: usize, row: usize) {
        let want = positions * row;
        for l in self.k.iter_mut().chain(self.v.iter_mut()) {
            l.reserve_exact(want.saturating_sub(l.len()));
        }
    }

    /// Gives back the room past the positions held (a kept prompt then
    /// costs what the budget counts for it).
    pub(crate) fn shrink_to_fit(&mut self) {
        for l in self.k.iter_mut().chain(self.v.iter_mut()) {
            l.shrink_to_fit();
        }
    }

    /// A copy of the first `len` positions, with room for `room` in all (a
    /// sequence resuming from it then never reallocates).
    pub(crate) fn prefix(&self, len: usize, room: usize, row: usize) -> KvCache {
        let len = len.min(self.len);
        let cut = |layers: &[Vec<f16>]| {
            let layer = |l: &Vec<f16>| {
                let mut copy = Vec::with_capacity(room.max(len) * row);
                copy.extend_from_slice(&l[..len * row]);
                copy
            };
            layers.iter().map(layer).collect()
        };
        KvCache {
            k: cut(&self.k),
            v: cut(&self.v),
            len,
        }
    }
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

fn rms_norm(x: &[f32], w: &[f32], eps: f32, out: &mut [f32]) {
    let dim = w.len();
    for (row, o) in x.chunks_exact(dim).zip(out.chunks_exact_mut(dim)) {
        let ms = row.iter().map(|v| v * v).sum::<f32>() / dim as f32;
        let scale = 1.0 / (ms + eps).sqrt();
        for ((o, v), w) in o.iter_mut().zip(row).zip(w) {
            *o = v * scale * w;
        }
    }
}

/// The cached keys and values one KV head's query group attends to: `len`
/// positions of `stride` floats each, the head's `hd` floats at `offset`
/// within a position; scores are scaled by `scale` before the softmax.
#[derive(Clone, Copy)]
struct HeadCache<'a> {
    k: &'a [f16],
    v: &'a [f16],
    len: usize,
    stride: usize,
    offset: usize,
    hd: usize,
    scale: f32,
}

impl HeadCache<'_> {
    /// This head's `hd` floats of position `j` in `layer` (its K or V).
    #[inline(always)]
    fn row<'a>(&self, layer: &'a [f16], j: usize) -> &'a [f16] {
        let at = j * self.stride + self.offset;
        &layer[at..at + self.hd]
    }
}

/// One query position, the `group` query heads sharing one KV head:
/// scores against `len` cached keys, softmax, weighted sum of values. Each K
/// and V row is read once for the whole group.
#[inline(always)]
fn attend_group_body(q: &[f32], head: HeadCache<'_>, scores: &mut Vec<f32>, out: &mut [f32]) {
    let (len, hd) = (head.len, head.hd);
    let group = q.len() / hd;
    scores.clear();
    scores.resize(group * len, 0.0);
    for j in 0..len {
        let k = head.row(head.k, j);
        for g in 0..group {
            let qh = &q[g * hd..(g + 1) * hd];
            // Eight partial sums (the compiler still emits scalar code;
            // x86-64 with AVX2 takes `attend_group_avx2` instead).
            let mut acc = [0f32; 8];
            for (x, y) in qh.chunks_exact(8).zip(k.chunks_exact(8)) {
                for i in 0..8 {
                    acc[i] += x[i] * y[i].to_f32();
                }
            }
            scores[g * len + j] = acc.iter().sum::<f32>() * head.scale;
        }
    }
    for row in scores.chunks_exact_mut(len) {
        softmax(row, 1.0);
    }
    out.fill(0.0);
    for j in 0..len {
        let v = head.row(head.v, j);
        for g in 0..group {
            let p = scores[g * len + j];
            for (o, v) in out[g * hd..(g + 1) * hd].iter_mut().zip(v) {
                *o += p * v.to_f32();
            }
        }
    }
}

/// [`attend_group_body`] with AVX2+FMA intrinsics (the default x86-64
/// target only has SSE2, and the compiler left the scores' dot products
/// scalar): eight lanes per instruction, keys and values widened from f16
/// by F16C as they load, and each head's output kept in registers across
/// all positions. Decoding agents spend most of their
/// time here, attending to thousands of cached positions per new token.
/// Rounding differs from the portable body (fused multiply-adds), so one
/// machine always takes one of the two.
///
/// # Safety
/// The CPU must support AVX2, FMA and F16C, and `hd` must be a multiple of 8.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn attend_group_avx2(
    q: &[f32],
    head: HeadCache<'_>,
    scores: &mut Vec<f32>,
    out: &mut [f32],
) {
    use std::arch::x86_64::*;
    let (len, stride, offset, hd) = (head.len, head.stride, head.offset, head.hd);
    let group = q.len() / hd;
    let last = (len - 1) * stride + offset + hd;
    assert!(q.len() == group * hd && out.len() == group * hd);
    assert!(head.k.len() >= last && head.v.len() >= last);
    scores.clear();
    scores.resize(group * len, 0.0);
    let (qp, kp, sp) = (q.as_ptr(), head.k.as_ptr(), scores.as_mut_ptr());
    for j in 0..len {
        let k = kp.add(j * stride + offset);
        for g in 0..group {
            let qh = qp.add(g * hd);
            let (mut a0, mut a1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
            let mut d = 0;
            while d + 16 <= hd {
                a0 = _mm256_fmadd_ps(_mm256_loadu_ps(qh.add(d)), load_f16(k.add(d)), a0);
                a1 = _mm256_fmadd_ps(_mm256_loadu_ps(qh.add(d + 8)), load_f16(k.add(d + 8)), a1);
                d += 16;
            }
            if d < hd {
                a0 = _mm256_fmadd_ps(_mm256_loadu_ps(qh.add(d)), load_f16(k.add(d)), a0);
            }
            *sp.add(g * len + j) = super::simd::hsum(_mm256_add_ps(a0, a1)) * head.scale;
        }
    }
    for row in scores.chunks_exact_mut(len) {
        softmax(row, 1.0);
    }
    let v = head.v.as_ptr().add(offset);
    for (g, probs) in scores.chunks_exact(len).enumerate() {
        let mut d = 0;
        while hd - d >= 64 {
            weighted_rows_avx::<8>(probs, v.add(d), stride, out[g * hd + d..].as_mut_ptr());
            d += 64;
        }
        while d < hd {
            weighted_rows_avx::<1>(probs, v.add(d), stride, out[g * hd + d..].as_mut_ptr());
            d += 8;
        }
    }
}

/// Eight f16 at `p`, widened to f32.
///
/// # Safety
/// F16C; `p` readable for eight values.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn load_f16(p: *const f16) -> std::arch::x86_64::__m256 {
    use std::arch::x86_64::*;
    _mm256_cvtph_ps(_mm_loadu_si128(p as *const __m128i))
}

/// `out[..8N] = Σ_j probs[j] · v[j·stride ..][..8N]`, the sums held in `N`
/// registers across all rows.
///
/// # Safety
/// AVX2, FMA and F16C; `v` readable for `probs.len()` rows of `stride`
/// values (the last one 8N wide) and `out` writable for 8N floats.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn weighted_rows_avx<const N: usize>(
    probs: &[f32],
    v: *const f16,
    stride: usize,
    out: *mut f32,
) {
    use std::arch::x86_64::*;
    let mut acc = [_mm256_setzero_ps(); N];
    for (j, &p) in probs.iter().enumerate() {
        let p = _mm256_set1_ps(p);
        let row = v.add(j * stride);
        for (i, a) in acc.iter_mut().enumerate() {
            *a = _mm256_fmadd_ps(p, load_f16(row.add(8 * i)), *a);
        }
    }
    for (i, a) in acc.iter().enumerate() {
        _mm256_storeu_ps(out.add(8 * i), *a);
    }
}

fn attend_group(q: &[f32], head: HeadCache<'_>, scores: &mut Vec<f32>, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if head.hd.is_multiple_of(8)
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && std::arch::is_x86_feature_detected!("f16c")
    {
        // SAFETY: the features were just detected and `hd` is whole lanes.
        unsafe { attend_group_avx2(q, head, scores, out) };
        return;
    }
    attend_group_body(q, head, scores, out)
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

    /// Floats per position in one layer's K (or V) cache.
    pub(crate) fn kv_row(&self) -> usize {
        self.cfg.n_kv_head * self.cfg.head_dim
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
        KvCache {
            k: vec![Vec::new(); self.cfg.n_layer],
            v: vec![Vec::new(); self.cfg.n_layer],
            len: 0,
        }
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
                    s.cache.k[li].extend(r[h..h + kv].iter().map(|&x| f16::from_f32(x)));
                    s.cache.v[li].extend(r[h + kv..].iter().map(|&x| f16::from_f32(x)));
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
            let mut act = Vec::with_capacity(total * c.ffn);
            for row in gu.chunks_exact(2 * c.ffn) {
                let (g, u) = row.split_at(c.ffn);
                act.extend(g.iter().zip(u).map(|(g, u)| g / (1.0 + (-g).exp()) * u));
            }
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

    /// Attention of every segment's new tokens (`spans`: first row, new
    /// tokens, first position) into its rows of `out`. Each segment reads
    /// only its own cache and writes only its own rows. Prompt chunks go
    /// first, one at a time, each spreading its blocks and KV heads over the
    /// threads; then the decoding segments (the plain loop), each query head
    /// of each one an item for the pool when there is enough work: the same
    /// code per head, so the same bits, whichever thread ran it.
    fn attention(
        &self,
        li: usize,
        caches: &[&KvCache],
        spans: &[(usize, usize, usize)],
        qkv: &[f32],
        out: &mut [f32],
    ) {
        let (h, qkv_w) = (self.cfg.hidden, self.qkv_width());
        // Work of a segment: query rows × positions they attend to.
        let cost = |&(_, n, start): &(usize, usize, usize)| n * (start + n);
        let decoding = |&(_, n, _): &(usize, usize, usize)| n < MATMUL_ATTENTION_FROM;
        let queries = |i: usize| {
            let (row0, n, start) = spans[i];
            Queries {
                cache: caches[i],
                li,
                start,
                n,
                rows: &qkv[row0 * qkv_w..(row0 + n) * qkv_w],
            }
        };
        let run = |i: usize, rows: &mut [f32]| self.attend_segment(queries(i), rows);
        // Each segment's rows of `out`, prompt chunks run as they come.
        let mut decode_rows: Vec<(usize, &mut [f32])> = Vec::new();
        let mut rest = out;
        for (i, span) in spans.iter().enumerate() {
            let (rows, tail) = std::mem::take(&mut rest).split_at_mut(span.1 * h);
            rest = tail;
            if decoding(span) {
                decode_rows.push((i, rows));
            } else {
                run(i, rows);
            }
        }
        let work: usize = decode_rows.iter().map(|&(i, _)| cost(&spans[i])).sum();
        if self.threads < 2 || work < PARALLEL_ATTENTION_FROM {
            for (i, rows) in decode_rows {
                run(i, rows);
            }
            return;
        }
        // One item per decoding segment and query head, on the pool (three
        // KV heads would leave one of two threads idle a third of the time):
        // a head's scores, softmax and weighted values are the same code as
        // in the loop, which takes a KV head's query heads together, so the
        // same bits whichever thread ran it.
        let hd = self.cfg.head_dim;
        let items: Vec<(usize, usize)> = decode_rows
            .iter()
            .flat_map(|&(i, _)| (0..self.cfg.n_head).map(move |head| (i, head)))
            .collect();
        let heads: Vec<Vec<f32>> = items
            .par_iter()
            .map(|&(i, head)| {
                let qs = queries(i);
                let mut out = vec![0f32; qs.n * hd];
                let mut scores = Vec::new();
                for (t, out) in out.chunks_exact_mut(hd).enumerate() {
                    self.attend_heads(qs, t, head..head + 1, &mut scores, out);
                }
                out
            })
            .collect();
        let mut heads = heads.into_iter();
        for (_, rows) in decode_rows {
            for head in 0..self.cfg.n_head {
                let part = heads.next().expect("one result per item");
                for (row, part) in rows.chunks_exact_mut(h).zip(part.chunks_exact(hd)) {
                    row[head * hd..(head + 1) * hd].copy_from_slice(part);
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
        let (h, width) = (self.cfg.hidden, self.group_width());
        let mut scores = Vec::new();
        for (t, row) in out.chunks_exact_mut(h).take(qs.n).enumerate() {
            for (kvh, out) in row.chunks_exact_mut(width).enumerate() {
                let group = width / self.cfg.head_dim;
                self.attend_heads(qs, t, kvh * group..(kvh + 1) * group, &mut scores, out);
            }
        }
    }

    /// New token `t` of `qs`, query heads `heads` (all of one KV head's
    /// group, or some of them), into `out` (their `heads × head_dim`
    /// columns).
    fn attend_heads(
        &self,
        qs: Queries<'_>,
        t: usize,
        heads: std::ops::Range<usize>,
        scores: &mut Vec<f32>,
        out: &mut [f32],
    ) {
        let c = &self.cfg;
        let (h, hd, kv) = (c.hidden, c.head_dim, c.n_kv_head * c.head_dim);
        let kvh = heads.start / (c.n_head / c.n_kv_head);
        let q = &qs.rows[t * (h + 2 * kv)..t * (h + 2 * kv) + h];
        let head = HeadCache {
            k: &qs.cache.k[qs.li],
            v: &qs.cache.v[qs.li],
            len: qs.start + t + 1,
            stride: kv,
            offset: kvh * hd,
            hd,
            scale: 1.0 / (hd as f32).sqrt(),
        };
        attend_group(&q[heads.start * hd..heads.end * hd], head, scores, out);
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
        let widen = |c: &[f16]| {
            let mut f = vec![0f32; len * kv];
            c[..len * kv].convert_to_f32_slice(&mut f);
            f
        };
        let (kc, vc) = (widen(&qs.cache.k[qs.li]), widen(&qs.cache.v[qs.li]));
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
                    // scores (m × len) = Q_head (row stride qkv_w) · Kᵀ ((d, j) at j·kv + kvh·hd + d).
                    matmul_into(
                        &mut scores,
                        false,
                        m,
                        len,
                        hd,
                        (&q_rows[t * qkv_w + head * hd..], qkv_w, 1),
                        (&kc[kvh * hd..], 1, kv),
                        len,
                        1,
                    );
                    for (i, row) in scores.chunks_exact_mut(len).enumerate() {
                        let visible = start + t + i + 1;
                        let (row, hidden) = row.split_at_mut(visible);
                        softmax(row, scale);
                        hidden.fill(0.0);
                    }
                    // This head's columns of the part = P (m × len) · V ((j, d) at j·kv + kvh·hd + d).
                    matmul_into(
                        &mut part[g * hd..],
                        false,
                        m,
                        hd,
                        len,
                        (&scores, len, 1),
                        (&vc[kvh * hd..], kv, 1),
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

#[cfg(test)]
mod tests {
    use super::{attend_group, HeadCache, KvCache};
    use crate::linalg::softmax;
    use half::f16;

    /// What decode attention computes on x86-64 with AVX2, written out
    /// one value at a time: each score in two fused multiply-add chains
    /// over alternate 8-value lanes, the lanes added in `hsum`'s tree, the
    /// shared softmax, then each output a fused multiply-add chain over the
    /// positions in order.
    fn in_stated_order(q: &[f32], head: HeadCache<'_>) -> Vec<f32> {
        let (hd, len) = (head.hd, head.len);
        let group = q.len() / hd;
        let mut out = vec![0f32; group * hd];
        for g in 0..group {
            let qh = &q[g * hd..(g + 1) * hd];
            let mut scores: Vec<f32> = (0..len)
                .map(|j| {
                    let k = head.row(head.k, j);
                    let v: Vec<f32> = (0..8)
                        .map(|l| {
                            let (mut a0, mut a1) = (0f32, 0f32);
                            let mut d = 0;
                            while d + 16 <= hd {
                                a0 = qh[d + l].mul_add(k[d + l].to_f32(), a0);
                                a1 = qh[d + 8 + l].mul_add(k[d + 8 + l].to_f32(), a1);
                                d += 16;
                            }
                            if d < hd {
                                a0 = qh[d + l].mul_add(k[d + l].to_f32(), a0);
                            }
                            a0 + a1
                        })
                        .collect();
                    let s: Vec<f32> = (0..4).map(|i| v[i] + v[i + 4]).collect();
                    ((s[0] + s[2]) + (s[1] + s[3])) * head.scale
                })
                .collect();
            softmax(&mut scores, 1.0);
            for (d, o) in out[g * hd..(g + 1) * hd].iter_mut().enumerate() {
                *o = (0..len).fold(0f32, |acc, j| {
                    scores[j].mul_add(head.row(head.v, j)[d].to_f32(), acc)
                });
            }
        }
        out
    }

    #[test]
    fn decode_attention_adds_in_its_stated_order() {
        #[cfg(target_arch = "x86_64")]
        if !(is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("f16c"))
        {
            return;
        }
        #[cfg(not(target_arch = "x86_64"))]
        return;
        let mut next = crate::test_values::uniform(7);
        // Head widths with and without a lone last lane of eight (and
        // without a whole 64-value stretch of values), short and long.
        for (hd, len) in [(64, 37), (64, 8), (64, 3), (40, 29)] {
            let (group, kv_heads) = (3, 3);
            let stride = kv_heads * hd;
            let k: Vec<f16> = (0..len * stride)
                .map(|_| f16::from_f32(next() * 4.0))
                .collect();
            let v: Vec<f16> = (0..len * stride).map(|_| f16::from_f32(next())).collect();
            let q: Vec<f32> = (0..group * hd).map(|_| next() * 2.0).collect();
            let head = HeadCache {
                k: &k,
                v: &v,
                len,
                stride,
                offset: hd,
                hd,
                scale: 1.0 / (hd as f32).sqrt(),
            };
            let mut out = vec![0f32; group * hd];
            attend_group(&q, head, &mut Vec::new(), &mut out);
            let want = in_stated_order(&q, head);
            assert_eq!(
                out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                "head width {hd}, {len} positions"
            );
        }
    }

    #[test]
    fn a_reserved_cache_holds_exactly_its_positions() {
        let row = 3;
        let mut cache = KvCache::filled(2, 10, row);
        cache.reserve(25, row);
        for layer in cache.k.iter().chain(&cache.v) {
            assert_eq!(layer.capacity(), 25 * row, "room for 25, not doubled");
            assert_eq!(layer.len(), 10 * row, "nothing written");
        }
        cache.reserve(5, row);
        assert_eq!(cache.k[0].capacity(), 25 * row, "never shrinks");
        let resumed = cache.prefix(4, 25, row);
        assert_eq!(resumed.len(), 4);
        assert_eq!(
            resumed.v[1].capacity(),
            25 * row,
            "a prefix comes with room"
        );
        assert_eq!(
            resumed.v[1],
            cache.v[1][..4 * row],
            "and the first positions"
        );
    }
}
