//! The options at an open point of a call being written: those the schema
//! and the token budget allow, each scored from the model's logits, and the
//! one sampled (greedy or seeded, as in plain chat).
//!
//! A token option scores its logit. Ending a string or a number, and
//! choosing between another array item and `]`, write no token of their
//! own: they score the log of the probability mass of the tokens that would
//! do it (those starting with `"`; with `,` `}` or `]`; with `]` against
//! `,` or the item's first byte). Call-or-text under `ToolChoice::Auto` is
//! the mass of the tokens that begin `<tool_call>` against all the others.

use super::leaf::{Leaf, Pick};
use super::schema::{MAX_STRING_TOKENS, SEP};
use super::Vocab;
use crate::error::ModelError;
use crate::generator::prompt::CALLS_OPEN;
use crate::generator::sampling::{sample, Rng};

/// Most decimals of a number.
const MAX_DECIMALS: usize = 4;

/// Bytes that end a number or an `enum` value inside arguments.
const CLOSERS: &[u8] = b",}]";

/// Tokens available for what is still open, after what is written.
#[derive(Debug, Clone, Copy)]
pub(super) struct Budget {
    /// Tokens written, forced text not yet encoded counted a byte each.
    pub(super) spent: usize,
    pub(super) limit: usize,
    /// Most tokens to close everything once the current value is written.
    pub(super) rest: usize,
}

impl Budget {
    fn fits(&self, extra: usize) -> bool {
        self.spent + extra + self.rest <= self.limit
    }
}

/// The options at `leaf` with their scores. A literal's candidates are
/// already those the budget affords (the writer drops the others).
pub(super) fn options(leaf: &Leaf, logits: &[f32], vocab: &Vocab, budget: &Budget) -> Picks {
    let mut picks = Picks::default();
    let starting = |bytes: &[u8]| -> Vec<u32> {
        bytes
            .iter()
            .flat_map(|&b| vocab.starting_with(b).iter().copied())
            .collect()
    };
    match leaf {
        Leaf::Opener => {
            let opener = opener_tokens(vocab);
            picks.push(Pick::Call, mass(logits, &opener));
            let text = logits
                .iter()
                .enumerate()
                .filter(|(t, _)| !opener.contains(&(*t as u32)))
                .map(|(_, &l)| l);
            picks.push(Pick::Text, log_sum_exp(text));
        }
        Leaf::Str {
            chars,
            tokens,
            min_chars,
            max_chars,
        } => {
            // The closing quote is still to come.
            let after = Budget {
                rest: budget.rest + 1,
                ..*budget
            };
            if chars >= min_chars {
                picks.push(Pick::End, mass(logits, vocab.starting_with(b'"')));
            }
            if *tokens < MAX_STRING_TOKENS || chars < min_chars {
                for &(t, n) in vocab.string_tokens() {
                    let short = min_chars.saturating_sub(chars + n);
                    if chars + n <= *max_chars && after.fits(1 + short) {
                        picks.push(Pick::Token(t), logits[t as usize]);
                    }
                }
            }
        }
        Leaf::Num {
            draft,
            bounds,
            decimals,
            real,
        } => {
            let closers = mass(logits, &starting(CLOSERS));
            let token = |picks: &mut Picks, b: u8, ok: bool| {
                if let Some(t) = vocab.single(b).filter(|_| ok) {
                    picks.push(Pick::Token(t), logits[t as usize]);
                }
            };
            let fits_after = |k: Option<u32>| k.is_some_and(|k| budget.fits(1 + k as usize));
            match decimals {
                None => {
                    if draft.can_end(*bounds) {
                        picks.push(Pick::End, closers);
                        let point = real.is_some_and(|r| r.holds_decimals_of(*draft));
                        token(&mut picks, b'.', point && budget.fits(2));
                    }
                    let minus = fits_after(draft.negated().need(*bounds));
                    token(&mut picks, b'-', draft.can_negate(*bounds) && minus);
                    for d in 0..=9u8 {
                        let next = draft.pushed(d, *bounds).and_then(|n| n.need(*bounds));
                        token(&mut picks, b'0' + d, fits_after(next));
                    }
                }
                Some(k) => {
                    if *k > 0 {
                        picks.push(Pick::End, closers);
                    }
                    for d in 0..=9u8 {
                        token(&mut picks, b'0' + d, *k < MAX_DECIMALS && budget.fits(1));
                    }
                }
            }
        }
        Leaf::Literal(lit) => {
            let rests: Vec<&[u8]> = lit.alive.iter().map(|&c| lit.rest(c).as_bytes()).collect();
            if rests.iter().any(|r| r.is_empty()) {
                picks.push(Pick::End, mass(logits, &starting(CLOSERS)));
            }
            let mut firsts: Vec<u8> = rests.iter().filter_map(|r| r.first().copied()).collect();
            firsts.sort_unstable();
            firsts.dedup();
            for t in starting(&firsts) {
                let b = vocab.bytes(t);
                if vocab.is_text(t) && rests.iter().any(|r| r.starts_with(b)) {
                    picks.push(Pick::Token(t), logits[t as usize]);
                }
            }
        }
        Leaf::More { arr, items } => {
            picks.push(Pick::Close, mass(logits, vocab.starting_with(b']')));
            let sep = if *items > 0 { SEP.len() } else { 0 };
            if budget.fits(sep + arr.item.min_cost()) {
                let opens = if *items > 0 {
                    vec![b',']
                } else {
                    arr.item.first_bytes()
                };
                picks.push(Pick::More, mass(logits, &starting(&opens)));
            }
        }
    }
    picks
}

