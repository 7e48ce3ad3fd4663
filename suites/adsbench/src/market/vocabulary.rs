//! Search queries: per-vertical vocabularies, the catalogue of queries they
//! make, and Google's three keyword match types over token sequences.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// Business verticals; each has its own vocabulary, curves and values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Vertical {
    Retail,
    Travel,
    Finance,
    Auto,
    Education,
    Health,
}

impl Vertical {
    pub const ALL: [Vertical; 6] = [
        Vertical::Retail,
        Vertical::Travel,
        Vertical::Finance,
        Vertical::Auto,
        Vertical::Education,
        Vertical::Health,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// (head terms, leading modifiers, trailing modifiers), most popular first.
    fn words(
        self,
    ) -> (
        &'static [&'static str],
        &'static [&'static str],
        &'static [&'static str],
    ) {
        match self {
            Vertical::Retail => (
                &[
                    "running shoes",
                    "sneakers",
                    "winter jacket",
                    "jeans",
                    "backpack",
                    "wireless headphones",
                    "smart watch",
                    "coffee maker",
                ],
                &["cheap", "best", "buy", "womens", "mens", "discount"],
                &["sale", "online", "near me", "free shipping"],
            ),
            Vertical::Travel => (
                &[
                    "flights",
                    "hotels",
                    "car rental",
                    "vacation packages",
                    "cruise",
                    "beach resort",
                    "ski trip",
                    "city break",
                ],
                &["cheap", "last minute", "best", "family", "luxury", "book"],
                &["deals", "to paris", "to new york", "all inclusive"],
            ),
            Vertical::Finance => (
                &[
                    "credit card",
                    "mortgage",
                    "personal loan",
                    "savings account",
                    "car insurance",
                    "stock trading",
                    "tax software",
                    "life insurance",
                ],
                &[
                    "best",
                    "low interest",
                    "compare",
                    "online",
                    "instant",
                    "cheap",
                ],
                &["rates", "calculator", "for students", "no fee"],
            ),
            Vertical::Auto => (
                &[
                    "used cars",
                    "electric car",
                    "suv",
                    "car lease",
                    "tires",
                    "oil change",
                    "pickup truck",
                    "car parts",
                ],
                &["cheap", "best", "new", "certified", "local", "used"],
                &["for sale", "near me", "deals", "prices"],
            ),
            Vertical::Education => (
                &[
                    "online courses",
                    "mba",
                    "coding bootcamp",
                    "language lessons",
                    "nursing degree",
                    "data science course",
                    "tutoring",
                    "test prep",
                ],
                &[
                    "best",
                    "online",
                    "free",
                    "accredited",
                    "part time",
                    "affordable",
                ],
                &["programs", "near me", "certificate", "for adults"],
            ),
            Vertical::Health => (
                &[
                    "dentist",
                    "physical therapy",
                    "eye exam",
                    "vitamins",
                    "gym membership",
                    "dermatologist",
                    "health insurance",
                    "yoga classes",
                ],
                &[
                    "best",
                    "affordable",
                    "local",
                    "emergency",
                    "pediatric",
                    "cheap",
                ],
                &["near me", "reviews", "open now", "prices"],
            ),
        }
    }
}

/// Google's keyword match types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum MatchType {
    Exact,
    Phrase,
    Broad,
}

/// Interned word id; `UNKNOWN` is a word no query contains.
pub type Token = u16;
pub const UNKNOWN: Token = Token::MAX;

/// Most tokens in one query (head of two words plus modifiers of two each).
pub const MAX_QUERY_TOKENS: usize = 8;

/// A query as a short token sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Query {
    pub vertical: Vertical,
    len: u8,
    tokens: [Token; MAX_QUERY_TOKENS],
}

impl Query {
    pub fn tokens(&self) -> &[Token] {
        &self.tokens[..self.len as usize]
    }
}

/// Every query the market can issue, with per-vertical popularity.
#[derive(Debug, Clone)]
pub struct QueryCatalog {
    words: Vec<String>,
    queries: Vec<Query>,
    /// Per vertical: query ids and the cumulative popularity over them.
    by_vertical: Vec<(Vec<u32>, Vec<f64>)>,
}

impl Default for QueryCatalog {
    fn default() -> Self {
        QueryCatalog::new()
    }
}

