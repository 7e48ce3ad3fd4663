//! The generator's weight matrices and their product with activations.
//!
//! A matrix keeps the block format its file gives when a kernel here
//! multiplies that format ([`Q4Matrix`] for Q4_1, the SmolLM2 file's), and
//! is re-quantised to 8-bit blocks ([`Q8Matrix`]) otherwise. Either way the
//! activations are quantised to 8-bit blocks once per product. Both
//! formats interleave their rows in groups of eight, one row per vector
//! lane, and a group meets each activation row of a tile while it is in
//! cache, so batched decoding and prompt chunks reuse every load. On CPUs
//! with AVX-512 VNNI, 4-bit groups run two at a time in 512-bit registers,
//! and on CPUs with AMX, prompt chunks' 4-bit products run on its tiles
//! (`amx.rs`); the same bits every way.
//!
//! Why not candle's quantized matmul: its thread pool spin-waits, so on a
//! busy machine (CI, a laptop compiling) a descheduled worker stalls each of
//! the ~120 products of a decode step (measured 4× slower than one thread);
//! and its kernel handles one activation row at a time, converting the f16
//! block scales on every dot product.

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
use super::amx::{Amx, TILE};
use super::gguf::{Kind, Tensor};
use super::q4::{Q4Matrix, Wide};
use super::q8::{quantize, Activations, Q8Matrix, Row, GROUP};
use crate::error::ModelError;
use rayon::prelude::*;
use std::ops::Range;

/// Multiply-adds (activation rows × weight rows × row length) from which a
/// product is split across threads. The pool's threads are already running,
/// so handing a band over costs microseconds: every product of one decoding
/// sequence (0.3M to 1.8M) is above it.
const PARALLEL_FROM_MACS: usize = 1 << 18;

/// Activation rows a weight group meets before the next group is read.
const ROW_TILE: usize = 32;

/// Activation rows from which a product's threads split the activation
/// rows rather than the weight rows: a prompt chunk's output is written in
/// place, where joining bands of columns would copy all of it on one
/// thread; each thread then reads all the weights, which a decoding step
/// (bound by reading them) cannot afford.
const SPLIT_ACTIVATIONS_FROM: usize = 64;

/// Which instruction set the block kernels run: AVX-VNNI, AVX-512 VNNI or
/// AVX2 (the same integers, so the same bits), or the portable code. Detected once per
/// band of a product, not per dot product.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Isa {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Vnni,
    #[cfg(target_arch = "x86_64")]
    Vnni512,
}

impl Isa {
    pub(crate) fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            return if is_x86_feature_detected!("avxvnni") {
                Isa::Vnni
            } else if is_x86_feature_detected!("avx512vnni") && is_x86_feature_detected!("avx512vl")
            {
                Isa::Vnni512
            } else {
                Isa::Avx2
            };
        }
        Isa::Portable
    }

    /// Every instruction set this CPU runs, the portable code first.
    #[cfg(test)]
    pub(crate) fn all_here() -> Vec<Isa> {
        let mut all = vec![Isa::Portable];
        #[cfg(target_arch = "x86_64")]
        match Isa::detect() {
            Isa::Vnni => all.extend([Isa::Avx2, Isa::Vnni]),
            Isa::Vnni512 => all.extend([Isa::Avx2, Isa::Vnni512]),
            Isa::Avx2 => all.push(Isa::Avx2),
            Isa::Portable => {}
        }
        all
    }
}

/// A `rows × k` weight matrix in one block format.
pub(crate) enum Weights {
    Q8(Q8Matrix),
    Q4(Q4Matrix),
}

impl Weights {
    /// Stacks `parts` (each `n_i × k`) along the rows: kept as Q4_1 blocks
    /// when every part is Q4_1, otherwise dequantised and re-quantised to
    /// 8-bit blocks.
    pub(crate) fn from_tensors(parts: &[Tensor]) -> Result<Weights, ModelError> {
        if !parts.is_empty() && parts.iter().all(|p| p.kind == Kind::Q4_1) {
            Ok(Weights::Q4(Q4Matrix::from_tensors(parts)?))
        } else {
            Ok(Weights::Q8(Q8Matrix::from_tensors(parts)?))
        }
    }

