//! Whether a change's note cites what the agent saw: a note cites an
//! observed metric when it names the metric by a known alias and a number
//! attached to that name equals a value of the metric the agent observed
//! before the change, at the precision the note displays.
//!
//! - Names: an observed field's last segment (`metrics.cost_micros` →
//!   `cost_micros`) is always an alias of itself; known metrics add words
//!   (`cost`, `spend`, `spent` for cost; `cpa`, `cost per conversion` for
//!   cost per conversion; `budget` for a budget's amount ...). Matching is
//!   by whole words, case-insensitive, longest alias first, so `cost per
//!   click` is CPC, not cost. Hyphens and punctuation separate words.
//! - Attached numbers: every number after the name up to the next named
//!   metric or the end of the sentence (`. `, `;`, `!`, `?`, a line
//!   break), and the number just before it (`12 clicks`). A number may
//!   carry a currency sign (`$`, `€`, `£`), thousands commas (`1,234.50`)
//!   and a percent sign.
//! - Values: money fields (`*_micros`, and Google's CPC, CPM and cost per
//!   conversion, which it reports in micros) match as currency (value /
//!   10⁶) or as the raw micros; rates (CTR, conversion rate) match as a
//!   share, or ×100 when the number has a `%`; others match as they are.
//! - Precision: with d decimals in the note, |observed − cited| ≤ ½·10⁻ᵈ
//!   (plus float slack): `41.20` and `41.2` match 41.2, `41` matches
//!   41.2, `41.25` does not.

use serde::{Deserialize, Serialize};

/// A value the agent saw before a change: a field (`metrics.cost_micros`,
/// `campaign_budget.amount_micros`) and its value as the API returned it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    /// The field's name, with or without its resource prefix.
    pub metric: String,
    /// Its value in the API's unit (money in micros).
    pub value: f64,
}

impl Observed {
    /// `metric` seen at `value`.
    pub fn new(metric: impl Into<String>, value: f64) -> Observed {
        Observed {
            metric: metric.into(),
            value,
        }
    }
}

/// What a note cited: the observed metric and value, and the note's text
/// for the number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Citation {
    /// The observed field, as given.
    pub metric: String,
    /// Its observed value.
    pub value: f64,
    /// The number as the note wrote it.
    pub text: String,
}

/// How a field's value is displayed.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Unit {
    /// Micros, displayed as currency.
    Money,
    /// A share, displayed as is or as a percentage.
    Rate,
    /// Displayed as is.
    Plain,
}

/// Known fields (last segment), their unit and their aliases.
const KNOWN: [(&str, Unit, &[&str]); 12] = [
    ("cost_micros", Unit::Money, &["cost", "spend", "spent"]),
    ("clicks", Unit::Plain, &["clicks", "click"]),
    (
        "impressions",
        Unit::Plain,
        &["impressions", "impression", "impr"],
    ),
    (
        "conversions",
        Unit::Plain,
        &["conversions", "conversion", "conv"],
    ),
    (
        "conversions_value",
        Unit::Plain,
        &["conversion value", "conversions value"],
    ),
    ("ctr", Unit::Rate, &["ctr", "click through rate"]),
    (
        "average_cpc",
        Unit::Money,
        &["cpc", "average cpc", "avg cpc", "cost per click"],
    ),
    (
        "average_cpm",
        Unit::Money,
        &["cpm", "average cpm", "avg cpm"],
    ),
    (
        "cost_per_conversion",
        Unit::Money,
        &["cpa", "cost per conversion", "cost per conv"],
    ),
    (
        "conversions_from_interactions_rate",
        Unit::Rate,
        &["conversion rate", "conv rate", "cvr"],
    ),
    (
        "value_per_conversion",
        Unit::Plain,
        &["value per conversion"],
    ),
    ("amount_micros", Unit::Money, &["budget", "daily budget"]),
];

/// A field's last segment, lower case.
fn field(metric: &str) -> String {
    metric
        .rsplit('.')
        .next()
        .unwrap_or(metric)
        .to_ascii_lowercase()
}

fn unit(field: &str) -> Unit {
    KNOWN
        .iter()
        .find(|k| k.0 == field)
        .map(|k| k.1)
        .unwrap_or(if field.ends_with("_micros") {
            Unit::Money
        } else {
            Unit::Plain
        })
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Number {
        value: f64,
        decimals: i32,
        percent: bool,
        text: String,
    },
    Break,
}

