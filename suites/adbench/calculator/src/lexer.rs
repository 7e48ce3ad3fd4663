//! Python tokenizer for the calculator's subset: names, numbers, strings
//! (with f-string parts kept raw for the parser), operators, and the
//! INDENT/DEDENT/NEWLINE structure that Python's block syntax needs.

use super::error::{Fault, Raised};

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Name(String),
    Int(i64),
    /// A decimal integer literal past 64 bits, as written.
    BigInt(String),
    Float(f64),
    Str(String),
    /// An f-string's body, unparsed: the parser splits fields and parses them.
    FStr(String),
    Op(&'static str),
    Newline,
    Indent,
    Dedent,
    End,
}

#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    pub line: u32,
}

/// Longest operators first so that `**=` wins over `**` and `*`.
const OPS: &[&str] = &[
    "**=", "//=", ">>=", "<<=", "...", "**", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=",
    "%=", "&=", "|=", "^=", "->", ":=", "<<", ">>", "+", "-", "*", "/", "%", "<", ">", "=", "(",
    ")", "[", "]", "{", "}", ",", ":", ".", ";", "@", "&", "|", "^", "~",
];

pub fn tokenize(src: &str) -> Result<Vec<Token>, Raised> {
    Lexer {
        chars: src.chars().collect(),
        pos: 0,
        line: 1,
        out: Vec::new(),
        indents: vec![0],
        depth: 0,
    }
    .run()
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    line: u32,
    out: Vec<Token>,
    indents: Vec<usize>,
    /// Bracket nesting: inside brackets newlines and indentation are ignored.
    depth: usize,
}