    pub(crate) fn rows(&self) -> usize {
        match self {
            Weights::Q8(w) => w.rows(),
            Weights::Q4(w) => w.rows(),
        }
    }

    fn k(&self) -> usize {
        match self {
            Weights::Q8(w) => w.k(),
            Weights::Q4(w) => w.k(),
        }
    }

    /// Row `r` as floats (embedding lookup).
    pub(crate) fn row_f32(&self, r: usize, out: &mut [f32]) {
        match self {
            Weights::Q8(w) => w.row_f32(r, out),
            Weights::Q4(w) => w.row_f32(r, out),
        }
    }

    /// `x (m × k) · selfᵀ` → `m × rows`, with up to `threads` threads. Each
    /// output is computed by the same code whatever `m`, `threads` or the
    /// part of the work it falls in, so a row's result never depends on its
    /// batch.
    pub(crate) fn matmul(&self, x: &[f32], m: usize, threads: usize) -> Vec<f32> {
        let n = self.rows();
        let xq = quantize(x, self.k(), matches!(self, Weights::Q4(_)));
        let threads = if m * n * self.k() >= PARALLEL_FROM_MACS {
            threads.clamp(1, n)
        } else {
            1
        };
        let mut out = vec![0f32; m * n];
        if threads == 1 {
            self.band(&xq, 0..m, 0, n, &mut out);
            return out;
        }
        if m >= SPLIT_ACTIVATIONS_FROM {
            // A prompt chunk: each thread takes whole rows of the output,
            // every weight row against its share of the activation rows, and
            // writes them in place.
            let share = m.div_ceil(threads).next_multiple_of(4);
            out.par_chunks_mut(share * n)
                .enumerate()
                .for_each(|(t, rows)| {
                    let first = t * share;
                    self.band(&xq, first..first + rows.len() / n, 0, n, rows);
                });
            return out;
        }
        // A decoding step, a few activation rows: each thread owns a band of
        // weight rows (output columns), whole pairs of groups of eight (the
        // wide kernels' unit), so the weights are read once in all; the
        // bands are joined row by row.
        let band = n.div_ceil(threads).next_multiple_of(2 * GROUP);
        let parts: Vec<(usize, Vec<f32>)> = (0..n.div_ceil(band))
            .into_par_iter()
            .map(|t| {
                let (lo, hi) = (t * band, ((t + 1) * band).min(n));
                let mut part = vec![0f32; m * (hi - lo)];
                self.band(&xq, 0..m, lo, hi, &mut part);
                (lo, part)
            })
            .collect();
        for (lo, part) in &parts {
            let w = part.len() / m;
            for (o, p) in out.chunks_exact_mut(n).zip(part.chunks_exact(w)) {
                o[*lo..lo + w].copy_from_slice(p);
            }
        }
        out
    }

    /// Weight rows `lo..hi` (`lo` a multiple of [`GROUP`]) against the
    /// activation rows `rows` → `part`, `rows.len() × (hi-lo)`: on AMX,
    /// whole tiles of 16 activation rows against pairs of groups, the rest
    /// by the vector kernels; the same bits either way.
    fn band(&self, xq: &Activations, rows: Range<usize>, lo: usize, hi: usize, part: &mut [f32]) {
        #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
        if let (Weights::Q4(wm), Some(amx)) = (self, Amx::here()) {
            let tiled = rows.len() / TILE * TILE;
            if tiled > 0 {
                let (w, (tiles, rest)) = (hi - lo, part.split_at_mut(tiled * (hi - lo)));
                let groups = lo / GROUP..hi.div_ceil(GROUP);
                let tiled_rows = rows.start..rows.start + tiled;
                let mut g = groups.start;
                while g + 1 < groups.end {
                    let lanes = (hi - g * GROUP).min(2 * GROUP);
                    wm.amx_pair(
                        amx,
                        g,
                        xq,
                        tiled_rows.clone(),
                        tiles,
                        w,
                        g * GROUP - lo,
                        lanes,
                    );
                    g += 2;
                }
                if g < groups.end {
                    self.band_vector(xq, tiled_rows, lo, hi, g..groups.end, tiles, self.wide());
                }
                self.band_vector(
                    xq,
                    rows.start + tiled..rows.end,
                    lo,
                    hi,
                    groups,
                    rest,
                    self.wide(),
                );
                return;
            }
        }
        let groups = lo / GROUP..hi.div_ceil(GROUP);
        self.band_vector(xq, rows, lo, hi, groups, part, self.wide());
    }

