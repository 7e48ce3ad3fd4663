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

use super::q8::{Row, QK};
use super::weights::Isa;
use crate::error::ModelError;
use candle_core::quantized::{GgmlDType, QTensor};

/// Bytes of one Q4_1 block in the file: `d`, `m` (f16) and 16 bytes of
/// nibbles (value `i` in the low nibble of byte `i`, value `i + 16` in its
/// high nibble).
const BLOCK_BYTES: usize = 4 + QK / 2;

/// A `rows × k` matrix of Q4_1 blocks, row-major.
pub(crate) struct Q4Matrix {
    rows: usize,
    k: usize,
    /// `rows × k / 2` bytes of nibbles, in the file's order.
    qs: Vec<u8>,
    d: Vec<f32>,
    m: Vec<f32>,
}

impl Q4Matrix {
    /// Stacks `parts` (each `n_i × k`, every one Q4_1) along the rows.
    pub(crate) fn from_qtensors(parts: &[QTensor]) -> Result<Q4Matrix, ModelError> {
        let (mut rows, mut k) = (0, None);
        let (mut qs, mut d, mut m) = (Vec::new(), Vec::new(), Vec::new());
        for part in parts {
            if part.dtype() != GgmlDType::Q4_1 {
                return Err(ModelError::Inference(format!(
                    "a Q4_1 matrix cannot hold a {:?} part",
                    part.dtype()
                )));
            }
            let (n, pk) = part.shape().dims2()?;
            if *k.get_or_insert(pk) != pk || !pk.is_multiple_of(QK) {
                return Err(ModelError::Inference(format!(
                    "parts of {pk} columns cannot be stacked as Q4_1 rows of {}",
                    k.unwrap_or(pk)
                )));
            }
            let data = part.data()?;
            if data.len() != n * pk / QK * BLOCK_BYTES {
                return Err(ModelError::Inference(format!(
                    "a {n}×{pk} Q4_1 matrix holds {} bytes",
                    data.len()
                )));
            }
            for block in data.chunks_exact(BLOCK_BYTES) {
                let f16 = |at: usize| half::f16::from_le_bytes([block[at], block[at + 1]]).to_f32();
                d.push(f16(0));
                m.push(f16(2));
                qs.extend_from_slice(&block[4..]);
            }
            rows += n;
        }
        Ok(Q4Matrix {
            rows,
            k: k.unwrap_or(0),
            qs,
            d,
            m,
        })
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
            let at = r * kb + b;
            let (d, m) = (self.d[at], self.m[at]);
            let qs = &self.qs[at * QK / 2..(at + 1) * QK / 2];
            for (i, &q) in qs.iter().enumerate() {
                o[i] = (q & 0x0F) as f32 * d + m;
                o[i + QK / 2] = (q >> 4) as f32 * d + m;
            }
        }
    }

    /// Dot products of weight row `r` with `take` (1..=4) activation rows.
    pub(crate) fn dot4(&self, isa: Isa, r: usize, xs: [Row<'_>; 4], take: usize) -> [f32; 4] {
        let kb = self.k / QK;
        let w = Blocks {
            qs: &self.qs[r * kb * QK / 2..(r + 1) * kb * QK / 2],
            d: &self.d[r * kb..(r + 1) * kb],
            m: &self.m[r * kb..(r + 1) * kb],
        };
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `isa` was detected on this CPU; every slice holds
            // `kb` whole blocks (the layout of both matrices).
            match isa {
                Isa::Vnni => return unsafe { avx::dot_vnni(w, xs, take) },
                Isa::Avx2 => return unsafe { avx::dot_avx2(w, xs, take) },
                Isa::Portable => {}
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = isa;
        let mut out = [0f32; 4];
        for (o, x) in out.iter_mut().zip(xs).take(take) {
            let mut scaled = 0f32;
            let mut minima = 0f32;
            for b in 0..w.d.len() {
                let qs = &w.qs[b * QK / 2..(b + 1) * QK / 2];
                let qx = &x.qs[b * QK..(b + 1) * QK];
                let s: i32 = qs
                    .iter()
                    .enumerate()
                    .map(|(i, &q)| {
                        (q & 0x0F) as i32 * qx[i] as i32 + (q >> 4) as i32 * qx[i + QK / 2] as i32
                    })
                    .sum();
                scaled += s as f32 * (w.d[b] * x.d[b]);
                minima += w.m[b] * x.s[b];
            }
            *o = scaled + minima;
        }
        out
    }
}

/// One weight row's blocks.
#[derive(Clone, Copy)]
struct Blocks<'a> {
    qs: &'a [u8],
    d: &'a [f32],
    m: &'a [f32],
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use super::super::simd::{hsum, Avx2, ByteDot, Vnni};
    use super::{Blocks, Row, QK};
    use std::arch::x86_64::*;

    /// # Safety
    /// AVX2 and FMA; every slice holds `w.d.len()` blocks.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot_avx2(w: Blocks<'_>, xs: [Row<'_>; 4], take: usize) -> [f32; 4] {
        rows::<Avx2>(w, xs, take)
    }

    /// # Safety
    /// AVX2, FMA and AVX-VNNI; every slice holds `w.d.len()` blocks.
    #[target_feature(enable = "avx2,fma,avxvnni")]
    pub(super) unsafe fn dot_vnni(w: Blocks<'_>, xs: [Row<'_>; 4], take: usize) -> [f32; 4] {
        rows::<Vnni>(w, xs, take)
    }

    /// [`dot`] for `take` rows, their count a constant in each arm.
    #[inline(always)]
    unsafe fn rows<D: ByteDot>(w: Blocks<'_>, xs: [Row<'_>; 4], take: usize) -> [f32; 4] {
        match take {
            1 => dot::<D, 1>(w, xs),
            2 => dot::<D, 2>(w, xs),
            3 => dot::<D, 3>(w, xs),
            _ => dot::<D, 4>(w, xs),
        }
    }

    /// The first `R` rows of `xs` against one weight row. The minima's
    /// term `Σ m · sx` is a dot product of its own, after the blocks.
    #[inline(always)]
    unsafe fn dot<D: ByteDot, const R: usize>(w: Blocks<'_>, xs: [Row<'_>; 4]) -> [f32; 4] {
        let low = _mm256_set1_epi8(0x0F);
        let mut acc = [_mm256_setzero_ps(); R];
        for b in 0..w.d.len() {
            let raw = _mm_loadu_si128(w.qs.as_ptr().add(b * QK / 2) as *const __m128i);
            // Values 0..16 from the low nibbles, 16..32 from the high ones.
            let wv = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16::<4>(raw), raw), low);
            let d = *w.d.get_unchecked(b);
            for j in 0..R {
                let xv = _mm256_loadu_si256(xs[j].qs.as_ptr().add(b * QK) as *const __m256i);
                let p32 = D::dot(wv, xv);
                let scale = _mm256_set1_ps(d * *xs[j].d.get_unchecked(b));
                acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p32), scale, acc[j]);
            }
        }
        let mut out = [0f32; 4];
        for j in 0..R {
            out[j] = hsum(acc[j]) + minima(w.m, xs[j].s);
        }
        out
    }

    /// `Σ_b m[b] · s[b]`, eight blocks to a lane, then the rest in order.
    #[inline(always)]
    unsafe fn minima(m: &[f32], s: &[f32]) -> f32 {
        let mut acc = _mm256_setzero_ps();
        let mut b = 0;
        while b + 8 <= m.len() {
            acc = _mm256_fmadd_ps(
                _mm256_loadu_ps(m.as_ptr().add(b)),
                _mm256_loadu_ps(s.as_ptr().add(b)),
                acc,
            );
            b += 8;
        }
        let mut sum = hsum(acc);
        while b < m.len() {
            sum += m[b] * s[b];
            b += 1;
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::super::weights::Weights;
    use super::*;
    use candle_core::{Device, Tensor};

    /// A deterministic spread of magnitudes, like real weights.
    fn spread(n: usize, mut seed: u64) -> Vec<f32> {
        (0..n)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((seed >> 33) as f32 / (1u64 << 31) as f32 - 0.5)
                    * if seed.is_multiple_of(17) { 8.0 } else { 1.0 }
            })
            .collect()
    }

    fn q4_1(w: &[f32], n: usize, k: usize) -> QTensor {
        let t = Tensor::from_vec(w.to_vec(), (n, k), &Device::Cpu).unwrap();
        QTensor::quantize(&t, GgmlDType::Q4_1).unwrap()
    }

    #[test]
    fn rows_read_back_as_ggml_dequantises_them() {
        let (n, k) = (6, 96);
        let qt = q4_1(&spread(n * k, 3), n, k);
        let theirs = qt
            .dequantize(&Device::Cpu)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        let ours = Q4Matrix::from_qtensors(&[qt]).unwrap();
        let mut row = vec![0f32; k];
        for r in 0..n {
            ours.row_f32(r, &mut row);
            assert_eq!(row, theirs[r * k..(r + 1) * k], "row {r}");
        }
    }

    #[test]
    fn products_match_the_dequantised_weights_and_never_depend_on_the_batch() {
        let (n, k, m) = (45, 192, 7);
        let (top, bottom) = (spread(30 * k, 5), spread(15 * k, 9));
        let parts = [q4_1(&top, 30, k), q4_1(&bottom, 15, k)];
        let exact_w: Vec<f32> = parts
            .iter()
            .flat_map(|p| {
                p.dequantize(&Device::Cpu)
                    .unwrap()
                    .flatten_all()
                    .unwrap()
                    .to_vec1::<f32>()
                    .unwrap()
            })
            .collect();
        let w = Weights::from_qtensors(&parts).unwrap();
        assert!(matches!(w, Weights::Q4(_)), "Q4_1 parts stay Q4_1");
        let x = spread(m * k, 11);
        let one = w.matmul(&x, m, 1);
        assert_eq!(one, w.matmul(&x, m, 3), "threads agree");
        for i in 0..m {
            let alone = w.matmul(&x[i * k..(i + 1) * k], 1, 1);
            assert_eq!(alone, one[i * n..(i + 1) * n], "row {i} alone");
        }
        for i in 0..m {
            for r in 0..n {
                let exact: f32 = (0..k).map(|j| x[i * k + j] * exact_w[r * k + j]).sum();
                let scale: f32 = (0..k)
                    .map(|j| (x[i * k + j] * exact_w[r * k + j]).abs())
                    .sum();
                // Only the activations are rounded (to 8 bits, within 1/254
                // of each block's largest value).
                assert!(
                    (one[i * n + r] - exact).abs() <= 0.02 * scale.max(1.0),
                    "{i},{r}: {} vs {exact}",
                    one[i * n + r]
                );
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vnni_and_avx2_give_the_same_bits() {
        use super::super::q8::quantize;
        if Isa::detect() != Isa::Vnni {
            eprintln!("this CPU has no AVX-VNNI: nothing to compare");
            return;
        }
        let (n, k) = (9, 256);
        let w = Q4Matrix::from_qtensors(&[q4_1(&spread(n * k, 13), n, k)]).unwrap();
        let x = quantize(&spread(4 * k, 17), k);
        for r in 0..n {
            let xs = std::array::from_fn(|j| x.row(j));
            let kb = k / QK;
            let blocks = Blocks {
                qs: &w.qs[r * kb * QK / 2..(r + 1) * kb * QK / 2],
                d: &w.d[r * kb..(r + 1) * kb],
                m: &w.m[r * kb..(r + 1) * kb],
            };
            for take in 1..=4 {
                // SAFETY: VNNI (and so AVX2 and FMA) was detected above.
                let (a, v) = unsafe {
                    (
                        avx::dot_avx2(blocks, xs, take),
                        avx::dot_vnni(blocks, xs, take),
                    )
                };
                assert_eq!(a, v, "row {r}, {take} rows");
            }
        }
    }
}