/// The note as words, numbers and sentence breaks.
fn tokens(note: &str) -> Vec<Token> {
    let chars: Vec<char> = note.chars().collect();
    let digit = |i: usize| chars.get(i).is_some_and(|c| c.is_ascii_digit());
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let w: String = chars[start..i].iter().collect();
            out.push(Token::Word(w.to_lowercase()));
        } else if c.is_ascii_digit() || (matches!(c, '$' | '€' | '£') && digit(i + 1)) {
            let start = i;
            if !c.is_ascii_digit() {
                i += 1;
            }
            let mut digits = String::new();
            let mut decimals = 0;
            loop {
                while digit(i) {
                    digits.push(chars[i]);
                    i += 1;
                }
                // A thousands comma: exactly three digits follow.
                let three = (1..=3).all(|k| digit(i + k)) && !digit(i + 4);
                if chars.get(i) == Some(&',') && three {
                    i += 1;
                } else {
                    break;
                }
            }
            if chars.get(i) == Some(&'.') && digit(i + 1) {
                digits.push('.');
                i += 1;
                while digit(i) {
                    digits.push(chars[i]);
                    decimals += 1;
                    i += 1;
                }
            }
            let percent = chars.get(i) == Some(&'%');
            if percent {
                i += 1;
            }
            if let Ok(value) = digits.parse() {
                out.push(Token::Number {
                    value,
                    decimals,
                    percent,
                    text: chars[start..i].iter().collect(),
                });
            }
        } else {
            let ends_sentence = matches!(c, ';' | '!' | '?' | '\n')
                || (c == '.' && chars.get(i + 1).is_none_or(|n| n.is_whitespace()));
            if ends_sentence {
                out.push(Token::Break);
            }
            i += 1;
        }
    }
    out
}

/// A named metric in the note: tokens `start..end` name `field`.
struct Mention {
    start: usize,
    end: usize,
    field: String,
}

/// Every alias of a field among `fields`, as words, longest first.
fn aliases(fields: &[String]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for f in fields {
        out.push((f.clone(), vec![f.clone()]));
        if let Some(k) = KNOWN.iter().find(|k| k.0 == f) {
            for a in k.2 {
                out.push((f.clone(), a.split(' ').map(str::to_string).collect()));
            }
        }
    }
    // Known names the agent did not observe still stop an attachment.
    for k in KNOWN {
        for a in k.2 {
            out.push((k.0.to_string(), a.split(' ').map(str::to_string).collect()));
        }
    }
    out.sort_by_key(|a| std::cmp::Reverse(a.1.len()));
    out
}

fn mentions(toks: &[Token], aliases: &[(String, Vec<String>)]) -> Vec<Mention> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let hit = aliases.iter().find(|(_, words)| {
            words
                .iter()
                .enumerate()
                .all(|(k, w)| matches!(toks.get(i + k), Some(Token::Word(t)) if t == w))
        });
        match hit {
            Some((field, words)) => {
                out.push(Mention {
                    start: i,
                    end: i + words.len(),
                    field: field.clone(),
                });
                i += words.len();
            }
            None => i += 1,
        }
    }
    out
}

/// Whether the number as written shows `observed` (in the API's unit).
fn shows(number: &Token, observed: f64, unit: Unit) -> bool {
    let Token::Number {
        value,
        decimals,
        percent,
        ..
    } = number
    else {
        return false;
    };
    let shown: &[f64] = match (unit, percent) {
        (Unit::Money, _) => &[observed / 1e6, observed],
        (Unit::Rate, true) => &[observed * 100.0],
        (Unit::Rate, false) | (Unit::Plain, _) => &[observed],
    };
    let half_step = 0.5 * 10f64.powi(-decimals);
    shown
        .iter()
        .any(|x| (x - value).abs() <= half_step * (1.0 + 1e-9) + 1e-12 * x.abs())
}

/// The first citation in `note` of a value in `observed`, if any.
pub fn cited(note: &str, observed: &[Observed]) -> Option<Citation> {
    let fields: Vec<String> = observed.iter().map(|o| field(&o.metric)).collect();
    let toks = tokens(note);
    let found = mentions(&toks, &aliases(&fields));
    for (n, m) in found.iter().enumerate() {
        let stop = found.get(n + 1).map_or(toks.len(), |next| next.start);
        let after = toks[m.end..stop].iter().take_while(|t| **t != Token::Break);
        let before = m.start.checked_sub(1).map(|b| &toks[b]);
        for number in before.into_iter().chain(after) {
            let Token::Number { text, .. } = number else {
                continue;
            };
            let seen = observed.iter().zip(&fields).filter(|(_, f)| **f == m.field);
            for (o, f) in seen {
                if shows(number, o.value, unit(f)) {
                    return Some(Citation {
                        metric: o.metric.clone(),
                        value: o.value,
                        text: text.clone(),
                    });
                }
            }
        }
    }
    None
}

