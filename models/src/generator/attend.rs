//! Decode attention: a few new tokens' queries against every cached
//! position, one KV head's group of query heads at a time.
//!
//! Agents decode against thousands of cached positions, and reading their
//! keys and values is most of the work. Each position's keys and values are
//! widened from f16 once for all the query heads of its KV head, and
//! [`attend_shared`] takes the queries of several sequences whose caches
//! begin with the same frozen positions (the system prompt and tools every
//! conversation shares) and reads each tile of those positions once for all
//! of them.
//!
//! Every score is its own chain of fused multiply-adds, every output value
//! its own chain over the positions in order; however the work is tiled or
//! grouped, each chain runs the same operations in the same order, so a
//! reply never depends on which sequences decoded beside it.

use super::kv::Span;
use crate::linalg::softmax;
use half::f16;

/// Positions widened to f32 together and read by every query head before
/// the next ones: 64 positions of one KV head, 16 KiB at a head width of
/// 64, stay in the first-level data cache while the heads pass over them.
const TILE: usize = 64;

/// The cached keys and values one KV head's query group attends to: the
/// first `len` positions of `spans`, the head's `hd` floats each, side by
/// side; scores are scaled by `scale` before the softmax.
#[derive(Clone, Copy)]
pub(super) struct HeadCache<'a> {
    pub(super) spans: &'a [Span<'a>],
    pub(super) len: usize,
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
        let at = s.at * self.hd;
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
    for s in head.stretches(0, len) {
        for i in 0..s.count {
            let k = &s.span.k[(s.at + i) * hd..][..hd];
            for g in 0..group {
                let qh = &q[g * hd..(g + 1) * hd];
                // Eight partial sums (the compiler still emits scalar code;
                // x86-64 with AVX2 takes `attend_shared_avx2` instead).
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
            let v = &s.span.v[(s.at + i) * hd..][..hd];
            for g in 0..group {
                let p = scores[g * len + s.first + i];
                for (o, v) in out[g * hd..(g + 1) * hd].iter_mut().zip(v) {
                    *o += p * v.to_f32();
                }
            }
        }
    }
}

/// Widens positions `from..to` of `head`'s keys (`key`) or values into
/// `tile`, `hd` floats per position, densely (exactly: every f16 is an
/// f32).
///
/// # Safety
/// AVX2 and F16C; `hd` a multiple of 8; `to <= head.len`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn widen_avx2(head: &HeadCache<'_>, from: usize, to: usize, key: bool, tile: &mut [f32]) {
    use std::arch::x86_64::*;
    let hd = head.hd;
    assert!(to <= head.len && tile.len() >= (to - from) * hd);
    let out = tile.as_mut_ptr();
    let mut at = 0;
    for s in head.stretches(from, to) {
        let rows = if key { s.span.k } else { s.span.v };
        assert!(rows.len() >= (s.at + s.count) * hd);
        // The stretch's rows are one dense run: widened as one.
        let (src, o) = (rows.as_ptr().add(s.at * hd), out.add(at * hd));
        let mut d = 0;
        while d < s.count * hd {
            _mm256_storeu_ps(o.add(d), load_f16(src.add(d)));
            d += 8;
        }
        at += s.count;
    }
}

