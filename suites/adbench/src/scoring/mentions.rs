//! Numbers as an analyst writes them in an answer: each with its unit or
//! counted noun (`3.94%`, `¥73.21`, `21:00`, `4 accounts`), its minus sign
//! and a direction word next to it ("fell by 3.94%", "55.51% lower"), so
//! the grader can tell the value asked for from the figures around it.
//! Dates are skipped whole.

/// How a number in an answer is written: the unit or noun next to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tag {
    /// `3.94%`, `3.94 percent`.
    Percent,
    /// `0.79 pp`, `0.79 percentage points`.
    Points,
    /// `¥73.21`, `73.21 CNY`, `73.21 yuan`.
    Money,
    /// An hour of the day: `21:00`, `9 pm`, `21 o'clock` (the value is the hour).
    Clock,
    /// `3.3x`, `3.3 times`.
    Times,
    /// A count of something named right after it (`4 accounts`, `7 days`):
    /// the noun, singular and lowercase.
    Noun(String),
    /// Nothing that says what it is.
    Bare,
}

/// A direction given in words next to a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// "fell by", "lower", "decreased", "dropped", "down".
    Down,
    /// "rose by", "higher", "increased", "up".
    Up,
}

/// One number as an analyst wrote it in an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Mention {
    /// The value as written, without its sign (`9 pm` is 21).
    pub magnitude: f64,
    /// What the number is.
    pub tag: Tag,
    /// Written with a minus sign.
    pub minus: bool,
    /// A direction word right before it (`fell by 3.94%`, `down 3.94%`)
    /// or right after it and its unit (`55.51% lower`).
    pub direction: Option<Direction>,
    /// Written with thousands separators (`1,234,567`): never an id.
    pub grouped: bool,
    /// Written without a decimal point.
    pub integer: bool,
}

/// Nouns a count names; a number right before one counts that thing.
/// Plurals are folded to these singulars.
pub const COUNT_NOUNS: &[&str] = &[
    "account",
    "ad",
    "group",
    "adgroup",
    "creative",
    "material",
    "asset",
    "campaign",
    "day",
    "week",
    "month",
    "year",
    "hour",
    "minute",
    "click",
    "valid",
    "conversion",
    "deep",
    "impression",
    "view",
    "user",
    "city",
    "province",
    "region",
    "site",
    "image",
    "video",
    "row",
    "item",
    "entry",
    "keyword",
    "time",
];

const MONTHS: &[&str] = &[
    "jan",
    "january",
    "feb",
    "february",
    "mar",
    "march",
    "apr",
    "april",
    "may",
    "jun",
    "june",
    "jul",
    "july",
    "aug",
    "august",
    "sep",
    "sept",
    "september",
    "oct",
    "october",
    "nov",
    "november",
    "dec",
    "december",
];

const DOWN: &[&str] = &[
    "fell",
    "fall",
    "falls",
    "fallen",
    "drop",
    "drops",
    "dropped",
    "decrease",
    "decreased",
    "decreases",
    "decline",
    "declined",
    "declines",
    "down",
    "lower",
    "less",
    "fewer",
    "lost",
    "shrank",
    "shrunk",
    "reduction",
    "reduced",
    "below",
    "short",
    "cheaper",
];

const UP: &[&str] = &[
    "rose",
    "rise",
    "rises",
    "risen",
    "increase",
    "increased",
    "increases",
    "up",
    "higher",
    "more",
    "grew",
    "grown",
    "growth",
    "gain",
    "gained",
    "jumped",
    "above",
];

/// The singular, lowercase form of `word` when it is a count noun.
pub fn count_noun(word: &str) -> Option<&'static str> {
    let w = word.to_ascii_lowercase();
    let candidates = [
        w.clone(),
        w.strip_suffix("ies")
            .map(|s| format!("{s}y"))
            .unwrap_or_default(),
        w.strip_suffix("es").unwrap_or_default().to_string(),
        w.strip_suffix('s').unwrap_or_default().to_string(),
    ];
    candidates
        .iter()
        .find_map(|c| COUNT_NOUNS.iter().find(|n| *n == c).copied())
}

