//! Deterministic pseudo-random inputs for the models' unit tests (a 64-bit
//! linear congruential generator: the same values on every machine).

/// The generator's next state.
fn step(seed: u64) -> u64 {
    seed.wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407)
}

/// Values uniform in [-0.5, 0.5), from `seed`.
pub(crate) fn uniform(mut seed: u64) -> impl FnMut() -> f32 {
    move || {
        seed = step(seed);
        (seed >> 33) as f32 / (1u64 << 31) as f32 - 0.5
    }
}

/// `n` values with a spread of magnitudes, like real weights and
/// activations: uniform, and one in about seventeen eight times larger.
pub(crate) fn spread(n: usize, mut seed: u64) -> Vec<f32> {
    (0..n)
        .map(|_| {
            seed = step(seed);
            ((seed >> 33) as f32 / (1u64 << 31) as f32 - 0.5)
                * if seed.is_multiple_of(17) { 8.0 } else { 1.0 }
        })
        .collect()
}