/// Scores of the query heads in `q` (a KV head's group) against the
/// `count` positions in `tile` (dense, `hd` floats each), the first of them
/// position `first`: `scores[g * len + first + j]` for head `g`. Each score
/// is two fused multiply-add chains over alternate lanes of eight, added in
/// `hsum`'s tree, then scaled by `scale`.
///
/// # Safety
/// AVX2 and FMA; `hd` a multiple of 8.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn scores_tile(
    q: &[f32],
    hd: usize,
    tile: &[f32],
    count: usize,
    first: usize,
    scale: f32,
    scores: &mut [f32],
    len: usize,
) {
    use std::arch::x86_64::*;
    let group = q.len() / hd;
    assert!(q.len() == group * hd && tile.len() >= count * hd);
    assert!(group > 0 && scores.len() >= (group - 1) * len + first + count);
    let (qp, sp) = (q.as_ptr(), scores.as_mut_ptr());
    for j in 0..count {
        let k = tile.as_ptr().add(j * hd);
        for g in 0..group {
            let qh = qp.add(g * hd);
            let (mut a0, mut a1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
            let mut d = 0;
            while d + 16 <= hd {
                a0 = _mm256_fmadd_ps(_mm256_loadu_ps(qh.add(d)), _mm256_loadu_ps(k.add(d)), a0);
                a1 = _mm256_fmadd_ps(
                    _mm256_loadu_ps(qh.add(d + 8)),
                    _mm256_loadu_ps(k.add(d + 8)),
                    a1,
                );
                d += 16;
            }
            if d < hd {
                a0 = _mm256_fmadd_ps(_mm256_loadu_ps(qh.add(d)), _mm256_loadu_ps(k.add(d)), a0);
            }
            *sp.add(g * len + first + j) = super::simd::hsum(_mm256_add_ps(a0, a1)) * scale;
        }
    }
}

/// Adds to `out` (one query head's `hd` floats) the rows of `tile` (dense,
/// `hd` floats each) weighted by `probs`: each output a fused multiply-add
/// chain over the rows in order, carried on from what `out` holds.
///
/// # Safety
/// AVX2 and FMA; `hd` a multiple of 8.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn values_tile(probs: &[f32], tile: &[f32], hd: usize, out: &mut [f32]) {
    assert!(out.len() == hd && tile.len() >= probs.len() * hd);
    let (v, o) = (tile.as_ptr(), out.as_mut_ptr());
    let mut d = 0;
    while hd - d >= 64 {
        weighted_rows::<8>(probs, v.add(d), hd, o.add(d));
        d += 64;
    }
    while d < hd {
        weighted_rows::<1>(probs, v.add(d), hd, o.add(d));
        d += 8;
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
/// AVX2 and FMA; `v` readable for `probs.len()` rows of `stride` values
/// (the last one 8N wide) and `out` readable and writable for 8N floats.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn weighted_rows<const N: usize>(
    probs: &[f32],
    v: *const f32,
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
            *a = _mm256_fmadd_ps(p, _mm256_loadu_ps(row.add(8 * i)), *a);
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
        unsafe { attend_shared_avx2(&mut [Query { q, head, out }], 0) };
        return;
    }
    attend_group_body(q, head, scores, out)
}

/// One new token's query heads that share a KV head: `q` attends to `head`
/// into `out` (`group × hd` floats each).
pub(super) struct Query<'a> {
    pub(super) q: &'a [f32],
    pub(super) head: HeadCache<'a>,
    pub(super) out: &'a mut [f32],
}

/// Attention of `queries` whose caches begin with the same `common`
/// positions in the same memory (0: none shared): a tile of those
/// positions' keys, later of their values, is widened once for all of them.
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