    /// The wide kernels' proof, for a 4-bit matrix on a CPU that runs them.
    fn wide(&self) -> Option<Wide> {
        match self {
            Weights::Q4(_) => Wide::here(),
            Weights::Q8(_) => None,
        }
    }

    /// Weight rows `lo..hi`' groups `groups` against the activation rows
    /// `rows` → `part` (`rows.len() × (hi-lo)`, these groups' columns):
    /// eight weight rows (sixteen, two 4-bit groups, given `wide`; an odd
    /// last group alone) against four activation rows at a time (the last
    /// few in a pair and alone), the groups' blocks kept in cache across a
    /// tile of activation rows.
    #[allow(clippy::too_many_arguments)]
    fn band_vector(
        &self,
        xq: &Activations,
        rows: Range<usize>,
        lo: usize,
        hi: usize,
        groups: Range<usize>,
        part: &mut [f32],
        wide: Option<Wide>,
    ) {
        let (w, isa) = (hi - lo, Isa::detect());
        debug_assert_eq!(part.len(), rows.len() * w);
        let first = rows.start;
        for tile in rows.clone().step_by(ROW_TILE) {
            let end = (tile + ROW_TILE).min(rows.end);
            let mut g = groups.start;
            while g < groups.end {
                let r0 = g * GROUP;
                let mut put = |i: usize, dots: &[f32]| {
                    let at = (i - first) * w + r0 - lo;
                    let lanes = (hi - r0).min(dots.len());
                    // A whole group's copy has a constant length, so it is
                    // vector moves rather than a call to `memcpy`.
                    if lanes == 2 * GROUP {
                        part[at..at + 2 * GROUP].copy_from_slice(dots);
                    } else if lanes == GROUP {
                        part[at..at + GROUP].copy_from_slice(dots);
                    } else {
                        part[at..at + lanes].copy_from_slice(&dots[..lanes]);
                    }
                };
                match (self, wide) {
                    (Weights::Q4(wm), Some(wide)) if g + 1 < groups.end => {
                        let pair = TwoGroups { w: wm, wide, g };
                        through_rows(tile..end, xq, pair, &mut put);
                        g += 2;
                    }
                    _ => {
                        let one = OneGroup { w: self, isa, g };
                        through_rows(tile..end, xq, one, &mut put);
                        g += 1;
                    }
                }
            }
        }
    }

