//! A small seeded generator (SplitMix64) for the bootstrap and the synthetic
//! bandit: the same seed gives the same resamples on every machine and with
//! every dependency version, which a library RNG does not promise.

/// SplitMix64 (Steele, Lea & Flood 2014): 64-bit state, passes BigCrush,
/// and any seed (including 0) is a good one.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose stream is fixed by `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// Independent streams from one seed: stream `k` of `seed`.
    pub fn stream(seed: u64, k: u64) -> SplitMix64 {
        // Mixing the stream number through one step decorrelates neighbours.
        let mut s = SplitMix64::new(seed ^ k.wrapping_mul(0xD1B5_4A32_D192_ED03));
        s.next_u64();
        s
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in `0..bound` without modulo bias (Lemire 2019).
    ///
    /// # Panics
    /// When `bound` is 0.
    pub fn below(&mut self, bound: usize) -> usize {
        assert!(bound > 0, "below(0)");
        let bound = bound as u64;
        let mut m = u128::from(self.next_u64()) * u128::from(bound);
        if (m as u64) < bound {
            let threshold = bound.wrapping_neg() % bound;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(bound);
            }
        }
        (m >> 64) as usize
    }

    /// An index drawn from the discrete distribution `probs` (summing to 1).
    pub fn categorical(&mut self, probs: &[f64]) -> usize {
        let u = self.next_f64();
        let mut acc = 0.0;
        for (i, p) in probs.iter().enumerate() {
            acc += p;
            if u < acc {
                return i;
            }
        }
        // Rounding left `acc` a hair under 1: the last positive entry.
        probs.iter().rposition(|&p| p > 0.0).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_splitmix64_stream() {
        // First outputs of the reference C implementation for seed 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = SplitMix64::new(3);
        let mut seen = [0usize; 7];
        for _ in 0..7000 {
            seen[r.below(7)] += 1;
        }
        assert!(seen.iter().all(|&c| (850..1150).contains(&c)), "{seen:?}");
    }

    #[test]
    fn categorical_follows_the_probabilities() {
        let mut r = SplitMix64::new(9);
        let p = [0.1, 0.0, 0.6, 0.3];
        let mut seen = [0usize; 4];
        for _ in 0..10_000 {
            seen[r.categorical(&p)] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!((5_700..6_300).contains(&seen[2]), "{seen:?}");
        assert!((700..1_300).contains(&seen[0]), "{seen:?}");
    }
}
