//! Grading a final answer by the task's spec, against the reference answer
//! from replay, reading it as an analyst would.
//!
//! - **Signs.** A number counts with its sign: a minus, or a direction
//!   word next to it ("fell by 3.94%", "55.51% lower", "decreased by",
//!   "dropped", "down"). Where the question itself asks for a fall ("fall
//!   short of", only fall words), a fall word agrees with it and a rise
//!   word turns the sign.
//! - **Units.** A number is a candidate when written in the answer's unit
//!   ([`AnswerSpec::unit`]): a percent answer reads `%` figures (bare ones
//!   only when none is written; with `fraction`, bare ones as fractions),
//!   a CNY answer money figures (bare ones only when none is written), an
//!   hour clock times and bare numbers, a count bare numbers and counts of
//!   what the question asks "how many" of (`4 accounts` is not a count of
//!   clicks). Dates are never candidates.
//! - **Context.** Numbers the question states and the user's ids (what
//!   the account list showed) are context, not answers: they are dropped
//!   from the candidates unless they are the reference value. An id list
//!   drops the user's ids only when the reference has none of them (when
//!   the reference is accounts, accounts are the candidates). Choices the
//!   question names are context too.
//! - **One value.** An answer to a one-value question must state one
//!   value: equal to the reference after rounding to 2 decimals (or within
//!   the task's `tolerance`). Stated with one or two other candidate
//!   values, the answer is ambiguous to the rules: they take the value
//!   stated first (for a change or a difference, the one value stated with
//!   a direction, when there is exactly one) and flag the grade ambiguous,
//!   for an optional LLM grader to decide. With three or more others, or
//!   naming every choice or every account of the user, it is a list and
//!   wrong. An id list of several ids is right when the set of ids is the
//!   reference's; stated with one or two extra ids it is wrong and
//!   ambiguous.
//! - **Choices** match without regard to case, as their name or display
//!   label (`FEMALE`, "female"; `SITE_SET_TENCENT_VIDEO`, "Tencent
//!   Video"); the longest label wins ("WeChat Moments" names only
//!   `SITE_SET_MOMENTS`). Yes/no reads the first yes or no word; a text
//!   answer (a single name in the shipped tasks) is graded as named.

use std::collections::BTreeSet;

use serde::Serialize;

use super::mentions::{count_noun, direction, mentions, Direction, Mention, Tag};
use crate::replay::answer::round2;
use crate::replay::Answer;
use crate::tasks::{AnswerSpec, Unit};
use crate::tools::spec::GET_USER_ACCOUNT_LIST;
use crate::tools::{Observation, Outcome};

/// Smallest number read as an id: smaller numbers in an answer are
/// counts, hours or money, not ids (the platform's ids have 6+ digits).
pub const MIN_ID: f64 = 100_000.0;

/// Other candidate values past which an answer is a list, not an answer.
const MAX_OTHERS: usize = 2;

/// The verdict on one answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Grade {
    /// Matches the reference.
    Correct,
    /// Does not.
    Wrong,
}

/// The rules' verdict and whether the answer was ambiguous to them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Graded {
    /// The rules' grade: the score by default.
    pub grade: Grade,
    /// The answer states the reference beside a conflicting candidate, so
    /// the grade rests on which it meant; an LLM grader may decide.
    pub ambiguous: bool,
}

impl Graded {
    fn clear(correct: bool) -> Graded {
        Graded {
            grade: if correct {
                Grade::Correct
            } else {
                Grade::Wrong
            },
            ambiguous: false,
        }
    }
}

/// What the agent was given besides the answer's data: the question and
/// the user's ids.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Context {
    question: String,
    /// The user's ids: its own and its accounts'.
    ids: BTreeSet<u64>,
    /// Its accounts' ids.
    accounts: BTreeSet<u64>,
    /// Numbers the question states.
    numbers: Vec<f64>,
    /// Nouns of the question's "how many ...".
    how_many: Vec<&'static str>,
    /// The question asks for a fall, in words of falling only.
    asks_fall: bool,
    /// The question asks for a change or a difference.
    asks_change: bool,
}

