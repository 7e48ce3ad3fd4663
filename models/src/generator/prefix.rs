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

    /// Prompt tokens held.
    pub(crate) fn held(&self) -> usize {
        self.entries.iter().map(|e| e.tokens.len()).sum()
    }

    /// Drops the least recently used entries, except the one at `keep`,
    /// until at most `limit` tokens are held; returns where the kept entry
    /// is now.
    fn evict_to(&mut self, limit: usize, mut keep: Option<usize>) -> Option<usize> {
        let mut held = self.held();
        let mut i = 0;
        while held > limit && i < self.entries.len() {
            if keep == Some(i) {
                i += 1;
                continue;
            }
            let old = self.entries.remove(i).expect("index in range");
            held -= old.tokens.len();
            keep = keep.map(|k| if k > i { k - 1 } else { k });
        }
        keep
    }

    /// The cache of the longest reusable prefix of `prompt`, if any, with
    /// room for `room` positions, leaving at most `limit` tokens held: the
    /// least recently used entries go first. The entry it came from is
    /// handed over (its buffers become the sequence's, not copied) when
    /// `prompt` extends all of it, as an agent's next turn extends its
    /// last (the entry would be replaced by `prompt` once prefilled), or
    /// when it alone is over `limit`; otherwise it is copied and becomes the
    /// most recently used.
    pub(crate) fn take(&mut self, prompt: &[u32], room: usize, limit: usize) -> Option<KvCache> {
        let best = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (i, reusable(common_prefix(&e.tokens, prompt), prompt)))
            .max_by_key(|&(i, n)| (n, i))
            .filter(|&(_, n)| n > 0);
        let Some((i, n)) = best else {
            self.evict_to(limit, None);
            return None;
        };
        let i = self.evict_to(limit, Some(i))?;
        let entry = self.entries.remove(i)?;
        let extended = common_prefix(&entry.tokens, prompt) == entry.tokens.len();
        if extended || self.held() + entry.tokens.len() > limit {
            let mut cache = entry.cache;
            cache.truncate(n, self.row);
            cache.reserve(room, self.row);
            return Some(cache);
        }
        let cache = entry.cache.prefix(n, room, self.row);
        self.entries.push_back(entry);
        Some(cache)
    }

    /// Keeps the prefilled `tokens` (whose keys and values `cache` holds,
    /// possibly followed by more positions) if they fit in `limit` tokens
    /// and the cache's own capacity. Entries it extends are dropped; the
    /// least recently used go until what is held fits both.
    pub(crate) fn insert(&mut self, tokens: &[u32], cache: &KvCache, limit: usize) {
        let limit = limit.min(self.capacity_tokens.load(Ordering::Relaxed));
        if tokens.len() < MIN_REUSE || tokens.len() > limit {
            self.evict_to(limit, None);
            return;
        }
        if let Some(e) = self.entries.iter().position(|e| e.tokens == tokens) {
            let entry = self.entries.remove(e).expect("index from position");
            self.entries.push_back(entry);
            self.evict_to(limit, Some(self.entries.len() - 1));
            return;
        }
        self.entries
            .retain(|e| common_prefix(&e.tokens, tokens) < e.tokens.len());
        self.evict_to(limit - tokens.len(), None);
        self.entries.push_back(Entry {
            tokens: tokens.to_vec(),
            cache: cache.prefix(tokens.len(), tokens.len(), self.row),
        });
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
        pc.insert(&a, &cache(150, row), usize::MAX);
        pc.insert(&b, &cache(200, row), usize::MAX);
        let mut q: Vec<u32> = (0..140).collect();
        q.push(7);
        assert_eq!(pc.available(&q), 128);
        let got = pc.take(&q, q.len(), usize::MAX).expect("a prefix");
        assert_eq!(got.len(), 128);
        // `a` was used last, so a third entry pushes out `b`.
        pc.insert(
            &(5000..5100).collect::<Vec<u32>>(),
            &cache(100, row),
            usize::MAX,
        );
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
        pc.insert(&a, &cache(100, row), usize::MAX);
        pc.insert(&b, &cache(300, row), usize::MAX);
        assert_eq!(pc.entries.len(), 1);
        let too_short: Vec<u32> = (0..10).collect();
        pc.insert(&too_short, &cache(10, row), usize::MAX);
        assert_eq!(pc.entries.len(), 1);
    }

    #[test]
    fn a_raised_budget_keeps_one_conversation_per_request() {
        let row = 2;
        let capacity = budget(250);
        let mut pc = PrefixCache::new(Arc::clone(&capacity), row);
        let turn = |c: u32| -> Vec<u32> { (0..100).chain(c * 1000..c * 1000 + 100).collect() };
        for c in 1..=3 {
            pc.insert(&turn(c), &cache(200, row), usize::MAX);
        }
        assert_eq!(pc.entries.len(), 1, "250 tokens hold one 200-token prompt");
        capacity.store(600, Ordering::Relaxed);
        for c in 1..=3 {
            pc.insert(&turn(c), &cache(200, row), usize::MAX);
        }
        assert_eq!(pc.entries.len(), 3, "600 hold all three");
        let mut next = turn(1);
        next.extend(7..50);
        assert_eq!(pc.available(&next), 192);
    }

    #[test]
    fn a_take_leaves_room_for_its_sequence_evicting_the_least_recent_first() {
        let row = 2;
        let mut pc = PrefixCache::new(budget(10_000), row);
        let a: Vec<u32> = (0..150).collect();
        let b: Vec<u32> = (500..700).collect();
        pc.insert(&a, &cache(150, row), usize::MAX);
        pc.insert(&b, &cache(200, row), usize::MAX);
        let mut q: Vec<u32> = (0..140).collect();
        q.push(7);
        let got = pc.take(&q, 300, 150).expect("a's prefix");
        assert_eq!(got.len(), 128);
        assert_eq!(pc.held(), 150, "b went; a, the source, stays");
        // Under a limit a alone exceeds, a's buffers become the sequence's.
        let got = pc.take(&q, 300, 100).expect("a's prefix, moved");
        assert_eq!((got.len(), pc.held()), (128, 0));
        assert!(got.room(row) >= 300, "room for the sequence");
        assert!(pc.take(&q, 300, 0).is_none());
    }

    #[test]
    fn a_prompt_that_extends_an_entry_takes_it_over() {
        let row = 2;
        let mut pc = PrefixCache::new(budget(10_000), row);
        let turn: Vec<u32> = (0..150).collect();
        pc.insert(&turn, &cache(150, row), usize::MAX);
        let next: Vec<u32> = (0..230).collect();
        let got = pc.take(&next, 400, usize::MAX).expect("the last turn");
        assert_eq!((got.len(), pc.held()), (128, 0), "moved, not copied");
        assert!(got.room(row) >= 400);
    }

    #[test]
    fn an_insert_stays_within_its_limit() {
        let row = 2;
        let mut pc = PrefixCache::new(budget(10_000), row);
        let a: Vec<u32> = (0..150).collect();
        let b: Vec<u32> = (500..700).collect();
        pc.insert(&a, &cache(150, row), 100);
        assert_eq!(pc.held(), 0, "over the limit: not kept");
        pc.insert(&a, &cache(150, row), 400);
        pc.insert(&b, &cache(200, row), 300);
        assert_eq!(pc.held(), 200, "a went to make room for b");
        pc.insert(&b, &cache(200, row), 100);
        assert_eq!(pc.held(), 0, "kept already, but over the new limit");
    }
}
