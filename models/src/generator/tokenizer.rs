//! SmolLM2's tokenizer rebuilt from GGUF metadata (no tokenizer.json), and
//! its ChatML chat template.
//!
//! The GGUF says `tokenizer.ggml.model = gpt2`, `pre = smollm` and
//! `add_space_prefix = false`: byte-level BPE, digits split one by one, and
//! no prefix space. A generic GGUF tokenizer adds a prefix space, which shifts
//! every prompt by one token; the round-trip test pins this down.

use crate::error::ModelError;
use adfarm_llm::{Message, Speaker};
use candle_core::quantized::gguf_file;
use std::path::Path;
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::{AddedToken, Tokenizer};

/// The model's default system prompt, inserted by its chat template when the
/// conversation does not start with a system message.
pub const DEFAULT_SYSTEM: &str =
    "You are a helpful AI assistant named SmolLM, trained by Hugging Face";

/// GGUF token type of control tokens (`<|im_start|>` ...).
const CONTROL: u32 = 3;

/// Byte-level BPE tokenizer plus the ids the generator needs.
pub(crate) struct ChatTokenizer {
    tokenizer: Tokenizer,
    /// Tokens that end a reply: `<|im_end|>` and `<|endoftext|>`.
    pub(crate) stop_ids: Vec<u32>,
    /// `<|im_end|>`, appended to options when scoring a closed choice.
    pub(crate) im_end: u32,
}

fn meta<'a>(
    ct: &'a gguf_file::Content,
    path: &Path,
    key: &str,
) -> Result<&'a gguf_file::Value, ModelError> {
    ct.metadata
        .get(key)
        .ok_or_else(|| ModelError::format(path, format!("missing metadata {key}")))
}

fn strings(v: &gguf_file::Value, path: &Path, key: &str) -> Result<Vec<String>, ModelError> {
    let arr = v
        .to_vec()
        .map_err(|_| ModelError::format(path, format!("{key} is not an array")))?;
    arr.iter()
        .map(|s| {
            s.to_string()
                .cloned()
                .map_err(|_| ModelError::format(path, format!("{key} holds a non-string")))
        })
        .collect()
}

impl ChatTokenizer {
    /// Builds the tokenizer from the GGUF metadata.
    pub(crate) fn from_gguf(ct: &gguf_file::Content, path: &Path) -> Result<Self, ModelError> {
        let model = meta(ct, path, "tokenizer.ggml.model")?
            .to_string()
            .map_err(|e| ModelError::format(path, e))?;
        if model != "gpt2" {
            return Err(ModelError::format(
                path,
                format!("tokenizer model {model} is not byte-level BPE (gpt2)"),
            ));
        }
        let tokens = strings(
            meta(ct, path, "tokenizer.ggml.tokens")?,
            path,
            "tokenizer.ggml.tokens",
        )?;
        let merges = strings(
            meta(ct, path, "tokenizer.ggml.merges")?,
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
        let types: Vec<u32> = match ct.metadata.get("tokenizer.ggml.token_type") {
            Some(v) => v
                .to_vec()
                .map_err(|e| ModelError::format(path, e))?
                .iter()
                .map(|t| t.to_i32().map(|x| x as u32).or_else(|_| t.to_u32()))
                .collect::<Result<_, _>>()
                .map_err(|e| ModelError::format(path, e))?,
            None => vec![],
        };
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
        Ok(ChatTokenizer {
            tokenizer,
            stop_ids,
            im_end,
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

/// The model's ChatML template with the generation prompt, as its
/// `tokenizer.chat_template` renders it.
pub fn chat_prompt(messages: &[Message]) -> String {
    let mut s = String::new();
    if messages.first().is_none_or(|m| m.role != Speaker::System) {
        s.push_str("<|im_start|>system\n");
        s.push_str(DEFAULT_SYSTEM);
        s.push_str("<|im_end|>\n");
    }
    for m in messages {
        s.push_str("<|im_start|>");
        s.push_str(m.role.as_str());
        s.push('\n');
        s.push_str(&m.content);
        s.push_str("<|im_end|>\n");
    }
    s.push_str("<|im_start|>assistant\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_matches_the_gguf_chat_template() {
        let p = chat_prompt(&[Message::user("Hi")]);
        assert_eq!(
            p,
            "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
        );
        let p = chat_prompt(&[Message::system("S"), Message::user("U")]);
        assert_eq!(
            p,
            "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n"
        );
    }
}
