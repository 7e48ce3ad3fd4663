//! Q4_1 weight matrices as the GGUF stores them: blocks of 32 four-bit
//! values `q`, each worth `d · q + m` with the block's scale `d` and minimum
//! `m` (f16 in the file, held here as the f32 they convert to exactly).
//!
//! Multiplying these blocks directly rather than re-quantising them to 8
//! bits keeps the file's weights exactly and streams 20 bytes per block
//! instead of 36: a decoding step reads every weight once, so it is bound
//! by those bytes. Against activations quantised to 8-bit blocks (`dx`,
//! `qx`, block sum `sx = dx · Σ qx`), a block contributes
//! `d · dx · Σ q·qx + m · sx`.
//!
//! Rows are interleaved in groups of eight, four bytes at a time, so one
//! 256-bit vector holds the same four values of eight rows: each vector
//! lane is one row, and a block of eight rows costs one scale product and
//! no horizontal sums: one activation row keeps the eight rows' sums in the
//! lanes of one accumulator. Each row's 32 products of a
//! block are summed in 32-bit integers, exactly (at most 32 · 15 · 127),
//! and converted and scaled once per block, as GGML's kernels do.
//!
//! On CPUs with AVX-512 VNNI, two groups run side by side in 512-bit
//! registers ([`Q4Matrix::dots_pair`]): one activation broadcast and one
//! instruction serve sixteen weight rows, and each lane sees the
//! operations it sees in its group alone, so the same bits.

use super::gguf::{Kind, Tensor};
use super::q8::{interleaved, Row, CHUNK_STRIDE, GROUP, QK};
use super::weights::Isa;
use crate::error::ModelError;

/// Proof that this CPU runs [`Q4Matrix::dots_pair`] on 512-bit registers:
/// AVX-512 F, BW and VNNI, and FMA.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wide(());

impl Wide {
    pub(crate) fn here() -> Option<Wide> {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vnni")
            && is_x86_feature_detected!("fma")
        {
            return Some(Wide(()));
        }
        None
    }
}

/// Bytes of one Q4_1 block in the file: `d`, `m` (f16) and 16 bytes of
/// nibbles (value `i` in the low nibble of byte `i`, value `i + 16` in its
/// high nibble).
const BLOCK_BYTES: usize = 4 + QK / 2;

/// Nibble bytes of one block of a group: four vectors, vector `c` holding
/// bytes `4c..4c+4` of each row in turn (low nibbles: values `4c..4c+4`;
/// high nibbles: values `16+4c..16+4c+4`).
const GROUP_BLOCK_BYTES: usize = GROUP * QK / 2;

/// A `rows × k` matrix of Q4_1 blocks, rows interleaved in groups of
/// [`GROUP`].
pub(crate) struct Q4Matrix {
    rows: usize,
    k: usize,
    /// `groups × k/32 × 128` bytes: group, block, then the four vectors.
    qs: Vec<u8>,
    /// Per group and block, the eight rows' scales (padding rows: 0).
    d: Vec<f32>,
    /// Per group and block, the eight rows' minima (padding rows: 0).
    m: Vec<f32>,
}

impl Q4Matrix {
    /// Stacks `parts` (each `n_i × k`, every one Q4_1) along the rows.
    pub(crate) fn from_tensors(parts: &[Tensor]) -> Result<Q4Matrix, ModelError> {
        let (mut rows, mut k) = (0, None);
        let mut blocks: Vec<u8> = Vec::new();
        for part in parts {
            if part.kind != Kind::Q4_1 {
                return Err(ModelError::Inference(format!(
                    "a Q4_1 matrix cannot hold a {:?} part",
                    part.kind
                )));
            }
            let (n, pk) = (part.rows, part.cols);
            if *k.get_or_insert(pk) != pk || !pk.is_multiple_of(QK) {
                return Err(ModelError::Inference(format!(
                    "parts of {pk} columns cannot be stacked as Q4_1 rows of {}",
                    k.unwrap_or(pk)
                )));
            }
            let data = &part.data;
            if data.len() != n * pk / QK * BLOCK_BYTES {
                return Err(ModelError::Inference(format!(
                    "a {n}×{pk} Q4_1 matrix holds {} bytes",
                    data.len()
                )));
            }
            blocks.extend_from_slice(data);
            rows += n;
        }
        let k = k.unwrap_or(0);
        let (kb, groups) = (k / QK, rows.div_ceil(GROUP));
        let mut qs = vec![0u8; groups * kb * GROUP_BLOCK_BYTES];
        let mut d = vec![0f32; groups * kb * GROUP];
        let mut m = vec![0f32; groups * kb * GROUP];
        for (at, block) in blocks.chunks_exact(BLOCK_BYTES).enumerate() {
            let (scale_at, base) = interleaved(at / kb, at % kb, kb, GROUP_BLOCK_BYTES);
            let f16 = |i: usize| half::f16::from_le_bytes([block[i], block[i + 1]]).to_f32();
            d[scale_at] = f16(0);
            m[scale_at] = f16(2);
            for c in 0..4 {
                let to = base + c * CHUNK_STRIDE;
                qs[to..to + 4].copy_from_slice(&block[4 + 4 * c..8 + 4 * c]);
            }
        }
        Ok(Q4Matrix { rows, k, qs, d, m })
    }

    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    pub(crate) fn k(&self) -> usize {
        self.k
    }

