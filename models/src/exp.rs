//! e^x for the softmax, eight values at a time on AVX2+FMA and one at a
//! time elsewhere, with the same operations in the same order either way,
//! so every machine gives the same bits (one C library's `expf` need not
//! give another's bits, and `expf` alone was 7–9% of an agent turn's CPU
//! samples). The pure-Rust `libm` crate would fix the bits too, but one
//! value at a time.
//!
//! The method is the classic one (as in Cephes' `expf`):
//! `n = round(x·log₂e)`, `r = x − n·ln 2` in two steps (Cody–Waite: `ln 2`
//! split so `n·C1` is exact), a degree-7 polynomial for `eʳ` on
//! |r| ≤ ln 2 / 2 (Cephes' minimax coefficients), then the product with 2ⁿ
//! built in the exponent bits. Relative error under two units in the last
//! place of f32 (2.4e-7) on every value the tests try
//! (`tests::close_to_f64`). Below −87 the result is 0 (e⁻⁸⁷ ≈ 1.6e-38,
//! nothing next to a softmax's largest term, which is 1); above 88, +∞.

/// ln 2 in two parts: `C1` has few enough bits that `n · C1` is exact.
const C1: f32 = 0.693_359_4;
const C2: f32 = -2.121_944_4e-4;
const LOG2E: f32 = std::f32::consts::LOG2_E;
/// The polynomial's coefficients, highest degree first: eʳ ≈
/// 1 + r + r²·(P0·r⁵ + P1·r⁴ + … + P5).
const P: [f32; 6] = [
    1.987_569_1e-4,
    1.398_199_9e-3,
    8.333_452e-3,
    4.166_579_6e-2,
    0.166_666_65,
    0.5,
];
const UNDER: f32 = -87.0;
const OVER: f32 = 88.0;

/// e^x (see the module's notes).
pub(crate) fn exp(x: f32) -> f32 {
    if x < UNDER {
        return 0.0;
    }
    if x > OVER {
        return f32::INFINITY;
    }
    let n = (x * LOG2E).round_ties_even();
    let r = (-n).mul_add(C1, x);
    let r = (-n).mul_add(C2, r);
    let z = r * r;
    let p = P[1..].iter().fold(P[0], |p, &c| p.mul_add(r, c));
    let y = p.mul_add(z, r) + 1.0;
    // 2ⁿ for n in −126..=127 (x ≥ −87 keeps n ≥ −126); NaN reaches here
    // and stays NaN through `y`.
    let scale = f32::from_bits(((n as i32 + 127) as u32) << 23);
    y * scale
}

/// `row[i] = exp((row[i] − max) · scale)` for every value.
pub(crate) fn exp_shifted(row: &mut [f32], max: f32, scale: f32) {
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        // SAFETY: the features were just detected.
        done = unsafe { avx::exp_shifted(row, max, scale) };
    }
    for v in &mut row[done..] {
        *v = exp((*v - max) * scale);
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx {
    use super::{C1, C2, LOG2E, OVER, P, UNDER};
    use std::arch::x86_64::*;

    /// [`super::exp_shifted`] on the whole eights of `row`; returns how
    /// many values it did.
    ///
    /// # Safety
    /// AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn exp_shifted(row: &mut [f32], max: f32, scale: f32) -> usize {
        let whole = row.len() - row.len() % 8;
        let (max, scale) = (_mm256_set1_ps(max), _mm256_set1_ps(scale));
        let p = row.as_mut_ptr();
        for i in (0..whole).step_by(8) {
            let x = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(p.add(i)), max), scale);
            _mm256_storeu_ps(p.add(i), exp8(x));
        }
        whole
    }

    /// Eight [`super::exp`]s: the same operations, lane by lane.
    ///
    /// # Safety
    /// AVX2 and FMA.
    #[inline(always)]
    pub(crate) unsafe fn exp8(x: __m256) -> __m256 {
        let under = _mm256_cmp_ps::<_CMP_LT_OQ>(x, _mm256_set1_ps(UNDER));
        let over = _mm256_cmp_ps::<_CMP_GT_OQ>(x, _mm256_set1_ps(OVER));
        // Out-of-range lanes compute on 0 and are replaced below.
        let xs = _mm256_andnot_ps(_mm256_or_ps(under, over), x);
        let n = _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
            _mm256_mul_ps(xs, _mm256_set1_ps(LOG2E)),
        );
        let r = _mm256_fnmadd_ps(n, _mm256_set1_ps(C1), xs);
        let r = _mm256_fnmadd_ps(n, _mm256_set1_ps(C2), r);
        let z = _mm256_mul_ps(r, r);
        let mut poly = _mm256_set1_ps(P[0]);
        for &c in &P[1..] {
            poly = _mm256_fmadd_ps(poly, r, _mm256_set1_ps(c));
        }
        let y = _mm256_add_ps(_mm256_fmadd_ps(poly, z, r), _mm256_set1_ps(1.0));
        let bits = _mm256_slli_epi32::<23>(_mm256_add_epi32(
            _mm256_cvtps_epi32(n),
            _mm256_set1_epi32(127),
        ));
        let v = _mm256_mul_ps(y, _mm256_castsi256_ps(bits));
        let v = _mm256_andnot_ps(under, v);
        _mm256_blendv_ps(v, _mm256_set1_ps(f32::INFINITY), over)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values across the softmax's range and past both ends.
    fn samples() -> Vec<f32> {
        let mut xs: Vec<f32> = (0..=200_000).map(|i| -100.0 + i as f32 * 1e-3).collect();
        xs.extend([
            0.0,
            -0.0,
            -1e-30,
            1e-30,
            -87.0,
            -86.999,
            88.0,
            88.5,
            -f32::INFINITY,
            f32::INFINITY,
        ]);
        xs.extend(
            crate::test_values::spread(10_000, 3)
                .iter()
                .map(|v| v * 40.0),
        );
        xs
    }

    #[test]
    fn close_to_f64() {
        let mut worst = 0f64;
        for x in samples() {
            let got = exp(x) as f64;
            let want = (x as f64).exp();
            if x < UNDER {
                assert_eq!(got, 0.0, "e^{x}");
            } else if x > OVER {
                assert_eq!(got, f64::INFINITY, "e^{x}");
            } else {
                worst = worst.max(((got - want) / want).abs());
            }
        }
        // Two units in the last place of f32 (2⁻²³ ≈ 1.19e-7 each).
        assert!(worst < 2.4e-7, "worst relative error {worst:e}");
        assert!(exp(f32::NAN).is_nan());
    }

    #[test]
    fn eight_at_a_time_gives_each_ones_bits() {
        let xs = samples();
        for (max, scale) in [(0.0, 1.0), (3.5, 0.125), (-2.0, 0.7)] {
            let mut row = xs.clone();
            exp_shifted(&mut row, max, scale);
            for (x, got) in xs.iter().zip(&row) {
                let want = exp((x - max) * scale);
                assert_eq!(got.to_bits(), want.to_bits(), "e^(({x} − {max})·{scale})");
            }
        }
    }
}
