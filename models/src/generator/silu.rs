//! The feed-forward's gate, SiLU(g) · u, eight values at a time on
//! AVX2+FMA and one at a time elsewhere, with the same operations in the
//! same order either way (e^x from [`crate::exp`]), so every machine and
//! C library gives the same bits. Through the C library's `expf` it held
//! about 3% of the quickstart's CPU samples (`docs/performance.md`).

use crate::exp::exp;

/// `g / (1 + e^−g) · u`.
fn gated(g: f32, u: f32) -> f32 {
    g / (1.0 + exp(-g)) * u
}

/// `out[i] = SiLU(gate[i]) · up[i]` for every value.
pub(super) fn apply(gate: &[f32], up: &[f32], out: &mut [f32]) {
    debug_assert!(gate.len() == out.len() && up.len() == out.len());
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        // SAFETY: the features were just detected; the three slices have
        // one length.
        done = unsafe { avx::apply(gate, up, out) };
    }
    for ((o, &g), &u) in out[done..].iter_mut().zip(&gate[done..]).zip(&up[done..]) {
        *o = gated(g, u);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use crate::exp::avx::exp8;
    use std::arch::x86_64::*;

    /// [`super::gated`] on the whole eights, lane by lane the same
    /// operations; returns how many values it did.
    ///
    /// # Safety
    /// AVX2 and FMA; `gate`, `up` and `out` have one length.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn apply(gate: &[f32], up: &[f32], out: &mut [f32]) -> usize {
        let whole = out.len() - out.len() % 8;
        let (g, u, o) = (gate.as_ptr(), up.as_ptr(), out.as_mut_ptr());
        let (one, sign) = (_mm256_set1_ps(1.0), _mm256_set1_ps(-0.0));
        for i in (0..whole).step_by(8) {
            let gv = _mm256_loadu_ps(g.add(i));
            let e = exp8(_mm256_xor_ps(gv, sign));
            let s = _mm256_div_ps(gv, _mm256_add_ps(one, e));
            _mm256_storeu_ps(o.add(i), _mm256_mul_ps(s, _mm256_loadu_ps(u.add(i))));
        }
        whole
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_at_a_time_gives_each_ones_bits() {
        let mut gs: Vec<f32> = (0..=40_000).map(|i| -20.0 + i as f32 * 1e-3).collect();
        gs.extend([
            0.0, -0.0, 1e-30, -1e-30, 87.5, -87.5, 89.0, -89.0, 200.0, -200.0,
        ]);
        gs.extend(
            crate::test_values::spread(4_096, 13)
                .iter()
                .map(|v| v * 8.0),
        );
        let us: Vec<f32> = crate::test_values::spread(gs.len(), 17);
        let mut out = vec![0f32; gs.len()];
        apply(&gs, &us, &mut out);
        for ((g, u), got) in gs.iter().zip(&us).zip(&out) {
            assert_eq!(got.to_bits(), gated(*g, *u).to_bits(), "silu({g}) · {u}");
        }
    }

    #[test]
    fn is_close_to_silu_in_f64() {
        for i in 0..=4_000 {
            let g = -20.0 + i as f32 * 1e-2;
            let want = g as f64 / (1.0 + (-g as f64).exp());
            let got = gated(g, 1.0) as f64;
            assert!(
                (got - want).abs() <= 4.0 * f32::EPSILON as f64 * want.abs().max(1e-30),
                "silu({g}) = {got}, want {want}"
            );
        }
    }
}