/// Whether `note` cites a metric in `observed` at its observed value.
pub fn cites_observed(note: &str, observed: &[Observed]) -> bool {
    cited(note, observed).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen() -> Vec<Observed> {
        vec![
            Observed::new("metrics.cost_micros", 41_200_000.0),
            Observed::new("metrics.clicks", 12.0),
            Observed::new("metrics.ctr", 0.0254),
            Observed::new("metrics.average_cpc", 3_433_333.3),
            Observed::new("campaign_budget.amount_micros", 30_000_000.0),
        ]
    }

    #[test]
    fn cost_as_currency_cites_the_observed_micros() {
        let c = cited("cost 41.20 yesterday, lowering bids", &seen()).expect("a citation");
        assert_eq!(c.metric, "metrics.cost_micros");
        assert_eq!(c.value, 41_200_000.0);
        assert_eq!(c.text, "41.20");
        assert!(cites_observed("Spent $41.2 against the plan.", &seen()));
        assert!(cites_observed("cost_micros 41200000", &seen()));
    }

    #[test]
    fn a_wrong_value_cites_nothing() {
        assert!(!cites_observed("cost 41.25 yesterday", &seen()));
        assert!(!cites_observed("clicks 13", &seen()));
        // The right number under the wrong metric is no citation either.
        assert!(!cites_observed("clicks 41.20", &seen()));
    }

    #[test]
    fn an_unobserved_metric_cites_nothing() {
        assert!(!cites_observed("conversions 12", &seen()));
        assert!(!cites_observed("CPA 41.20", &seen()));
        assert!(!cites_observed("cost 41.20", &[]));
    }

    #[test]
    fn a_note_without_a_number_cites_nothing() {
        assert!(!cites_observed("cost was too high, lowering bids", &seen()));
        assert!(!cites_observed("", &seen()));
        assert!(!cites_observed("41.20", &seen()), "a number with no metric");
    }

    #[test]
    fn precision_is_the_notes_own() {
        assert!(cites_observed("cost 41", &seen()));
        assert!(cites_observed("cost 41.2", &seen()));
        assert!(!cites_observed("cost 41.3", &seen()));
        // CPC 3.4333333 displayed at two decimals.
        assert!(cites_observed("avg CPC 3.43, above target", &seen()));
        assert!(!cites_observed("avg CPC 3.44, above target", &seen()));
    }

    #[test]
    fn rates_match_as_shares_or_percentages() {
        assert!(cites_observed("CTR 2.54% is low", &seen()));
        assert!(cites_observed("click-through rate at 0.0254", &seen()));
        assert!(!cites_observed("CTR 2.54 is low", &seen()), "no % sign");
    }

    #[test]
    fn a_number_before_the_name_and_longest_aliases_count() {
        assert!(cites_observed("only 12 clicks today", &seen()));
        // `cost per click` is CPC, so 41.20 is not attached to cost.
        assert!(!cites_observed("cost per click 41.20", &seen()));
        assert!(cites_observed(
            "yesterday spent 20.00 of budget 30.00",
            &seen()
        ));
        assert!(cites_observed("budget $30,000,000", &seen()), "raw micros");
    }

    #[test]
    fn a_sentence_or_another_metric_ends_what_a_name_refers_to() {
        assert!(!cites_observed(
            "cost rose. Then 41.20 was spent elsewhere",
            &seen()
        ));
        assert!(!cites_observed("cost and clicks 41.20", &seen()));
        assert!(cites_observed("cost rose from 38.10 to 41.20", &seen()));
    }

    #[test]
    fn thousands_commas_and_signs_are_read() {
        let t = tokens("€1,234.50; 3.5% x.");
        assert_eq!(
            t,
            [
                Token::Number {
                    value: 1234.5,
                    decimals: 2,
                    percent: false,
                    text: "€1,234.50".into()
                },
                Token::Break,
                Token::Number {
                    value: 3.5,
                    decimals: 1,
                    percent: true,
                    text: "3.5%".into()
                },
                Token::Word("x".into()),
                Token::Break,
            ]
        );
    }
}
