//! SmolLM2's tokenizer rebuilt from GGUF metadata (no tokenizer.json), with
//! the bytes of every token for constrained decoding.
//!
//! The GGUF says `tokenizer.ggml.model = gpt2`, `pre = smollm` and
//! `add_space_prefix = false`: byte-level BPE, digits split one by one, and
//! no prefix space. A generic GGUF tokenizer adds a prefix space, which shifts
//! every prompt by one token; the round-trip test pins this down.

use super::gguf::{Gguf, Value};
use super::tools::Vocab;
use crate::error::ModelError;
use std::path::Path;
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::{AddedToken, Tokenizer};

/// GGUF token type of control tokens (`<|im_start|>` ...).
const CONTROL: u32 = 3;

/// Byte-level BPE tokenizer plus the ids the generator needs.
pub(crate) struct ChatTokenizer {
    tokenizer: Tokenizer,
    /// Tokens that end a reply: `<|im_end|>` and `<|endoftext|>`.
    pub(crate) stop_ids: Vec<u32>,
    /// `<|im_end|>`, appended to options when scoring a closed choice.
    pub(crate) im_end: u32,
    /// The bytes each token writes.
    pub(crate) vocab: Vocab,
}

fn strings(v: &Value, path: &Path, key: &str) -> Result<Vec<String>, ModelError> {
    let arr = v
        .as_array()
        .ok_or_else(|| ModelError::format(path, format!("{key} is not an array")))?;
    arr.iter()
        .map(|s| {
            s.as_str()
                .map(str::to_string)
                .ok_or_else(|| ModelError::format(path, format!("{key} holds a non-string")))
        })
        .collect()
}

impl ChatTokenizer {
    /// Builds the tokenizer from the GGUF metadata.
    pub(crate) fn from_gguf(ct: &Gguf, path: &Path) -> Result<Self, ModelError> {
        let model = ct
            .meta("tokenizer.ggml.model")?
            .as_str()
            .ok_or_else(|| ModelError::format(path, "tokenizer.ggml.model is not a string"))?;
        if model != "gpt2" {
            return Err(ModelError::format(
                path,
                format!("tokenizer model {model} is not byte-level BPE (gpt2)"),
            ));
        }
        let tokens = strings(
            ct.meta("tokenizer.ggml.tokens")?,
            path,
            "tokenizer.ggml.tokens",
        )?;
        let merges = strings(
            ct.meta("tokenizer.ggml.merges")?,
            path,
            "tokenizer.ggml.merges",
        )?
        .into_iter()
        .map(|m| {
            m.split_once(' ')
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .ok_or_else(|| ModelError::format(path, format!("bad merge {m:?}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
        let types: Vec<u32> = match ct.get("tokenizer.ggml.token_type") {
            Some(v) => v
                .as_array()
                .ok_or_else(|| {
                    ModelError::format(path, "tokenizer.ggml.token_type is not an array")
                })?
                .iter()
                .map(|t| {
                    t.to_u32().ok_or_else(|| {
                        ModelError::format(path, "tokenizer.ggml.token_type holds a non-count")
                    })
                })
                .collect::<Result<_, _>>()?,
            None => vec![],
        };
        ChatTokenizer::from_parts(tokens, merges, &types, path)
    }

    /// Builds the tokenizer from its token texts (GPT-2 byte alphabet),
    /// merges and GGUF token types (empty: none is a control token).
    pub(crate) fn from_parts(
        tokens: Vec<String>,
        merges: Vec<(String, String)>,
        types: &[u32],
        path: &Path,
    ) -> Result<Self, ModelError> {
        let vocab: tokenizers::models::bpe::Vocab = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i as u32))
            .collect();
        let bpe = BPE::builder()
            .vocab_and_merges(vocab, merges)
            .build()
            .map_err(|e| ModelError::format(path, e))?;
        let mut tokenizer = Tokenizer::new(bpe);
        // llama.cpp's `smollm` pre-tokenizer: every digit alone, then GPT-2's
        // byte-level split without a prefix space.
        tokenizer.with_pre_tokenizer(Some(Sequence::new(vec![
            Digits::new(true).into(),
            ByteLevel::new(false, true, true).into(),
        ])));
        tokenizer.with_decoder(Some(ByteLevelDecoder::new(false, true, true)));
        let specials: Vec<AddedToken> = tokens
            .iter()
            .zip(types.iter())
            .filter(|(_, &t)| t == CONTROL)
            .map(|(s, _)| AddedToken::from(s.clone(), true))
            .collect();
        tokenizer
            .add_special_tokens(specials)
            .map_err(|e| ModelError::format(path, e))?;
        let id = |s: &str| {
            tokenizer
                .token_to_id(s)
                .ok_or_else(|| ModelError::format(path, format!("no {s} token")))
        };
        let im_end = id("<|im_end|>")?;
        let stop_ids = vec![im_end, id("<|endoftext|>")?];
        let vocab =
            Vocab::from_gguf_tokens(&tokens, |i| types.get(i).is_none_or(|&t| t != CONTROL));
        Ok(ChatTokenizer {
            tokenizer,
            stop_ids,
            im_end,
            vocab,
        })
    }

    /// Token ids of `text`; special tokens written in it are recognised.
    pub(crate) fn encode(&self, text: &str) -> Result<Vec<u32>, ModelError> {
        let enc = self
            .tokenizer
            .encode_fast(text, false)
            .map_err(|e| ModelError::Tokenizer(e.to_string()))?;
        Ok(enc.get_ids().to_vec())
    }

    /// Text of `ids`, special tokens included.
    pub(crate) fn decode(&self, ids: &[u32]) -> Result<String, ModelError> {
        self.tokenizer
            .decode(ids, false)
            .map_err(|e| ModelError::Tokenizer(e.to_string()))
    }
}

#[cfg(test)]
impl ChatTokenizer {
    /// A tokenizer of the three control tokens, the 256 bytes and `merges`
    /// (pairs of texts, merged in this order), for tests of code that
    /// writes tokens.
    pub(crate) fn tiny(merges: &[(&str, &str)]) -> ChatTokenizer {
        use super::tools::token_text;
        let mut tokens: Vec<String> = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
            .map(String::from)
            .to_vec();
        tokens.extend((0..=255u8).map(|b| token_text(&[b])));
        let mut pairs = Vec::new();
        for (a, b) in merges {
            let (a, b) = (token_text(a.as_bytes()), token_text(b.as_bytes()));
            tokens.push(format!("{a}{b}"));
            pairs.push((a, b));
        }
        let mut types = vec![CONTROL; 3];
        types.resize(tokens.len(), 1);
        ChatTokenizer::from_parts(tokens, pairs, &types, Path::new("tiny"))
            .expect("a well-formed tiny vocabulary")
    }
}
