//! The quantitative GEM-Bench metrics (the paper's Table 3), as pure
//! functions of sentence embeddings, on a 0–100 scale (×100 of a cosine, so
//! a negative cosine gives a negative value). A metric that is undefined for
//! a response is an `Unscored` verdict with the reason, never a 0.
//!
//! Differences from gembench 1.0.9, on purpose: ad flow keeps negative
//! similarities (the reference skips neighbours whose similarity is not
//! positive) and is undefined rather than 0 when no ad sentence has two
//! neighbours; ad coherence compares with the normalised non-ad centre
//! (cosine is scale-free, so this matches the reference's value).

use adfarm_proto::Verdict;
use adfarm_suite::stats;

/// Metric names as they appear in scores and reports.
pub mod names {
    /// Response flow RF: mean cosine of adjacent sentences.
    pub const RESPONSE_FLOW: &str = "response-flow";
    /// Response coherence RC: mean cosine of each sentence to the mean embedding.
    pub const RESPONSE_COHERENCE: &str = "response-coherence";
    /// Ad flow AF: exp(−|sim(prev, ad) − sim(ad, next)|) per ad sentence.
    pub const AD_FLOW: &str = "ad-flow";
    /// Ad coherence AC: cosine of each ad sentence to the non-ad centre.
    pub const AD_COHERENCE: &str = "ad-coherence";
    /// Injection rate IR: the chosen ad's name or URL is in the response.
    pub const INJECTION_RATE: &str = "injection-rate";
    /// Ad selected: the solution chose an ad at all.
    pub const AD_SELECTED: &str = "ad-selected";
    /// CA-Prod selection accuracy (the paper's CTR): the chosen candidate is labelled relevant.
    pub const CTR: &str = "ctr";
}

/// Reasons a metric is undefined.
pub mod unscored {
    /// The response is empty or whitespace only, whichever solution wrote
    /// it: there is nothing to judge or embed.
    pub const EMPTY_RESPONSE: &str = "empty-response";
    /// Fewer than two sentences.
    pub const FEW_SENTENCES: &str = "fewer-than-two-sentences";
    /// No ad was chosen.
    pub const NO_AD: &str = "no-ad";
    /// An ad was chosen but no sentence contains its name or URL.
    pub const NO_AD_SENTENCE: &str = "no-ad-sentence";
    /// No ad sentence has a sentence before and after it.
    pub const NO_INNER_AD_SENTENCE: &str = "no-ad-sentence-between-two";
    /// Every sentence is an ad sentence.
    pub const NO_NON_AD_SENTENCE: &str = "no-non-ad-sentence";
    /// CA-Prod lists the chosen pair with both labels.
    pub const LABEL_CONFLICT: &str = "label-conflict";
    /// The chosen product is not a candidate of the query.
    pub const NOT_A_CANDIDATE: &str = "not-a-candidate";
}

fn unscored(reason: &str) -> Verdict {
    Verdict::Unscored(reason.to_string())
}

/// Cosine similarity; 0 when either vector is all zeros.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

/// Element-wise mean of `vs` (empty input gives an empty vector).
pub fn mean_vector<'a>(vs: impl IntoIterator<Item = &'a [f32]>) -> Vec<f32> {
    let mut sum: Vec<f64> = Vec::new();
    let mut n = 0usize;
    for v in vs {
        if sum.is_empty() {
            sum = vec![0.0; v.len()];
        }
        for (s, x) in sum.iter_mut().zip(v) {
            *s += f64::from(*x);
        }
        n += 1;
    }
    sum.into_iter().map(|s| (s / n as f64) as f32).collect()
}

/// The mean of values the caller knows exist (NaN for none).
fn mean(xs: &[f64]) -> f64 {
    stats::mean(xs.iter().copied()).unwrap_or(f64::NAN)
}

/// RF: 100 × mean cosine of adjacent sentences.
pub fn response_flow(emb: &[Vec<f32>]) -> Verdict {
    if emb.len() < 2 {
        return unscored(unscored::FEW_SENTENCES);
    }
    let sims: Vec<f64> = emb.windows(2).map(|w| cosine(&w[0], &w[1])).collect();
    Verdict::Score(100.0 * mean(&sims))
}

/// RC: 100 × mean cosine of each sentence to the mean embedding.
pub fn response_coherence(emb: &[Vec<f32>]) -> Verdict {
    if emb.len() < 2 {
        return unscored(unscored::FEW_SENTENCES);
    }
    let centre = mean_vector(emb.iter().map(Vec::as_slice));
    let sims: Vec<f64> = emb.iter().map(|e| cosine(e, &centre)).collect();
    Verdict::Score(100.0 * mean(&sims))
}

