//! Deterministic content: a hash-seeded PRNG, answer text from a fixed
//! vocabulary, JSON that fits a schema, and bag-of-words embeddings.

use serde_json::{Map, Value};

/// Dimension of every embedding the fake returns (MiniLM's).
pub const EMBEDDING_DIM: usize = 384;

/// Words the fake answers with: advertising small talk, so that suites
/// looking for ad-ish text see some.
const VOCABULARY: [&str; 64] = [
    "the",
    "brand",
    "offer",
    "today",
    "customers",
    "quality",
    "new",
    "product",
    "free",
    "shipping",
    "discount",
    "best",
    "value",
    "service",
    "try",
    "our",
    "fresh",
    "premium",
    "deal",
    "save",
    "more",
    "with",
    "every",
    "order",
    "easy",
    "fast",
    "trusted",
    "choice",
    "for",
    "you",
    "and",
    "your",
    "family",
    "limited",
    "time",
    "exclusive",
    "online",
    "store",
    "click",
    "learn",
    "about",
    "great",
    "price",
    "smart",
    "home",
    "travel",
    "coffee",
    "shoes",
    "phone",
    "plan",
    "answer",
    "question",
    "helpful",
    "because",
    "this",
    "is",
    "a",
    "good",
    "idea",
    "we",
    "recommend",
    "it",
    "clearly",
    "simple",
];