/// The direction `word` gives a number, if any.
pub fn direction(word: &str) -> Option<Direction> {
    let w = word.to_ascii_lowercase();
    if DOWN.contains(&w.as_str()) {
        Some(Direction::Down)
    } else if UP.contains(&w.as_str()) {
        Some(Direction::Up)
    } else {
        None
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\''
}

/// The word ending at byte `end` (spaces skipped), and where it starts.
fn word_before(text: &str, end: usize) -> (&str, usize) {
    let head = text[..end].trim_end();
    let start = head
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word_char(*c))
        .last()
        .map_or(head.len(), |(i, _)| i);
    (&head[start..], start)
}

/// The word starting at byte `start` (spaces skipped), and where it ends.
fn word_after(text: &str, start: usize) -> (&str, usize) {
    let tail = &text[start..];
    let skip = tail.len() - tail.trim_start().len();
    let from = start + skip;
    let len = text[from..]
        .char_indices()
        .find(|(_, c)| !is_word_char(*c))
        .map_or(text.len() - from, |(i, _)| i);
    (&text[from..from + len], from + len)
}

/// Every number in an answer with what is written around it: its unit or
/// counted noun, a minus or a direction word. Dates (`2026-07-20`,
/// `Jul 20`, `20 July`, `07/20`), ranges written with a hyphen (`0-23`,
/// `24-30`) and the second end of an hour range (`21:00-22:00`) are not
/// numbers of the answer.
pub fn mentions(text: &str) -> Vec<Mention> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // An ASCII digit is always on a character boundary.
        if !b[i].is_ascii_digit()
            || text[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            i += 1;
            continue;
        }
        let start = i;
        let mut s = String::new();
        let mut grouped = false;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_digit() {
                s.push(c as char);
            } else if c == b','
                && !s.contains('.')
                && b.len() >= i + 4
                && b[i + 1..i + 4].iter().all(u8::is_ascii_digit)
                && !b.get(i + 4).is_some_and(u8::is_ascii_digit)
            {
                grouped = true;
            } else if c == b'.' && !s.contains('.') && b.get(i + 1).is_some_and(u8::is_ascii_digit)
            {
                s.push('.');
            } else {
                break;
            }
            i += 1;
        }
        let Ok(magnitude) = s.parse::<f64>() else {
            continue;
        };
        let integer = !s.contains('.');
        // A clock time: the hour, and the end of a range after it skipped.
        if integer && b.get(i) == Some(&b':') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b':') {
                i += 1;
            }
            i = skip_range_end(text, i);
            out.push(Mention {
                magnitude,
                tag: Tag::Clock,
                minus: false,
                direction: None,
                grouped: false,
                integer: true,
            });
            continue;
        }
        // A date or a hyphenated range: skip it whole.
        if integer
            && matches!(b.get(i), Some(b'-') | Some(b'/'))
            && b.get(i + 1).is_some_and(u8::is_ascii_digit)
        {
            while i < b.len() && (b[i].is_ascii_digit() || matches!(b[i], b'-' | b'/' | b':')) {
                i += 1;
            }
            continue;
        }
        // The word before, past a sign or a currency symbol ("fell by ¥20.50").
        let lead_end = text[..start]
            .trim_end_matches(['-', '−', '+'])
            .trim_end()
            .trim_end_matches(['¥', '￥'])
            .len();
        let (before, before_at) = word_before(text, lead_end);
        let (after, after_end) = word_after(text, i);
        let after_lower = after.to_ascii_lowercase();
        if MONTHS.contains(&before.to_ascii_lowercase().as_str())
            || MONTHS.contains(&after_lower.as_str())
        {
            i = skip_range_end(text, i);
            continue;
        }
        // A minus right before the digits, not a hyphen inside a word.
        let head = &text[..start];
        let minus = head.ends_with(['-', '−'])
            && !head[..head.len() - head.chars().next_back().map_or(0, char::len_utf8)]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
        let lead = head.trim_end_matches(['-', '−', '+']).trim_end();
        let rest = text[i..].trim_start();
        let mut unit_end = i;
        let tag = if rest.starts_with('%') {
            unit_end = text.len() - rest.len() + 1;
            Tag::Percent
        } else if lead.ends_with('¥')
            || lead.ends_with('￥')
            || matches!(before.to_ascii_lowercase().as_str(), "cny" | "rmb")
        {
            Tag::Money
        } else {
            unit_end = after_end;
            match after_lower.as_str() {
                "percent" => Tag::Percent,
                "per" if word_after(text, after_end).0.eq_ignore_ascii_case("cent") => {
                    unit_end = word_after(text, after_end).1;
                    Tag::Percent
                }
                "pp" | "pts" | "points" => Tag::Points,
                "percentage" => {
                    unit_end = word_after(text, after_end).1;
                    Tag::Points
                }
                "cny" | "yuan" | "rmb" => Tag::Money,
                "x" | "times" => Tag::Times,
                "o'clock" => Tag::Clock,
                "am" | "pm" if integer && magnitude <= 12.0 => Tag::Clock,
                w => {
                    unit_end = i;
                    match count_noun(w) {
                        Some(n) => Tag::Noun(n.to_string()),
                        None => Tag::Bare,
                    }
                }
            }
        };
        let value = match after_lower.as_str() {
            "pm" if tag == Tag::Clock && magnitude < 12.0 => magnitude + 12.0,
            "am" if tag == Tag::Clock && magnitude == 12.0 => 0.0,
            _ => magnitude,
        };
        // A direction word right before ("fell by 3.94%", "down 3.94%") or
        // right after the number and its unit ("55.51% lower").
        let said_before = match before.to_ascii_lowercase().as_str() {
            "by" | "of" => direction(word_before(text, before_at).0),
            w => direction(w),
        };
        let said_after = direction(word_after(text, unit_end).0);
        out.push(Mention {
            magnitude: value,
            tag,
            minus,
            direction: said_before.or(said_after),
            grouped,
            integer,
        });
    }
    out
}

