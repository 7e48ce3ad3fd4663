//! The simulated clock the API sees: millisecond instants over the
//! market's civil [`Date`]s.
//!
//! Everything that depends on "now" (DURING literals, the request limits'
//! refill and midnight reset, page-token expiry) takes a [`SimTime`] from
//! the caller instead of reading a wall clock, so an episode replays to the
//! same bytes. Days count from 1970-01-01 in the account's time zone.

use crate::market::Date;

/// Milliseconds in one simulated day.
pub const MILLIS_PER_DAY: i64 = 86_400_000;

/// An instant of the simulation: milliseconds since 1970-01-01T00:00 in the
/// account's time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(i64);

impl SimTime {
    /// The instant `millis` milliseconds after the epoch.
    pub fn from_millis(millis: i64) -> SimTime {
        SimTime(millis)
    }

    /// Midnight at the start of `date`.
    pub fn midnight(date: Date) -> SimTime {
        SimTime(date.days_since_epoch() * MILLIS_PER_DAY)
    }

    /// `date` at `hour:00`.
    pub fn at_hour(date: Date, hour: u32) -> SimTime {
        SimTime::midnight(date).plus_millis(i64::from(hour) * 3_600_000)
    }

    /// Milliseconds since the epoch.
    pub fn millis(self) -> i64 {
        self.0
    }

    /// The calendar day this instant falls on.
    pub fn date(self) -> Date {
        Date::from_days_since_epoch(self.0.div_euclid(MILLIS_PER_DAY))
    }

    /// The instant `millis` later.
    pub fn plus_millis(self, millis: i64) -> SimTime {
        SimTime(self.0 + millis)
    }

    /// Milliseconds from `earlier` to `self` (negative when `earlier` is later).
    pub fn millis_since(self, earlier: SimTime) -> i64 {
        self.0 - earlier.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_fall_on_their_day() {
        let d = Date::new(2024, 5, 6).unwrap();
        let t = SimTime::at_hour(d, 23).plus_millis(3_599_999);
        assert_eq!(t.date(), d);
        assert_eq!(t.plus_millis(1).date(), d.plus_days(1));
        assert_eq!(
            SimTime::from_millis(-1).date(),
            Date::from_days_since_epoch(-1)
        );
    }
}