    /// Group `g`'s products with each of `xs`; the same bits whether an
    /// activation row comes alone or with others.
    fn dots<const R: usize>(&self, isa: Isa, g: usize, xs: [Row<'_>; R]) -> [[f32; GROUP]; R] {
        match self {
            Weights::Q8(wm) => xs.map(|x| wm.dot8(isa, g, x)),
            Weights::Q4(wm) => wm.dots(isa, g, xs),
        }
    }
}

/// How fast one thread multiplies a 4-bit matrix, its groups one at a
/// time and (where the CPU has AVX-512 VNNI) two at a time.
#[derive(Clone, Debug)]
pub struct ProductRate {
    /// The matrix, as the model names it.
    pub name: String,
    pub rows: usize,
    pub k: usize,
    /// Activation rows per product: 1 for a decoding step, more for
    /// batched steps and prompt chunks.
    pub acts: usize,
    /// Billions of multiply-adds a second, groups one at a time.
    pub alone: f64,
    /// The same, groups two at a time; `None` without AVX-512 VNNI.
    pub paired: Option<f64>,
}

/// [`ProductRate`]s of the first layer's 4-bit matrices of the GGUF at
/// `path`, against 1, 4 and 64 activation rows: the best of nine rounds
/// that alternate the two ways, so a busy machine slows both alike.
pub fn product_rates(path: &std::path::Path) -> Result<Vec<ProductRate>, ModelError> {
    let ct = super::gguf::Gguf::open(path)?;
    let mut rates = Vec::new();
    for (name, parts) in [
        ("attention q, k, v", &["attn_q", "attn_k", "attn_v"][..]),
        ("feed-forward gate and up", &["ffn_gate", "ffn_up"]),
        ("feed-forward down", &["ffn_down"]),
    ] {
        let tensors = parts
            .iter()
            .map(|p| ct.tensor(&format!("blk.0.{p}.weight")))
            .collect::<Result<Vec<_>, _>>()?;
        let w = Weights::from_tensors(&tensors)?;
        let (n, k) = (w.rows(), w.k());
        if !matches!(w, Weights::Q4(_)) {
            continue;
        }
        for acts in [1, 4, 64] {
            let x: Vec<f32> = (0..acts * k)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0)
                .collect();
            let xq = quantize(&x, k, true);
            let mut out = vec![0f32; acts * n];
            let macs = (acts * n * k) as f64;
            let reps = (50_000_000.0 / macs).ceil() as usize;
            let ways = [None, Wide::here()];
            let mut best = [f64::MAX; 2];
            for _ in 0..9 {
                for (at, wide) in ways.iter().enumerate() {
                    if at == 1 && wide.is_none() {
                        continue;
                    }
                    let t = std::time::Instant::now();
                    for _ in 0..reps {
                        let groups = 0..n.div_ceil(GROUP);
                        w.band_vector(&xq, 0..acts, 0, n, groups, &mut out, *wide);
                    }
                    best[at] = best[at].min(t.elapsed().as_secs_f64() / reps as f64);
                }
            }
            rates.push(ProductRate {
                name: name.to_string(),
                rows: n,
                k,
                acts,
                alone: macs / best[0] / 1e9,
                paired: ways[1].map(|_| macs / best[1] / 1e9),
            });
        }
    }
    Ok(rates)
}

/// Products of a fixed set of weight rows (`L` lanes) with one, two or four
/// activation rows at once: the same bits however the rows are grouped.
trait Lanes<const L: usize> {
    fn dots<const R: usize>(&self, xs: [Row<'_>; R]) -> [[f32; L]; R];
}

/// Group `g` of a matrix, on `isa`'s kernels.
struct OneGroup<'a> {
    w: &'a Weights,
    isa: Isa,
    g: usize,
}

impl Lanes<GROUP> for OneGroup<'_> {
    fn dots<const R: usize>(&self, xs: [Row<'_>; R]) -> [[f32; GROUP]; R] {
        self.w.dots(self.isa, self.g, xs)
    }
}

/// Groups `g` and `g + 1` of a 4-bit matrix, side by side.
struct TwoGroups<'a> {
    w: &'a Q4Matrix,
    wide: Wide,
    g: usize,
}

impl Lanes<{ 2 * GROUP }> for TwoGroups<'_> {
    fn dots<const R: usize>(&self, xs: [Row<'_>; R]) -> [[f32; 2 * GROUP]; R] {
        self.w.dots_pair(self.wide, self.g, xs)
    }
}

/// Runs `lanes` over the activation rows `rows`, four at a time, then a
/// pair, then one, and hands each row's products to `put`.
fn through_rows<const L: usize>(
    rows: Range<usize>,
    xq: &Activations,
    lanes: impl Lanes<L>,
    put: &mut impl FnMut(usize, &[f32]),
) {
    let mut i = rows.start;
    while i + 3 < rows.end {
        let quad = [i, i + 1, i + 2, i + 3].map(|j| xq.row(j));
        for (j, dots) in lanes.dots(quad).iter().enumerate() {
            put(i + j, dots);
        }
        i += 4;
    }
    while i + 1 < rows.end {
        let [a, b] = lanes.dots([xq.row(i), xq.row(i + 1)]);
        put(i, &a);
        put(i + 1, &b);
        i += 2;
    }
    if i < rows.end {
        let [a] = lanes.dots([xq.row(i)]);
        put(i, &a);
    }
}

