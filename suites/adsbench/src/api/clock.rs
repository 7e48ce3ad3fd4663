//! The simulated clock the API sees: civil dates and millisecond instants.
//!
//! Everything that depends on "now" (DURING literals, the request limits'
//! refill and midnight reset, page-token expiry) takes a [`SimTime`] from
//! the caller instead of reading a wall clock, so an episode replays to the
//! same bytes. Dates are days since 1970-01-01 in the account's time zone;
//! the civil conversion is Howard Hinnant's `days_from_civil` algorithm,
//! which is exact for the proleptic Gregorian calendar.

use std::fmt;

/// Milliseconds in one simulated day.
pub const MILLIS_PER_DAY: i64 = 86_400_000;

/// A calendar day of the account's time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDate(i32);

/// The day of the week, named as Google's `DayOfWeek` enum names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
    /// Google's enum constant (`MONDAY` ...).
    pub fn name(self) -> &'static str {
        match self {
            Weekday::Monday => "MONDAY",
            Weekday::Tuesday => "TUESDAY",
            Weekday::Wednesday => "WEDNESDAY",
            Weekday::Thursday => "THURSDAY",
            Weekday::Friday => "FRIDAY",
            Weekday::Saturday => "SATURDAY",
            Weekday::Sunday => "SUNDAY",
        }
    }

    /// Days since the Monday that starts the week (Monday = 0).
    pub fn days_from_monday(self) -> i32 {
        self as i32
    }
}

impl SimDate {
    /// The date `year-month-day`, or `None` when it is not a calendar date.
    pub fn from_ymd(year: i32, month: u32, day: u32) -> Option<SimDate> {
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        let y = if month <= 2 { year - 1 } else { year };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (month as i32 + 9) % 12;
        let doy = (153 * mp + 2) / 5 + day as i32 - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        Some(SimDate(era * 146_097 + doe - 719_468))
    }

    /// The date `days` days after 1970-01-01.
    pub fn from_days(days: i32) -> SimDate {
        SimDate(days)
    }

    /// Days since 1970-01-01.
    pub fn days(self) -> i32 {
        self.0
    }

    /// `(year, month, day)`.
    pub fn ymd(self) -> (i32, u32, u32) {
        let z = self.0 + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i32::from(month <= 2);
        (year, month, day)
    }

    /// The date `n` days later (earlier when `n` is negative).
    pub fn add_days(self, n: i32) -> SimDate {
        SimDate(self.0 + n)
    }

    /// The day of the week.
    pub fn weekday(self) -> Weekday {
        // 1970-01-01 was a Thursday (Monday = 0, so Thursday = 3).
        match (self.0 + 3).rem_euclid(7) {
            0 => Weekday::Monday,
            1 => Weekday::Tuesday,
            2 => Weekday::Wednesday,
            3 => Weekday::Thursday,
            4 => Weekday::Friday,
            5 => Weekday::Saturday,
            _ => Weekday::Sunday,
        }
    }

    /// The first day of this date's month.
    pub fn first_of_month(self) -> SimDate {
        let (y, m, _) = self.ymd();
        SimDate::from_ymd(y, m, 1).expect("day 1 exists in every month")
    }

    /// The last day of this date's month.
    pub fn last_of_month(self) -> SimDate {
        let (y, m, _) = self.ymd();
        SimDate::from_ymd(y, m, days_in_month(y, m)).expect("a month's length is a valid day")
    }

    /// Parses Google's date formats: `YYYY-MM-DD` or `YYYYMMDD`.
    pub fn parse(text: &str) -> Option<SimDate> {
        let digits: String = match text.len() {
            10 if text.as_bytes()[4] == b'-' && text.as_bytes()[7] == b'-' => {
                format!("{}{}{}", &text[..4], &text[5..7], &text[8..])
            }
            8 => text.to_string(),
            _ => return None,
        };
        if !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() != 8 {
            return None;
        }
        let year = digits[..4].parse().ok()?;
        let month = digits[4..6].parse().ok()?;
        let day = digits[6..].parse().ok()?;
        SimDate::from_ymd(year, month, day)
    }
}

impl fmt::Display for SimDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, m, d) = self.ymd();
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        _ => 0,
    }
}

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
    pub fn midnight(date: SimDate) -> SimTime {
        SimTime(i64::from(date.days()) * MILLIS_PER_DAY)
    }

    /// `date` at `hour:00`.
    pub fn at_hour(date: SimDate, hour: u32) -> SimTime {
        SimTime::midnight(date).plus_millis(i64::from(hour) * 3_600_000)
    }

    /// Milliseconds since the epoch.
    pub fn millis(self) -> i64 {
        self.0
    }

    /// The calendar day this instant falls on.
    pub fn date(self) -> SimDate {
        SimDate(self.0.div_euclid(MILLIS_PER_DAY) as i32)
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
    fn civil_round_trip_and_weekdays() {
        let d = SimDate::from_ymd(2024, 2, 29).unwrap();
        assert_eq!(d.ymd(), (2024, 2, 29));
        assert_eq!(d.to_string(), "2024-02-29");
        assert_eq!(d.weekday(), Weekday::Thursday);
        assert_eq!(SimDate::from_ymd(1970, 1, 1).unwrap().days(), 0);
        assert_eq!(SimDate::from_ymd(2023, 2, 29), None);
        assert_eq!(d.add_days(1).to_string(), "2024-03-01");
        assert_eq!(d.first_of_month().to_string(), "2024-02-01");
        assert_eq!(d.add_days(-60).last_of_month().to_string(), "2023-12-31");
        for n in -800_000..800_000 {
            let day = SimDate::from_days(n);
            let (y, m, dd) = day.ymd();
            assert_eq!(SimDate::from_ymd(y, m, dd), Some(day));
        }
    }

    #[test]
    fn parses_both_google_formats_only() {
        let d = SimDate::from_ymd(2024, 10, 1);
        assert_eq!(SimDate::parse("2024-10-01"), d);
        assert_eq!(SimDate::parse("20241001"), d);
        assert_eq!(SimDate::parse("2024-13-01"), None);
        assert_eq!(SimDate::parse("2024/10/01"), None);
        assert_eq!(SimDate::parse("24-10-01"), None);
    }

    #[test]
    fn instants_fall_on_their_day() {
        let d = SimDate::from_ymd(2024, 5, 6).unwrap();
        let t = SimTime::at_hour(d, 23).plus_millis(3_599_999);
        assert_eq!(t.date(), d);
        assert_eq!(t.plus_millis(1).date(), d.add_days(1));
        assert_eq!(SimTime::from_millis(-1).date(), SimDate::from_days(-1));
    }
}