/// [`attend_shared`] on AVX2. Positions go through a tile of f32, [`TILE`]
/// at a time: each is widened from f16 once and then read by every query
/// head of the group (and, for the shared positions, of every query), where
/// widening it as each head reads it cost a conversion per head. The
/// shared positions first, tile by tile for every query, then each query's
/// own; every score and output is the same chain in the same order however
/// the positions are tiled, so a query gets the same bits alone or beside
/// others.
///
/// # Safety
/// AVX2, FMA and F16C; every query's `hd` the same multiple of 8.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn attend_shared_avx2(queries: &mut [Query<'_>], common: usize) {
    let Some(hd) = queries.first().map(|q| q.head.hd) else {
        return;
    };
    let mut at = Vec::with_capacity(queries.len() + 1);
    at.push(0);
    for q in queries.iter() {
        let group = q.q.len() / hd;
        assert!(common <= q.head.len && q.head.hd == hd);
        assert!(group > 0 && q.q.len() == group * hd && q.out.len() == group * hd);
        at.push(at.last().copied().unwrap_or(0) + group * q.head.len);
    }
    let mut scores = vec![0f32; at[queries.len()]];
    let mut tile = vec![0f32; TILE * hd];
    let tiles = |from: usize, to: usize| {
        (from..to)
            .step_by(TILE)
            .map(move |j| (j, (j + TILE).min(to)))
    };
    let row = |i: usize| at[i]..at[i + 1];
    for (from, to) in tiles(0, common) {
        widen_avx2(&queries[0].head, from, to, true, &mut tile);
        for (i, q) in queries.iter().enumerate() {
            let h = &q.head;
            scores_tile(
                q.q,
                hd,
                &tile,
                to - from,
                from,
                h.scale,
                &mut scores[row(i)],
                h.len,
            );
        }
    }
    for (i, q) in queries.iter().enumerate() {
        let (h, scores) = (&q.head, &mut scores[row(i)]);
        for (from, to) in tiles(common, h.len) {
            widen_avx2(h, from, to, true, &mut tile);
            scores_tile(q.q, hd, &tile, to - from, from, h.scale, scores, h.len);
        }
        for row in scores.chunks_exact_mut(h.len) {
            softmax(row, 1.0);
        }
    }
    for q in queries.iter_mut() {
        q.out.fill(0.0);
    }
    // Every head's outputs of the tile's rows, weighed by its probabilities.
    let weigh =
        |probs: &[f32], len: usize, from: usize, to: usize, tile: &[f32], out: &mut [f32]| {
            for (probs, out) in probs.chunks_exact(len).zip(out.chunks_exact_mut(hd)) {
                values_tile(&probs[from..to], tile, hd, out);
            }
        };
    for (from, to) in tiles(0, common) {
        widen_avx2(&queries[0].head, from, to, false, &mut tile);
        for (i, q) in queries.iter_mut().enumerate() {
            weigh(&scores[row(i)], q.head.len, from, to, &tile, q.out);
        }
    }
    for (i, q) in queries.iter_mut().enumerate() {
        let h = q.head;
        for (from, to) in tiles(common, h.len) {
            widen_avx2(&h, from, to, false, &mut tile);
            weigh(&scores[row(i)], h.len, from, to, &tile, q.out);
        }
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

    /// `len` positions of `hd` random f16.
    fn positions(len: usize, hd: usize, next: &mut impl FnMut() -> f32) -> Vec<f16> {
        (0..len * hd).map(|_| f16::from_f32(next() * 4.0)).collect()
    }

    #[test]
    fn decode_attention_adds_in_its_stated_order() {
        let mut next = crate::test_values::uniform(7);
        // Head widths with and without a lone last lane of eight (and
        // without a whole 64-value stretch of values), short and long,
        // in one span and cut into three.
        for (hd, len) in [(64, 37), (64, 8), (64, 3), (40, 29)] {
            let group = 3;
            let k = positions(len, hd, &mut next);
            let v = positions(len, hd, &mut next);
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
                    k: &k[a * hd..],
                    v: &v[a * hd..],
                    len: b - a,
                },
                Span {
                    k: &k[b * hd..],
                    v: &v[b * hd..],
                    len: len - b,
                },
            ];
            let head = |spans| HeadCache {
                spans,
                len,
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
        let hd = 64;
        // A shared prefix longer than two tiles, then each sequence's own
        // positions: none, a few, many.
        let shared_len = 150;
        let (sk, sv) = (
            positions(shared_len, hd, &mut next),
            positions(shared_len, hd, &mut next),
        );
        let own: Vec<(Vec<f16>, Vec<f16>, usize)> = [0, 5, 90]
            .into_iter()
            .map(|n| {
                let k = positions(n, hd, &mut next);
                (k, positions(n, hd, &mut next), n)
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
        // Two new tokens per sequence, each with a KV head's group of three
        // query heads; the second attends one position fewer (an earlier
        // token of the same step).
        let group = 3;
        let qs: Vec<Vec<f32>> = (0..spans.len() * 2)
            .map(|_| (0..group * hd).map(|_| next() * 2.0).collect())
            .collect();
        let head = |i: usize| HeadCache {
            spans: &spans[i / 2],
            len: shared_len + own[i / 2].2 - (i % 2).min(own[i / 2].2),
            hd,
            scale: 0.125,
        };
        let alone: Vec<Vec<f32>> = (0..qs.len())
            .map(|i| {
                let mut out = vec![0f32; group * hd];
                attend_group(&qs[i], head(i), &mut Vec::new(), &mut out);
                out
            })
            .collect();
        for common in [0, 64, shared_len - 1] {
            let mut outs = vec![vec![f32::NAN; group * hd]; qs.len()];
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
