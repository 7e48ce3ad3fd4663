//! 8-bit blocks: the activations of every product, and weight matrices
//! whose file format has no kernel here (blocks of 32 signed bytes, one f32
//! scale per block, like GGML's Q8_0 with the scale kept in f32).

use super::gguf::Tensor;
use super::weights::Isa;
use crate::error::ModelError;
use crate::linalg::min_share;
use rayon::prelude::*;

/// Values per block.
pub(crate) const QK: usize = 32;

/// Weight rows a kernel computes together, one per lane of a 256-bit
/// vector of f32; a matrix's rows are padded to a multiple.
pub(crate) const GROUP: usize = 8;

/// Where block `b` of row `r` lies in a matrix of `kb` blocks per row
/// whose rows are interleaved in groups of [`GROUP`], four bytes at a time:
/// the index of its scale (per group and block, one per row), and the
/// offset of its first four bytes among `block_bytes` bytes per group and
/// block (each next four bytes of the row lie [`CHUNK_STRIDE`] further).
pub(crate) fn interleaved(r: usize, b: usize, kb: usize, block_bytes: usize) -> (usize, usize) {
    let (g, t) = (r / GROUP, r % GROUP);
    ((g * kb + b) * GROUP + t, (g * kb + b) * block_bytes + t * 4)
}

/// Bytes from four bytes of an interleaved row to its next four.
pub(crate) const CHUNK_STRIDE: usize = GROUP * 4;

/// Rows quantised to 8-bit blocks: `qs` holds `rows × k` bytes, `d` one
/// scale per block and, when asked for, `s` each block's sum `d · Σ q`
/// (what a weight format with a per-block minimum needs; empty otherwise).
pub(crate) struct Activations {
    qs: Vec<i8>,
    d: Vec<f32>,
    s: Vec<f32>,
    k: usize,
}

/// One quantised row of [`Activations`] (`s` empty when no sums were made).
#[derive(Clone, Copy)]
pub(crate) struct Row<'a> {
    pub(crate) qs: &'a [i8],
    pub(crate) d: &'a [f32],
    pub(crate) s: &'a [f32],
}

impl Activations {
    /// Bytes per row.
    pub(crate) fn k(&self) -> usize {
        self.k
    }

    /// Rows `j..j+n`'s bytes, one row after another.
    pub(crate) fn tile(&self, j: usize, n: usize) -> &[i8] {
        &self.qs[j * self.k..(j + n) * self.k]
    }

    pub(crate) fn row(&self, j: usize) -> Row<'_> {
        let (k, kb) = (self.k, self.k / QK);
        Row {
            qs: &self.qs[j * k..(j + 1) * k],
            d: &self.d[j * kb..(j + 1) * kb],
            s: self.s.get(j * kb..(j + 1) * kb).unwrap_or_default(),
        }
    }
}

/// Quantises rows of length `k` to 8-bit blocks, with each block's sum when
/// `sums` is set.
pub(crate) fn quantize(x: &[f32], k: usize, sums: bool) -> Activations {
    let mut qs = vec![0i8; x.len()];
    let mut d = vec![0f32; x.len() / QK];
    debug_assert!(k.is_multiple_of(QK));
    let block = quantizer();
    // A prompt chunk's rows are quantised on the pool's threads (each
    // block alone, so the same bytes), a decoding step's on this one.
    let share = min_share(d.len(), k / QK, true);
    x.par_chunks_exact(QK)
        .zip(qs.par_chunks_exact_mut(QK))
        .zip(d.par_iter_mut())
        .with_min_len(share)
        .for_each(|((src, dst), scale)| *scale = block(src, dst));
    let s = if sums {
        qs.par_chunks_exact(QK)
            .zip(d.par_iter())
            .with_min_len(share)
            .map(|(q, scale)| q.iter().map(|&q| q as i32).sum::<i32>() as f32 * scale)
            .collect()
    } else {
        Vec::new()
    };
    Activations { qs, d, s, k }
}

/// The block quantiser this CPU runs: it takes `QK` values into `dst` and
/// returns their scale. Chosen once per product, not per block.
fn quantizer() -> fn(&[f32], &mut [i8]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
        return |src, dst| {
            assert!(src.len() == QK && dst.len() == QK);
            // SAFETY: AVX2 was detected when this closure was chosen; both
            // blocks hold `QK` values.
            unsafe { avx::quantize_block(src, dst) }
        };
    }
    quantize_block_portable
}

