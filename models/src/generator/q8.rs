//! 8-bit blocks: the activations of every product, and weight matrices
//! whose file format has no kernel here (blocks of 32 signed bytes, one f32
//! scale per block, like GGML's Q8_0 with the scale kept in f32).

use super::weights::Isa;
use crate::error::ModelError;
use candle_core::quantized::QTensor;
use candle_core::{Device, Tensor};

/// Values per block.
pub(crate) const QK: usize = 32;

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
    for ((src, dst), scale) in x
        .chunks_exact(QK)
        .zip(qs.chunks_exact_mut(QK))
        .zip(d.iter_mut())
    {
        let amax = src.iter().fold(0f32, |m, v| m.max(v.abs()));
        *scale = amax / 127.0;
        let inv = if amax > 0.0 { 127.0 / amax } else { 0.0 };
        for (q, v) in dst.iter_mut().zip(src) {
            // Within ±127: the AVX2 kernel relies on never seeing -128.
            *q = round_to_i8(v * inv);
        }
    }
    let s = if sums {
        qs.chunks_exact(QK)
            .zip(&d)
            .map(|(q, scale)| q.iter().map(|&q| q as i32).sum::<i32>() as f32 * scale)
            .collect()
    } else {
        Vec::new()
    };
    Activations { qs, d, s, k }
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

/// A `rows × k` matrix of 8-bit blocks, row-major.
pub(crate) struct Q8Matrix {
    rows: usize,
    k: usize,
    qs: Vec<i8>,
    d: Vec<f32>,
}

impl Q8Matrix {
    /// Stacks `parts` (each `n_i × k`, any GGML type) along the rows and
    /// quantises the result.
    pub(crate) fn from_qtensors(parts: &[QTensor]) -> Result<Q8Matrix, ModelError> {
        let ts = parts
            .iter()
            .map(|t| t.dequantize(&Device::Cpu))
            .collect::<candle_core::Result<Vec<_>>>()?;
        let t = Tensor::cat(&ts, 0)?;
        let (rows, k) = t.dims2()?;
        if !k.is_multiple_of(QK) {
            return Err(ModelError::Inference(format!(
                "row length {k} is not a multiple of {QK}"
            )));
        }
        let data = t.flatten_all()?.to_vec1::<f32>()?;
        let Activations { qs, d, .. } = quantize(&data, k, false);
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
        let (k, kb) = (self.k, self.k / QK);
        let qs = &self.qs[r * k..(r + 1) * k];
        let d = &self.d[r * kb..(r + 1) * kb];
        for ((o, q), s) in out.chunks_exact_mut(QK).zip(qs.chunks_exact(QK)).zip(d) {
            for (o, q) in o.iter_mut().zip(q) {
                *o = *q as f32 * s;
            }
        }
    }