impl Context {
    /// The question and the user's account ids.
    pub fn new(question: &str, accounts: impl IntoIterator<Item = u64>) -> Context {
        let accounts: BTreeSet<u64> = accounts.into_iter().collect();
        let lower = question.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !(c.is_alphanumeric() || c == '\''))
            .filter(|w| !w.is_empty())
            .collect();
        let dirs: Vec<Direction> = words.iter().filter_map(|w| direction(w)).collect();
        let how_many = words
            .windows(2)
            .position(|w| w == ["how", "many"])
            .map(|at| {
                const SKIP: &[&str] = &["of", "my", "the", "your", "last", "currently", "active"];
                words[at + 2..]
                    .iter()
                    .skip_while(|w| SKIP.contains(w) || w.chars().all(|c| c.is_ascii_digit()))
                    .map_while(|w| count_noun(w))
                    .collect()
            })
            .unwrap_or_default();
        Context {
            question: question.to_string(),
            ids: accounts.clone(),
            accounts,
            numbers: mentions(question).iter().map(|m| m.magnitude).collect(),
            how_many,
            // A question that states its sign convention ("negative if cost
            // fell") asks for a signed change, not for the size of a fall.
            asks_fall: !dirs.is_empty()
                && dirs.iter().all(|d| *d == Direction::Down)
                && ![
                    "negative if",
                    "negative when",
                    "positive if",
                    "positive when",
                ]
                .iter()
                .any(|w| lower.contains(w)),
            asks_change: ["change", "differ", "higher or lower", "minus", "compare"]
                .iter()
                .any(|w| lower.contains(w)),
        }
    }

    /// The question and the ids the account lists among `observations`
    /// showed (the user's id and its accounts' ids).
    pub fn of<'a>(question: &str, observations: impl IntoIterator<Item = &'a Observation>) -> Self {
        let mut ids = Vec::new();
        let mut accounts = Vec::new();
        for o in observations
            .into_iter()
            .filter(|o| o.tool == GET_USER_ACCOUNT_LIST && o.ok())
        {
            let v: serde_json::Value = serde_json::from_str(&o.text).unwrap_or_default();
            ids.extend(v["user_id"].as_u64());
            let rows = v["rows"].as_array().into_iter().flatten();
            accounts.extend(rows.filter_map(|r| r["Account ID"].as_u64()));
        }
        let mut cx = Context::new(question, accounts);
        cx.ids.extend(ids);
        cx
    }
}

fn bool_word(text: &str) -> Option<bool> {
    let lower = text.to_ascii_lowercase();
    lower
        .split(|c: char| !c.is_ascii_alphabetic())
        .find_map(|w| match w {
            "yes" | "true" => Some(true),
            "no" | "false" => Some(false),
            _ => None,
        })
}

/// Lowercase, underscores as spaces, dashes as hyphens: how choices and
/// answers are compared.
fn normal(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .map(|c| match c {
            '_' => ' ',
            '–' | '—' | '−' => '-',
            c => c,
        })
        .collect()
}

/// A choice's name and display labels, normalised: `SITE_SET_TENCENT_VIDEO`
/// is also "tencent video", `24-30` also "24 to 30".
fn labels(choice: &str) -> Vec<String> {
    let name = normal(choice);
    let mut out = vec![name.clone()];
    if let Some(rest) = name.strip_prefix("site set ") {
        out.push(rest.to_string());
        match rest {
            "moments" => out.push("wechat moments".into()),
            "wechat" => out.push("wechat official accounts".into()),
            _ => {}
        }
    }
    if let Some((a, b)) = name.split_once('-') {
        out.push(format!("{a} to {b}"));
    }
    out
}