/// One block of `QK` values into `dst`, in plain code; returns its scale.
fn quantize_block_portable(src: &[f32], dst: &mut [i8]) -> f32 {
    let amax = src.iter().fold(0f32, |m, v| m.max(v.abs()));
    let inv = if amax > 0.0 { 127.0 / amax } else { 0.0 };
    for (q, v) in dst.iter_mut().zip(src) {
        // Within ±127: the AVX2 kernel relies on never seeing -128.
        *q = round_to_i8(v * inv);
    }
    amax / 127.0
}

/// `v` rounded half away from zero (as `f32::round`) and clamped to ±127,
/// without a call into libm: the cast truncates, and `v - t` is exact, so
/// comparing the dropped fraction with one half decides as `round` does.
/// NaN gives 0, as `NaN.round() as i8` does.
#[inline(always)]
fn round_to_i8(v: f32) -> i8 {
    let v = v.clamp(-128.0, 128.0);
    let t = v as i32;
    let f = v - t as f32;
    (t + (f >= 0.5) as i32 - (f <= -0.5) as i32).clamp(-127, 127) as i8
}

/// A `rows × k` matrix of 8-bit blocks, rows interleaved in groups of
/// [`GROUP`] four bytes at a time as [`super::q4`] lays out its nibbles:
/// one vector holds the same four values of eight rows, one row per lane.
pub(crate) struct Q8Matrix {
    rows: usize,
    k: usize,
    /// `groups × k/32 × 256` bytes: group, block, then eight vectors,
    /// vector `c` holding bytes `4c..4c+4` of each row in turn.
    qs: Vec<i8>,
    /// Per group and block, the eight rows' scales (padding rows: 0).
    d: Vec<f32>,
}

/// Bytes of one block of a group.
const GROUP_BLOCK_BYTES: usize = GROUP * QK;

impl Q8Matrix {
    /// Stacks `parts` (each `n_i × k`, any type the file reader reads)
    /// along the rows and quantises the result.
    pub(crate) fn from_tensors(parts: &[Tensor]) -> Result<Q8Matrix, ModelError> {
        let k = parts.first().map_or(0, |p| p.cols);
        if let Some(p) = parts.iter().find(|p| p.cols != k) {
            return Err(ModelError::Inference(format!(
                "parts of {} columns cannot be stacked as rows of {k}",
                p.cols
            )));
        }
        let rows = parts.iter().map(|p| p.rows).sum();
        let data: Vec<f32> = parts.iter().flat_map(Tensor::to_f32).collect();
        Q8Matrix::from_f32(&data, rows, k)
    }

    /// Quantises `data` (`rows × k`, row after row).
    pub(crate) fn from_f32(data: &[f32], rows: usize, k: usize) -> Result<Q8Matrix, ModelError> {
        if !k.is_multiple_of(QK) || data.len() != rows * k {
            return Err(ModelError::Inference(format!(
                "{} values are not {rows} rows of {k}, a multiple of {QK}",
                data.len()
            )));
        }
        let Activations {
            qs: flat,
            d: scales,
            ..
        } = quantize(data, k, false);
        let (kb, groups) = (k / QK, rows.div_ceil(GROUP));
        let mut qs = vec![0i8; groups * kb * GROUP_BLOCK_BYTES];
        let mut d = vec![0f32; groups * kb * GROUP];
        for (at, (block, scale)) in flat.chunks_exact(QK).zip(scales).enumerate() {
            let (scale_at, base) = interleaved(at / kb, at % kb, kb, GROUP_BLOCK_BYTES);
            d[scale_at] = scale;
            for (c, four) in block.chunks_exact(4).enumerate() {
                let to = base + c * CHUNK_STRIDE;
                qs[to..to + 4].copy_from_slice(four);
            }
        }
        Ok(Q8Matrix { rows, k, qs, d })
    }

    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    pub(crate) fn k(&self) -> usize {
        self.k
    }

    /// Row `r` as floats (embedding lookup).
    pub(crate) fn row_f32(&self, r: usize, out: &mut [f32]) {
        let kb = self.k / QK;
        for (b, o) in out.chunks_exact_mut(QK).enumerate().take(kb) {
            let (scale_at, base) = interleaved(r, b, kb, GROUP_BLOCK_BYTES);
            let scale = self.d[scale_at];
            for (i, o) in o.iter_mut().enumerate() {
                *o = self.qs[base + (i / 4) * CHUNK_STRIDE + i % 4] as f32 * scale;
            }
        }
    }

