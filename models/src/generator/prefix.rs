//! Prompt-prefix reuse: the keys and values of recent prompts, so a request
//! that starts like an earlier one prefills only what is new. A judge asks
//! twelve questions about one response; with the response first and the
//! question last, eleven of the twelve prefills shrink to the question.
//!
//! Reuse starts at a multiple of [`ATTENTION_BLOCK`], where the forward pass
//! guarantees the cached positions are bit-identical to a fresh prefill, so
//! a reply never depends on what happened to be cached.

use super::model::{KvCache, ATTENTION_BLOCK};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Shortest prefix worth keeping or reusing, in tokens.
pub(crate) const MIN_REUSE: usize = 64;

struct Entry {
    tokens: Vec<u32>,
    cache: KvCache,
}

/// Recently prefilled prompts, most recently used last, within a token
/// budget (each cached token costs one K and one V row per layer).
pub(crate) struct PrefixCache {
    entries: VecDeque<Entry>,
    /// The budget, shared with the model's handles, which may raise it.
    capacity_tokens: Arc<AtomicUsize>,
    /// Floats per position in one layer's K (or V) cache.
    row: usize,
}

/// Length of the common prefix of `a` and `b`.
pub(crate) fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// How much of `prompt` may come from a prompt sharing `shared` tokens with
/// it: whole attention blocks, and never the last prompt token (its logits
/// are needed).
pub(crate) fn reusable(shared: usize, prompt: &[u32]) -> usize {
    let n = shared.min(prompt.len().saturating_sub(1));
    let n = n / ATTENTION_BLOCK * ATTENTION_BLOCK;
    if n >= MIN_REUSE {
        n
    } else {
        0
    }
}

impl PrefixCache {
    pub(crate) fn new(capacity_tokens: Arc<AtomicUsize>, row: usize) -> PrefixCache {
        PrefixCache {
            entries: VecDeque::new(),
            capacity_tokens,
            row,
        }
    }

    /// Tokens of `prompt` a cached entry could provide (0 when none).
    pub(crate) fn available(&self, prompt: &[u32]) -> usize {
        self.entries
            .iter()
            .map(|e| reusable(common_prefix(&e.tokens, prompt), prompt))
            .max()
            .unwrap_or(0)
    }

    /// The cache of the longest reusable prefix of `prompt`, if any, with
    /// room for `room` positions; the entry it came from becomes the most
    /// recently used.
    pub(crate) fn take(&mut self, prompt: &[u32], room: usize) -> Option<KvCache> {
        let (i, n) = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (i, reusable(common_prefix(&e.tokens, prompt), prompt)))
            .max_by_key(|&(i, n)| (n, i))?;
        if n == 0 {
            return None;
        }
        let entry = self.entries.remove(i)?;
        let cache = entry.cache.prefix(n, room, self.row);
        self.entries.push_back(entry);
        Some(cache)
    }

    /// Keeps the prefilled `tokens` (whose keys and values `cache` holds,
    /// possibly followed by more positions). Entries it extends are dropped;
    /// the least recently used go when over budget.
    pub(crate) fn insert(&mut self, tokens: &[u32], cache: &KvCache) {
        let capacity = self.capacity_tokens.load(Ordering::Relaxed);
        if tokens.len() < MIN_REUSE || tokens.len() > capacity {
            return;
        }
        if let Some(e) = self.entries.iter().position(|e| e.tokens == tokens) {
            let entry = self.entries.remove(e).expect("index from position");
            self.entries.push_back(entry);
            return;
        }
        self.entries
            .retain(|e| common_prefix(&e.tokens, tokens) < e.tokens.len());
        self.entries.push_back(Entry {
            tokens: tokens.to_vec(),
            cache: cache.prefix(tokens.len(), tokens.len(), self.row),
        });
        let mut held: usize = self.entries.iter().map(|e| e.tokens.len()).sum();
        while held > capacity {
            let Some(old) = self.entries.pop_front() else {
                break;
            };
            held -= old.tokens.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(len: usize, row: usize) -> KvCache {
        KvCache::filled(2, len, row)
    }

    fn budget(tokens: usize) -> Arc<AtomicUsize> {
        Arc::new(AtomicUsize::new(tokens))
    }

    #[test]
    fn reuse_is_whole_blocks_short_of_the_last_token() {
        let p: Vec<u32> = (0..200).collect();
        assert_eq!(reusable(63, &p), 0, "below the minimum");
        assert_eq!(reusable(100, &p), 96);
        assert_eq!(reusable(500, &p), 192, "never the last prompt token");
        let short: Vec<u32> = (0..97).collect();
        assert_eq!(reusable(97, &short), 96);
        let exact: Vec<u32> = (0..96).collect();
        assert_eq!(reusable(96, &exact), 64);
    }

    #[test]
    fn takes_the_longest_shared_prefix_and_evicts_the_least_recent() {
        let row = 3;
        let mut pc = PrefixCache::new(budget(400), row);
        let a: Vec<u32> = (0..150).collect();
        let mut b: Vec<u32> = (0..100).collect();
        b.extend(1000..1100);
        pc.insert(&a, &cache(150, row));
        pc.insert(&b, &cache(200, row));
        let mut q: Vec<u32> = (0..140).collect();
        q.push(7);
        assert_eq!(pc.available(&q), 128);
        let got = pc.take(&q, q.len()).expect("a prefix");
        assert_eq!(got.len(), 128);
        // `a` was used last, so a third entry pushes out `b`.
        pc.insert(&(5000..5100).collect::<Vec<u32>>(), &cache(100, row));
        assert_eq!(pc.available(&q), 128);
        let mut qb = b.clone();
        qb.push(1);
        assert_eq!(pc.available(&qb), 96, "b is gone; a still shares 100");
    }

    #[test]
    fn an_extension_replaces_its_prefix() {
        let row = 2;
        let mut pc = PrefixCache::new(budget(1000), row);
        let a: Vec<u32> = (0..100).collect();
        let b: Vec<u32> = (0..300).collect();
        pc.insert(&a, &cache(100, row));
        pc.insert(&b, &cache(300, row));
        assert_eq!(pc.entries.len(), 1);
        let too_short: Vec<u32> = (0..10).collect();
        pc.insert(&too_short, &cache(10, row));
        assert_eq!(pc.entries.len(), 1);
    }

    #[test]
    fn a_raised_budget_keeps_one_conversation_per_request() {
        let row = 2;
        let capacity = budget(250);
        let mut pc = PrefixCache::new(Arc::clone(&capacity), row);
        let turn = |c: u32| -> Vec<u32> { (0..100).chain(c * 1000..c * 1000 + 100).collect() };
        for c in 1..=3 {
            pc.insert(&turn(c), &cache(200, row));
        }
        assert_eq!(pc.entries.len(), 1, "250 tokens hold one 200-token prompt");
        capacity.store(600, Ordering::Relaxed);
        for c in 1..=3 {
            pc.insert(&turn(c), &cache(200, row));
        }
        assert_eq!(pc.entries.len(), 3, "600 hold all three");
        let mut next = turn(1);
        next.extend(7..50);
        assert_eq!(pc.available(&next), 192);
    }
}
