//! Decode attention: a few new tokens' queries against every cached
//! position, one query head (or one KV head's group of them) at a time.
//!
//! Agents decode against thousands of cached positions, and reading their
//! keys and values is most of the work. [`attend_shared`] takes the queries
//! of several sequences whose caches begin with the same frozen positions
//! (the system prompt and tools every conversation shares) and reads each
//! tile of those positions once for all of them.
//!
//! Every score is its own chain of fused multiply-adds, every output value
//! its own chain over the positions in order; however the work is tiled or
//! grouped, each chain runs the same operations in the same order, so a
//! reply never depends on which sequences decoded beside it.

use super::kv::Span;
use crate::linalg::softmax;
use half::f16;

/// Positions of a shared prefix that every query scores (then weighs)
/// before the next ones load: one KV head's 64 positions of keys, 8 KiB of
/// f16 at a head width of 64, stay in the first-level data cache while the
/// queries pass over them.
const TILE: usize = 64;

/// The cached keys and values one KV head's query group attends to: the
/// first `len` positions of `spans`, `stride` floats per position, the
/// head's `hd` floats at `offset` within a position; scores are scaled by
/// `scale` before the softmax.
#[derive(Clone, Copy)]
pub(super) struct HeadCache<'a> {
    pub(super) spans: &'a [Span<'a>],
    pub(super) len: usize,
    pub(super) stride: usize,
    pub(super) offset: usize,
    pub(super) hd: usize,
    pub(super) scale: f32,
}

/// Positions `first..first + count` of a head's cache, all in one span,
/// from the span's position `at`.
struct Stretch<'a> {
    span: Span<'a>,
    at: usize,
    first: usize,
    count: usize,
}

impl<'a> HeadCache<'a> {
    /// Positions `from..to` as stretches within one span each, in order.
    fn stretches(&self, from: usize, to: usize) -> impl Iterator<Item = Stretch<'a>> + '_ {
        let mut start = 0;
        self.spans.iter().filter_map(move |&span| {
            let (lo, hi) = (start, start + span.len);
            start = hi;
            let (a, b) = (from.max(lo), to.min(hi));
            (a < b).then_some(Stretch {
                span,
                at: a - lo,
                first: a,
                count: b - a,
            })
        })
    }

    /// This head's `hd` floats of position `j` (its K row with `key`, else
    /// its V row).
    #[cfg(test)]
    fn row(&self, j: usize, key: bool) -> &'a [f16] {
        let s = self
            .stretches(j, j + 1)
            .next()
            .expect("a position within the cache");
        let layer = if key { s.span.k } else { s.span.v };
        let at = s.at * self.stride + self.offset;
        &layer[at..at + self.hd]
    }
}

/// One query position, the `group` query heads sharing one KV head:
/// scores against `len` cached keys, softmax, weighted sum of values. Each K
/// and V row is read once for the whole group.
#[inline(always)]
fn attend_group_body(q: &[f32], head: HeadCache<'_>, scores: &mut Vec<f32>, out: &mut [f32]) {
    let (len, hd, stride) = (head.len, head.hd, head.stride);
    let group = q.len() / hd;
    scores.clear();
    scores.resize(group * len, 0.0);
    for s in head.stretches(0, len) {
        for i in 0..s.count {
            let k = &s.span.k[(s.at + i) * stride + head.offset..][..hd];
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
                scores[g * len + s.first + i] = acc.iter().sum::<f32>() * head.scale;
            }
        }
    }
    for row in scores.chunks_exact_mut(len) {
        softmax(row, 1.0);
    }
    out.fill(0.0);
    for s in head.stretches(0, len) {
        for i in 0..s.count {
            let v = &s.span.v[(s.at + i) * stride + head.offset..][..hd];
            for g in 0..group {
                let p = scores[g * len + s.first + i];
                for (o, v) in out[g * hd..(g + 1) * hd].iter_mut().zip(v) {
                    *o += p * v.to_f32();
                }
            }
        }
    }
}

