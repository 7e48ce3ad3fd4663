//! Keys and values of one sequence, with the positions it shares with other
//! sequences held once.
//!
//! Agent conversations all begin with the same system prompt and tools,
//! thousands of tokens; decoding reads every cached position once per new
//! token, so eight conversations each holding their own copy of that prefix
//! read it eight times per step. A cache here is a chain of frozen
//! [`Part`]s (positions several sequences read, none writes) followed by
//! the sequence's own positions, the only ones it appends to. Sharing a
//! prefix with a new sequence freezes it in place instead of copying it,
//! and decode attention reads a part once for every sequence that begins
//! with it (`attend::attend_shared`).
//!
//! Positions are kept per stream, one stream for each layer and KV head
//! (`[pos][head_dim]`), not per layer with the heads side by side: decode
//! attention works one KV head at a time, and one head's rows read as one
//! dense run of memory rather than picked out of every position's three
//! (docs/performance.md, "One KV head's positions side by side").

use half::f16;
use std::sync::Arc;

/// Positions frozen for sharing, per stream `[pos][head_dim]`.
struct Frozen {
    k: Vec<Vec<f16>>,
    v: Vec<Vec<f16>>,
}

/// The first `len` positions of a frozen block.
#[derive(Clone)]
struct Part {
    frozen: Arc<Frozen>,
    len: usize,
}

/// Keys and values of one sequence, per stream (layer and KV head)
/// `[pos][head_dim]`, in f16 as llama.cpp keeps them: half the bytes of f32, which decoding
/// against thousands of positions reads once per token, and twice the
/// conversations the memory budget holds. A new position is rounded when
/// it is written, before anything attends to it, so a position reads the
/// same whether it was computed now or reused from a cached prefix.
#[derive(Clone)]
pub(crate) struct KvCache {
    /// Positions `0..shared()`, in order.
    parts: Vec<Part>,
    /// The sequence's own positions, `shared()..len`.
    pub(super) k: Vec<Vec<f16>>,
    pub(super) v: Vec<Vec<f16>>,
    pub(super) len: usize,
}

/// One stretch of a cache's positions in one stream: `len` positions of K
/// and V rows.
#[derive(Clone, Copy)]
pub(super) struct Span<'a> {
    pub(super) k: &'a [f16],
    pub(super) v: &'a [f16],
    pub(super) len: usize,
}

impl KvCache {
    /// An empty cache over `streams` streams (layers × KV heads).
    pub(super) fn new(streams: usize) -> KvCache {
        KvCache {
            parts: Vec::new(),
            k: vec![Vec::new(); streams],
            v: vec![Vec::new(); streams],
            len: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Positions held in frozen parts, read by other sequences too.
    fn shared(&self) -> usize {
        self.parts.iter().map(|p| p.len).sum()
    }

    /// The frozen block the cache begins with (its address, as identity)
    /// and the positions it gives, none when the cache holds only its own:
    /// caches that begin with the same block read the same memory for
    /// those positions.
    pub(super) fn first_part(&self) -> Option<(usize, usize)> {
        self.parts
            .first()
            .map(|p| (Arc::as_ptr(&p.frozen) as usize, p.len))
    }

    /// Stream `si`'s stretches of positions, in order, `row` floats each:
    /// the frozen parts, then every own position written.
    pub(super) fn spans(&self, si: usize, row: usize) -> Vec<Span<'_>> {
        let mut spans: Vec<Span<'_>> = self
            .parts
            .iter()
            .map(|p| Span {
                k: &p.frozen.k[si][..p.len * row],
                v: &p.frozen.v[si][..p.len * row],
                len: p.len,
            })
            .collect();
        // What is written, which during a forward pass includes the new
        // tokens' positions before `len` counts them.
        spans.push(Span {
            k: &self.k[si],
            v: &self.v[si],
            len: self.k[si].len() / row,
        });
        spans
    }

    /// Forgets everything after `len` tokens (closed-choice scoring reuses the
    /// prompt's cache for each option).
    pub(crate) fn truncate(&mut self, len: usize, row: usize) {
        if len >= self.len {
            return;
        }
        let shared = self.shared();
        let own = len.saturating_sub(shared);
        for l in self.k.iter_mut().chain(self.v.iter_mut()) {
            l.truncate(own * row);
        }
        if len < shared {
            let mut left = len;
            self.parts.retain_mut(|p| {
                p.len = p.len.min(left);
                left -= p.len;
                p.len > 0
            });
        }
        self.len = len;
    }

    /// A cache of `len` positions over `streams` streams, each position's
    /// values its index (for tests of code that moves caches around).
    #[cfg(test)]
    pub(crate) fn filled(streams: usize, len: usize, row: usize) -> KvCache {
        let stream: Vec<f16> = (0..len * row)
            .map(|i| f16::from_f32((i / row) as f32))
            .collect();
        KvCache {
            parts: Vec::new(),
            k: vec![stream.clone(); streams],
            v: vec![stream; streams],
            len,
        }
    }

    /// Stream `si`'s keys of every position, in order (for tests).
    #[cfg(test)]
    pub(crate) fn keys(&self, si: usize, row: usize) -> Vec<f16> {
        let spans = self.spans(si, row);
        spans
            .iter()
            .flat_map(|s| s.k[..s.len * row].to_vec())
            .collect()
    }

    /// Positions each stream has room for without reallocating.
    #[cfg(test)]
    pub(crate) fn room(&self, row: usize) -> usize {
        self.shared()
            + self
                .k
                .iter()
                .chain(&self.v)
                .map(|l| l.capacity() / row)
                .min()
                .unwrap_or(0)
    }

    /// Makes room for `positions` in all, at once: grown by doubling, a
    /// sequence's streams hold up to twice what they use and leave the
    /// outgrown buffers to the allocator (the agent bench peaked at twice
    /// the RSS it reaches with this).
    pub(crate) fn reserve(&mut self, positions: usize, row: usize) {
        let want = positions.saturating_sub(self.shared()) * row;
        for l in self.k.iter_mut().chain(self.v.iter_mut()) {
            l.reserve_exact(want.saturating_sub(l.len()));
        }
    }

    /// Gives back the room past the positions held (a kept prompt then
    /// costs what the budget counts for it).
    pub(crate) fn shrink_to_fit(&mut self) {
        for l in self.k.iter_mut().chain(self.v.iter_mut()) {
            l.shrink_to_fit();
        }
    }

    /// A cache whose first `len` positions are this one's, with room for
    /// `room` in all (a sequence resuming from it then never reallocates).
    /// The positions are not copied but shared: own positions among them
    /// are frozen first, in place, so both caches read the same memory.
    pub(crate) fn share(&mut self, len: usize, room: usize, row: usize) -> KvCache {
        let len = len.min(self.len);
        let shared = self.shared();
        if len > shared {
            let m = (len - shared) * row;
            let freeze = |streams: &mut Vec<Vec<f16>>| -> Vec<Vec<f16>> {
                streams
                    .iter_mut()
                    .map(|l| {
                        // The rest keeps the room left after it.
                        let mut rest = Vec::with_capacity(l.capacity() - m);
                        rest.extend_from_slice(&l[m..]);
                        let mut front = std::mem::replace(l, rest);
                        front.truncate(m);
                        front.shrink_to_fit();
                        front
                    })
                    .collect()
            };
            let frozen = Frozen {
                k: freeze(&mut self.k),
                v: freeze(&mut self.v),
            };
            self.parts.push(Part {
                frozen: Arc::new(frozen),
                len: len - shared,
            });
        }
        let mut cache = KvCache {
            parts: self.parts.clone(),
            len: self.shared(),
            ..KvCache::new(self.k.len())
        };
        cache.truncate(len, row);
        cache.reserve(room.max(len), row);
        cache
    }
}

#[cfg(test)]
mod tests {
    use super::KvCache;

