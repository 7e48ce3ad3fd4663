//! Ad-LLM's injector (paper Algorithm 1): among the retrieved ads and the
//! slots between adjacent sentences, pick the pair that disturbs the flow
//! least, Ψ = sim(sᵢ,sᵢ₊₁) − (sim(sᵢ,d) + sim(d,sᵢ₊₁))/2, and insert the ad
//! there as a markdown link with its description.

use super::metrics::cosine;
use serde::{Deserialize, Serialize};

/// How a slot's disturbance is scored; lower is better.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Psi {
    /// The paper's Ψ: sim(sᵢ,sᵢ₊₁) − flow, flow = (sim(sᵢ,d)+sim(d,sᵢ₊₁))/2.
    Linear,
    /// gembench 1.0.9's default: (1 − flow/(sim+ε)) · ln(1 + α·sim), which
    /// prefers breaking weak transitions over strong ones.
    LogWeighted {
        /// Weight of the transition strength (the reference uses 2).
        alpha: f64,
    },
}

impl Psi {
    /// Disturbance of putting an ad with flow `flow` into a transition of
    /// similarity `sim`. Undefined values (log of a non-positive number)
    /// are +∞ so they are never preferred.
    pub fn score(self, sim: f64, flow: f64) -> f64 {
        let v = match self {
            Psi::Linear => sim - flow,
            Psi::LogWeighted { alpha } => {
                const EPS: f64 = 1e-6;
                (1.0 - flow / (sim + EPS)) * (1.0 + alpha * sim).ln()
            }
        };
        if v.is_finite() {
            v
        } else {
            f64::INFINITY
        }
    }
}

/// Where an ad goes: after sentence `after` (`None`: before everything, for
/// an empty answer), with the slot's Ψ (0 when there is no transition).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Slot {
    /// Index of the sentence the ad follows.
    pub after: Option<usize>,
    /// Disturbance of the chosen slot.
    pub psi: f64,
}

/// The least-disturbing slot for ad embedding `ad` among `sentences`.
/// One sentence: after it; none: before everything.
pub fn best_slot(sentences: &[Vec<f32>], ad: &[f32], psi: Psi) -> Slot {
    match sentences.len() {
        0 => Slot {
            after: None,
            psi: 0.0,
        },
        1 => Slot {
            after: Some(0),
            psi: 0.0,
        },
        n => {
            let mut best = Slot {
                after: Some(0),
                psi: f64::INFINITY,
            };
            for i in 0..n - 1 {
                let (a, b) = (&sentences[i], &sentences[i + 1]);
                let flow = (cosine(a, ad) + cosine(ad, b)) / 2.0;
                let v = psi.score(cosine(a, b), flow);
                // Strictly less: ties go to the earlier slot.
                if v < best.psi {
                    best = Slot {
                        after: Some(i),
                        psi: v,
                    };
                }
            }
            best
        }
    }
}

/// The (ad, slot) pair with the least Ψ among `ads` (ties: earlier ad,
/// i.e. the better-retrieved one). `None` when `ads` is empty.
pub fn best_ad_and_slot(sentences: &[Vec<f32>], ads: &[&[f32]], psi: Psi) -> Option<(usize, Slot)> {
    let mut best: Option<(usize, Slot)> = None;
    for (j, ad) in ads.iter().enumerate() {
        let s = best_slot(sentences, ad, psi);
        if best.is_none_or(|(_, b)| s.psi < b.psi) {
            best = Some((j, s));
        }
    }
    best
}

/// The inserted ad sentence: `[name](url): description.`
pub fn ad_sentence(name: &str, url: &str, desc: &str) -> String {
    let desc = desc.trim().trim_end_matches('.');
    if desc.is_empty() {
        format!("[{name}]({url}).")
    } else {
        format!("[{name}]({url}): {desc}.")
    }
}

