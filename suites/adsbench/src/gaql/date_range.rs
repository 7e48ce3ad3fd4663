//! Date ranges: DURING's predefined literals, resolved against the
//! simulated "today"; the inclusive spans that date conditions narrow; and
//! the calendar periods of Google's core date segments (date, week, month,
//! quarter, year), each named by its first day (the year by its number).

use crate::market::Date;

/// An inclusive span of days; an open end is unbounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DateSpan {
    /// The first day, if bounded below.
    pub start: Option<Date>,
    /// The last day, if bounded above.
    pub end: Option<Date>,
}

impl DateSpan {
    /// Every day.
    pub const ALL: DateSpan = DateSpan {
        start: None,
        end: None,
    };

    /// `start..=end`.
    pub fn between(start: Date, end: Date) -> DateSpan {
        DateSpan {
            start: Some(start),
            end: Some(end),
        }
    }

    /// Whether `day` is inside.
    pub fn contains(&self, day: Date) -> bool {
        self.start.is_none_or(|s| s <= day) && self.end.is_none_or(|e| day <= e)
    }

    /// The days in both spans.
    pub fn intersect(&self, other: &DateSpan) -> DateSpan {
        DateSpan {
            start: self.start.max(other.start),
            end: match (self.end, other.end) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// Bounded on both sides.
    pub fn is_finite(&self) -> bool {
        self.start.is_some() && self.end.is_some()
    }

    /// Bounded on both sides with the start after the end.
    pub fn is_empty(&self) -> bool {
        matches!((self.start, self.end), (Some(s), Some(e)) if s > e)
    }
}

/// The period a core date segment stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// `segments.date`.
    Day,
    /// `segments.week`: Monday to Sunday, named by its Monday.
    Week,
    /// `segments.month`, named by its first day.
    Month,
    /// `segments.quarter`, named by its first day.
    Quarter,
    /// `segments.year`, an INT64.
    Year,
}

impl Period {
    /// The period of the core date segment `field`, if it is one.
    pub fn of_segment(field: &str) -> Option<Period> {
        Some(match field {
            "segments.date" => Period::Day,
            "segments.week" => Period::Week,
            "segments.month" => Period::Month,
            "segments.quarter" => Period::Quarter,
            "segments.year" => Period::Year,
            _ => return None,
        })
    }

    /// The first day of the period holding `day`.
    pub fn start(self, day: Date) -> Date {
        let first = |month| Date {
            month,
            ..day.first_of_month()
        };
        match self {
            Period::Day => day,
            Period::Week => day.plus_days(-(day.weekday().index() as i64)),
            Period::Month => first(day.month),
            Period::Quarter => first((day.month - 1) / 3 * 3 + 1),
            Period::Year => first(1),
        }
    }

