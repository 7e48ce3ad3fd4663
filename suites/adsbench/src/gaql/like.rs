//! LIKE patterns: `%` matches any run of characters, `_` exactly one, and
//! brackets escape a wildcard (`[%]`, `[_]`, `[[]`), as GAQL specifies.
//! Matching is case-sensitive.

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

#[cfg(test)]
mod tests {
    use super::LikePattern;

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