fn syntax(line: u32, msg: impl Into<String>) -> Raised {
    Raised::fault(Fault::Syntax(format!("line {line}: {}", msg.into())))
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.pos + k).copied()
    }

    fn push(&mut self, tok: Tok) {
        self.out.push(Token {
            tok,
            line: self.line,
        });
    }

    fn run(mut self) -> Result<Vec<Token>, Raised> {
        let mut at_line_start = true;
        while self.pos < self.chars.len() {
            if at_line_start && self.depth == 0 {
                if self.indentation()? {
                    continue;
                }
                at_line_start = false;
            }
            let c = self.chars[self.pos];
            match c {
                '\n' => {
                    self.pos += 1;
                    if self.depth == 0 {
                        self.push_newline();
                        at_line_start = true;
                    }
                    self.line += 1;
                }
                ' ' | '\t' | '\r' | '\x0c' => self.pos += 1,
                '#' => {
                    while self.pos < self.chars.len() && self.chars[self.pos] != '\n' {
                        self.pos += 1;
                    }
                }
                '\\' if self.peek(1) == Some('\n') => {
                    self.pos += 2;
                    self.line += 1;
                }
                c if c.is_ascii_digit()
                    || (c == '.' && self.peek(1).is_some_and(|d| d.is_ascii_digit())) =>
                {
                    self.number()?
                }
                c if c.is_alphabetic() || c == '_' => self.name_or_string()?,
                '"' | '\'' => self.string(false, false)?,
                _ => self.operator()?,
            }
        }
        self.push_newline();
        while self.indents.len() > 1 {
            self.indents.pop();
            self.push(Tok::Dedent);
        }
        self.push(Tok::End);
        Ok(self.out)
    }

    fn push_newline(&mut self) {
        if !matches!(self.out.last().map(|t| &t.tok), None | Some(Tok::Newline)) {
            self.push(Tok::Newline);
        }
    }

    /// Measures a logical line's indentation; returns true for blank or
    /// comment-only lines, which do not count.
    fn indentation(&mut self) -> Result<bool, Raised> {
        let mut width = 0;
        while let Some(c) = self.peek(0) {
            match c {
                ' ' => width += 1,
                '\t' => width = (width / 8 + 1) * 8,
                '\r' | '\x0c' => {}
                _ => break,
            }
            self.pos += 1;
        }
        if matches!(self.peek(0), None | Some('\n') | Some('#')) {
            // Blank or comment line: consume it so the next one is measured anew.
            while self.pos < self.chars.len() && self.chars[self.pos] != '\n' {
                self.pos += 1;
            }
            if self.pos < self.chars.len() {
                self.pos += 1;
                self.line += 1;
            }
            return Ok(true);
        }
        let current = *self.indents.last().unwrap_or(&0);
        if width > current {
            self.indents.push(width);
            self.push(Tok::Indent);
        } else {
            while width < *self.indents.last().unwrap_or(&0) {
                self.indents.pop();
                self.push(Tok::Dedent);
            }
            if width != *self.indents.last().unwrap_or(&0) {
                return Err(syntax(
                    self.line,
                    "unindent does not match any outer indentation level",
                ));
            }
        }
        Ok(false)
    }

    fn number(&mut self) -> Result<(), Raised> {
        let start = self.pos;
        if self.peek(0) == Some('0')
            && matches!(self.peek(1), Some('x' | 'X' | 'o' | 'O' | 'b' | 'B'))
        {
            let radix = match self.peek(1) {
                Some('x' | 'X') => 16,
                Some('o' | 'O') => 8,
                _ => 2,
            };
            self.pos += 2;
            let digits_start = self.pos;
            while self
                .peek(0)
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                self.pos += 1;
            }
            let text: String = self.chars[digits_start..self.pos]
                .iter()
                .filter(|c| **c != '_')
                .collect();
            let value = i64::from_str_radix(&text, radix).map_err(|_| {
                syntax(
                    self.line,
                    format!("invalid or too large integer literal 0{}", text),
                )
            })?;
            self.push(Tok::Int(value));
            return Ok(());
        }
        let mut is_float = false;
        while let Some(c) = self.peek(0) {
            if c.is_ascii_digit() || c == '_' {
                self.pos += 1;
            } else if c == '.' && !is_float {
                is_float = true;
                self.pos += 1;
            } else if (c == 'e' || c == 'E')
                && (self.peek(1).is_some_and(|d| d.is_ascii_digit())
                    || (matches!(self.peek(1), Some('+' | '-'))
                        && self.peek(2).is_some_and(|d| d.is_ascii_digit())))
            {
                is_float = true;
                self.pos += 2;
            } else {
                break;
            }
        }
        let text: String = self.chars[start..self.pos]
            .iter()
            .filter(|c| **c != '_')
            .collect();
        if matches!(self.peek(0), Some('j' | 'J')) {
            return Err(syntax(
                self.line,
                "complex numbers are not supported by the calculator",
            ));
        }
        if is_float {
            let v: f64 = text
                .parse()
                .map_err(|_| syntax(self.line, format!("invalid number {text}")))?;
            self.push(Tok::Float(v));
        } else {
            match text.parse::<i64>() {
                Ok(v) => self.push(Tok::Int(v)),
                Err(_) => self.push(Tok::BigInt(text)),
            }
        }
        Ok(())
    }

    fn name_or_string(&mut self) -> Result<(), Raised> {
        let start = self.pos;
        while self
            .peek(0)
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            self.pos += 1;
        }
        let name: String = self.chars[start..self.pos].iter().collect();
        if matches!(self.peek(0), Some('"' | '\'')) {
            let lower = name.to_ascii_lowercase();
            let (raw, f) = match lower.as_str() {
                "r" => (true, false),
                "f" => (false, true),
                "rf" | "fr" => (true, true),
                "u" => (false, false),
                "b" | "br" | "rb" => {
                    return Err(syntax(
                        self.line,
                        "bytes literals are not supported by the calculator",
                    ))
                }
                _ => {
                    self.push(Tok::Name(name));
                    return Ok(());
                }
            };
            return self.string(raw, f);
        }
        self.push(Tok::Name(name));
        Ok(())
    }

    fn string(&mut self, raw: bool, fstring: bool) -> Result<(), Raised> {
        let quote = self.chars[self.pos];
        let triple = self.peek(1) == Some(quote) && self.peek(2) == Some(quote);
        let start_line = self.line;
        self.pos += if triple { 3 } else { 1 };
        let mut out = String::new();
        loop {
            let Some(c) = self.peek(0) else {
                return Err(syntax(start_line, "unterminated string literal"));
            };
            if c == quote
                && (!triple || (self.peek(1) == Some(quote) && self.peek(2) == Some(quote)))
            {
                self.pos += if triple { 3 } else { 1 };
                break;
            }
            if c == '\n' {
                if !triple {
                    return Err(syntax(start_line, "unterminated string literal"));
                }
                self.line += 1;
            }
            if c == '\\' {
                let next = self.peek(1);
                if raw || fstring {
                    // Raw strings keep the backslash; f-strings are unescaped
                    // later, per literal part, so that `{`/`}` stay visible.
                    out.push('\\');
                    if let Some(n) = next {
                        out.push(n);
                        if n == '\n' {
                            self.line += 1;
                        }
                        self.pos += 2;
                    } else {
                        self.pos += 1;
                    }
                    continue;
                }
                self.pos += 1;
                let (ch, used) = unescape_one(&self.chars[self.pos..], start_line)?;
                if let Some(ch) = ch {
                    out.push(ch);
                } else if self.peek(0) == Some('\n') {
                    self.line += 1;
                }
                self.pos += used;
                continue;
            }
            out.push(c);
            self.pos += 1;
        }
        if fstring {
            if raw {
                // A raw f-string: mark backslashes so unescaping leaves them.
                self.push(Tok::FStr(out.replace('\\', "\\\\")));
            } else {
                self.push(Tok::FStr(out));
            }
        } else {
            self.push(Tok::Str(out));
        }
        Ok(())
    }

    fn operator(&mut self) -> Result<(), Raised> {
        for op in OPS {
            let len = op.len();
            if self.pos + len <= self.chars.len()
                && self.chars[self.pos..self.pos + len]
                    .iter()
                    .copied()
                    .eq(op.chars())
            {
                self.pos += len;
                match *op {
                    "(" | "[" | "{" => self.depth += 1,
                    ")" | "]" | "}" => self.depth = self.depth.saturating_sub(1),
                    _ => {}
                }
                self.push(Tok::Op(op));
                return Ok(());
            }
        }
        Err(syntax(
            self.line,
            format!("unexpected character {:?}", self.chars[self.pos]),
        ))
    }
}