    /// Dot products of the rows of group `g` (rows `8g..8g+8`, padding rows
    /// giving 0) with the activation row `x`.
    pub(crate) fn dot8(&self, isa: Isa, g: usize, x: Row<'_>) -> [f32; GROUP] {
        let kb = self.k / QK;
        let wq = &self.qs[g * kb * GROUP_BLOCK_BYTES..(g + 1) * kb * GROUP_BLOCK_BYTES];
        let wd = &self.d[g * kb * GROUP..(g + 1) * kb * GROUP];
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `isa` was detected on this CPU; every slice holds
            // `kb` whole blocks (the layout of both operands).
            match isa {
                Isa::Vnni => return unsafe { avx::dot_vnni(wq, wd, x) },
                Isa::Vnni512 => return unsafe { avx::dot_vnni512(wq, wd, x) },
                Isa::Avx2 => return unsafe { avx::dot_avx2(wq, wd, x) },
                Isa::Portable => {}
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = isa;
        std::array::from_fn(|t| {
            (0..kb)
                .map(|b| {
                    let base = b * GROUP_BLOCK_BYTES + t * 4;
                    let qx = &x.qs[b * QK..(b + 1) * QK];
                    let s: i32 = (0..QK)
                        .map(|i| wq[base + (i / 4) * CHUNK_STRIDE + i % 4] as i32 * qx[i] as i32)
                        .sum();
                    s as f32 * (wd[b * GROUP + t] * x.d[b])
                })
                .sum()
        })
    }
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use super::super::simd::{Avx2, ByteDot, Vnni, Vnni512};
    use super::{Row, CHUNK_STRIDE, GROUP, GROUP_BLOCK_BYTES, QK};
    use std::arch::x86_64::*;

    /// # Safety
    /// AVX2 and FMA; every slice holds `x.d.len()` blocks.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot_avx2(wq: &[i8], wd: &[f32], x: Row<'_>) -> [f32; GROUP] {
        dot::<Avx2>(wq, wd, x)
    }

    /// # Safety
    /// AVX2, FMA and AVX-VNNI; every slice holds `x.d.len()` blocks.
    #[target_feature(enable = "avx2,fma,avxvnni")]
    pub(super) unsafe fn dot_vnni(wq: &[i8], wd: &[f32], x: Row<'_>) -> [f32; GROUP] {
        dot::<Vnni>(wq, wd, x)
    }

    /// # Safety
    /// AVX2, FMA, AVX-512 VNNI and AVX-512VL; every slice holds
    /// `x.d.len()` blocks.
    #[target_feature(enable = "avx2,fma,avx512vnni,avx512vl")]
    pub(super) unsafe fn dot_vnni512(wq: &[i8], wd: &[f32], x: Row<'_>) -> [f32; GROUP] {
        dot::<Vnni512>(wq, wd, x)
    }

