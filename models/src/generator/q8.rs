//! Q8_0-style weight matrices (blocks of 32 signed bytes, one f32 scale per
//! block) and their matmul, with our own AVX2 kernel and threads.
//!
//! Why not candle's quantized matmul: its thread pool spin-waits, so on a
//! busy machine (CI, a laptop compiling) a descheduled worker stalls each of
//! the ~120 products of a decode step (measured 4× slower than one thread);
//! and its kernel handles one activation row at a time, converting the f16
//! block scales on every dot product. This kernel keeps scales in f32 and
//! multiplies each weight block with up to four activation rows while it is
//! in registers, so batched decoding and prompt chunks reuse every load.

use crate::error::ModelError;
use candle_core::quantized::QTensor;
use candle_core::{Device, Tensor};
use rayon::prelude::*;

/// Values per block.
const QK: usize = 32;

/// Multiply-adds (activation rows × weight rows × row length) from which a
/// product is split across threads. The pool's threads are already running,
/// so handing a band over costs microseconds: every product of one decoding
/// sequence (0.3M to 1.8M) is above it.
const PARALLEL_FROM_MACS: usize = 1 << 18;

/// Activation rows kept hot in L1 while the weight rows stream past.
const ROW_TILE: usize = 32;

/// Quantised rows: `qs` holds `rows × k` bytes, `d` one scale per block.
struct Quantized {
    qs: Vec<i8>,
    d: Vec<f32>,
}

fn quantize(x: &[f32], k: usize) -> Quantized {
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
            *q = (v * inv).round().clamp(-127.0, 127.0) as i8;
        }
    }
    Quantized { qs, d }
}

/// A `rows × k` quantised matrix, row-major.
pub(crate) struct Q8Matrix {
    rows: usize,
    k: usize,
    w: Quantized,
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
        Ok(Q8Matrix {
            rows,
            k,
            w: quantize(&data, k),
        })
    }

    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Row `r` as floats (embedding lookup).
    pub(crate) fn row_f32(&self, r: usize, out: &mut [f32]) {
        let (k, kb) = (self.k, self.k / QK);
        let qs = &self.w.qs[r * k..(r + 1) * k];
        let d = &self.w.d[r * kb..(r + 1) * kb];
        for ((o, q), s) in out.chunks_exact_mut(QK).zip(qs.chunks_exact(QK)).zip(d) {
            for (o, q) in o.iter_mut().zip(q) {
                *o = *q as f32 * s;
            }
        }
    }

    /// `x (m × k) · selfᵀ` → `m × rows`, with up to `threads` threads.
    pub(crate) fn matmul(&self, x: &[f32], m: usize, threads: usize) -> Vec<f32> {
        let n = self.rows;
        let xq = quantize(x, self.k);
        let threads = if m * n * self.k >= PARALLEL_FROM_MACS {
            threads.clamp(1, n)
        } else {
            1
        };
        let mut out = vec![0f32; m * n];
        if threads == 1 {
            let part = self.band(&xq, m, 0, n);
            scatter(&mut out, n, m, 0, &part);
            return out;
        }
        // Each thread owns a band of weight rows (output columns), on the
        // pool of whoever calls (the generator's own, or rayon's global).
        let band = n.div_ceil(threads);
        let parts: Vec<(usize, Vec<f32>)> = (0..threads)
            .into_par_iter()
            .map(|t| {
                let (lo, hi) = (t * band, ((t + 1) * band).min(n));
                (lo, self.band(&xq, m, lo, hi))
            })
            .collect();
        for (lo, part) in parts {
            scatter(&mut out, n, m, lo, &part);
        }
        out
    }

    /// Weight rows `lo..hi` against all `m` activation rows → `m × (hi-lo)`.
    fn band(&self, xq: &Quantized, m: usize, lo: usize, hi: usize) -> Vec<f32> {
        let (k, kb, w) = (self.k, self.k / QK, hi - lo);
        let mut part = vec![0f32; m * w];
        for tile in (0..m).step_by(ROW_TILE) {
            let tile_end = (tile + ROW_TILE).min(m);
            for r in lo..hi {
                let wq = &self.w.qs[r * k..(r + 1) * k];
                let wd = &self.w.d[r * kb..(r + 1) * kb];
                let mut i = tile;
                while i < tile_end {
                    let take = (tile_end - i).min(4);
                    let xs = |j: usize| {
                        let j = i + j.min(take - 1);
                        (&xq.qs[j * k..(j + 1) * k], &xq.d[j * kb..(j + 1) * kb])
                    };
                    let dots = dot4(wq, wd, [xs(0), xs(1), xs(2), xs(3)], take);
                    for (j, v) in dots.iter().take(take).enumerate() {
                        part[(i + j) * w + (r - lo)] = *v;
                    }
                    i += take;
                }
            }
        }
        part
    }
}

