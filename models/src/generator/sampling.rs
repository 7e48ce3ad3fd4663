//! Next-token choice: greedy at temperature 0, else temperature + top-p with
//! a seeded generator, so the same seed gives the same reply.

/// SplitMix64: tiny, seedable, and stable across crate versions (a
/// dependency's RNG could change its stream in a minor release and silently
/// change cached results).
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Index of the largest logit (lowest index on ties).
pub(crate) fn argmax(logits: &[f32]) -> u32 {
    let mut best = 0;
    for (i, &v) in logits.iter().enumerate() {
        if v > logits[best] {
            best = i;
        }
    }
    best as u32
}

/// Samples a token: greedy when `temperature <= 0`, else from the smallest
/// set of most likely tokens whose mass reaches `top_p`.
pub(crate) fn sample(logits: &[f32], temperature: f32, top_p: f32, rng: &mut Rng) -> u32 {
    if temperature <= 0.0 || !temperature.is_finite() {
        return argmax(logits);
    }
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut probs: Vec<(u32, f64)> = logits
        .iter()
        .enumerate()
        .map(|(i, &l)| (i as u32, (((l - max) / temperature) as f64).exp()))
        .collect();
    let total: f64 = probs.iter().map(|p| p.1).sum();
    // Descending probability, ties by id, so the order is fully determined.
    probs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let top_p = if top_p > 0.0 && top_p < 1.0 {
        top_p as f64
    } else {
        1.0
    };
    let mut kept = 0;
    let mut mass = 0.0;
    for p in &probs {
        mass += p.1 / total;
        kept += 1;
        if mass >= top_p {
            break;
        }
    }
    let probs = &probs[..kept];
    let kept_mass: f64 = probs.iter().map(|p| p.1).sum();
    let mut r = rng.next_f64() * kept_mass;
    for p in probs {
        if r < p.1 {
            return p.0;
        }
        r -= p.1;
    }
    probs[kept - 1].0
}

/// Natural-log softmax probability of `token` under `logits`.
pub(crate) fn log_prob(logits: &[f32], token: u32) -> f64 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let lse = logits
        .iter()
        .map(|&l| (l as f64 - max).exp())
        .sum::<f64>()
        .ln()
        + max;
    logits
        .get(token as usize)
        .map_or(f64::NEG_INFINITY, |&l| l as f64 - lse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_and_seeded_sampling_are_deterministic() {
        let logits = [0.1, 2.0, 1.9, -1.0];
        let mut rng = Rng::new(1);
        assert_eq!(sample(&logits, 0.0, 1.0, &mut rng), 1);
        let run = |seed| {
            let mut rng = Rng::new(seed);
            (0..32)
                .map(|_| sample(&logits, 1.0, 0.95, &mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        // top_p small enough keeps only the best token.
        let mut rng = Rng::new(3);
        assert!((0..50).all(|_| sample(&logits, 1.0, 0.01, &mut rng) == 1));
    }

    #[test]
    fn log_prob_is_a_log_softmax() {
        let logits = [0.0f32, 0.0];
        assert!((log_prob(&logits, 0) - 0.5f64.ln()).abs() < 1e-9);
        assert_eq!(log_prob(&logits, 9), f64::NEG_INFINITY);
    }
}
