//! The open points of a call being written, where the schema leaves the
//! model a choice (a string, a number, a literal, an array's next item,
//! call or text), and what each becomes after a pick.

use super::digits::{Bounds, Draft, Real};
use super::schema::ArrayShape;
use super::Vocab;
use std::sync::Arc;

/// What a literal's candidates are.
pub(super) enum Role {
    /// The tool's name; candidate `i` names tool `tools[i]`.
    Tool(Vec<usize>),
    /// An `enum`/`const`/`boolean`/`null` value.
    Value,
    /// The next optional property of the object being written, or `}`.
    Keys,
}

/// One of several texts, written token by token.
pub(super) struct Literal {
    pub(super) cands: Vec<String>,
    /// Candidates still possible; all start with the `matched` bytes written.
    pub(super) alive: Vec<usize>,
    pub(super) matched: usize,
    pub(super) role: Role,
}

impl Literal {
    pub(super) fn new(cands: Vec<String>, role: Role) -> Literal {
        Literal {
            alive: (0..cands.len()).collect(),
            cands,
            matched: 0,
            role,
        }
    }

    /// What candidate `c` still has to write.
    pub(super) fn rest(&self, c: usize) -> &str {
        &self.cands[c][self.matched..]
    }

    /// Keeps the candidates whose `costs` fit in `room` tokens (the
    /// cheapest alone if none does, which the budget invariant rules out).
    pub(super) fn keep_affordable(&mut self, costs: &[usize], room: usize) {
        let fit: Vec<usize> = self
            .alive
            .iter()
            .copied()
            .filter(|&c| costs[c] <= room)
            .collect();
        self.alive = if fit.is_empty() {
            self.alive
                .iter()
                .copied()
                .min_by_key(|&c| costs[c])
                .into_iter()
                .collect()
        } else {
            fit
        };
    }

    /// The longest prefix (in whole characters) the candidates still share,
    /// now counted as written.
    pub(super) fn take_shared(&mut self) -> String {
        let first = self.rest(self.alive[0]);
        let mut n = self.alive[1..].iter().fold(first.len(), |n, &c| {
            let other = self.rest(c).as_bytes();
            first
                .bytes()
                .zip(other)
                .take(n)
                .take_while(|(a, b)| a == *b)
                .count()
        });
        while !first.is_char_boundary(n) {
            n -= 1;
        }
        let shared = first[..n].to_string();
        self.matched += n;
        shared
    }
}

/// A point where the schema leaves the model a choice.
pub(super) enum Leaf {
    /// Call or text.
    Opener,
    /// Inside a string value, after its opening quote.
    Str {
        chars: usize,
        tokens: usize,
        min_chars: usize,
        max_chars: usize,
    },
    /// A number value.
    Num {
        draft: Draft,
        bounds: Bounds,
        /// Decimals written, once the point is.
        decimals: Option<usize>,
        /// The real bounds of a `number` (`None`: an integer).
        real: Option<Real>,
    },
    Literal(Literal),
    /// Another item of an array that has `items` (at least its minimum), or `]`.
    More {
        arr: Arc<ArrayShape>,
        items: usize,
    },
}

impl Leaf {
    pub(super) fn number(bounds: Bounds, real: Option<Real>) -> Leaf {
        Leaf::Num {
            draft: Draft::default(),
            bounds,
            decimals: None,
            real,
        }
    }
}

/// An option at an open point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pick {
    /// Write this token.
    Token(u32),
    /// End the string, number or literal here.
    End,
    /// Another array item.
    More,
    /// Close the array.
    Close,
    /// Write a tool call.
    Call,
    /// Answer in text.
    Text,
}