fn scatter(out: &mut [f32], n: usize, m: usize, lo: usize, part: &[f32]) {
    let w = part.len() / m.max(1);
    for i in 0..m {
        out[i * n + lo..i * n + lo + w].copy_from_slice(&part[i * w..(i + 1) * w]);
    }
}

type Row<'a> = (&'a [i8], &'a [f32]);

/// Dot products of one weight row with `take` (1..=4) activation rows.
fn dot4(wq: &[i8], wd: &[f32], xs: [Row<'_>; 4], take: usize) -> [f32; 4] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the features were just detected; slices are equal-length
        // whole blocks (checked by the callers' layout).
        return unsafe {
            match take {
                1 => avx2::dot::<1>(wq, wd, xs),
                2 => avx2::dot::<2>(wq, wd, xs),
                3 => avx2::dot::<3>(wq, wd, xs),
                _ => avx2::dot::<4>(wq, wd, xs),
            }
        };
    }
    let mut out = [0f32; 4];
    for (o, (xq, xd)) in out.iter_mut().zip(xs).take(take) {
        *o = wq
            .chunks_exact(QK)
            .zip(xq.chunks_exact(QK))
            .zip(wd.iter().zip(xd))
            .map(|((a, b), (da, db))| {
                let s: i32 = a.iter().zip(b).map(|(&a, &b)| a as i32 * b as i32).sum();
                s as f32 * da * db
            })
            .sum();
    }
    out
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Row, QK};
    use std::arch::x86_64::*;

    /// # Safety
    /// AVX2 and FMA must be available; every slice holds `wd.len()` blocks.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot<const R: usize>(
        wq: &[i8],
        wd: &[f32],
        xs: [Row<'_>; 4],
        // All R rows are valid.
    ) -> [f32; 4] {
        let kb = wd.len();
        let ones = _mm256_set1_epi16(1);
        let mut acc = [_mm256_setzero_ps(); R];
        for b in 0..kb {
            let wv = _mm256_loadu_si256(wq.as_ptr().add(b * QK) as *const __m256i);
            // maddubs takes unsigned × signed: move w's sign onto x.
            let wabs = _mm256_sign_epi8(wv, wv);
            for j in 0..R {
                let xv = _mm256_loadu_si256(xs[j].0.as_ptr().add(b * QK) as *const __m256i);
                let p16 = _mm256_maddubs_epi16(wabs, _mm256_sign_epi8(xv, wv));
                let p32 = _mm256_madd_epi16(p16, ones);
                let scale = _mm256_set1_ps(*wd.get_unchecked(b) * *xs[j].1.get_unchecked(b));
                acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p32), scale, acc[j]);
            }
        }
        let mut out = [0f32; 4];
        for j in 0..R {
            let v = acc[j];
            let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
            let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
            let s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
            out[j] = _mm_cvtss_f32(s);
        }
        out
    }
}

#[cfg(test)]
mod tests {
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
        let mat = Q8Matrix::from_qtensors(&[q]).unwrap();
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
        let ours = Q8Matrix::from_qtensors(&[q]).unwrap().matmul(&x, m, 2);
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
}
