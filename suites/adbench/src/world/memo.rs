//! Memoised ad-group day totals. A day total is a pure function of the
//! world, so caching it changes no answer; it makes an episode's repeated
//! reports over the same days (other groupings, other pages, other
//! filters) cost a lookup. Days are computed in 32-day chunks on first
//! touch, so a cold query pays for at most 31 extra days per ad group, not
//! the whole history.

use std::sync::OnceLock;

use super::calendar::Day;
use super::counts::Counts;

/// Days per chunk.
pub const CHUNK: usize = 32;

/// Lazily filled chunks of day totals, one row of chunks per ad group.
#[derive(Debug)]
pub struct DayMemo {
    chunks_per_group: usize,
    cells: Vec<OnceLock<Box<[Counts; CHUNK]>>>,
}

impl DayMemo {
    /// Room for `groups` ad groups over `days` days of history.
    pub fn new(groups: usize, days: usize) -> DayMemo {
        let chunks_per_group = days.div_ceil(CHUNK);
        DayMemo {
            chunks_per_group,
            cells: (0..groups * chunks_per_group)
                .map(|_| OnceLock::new())
                .collect(),
        }
    }

    /// The chunk holding `day` for group `g` (filled with `compute` on first
    /// use) and the day's index in it; None outside the history window.
    pub fn chunk(
        &self,
        g: usize,
        day: Day,
        first: Day,
        compute: impl Fn(Day) -> Counts,
    ) -> Option<(&[Counts; CHUNK], usize)> {
        let offset = usize::try_from(day.since(first)).ok()?;
        let c = offset / CHUNK;
        if c >= self.chunks_per_group {
            return None;
        }
        let cell = self.cells.get(g * self.chunks_per_group + c)?;
        let start = first.plus((c * CHUNK) as i32);
        let chunk =
            cell.get_or_init(|| Box::new(std::array::from_fn(|i| compute(start.plus(i as i32)))));
        Some((chunk, offset % CHUNK))
    }
}