/// Scores of the query heads in `q` (a KV head's group, or one of them)
/// against positions `from..to`: `scores[g * len + j]` for head `g` and
/// position `j`. Each score is two fused multiply-add chains over alternate
/// lanes of eight, added in `hsum`'s tree, then scaled.
///
/// # Safety
/// AVX2, FMA and F16C; `hd` a multiple of 8; `to <= head.len`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn scores_avx2(
    q: &[f32],
    head: &HeadCache<'_>,
    from: usize,
    to: usize,
    scores: &mut [f32],
    len: usize,
) {
    use std::arch::x86_64::*;
    let (stride, offset, hd) = (head.stride, head.offset, head.hd);
    let group = q.len() / hd;
    assert!(q.len() == group * hd && to <= head.len && scores.len() >= (group - 1) * len + to);
    let (qp, sp) = (q.as_ptr(), scores.as_mut_ptr());
    for s in head.stretches(from, to) {
        assert!(s.span.k.len() >= (s.at + s.count - 1) * stride + offset + hd);
        let kp = s.span.k.as_ptr().add(s.at * stride + offset);
        for i in 0..s.count {
            let (k, j) = (kp.add(i * stride), s.first + i);
            for g in 0..group {
                let qh = qp.add(g * hd);
                let (mut a0, mut a1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
                let mut d = 0;
                while d + 16 <= hd {
                    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(qh.add(d)), load_f16(k.add(d)), a0);
                    a1 =
                        _mm256_fmadd_ps(_mm256_loadu_ps(qh.add(d + 8)), load_f16(k.add(d + 8)), a1);
                    d += 16;
                }
                if d < hd {
                    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(qh.add(d)), load_f16(k.add(d)), a0);
                }
                *sp.add(g * len + j) = super::simd::hsum(_mm256_add_ps(a0, a1)) * head.scale;
            }
        }
    }
}

/// Adds to `out` (one query head's `hd` floats) the values of positions
/// `from..to` weighted by `probs[j]`: each output a fused multiply-add chain
/// over the positions in order, carried on from what `out` holds.
///
/// # Safety
/// AVX2, FMA and F16C; `hd` a multiple of 8; `to <= head.len`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn values_avx2(
    probs: &[f32],
    head: &HeadCache<'_>,
    from: usize,
    to: usize,
    out: &mut [f32],
) {
    let (stride, offset, hd) = (head.stride, head.offset, head.hd);
    assert!(out.len() == hd && probs.len() >= to && to <= head.len);
    for s in head.stretches(from, to) {
        assert!(s.span.v.len() >= (s.at + s.count - 1) * stride + offset + hd);
        let v = s.span.v.as_ptr().add(s.at * stride + offset);
        let probs = &probs[s.first..s.first + s.count];
        let mut d = 0;
        while hd - d >= 64 {
            weighted_rows_avx::<8>(probs, v.add(d), stride, out.as_mut_ptr().add(d));
            d += 64;
        }
        while d < hd {
            weighted_rows_avx::<1>(probs, v.add(d), stride, out.as_mut_ptr().add(d));
            d += 8;
        }
    }
}

/// [`attend_group_body`] with AVX2+FMA intrinsics (the default x86-64
/// target only has SSE2, and the compiler left the scores' dot products
/// scalar): eight lanes per instruction, keys and values widened from f16
/// by F16C as they load, and each head's output kept in registers across a
/// span's positions. Rounding differs from the portable body (fused
/// multiply-adds), so one machine always takes one of the two.
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
    let (len, hd) = (head.len, head.hd);
    let group = q.len() / hd;
    assert!(out.len() == group * hd);
    scores.clear();
    scores.resize(group * len, 0.0);
    scores_avx2(q, &head, 0, len, scores, len);
    for row in scores.chunks_exact_mut(len) {
        softmax(row, 1.0);
    }
    out.fill(0.0);
    for (probs, out) in scores.chunks_exact(len).zip(out.chunks_exact_mut(hd)) {
        values_avx2(probs, &head, 0, len, out);
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

/// `out[..8N] += Σ_j probs[j] · v[j·stride ..][..8N]`, the sums held in `N`
/// registers across all rows.
///
/// # Safety
/// AVX2, FMA and F16C; `v` readable for `probs.len()` rows of `stride`
/// values (the last one 8N wide) and `out` readable and writable for 8N
/// floats.
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
    for (i, a) in acc.iter_mut().enumerate() {
        *a = _mm256_loadu_ps(out.add(8 * i));
    }
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

#[cfg(target_arch = "x86_64")]
fn has_avx2(hd: usize) -> bool {
    hd.is_multiple_of(8)
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && std::arch::is_x86_feature_detected!("f16c")
}

/// Attention of one query position's heads `q` (a KV head's group, or one
/// of them) into `out`.
pub(super) fn attend_group(q: &[f32], head: HeadCache<'_>, scores: &mut Vec<f32>, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2(head.hd) {
        // SAFETY: the features were just detected and `hd` is whole lanes.
        unsafe { attend_group_avx2(q, head, scores, out) };
        return;
    }
    attend_group_body(q, head, scores, out)
}

