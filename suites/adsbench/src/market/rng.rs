//! Counter-based randomness: every draw is a pure function of a key, so any
//! tick (or any opportunity within it) can be generated without the ones
//! before it, and reordering work never changes the numbers. The generator
//! is the shared SplitMix64 of [`adfarm_suite::stats`].

use adfarm_suite::stats::SplitMix64;

pub use adfarm_suite::stats::mix64;

/// Folds a list of words into one key; order matters, so `(day, tick)` and
/// `(tick, day)` give unrelated streams.
#[inline]
pub fn key(parts: &[u64]) -> u64 {
    let mut h = 0x6a09_e667_f3bc_c909_u64;
    for &p in parts {
        h = mix64(h ^ p.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    }
    h
}

/// Stream purposes, so draws for different things from the same
/// coordinates never collide.
pub mod purpose {
    pub const VOLUME: u64 = 1;
    pub const OPPORTUNITY: u64 = 2;
    pub const PROMOTION: u64 = 3;
    pub const COMPETITOR: u64 = 4;
}

/// A SplitMix64 sequence ([`SplitMix64`]) started at a key: cheap to
/// create per opportunity.
#[derive(Debug, Clone)]
pub struct Stream {
    rng: SplitMix64,
}

impl Stream {
    pub fn new(key: u64) -> Self {
        Stream {
            rng: SplitMix64::new(key),
        }
    }

    /// The stream for a tuple of coordinates (seed, purpose, day, ...).
    pub fn at(parts: &[u64]) -> Self {
        Stream::new(key(parts))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.rng.next_f64()
    }

    /// Uniform integer in [0, n) (Lemire's multiply-shift; the bias is below
    /// 2^-32 for the small n used here).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * n as u64) >> 32) as u32
    }

    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// Standard normal by Box–Muller (one of the pair is dropped: keeping
    /// state would make draws depend on call history).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]: ln is finite
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    pub fn lognormal(&mut self, mu: f64, sigma: f64) -> f64 {
        (mu + sigma * self.normal()).exp()
    }

    /// Rounds `x` up or down at random so the expectation is exactly `x`.
    pub fn round_stochastic(&mut self, x: f64) -> u32 {
        let floor = x.floor();
        let extra = u32::from(self.uniform() < x - floor);
        floor as u32 + extra
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_pure_functions_of_their_key() {
        let a: Vec<u64> = {
            let mut s = Stream::at(&[7, 1, 3]);
            (0..4).map(|_| s.next_u64()).collect()
        };
        let mut s = Stream::at(&[7, 1, 3]);
        let b: Vec<u64> = (0..4).map(|_| s.next_u64()).collect();
        assert_eq!(a, b);
        assert_ne!(key(&[1, 2]), key(&[2, 1]));
    }

    #[test]
    fn uniform_and_normal_have_the_right_moments() {
        let mut s = Stream::new(42);
        let n = 20_000;
        let mean_u: f64 = (0..n).map(|_| s.uniform()).sum::<f64>() / n as f64;
        assert!((mean_u - 0.5).abs() < 0.01, "uniform mean {mean_u}");
        let xs: Vec<f64> = (0..n).map(|_| s.normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.03, "normal mean {mean}");
        assert!((var - 1.0).abs() < 0.05, "normal variance {var}");
        assert!((0..1000).all(|_| s.below(5) < 5));
    }

    #[test]
    fn stochastic_rounding_is_unbiased() {
        let mut s = Stream::new(9);
        let total: u32 = (0..10_000).map(|_| s.round_stochastic(2.3)).sum();
        let mean = total as f64 / 10_000.0;
        assert!((mean - 2.3).abs() < 0.03, "mean {mean}");
    }
}