/// Indices of the choices `text` names, in order of first mention: at
/// each place the longest label found there wins, as a whole word.
fn named(text: &str, choices: &[String]) -> Vec<usize> {
    let text = normal(text);
    let inner = |c: char| c.is_alphanumeric() || c == '-';
    let mut hits: Vec<(usize, usize, usize)> = Vec::new(); // start, end, choice
    for (k, c) in choices.iter().enumerate() {
        for label in labels(c) {
            for (i, _) in text.match_indices(&label) {
                let end = i + label.len();
                let before = text[..i].chars().next_back();
                let after = text[end..].chars().next();
                if !before.is_some_and(inner) && !after.is_some_and(inner) {
                    hits.push((i, end, k));
                }
            }
        }
    }
    hits.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut out = Vec::new();
    let mut covered = 0;
    for (start, end, k) in hits {
        if start < covered {
            continue;
        }
        covered = end;
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// True when `text` names `choice` as a whole word (FEMALE does not name MALE).
fn names(text: &str, choice: &str) -> bool {
    let inner = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    text.match_indices(choice).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + choice.len()..].chars().next();
        !before.is_some_and(inner) && !after.is_some_and(inner)
    })
}

/// The verdict on distinct candidates, in the order stated, `chosen`
/// being the one the rules take when several are stated.
fn decide(distinct: usize, right: Option<usize>, chosen: usize) -> Graded {
    match right {
        None => Graded::clear(false),
        Some(_) if distinct == 1 => Graded::clear(true),
        Some(at) if distinct <= 1 + MAX_OTHERS => Graded {
            grade: if at == chosen {
                Grade::Correct
            } else {
                Grade::Wrong
            },
            ambiguous: true,
        },
        Some(_) => Graded::clear(false),
    }
}

/// The value `m` states, with its sign.
fn signed(m: &Mention, cx: &Context) -> f64 {
    let v = m.magnitude;
    if m.minus {
        return -v;
    }
    match (m.direction, cx.asks_fall) {
        (Some(Direction::Down), false) | (Some(Direction::Up), true) => -v,
        _ => v,
    }
}

fn number(spec: &AnswerSpec, r: f64, text: &str, cx: &Context) -> Graded {
    let same = |a: f64, b: f64| match spec.tolerance {
        Some(t) => (a - b).abs() <= t + 1e-9,
        None => round2(a) == round2(b),
    };
    let counted = |t: &Tag| matches!(t, Tag::Noun(n) if cx.how_many.contains(&n.as_str()));
    // Groups of tags in order of preference: the first group the answer
    // writes anything in gives the candidates.
    let groups: Vec<fn(&Tag) -> bool> = match spec.unit() {
        Some(Unit::Percent) => vec![|t| *t == Tag::Percent, |t| *t == Tag::Bare],
        Some(Unit::Points) => vec![|t| matches!(t, Tag::Points | Tag::Percent), |t| {
            *t == Tag::Bare
        }],
        Some(Unit::Cny) => vec![|t| *t == Tag::Money, |t| *t == Tag::Bare],
        Some(Unit::Hour) => vec![|t| matches!(t, Tag::Clock | Tag::Bare)],
        Some(Unit::Count) => vec![|t| *t == Tag::Bare],
        None => vec![|t| !matches!(t, Tag::Noun(_))],
    };
    let all = mentions(text);
    let mut stated: Vec<&Mention> = Vec::new();
    for g in &groups {
        stated = all
            .iter()
            .filter(|m| g(&m.tag) || counted(&m.tag))
            .collect();
        if stated.iter().any(|m| !counted(&m.tag)) {
            break;
        }
    }
    let as_fraction = spec.fraction && !all.iter().any(|m| m.tag == Tag::Percent);
    let context = |v: f64| {
        cx.numbers.iter().any(|c| same(*c, v.abs()))
            || (v.fract() == 0.0 && v >= 0.0 && cx.ids.contains(&(v as u64)))
    };
    let mut distinct: Vec<(f64, bool)> = Vec::new(); // value, stated with a direction
    for m in stated {
        let mut v = signed(m, cx);
        if as_fraction && m.tag == Tag::Bare {
            v *= 100.0;
        }
        if context(v) && !same(v, r) {
            continue;
        }
        let directed = m.minus || m.direction.is_some();
        match distinct.iter_mut().find(|(d, _)| same(*d, v)) {
            Some(d) => d.1 |= directed,
            None => distinct.push((v, directed)),
        }
    }
    let directed: Vec<usize> = (0..distinct.len()).filter(|i| distinct[*i].1).collect();
    let chosen = match directed.as_slice() {
        [one] if cx.asks_change => *one,
        _ => 0,
    };
    let right = distinct.iter().position(|(d, _)| same(*d, r));
    decide(distinct.len(), right, chosen)
}