/// One query head of one new token: `q` attends to `head` into `out`
/// (`hd` floats each).
pub(super) struct Query<'a> {
    pub(super) q: &'a [f32],
    pub(super) head: HeadCache<'a>,
    pub(super) out: &'a mut [f32],
}

/// Attention of `queries` whose caches begin with the same `common`
/// positions in the same memory (0: none shared): a tile of those
/// positions' keys, later of their values, is read once for all of them.
/// Each query gets the bits [`attend_group`] gives it alone.
pub(super) fn attend_shared(queries: &mut [Query<'_>], common: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(first) = queries.first() {
        if has_avx2(first.head.hd) && queries.iter().all(|q| q.head.hd == first.head.hd) {
            // SAFETY: the features were just detected and `hd` is whole lanes.
            unsafe { attend_shared_avx2(queries, common) };
            return;
        }
    }
    let mut scores = Vec::new();
    for q in queries.iter_mut() {
        attend_group(q.q, q.head, &mut scores, q.out);
    }
}

/// [`attend_shared`] on AVX2: the shared positions tile by tile for every
/// query, then each query's own; the same per-query chains as
/// [`attend_group_avx2`], each carried on across the tiles.
///
/// # Safety
/// AVX2, FMA and F16C; every query's `hd` a multiple of 8.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn attend_shared_avx2(queries: &mut [Query<'_>], common: usize) {
    let mut at = Vec::with_capacity(queries.len() + 1);
    at.push(0);
    for q in queries.iter() {
        assert!(common <= q.head.len && q.q.len() == q.head.hd && q.out.len() == q.head.hd);
        at.push(at.last().copied().unwrap_or(0) + q.head.len);
    }
    let mut scores = vec![0f32; at[queries.len()]];
    let tiles: Vec<(usize, usize)> = (0..common)
        .step_by(TILE)
        .map(|j| (j, (j + TILE).min(common)))
        .collect();
    let row = |i: usize| at[i]..at[i + 1];
    for &(from, to) in &tiles {
        for (i, q) in queries.iter().enumerate() {
            scores_avx2(q.q, &q.head, from, to, &mut scores[row(i)], q.head.len);
        }
    }
    for (i, q) in queries.iter().enumerate() {
        let len = q.head.len;
        let scores = &mut scores[row(i)];
        scores_avx2(q.q, &q.head, common, len, scores, len);
        softmax(scores, 1.0);
    }
    for q in queries.iter_mut() {
        q.out.fill(0.0);
    }
    for &(from, to) in &tiles {
        for (i, q) in queries.iter_mut().enumerate() {
            values_avx2(&scores[row(i)], &q.head, from, to, q.out);
        }
    }
    for (i, q) in queries.iter_mut().enumerate() {
        values_avx2(&scores[row(i)], &q.head, common, q.head.len, q.out);
    }
}

#[cfg(test)]
mod tests {
    use super::{attend_group, attend_group_body, attend_shared, HeadCache, Query};
    use crate::generator::kv::Span;
    use crate::linalg::softmax;
    use half::f16;