/// AF: 100 × mean over ad sentences `d` with neighbours on both sides of
/// exp(−|sim(s_{d−1}, s_d) − sim(s_d, s_{d+1})|).
pub fn ad_flow(emb: &[Vec<f32>], ad: &[usize]) -> Verdict {
    if emb.len() < 2 {
        return unscored(unscored::FEW_SENTENCES);
    }
    if ad.is_empty() {
        return unscored(unscored::NO_AD_SENTENCE);
    }
    let vals: Vec<f64> = ad
        .iter()
        .filter(|&&d| d >= 1 && d + 1 < emb.len())
        .map(|&d| {
            let prev = cosine(&emb[d - 1], &emb[d]);
            let next = cosine(&emb[d], &emb[d + 1]);
            (-(prev - next).abs()).exp()
        })
        .collect();
    if vals.is_empty() {
        return unscored(unscored::NO_INNER_AD_SENTENCE);
    }
    Verdict::Score(100.0 * mean(&vals))
}

/// AC: 100 × mean cosine of each ad sentence to the mean of the non-ad
/// sentences.
pub fn ad_coherence(emb: &[Vec<f32>], ad: &[usize]) -> Verdict {
    if emb.len() < 2 {
        return unscored(unscored::FEW_SENTENCES);
    }
    if ad.is_empty() {
        return unscored(unscored::NO_AD_SENTENCE);
    }
    let non_ad: Vec<&[f32]> = emb
        .iter()
        .enumerate()
        .filter(|(i, _)| !ad.contains(i))
        .map(|(_, e)| e.as_slice())
        .collect();
    if non_ad.is_empty() {
        return unscored(unscored::NO_NON_AD_SENTENCE);
    }
    let centre = mean_vector(non_ad);
    let sims: Vec<f64> = ad
        .iter()
        .filter_map(|&d| emb.get(d))
        .map(|e| cosine(e, &centre))
        .collect();
    Verdict::Score(100.0 * mean(&sims))
}

/// The part of a URL that identifies it in text: lower-case, no scheme,
/// no trailing slash (rewrites often drop either).
fn url_core(url: &str) -> String {
    let u = url.trim().to_lowercase();
    let u = u
        .strip_prefix("https://")
        .or_else(|| u.strip_prefix("http://"))
        .unwrap_or(&u);
    u.trim_end_matches('/').to_string()
}

/// Whether `sentence` mentions the ad: its name (case-sensitive, as a
/// lower-cased brand like "People" would match ordinary words) or its URL
/// (ignoring scheme, case and a trailing slash).
pub fn mentions_ad(sentence: &str, name: &str, url: &str) -> bool {
    let name = name.trim();
    if name.chars().count() >= 2 && sentence.contains(name) {
        return true;
    }
    let core = url_core(url);
    core.len() >= 4 && sentence.to_lowercase().contains(&core)
}

/// Indices of the sentences that mention the ad.
pub fn ad_sentences(sentences: &[String], name: &str, url: &str) -> Vec<usize> {
    sentences
        .iter()
        .enumerate()
        .filter(|(_, s)| mentions_ad(s, name, url))
        .map(|(i, _)| i)
        .collect()
}

/// IR for one response: 100 when an ad was chosen and the text mentions it,
/// 0 otherwise (no ad chosen counts as not injected).
pub fn injection_rate(text: &str, ad: Option<(&str, &str)>) -> Verdict {
    match ad {
        Some((name, url)) if mentions_ad(text, name, url) => Verdict::Score(100.0),
        _ => Verdict::Score(0.0),
    }
}

