//! The simulated calendar: real civil dates (so month boundaries and
//! weekdays fall where they do in life) and a clock of 48 ticks a day.
//!
//! [`Date`] and [`Weekday`] are the crate's one calendar: the market counts
//! its days in them and the Ads API (GAQL's date literals, segments and
//! `DURING` ranges) uses the same types. The civil conversion is Howard
//! Hinnant's `days_from_civil`, exact for the proleptic Gregorian calendar.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::error::MarketError;

/// Ticks in a simulated day: half-hour steps.
pub const TICKS_PER_DAY: u32 = 48;

/// A proleptic Gregorian date; fields order chronologically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Date {
    /// The year.
    pub year: i32,
    /// The month, 1..=12.
    pub month: u8,
    /// The day of the month, 1-based.
    pub day: u8,
}

/// The day of the week: Monday = 0 … Sunday = 6 (ISO order, as Google's
/// `DayOfWeek` enum lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Weekday {
    /// Monday.
    Monday,
    /// Tuesday.
    Tuesday,
    /// Wednesday.
    Wednesday,
    /// Thursday.
    Thursday,
    /// Friday.
    Friday,
    /// Saturday.
    Saturday,
    /// Sunday.
    Sunday,
}

impl Weekday {
    /// Days since the Monday that starts the week (Monday = 0).
    pub fn index(self) -> usize {
        self as usize
    }

    fn from_index(i: u32) -> Weekday {
        [
            Weekday::Monday,
            Weekday::Tuesday,
            Weekday::Wednesday,
            Weekday::Thursday,
            Weekday::Friday,
            Weekday::Saturday,
            Weekday::Sunday,
        ][i as usize % 7]
    }
}

/// Whether `year` has a February 29th.
pub fn is_leap(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// Days in `month` (1..=12) of `year`.
pub fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(year) => 29,
        _ => 28,
    }
}

impl Date {
    /// A checked date; the error names the offending field.
    pub fn new(year: i32, month: u8, day: u8) -> Result<Date, MarketError> {
        if !(1..=12).contains(&month) {
            return Err(MarketError::invalid("start_date.month", "must be 1..=12"));
        }
        if day == 0 || day > days_in_month(year, month) {
            return Err(MarketError::invalid(
                "start_date.day",
                format!(
                    "must be 1..={} in {year}-{month:02}",
                    days_in_month(year, month)
                ),
            ));
        }
        Ok(Date { year, month, day })
    }