    #[test]
    fn a_reserved_cache_holds_exactly_its_positions() {
        let row = 3;
        let mut cache = KvCache::filled(2, 10, row);
        cache.reserve(25, row);
        for stream in cache.k.iter().chain(&cache.v) {
            assert_eq!(stream.capacity(), 25 * row, "room for 25, not doubled");
            assert_eq!(stream.len(), 10 * row, "nothing written");
        }
        cache.reserve(5, row);
        assert_eq!(cache.k[0].capacity(), 25 * row, "never shrinks");
    }

    #[test]
    fn a_shared_prefix_reads_the_same_positions_without_a_copy() {
        let row = 3;
        let mut cache = KvCache::filled(2, 10, row);
        cache.reserve(25, row);
        let before = cache.keys(1, row);
        let resumed = cache.share(4, 25, row);
        assert_eq!(resumed.len(), 4);
        assert_eq!(resumed.room(row), 25, "a prefix comes with room");
        assert_eq!(
            resumed.keys(1, row),
            before[..4 * row],
            "its first positions"
        );
        assert_eq!(cache.keys(1, row), before, "the source reads as before");
        assert_eq!(cache.room(row), 25, "and keeps its room");
        assert_eq!(
            resumed.first_part(),
            cache.first_part(),
            "both begin with the same memory"
        );
        // Sharing less of it again freezes nothing new.
        let shorter = cache.share(2, 8, row);
        assert_eq!(
            shorter.first_part().map(|p| p.0),
            cache.first_part().map(|p| p.0)
        );
        assert_eq!(shorter.keys(0, row), before[..2 * row]);
        // Sharing more freezes the next stretch after the first.
        let longer = cache.share(7, 12, row);
        assert_eq!(longer.keys(0, row), before[..7 * row]);
        assert_eq!(cache.keys(0, row), before);
    }

    #[test]
    fn truncating_into_the_shared_part_keeps_its_first_positions() {
        let row = 2;
        let mut cache = KvCache::filled(1, 12, row);
        let before = cache.keys(0, row);
        let mut resumed = cache.share(8, 12, row);
        resumed.k[0].extend_from_slice(&before[8 * row..]);
        resumed.v[0].extend_from_slice(&before[8 * row..]);
        resumed.len = 12;
        resumed.truncate(5, row);
        assert_eq!(resumed.len(), 5);
        assert_eq!(resumed.keys(0, row), before[..5 * row]);
        assert_eq!(resumed.spans(0, row).last().map(|s| s.len), Some(0));
    }
}
