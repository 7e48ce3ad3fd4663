//! GELU in BERT's erf form, eight values at a time on AVX2+FMA and one at
//! a time elsewhere, with the same operations in the same order either
//! way (e^x from [`crate::exp`]), so every machine gives the same bits.
//! One value at a time through the C library's `expf` it held about 12%
//! of an embedding run's CPU samples (`docs/performance.md`).

use crate::exp::exp;
use std::f32::consts::FRAC_1_SQRT_2;

/// Abramowitz & Stegun 7.1.26: erf(x) ≈ 1 − (a₁t + a₂t² + … + a₅t⁵)·e^(−x²)
/// with t = 1 / (1 + p·x), |error| < 1.5e-7 (below f32's resolution for
/// GELU's purposes). The coefficients, a₅ first.
const A: [f32; 5] = [
    1.061_405_4,
    -1.453_152_1,
    1.421_413_8,
    -0.284_496_74,
    0.254_829_6,
];
const P: f32 = 0.327_591_1;

/// erf(x) (see [`A`]).
fn erf(x: f32) -> f32 {
    let s = x.signum();
    let x = x.abs();
    let t = 1.0 / (1.0 + P * x);
    let poly = A[1..].iter().fold(A[0] * t, |p, &a| (p + a) * t);
    s * (1.0 - poly * exp(-x * x))
}

/// `x · Φ(x)` with Φ through [`erf`].
fn gelu(v: f32) -> f32 {
    0.5 * v * (1.0 + erf(v * FRAC_1_SQRT_2))
}

/// GELU on every value of `row`, in place.
pub(super) fn apply(row: &mut [f32]) {
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        // SAFETY: the features were just detected.
        done = unsafe { avx::apply(row) };
    }
    for v in &mut row[done..] {
        *v = gelu(*v);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use super::{A, P};
    use crate::exp::avx::exp8;
    use std::arch::x86_64::*;
    use std::f32::consts::FRAC_1_SQRT_2;

    /// [`super::gelu`] on the whole eights of `row`, lane by lane the same
    /// operations; returns how many values it did.
    ///
    /// # Safety
    /// AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn apply(row: &mut [f32]) -> usize {
        let whole = row.len() - row.len() % 8;
        let p = row.as_mut_ptr();
        let (one, half, sign) = (
            _mm256_set1_ps(1.0),
            _mm256_set1_ps(0.5),
            _mm256_set1_ps(-0.0),
        );
        for i in (0..whole).step_by(8) {
            let v = _mm256_loadu_ps(p.add(i));
            let x = _mm256_mul_ps(v, _mm256_set1_ps(FRAC_1_SQRT_2));
            // signum: ±1 carrying x's sign (NaN lanes stay NaN through `t`).
            let s = _mm256_or_ps(_mm256_and_ps(x, sign), one);
            let x = _mm256_andnot_ps(sign, x);
            let t = _mm256_div_ps(one, _mm256_add_ps(one, _mm256_mul_ps(_mm256_set1_ps(P), x)));
            let mut poly = _mm256_mul_ps(_mm256_set1_ps(A[0]), t);
            for &a in &A[1..] {
                poly = _mm256_mul_ps(_mm256_add_ps(poly, _mm256_set1_ps(a)), t);
            }
            let e = exp8(_mm256_mul_ps(_mm256_xor_ps(x, sign), x));
            let erf = _mm256_mul_ps(s, _mm256_sub_ps(one, _mm256_mul_ps(poly, e)));
            let g = _mm256_mul_ps(_mm256_mul_ps(half, v), _mm256_add_ps(one, erf));
            _mm256_storeu_ps(p.add(i), g);
        }
        whole
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_is_accurate() {
        for (x, want) in [
            (0.0f32, 0.0f32),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-2.0, -0.995_322_3),
            (-6.0, -1.0),
            (14.0, 1.0),
        ] {
            assert!((erf(x) - want).abs() < 3e-7, "erf({x}) = {}", erf(x));
        }
    }

    #[test]
    fn eight_at_a_time_gives_each_ones_bits() {
        let mut xs: Vec<f32> = (0..=40_000).map(|i| -20.0 + i as f32 * 1e-3).collect();
        xs.extend([0.0, -0.0, 1e-30, -1e-30, 200.0, -200.0]);
        xs.extend(
            crate::test_values::spread(4_096, 11)
                .iter()
                .map(|v| v * 8.0),
        );
        let mut row = xs.clone();
        apply(&mut row);
        for (x, got) in xs.iter().zip(&row) {
            assert_eq!(got.to_bits(), gelu(*x).to_bits(), "gelu({x})");
        }
    }
}
