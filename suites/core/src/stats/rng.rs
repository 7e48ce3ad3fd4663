//! SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom
//! number generators"; the reference C code is Vigna's `splitmix64.c`):
//! the one seeded generator the suites draw from. Its stream is fixed by
//! this code alone, so the same seed gives the same worlds, resamples and
//! auctions on every machine and with every dependency version, which a
//! library RNG does not promise.

/// The Weyl increment SplitMix64 adds to its state per step (2⁶⁴/φ, odd).
pub const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's finaliser (Stafford's "Mix13" variant of MurmurHash3's
/// fmix64): a bijective 64-bit mixer with full avalanche, cheap enough to
/// hash every cell of a simulated world.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The first output of SplitMix64 seeded with `z`:
/// `mix64(z + GOLDEN_GAMMA)`, a counter-based hash of one word.
#[inline]
pub fn splitmix64(z: u64) -> u64 {
    mix64(z.wrapping_add(GOLDEN_GAMMA))
}

/// SplitMix64: 64-bit state, passes BigCrush, and any seed (including 0)
/// is a good one.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose stream is fixed by `seed`.
    #[inline]
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

    /// Next 64 random bits: the state advances by [`GOLDEN_GAMMA`] and is
    /// finalised by [`mix64`].
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        mix64(self.state)
    }

    /// Uniform in `[0, 1)` with 53 random bits (the top 53 of a draw).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in `0..bound` without modulo bias (Lemire 2019,
    /// "Fast random integer generation in an interval").
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

    /// An index drawn from the discrete distribution `probs` (summing to 1)
    /// by inversion of one uniform.
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
    fn matches_the_reference_splitmix64_stream_for_seed_0() {
        // First outputs of Vigna's splitmix64.c with x = 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn matches_the_reference_splitmix64_stream_for_seed_1234567() {
        // Rosetta Code, "Pseudo-random numbers/Splitmix64": the first five
        // outputs for seed 1234567.
        let mut r = SplitMix64::new(1_234_567);
        let want = [
            6_457_827_717_110_365_317,
            3_203_168_211_198_807_973,
            9_817_491_932_198_370_423,
            4_593_380_528_125_082_431,
            16_408_922_859_458_223_821,
        ];
        for w in want {
            assert_eq!(r.next_u64(), w);
        }
    }

    #[test]
    fn splitmix64_of_a_word_is_the_first_output_of_that_seed() {
        for seed in [0, 1, 42, u64::MAX] {
            assert_eq!(splitmix64(seed), SplitMix64::new(seed).next_u64());
        }
        // mix64 is a bijection: distinct inputs, distinct outputs.
        assert_ne!(mix64(1), mix64(2));
        assert_eq!(mix64(0), 0);
    }

    #[test]
    fn streams_of_one_seed_differ_and_repeat() {
        let a: Vec<u64> = {
            let mut s = SplitMix64::stream(7, 1);
            (0..4).map(|_| s.next_u64()).collect()
        };
        let mut s = SplitMix64::stream(7, 1);
        assert_eq!(a, (0..4).map(|_| s.next_u64()).collect::<Vec<_>>());
        assert_ne!(
            SplitMix64::stream(7, 1).next_u64(),
            SplitMix64::stream(7, 2).next_u64()
        );
    }

    #[test]
    fn next_f64_is_in_the_unit_interval() {
        let mut r = SplitMix64::new(5);
        assert!((0..10_000).all(|_| (0.0..1.0).contains(&r.next_f64())));
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
