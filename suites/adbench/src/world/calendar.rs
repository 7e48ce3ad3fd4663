//! Civil dates as day numbers, and the calendar effects on delivery
//! (weekday factors, yearly sales peaks). Day numbers keep hashing and
//! range arithmetic cheap; `time` does the civil conversions.

use serde::{Deserialize, Serialize};
use time::{Date, Month};

/// A calendar day, as a Julian day number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Day(pub i32);

impl Day {
    /// The day of a civil date.
    pub fn from_date(d: Date) -> Day {
        Day(d.to_julian_day())
    }

    /// A day from year, month (1-12) and day of month, if valid.
    pub fn ymd(year: i32, month: u8, day: u8) -> Option<Day> {
        let m = Month::try_from(month).ok()?;
        Date::from_calendar_date(year, m, day)
            .ok()
            .map(Day::from_date)
    }

    /// Parses `YYYY-MM-DD`.
    pub fn parse(s: &str) -> Option<Day> {
        let b = s.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let year = s[0..4].parse().ok()?;
        let month = s[5..7].parse().ok()?;
        let day = s[8..10].parse().ok()?;
        Day::ymd(year, month, day)
    }

    /// The civil date.
    pub fn date(self) -> Date {
        Date::from_julian_day(self.0).expect("day numbers come from valid dates")
    }

    /// The day `n` days later (earlier when negative).
    pub fn plus(self, n: i32) -> Day {
        Day(self.0 + n)
    }

    /// Days from `other` to `self`.
    pub fn since(self, other: Day) -> i32 {
        self.0 - other.0
    }

    /// 0 = Monday ... 6 = Sunday.
    pub fn weekday(self) -> usize {
        self.date().weekday().number_days_from_monday() as usize
    }

    /// `YYYY-MM`.
    pub fn month_label(self) -> String {
        let d = self.date();
        format!("{:04}-{:02}", d.year(), u8::from(d.month()))
    }

    /// ISO week, `YYYY-Www`.
    pub fn week_label(self) -> String {
        let (y, w, _) = self.date().to_iso_week_date();
        format!("{y:04}-W{w:02}")
    }

    /// The Monday that starts this day's ISO week.
    pub fn week_start(self) -> Day {
        self.plus(-(self.weekday() as i32))
    }

    /// First day of this day's month.
    pub fn month_start(self) -> Day {
        let d = self.date();
        Day::ymd(d.year(), u8::from(d.month()), 1).expect("first of a valid month")
    }

    /// Day of the year, 1-based.
    pub fn ordinal(self) -> u16 {
        self.date().ordinal()
    }
}

impl std::fmt::Display for Day {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = self.date();
        write!(
            f,
            "{:04}-{:02}-{:02}",
            d.year(),
            u8::from(d.month()),
            d.day()
        )
    }
}

/// Shopping and holiday peaks: (month, day, half-width in days, lift).
/// Double 11 and 618 are the e-commerce peaks; 12.12 and the national day
/// week are smaller. Lifts are scaled per industry by `peak_sensitivity`.
const PEAKS: [(u8, u8, f64, f64); 4] = [
    (11, 11, 6.0, 0.9),
    (6, 18, 5.0, 0.5),
    (12, 12, 3.0, 0.3),
    (10, 3, 4.0, 0.2),
];

/// Multiplier of demand from the yearly peaks, ≥ 1.
pub fn season_factor(day: Day, peak_sensitivity: f64) -> f64 {
    let d = day.date();
    let mut lift = 0.0;
    for (m, dd, width, height) in PEAKS {
        if let Some(center) = Day::ymd(d.year(), m, dd) {
            let x = day.since(center) as f64 / width;
            lift += height * libm::exp(-0.5 * x * x);
        }
    }
    1.0 + peak_sensitivity * lift
}

/// Weekday multipliers (Monday first) for consumer-facing and
/// business-facing demand; industries blend the two.
pub fn weekday_factor(day: Day, weekend_tilt: f64) -> f64 {
    const CONSUMER: [f64; 7] = [0.92, 0.93, 0.95, 0.97, 1.02, 1.12, 1.09];
    const BUSINESS: [f64; 7] = [1.08, 1.09, 1.07, 1.05, 1.0, 0.85, 0.86];
    let w = day.weekday();
    weekend_tilt * CONSUMER[w] + (1.0 - weekend_tilt) * BUSINESS[w]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_labels() {
        let d = Day::parse("2026-11-11").expect("valid");
        assert_eq!(d.to_string(), "2026-11-11");
        assert_eq!(d.month_label(), "2026-11");
        assert_eq!(d.week_label(), "2026-W46");
        assert_eq!(d.weekday(), 2);
        assert_eq!(d.week_start().to_string(), "2026-11-09");
        assert!(Day::parse("2026-02-30").is_none());
        assert!(Day::parse("2026/02/01").is_none());
        assert!(season_factor(d, 1.0) > season_factor(d.plus(40), 1.0) + 0.5);
    }
}