/// `text` with `ads` inserted: each `(after, ad_text)` goes after the
/// sentence whose byte span is `spans[after]`, or at the start for `None`.
/// Several ads after one sentence keep their order. After a heading the ad
/// starts its own line, so it does not become part of the heading.
pub fn insert_ads(
    text: &str,
    spans: &[std::ops::Range<usize>],
    ads: &[(Option<usize>, String)],
) -> String {
    let mut out = String::with_capacity(text.len() + 128 * ads.len());
    let lead: Vec<&str> = ads
        .iter()
        .filter(|(a, _)| a.is_none())
        .map(|(_, t)| t.as_str())
        .collect();
    let mut cursor = 0;
    if !lead.is_empty() {
        out.push_str(&lead.join(" "));
        cursor = text.len() - text.trim_start().len();
        if cursor < text.len() {
            out.push(' ');
        }
    }
    for (i, span) in spans.iter().enumerate() {
        let after: Vec<&str> = ads
            .iter()
            .filter(|(a, _)| *a == Some(i))
            .map(|(_, t)| t.as_str())
            .collect();
        if after.is_empty() {
            continue;
        }
        out.push_str(&text[cursor..span.end]);
        let heading = text[span.clone()].starts_with('#');
        for t in after {
            out.push_str(if heading { "\n" } else { " " });
            out.push_str(t);
        }
        cursor = span.end;
    }
    out.push_str(&text[cursor..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_psi_prefers_the_slot_the_ad_bridges() {
        // Sentences: e1, e1, e2. Ad ≈ (e1+e2)/√2.
        // Slot 0 (e1|e1): Ψ = 1 − 0.7071 = 0.2929.
        // Slot 1 (e1|e2): Ψ = 0 − 0.7071 = −0.7071 ← best.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let s = vec![vec![1.0, 0.0], vec![1.0, 0.0], vec![0.0, 1.0]];
        let slot = best_slot(&s, &[h, h], Psi::Linear);
        assert_eq!(slot.after, Some(1));
        assert!((slot.psi + f64::from(h)).abs() < 1e-6);
    }

    #[test]
    fn injector_picks_ad_and_slot_on_a_constructed_example() {
        // Sentences about e1, e1, e3; ads: e2 (unrelated), e3, (e1+e3)/√2.
        // Ad 2 at slot 1: Ψ = 0 − (0.7071+0.7071)/2 = −0.7071, the minimum;
        // ad 1 at slot 1 gives 0 − 0.5 = −0.5; ad 0 gives 0 at best.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let s = vec![
            vec![1.0, 0.0, 0.0],
            vec![1.0, 0.0, 0.0],
            vec![0.0, 0.0, 1.0],
        ];
        let ads: Vec<Vec<f32>> = vec![vec![0.0, 1.0, 0.0], vec![0.0, 0.0, 1.0], vec![h, 0.0, h]];
        let refs: Vec<&[f32]> = ads.iter().map(Vec::as_slice).collect();
        let (j, slot) = best_ad_and_slot(&s, &refs, Psi::Linear).unwrap();
        assert_eq!((j, slot.after), (2, Some(1)));
        // Log-weighted: slot 1 has sim 0 → ln(1) = 0 for every ad, slot 0
        // has sim 1 → positive unless flow ≥ 1; so slot 1, first ad wins ties.
        let (j, slot) = best_ad_and_slot(&s, &refs, Psi::LogWeighted { alpha: 2.0 }).unwrap();
        assert_eq!((j, slot.after), (0, Some(1)));
        assert!(best_ad_and_slot(&s, &[], Psi::Linear).is_none());
    }

    #[test]
    fn log_weighted_matches_the_formula() {
        let p = Psi::LogWeighted { alpha: 2.0 };
        let v = p.score(0.5, 0.25);
        let want = (1.0 - 0.25 / (0.5 + 1e-6)) * 2f64.ln();
        assert!((v - want).abs() < 1e-9);
        // ln of a negative number is undefined: never preferred.
        assert_eq!(p.score(-0.9, 0.1), f64::INFINITY);
    }

    #[test]
    fn degenerate_answers_get_a_defined_slot() {
        assert_eq!(best_slot(&[], &[1.0], Psi::Linear).after, None);
        assert_eq!(best_slot(&[vec![1.0]], &[1.0], Psi::Linear).after, Some(0));
    }

    #[test]
    fn ads_are_inserted_after_their_sentence_keeping_layout() {
        let text = "A one.\nB two. C three.";
        let spans = crate::split::sentence_spans(text);
        let out = insert_ads(text, &spans, &[(Some(1), "[X](u): d.".into())]);
        assert_eq!(out, "A one.\nB two. [X](u): d. C three.");
        let out = insert_ads(text, &spans, &[(Some(2), "[X](u).".into())]);
        assert_eq!(out, "A one.\nB two. C three. [X](u).");
        let out = insert_ads("", &[], &[(None, "[X](u).".into())]);
        assert_eq!(out, "[X](u).");
        let h = "# Title\nBody.";
        let out = insert_ads(
            h,
            &crate::split::sentence_spans(h),
            &[(Some(0), "[X](u).".into())],
        );
        assert_eq!(out, "# Title\n[X](u).\nBody.");
    }

    #[test]
    fn ad_sentence_formats_a_markdown_link() {
        assert_eq!(
            ad_sentence("N", "https://n.io", "Great. "),
            "[N](https://n.io): Great."
        );
        assert_eq!(ad_sentence("N", "u", ""), "[N](u).");
    }
}