    /// The last day of the period holding `day`.
    pub fn end(self, day: Date) -> Date {
        let start = self.start(day);
        match self {
            Period::Day => day,
            Period::Week => start.plus_days(6),
            Period::Month => start.last_of_month(),
            Period::Quarter => start.plus_days(62).last_of_month(),
            Period::Year => start.plus_days(364).last_of_month(),
        }
    }
}

/// The span a predefined date range literal (`LAST_7_DAYS` ...) covers on
/// `today`, or `None` for a word that is not one. Google's definitions:
/// the "last N days" exclude today; weeks are the previous calendar week.
pub fn during(literal: &str, today: Date) -> Option<DateSpan> {
    let monday = today.plus_days(-(today.weekday().index() as i64));
    let sunday_start = monday.plus_days(-1); // the Sunday that starts a Sun–Sat week
    let this_sunday = if sunday_start.plus_days(7) <= today {
        sunday_start.plus_days(7)
    } else {
        sunday_start
    };
    let last_month_end = today.first_of_month().plus_days(-1);
    let span = match literal {
        "TODAY" => DateSpan::between(today, today),
        "YESTERDAY" => DateSpan::between(today.plus_days(-1), today.plus_days(-1)),
        "LAST_7_DAYS" => DateSpan::between(today.plus_days(-7), today.plus_days(-1)),
        "LAST_14_DAYS" => DateSpan::between(today.plus_days(-14), today.plus_days(-1)),
        "LAST_30_DAYS" => DateSpan::between(today.plus_days(-30), today.plus_days(-1)),
        "THIS_MONTH" => DateSpan::between(today.first_of_month(), today.last_of_month()),
        "LAST_MONTH" => DateSpan::between(last_month_end.first_of_month(), last_month_end),
        "THIS_WEEK_MON_TODAY" => DateSpan::between(monday, today),
        "THIS_WEEK_SUN_TODAY" => DateSpan::between(this_sunday, today),
        "LAST_WEEK_MON_SUN" => DateSpan::between(monday.plus_days(-7), monday.plus_days(-1)),
        "LAST_WEEK_SUN_SAT" => {
            DateSpan::between(this_sunday.plus_days(-7), this_sunday.plus_days(-1))
        }
        "LAST_BUSINESS_WEEK" => DateSpan::between(monday.plus_days(-7), monday.plus_days(-3)),
        _ => return None,
    };
    Some(span)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Date {
        Date::parse_google(s).unwrap()
    }

    fn span(lit: &str, today: &str) -> (String, String) {
        let s = during(lit, d(today)).unwrap();
        (s.start.unwrap().to_string(), s.end.unwrap().to_string())
    }

    #[test]
    fn predefined_ranges_on_a_wednesday() {
        // 2024-03-13 is a Wednesday.
        let t = "2024-03-13";
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(span("TODAY", t), pair("2024-03-13", "2024-03-13"));
        assert_eq!(span("YESTERDAY", t), pair("2024-03-12", "2024-03-12"));
        assert_eq!(span("LAST_7_DAYS", t), pair("2024-03-06", "2024-03-12"));
        assert_eq!(span("LAST_14_DAYS", t), pair("2024-02-28", "2024-03-12"));
        assert_eq!(span("LAST_30_DAYS", t), pair("2024-02-12", "2024-03-12"));
        assert_eq!(span("THIS_MONTH", t), pair("2024-03-01", "2024-03-31"));
        assert_eq!(span("LAST_MONTH", t), pair("2024-02-01", "2024-02-29"));
        assert_eq!(
            span("THIS_WEEK_MON_TODAY", t),
            pair("2024-03-11", "2024-03-13")
        );
        assert_eq!(
            span("THIS_WEEK_SUN_TODAY", t),
            pair("2024-03-10", "2024-03-13")
        );
        assert_eq!(
            span("LAST_WEEK_MON_SUN", t),
            pair("2024-03-04", "2024-03-10")
        );
        assert_eq!(
            span("LAST_WEEK_SUN_SAT", t),
            pair("2024-03-03", "2024-03-09")
        );
        assert_eq!(
            span("LAST_BUSINESS_WEEK", t),
            pair("2024-03-04", "2024-03-08")
        );
        assert_eq!(during("LAST_8_DAYS", d(t)), None);
    }

    #[test]
    fn periods_start_and_end() {
        let day = d("2024-08-15"); // a Thursday
        let se = |p: Period| (p.start(day).to_string(), p.end(day).to_string());
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(se(Period::Day), pair("2024-08-15", "2024-08-15"));
        assert_eq!(se(Period::Week), pair("2024-08-12", "2024-08-18"));
        assert_eq!(se(Period::Month), pair("2024-08-01", "2024-08-31"));
        assert_eq!(se(Period::Quarter), pair("2024-07-01", "2024-09-30"));
        assert_eq!(se(Period::Year), pair("2024-01-01", "2024-12-31"));
        assert_eq!(
            Period::Quarter.end(d("2024-02-10")).to_string(),
            "2024-03-31"
        );
        assert_eq!(Period::of_segment("segments.hour"), None);
    }

    #[test]
    fn weeks_on_their_edges() {
        // A Sunday starts its own Sun–Sat week but ends a Mon–Sun week.
        assert_eq!(
            span("THIS_WEEK_SUN_TODAY", "2024-03-10"),
            ("2024-03-10".into(), "2024-03-10".into())
        );
        assert_eq!(
            span("THIS_WEEK_MON_TODAY", "2024-03-10"),
            ("2024-03-04".into(), "2024-03-10".into())
        );
        let a = DateSpan::between(d("2024-01-01"), d("2024-01-31"));
        let b = DateSpan {
            start: Some(d("2024-01-20")),
            end: None,
        };
        let both = a.intersect(&b);
        assert_eq!(both, DateSpan::between(d("2024-01-20"), d("2024-01-31")));
        assert!(both.contains(d("2024-01-31")) && !both.contains(d("2024-02-01")));
        assert!(DateSpan::between(d("2024-01-02"), d("2024-01-01")).is_empty());
    }
}
