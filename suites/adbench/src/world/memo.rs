//! Memoised ad-group days (totals, and creative × site-set cells). A day
//! is a pure function of the world, so caching it changes no answer; it
//! makes an episode's repeated reports over the same days (other
//! groupings, other pages, other filters) cost a lookup. Days are computed in 16-day chunks on first
//! touch, so a cold query pays for at most 15 extra days per ad group, not
//! the whole history.

use std::sync::OnceLock;

use super::calendar::Day;

/// Days per chunk.
pub const CHUNK: usize = 16;

/// Lazily filled chunks of per-day values, one row of chunks per ad group
/// (or per account).
#[derive(Debug)]
pub struct DayMemo<T> {
    days: usize,
    chunks_per_group: usize,
    cells: Vec<OnceLock<Box<[T; CHUNK]>>>,
}

impl<T: Default> DayMemo<T> {
    /// Room for `groups` ad groups over `days` days of history.
    pub fn new(groups: usize, days: usize) -> DayMemo<T> {
        let chunks_per_group = days.div_ceil(CHUNK);
        let cells = (0..groups * chunks_per_group)
            .map(|_| OnceLock::new())
            .collect();
        DayMemo {
            days,
            chunks_per_group,
            cells,
        }
    }

    /// The chunk holding `day` for group `g` (filled with `compute` on first
    /// use) and the day's index in it; None outside the window of `days`
    /// days from `first`.
    pub fn chunk(
        &self,
        g: usize,
        day: Day,
        first: Day,
        compute: impl Fn(Day) -> T,
    ) -> Option<(&[T; CHUNK], usize)> {
        let offset = usize::try_from(day.since(first))
            .ok()
            .filter(|&o| o < self.days)?;
        let c = offset / CHUNK;
        let cell = self.cells.get(g * self.chunks_per_group + c)?;
        let start = first.plus((c * CHUNK) as i32);
        // Slots past the window's last day are never read; leave them empty.
        let valid = self.days - c * CHUNK;
        let chunk = cell.get_or_init(|| {
            Box::new(std::array::from_fn(|i| {
                if i < valid {
                    compute(start.plus(i as i32))
                } else {
                    T::default()
                }
            }))
        });
        Some((chunk, offset % CHUNK))
    }
}