    fn avx2() -> bool {
        #[cfg(target_arch = "x86_64")]
        return is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("f16c");
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

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
                    let k = head.row(j, true);
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
                    scores[j].mul_add(head.row(j, false)[d].to_f32(), acc)
                });
            }
        }
        out
    }

    fn bits(x: &[f32]) -> Vec<u32> {
        x.iter().map(|x| x.to_bits()).collect()
    }

    /// `len` positions of `stride` random f16 for keys, then values.
    fn positions(len: usize, stride: usize, next: &mut impl FnMut() -> f32) -> Vec<f16> {
        (0..len * stride)
            .map(|_| f16::from_f32(next() * 4.0))
            .collect()
    }

    #[test]
    fn decode_attention_adds_in_its_stated_order() {
        let mut next = crate::test_values::uniform(7);
        // Head widths with and without a lone last lane of eight (and
        // without a whole 64-value stretch of values), short and long,
        // in one span and cut into three.
        for (hd, len) in [(64, 37), (64, 8), (64, 3), (40, 29)] {
            let (group, kv_heads) = (3, 3);
            let stride = kv_heads * hd;
            let k = positions(len, stride, &mut next);
            let v = positions(len, stride, &mut next);
            let q: Vec<f32> = (0..group * hd).map(|_| next() * 2.0).collect();
            let whole = [Span { k: &k, v: &v, len }];
            let (a, b) = (len / 3, len / 3 + len / 2);
            let cut = [
                Span {
                    k: &k,
                    v: &v,
                    len: a,
                },
                Span {
                    k: &k[a * stride..],
                    v: &v[a * stride..],
                    len: b - a,
                },
                Span {
                    k: &k[b * stride..],
                    v: &v[b * stride..],
                    len: len - b,
                },
            ];
            let head = |spans| HeadCache {
                spans,
                len,
                stride,
                offset: hd,
                hd,
                scale: 1.0 / (hd as f32).sqrt(),
            };
            let mut portable = vec![vec![0f32; group * hd]; 2];
            for (spans, out) in [&whole[..], &cut[..]].into_iter().zip(&mut portable) {
                attend_group_body(&q, head(spans), &mut Vec::new(), out);
            }
            assert_eq!(
                bits(&portable[0]),
                bits(&portable[1]),
                "portable, cut into spans"
            );
            if !avx2() {
                continue;
            }
            let want = in_stated_order(&q, head(&whole));
            for spans in [&whole[..], &cut[..]] {
                let mut out = vec![0f32; group * hd];
                attend_group(&q, head(spans), &mut Vec::new(), &mut out);
                assert_eq!(
                    bits(&out),
                    bits(&want),
                    "head width {hd}, {len} positions in {} spans",
                    spans.len()
                );
            }
        }
    }

    #[test]
    fn queries_sharing_a_prefix_get_the_bits_each_gets_alone() {
        let mut next = crate::test_values::uniform(11);
        let (hd, stride, offset) = (64, 192, 64);
        // A shared prefix longer than two tiles, then each sequence's own
        // positions: none, a few, many.
        let shared_len = 150;
        let (sk, sv) = (
            positions(shared_len, stride, &mut next),
            positions(shared_len, stride, &mut next),
        );
        let own: Vec<(Vec<f16>, Vec<f16>, usize)> = [0, 5, 90]
            .into_iter()
            .map(|n| {
                let k = positions(n, stride, &mut next);
                (k, positions(n, stride, &mut next), n)
            })
            .collect();
        let spans: Vec<[Span<'_>; 2]> = own
            .iter()
            .map(|(k, v, n)| {
                [
                    Span {
                        k: &sk,
                        v: &sv,
                        len: shared_len,
                    },
                    Span { k, v, len: *n },
                ]
            })
            .collect();
        let qs: Vec<Vec<f32>> = (0..spans.len() * 2)
            .map(|_| (0..hd).map(|_| next() * 2.0).collect())
            .collect();
        // Two query heads per sequence; the second attends one position
        // fewer (an earlier token of the same step).
        let head = |i: usize| HeadCache {
            spans: &spans[i / 2],
            len: shared_len + own[i / 2].2 - (i % 2).min(own[i / 2].2),
            stride,
            offset,
            hd,
            scale: 0.125,
        };
        let alone: Vec<Vec<f32>> = (0..qs.len())
            .map(|i| {
                let mut out = vec![0f32; hd];
                attend_group(&qs[i], head(i), &mut Vec::new(), &mut out);
                out
            })
            .collect();
        for common in [0, 64, shared_len - 1] {
            let mut outs = vec![vec![f32::NAN; hd]; qs.len()];
            let mut queries: Vec<Query<'_>> = outs
                .iter_mut()
                .enumerate()
                .map(|(i, out)| Query {
                    q: &qs[i],
                    head: head(i),
                    out,
                })
                .collect();
            attend_shared(&mut queries, common);
            for (i, (got, want)) in outs.iter().zip(&alone).enumerate() {
                assert_eq!(bits(got), bits(want), "query {i}, {common} shared");
            }
        }
    }
}
