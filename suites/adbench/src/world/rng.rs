//! Counter-based randomness: every draw is a hash of (seed, entity, date,
//! hour, purpose), so any cell of the world can be computed alone, in any
//! order, and a query pays only for the rows it reads. Transcendental
//! functions in the world come from the pure-Rust `libm` crate, not the
//! platform's, so a world is bit-identical on every machine that builds it.

/// The per-cell mixer: SplitMix64's first output for a word
/// ([`adfarm_suite::stats::splitmix64`]).
pub use adfarm_suite::stats::splitmix64 as mix;

/// Hash of a key path: folding keeps `[a, b]` and `[b, a]` apart.
#[inline]
pub fn hash(parts: &[u64]) -> u64 {
    let mut h = 0x243F_6A88_85A3_08D3u64;
    for &p in parts {
        h = mix(h ^ p);
    }
    h
}

/// A uniform in the open interval (0, 1), so logarithms of it are finite.
#[inline]
pub fn unit(h: u64) -> f64 {
    ((h >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
}

/// A uniform in `[lo, hi)` from one hash.
#[inline]
pub fn uniform(h: u64, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * unit(h)
}

/// An integer in `[lo, hi]` from one hash.
#[inline]
pub fn range(h: u64, lo: i64, hi: i64) -> i64 {
    debug_assert!(lo <= hi);
    lo + ((h % ((hi - lo + 1) as u64)) as i64)
}

/// A near-normal deviate with mean 0 and variance 1: the Irwin–Hall sum of
/// the four 16-bit quarters of one hash. No transcendental calls (it runs
/// per cell), and tails bounded at ±3.46 keep single days free of absurd
/// outliers.
#[inline]
pub fn normal(h: u64) -> f64 {
    const Q: f64 = 1.0 / 65_536.0;
    let s = (h & 0xFFFF) + (h >> 16 & 0xFFFF) + (h >> 32 & 0xFFFF) + (h >> 48);
    ((s as f64 + 2.0) * Q - 2.0) * 1.732_050_807_568_877_2
}

/// A Gamma(shape, 1/shape) factor with mean 1, by the Wilson–Hilferty cube
/// approximation: one draw per call, so its cost is fixed (no rejection loop).
pub fn gamma_factor(h: u64, shape: f64) -> f64 {
    let c = 1.0 / (9.0 * shape);
    let t = 1.0 - c + normal(h) * c.sqrt();
    (t * t * t).max(0.0)
}

/// Rounds a non-negative real to the nearest count (negatives give 0). A
/// cast instead of `f64::round`, which is a library call on baseline x86-64
/// and showed in profiles.
#[inline]
pub fn round_count(x: f64) -> u64 {
    if x <= 0.0 {
        0
    } else {
        (x + 0.5) as u64
    }
}

/// Poisson(mean): exact inversion below a mean of 4, normal approximation
/// above (as for [`binomial`]: cost is per cell, and small counts are noise).
pub fn poisson(h: u64, mean: f64) -> u64 {
    if mean <= 0.0 || !mean.is_finite() {
        return 0;
    }
    if mean < 4.0 {
        let u = unit(h);
        let mut k = 0u64;
        let mut p = libm::exp(-mean);
        let mut cdf = p;
        while cdf < u && k < 200 {
            k += 1;
            p *= mean * inv(k);
            cdf += p;
        }
        return k;
    }
    round_count(mean + mean.sqrt() * normal(h))
}

/// `x^n` by squaring: `f64::powi` may differ across platforms, and worlds
/// must be bit-identical wherever they are built.
fn pow_int(mut x: f64, mut n: u64) -> f64 {
    let mut acc = 1.0;
    while n > 0 {
        if n & 1 == 1 {
            acc *= x;
        }
        x *= x;
        n >>= 1;
    }
    acc
}

/// Reciprocals 1/k for the inversion loops: a multiply instead of a
/// divide per step (the divide's latency dominated the draw).
const INV: [f64; 64] = {
    let mut t = [0.0; 64];
    let mut k = 1;
    while k < 64 {
        t[k] = 1.0 / k as f64;
        k += 1;
    }
    t
};

/// 1/k, from the table when small.
#[inline]
fn inv(k: u64) -> f64 {
    if k < 64 {
        INV[k as usize]
    } else {
        1.0 / k as f64
    }
}

/// Binomial(n, p): exact inversion while the mean is below 4, a clamped normal
/// approximation above, and symmetry for p > 1/2.
pub fn binomial(h: u64, n: u64, p: f64) -> u64 {
    if n == 0 || p <= 0.0 || p.is_nan() {
        return 0;
    }
    if p >= 1.0 {
        return n;
    }
    if p > 0.5 {
        return n - binomial(h, n, 1.0 - p);
    }
    let mean = n as f64 * p;
    // Inversion costs O(mean) dependent steps (~90 ns at mean 8 against
    // ~15 ns for the normal approximation), and splits draw many binomials
    // per row: switch early. Counts this small are noise either way.
    if mean < 4.0 {
        let u = unit(h);
        let q = 1.0 - p;
        let ratio = p / q;
        let mut pmf = pow_int(q, n);
        let mut cdf = pmf;
        let mut k = 0u64;
        while cdf < u && k < n {
            pmf *= ratio * (n - k) as f64 * inv(k + 1);
            k += 1;
            cdf += pmf;
            if pmf < 1e-300 {
                break;
            }
        }
        return k;
    }
    let sd = (mean * (1.0 - p)).sqrt();
    round_count(mean + sd * normal(h)).min(n)
}

/// Splits `total` into cells with probabilities proportional to `weights`
/// by sequential conditional binomials, so the parts sum to `total` exactly.
/// With `caps`, cell i never exceeds `caps[i]` (clicks ≤ impressions); the
/// caller guarantees `total ≤ Σ caps`. `out[i]` receives cell i's count
/// (`out` is as long as `weights`; slices, so callers can use stack arrays).
pub fn split(key: u64, total: u64, weights: &[f64], caps: Option<&[u64]>, out: &mut [u64]) {
    let m = weights.len();
    debug_assert_eq!(out.len(), m);
    if m == 0 {
        return;
    }
    let mut remaining = total;
    let mut weight_left: f64 = weights.iter().sum();
    // Room left in the cells after i, so a cap can push counts forward.
    let mut cap_after: u64 = match caps {
        Some(c) => c.iter().fold(0u64, |a, &x| a.saturating_add(x)),
        None => u64::MAX,
    };
    for i in 0..m {
        let cap_i = caps.map_or(u64::MAX, |c| c[i]);
        if caps.is_some() {
            cap_after = cap_after.saturating_sub(cap_i);
        }
        if i + 1 == m {
            out[i] = remaining;
            break;
        }
        let w = weights[i].max(0.0);
        let p = if weight_left > 0.0 {
            (w / weight_left).min(1.0)
        } else {
            0.0
        };
        weight_left -= w;
        let drawn = if remaining == 0 {
            0
        } else {
            binomial(
                mix(key ^ (i as u64).wrapping_mul(0xA24B_AED4_963E_E407)),
                remaining,
                p,
            )
        };
        let lo = remaining.saturating_sub(cap_after);
        let hi = remaining.min(cap_i);
        // If no weight is left after this cell, it takes everything it can.
        let x = if weight_left <= 0.0 && caps.is_none() {
            remaining
        } else {
            drawn.clamp(lo, hi.max(lo))
        };
        out[i] = x;
        remaining -= x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_sums_and_respects_caps() {
        let mut out = [0u64; 5];
        for k in 0..500u64 {
            let caps = [3u64, 0, 50, 7, 1000];
            let total = (k * 7) % 1060;
            split(
                mix(k),
                total,
                &[1.0, 2.0, 0.5, 4.0, 0.1],
                Some(&caps),
                &mut out,
            );
            assert_eq!(out.iter().sum::<u64>(), total);
            for (x, c) in out.iter().zip(caps) {
                assert!(*x <= c, "{out:?} over {caps:?}");
            }
        }
    }

    #[test]
    fn split_without_caps_follows_weights() {
        let mut out = [0u64; 2];
        split(42, 1_000_000, &[1.0, 3.0], None, &mut out);
        assert_eq!(out[0] + out[1], 1_000_000);
        assert!((240_000..260_000).contains(&out[0]), "{out:?}");
    }

    #[test]
    fn draws_have_plausible_means() {
        let n = 20_000u64;
        let pois: u64 = (0..n).map(|i| poisson(mix(i), 4.0)).sum();
        let bin: u64 = (0..n).map(|i| binomial(mix(i + 7), 100, 0.03)).sum();
        let big: u64 = (0..n).map(|i| binomial(mix(i + 9), 10_000, 0.3)).sum();
        let gam: f64 = (0..n).map(|i| gamma_factor(mix(i + 3), 6.0)).sum();
        let z: Vec<f64> = (0..n).map(|i| normal(mix(i + 11))).collect();
        let var = z.iter().map(|x| x * x).sum::<f64>() / n as f64;
        assert!(
            (z.iter().sum::<f64>() / n as f64).abs() < 0.02 && (var - 1.0).abs() < 0.03,
            "{var}"
        );
        assert!((pois as f64 / n as f64 - 4.0).abs() < 0.1);
        assert!((bin as f64 / n as f64 - 3.0).abs() < 0.1);
        assert!((big as f64 / n as f64 - 3000.0).abs() < 5.0);
        assert!((gam / n as f64 - 1.0).abs() < 0.02);
    }
}