/// Decodes one escape after a backslash: the character (None for a
/// line continuation) and how many source characters it used.
pub fn unescape_one(rest: &[char], line: u32) -> Result<(Option<char>, usize), Raised> {
    let Some(&c) = rest.first() else {
        return Err(syntax(line, "unterminated string literal"));
    };
    let simple = match c {
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        '0' => Some('\0'),
        '\\' => Some('\\'),
        '\'' => Some('\''),
        '"' => Some('"'),
        'a' => Some('\x07'),
        'b' => Some('\x08'),
        'f' => Some('\x0c'),
        'v' => Some('\x0b'),
        '\n' => return Ok((None, 1)),
        _ => None,
    };
    if let Some(ch) = simple {
        return Ok((Some(ch), 1));
    }
    let hex_len = match c {
        'x' => 2,
        'u' => 4,
        'U' => 8,
        // Python keeps unknown escapes as written.
        _ => return Ok((Some('\\'), 0)),
    };
    let digits: String = rest.iter().skip(1).take(hex_len).collect();
    let code = u32::from_str_radix(&digits, 16)
        .ok()
        .filter(|_| digits.len() == hex_len)
        .and_then(char::from_u32)
        .ok_or_else(|| syntax(line, format!("invalid \\{c} escape")))?;
    Ok((Some(code), 1 + hex_len))
}

/// Unescapes an f-string literal part (the lexer leaves f-strings raw).
pub fn unescape(text: &str, line: u32) -> Result<String, Raised> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\\' {
            let (ch, used) = unescape_one(&chars[i + 1..], line)?;
            if let Some(ch) = ch {
                out.push(ch);
            }
            i += 1 + used;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    Ok(out)
}