/// What an open point becomes after a pick.
pub(super) enum After {
    /// Still open: a string or number goes on, a literal narrowed.
    Open(Leaf),
    /// The value is complete once this text is forced (a string's quote).
    Ended(&'static str),
    /// A literal's candidate is written.
    Chosen(Role, usize),
    /// Another array item.
    More,
    /// The array is closed.
    Close,
}

impl Leaf {
    /// The point after `pick` (one of the options `choice` offers at it).
    pub(super) fn after(self, pick: Pick, vocab: &Vocab) -> After {
        match (self, pick) {
            (Leaf::Str { .. }, Pick::End) => After::Ended("\""),
            (
                Leaf::Str {
                    chars,
                    tokens,
                    min_chars,
                    max_chars,
                },
                Pick::Token(t),
            ) => {
                let n = std::str::from_utf8(vocab.bytes(t)).map_or(0, |s| s.chars().count());
                After::Open(Leaf::Str {
                    chars: chars + n,
                    tokens: tokens + 1,
                    min_chars,
                    max_chars,
                })
            }
            (
                Leaf::Num {
                    draft,
                    bounds,
                    decimals,
                    real,
                },
                Pick::Token(t),
            ) => {
                let (draft, decimals) = match (vocab.bytes(t)[0], decimals) {
                    (b'-', _) => (draft.negated(), None),
                    (b'.', _) => (draft, Some(0)),
                    (_, Some(k)) => (draft, Some(k + 1)),
                    (d, None) => (draft.pushed(d - b'0', bounds).unwrap_or(draft), None),
                };
                After::Open(Leaf::Num {
                    draft,
                    bounds,
                    decimals,
                    real,
                })
            }
            (Leaf::Literal(lit), Pick::End) => {
                let c = lit.alive.iter().copied().find(|&c| lit.rest(c).is_empty());
                After::Chosen(lit.role, c.unwrap_or(lit.alive[0]))
            }
            (Leaf::Literal(mut lit), Pick::Token(t)) => {
                let b = vocab.bytes(t);
                let alive = lit.alive.iter().copied();
                lit.alive = alive
                    .filter(|&c| lit.rest(c).as_bytes().starts_with(b))
                    .collect();
                lit.matched += b.len();
                After::Open(Leaf::Literal(lit))
            }
            (_, Pick::More) => After::More,
            (_, Pick::Close) => After::Close,
            // A number ends silently; no other pair is ever offered.
            _ => After::Ended(""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_keep_what_fits_force_what_they_share_and_narrow() {
        let cands = ["\"celsius\"", "\"centi\"", "\"kelvin\""].map(String::from);
        let mut lit = Literal::new(cands.to_vec(), Role::Value);
        lit.keep_affordable(&[9, 7, 100], 10);
        assert_eq!(lit.alive, vec![0, 1]);
        assert_eq!(lit.take_shared(), "\"ce");
        assert_eq!(lit.take_shared(), "", "nothing more in common");
        let v = Vocab::of(&[Some("n"), Some("l")]);
        let After::Open(Leaf::Literal(lit)) = Leaf::Literal(lit).after(Pick::Token(1), &v) else {
            panic!("still open")
        };
        assert_eq!((lit.alive.clone(), lit.rest(0)), (vec![0], "sius\""));
        let mut none = Literal::new(cands.to_vec(), Role::Value);
        none.keep_affordable(&[9, 7, 100], 3);
        assert_eq!(none.alive, vec![1], "the cheapest when none fits");
    }

    #[test]
    fn strings_count_characters_and_end_with_their_quote() {
        let v = Vocab::of(&[Some("é!")]);
        let s = Leaf::Str {
            chars: 1,
            tokens: 1,
            min_chars: 0,
            max_chars: 9,
        };
        let After::Open(Leaf::Str { chars, tokens, .. }) = s.after(Pick::Token(0), &v) else {
            panic!("still open")
        };
        assert_eq!((chars, tokens), (3, 2));
        let s = Leaf::Str {
            chars,
            tokens,
            min_chars: 0,
            max_chars: 9,
        };
        assert!(matches!(s.after(Pick::End, &v), After::Ended("\"")));
    }
}