impl QueryCatalog {
    /// The built-in catalogue: every (modifier?, head, modifier?) triple in
    /// each vertical; popularity is Zipf in each part's rank.
    pub fn new() -> QueryCatalog {
        let mut cat = QueryCatalog {
            words: Vec::new(),
            queries: Vec::new(),
            by_vertical: Vec::new(),
        };
        for v in Vertical::ALL {
            let (heads, pre, post) = v.words();
            let mut ids = Vec::new();
            let mut cdf = Vec::new();
            let mut acc = 0.0;
            for (hi, head) in heads.iter().enumerate() {
                for pi in 0..=pre.len() {
                    for si in 0..=post.len() {
                        let mut text = String::new();
                        if pi > 0 {
                            text.push_str(pre[pi - 1]);
                            text.push(' ');
                        }
                        text.push_str(head);
                        if si > 0 {
                            text.push(' ');
                            text.push_str(post[si - 1]);
                        }
                        let tokens: Vec<Token> = text.split(' ').map(|w| cat.intern(w)).collect();
                        let mut q = Query {
                            vertical: v,
                            len: tokens.len() as u8,
                            tokens: [UNKNOWN; MAX_QUERY_TOKENS],
                        };
                        q.tokens[..tokens.len()].copy_from_slice(&tokens);
                        // The bare head is the commonest form of a query.
                        let weight =
                            1.0 / (hi as f64 + 1.0) / (pi as f64 + 1.5) / (si as f64 + 1.5);
                        acc += weight;
                        ids.push(cat.queries.len() as u32);
                        cdf.push(acc);
                        cat.queries.push(q);
                    }
                }
            }
            for c in &mut cdf {
                *c /= acc;
            }
            cat.by_vertical.push((ids, cdf));
        }
        cat
    }

    /// The built-in catalogue, built once per process (markets share it).
    pub fn shared() -> &'static QueryCatalog {
        static CATALOG: OnceLock<QueryCatalog> = OnceLock::new();
        CATALOG.get_or_init(QueryCatalog::new)
    }

    fn intern(&mut self, w: &str) -> Token {
        if let Some(i) = self.words.iter().position(|x| x == w) {
            return i as Token;
        }
        self.words.push(w.to_string());
        (self.words.len() - 1) as Token
    }

    pub fn len(&self) -> usize {
        self.queries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queries.is_empty()
    }

    pub fn query(&self, id: u32) -> &Query {
        &self.queries[id as usize]
    }

    /// The query's text, words joined by spaces.
    pub fn text(&self, id: u32) -> String {
        let q = self.query(id);
        q.tokens()
            .iter()
            .map(|&t| self.words[t as usize].as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Query ids of one vertical.
    pub fn vertical_queries(&self, v: Vertical) -> &[u32] {
        &self.by_vertical[v.index()].0
    }

    /// Draws a query of vertical `v` by popularity from a uniform `u`.
    pub fn sample(&self, v: Vertical, u: f64) -> u32 {
        let (ids, cdf) = &self.by_vertical[v.index()];
        let i = cdf.partition_point(|&c| c <= u).min(ids.len() - 1);
        ids[i]
    }

    /// Lower-cases and splits keyword text; words outside the vocabulary
    /// become `UNKNOWN`, which no query contains.
    pub fn tokenize(&self, text: &str) -> Vec<Token> {
        text.split_whitespace()
            .map(|w| {
                let w = w.to_lowercase();
                self.words
                    .iter()
                    .position(|x| *x == w)
                    .map_or(UNKNOWN, |i| i as Token)
            })
            .collect()
    }
}

/// Whether a keyword of `match_type` with tokens `kw` matches `query`.
/// Exact: same sequence. Phrase: the sequence appears contiguously.
/// Broad: every keyword word appears somewhere, in any order.
pub fn matches(match_type: MatchType, kw: &[Token], query: &[Token]) -> bool {
    if kw.is_empty() || kw.contains(&UNKNOWN) {
        return false;
    }
    match match_type {
        MatchType::Exact => kw == query,
        MatchType::Phrase => query.windows(kw.len()).any(|w| w == kw),
        MatchType::Broad => kw.iter().all(|t| query.contains(t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_covers_every_vertical_and_samples_by_popularity() {
        let cat = QueryCatalog::new();
        assert_eq!(cat.len(), 6 * 8 * 7 * 5);
        for v in Vertical::ALL {
            let qs = cat.vertical_queries(v);
            assert!(qs.iter().all(|&q| cat.query(q).vertical == v));
            // The most popular query (bare top head) wins the low end of u.
            assert_eq!(cat.sample(v, 0.0), qs[0]);
            assert_eq!(cat.sample(v, 0.999_999_9), *qs.last().unwrap());
        }
        assert_eq!(cat.text(0), "running shoes");
    }

    #[test]
    fn match_types_follow_google_semantics() {
        let cat = QueryCatalog::new();
        let q = cat.tokenize("cheap running shoes sale");
        let kw = cat.tokenize("Running Shoes");
        assert!(!matches(MatchType::Exact, &kw, &q));
        assert!(matches(MatchType::Phrase, &kw, &q));
        assert!(matches(MatchType::Broad, &kw, &q));
        let swapped = cat.tokenize("shoes running");
        assert!(!matches(MatchType::Phrase, &swapped, &q));
        assert!(matches(MatchType::Broad, &swapped, &q));
        assert!(matches(MatchType::Exact, &q, &q));
        let unknown = cat.tokenize("running zebra");
        assert!(!matches(MatchType::Broad, &unknown, &q));
    }
}