/// Past a range's second end (`–19`, `-22:00`, ` to 22:00`) starting at `i`.
fn skip_range_end(text: &str, i: usize) -> usize {
    let rest = &text[i..];
    let trimmed = rest.trim_start();
    let after_dash = trimmed
        .strip_prefix(['-', '–', '—'])
        .or_else(|| trimmed.strip_prefix("to "));
    let Some(tail) = after_dash else { return i };
    let tail = tail.trim_start();
    let digits = tail
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == ':'))
        .map_or(tail.len(), |(k, _)| k);
    if digits == 0 {
        return i;
    }
    text.len() - tail.len() + digits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_carry_units_signs_and_skip_dates() {
        let m = mentions(
            "Cost fell by 3.94%, ¥1,234.50 over 4 accounts on Jul 13–19 at 21:00-22:00, -2 pp, 9 pm.",
        );
        let got: Vec<(f64, Tag, bool, Option<Direction>)> = m
            .iter()
            .map(|m| (m.magnitude, m.tag.clone(), m.minus, m.direction))
            .collect();
        assert_eq!(
            got,
            vec![
                (3.94, Tag::Percent, false, Some(Direction::Down)),
                (1234.5, Tag::Money, false, None),
                (4.0, Tag::Noun("account".into()), false, None),
                (21.0, Tag::Clock, false, None),
                (2.0, Tag::Points, true, None),
                (21.0, Tag::Clock, false, None),
            ]
        );
        assert!(m[1].grouped && !m[2].grouped);
        assert_eq!(mentions("55.51% lower")[0].direction, Some(Direction::Down));
        assert_eq!(mentions("fell to 3.94%")[0].direction, None);
        assert!(mentions("on 2026-07-20, ages 24-30, 20 July").is_empty());
    }
}
