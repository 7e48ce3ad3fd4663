//! Prompt-prefix reuse: the keys and values of recent prompts, so a request
//! that starts like an earlier one prefills only what is new. A judge asks
//! twelve questions about one response; with the response first and the
//! question last, eleven of the twelve prefills shrink to the question.
//!
//! Reuse starts at a multiple of [`ATTENTION_BLOCK`], where the forward pass
//! guarantees the cached positions are bit-identical to a fresh prefill, so
//! a reply never depends on what happened to be cached.
//!
//! When room runs short, what goes first is what is needed last: entries no
//! waiting request resumes from (least recently used first), then those
//! whose request waits furthest back. Plain recency would evict exactly the
//! wrong conversation when more agent conversations take turns than fit:
//! the one least recently served is the next to be served.

use super::kv::KvCache;
use super::model::ATTENTION_BLOCK;
use std::cmp::Reverse;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Shortest prefix worth keeping or reusing, in tokens.
pub(crate) const MIN_REUSE: usize = 64;

/// Waiting requests looked at when choosing what to evict; those further
/// back count as not waiting (their turn is far off, and comparing every
/// prompt of a long judge queue with every entry would cost more than it
/// saves).
const LOOK_AHEAD: usize = 64;

/// Making room would drop a prefix that a waiting request resumes from.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Wait;

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
    /// Floats per position in one stream of a cache (a layer's KV head).
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

    /// The entry `prompt` would resume from and the tokens it gives: the
    /// longest reuse, the most recent on ties.
    fn best(&self, prompt: &[u32]) -> Option<(usize, usize)> {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, e)| (i, reusable(common_prefix(&e.tokens, prompt), prompt)))
            .max_by_key(|&(i, n)| (n, i))
            .filter(|&(_, n)| n > 0)
    }

    /// Tokens of `prompt` a cached entry could provide (0 when none).
    pub(crate) fn available(&self, prompt: &[u32]) -> usize {
        self.best(prompt).map_or(0, |(_, n)| n)
    }

    /// Prompt tokens held.
    pub(crate) fn held(&self) -> usize {
        self.entries.iter().map(|e| e.tokens.len()).sum()
    }

    /// Entry indices in the order they give way, each with whether a
    /// waiting request (of `queue`, in the order they will run) resumes
    /// from it: first the unwanted, least recently used first; then the
    /// wanted, the one wanted furthest back first.
    fn eviction_order(&self, queue: &[&[u32]]) -> Vec<(usize, bool)> {
        let mut next = vec![usize::MAX; self.entries.len()];
        for (q, prompt) in queue.iter().take(LOOK_AHEAD).enumerate() {
            if let Some((i, _)) = self.best(prompt) {
                next[i] = next[i].min(q);
            }
        }
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by_key(|&i| (Reverse(next[i]), i));
        order
            .into_iter()
            .map(|i| (i, next[i] != usize::MAX))
            .collect()
    }

    /// Drops entries in [`PrefixCache::eviction_order`], never `keep`,
    /// until at most `limit` tokens are held; returns where the kept entry
    /// is now. With `patient`, drops nothing and answers [`Wait`] when that
    /// would take an entry a waiting request resumes from.
    fn make_room_keeping(
        &mut self,
        limit: usize,
        keep: Option<usize>,
        queue: &[&[u32]],
        patient: bool,
    ) -> Result<Option<usize>, Wait> {
        let mut held = self.held();
        if held <= limit {
            return Ok(keep);
        }
        let mut gone = Vec::new();
        for (i, wanted) in self.eviction_order(queue) {
            if held <= limit {
                break;
            }
            if keep == Some(i) {
                continue;
            }
            if patient && wanted {
                return Err(Wait);
            }
            held -= self.entries[i].tokens.len();
            gone.push(i);
        }
        gone.sort_unstable_by_key(|&i| Reverse(i));
        let mut keep = keep;
        for i in gone {
            self.entries.remove(i);
            keep = keep.map(|k| if k > i { k - 1 } else { k });
        }
        Ok(keep)
    }

    /// Drops entries until at most `limit` tokens are held, as
    /// [`PrefixCache::make_room_keeping`] keeping none.
    pub(crate) fn make_room(
        &mut self,
        limit: usize,
        queue: &[&[u32]],
        patient: bool,
    ) -> Result<(), Wait> {
        self.make_room_keeping(limit, None, queue, patient)
            .map(|_| ())
    }

    /// The cache of the longest reusable prefix of `prompt`, if any, with
    /// room for `room` positions, leaving at most `limit` tokens held
    /// (entries give way as [`PrefixCache::make_room`] says, `queue` and
    /// `patient` included). The entry it came from is handed over (its
    /// buffers become the sequence's, not copied) when `prompt` extends all
    /// of it, as an agent's next turn extends its last (the entry would be
    /// replaced by `prompt` once it finishes), or when it alone is over
    /// `limit`; otherwise the prefix is shared (frozen in the entry, read by
    /// both, see [`KvCache::share`]) and the entry becomes the most recently
    /// used.
    pub(crate) fn take(
        &mut self,
        prompt: &[u32],
        room: usize,
        limit: usize,
        queue: &[&[u32]],
        patient: bool,
    ) -> Result<Option<KvCache>, Wait> {
        let Some((i, n)) = self.best(prompt) else {
            self.make_room(limit, queue, patient)?;
            return Ok(None);
        };
        let len = self.entries[i].tokens.len();
        let extended = common_prefix(&self.entries[i].tokens, prompt) == len;
        if !extended && len <= limit {
            let i = self
                .make_room_keeping(limit, Some(i), queue, patient)?
                .expect("the kept entry");
            let mut entry = self.entries.remove(i).expect("index in range");
            let cache = entry.cache.share(n, room, self.row);
            self.entries.push_back(entry);
            return Ok(Some(cache));
        }
        // Handed over: its tokens leave the cache with it.
        let i = self
            .make_room_keeping(limit + len, Some(i), queue, patient)?
            .expect("the kept entry");
        let entry = self.entries.remove(i).expect("index in range");
        let mut cache = entry.cache;
        cache.truncate(n, self.row);
        cache.reserve(room, self.row);
        Ok(Some(cache))
    }

    /// Keeps a finished sequence's prompt `tokens`, whose keys and values
    /// `cache` holds (followed by the reply's, which are dropped: decoding
    /// computes them by another path, not bit-identical to a prefill), if
    /// it fits in `limit` tokens and the cache's own capacity. Entries it
    /// extends are dropped; others give way only when no waiting request
    /// (of `queue`) resumes from them, since this prompt's own next turn,
    /// if any, will wait behind those.
    pub(crate) fn insert(
        &mut self,
        tokens: Vec<u32>,
        mut cache: KvCache,
        limit: usize,
        queue: &[&[u32]],
    ) {
        let limit = limit.min(self.capacity_tokens.load(Ordering::Relaxed));
        if tokens.len() < MIN_REUSE || tokens.len() > limit || cache.len() < tokens.len() {
            return;
        }
        if let Some(e) = self.entries.iter().position(|e| e.tokens == tokens) {
            let entry = self.entries.remove(e).expect("index from position");
            self.entries.push_back(entry);
            return;
        }
        self.entries
            .retain(|e| common_prefix(&e.tokens, &tokens) < e.tokens.len());
        if self.make_room(limit - tokens.len(), queue, true).is_err() {
            return;
        }
        cache.truncate(tokens.len(), self.row);
        cache.shrink_to_fit();
        self.entries.push_back(Entry { tokens, cache });
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

    /// A cache holding `prompts`, oldest first.
    fn holding(row: usize, prompts: &[&[u32]]) -> PrefixCache {
        let mut pc = PrefixCache::new(budget(1 << 20), row);
        for p in prompts {
            pc.insert(p.to_vec(), cache(p.len(), row), usize::MAX, &[]);
        }
        pc
    }

    /// Conversation `c`'s prompt of `len` tokens.
    fn conversation(c: u32, len: u32) -> Vec<u32> {
        (c * 10_000..c * 10_000 + len).collect()
    }

    /// `prompt` and a few tokens more: its next turn.
    fn next_turn(prompt: &[u32]) -> Vec<u32> {
        prompt.iter().copied().chain(1..40).collect()
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
        let a: Vec<u32> = (0..150).collect();
        let mut b: Vec<u32> = (0..100).collect();
        b.extend(1000..1100);
        let mut pc = holding(row, &[&a, &b]);
        pc.capacity_tokens.store(400, Ordering::Relaxed);
        let mut q: Vec<u32> = (0..140).collect();
        q.push(7);
        assert_eq!(pc.available(&q), 128);
        let got = pc.take(&q, q.len(), usize::MAX, &[], false);
        assert_eq!(got.expect("room").expect("a prefix").len(), 128);
        // `a` was used last, so a third entry pushes out `b`.
        let c: Vec<u32> = (5000..5100).collect();
        pc.insert(c.clone(), cache(100, row), usize::MAX, &[]);
        assert_eq!(pc.available(&q), 128);
        let mut qb = b.clone();
        qb.push(1);
        assert_eq!(pc.available(&qb), 96, "b is gone; a still shares 100");
    }

    #[test]
    fn an_extension_replaces_its_prefix() {
        let row = 2;
        let a: Vec<u32> = (0..100).collect();
        let b: Vec<u32> = (0..300).collect();
        let mut pc = holding(row, &[&a, &b]);
        assert_eq!(pc.entries.len(), 1);
        let too_short: Vec<u32> = (0..10).collect();
        pc.insert(too_short, cache(10, row), usize::MAX, &[]);
        assert_eq!(pc.entries.len(), 1);
    }

    #[test]
    fn a_kept_prompt_drops_the_reply_after_it_and_the_spare_room() {
        let row = 2;
        let mut pc = PrefixCache::new(budget(1000), row);
        let prompt: Vec<u32> = (0..100).collect();
        let mut finished = cache(160, row);
        finished.reserve(400, row);
        pc.insert(prompt, finished, usize::MAX, &[]);
        assert_eq!(pc.held(), 100);
        let kept = &pc.entries[0].cache;
        assert_eq!((kept.len(), kept.room(row)), (100, 100));
    }

    #[test]
    fn a_raised_budget_keeps_one_conversation_per_request() {
        let row = 2;
        let capacity = budget(250);
        let mut pc = PrefixCache::new(Arc::clone(&capacity), row);
        let turn = |c: u32| -> Vec<u32> { (0..100).chain(c * 1000..c * 1000 + 100).collect() };
        for c in 1..=3 {
            pc.insert(turn(c), cache(200, row), usize::MAX, &[]);
        }
        assert_eq!(pc.entries.len(), 1, "250 tokens hold one 200-token prompt");
        capacity.store(600, Ordering::Relaxed);
        for c in 1..=3 {
            pc.insert(turn(c), cache(200, row), usize::MAX, &[]);
        }
        assert_eq!(pc.entries.len(), 3, "600 hold all three");
        let mut next = turn(1);
        next.extend(7..50);
        assert_eq!(pc.available(&next), 192);
    }

    #[test]
    fn a_take_leaves_room_for_its_sequence_evicting_the_least_recent_first() {
        let row = 2;
        let a: Vec<u32> = (0..150).collect();
        let b: Vec<u32> = (500..700).collect();
        let mut pc = holding(row, &[&a, &b]);
        let mut q: Vec<u32> = (0..140).collect();
        q.push(7);
        let got = pc.take(&q, 300, 150, &[], false).expect("room");
        assert_eq!(got.expect("a's prefix").len(), 128);
        assert_eq!(pc.held(), 150, "b went; a, the source, stays");
        // Under a limit a alone exceeds, a's buffers become the sequence's.
        let got = pc.take(&q, 300, 100, &[], false).expect("room");
        let got = got.expect("a's prefix, moved");
        assert_eq!((got.len(), pc.held()), (128, 0));
        assert!(got.room(row) >= 300, "room for the sequence");
        assert!(matches!(pc.take(&q, 300, 0, &[], false), Ok(None)));
    }

    #[test]
    fn a_prompt_that_extends_an_entry_takes_it_over() {
        let row = 2;
        let turn: Vec<u32> = (0..150).collect();
        let mut pc = holding(row, &[&turn]);
        let next: Vec<u32> = (0..230).collect();
        let got = pc.take(&next, 400, usize::MAX, &[], false).expect("room");
        let got = got.expect("the last turn");
        assert_eq!((got.len(), pc.held()), (128, 0), "moved, not copied");
        assert!(got.room(row) >= 400);
    }

    #[test]
    fn room_is_made_from_what_no_waiting_turn_resumes_from_then_from_the_back_of_the_queue() {
        let row = 2;
        let (a, b, c, d) = (
            conversation(1, 100),
            conversation(2, 100),
            conversation(3, 100),
            conversation(4, 100),
        );
        // Least recent first: a, b, c, d. The turns of c, then a, wait.
        let queue = [next_turn(&c), next_turn(&a)];
        let queue: Vec<&[u32]> = queue.iter().map(Vec::as_slice).collect();
        let mut pc = holding(row, &[&a, &b, &c, &d]);
        pc.make_room(300, &queue, false).expect("room");
        assert_eq!(pc.available(queue[1]), 96, "a waits: kept over b");
        assert_eq!(pc.available(&next_turn(&b)), 0, "b: no turn waits");
        pc.make_room(200, &queue, false).expect("room");
        assert_eq!(pc.available(&next_turn(&d)), 0, "d: no turn waits");
        pc.make_room(100, &queue, false).expect("room");
        assert_eq!(pc.available(queue[0]), 96, "c waits in front of a");
        assert_eq!(pc.available(queue[1]), 0);
    }

    #[test]
    fn a_patient_caller_waits_rather_than_drop_a_waiting_turns_prefix() {
        let row = 2;
        let (a, b) = (conversation(1, 100), conversation(2, 100));
        let waiting = next_turn(&a);
        let queue = [waiting.as_slice()];
        let mut pc = holding(row, &[&a, &b]);
        assert_eq!(pc.make_room(50, &queue, true), Err(Wait));
        assert_eq!(pc.held(), 200, "nothing dropped");
        pc.make_room(100, &queue, true)
            .expect("b is not waited for");
        assert_eq!(pc.available(&waiting), 96);
        let newcomer = conversation(3, 200);
        assert!(matches!(
            pc.take(&newcomer, 300, 0, &queue, true),
            Err(Wait)
        ));
        assert_eq!(pc.held(), 100);
        // A finished turn is not kept at a waiting turn's expense.
        pc.insert(conversation(4, 100), cache(100, row), 150, &queue);
        assert_eq!((pc.held(), pc.available(&waiting)), (100, 96));
        pc.insert(conversation(4, 100), cache(100, row), 200, &queue);
        assert_eq!(pc.held(), 200);
    }

    #[test]
    fn an_insert_stays_within_its_limit() {
        let row = 2;
        let mut pc = PrefixCache::new(budget(10_000), row);
        let a: Vec<u32> = (0..150).collect();
        let b: Vec<u32> = (500..700).collect();
        pc.insert(a.clone(), cache(150, row), 100, &[]);
        assert_eq!(pc.held(), 0, "over the limit: not kept");
        pc.insert(a, cache(150, row), 400, &[]);
        pc.insert(b, cache(200, row), 300, &[]);
        assert_eq!(pc.held(), 200, "a went to make room for b");
    }
}