fn id_list(ids: &[u64], text: &str, cx: &Context) -> Graded {
    let reference_has_context = ids.iter().any(|i| cx.ids.contains(i));
    let mut stated: Vec<u64> = Vec::new();
    for m in mentions(text) {
        let id = m.integer && !m.grouped && !m.minus && m.magnitude >= MIN_ID && m.tag == Tag::Bare;
        let v = m.magnitude as u64;
        if id && !stated.contains(&v) && (reference_has_context || !cx.ids.contains(&v)) {
            stated.push(v);
        }
    }
    let mut set = stated.clone();
    set.sort_unstable();
    if set == ids {
        return Graded::clear(true);
    }
    if reference_has_context
        && cx.accounts.len() > 1
        && cx.accounts.iter().all(|a| stated.contains(a))
    {
        return Graded::clear(false); // every account the user has
    }
    match ids {
        [one] => decide(stated.len(), stated.iter().position(|s| s == one), 0),
        _ => Graded {
            grade: Grade::Wrong,
            ambiguous: !ids.is_empty()
                && ids.iter().all(|i| stated.contains(i))
                && stated.len() - ids.len() <= MAX_OTHERS,
        },
    }
}

fn choice(spec: &AnswerSpec, c: &str, text: &str, cx: &Context) -> Graded {
    let in_question = named(&cx.question, &spec.choices);
    let stated: Vec<usize> = named(text, &spec.choices)
        .into_iter()
        .filter(|k| spec.choices[*k] == c || !in_question.contains(k))
        .collect();
    if stated.len() > 1 && stated.len() == spec.choices.len() {
        return Graded::clear(false); // every choice named
    }
    let right = stated.iter().position(|k| spec.choices[*k] == c);
    decide(stated.len(), right, 0)
}

/// Grades `final_text` (and the outcome the agent declared) against the
/// reference, by the rules in the module doc. A task expecting Unresolved
/// is correct when the agent says Unresolved; a Resolved task needs a
/// Resolved outcome and the answer.
pub fn grade(
    spec: Option<&AnswerSpec>,
    reference: Option<&Answer>,
    expected: Outcome,
    outcome: Option<Outcome>,
    final_text: &str,
    context: &Context,
) -> Graded {
    if outcome != Some(expected) {
        return Graded::clear(false);
    }
    let (Some(spec), Some(reference)) = (spec, reference) else {
        return Graded::clear(true); // Unresolved, as expected
    };
    match reference {
        Answer::Number(r) => number(spec, *r, final_text, context),
        Answer::IdList(ids) => id_list(ids, final_text, context),
        Answer::Bool(b) => Graded::clear(bool_word(final_text) == Some(*b)),
        Answer::Choice(c) => choice(spec, c, final_text, context),
        // The shipped text answers are single names (a city): graded as
        // named, ignoring case.
        Answer::Text(t) => Graded::clear(names(&final_text.to_lowercase(), &t.to_lowercase())),
    }
}