    /// Row `r` as floats (embedding lookup), as GGML dequantises it.
    pub(crate) fn row_f32(&self, r: usize, out: &mut [f32]) {
        let kb = self.k / QK;
        for (b, o) in out.chunks_exact_mut(QK).enumerate().take(kb) {
            let (at, base) = interleaved(r, b, kb, GROUP_BLOCK_BYTES);
            let (d, m) = (self.d[at], self.m[at]);
            for i in 0..QK / 2 {
                let q = self.qs[base + (i / 4) * CHUNK_STRIDE + i % 4];
                o[i] = (q & 0x0F) as f32 * d + m;
                o[i + QK / 2] = (q >> 4) as f32 * d + m;
            }
        }
    }

    /// Group `g`'s blocks (rows `8g..8g+8`).
    pub(crate) fn group(&self, g: usize) -> Group<'_> {
        let kb = self.k / QK;
        Group {
            qs: &self.qs[g * kb * GROUP_BLOCK_BYTES..(g + 1) * kb * GROUP_BLOCK_BYTES],
            d: &self.d[g * kb * GROUP..(g + 1) * kb * GROUP],
            m: &self.m[g * kb * GROUP..(g + 1) * kb * GROUP],
        }
    }

    /// [`Q4Matrix::dots`] with one activation row `x`.
    #[cfg(test)]
    pub(crate) fn dot8(&self, isa: Isa, g: usize, x: Row<'_>) -> [f32; GROUP] {
        let [dots] = self.dots(isa, g, [x]);
        dots
    }

    /// Dot products of the rows of group `g` (rows `8g..8g+8`, padding rows
    /// giving 0) with each of `R` activation rows: each weight vector is
    /// loaded and unpacked once for all of them, and each row's lanes see
    /// the operations they see alone, so the same bits.
    pub(crate) fn dots<const R: usize>(
        &self,
        isa: Isa,
        g: usize,
        xs: [Row<'_>; R],
    ) -> [[f32; GROUP]; R] {
        let kb = self.k / QK;
        debug_assert!(xs.iter().all(|x| x.s.len() == kb), "Q4_1 needs block sums");
        let w = self.group(g);
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `isa` was detected on this CPU; every slice holds
            // `kb` whole blocks (the layout of both operands).
            match isa {
                Isa::Vnni => return unsafe { avx::dot_vnni(w, xs) },
                Isa::Vnni512 => return unsafe { avx::dot_vnni512(w, xs) },
                Isa::Avx2 => return unsafe { avx::dot_avx2(w, xs) },
                Isa::Portable => {}
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = isa;
        xs.map(|x| {
            std::array::from_fn(|t| {
                let (mut scaled, mut minima) = (0f32, 0f32);
                for b in 0..kb {
                    let base = b * GROUP_BLOCK_BYTES + t * 4;
                    let qx = &x.qs[b * QK..(b + 1) * QK];
                    let s: i32 = (0..QK / 2)
                        .map(|i| {
                            let q = w.qs[base + (i / 4) * CHUNK_STRIDE + i % 4];
                            (q & 0x0F) as i32 * qx[i] as i32
                                + (q >> 4) as i32 * qx[i + QK / 2] as i32
                        })
                        .sum();
                    scaled += s as f32 * (w.d[b * GROUP + t] * x.d[b]);
                    minima += w.m[b * GROUP + t] * x.s[b];
                }
                scaled + minima
            })
        })
    }

    /// [`Q4Matrix::dots`] for groups `g` and `g + 1` at once, the first
    /// group's eight products then the second's: the weights of both ride
    /// in one 512-bit vector, each activation broadcast serving both, and
    /// every lane gives the bits its group gives alone.
    pub(crate) fn dots_pair<const R: usize>(
        &self,
        _wide: Wide,
        g: usize,
        xs: [Row<'_>; R],
    ) -> [[f32; 2 * GROUP]; R] {
        debug_assert!(
            xs.iter().all(|x| x.s.len() == self.k / QK),
            "Q4_1 needs block sums"
        );
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `Wide` proves the instruction sets; both groups and
            // every `x` hold `k / 32` whole blocks.
            unsafe { avx::dot_pair([self.group(g), self.group(g + 1)], xs) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (g, xs);
            unreachable!("`Wide::here` answers None off x86-64")
        }
    }
}

/// One group's blocks: `qs` block by block (four vectors each), `d` and
/// `m` block by block (the eight rows' scales and minima).
#[derive(Clone, Copy)]
pub(crate) struct Group<'a> {
    pub(crate) qs: &'a [u8],
    pub(crate) d: &'a [f32],
    pub(crate) m: &'a [f32],
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use super::super::simd::{nibble_pair, pair, Avx2, ByteDot, Vnni, Vnni512};
    use super::{Group, Row, CHUNK_STRIDE, GROUP, GROUP_BLOCK_BYTES, QK};
    use std::arch::x86_64::*;

    /// # Safety
    /// AVX2 and FMA; every slice holds `x.d.len()` blocks of each `x`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot_avx2<const R: usize>(
        w: Group<'_>,
        xs: [Row<'_>; R],
    ) -> [[f32; GROUP]; R] {
        dot::<Avx2, R>(w, xs)
    }

    /// # Safety
    /// AVX2, FMA and AVX-VNNI; every slice holds `x.d.len()` blocks of each `x`.
    #[target_feature(enable = "avx2,fma,avxvnni")]
    pub(super) unsafe fn dot_vnni<const R: usize>(
        w: Group<'_>,
        xs: [Row<'_>; R],
    ) -> [[f32; GROUP]; R] {
        dot::<Vnni, R>(w, xs)
    }

    /// # Safety
    /// AVX2, FMA, AVX-512 VNNI and AVX-512VL; every slice holds `x.d.len()`
    /// blocks of each `x`.
    #[target_feature(enable = "avx2,fma,avx512vnni,avx512vl")]
    pub(super) unsafe fn dot_vnni512<const R: usize>(
        w: Group<'_>,
        xs: [Row<'_>; R],
    ) -> [[f32; GROUP]; R] {
        dot::<Vnni512, R>(w, xs)
    }

    /// Eight rows against each `x`: per block, each row's products summed in
    /// its lane in integers (low and high nibbles in two partial sums, so
    /// two short chains rather than one long one), then scaled into one
    /// accumulator; the minima's term `Σ m · sx` in a second pass over the
    /// blocks, its own chain in the same order, which leaves the main loop
    /// registers for four activation rows. The weights are loaded and
    /// unpacked once for all `R` activation rows.
    #[inline(always)]
    unsafe fn dot<D: ByteDot, const R: usize>(w: Group<'_>, xs: [Row<'_>; R]) -> [[f32; GROUP]; R] {
        let low = _mm256_set1_epi8(0x0F);
        let blocks = w.d.len() / GROUP;
        let mut scaled = [_mm256_setzero_ps(); R];
        for b in 0..blocks {
            let base = w.qs.as_ptr().add(b * GROUP_BLOCK_BYTES);
            let mut lo_sum = [_mm256_setzero_si256(); R];
            let mut hi_sum = [_mm256_setzero_si256(); R];
            for c in 0..4 {
                let raw = _mm256_loadu_si256(base.add(c * CHUNK_STRIDE) as *const __m256i);
                let lo = _mm256_and_si256(raw, low);
                let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(raw), low);
                for r in 0..R {
                    let xq = xs[r].qs.as_ptr().add(b * QK);
                    let xlo = _mm256_set1_epi32((xq.add(4 * c) as *const i32).read_unaligned());
                    let xhi =
                        _mm256_set1_epi32((xq.add(16 + 4 * c) as *const i32).read_unaligned());
                    lo_sum[r] = D::nibble_add(lo_sum[r], lo, xlo);
                    hi_sum[r] = D::nibble_add(hi_sum[r], hi, xhi);
                }
            }
            let d = _mm256_loadu_ps(w.d.as_ptr().add(b * GROUP));
            for r in 0..R {
                let sum = _mm256_cvtepi32_ps(D::nibble_sum(lo_sum[r], hi_sum[r]));
                let scale = _mm256_mul_ps(d, _mm256_set1_ps(*xs[r].d.get_unchecked(b)));
                scaled[r] = _mm256_fmadd_ps(sum, scale, scaled[r]);
            }
        }
        let mut minima = [_mm256_setzero_ps(); R];
        for b in 0..blocks {
            let m = _mm256_loadu_ps(w.m.as_ptr().add(b * GROUP));
            for r in 0..R {
                minima[r] =
                    _mm256_fmadd_ps(m, _mm256_set1_ps(*xs[r].s.get_unchecked(b)), minima[r]);
            }
        }
        let mut out = [[0f32; GROUP]; R];
        for (r, out) in out.iter_mut().enumerate() {
            _mm256_storeu_ps(out.as_mut_ptr(), _mm256_add_ps(scaled[r], minima[r]));
        }
        out
    }

    /// [`dot`] for two groups in the halves of 512-bit registers: the
    /// same integer sums (exact, so the order of their additions does not
    /// matter), then lane by lane the same conversion, scale products and
    /// fused multiply-adds in the same order. Below four activation rows
    /// each nibble half sums even and odd chunks in two chains, so the
    /// products have four chains to overlap rather than one or two.
    ///
    /// # Safety
    /// AVX-512 F, BW and VNNI, and FMA; both groups hold `x.d.len()`
    /// blocks of each `x`.
    #[target_feature(enable = "avx2,fma,avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn dot_pair<const R: usize>(
        w: [Group<'_>; 2],
        xs: [Row<'_>; R],
    ) -> [[f32; 2 * GROUP]; R] {
        let chains = if R >= 4 { 1 } else { 2 };
        let blocks = w[0].d.len() / GROUP;
        let mut scaled = [_mm512_setzero_ps(); R];
        for b in 0..blocks {
            let mut lo_sum = [[_mm512_setzero_si512(); 2]; R];
            let mut hi_sum = [[_mm512_setzero_si512(); 2]; R];
            for c in 0..4 {
                let at = b * GROUP_BLOCK_BYTES + c * CHUNK_STRIDE;
                let (lo, hi) = nibble_pair(w[0].qs, w[1].qs, at);
                for r in 0..R {
                    let xq = xs[r].qs.as_ptr().add(b * QK);
                    let xlo = _mm512_set1_epi32((xq.add(4 * c) as *const i32).read_unaligned());
                    let xhi =
                        _mm512_set1_epi32((xq.add(16 + 4 * c) as *const i32).read_unaligned());
                    let k = c % chains;
                    lo_sum[r][k] = _mm512_dpbusd_epi32(lo_sum[r][k], lo, xlo);
                    hi_sum[r][k] = _mm512_dpbusd_epi32(hi_sum[r][k], hi, xhi);
                }
            }
            let d = pair(w[0].d, w[1].d, b);
            for r in 0..R {
                let [lo, hi] = [lo_sum[r], hi_sum[r]].map(|s| {
                    if chains == 1 {
                        s[0]
                    } else {
                        _mm512_add_epi32(s[0], s[1])
                    }
                });
                let sum = _mm512_cvtepi32_ps(_mm512_add_epi32(lo, hi));
                let scale = _mm512_mul_ps(d, _mm512_set1_ps(*xs[r].d.get_unchecked(b)));
                scaled[r] = _mm512_fmadd_ps(sum, scale, scaled[r]);
            }
        }
        let mut minima = [_mm512_setzero_ps(); R];
        for b in 0..blocks {
            let m = pair(w[0].m, w[1].m, b);
            for r in 0..R {
                minima[r] =
                    _mm512_fmadd_ps(m, _mm512_set1_ps(*xs[r].s.get_unchecked(b)), minima[r]);
            }
        }
        let mut out = [[0f32; 2 * GROUP]; R];
        for (r, out) in out.iter_mut().enumerate() {
            _mm512_storeu_ps(out.as_mut_ptr(), _mm512_add_ps(scaled[r], minima[r]));
        }
        out
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::gguf::{Kind, Tensor};
    use super::super::weights::Weights;
    use super::*;
    use crate::test_values::spread;

    /// `w` (`n × k`) in Q4_1 blocks, rounded as GGML's reference
    /// quantiser rounds them.
    pub(in crate::generator) fn q4_1(w: &[f32], n: usize, k: usize) -> Tensor {
        let mut data = Vec::with_capacity(n * k / QK * BLOCK_BYTES);
        for block in w.chunks_exact(QK) {
            let min = block.iter().copied().fold(f32::INFINITY, f32::min);
            let max = block.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let d = (max - min) / 15.0;
            let id = if d == 0.0 { 0.0 } else { 1.0 / d };
            data.extend(half::f16::from_f32(d).to_le_bytes());
            data.extend(half::f16::from_f32(min).to_le_bytes());
            let q = |x: f32| (((x - min) * id + 0.5) as u8).min(15);
            data.extend((0..QK / 2).map(|i| q(block[i]) | (q(block[i + QK / 2]) << 4)));
        }
        Tensor {
            kind: Kind::Q4_1,
            rows: n,
            cols: k,
            data,
        }
    }

    #[test]
    fn rows_read_back_as_ggml_dequantises_them() {
        let (n, k) = (6, 96);
        let qt = q4_1(&spread(n * k, 3), n, k);
        let theirs = qt.to_f32();
        let ours = Q4Matrix::from_tensors(&[qt]).unwrap();
        let mut row = vec![0f32; k];
        for r in 0..n {
            ours.row_f32(r, &mut row);
            assert_eq!(row, theirs[r * k..(r + 1) * k], "row {r}");
        }
    }

    #[test]
    fn products_match_the_dequantised_weights_and_never_depend_on_the_batch() {
        // Long enough rows that a product of 7 activation rows (a decoding
        // step's size) is split among threads by weight rows, and one of 70
        // (a prompt chunk's) by activation rows.
        let (n, k) = (45, 1024);
        let (top, bottom) = (spread(30 * k, 5), spread(15 * k, 9));
        let parts = [q4_1(&top, 30, k), q4_1(&bottom, 15, k)];
        let exact_w: Vec<f32> = parts.iter().flat_map(Tensor::to_f32).collect();
        let w = Weights::from_tensors(&parts).unwrap();
        assert!(matches!(w, Weights::Q4(_)), "Q4_1 parts stay Q4_1");
        for m in [7, 70] {
            let x = spread(m * k, 11);
            let one = w.matmul(&x, m, 1);
            assert_eq!(one, w.matmul(&x, m, 2), "two threads, {m} rows");
            assert_eq!(one, w.matmul(&x, m, 3), "three threads, {m} rows");
            for i in 0..m {
                let alone = w.matmul(&x[i * k..(i + 1) * k], 1, 1);
                assert_eq!(alone, one[i * n..(i + 1) * n], "row {i} of {m} alone");
            }
            for i in 0..m {
                for r in 0..n {
                    let exact: f32 = (0..k).map(|j| x[i * k + j] * exact_w[r * k + j]).sum();
                    let scale: f32 = (0..k)
                        .map(|j| (x[i * k + j] * exact_w[r * k + j]).abs())
                        .sum();
                    // Only the activations are rounded (to 8 bits, within
                    // 1/254 of each block's largest value).
                    assert!(
                        (one[i * n + r] - exact).abs() <= 0.02 * scale.max(1.0),
                        "{i},{r}: {} vs {exact}",
                        one[i * n + r]
                    );
                }
            }
        }
    }

    #[test]
    fn every_kernel_this_cpu_runs_gives_the_portable_products() {
        use super::super::q8::quantize;
        use super::super::weights::assert_kernels_agree;
        // Two whole groups and a padded third.
        let (n, k) = (21, 256);
        let w = Q4Matrix::from_tensors(&[q4_1(&spread(n * k, 13), n, k)]).unwrap();
        let x = quantize(&spread(4 * k, 17), k, true);
        // Rounding of 256 terms of up to 4 × 4 each.
        assert_kernels_agree(n, 4, 1e-6 * (k as f32) * 16.0, |isa, g, j| {
            w.dot8(isa, g, x.row(j))
        });
    }

    #[test]
    fn the_largest_nibble_sums_give_the_portable_products() {
        use super::super::q8::quantize;
        use super::super::weights::assert_kernels_agree;
        // Every weight but each block's first at the top nibble (15), and
        // activations all +127 or all -127: the largest lane sums a kernel
        // meets (31 · 15 · 127 in a block), which a kernel summing in 16
        // bits must not wrap.
        let (n, k) = (8, 64);
        let w: Vec<f32> = (0..n * k)
            .map(|i| if i % QK == 0 { 0.0 } else { 1.0 })
            .collect();
        let w = Q4Matrix::from_tensors(&[q4_1(&w, n, k)]).unwrap();
        let x: Vec<f32> = (0..2 * k).map(|i| if i < k { 1.0 } else { -1.0 }).collect();
        let x = quantize(&x, k, true);
        assert_kernels_agree(n, 2, 1e-6 * (k as f32) * 16.0, |isa, g, j| {
            w.dot8(isa, g, x.row(j))
        });
    }

    #[test]
    fn two_groups_at_once_give_the_bits_each_group_gives_alone() {
        use super::super::q8::quantize;
        let Some(wide) = Wide::here() else {
            eprintln!("no AVX-512 VNNI on this CPU: groups run one at a time");
            return;
        };
        // Three groups, the last padded: pairs (0, 1) and (1, 2).
        let (n, k) = (21, 288);
        let w = Q4Matrix::from_tensors(&[q4_1(&spread(n * k, 37), n, k)]).unwrap();
        let x = quantize(&spread(4 * k, 41), k, true);
        let rows: [Row<'_>; 4] = std::array::from_fn(|j| x.row(j));
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        // The vector kernels' bits (the portable loop rounds in its own
        // order).
        for isa in Isa::all_here().into_iter().filter(|&i| i != Isa::Portable) {
            for g in 0..2 {
                let alone: Vec<Vec<f32>> = (0..4)
                    .map(|j| [w.dot8(isa, g, x.row(j)), w.dot8(isa, g + 1, x.row(j))].concat())
                    .collect();
                let one = w.dots_pair(wide, g, [rows[0]]);
                let two = w.dots_pair(wide, g, [rows[0], rows[1]]);
                let four = w.dots_pair(wide, g, rows);
                let at = |got: &[[f32; 2 * GROUP]], n: usize| {
                    for (j, got) in got.iter().enumerate() {
                        assert_eq!(
                            bits(got),
                            bits(&alone[j]),
                            "{isa:?}, groups {g} and {}, row {j} of {n}",
                            g + 1
                        );
                    }
                };
                at(&one, 1);
                at(&two, 2);
                at(&four, 4);
            }
        }
    }

    #[test]
    fn two_or_four_activation_rows_at_once_give_the_bits_each_gives_alone() {
        use super::super::q8::quantize;
        let (n, k) = (21, 256);
        let w = Q4Matrix::from_tensors(&[q4_1(&spread(n * k, 19), n, k)]).unwrap();
        let x = quantize(&spread(5 * k, 23), k, true);
        let bits = |v: &[[f32; GROUP]]| -> Vec<[u32; GROUP]> {
            v.iter().map(|r| r.map(f32::to_bits)).collect()
        };
        for isa in Isa::all_here() {
            for g in 0..n.div_ceil(GROUP) {
                let alone: Vec<[f32; GROUP]> = (0..5).map(|j| w.dot8(isa, g, x.row(j))).collect();
                for j in 0..2 {
                    let pair = w.dots(isa, g, [x.row(j), x.row(j + 1)]);
                    assert_eq!(
                        bits(&pair),
                        bits(&alone[j..j + 2]),
                        "{isa:?}, group {g}, pair at {j}"
                    );
                    let quad = w.dots(isa, g, [0, 1, 2, 3].map(|i| x.row(j + i)));
                    assert_eq!(
                        bits(&quad),
                        bits(&alone[j..j + 4]),
                        "{isa:?}, group {g}, four at {j}"
                    );
                }
            }
        }
    }
}