/// Checks every kernel this CPU runs against the portable code for the
/// weight rows `0..rows` and activation rows `0..acts`: `dot(isa, g, j)`
/// gives a kernel's products of group `g` with activation row `j`. The
/// SIMD kernels sum in another order than the portable loop, so they agree
/// within `tol` (rounding, which scales with the terms, not with their
/// sum), and give one another's bits.
#[cfg(test)]
pub(crate) fn assert_kernels_agree(
    rows: usize,
    acts: usize,
    tol: f32,
    dot: impl Fn(Isa, usize, usize) -> [f32; GROUP],
) {
    let isas = Isa::all_here();
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        assert!(isas.len() >= 2, "an AVX2 CPU runs a SIMD kernel");
    }
    for g in 0..rows.div_ceil(GROUP) {
        let lanes = (rows - g * GROUP).min(GROUP);
        for j in 0..acts {
            let portable = dot(Isa::Portable, g, j);
            let mut simd: Option<[f32; GROUP]> = None;
            for &isa in &isas[1..] {
                let got = dot(isa, g, j);
                for (t, (a, b)) in got.iter().zip(&portable).take(lanes).enumerate() {
                    assert!(
                        (a - b).abs() <= tol,
                        "{isa:?}, row {}, activation {j}: {a} vs portable {b}",
                        g * GROUP + t
                    );
                }
                assert_eq!(
                    got,
                    *simd.get_or_insert(got),
                    "{isa:?}, group {g}, activation {j}"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::q4::tests::q4_1;
    use super::*;
    use crate::test_values::spread;

    /// A band's products with 4-bit groups two at a time (on AVX-512 VNNI)
    /// have the bits of the groups one at a time: odd and even group
    /// counts, a padded last group, bands starting at an odd group, and
    /// tails of one to three activation rows.
    #[test]
    fn groups_two_at_a_time_give_the_bits_of_one_at_a_time() {
        let Some(wide) = Wide::here() else {
            eprintln!("no AVX-512 VNNI on this CPU: groups run one at a time");
            return;
        };
        for (k, n, m) in [(288, 45, 7), (320, 64, 38), (96, 21, 3), (128, 40, 1)] {
            let w = Weights::from_tensors(&[q4_1(&spread(n * k, 43), n, k)]).unwrap();
            let xq = quantize(&spread(m * k, 47), k, true);
            for (rows, lo) in [(0..m, 0), (1..m, GROUP)] {
                let size = rows.len() * (n - lo);
                let (mut pairs, mut ones) = (vec![0f32; size], vec![0f32; size]);
                let groups = lo / GROUP..n.div_ceil(GROUP);
                w.band_vector(
                    &xq,
                    rows.clone(),
                    lo,
                    n,
                    groups.clone(),
                    &mut pairs,
                    Some(wide),
                );
                w.band_vector(&xq, rows.clone(), lo, n, groups, &mut ones, None);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&pairs),
                    bits(&ones),
                    "{n}×{k} weights, rows {rows:?}, from {lo}"
                );
            }
        }
    }

    /// A band's products whichever way it is cut: on a CPU with AMX, whole
    /// tiles of 16 activation rows against pairs of groups go through the
    /// tiles (an odd last group and the rows past the last whole tile
    /// through the vector kernels), and every product has the bits the
    /// vector kernels alone give it. Elsewhere both sides run the vector
    /// kernels.
    #[test]
    fn amx_tiles_give_the_vector_kernels_bits() {
        // Row lengths of an odd and an even number of blocks; (weight rows,
        // activation rows): three pairs with a padded last group and a
        // partial tile; two pairs and an odd group, one whole tile; whole
        // pairs, two tiles and three rows.
        for (k, n, m) in [(288, 45, 40), (320, 45, 40), (320, 37, 16), (288, 64, 35)] {
            let w = Weights::from_tensors(&[q4_1(&spread(n * k, 29), n, k)]).unwrap();
            let xq = quantize(&spread(m * k, 31), k, true);
            // Whole bands, and a band of weight rows from the second group
            // against activation rows from the third.
            for (rows, lo) in [(0..m, 0), (3..m, GROUP)] {
                let size = rows.len() * (n - lo);
                let (mut cut, mut vector) = (vec![0f32; size], vec![0f32; size]);
                w.band(&xq, rows.clone(), lo, n, &mut cut);
                let groups = lo / GROUP..n.div_ceil(GROUP);
                w.band_vector(&xq, rows.clone(), lo, n, groups, &mut vector, w.wide());
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&cut),
                    bits(&vector),
                    "{n}×{k} weights, rows {rows:?}, from {lo}"
                );
            }
        }
    }
}