    /// Dot products of weight row `r` with `take` (1..=4) activation rows.
    pub(crate) fn dot4(&self, isa: Isa, r: usize, xs: [Row<'_>; 4], take: usize) -> [f32; 4] {
        let (k, kb) = (self.k, self.k / QK);
        let (wq, wd) = (&self.qs[r * k..(r + 1) * k], &self.d[r * kb..(r + 1) * kb]);
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `isa` was detected on this CPU; every slice holds
            // `kb` whole blocks (the layout of both matrices).
            match isa {
                Isa::Vnni => return unsafe { avx::dot_vnni(wq, wd, xs, take) },
                Isa::Avx2 => return unsafe { avx::dot_avx2(wq, wd, xs, take) },
                Isa::Portable => {}
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = isa;
        let mut out = [0f32; 4];
        for (o, x) in out.iter_mut().zip(xs).take(take) {
            *o = wq
                .chunks_exact(QK)
                .zip(x.qs.chunks_exact(QK))
                .zip(wd.iter().zip(x.d))
                .map(|((a, b), (da, db))| {
                    let s: i32 = a.iter().zip(b).map(|(&a, &b)| a as i32 * b as i32).sum();
                    s as f32 * da * db
                })
                .sum();
        }
        out
    }
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use super::super::simd::{hsum, Avx2, ByteDot, Vnni};
    use super::{Row, QK};
    use std::arch::x86_64::*;

    /// # Safety
    /// AVX2 and FMA; every slice holds `wd.len()` blocks.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot_avx2(
        wq: &[i8],
        wd: &[f32],
        xs: [Row<'_>; 4],
        take: usize,
    ) -> [f32; 4] {
        rows::<Avx2>(wq, wd, xs, take)
    }

    /// # Safety
    /// AVX2, FMA and AVX-VNNI; every slice holds `wd.len()` blocks.
    #[target_feature(enable = "avx2,fma,avxvnni")]
    pub(super) unsafe fn dot_vnni(
        wq: &[i8],
        wd: &[f32],
        xs: [Row<'_>; 4],
        take: usize,
    ) -> [f32; 4] {
        rows::<Vnni>(wq, wd, xs, take)
    }

    /// [`dot`] for `take` rows, their count a constant in each arm.
    #[inline(always)]
    unsafe fn rows<D: ByteDot>(wq: &[i8], wd: &[f32], xs: [Row<'_>; 4], take: usize) -> [f32; 4] {
        match take {
            1 => dot::<D, 1>(wq, wd, xs),
            2 => dot::<D, 2>(wq, wd, xs),
            3 => dot::<D, 3>(wq, wd, xs),
            _ => dot::<D, 4>(wq, wd, xs),
        }
    }

    /// The first `R` rows of `xs` against one weight row.
    #[inline(always)]
    unsafe fn dot<D: ByteDot, const R: usize>(wq: &[i8], wd: &[f32], xs: [Row<'_>; 4]) -> [f32; 4] {
        let mut acc = [_mm256_setzero_ps(); R];
        for b in 0..wd.len() {
            let wv = _mm256_loadu_si256(wq.as_ptr().add(b * QK) as *const __m256i);
            // The byte products take unsigned × signed: move w's sign onto x.
            let wabs = _mm256_sign_epi8(wv, wv);
            for j in 0..R {
                let xv = _mm256_loadu_si256(xs[j].qs.as_ptr().add(b * QK) as *const __m256i);
                let p32 = D::dot(wabs, _mm256_sign_epi8(xv, wv));
                let scale = _mm256_set1_ps(*wd.get_unchecked(b) * *xs[j].d.get_unchecked(b));
                acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p32), scale, acc[j]);
            }
        }
        let mut out = [0f32; 4];
        for j in 0..R {
            out[j] = hsum(acc[j]);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::weights::Weights;
    use super::*;
    use candle_core::quantized::GgmlDType;

    #[test]
    fn matmul_matches_a_float_reference_and_threads_agree() {
        let (n, k, m) = (40, 96, 23);
        let w: Vec<f32> = (0..n * k)
            .map(|i| ((i * 7 % 13) as f32 - 6.0) / 10.0)
            .collect();
        let x: Vec<f32> = (0..m * k)
            .map(|i| ((i * 5 % 11) as f32 - 5.0) / 7.0)
            .collect();
        let t = Tensor::from_vec(w.clone(), (n, k), &Device::Cpu).unwrap();
        let q = QTensor::quantize(&t, GgmlDType::F32).unwrap();
        let mat = Weights::Q8(Q8Matrix::from_qtensors(&[q]).unwrap());
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
        // A deterministic spread of magnitudes, like real activations.
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as f32 / (1u64 << 31) as f32 - 0.5)
                * if seed.is_multiple_of(17) { 8.0 } else { 1.0 }
        };
        let w: Vec<f32> = (0..n * k).map(|_| rnd()).collect();
        let x: Vec<f32> = (0..m * k).map(|_| rnd()).collect();
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
        let q = QTensor::quantize(&wt, GgmlDType::F32).unwrap();
        let ours = Weights::Q8(Q8Matrix::from_qtensors(&[q]).unwrap()).matmul(&x, m, 2);
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
        let (n, k) = (9, 256);
        let w: Vec<f32> = (0..n * k)
            .map(|i| ((i * 7 % 255) as f32 - 127.0) / 9.0)
            .collect();
        let t = Tensor::from_vec(w, (n, k), &Device::Cpu).unwrap();
        let w = Q8Matrix::from_qtensors(&[QTensor::quantize(&t, GgmlDType::F32).unwrap()]).unwrap();
        let x = quantize(
            &(0..4 * k)
                .map(|i| ((i * 5 % 253) as f32 - 126.0) / 7.0)
                .collect::<Vec<_>>(),
            k,
            false,
        );
        let xs = std::array::from_fn(|j| x.row(j));
        // Rounding of 256 terms of up to 14 × 18 each.
        assert_kernels_agree(n, 1e-6 * (k as f32) * 14.2 * 18.0, |isa, r, take| {
            w.dot4(isa, r, xs, take)
        });
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
