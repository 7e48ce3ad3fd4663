//! What each token of the vocabulary writes, as bytes, and the token
//! classes constrained decoding asks for: tokens that fit inside a JSON
//! string, tokens by first byte, the token of a single byte. Built once per
//! model from the GGUF's token list.

use std::collections::HashMap;

/// Bytes each token writes, with lookups by first byte.
pub(crate) struct Vocab {
    /// `None` for control tokens (`<|im_end|>` ...): constrained output
    /// never contains one.
    pieces: Vec<Option<Box<[u8]>>>,
    /// Ids of the tokens starting with each byte.
    by_first: Vec<Vec<u32>>,
    /// Tokens that may sit inside a JSON string literal (valid UTF-8 on
    /// their own, no quote, backslash or control character), with their
    /// length in characters.
    string_tokens: Vec<(u32, usize)>,
}

/// GPT-2's byte-level alphabet: the character that stands for each byte in
/// a token's text (printable Latin-1 for itself, the others from U+0100 on).
fn alphabet() -> [char; 256] {
    let printable = |b: u32| (0x21..=0x7E).contains(&b) || (0xA1..=0xAC).contains(&b) || b >= 0xAE;
    let mut shifted = 0;
    std::array::from_fn(|b| {
        let b = b as u32;
        let c = if printable(b) {
            b
        } else {
            shifted += 1;
            255 + shifted
        };
        char::from_u32(c).expect("code points below 512 are chars")
    })
}

/// A token's text in the byte-level alphabet, as the GGUF lists it.
#[cfg(test)]
pub(crate) fn token_text(bytes: &[u8]) -> String {
    let a = alphabet();
    bytes.iter().map(|&b| a[b as usize]).collect()
}

impl Vocab {
    /// From the GGUF token texts; `normal(i)` tells which tokens are plain
    /// byte-level pieces (the others are control tokens).
    pub(crate) fn from_gguf_tokens(tokens: &[String], normal: impl Fn(usize) -> bool) -> Vocab {
        let map: HashMap<char, u8> = alphabet()
            .iter()
            .enumerate()
            .map(|(b, &c)| (c, b as u8))
            .collect();
        let pieces = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if !normal(i) {
                    return None;
                }
                t.chars()
                    .map(|c| map.get(&c).copied())
                    .collect::<Option<Vec<u8>>>()
                    .filter(|b| !b.is_empty())
                    .map(Vec::into_boxed_slice)
            })
            .collect();
        Vocab::new(pieces)
    }

    fn new(pieces: Vec<Option<Box<[u8]>>>) -> Vocab {
        let mut by_first = vec![Vec::new(); 256];
        let mut string_tokens = Vec::new();
        for (id, p) in pieces.iter().enumerate() {
            let Some(p) = p else { continue };
            by_first[p[0] as usize].push(id as u32);
            if let Ok(s) = std::str::from_utf8(p) {
                if s.chars().all(|c| c >= ' ' && c != '"' && c != '\\') {
                    string_tokens.push((id as u32, s.chars().count()));
                }
            }
        }
        Vocab {
            pieces,
            by_first,
            string_tokens,
        }
    }

    /// Bytes token `id` writes (empty for a control token).
    pub(crate) fn bytes(&self, id: u32) -> &[u8] {
        self.pieces
            .get(id as usize)
            .and_then(|p| p.as_deref())
            .unwrap_or(&[])
    }

    /// Whether token `id` is whole UTF-8 text (not part of a character).
    pub(crate) fn is_text(&self, id: u32) -> bool {
        std::str::from_utf8(self.bytes(id)).is_ok_and(|s| !s.is_empty())
    }

    /// Tokens whose first byte is `b`.
    pub(crate) fn starting_with(&self, b: u8) -> &[u32] {
        &self.by_first[b as usize]
    }

    /// The token that writes exactly byte `b` (byte-level BPE has one for
    /// every byte).
    pub(crate) fn single(&self, b: u8) -> Option<u32> {
        self.starting_with(b)
            .iter()
            .copied()
            .find(|&t| self.bytes(t).len() == 1)
    }

    /// Tokens allowed inside a JSON string, with their length in characters.
    pub(crate) fn string_tokens(&self) -> &[(u32, usize)] {
        &self.string_tokens
    }

    /// A vocabulary of the given pieces (`None`: a control token), for
    /// tests of the code that masks tokens.
    #[cfg(test)]
    pub(crate) fn of(pieces: &[Option<&str>]) -> Vocab {
        Vocab::new(
            pieces
                .iter()
                .map(|p| p.map(|s| s.as_bytes().to_vec().into_boxed_slice()))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_level_pieces_decode_to_their_bytes() {
        let tokens: Vec<String> = ["<|im_end|>", "Hello", "Ġworld", "\"", "Ċ", "Ã©"]
            .map(String::from)
            .to_vec();
        let v = Vocab::from_gguf_tokens(&tokens, |i| i != 0);
        assert_eq!(v.bytes(0), b"");
        assert_eq!(v.bytes(2), b" world");
        assert_eq!(v.bytes(4), b"\n");
        assert_eq!(v.bytes(5), "é".as_bytes());
        assert_eq!(v.single(b'"'), Some(3));
        assert_eq!(v.starting_with(b'H'), &[1]);
        // The quote and the newline cannot sit inside a JSON string.
        let inside: Vec<u32> = v.string_tokens().iter().map(|t| t.0).collect();
        assert_eq!(inside, vec![1, 2, 5]);
        assert_eq!(v.string_tokens()[2].1, 1, "é is one character");
    }

    #[test]
    fn part_of_a_character_is_not_text() {
        let v = Vocab::of(&[Some("\u{e9}"), None]);
        assert!(v.is_text(0));
        assert!(!v.is_text(1));
        let half = Vocab::new(vec![Some(vec![0xC3].into_boxed_slice())]);
        assert!(!half.is_text(0));
        assert!(half.string_tokens().is_empty());
    }
}
