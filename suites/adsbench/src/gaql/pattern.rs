//! String patterns. LIKE: `%` matches any run of characters, `_` exactly
//! one, and brackets escape a wildcard (`[%]`, `[_]`, `[[]`), as GAQL
//! specifies; case-sensitive. REGEXP_MATCH: an RE2 expression that must
//! match the whole value (`(?i)` makes it case-insensitive); the `regex`
//! crate's syntax is RE2's, without backreferences or lookaround in both.

use regex::Regex;

/// A compiled LIKE pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LikePattern(Vec<Part>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    AnyRun,
    AnyOne,
    Char(char),
}

impl LikePattern {
    /// Compiles `pattern`; a `[` that does not close one character later is
    /// taken literally.
    pub fn new(pattern: &str) -> LikePattern {
        let chars: Vec<char> = pattern.chars().collect();
        let mut parts = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '[' if chars.get(i + 2) == Some(&']') => {
                    parts.push(Part::Char(chars[i + 1]));
                    i += 3;
                    continue;
                }
                '%' => parts.push(Part::AnyRun),
                '_' => parts.push(Part::AnyOne),
                c => parts.push(Part::Char(c)),
            }
            i += 1;
        }
        LikePattern(parts)
    }

    /// Whether `text` matches the whole pattern.
    pub fn matches(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        // reach[j]: the pattern prefix matched so far can end before text[j].
        let mut reach = vec![false; text.len() + 1];
        reach[0] = true;
        for part in &self.0 {
            let mut next = vec![false; text.len() + 1];
            for j in 0..=text.len() {
                match part {
                    Part::AnyRun => next[j] = reach[j] || (j > 0 && next[j - 1]),
                    Part::AnyOne => next[j] = j > 0 && reach[j - 1],
                    Part::Char(c) => next[j] = j > 0 && reach[j - 1] && text[j - 1] == *c,
                }
            }
            reach = next;
        }
        reach[text.len()]
    }
}

/// A compiled REGEXP_MATCH pattern, anchored to the whole value.
#[derive(Debug, Clone)]
pub struct RegexPattern {
    source: String,
    regex: Regex,
}

impl RegexPattern {
    /// Compiles `pattern`, or says why it is not a valid expression.
    ///
    /// # Errors
    /// The regex crate's description of the syntax error.
    pub fn new(pattern: &str) -> Result<RegexPattern, String> {
        let regex = Regex::new(&format!("^(?:{pattern})$")).map_err(|e| e.to_string())?;
        Ok(RegexPattern {
            source: pattern.to_string(),
            regex,
        })
    }

    /// Whether `text` matches as a whole.
    pub fn matches(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

/// Two patterns are equal when written the same.
impl PartialEq for RegexPattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

#[cfg(test)]
mod tests {
    use super::{LikePattern, RegexPattern};

    #[test]
    fn regexes_match_whole_values() {
        let p = RegexPattern::new("(?i).*promo.*").unwrap();
        assert!(p.matches("Spring PROMO 2024") && !p.matches("spring sale"));
        let p = RegexPattern::new("shoe").unwrap();
        assert!(p.matches("shoe") && !p.matches("shoes"));
        assert!(RegexPattern::new("(a").is_err());
    }

    #[test]
    fn wildcards_and_escapes() {
        let p = LikePattern::new("%shoe%");
        assert!(p.matches("running shoes") && p.matches("shoe") && !p.matches("Shoe"));
        assert!(LikePattern::new("b_g").matches("bag") && !LikePattern::new("b_g").matches("bg"));
        assert!(LikePattern::new("50[%] off").matches("50% off"));
        assert!(!LikePattern::new("50[%] off").matches("50 off"));
        assert!(
            LikePattern::new("a[_]b").matches("a_b") && !LikePattern::new("a[_]b").matches("axb")
        );
        assert!(LikePattern::new("%").matches(""));
        assert!(!LikePattern::new("abc").matches("abcd"));
    }
}
