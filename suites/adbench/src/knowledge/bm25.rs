//! BM25 ranking over the knowledge passages (k1 = 1.2, b = 0.75). Tokens are
//! lower-cased ASCII words, plus character bigrams for CJK text so Chinese
//! queries match without a segmenter.

use std::collections::HashMap;

/// Splits text into search tokens.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let flush_cjk = |cjk: &mut Vec<char>, out: &mut Vec<String>| {
        if cjk.len() == 1 {
            out.push(cjk[0].to_string());
        }
        for w in cjk.windows(2) {
            out.push(w.iter().collect());
        }
        cjk.clear();
    };
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() {
            flush_cjk(&mut cjk, &mut out);
            word.push(ch.to_ascii_lowercase());
        } else {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            if ch.is_alphabetic() && !ch.is_ascii() {
                cjk.push(ch);
            } else {
                flush_cjk(&mut cjk, &mut out);
            }
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    flush_cjk(&mut cjk, &mut out);
    out.retain(|t| !STOP.contains(&t.as_str()));
    out
}

const STOP: [&str; 16] = [
    "a", "an", "the", "of", "to", "in", "is", "and", "or", "for", "on", "by", "with", "what",
    "how", "it",
];

/// An inverted index of documents.
#[derive(Debug, Clone)]
pub struct Index {
    lengths: Vec<f64>,
    avg_len: f64,
    postings: HashMap<String, Vec<(usize, f64)>>,
}

impl Index {
    /// Indexes `docs` (document i is `docs[i]`).
    pub fn new<S: AsRef<str>>(docs: &[S]) -> Index {
        let mut postings: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
        let mut lengths = Vec::with_capacity(docs.len());
        for (i, d) in docs.iter().enumerate() {
            let toks = tokenize(d.as_ref());
            lengths.push(toks.len() as f64);
            let mut tf: HashMap<String, f64> = HashMap::new();
            for t in toks {
                *tf.entry(t).or_default() += 1.0;
            }
            for (t, f) in tf {
                postings.entry(t).or_default().push((i, f));
            }
        }
        let avg_len = if lengths.is_empty() {
            1.0
        } else {
            lengths.iter().sum::<f64>() / lengths.len() as f64
        };
        Index {
            lengths,
            avg_len,
            postings,
        }
    }

    /// BM25 scores of the documents `allowed` admits, best first; ties by
    /// document order so results are stable.
    pub fn search(&self, query: &str, allowed: impl Fn(usize) -> bool) -> Vec<(usize, f64)> {
        const K1: f64 = 1.2;
        const B: f64 = 0.75;
        let n = self.lengths.len() as f64;
        let mut scores: HashMap<usize, f64> = HashMap::new();
        let mut terms = tokenize(query);
        terms.sort();
        terms.dedup();
        for t in terms {
            let Some(list) = self.postings.get(&t) else {
                continue;
            };
            let df = list.len() as f64;
            let idf = libm::log((n - df + 0.5) / (df + 0.5) + 1.0);
            for &(doc, tf) in list {
                if !allowed(doc) {
                    continue;
                }
                let norm = K1 * (1.0 - B + B * self.lengths[doc] / self.avg_len);
                *scores.entry(doc).or_default() += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut out: Vec<(usize, f64)> = scores.into_iter().collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizes_words_and_cjk_bigrams() {
        assert_eq!(tokenize("The CTR of 点击率"), vec!["ctr", "点击", "击率"]);
    }

    #[test]
    fn ranks_the_matching_document_first() {
        let idx = Index::new(&[
            "budget rules for accounts",
            "click through rate definition",
            "bid strategy and budget pacing",
        ]);
        let r = idx.search("click rate", |_| true);
        assert_eq!(r[0].0, 1);
        assert!(idx
            .search("budget", |d| d != 0)
            .iter()
            .all(|(d, _)| *d == 2));
        assert!(idx.search("zzz", |_| true).is_empty());
    }
}