/// Tokens that begin a call: prefixes of `<tool_call>[\n`.
pub(super) fn opener_tokens(vocab: &Vocab) -> Vec<u32> {
    let open = CALLS_OPEN.as_bytes();
    vocab
        .starting_with(open[0])
        .iter()
        .copied()
        .filter(|&t| open.starts_with(vocab.bytes(t)))
        .collect()
}

/// The options of one decision with their scores (logits, or log masses).
#[derive(Default)]
pub(super) struct Picks {
    picks: Vec<Pick>,
    scores: Vec<f32>,
}

impl Picks {
    fn push(&mut self, pick: Pick, score: f32) {
        self.picks.push(pick);
        // A finite floor, so an option no token supports is merely unlikely
        // and sampling never sees NaN.
        self.scores.push(score.max(-1e30));
    }

    /// Samples one option as plain chat samples a token.
    ///
    /// # Errors
    /// [`ModelError::Inference`] when there is no option (a broken budget
    /// invariant, never an input).
    pub(super) fn sample(
        &self,
        temperature: f32,
        top_p: f32,
        rng: &mut Rng,
    ) -> Result<Pick, ModelError> {
        if self.picks.is_empty() {
            return Err(ModelError::Inference(
                "constrained decoding left no allowed token".into(),
            ));
        }
        Ok(self.picks[sample(&self.scores, temperature, top_p, rng) as usize])
    }
}

/// Log of the (unnormalised) probability mass of `ids`.
fn mass(logits: &[f32], ids: &[u32]) -> f32 {
    log_sum_exp(ids.iter().map(|&t| logits[t as usize]))
}

fn log_sum_exp(xs: impl Iterator<Item = f32> + Clone) -> f32 {
    let max = xs.clone().fold(f32::NEG_INFINITY, f32::max);
    if max == f32::NEG_INFINITY {
        return max;
    }
    max + xs.map(|x| (x - max).exp()).sum::<f32>().ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::tools::digits::{Bounds, Real};

    fn vocab() -> Vocab {
        Vocab::of(&[
            None,
            Some("\""),
            Some("\","),
            Some("ab"),
            Some("a\"b"),
            Some("1"),
            Some("2"),
            Some(","),
            Some("}"),
            Some("<"),
            Some("<tool"),
            Some("-"),
            Some("."),
            Some("0"),
        ])
    }

    fn roomy() -> Budget {
        Budget {
            spent: 0,
            limit: 100,
            rest: 0,
        }
    }

    #[test]
    fn a_string_ends_with_the_mass_of_quote_tokens() {
        let v = vocab();
        let mut logits = vec![0.0f32; 14];
        logits[1] = 1.0;
        logits[2] = 1.0;
        let leaf = Leaf::Str {
            chars: 0,
            tokens: 0,
            min_chars: 0,
            max_chars: 10,
        };
        let p = options(&leaf, &logits, &v, &roomy());
        assert_eq!(p.picks[0], Pick::End);
        assert!((p.scores[0] - (1.0 + 2f32.ln())).abs() < 1e-6);
        // A quote inside a token is not allowed in a string; "ab" is.
        assert!(p.picks.contains(&Pick::Token(3)));
        assert!(!p.picks.contains(&Pick::Token(4)));
        // Without room for another token only the end remains.
        let tight = Budget {
            spent: 99,
            ..roomy()
        };
        assert_eq!(options(&leaf, &logits, &v, &tight).picks, vec![Pick::End]);
    }

    #[test]
    fn digits_keep_a_bounded_value_reachable() {
        let v = vocab();
        let logits = vec![0.0f32; 14];
        let leaf = Leaf::number(Bounds { lo: 1, hi: 2 }, None);
        let p = options(&leaf, &logits, &v, &roomy());
        assert_eq!(p.picks, vec![Pick::Token(5), Pick::Token(6)]);
        let any = Leaf::number(Bounds::ANY, Some(Real::ANY));
        let p = options(&any, &logits, &v, &roomy());
        assert!(p.picks.contains(&Pick::Token(11)), "minus");
        assert!(!p.picks.contains(&Pick::End), "nothing written yet");
    }

    #[test]
    fn call_or_text_splits_the_mass_at_the_first_token() {
        let v = vocab();
        let mut logits = vec![-10.0f32; 14];
        logits[10] = 5.0;
        let p = options(&Leaf::Opener, &logits, &v, &roomy());
        assert_eq!(opener_tokens(&v), vec![9, 10]);
        let mut rng = Rng::new(0);
        assert_eq!(p.sample(0.0, 1.0, &mut rng).unwrap(), Pick::Call);
        logits[10] = -10.0;
        let p = options(&Leaf::Opener, &logits, &v, &roomy());
        assert_eq!(p.sample(0.0, 1.0, &mut rng).unwrap(), Pick::Text);
        assert!(Picks::default().sample(0.0, 1.0, &mut rng).is_err());
    }
}