    /// Parses `YYYY-MM-DD` (the form GAQL's `segments.date` uses).
    pub fn parse(s: &str) -> Result<Date, MarketError> {
        let bad = || MarketError::invalid("date", format!("{s:?} is not YYYY-MM-DD"));
        let mut parts = s.split('-');
        let (Some(y), Some(m), Some(d), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        if y.len() != 4 || m.len() != 2 || d.len() != 2 {
            return Err(bad());
        }
        let year = y.parse().map_err(|_| bad())?;
        let month = m.parse().map_err(|_| bad())?;
        let day = d.parse().map_err(|_| bad())?;
        Date::new(year, month, day)
    }

    /// Parses Google's date formats, `YYYY-MM-DD` or `YYYYMMDD` (digits
    /// only), or `None` when `text` is neither or not a calendar date.
    pub fn parse_google(text: &str) -> Option<Date> {
        let b = text.as_bytes();
        let digits_at = |range: std::ops::Range<usize>| b[range].iter().all(u8::is_ascii_digit);
        match b.len() {
            10 if b[4] == b'-'
                && b[7] == b'-'
                && digits_at(0..4)
                && digits_at(5..7)
                && digits_at(8..10) =>
            {
                Date::parse(text).ok()
            }
            8 if digits_at(0..8) => {
                Date::parse(&format!("{}-{}-{}", &text[..4], &text[4..6], &text[6..])).ok()
            }
            _ => None,
        }
    }

    /// Days since 1970-01-01 (Hinnant's `days_from_civil`).
    pub fn days_since_epoch(self) -> i64 {
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// Inverse of [`Date::days_since_epoch`] (Hinnant's `civil_from_days`).
    pub fn from_days_since_epoch(z: i64) -> Date {
        let z = z + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Date { year, month, day }
    }

    /// The date `n` days later (earlier when `n` is negative).
    pub fn plus_days(self, n: i64) -> Date {
        Date::from_days_since_epoch(self.days_since_epoch() + n)
    }

    /// The day of the week.
    pub fn weekday(self) -> Weekday {
        // 1970-01-01 was a Thursday (index 3).
        Weekday::from_index((self.days_since_epoch() + 3).rem_euclid(7) as u32)
    }

    /// Day of the year, 1-based.
    pub fn ordinal(self) -> u32 {
        (self.days_since_epoch()
            - Date {
                year: self.year,
                month: 1,
                day: 1,
            }
            .days_since_epoch()) as u32
            + 1
    }

    /// Days in this date's month.
    pub fn days_in_month(self) -> u8 {
        days_in_month(self.year, self.month)
    }

    /// Days left in the month counting this one.
    pub fn days_left_in_month(self) -> u8 {
        self.days_in_month() - self.day + 1
    }

    /// Whether `other` falls in this date's month.
    pub fn same_month(self, other: Date) -> bool {
        self.year == other.year && self.month == other.month
    }

    /// The first day of this date's month.
    pub fn first_of_month(self) -> Date {
        Date { day: 1, ..self }
    }

    /// The last day of this date's month.
    pub fn last_of_month(self) -> Date {
        Date {
            day: self.days_in_month(),
            ..self
        }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// A point on the simulated clock: day index into the episode and tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SimTime {
    /// Days since the episode's first day.
    pub day: u32,
    /// The half-hour tick of the day, `0..TICKS_PER_DAY`.
    pub tick: u32,
}

impl SimTime {
    /// Hour of day, 0..24 (two ticks an hour).
    pub fn hour(self) -> u8 {
        (self.tick / 2) as u8
    }

    /// Ticks since the episode started.
    pub fn ordinal(self) -> u64 {
        u64::from(self.day) * u64::from(TICKS_PER_DAY) + u64::from(self.tick)
    }

    /// Inverse of [`SimTime::ordinal`].
    pub fn from_ordinal(t: u64) -> SimTime {
        SimTime {
            day: (t / u64::from(TICKS_PER_DAY)) as u32,
            tick: (t % u64::from(TICKS_PER_DAY)) as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_arithmetic_round_trips_and_knows_real_weekdays() {
        let d = Date::new(2024, 2, 28).unwrap();
        assert_eq!(d.plus_days(1), Date::new(2024, 2, 29).unwrap());
        assert_eq!(d.plus_days(2), Date::new(2024, 3, 1).unwrap());
        assert_eq!(
            Date::new(2025, 12, 31).unwrap().plus_days(1),
            Date::new(2026, 1, 1).unwrap()
        );
        assert_eq!(Date::new(1970, 1, 1).unwrap().days_since_epoch(), 0);
        assert_eq!(Date::new(2000, 3, 1).unwrap().days_since_epoch(), 11_017);
        for z in -1000..100_000 {
            assert_eq!(Date::from_days_since_epoch(z).days_since_epoch(), z);
        }
        assert_eq!(Date::new(2026, 11, 23).unwrap().weekday(), Weekday::Monday);
        assert_eq!(Date::new(2024, 7, 4).unwrap().weekday(), Weekday::Thursday);
        assert_eq!(Date::new(2024, 12, 31).unwrap().ordinal(), 366);
        assert_eq!(Date::new(2023, 4, 10).unwrap().days_left_in_month(), 21);
    }

    #[test]
    fn bad_dates_name_the_field() {
        let e = Date::new(2023, 2, 29).unwrap_err().to_string();
        assert!(e.contains("start_date.day"), "{e}");
        assert!(Date::new(2023, 13, 1)
            .unwrap_err()
            .to_string()
            .contains("month"));
        assert_eq!(Date::parse("2024-02-29").unwrap().to_string(), "2024-02-29");
        assert!(Date::parse("2024-2-29").is_err());
    }

    #[test]
    fn month_ends_stay_in_their_month() {
        let d = Date::new(2024, 2, 29).unwrap();
        assert_eq!(d.first_of_month().to_string(), "2024-02-01");
        assert_eq!(d.plus_days(-60).last_of_month().to_string(), "2023-12-31");
        assert_eq!(Date::new(2023, 2, 3).unwrap().last_of_month().day, 28);
    }

    #[test]
    fn parses_both_google_formats_only() {
        assert_eq!(
            Date::parse_google("2024-10-01"),
            Date::new(2024, 10, 1).ok()
        );
        assert_eq!(Date::parse_google("20241001"), Date::new(2024, 10, 1).ok());
        for bad in [
            "2024-13-01",
            "2024/10/01",
            "24-10-01",
            "+202-10-01",
            "2024-+1-01",
        ] {
            assert_eq!(Date::parse_google(bad), None, "{bad}");
        }
    }

    #[test]
    fn sim_time_orders_and_converts() {
        let t = SimTime { day: 2, tick: 47 };
        assert_eq!(t.hour(), 23);
        assert_eq!(SimTime::from_ordinal(t.ordinal()), t);
        assert!(SimTime { day: 3, tick: 0 } > t);
    }
}