/// SplitMix64 seeded by a BLAKE3 hash of its parts: tiny, fast, and the same
/// on every platform, which is all a fake needs.
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator seeded by `parts`, each length-prefixed so that
    /// `["ab", "c"]` and `["a", "bc"]` differ.
    pub(crate) fn from_parts(parts: &[&[u8]]) -> Rng {
        let mut h = blake3::Hasher::new();
        for p in parts {
            h.update(&(p.len() as u64).to_le_bytes());
            h.update(p);
        }
        let bytes = h.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&bytes.as_bytes()[..8]);
        Rng(u64::from_le_bytes(first))
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`); the modulo bias is irrelevant here.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The fake's token count: whitespace-separated words.
pub(crate) fn word_count(s: &str) -> u64 {
    s.split_whitespace().count() as u64
}

/// A sentence of 12 to 48 vocabulary words, cut to `max_words`; the flag
/// says whether the cap cut it (`finish_reason: "length"`).
pub(crate) fn sentence(rng: &mut Rng, max_words: u64) -> (String, bool) {
    let wanted = 12 + rng.below(37);
    let n = wanted.min(max_words);
    let mut words: Vec<String> = (0..n)
        .map(|_| VOCABULARY[rng.below(VOCABULARY.len() as u64) as usize].to_string())
        .collect();
    if let Some(first) = words.first_mut() {
        let mut c = first.chars();
        if let Some(h) = c.next() {
            *first = h.to_uppercase().chain(c).collect();
        }
    }
    let mut text = words.join(" ");
    if !text.is_empty() {
        text.push('.');
    }
    (text, n < wanted)
}

/// A few vocabulary words.
fn phrase(rng: &mut Rng) -> String {
    let n = 1 + rng.below(4);
    (0..n)
        .map(|_| VOCABULARY[rng.below(VOCABULARY.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

/// A JSON value that fits the common subset of JSON Schema (`enum`,
/// `const`, `type` object/array/string/number/integer/boolean/null,
/// `anyOf`/`oneOf` by their first branch). Anything else gets a string.
pub(crate) fn schema_value(schema: &Value, rng: &mut Rng, depth: u32) -> Value {
    if depth > 8 {
        return Value::Null;
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if !options.is_empty() {
            return options[rng.below(options.len() as u64) as usize].clone();
        }
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(first) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            return schema_value(first, rng, depth + 1);
        }
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        // `"type": ["string", "null"]`: the first listed type.
        Some(Value::Array(ts)) => ts.first().and_then(Value::as_str).unwrap_or("string"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match ty {
        "object" => {
            let mut out = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, sub) in props {
                    out.insert(name.clone(), schema_value(sub, rng, depth + 1));
                }
            }
            Value::Object(out)
        }
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            let n = 1 + rng.below(3);
            Value::Array(
                (0..n)
                    .map(|_| schema_value(&items, rng, depth + 1))
                    .collect(),
            )
        }
        "integer" => Value::from(rng.below(100)),
        "number" => Value::from((rng.unit() * 10_000.0).round() / 100.0),
        "boolean" => Value::Bool(rng.below(2) == 1),
        "null" => Value::Null,
        _ => Value::String(phrase(rng)),
    }
}

/// A deterministic unit vector for `text` under embedding model `model`:
/// the normalised sum of one random vector per lower-cased word. Texts that
/// share words therefore have a positive cosine similarity, which keeps
/// embedding metrics meaningful; word order does not matter. The word
/// vectors are drawn per model, so two model names give two different
/// embedding spaces (and different metric values, as two real embedders
/// would), while one model always gives the same vectors.
pub(crate) fn embed(seed: u64, model: &str, text: &str) -> Vec<f32> {
    let seed = seed.to_le_bytes();
    let mut v = vec![0f64; EMBEDDING_DIM];
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut add = |parts: &[&[u8]]| {
        let mut rng = Rng::from_parts(parts);
        for x in v.iter_mut() {
            *x += rng.unit() * 2.0 - 1.0;
        }
    };
    if words.is_empty() {
        // Text without words still needs a stable, non-zero vector.
        add(&[&seed, b"embed-text", model.as_bytes(), text.as_bytes()]);
    }
    for w in &words {
        add(&[&seed, b"embed-word", model.as_bytes(), w.as_bytes()]);
    }
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.iter().map(|x| (x / norm) as f32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sentence_respects_the_word_cap() {
        let mut rng = Rng::from_parts(&[b"x"]);
        let (text, cut) = sentence(&mut rng, 5);
        assert_eq!(word_count(&text), 5);
        assert!(cut);
        let (empty, _) = sentence(&mut rng, 0);
        assert_eq!(empty, "");
    }

    #[test]
    fn schema_value_fits_an_enum_object() {
        let schema = json!({"type": "object", "properties": {
            "choice": {"type": "string", "enum": ["yes", "no"]},
            "n": {"type": "integer"}}});
        let v = schema_value(&schema, &mut Rng::from_parts(&[b"s"]), 0);
        let choice = v["choice"].as_str().unwrap();
        assert!(choice == "yes" || choice == "no");
        assert!(v["n"].is_u64());
    }

    #[test]
    fn embeddings_are_unit_and_share_words() {
        let a = embed(1, "m", "free coffee today");
        let b = embed(1, "m", "coffee today");
        let c = embed(1, "m", "quantum chromodynamics lecture");
        let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
        assert_eq!(a.len(), EMBEDDING_DIM);
        assert!((dot(&a, &a) - 1.0).abs() < 1e-4);
        assert!(dot(&a, &b) > dot(&a, &c) + 0.3);
        assert_eq!(embed(1, "m", ""), embed(1, "m", ""));
        assert!((dot(&embed(1, "m", "..."), &embed(1, "m", "...")) - 1.0).abs() < 1e-4);
    }

    #[test]
    fn embeddings_depend_on_the_model_name() {
        let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
        let a = embed(1, "fake-emb-1", "free coffee today");
        assert_eq!(a, embed(1, "fake-emb-1", "free coffee today"));
        let b = embed(1, "fake-emb-2", "free coffee today");
        assert_ne!(a, b);
        // Another space, not a copy: the same text is nearly orthogonal.
        assert!(dot(&a, &b).abs() < 0.5, "{}", dot(&a, &b));
        let b2 = embed(1, "fake-emb-2", "coffee today");
        assert!(
            dot(&b, &b2) > 0.5,
            "shared words still agree within a model"
        );
    }
}
