//! The lexer: GAQL text to tokens, each with its character offset.
//!
//! Offsets count characters, not bytes, so an error position points at the
//! same place an agent sees in its own query text, even after a non-ASCII
//! string literal. Numbers are kept as text and judged by the parser, where
//! the context (a LIMIT or a value) picks the error code.

use crate::api::error::{GoogleAdsError, QueryError};

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub enum TokenKind {
    /// A keyword, field name, resource name or bare literal: `[A-Za-z_][A-Za-z0-9_.]*`.
    Word,
    /// A number as written: `-?[0-9][A-Za-z0-9_.]*` (validated by the parser).
    Number,
    /// A quoted string, unescaped.
    Str(String),
    /// A comparison operator: `=`, `!=`, `<`, `<=`, `>`, `>=`, or an invalid
    /// run of those symbols (`==`, `<>`), which the parser reports.
    Operator,
    /// `,`.
    Comma,
    /// `(`.
    LParen,
    /// `)`.
    RParen,
    /// Any other ASCII symbol (`*`, `;` ...): never valid GAQL.
    Symbol,
}

/// A token and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Its text as written (quotes included for strings).
    pub text: String,
    /// Characters before it in the query.
    pub offset: usize,
}

impl Token {
    /// Whether this is the keyword `kw` (keywords are case-insensitive).
    pub fn is_keyword(&self, kw: &str) -> bool {
        self.kind == TokenKind::Word && self.text.eq_ignore_ascii_case(kw)
    }
}

/// Splits `query` into tokens.
///
/// # Errors
/// `BAD_SYMBOL` for a non-ASCII character outside a string;
/// `STRING_NOT_TERMINATED`, `PROHIBITED_NEWLINE_IN_STRING` and
/// `BAD_ESCAPE_SEQUENCE` for bad strings; each at the offending character.
pub fn tokenize(query: &str) -> Result<Vec<Token>, GoogleAdsError> {
    let chars: Vec<char> = query.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let text = |from: usize, to: usize| chars[from..to].iter().collect::<String>();
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        let kind = if c.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < chars.len() && is_word_char(chars[i]) {
                i += 1;
            }
            TokenKind::Word
        } else if c.is_ascii_digit()
            || (c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            i += 1;
            while i < chars.len() && is_word_char(chars[i]) {
                i += 1;
            }
            TokenKind::Number
        } else if c == '\'' || c == '"' {
            let (value, end) = string_literal(query, &chars, i)?;
            i = end;
            TokenKind::Str(value)
        } else if matches!(c, '=' | '!' | '<' | '>') {
            while i < chars.len() && matches!(chars[i], '=' | '!' | '<' | '>') {
                i += 1;
            }
            TokenKind::Operator
        } else if c == ',' {
            i += 1;
            TokenKind::Comma
        } else if c == '(' {
            i += 1;
            TokenKind::LParen
        } else if c == ')' {
            i += 1;
            TokenKind::RParen
        } else if c.is_ascii() {
            i += 1;
            TokenKind::Symbol
        } else {
            return Err(GoogleAdsError::query(
                QueryError::BadSymbol,
                query,
                i,
                c.to_string(),
                format!("Non-ASCII symbol '{c}' outside a string."),
            ));
        };
        tokens.push(Token {
            kind,
            text: text(start, i),
            offset: start,
        });
    }
    Ok(tokens)
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// Reads the string opening at `start`; returns its value and the index after it.
fn string_literal(
    query: &str,
    chars: &[char],
    start: usize,
) -> Result<(String, usize), GoogleAdsError> {
    let quote = chars[start];
    let mut value = String::new();
    let mut i = start + 1;
    loop {
        match chars.get(i) {
            None => {
                let trigger: String = chars[start..].iter().collect();
                return Err(GoogleAdsError::query(
                    QueryError::StringNotTerminated,
                    query,
                    start,
                    trigger,
                    format!("The string starting here is not closed with {quote}."),
                ));
            }
            Some('\n') | Some('\r') => {
                return Err(GoogleAdsError::query(
                    QueryError::ProhibitedNewlineInString,
                    query,
                    i,
                    "\\n",
                    "Strings may not contain a newline.",
                ));
            }
            Some('\\') => {
                // GAQL escapes only quotes and the backslash itself; LIKE's
                // wildcards are escaped with brackets instead.
                match chars.get(i + 1) {
                    Some(&e @ ('\\' | '\'' | '"')) => value.push(e),
                    other => {
                        let trigger =
                            format!("\\{}", other.map(|c| c.to_string()).unwrap_or_default());
                        return Err(GoogleAdsError::query(
                            QueryError::BadEscapeSequence,
                            query,
                            i,
                            trigger,
                            "Only \\\\, \\' and \\\" may be escaped in a string.",
                        ));
                    }
                }
                i += 2;
            }
            Some(&c) if c == quote => return Ok((value, i + 1)),
            Some(&c) => {
                value.push(c);
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_character_offsets() {
        let q = "SELECT campaign.name FROM campaign WHERE campaign.name = 'Café' AND metrics.clicks >= -2";
        let toks = tokenize(q).unwrap();
        let kinds: Vec<&TokenKind> = toks.iter().map(|t| &t.kind).collect();
        assert_eq!(kinds.len(), 12);
        assert_eq!(toks[7].kind, TokenKind::Str("Café".into()));
        assert_eq!(toks[7].offset, 57);
        assert_eq!(toks[8].offset, 64);
        assert_eq!(toks[10].text, ">=");
        assert_eq!(
            (toks[11].kind.clone(), toks[11].text.as_str()),
            (TokenKind::Number, "-2")
        );
    }

    #[test]
    fn bad_strings_and_symbols_are_located() {
        let e = tokenize("SELECT a FROM b WHERE x = 'abc").unwrap_err();
        assert_eq!(
            (e.query_error(), e.offset()),
            (Some(QueryError::StringNotTerminated), Some(26))
        );
        let e = tokenize("SELECT a FROM b WHERE x = 'a\\qb'").unwrap_err();
        assert_eq!(
            (e.query_error(), e.offset()),
            (Some(QueryError::BadEscapeSequence), Some(28))
        );
        let e = tokenize("SELECT a FROM b WHERE x = 'a\nb'").unwrap_err();
        assert_eq!(e.query_error(), Some(QueryError::ProhibitedNewlineInString));
        let e = tokenize("SELECT a, é FROM b").unwrap_err();
        assert_eq!(
            (e.query_error(), e.offset()),
            (Some(QueryError::BadSymbol), Some(10))
        );
        let toks = tokenize("x = 'it\\'s'").unwrap();
        assert_eq!(toks[2].kind, TokenKind::Str("it's".into()));
    }
}