    /// [`super::quantize_block_portable`] eight lanes at a time, to the same bytes:
    /// the largest magnitude skips NaN as `f32::max` does, and each value
    /// is rounded as [`super::round_to_i8`] rounds it (NaN to 0).
    ///
    /// # Safety
    /// AVX2; `src` and `dst` hold `QK` values.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn quantize_block(src: &[f32], dst: &mut [i8]) -> f32 {
        debug_assert!(src.len() == QK && dst.len() == QK);
        let p = src.as_ptr();
        let v: [__m256; 4] = std::array::from_fn(|i| _mm256_loadu_ps(p.add(8 * i)));
        let magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFF_FFFF));
        let mut top = _mm256_setzero_ps();
        for v in v {
            // `max_ps` answers its second operand when either is NaN.
            top = _mm256_max_ps(_mm256_and_ps(v, magnitude), top);
        }
        let top = _mm_max_ps(_mm256_castps256_ps128(top), _mm256_extractf128_ps::<1>(top));
        let top = _mm_max_ps(top, _mm_movehl_ps(top, top));
        let amax = _mm_cvtss_f32(_mm_max_ss(top, _mm_shuffle_ps::<0b01>(top, top)));
        let inv = _mm256_set1_ps(if amax > 0.0 { 127.0 / amax } else { 0.0 });
        let (lo, hi) = (_mm256_set1_ps(-128.0), _mm256_set1_ps(128.0));
        let (half, neg_half) = (_mm256_set1_ps(0.5), _mm256_set1_ps(-0.5));
        let q: [__m256i; 4] = std::array::from_fn(|i| {
            // Clamped with NaN kept (it stays in the second operand).
            let x = _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_mul_ps(v[i], inv)));
            let ordered = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_ORD_Q>(x, x));
            let t = _mm256_and_si256(_mm256_cvttps_epi32(x), ordered);
            let f = _mm256_sub_ps(x, _mm256_cvtepi32_ps(t));
            let up = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GE_OQ>(f, half));
            let down = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LE_OQ>(f, neg_half));
            let r = _mm256_add_epi32(_mm256_sub_epi32(t, up), down);
            _mm256_max_epi32(
                _mm256_set1_epi32(-127),
                _mm256_min_epi32(r, _mm256_set1_epi32(127)),
            )
        });
        // Packing works within 128-bit halves; the permutation puts the
        // four vectors' values back in order.
        let bytes = _mm256_packs_epi16(
            _mm256_packs_epi32(q[0], q[1]),
            _mm256_packs_epi32(q[2], q[3]),
        );
        let bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256(dst.as_mut_ptr() as *mut __m256i, bytes);
        amax / 127.0
    }

    /// Eight rows against `x`: per block, each row's 32 products summed in
    /// its lane in integers, exactly (at most 32 · 127 · 127), then scaled
    /// into one accumulator.
    #[inline(always)]
    unsafe fn dot<D: ByteDot>(wq: &[i8], wd: &[f32], x: Row<'_>) -> [f32; GROUP] {
        let mut acc = _mm256_setzero_ps();
        for b in 0..x.d.len() {
            let base = wq.as_ptr().add(b * GROUP_BLOCK_BYTES);
            let xq = x.qs.as_ptr().add(b * QK);
            let mut sums = [_mm256_setzero_si256(); 2];
            for c in 0..8 {
                let wv = _mm256_loadu_si256(base.add(c * CHUNK_STRIDE) as *const __m256i);
                let xv = _mm256_set1_epi32((xq.add(4 * c) as *const i32).read_unaligned());
                // The byte products take unsigned × signed: move w's sign onto x.
                sums[c % 2] = D::dot_add(
                    sums[c % 2],
                    _mm256_sign_epi8(wv, wv),
                    _mm256_sign_epi8(xv, wv),
                );
            }
            let scale = _mm256_mul_ps(
                _mm256_loadu_ps(wd.as_ptr().add(b * GROUP)),
                _mm256_set1_ps(*x.d.get_unchecked(b)),
            );
            let sum = _mm256_cvtepi32_ps(_mm256_add_epi32(sums[0], sums[1]));
            acc = _mm256_fmadd_ps(sum, scale, acc);
        }
        let mut out = [0f32; GROUP];
        _mm256_storeu_ps(out.as_mut_ptr(), acc);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::weights::Weights;
    use super::*;
    use candle_core::quantized::{GgmlDType, QTensor};
    use candle_core::{Device, Tensor};

    #[test]
    fn matmul_matches_a_float_reference_and_threads_agree() {
        let (n, k, m) = (40, 96, 23);
        let w: Vec<f32> = (0..n * k)
            .map(|i| ((i * 7 % 13) as f32 - 6.0) / 10.0)
            .collect();
        let x: Vec<f32> = (0..m * k)
            .map(|i| ((i * 5 % 11) as f32 - 5.0) / 7.0)
            .collect();
        let mat = Weights::Q8(Q8Matrix::from_f32(&w, n, k).unwrap());
        let one = mat.matmul(&x, m, 1);
        let three = mat.matmul(&x, m, 3);
        assert_eq!(one, three);
        // Row i alone gives the same numbers as inside a batch.
        let alone = mat.matmul(&x[5 * k..6 * k], 1, 1);
        assert_eq!(alone, one[5 * n..6 * n]);
        for i in 0..m {
            for r in 0..n {
                let exact: f32 = (0..k).map(|j| x[i * k + j] * w[r * k + j]).sum();
                assert!((one[i * n + r] - exact).abs() < 0.05, "{i},{r}");
            }
        }
        let mut row = vec![0f32; k];
        mat.row_f32(3, &mut row);
        assert!(row
            .iter()
            .zip(&w[3 * k..4 * k])
            .all(|(a, b)| (a - b).abs() < 0.01));
    }

    #[test]
    fn error_is_no_worse_than_candles_q8_0_matmul() {
        use candle_core::quantized::QMatMul;
        use candle_core::Module;
        let (n, k, m) = (64, 576, 5);
        let values = crate::test_values::spread(n * k + m * k, 7);
        let (w, x) = values.split_at(n * k);
        let (w, x) = (w.to_vec(), x.to_vec());
        let wt = Tensor::from_vec(w.clone(), (n, k), &Device::Cpu).unwrap();
        let xt = Tensor::from_vec(x.clone(), (m, k), &Device::Cpu).unwrap();
        let theirs = QMatMul::from_qtensor(QTensor::quantize(&wt, GgmlDType::Q8_0).unwrap())
            .unwrap()
            .forward(&xt)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        let ours = Weights::Q8(Q8Matrix::from_f32(&w, n, k).unwrap()).matmul(&x, m, 2);
        let (mut e_ours, mut e_theirs) = (0f64, 0f64);
        for i in 0..m {
            for r in 0..n {
                let exact: f64 = (0..k).map(|j| (x[i * k + j] * w[r * k + j]) as f64).sum();
                e_ours += (ours[i * n + r] as f64 - exact).powi(2);
                e_theirs += (theirs[i * n + r] as f64 - exact).powi(2);
            }
        }
        assert!(
            e_ours <= e_theirs * 1.1,
            "ours {e_ours} vs candle {e_theirs}"
        );
    }

    #[test]
    fn every_kernel_this_cpu_runs_gives_the_portable_products() {
        use super::super::weights::assert_kernels_agree;
        let (n, k) = (21, 256);
        let w: Vec<f32> = (0..n * k)
            .map(|i| ((i * 7 % 255) as f32 - 127.0) / 9.0)
            .collect();
        let w = Q8Matrix::from_f32(&w, n, k).unwrap();
        let x = quantize(
            &(0..4 * k)
                .map(|i| ((i * 5 % 253) as f32 - 126.0) / 7.0)
                .collect::<Vec<_>>(),
            k,
            false,
        );
        // Rounding of 256 terms of up to 14 × 18 each.
        assert_kernels_agree(n, 4, 1e-6 * (k as f32) * 14.2 * 18.0, |isa, g, j| {
            w.dot8(isa, g, x.row(j))
        });
    }

    #[test]
    fn blocks_quantise_to_the_same_bytes_on_every_path() {
        let mut rnd = crate::test_values::uniform(5);
        let mut blocks: Vec<Vec<f32>> = (0..200)
            .map(|b| (0..QK).map(|_| rnd() * (b as f32 + 1.0)).collect())
            .collect();
        // Values landing on halves after scaling, zeros, and non-finite ones.
        // With 127 the largest magnitude the scale is 1, so these stay
        // exact halves and their float neighbours.
        let mut halves: Vec<f32> = (0..QK).map(|i| i as f32 * 7.0 - 108.5).collect();
        halves[0] = 127.0;
        halves[1] = 0.5f32.next_down();
        halves[2] = -0.5f32.next_up();
        halves[3] = 2.5f32.next_up();
        halves[4] = -2.5;
        blocks.push(halves);
        blocks.push(vec![0.0; QK]);
        let mut odd = vec![-0.0; QK];
        odd[3] = f32::NAN;
        odd[7] = 2.5;
        odd[9] = -1e-30;
        blocks.push(odd.clone());
        odd[11] = f32::INFINITY;
        blocks.push(odd);
        for (b, block) in blocks.iter().enumerate() {
            let mut want = [0i8; QK];
            let scale = quantize_block_portable(block, &mut want);
            #[cfg(target_arch = "x86_64")]
            if is_x86_feature_detected!("avx2") {
                let mut got = [0i8; QK];
                // SAFETY: AVX2 was just detected; both blocks hold QK values.
                let got_scale = unsafe { avx::quantize_block(block, &mut got) };
                assert_eq!(got, want, "block {b}");
                assert_eq!(got_scale.to_bits(), scale.to_bits(), "block {b}");
            }
        }
    }

    #[test]
    fn rounding_without_libm_matches_f32_round() {
        let round = |v: f32| v.round().clamp(-127.0, 127.0) as i8;
        // Every half-way point and its float neighbours, where truncating
        // and rounding part ways, then a sweep over the whole range.
        for n in -130..=130 {
            let half = n as f32 + 0.5;
            for v in [half, half.next_up(), half.next_down(), n as f32] {
                for v in [v, v.next_up(), v.next_down()] {
                    assert_eq!(round_to_i8(v), round(v), "{v:e}");
                }
            }
        }
        let mut v = -200f32;
        while v < 200.0 {
            assert_eq!(round_to_i8(v), round(v), "{v:e}");
            v += 0.000_731;
        }
        for v in [
            0.0,
            -0.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e30,
            -1e30,
        ] {
            assert_eq!(round_to_i8(v), round(v), "{v:e}");
        }
    }
}