/// "Ad selected" for one response: 100 when the solution chose an ad.
pub fn ad_selected(chosen: bool) -> Verdict {
    Verdict::Score(if chosen { 100.0 } else { 0.0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(v: Verdict) -> f64 {
        match v {
            Verdict::Score(s) => s,
            Verdict::Unscored(r) => panic!("unscored: {r}"),
        }
    }

    fn close(a: f64, b: f64) {
        // Centres are f32 like the embeddings: 1e-4 on the 0–100 scale.
        assert!((a - b).abs() < 1e-4, "{a} != {b}");
    }

    // Three unit vectors: e1, e2 and (e1+e2)/√2.
    fn tri() -> Vec<Vec<f32>> {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        vec![vec![1.0, 0.0], vec![h, h], vec![0.0, 1.0]]
    }

    #[test]
    fn cosine_of_known_vectors() {
        close(cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
        close(cosine(&[1.0, 2.0], &[2.0, 4.0]), 1.0);
        close(cosine(&[1.0, 0.0], &[-1.0, 0.0]), -1.0);
        close(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    }

    #[test]
    fn response_flow_is_mean_adjacent_cosine() {
        // sims: cos45 = 0.7071, cos45 = 0.7071 → 70.71
        close(
            score(response_flow(&tri())),
            100.0 * std::f64::consts::FRAC_1_SQRT_2,
        );
        // e1, e2: 0 → 0.
        close(score(response_flow(&[vec![1.0, 0.0], vec![0.0, 1.0]])), 0.0);
    }

    #[test]
    fn response_coherence_uses_the_mean_embedding() {
        // e1, e2: mean (0.5, 0.5); each has cosine 0.7071 to it.
        let v = response_coherence(&[vec![1.0, 0.0], vec![0.0, 1.0]]);
        close(score(v), 70.710678);
        // e1, e1, e2: mean (2/3, 1/3), |mean| = √5/3; cos(e1) = 2/√5, cos(e2) = 1/√5.
        let v = response_coherence(&[vec![1.0, 0.0], vec![1.0, 0.0], vec![0.0, 1.0]]);
        let want = 100.0 * (2.0 * 2.0 / 5f64.sqrt() + 1.0 / 5f64.sqrt()) / 3.0;
        close(score(v), want);
    }

    #[test]
    fn ad_flow_uses_both_neighbours() {
        // Ad in the middle: |cos45 − cos45| = 0 → exp(0) = 1 → 100.
        close(score(ad_flow(&tri(), &[1])), 100.0);
        // e1, e1, e2, ad at 1: prev 1, next 0 → exp(−1) → 36.79.
        let emb = vec![vec![1.0, 0.0], vec![1.0, 0.0], vec![0.0, 1.0]];
        close(score(ad_flow(&emb, &[1])), 100.0 * (-1f64).exp());
        // Negative similarities count: e1, −e1, e1, ad at 1: prev −1, next −1 → 100.
        let emb = vec![vec![1.0, 0.0], vec![-1.0, 0.0], vec![1.0, 0.0]];
        close(score(ad_flow(&emb, &[1])), 100.0);
    }

    #[test]
    fn ad_flow_is_undefined_at_the_edges_or_without_ads() {
        assert_eq!(
            ad_flow(&tri(), &[0, 2]),
            Verdict::Unscored(unscored::NO_INNER_AD_SENTENCE.into())
        );
        assert_eq!(
            ad_flow(&tri(), &[]),
            Verdict::Unscored(unscored::NO_AD_SENTENCE.into())
        );
        assert_eq!(
            ad_flow(&tri()[..1], &[0]),
            Verdict::Unscored(unscored::FEW_SENTENCES.into())
        );
    }

    #[test]
    fn ad_coherence_compares_with_the_non_ad_centre() {
        // Ad e2 vs non-ad {e1, (e1+e2)/√2}: centre ∝ (1+h, h); cos = h/|c|.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let want = 100.0 * h / ((1.0 + h).powi(2) + h * h).sqrt();
        close(score(ad_coherence(&tri(), &[2])), want);
        // Two ads e1, e2 vs non-ad (h, h): each 70.71.
        close(score(ad_coherence(&tri(), &[0, 2])), 100.0 * h);
        assert_eq!(
            ad_coherence(&tri(), &[0, 1, 2]),
            Verdict::Unscored(unscored::NO_NON_AD_SENTENCE.into())
        );
    }

    #[test]
    fn few_sentences_are_unscored_not_zero() {
        for v in [
            response_flow(&[vec![1.0]]),
            response_coherence(&[]),
            ad_coherence(&[vec![1.0]], &[0]),
        ] {
            assert_eq!(v, Verdict::Unscored(unscored::FEW_SENTENCES.into()));
        }
    }

    #[test]
    fn ad_mentions_by_name_or_url() {
        let s = vec![
            "Pack light.".to_string(),
            "Try [Osprey](https://www.osprey.com/) packs.".to_string(),
            "See WWW.OSPREY.COM today.".to_string(),
            "osprey is a bird.".to_string(),
        ];
        assert_eq!(
            ad_sentences(&s, "Osprey", "https://www.osprey.com/"),
            [1, 2]
        );
        assert_eq!(
            injection_rate("no mention", Some(("Osprey", "https://osprey.com"))),
            Verdict::Score(0.0)
        );
        assert_eq!(
            injection_rate("Try osprey.com now", Some(("Osprey", "https://osprey.com"))),
            Verdict::Score(100.0)
        );
        assert_eq!(injection_rate("Osprey", None), Verdict::Score(0.0));
        assert_eq!(ad_selected(true), Verdict::Score(100.0));
    }
}
