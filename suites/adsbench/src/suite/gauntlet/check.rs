//! A parsed task's checks: ranges, what each `kind` needs, names that
//! exist, factors the market can show, an oracle inside the scope. The
//! first problem is returned as (field, message); the loader finds the
//! field's line.

use super::super::agents::CADENCES;
use super::check_steps::{oracle, predicates};
use super::scope::Touch;
use super::task::{Dynamic, EventKind, Modality, Start, Task};
use crate::market::traffic::{seasonal, Traffic};
use crate::market::MatchType;
use std::collections::BTreeSet;

/// Longest agent horizon, days.
pub const MAX_DAYS: u32 = 14;
/// Longest warm-up, days.
pub const MAX_WARMUP_DAYS: u32 = 7;
/// Most searches a day a task may simulate: keeps each episode under a
/// second in a debug build.
pub const MAX_OPPORTUNITIES: f64 = 20_000.0;

pub(super) type Problem = (String, String);

pub(super) fn bad<T>(field: impl Into<String>, message: impl Into<String>) -> Result<T, Problem> {
    Err((field.into(), message.into()))
}

pub(super) fn status_ok(s: &str, removed: bool) -> bool {
    matches!(s, "ENABLED" | "PAUSED") || (removed && s == "REMOVED")
}

pub(super) fn match_type(s: &str) -> Option<MatchType> {
    MatchType::parse("match", &s.to_uppercase()).ok()
}

/// Checks `task` whole.
///
/// # Errors
/// The first field at fault and why.
pub fn check(task: &Task) -> Result<(), Problem> {
    if task.id.trim().is_empty() {
        return bad("id", "must not be empty");
    }
    if task.brief.trim().is_empty() {
        return bad("brief", "must say what the advertiser wants");
    }
    if !(task.objective.target.is_finite() && task.objective.target > 0.0) {
        return bad("objective.target", "must be a number > 0");
    }
    scenario(task)?;
    account(task)?;
    let rules = scope(task)?;
    events(task)?;
    predicates(task)?;
    diagnosis(task)?;
    oracle(task, &rules)?;
    super::attack::check(task)?;
    if task.needs_action && task.oracle.is_empty() && task.diagnosis.is_none() {
        return bad(
            "needs_action",
            "a task that needs action has oracle steps or a diagnosis",
        );
    }
    if !task.needs_action && (!task.oracle.is_empty() || task.modality == Modality::Analysis) {
        return bad(
            "needs_action",
            "false means doing nothing passes: no oracle steps, and not an analysis task",
        );
    }
    if task.predicates.is_empty() && task.modality != Modality::Analysis {
        return bad("predicate", "a planning or control task needs predicates");
    }
    Ok(())
}

fn scenario(task: &Task) -> Result<(), Problem> {
    let s = &task.scenario;
    task.start_date()
        .or_else(|e| bad("scenario.start_date", e))?;
    if !(1..=MAX_DAYS).contains(&s.days) {
        return bad(
            "scenario.days",
            format!("must be 1..={MAX_DAYS}, got {}", s.days),
        );
    }
    if !CADENCES.contains(&s.cadence) {
        return bad(
            "scenario.cadence",
            format!("must be one of {CADENCES:?}, got {}", s.cadence),
        );
    }
    if !(10_000..=1_000_000_000_000).contains(&s.budget_micros) {
        return bad("scenario.budget_micros", "must be 10000..=1e12");
    }
    if !(s.opportunities_per_day >= 100.0 && s.opportunities_per_day <= MAX_OPPORTUNITIES) {
        return bad(
            "scenario.opportunities_per_day",
            format!("must be in [100, {MAX_OPPORTUNITIES}]"),
        );
    }
    let names = ["gsp", "first-price", "vcg"];
    if !names.contains(&s.mechanism.as_str()) {
        return bad("scenario.mechanism", "must be gsp, first-price or vcg");
    }
    if s.warmup_days > MAX_WARMUP_DAYS {
        return bad(
            "scenario.warmup_days",
            format!("must be 0..={MAX_WARMUP_DAYS}"),
        );
    }
    match (task.start, s.warmup_days) {
        (Start::Cold, 0) => Ok(()),
        (Start::Cold, _) => bad("scenario.warmup_days", "a cold start has no warm-up"),
        (Start::Warm, 0) => bad("scenario.warmup_days", "a warm start has warm-up days"),
        (Start::Warm, _) => Ok(()),
    }
}

fn account(task: &Task) -> Result<(), Problem> {
    let campaigns = &task.account.campaigns;
    if campaigns.is_empty() {
        return bad("account.campaigns", "the account has a campaign at least");
    }
    let mut names = BTreeSet::new();
    let mut groups = BTreeSet::new();
    let mut total: i64 = 0;
    for (i, c) in campaigns.iter().enumerate() {
        let f = |k: &str| format!("account.campaigns[{i}].{k}");
        if c.name.trim().is_empty() || c.name.contains(['.', ':']) || !names.insert(&c.name) {
            return bad(f("name"), "must be unique, not blank, without . or :");
        }
        if !groups.insert(c.ad_group_name()) || c.ad_group_name().contains(['.', ':']) {
            return bad(f("ad_group"), "must be unique, without . or :");
        }
        if !status_ok(&c.status, false) {
            return bad(f("status"), "must be ENABLED or PAUSED");
        }
        if c.ad_group_bid_micros <= 0 {
            return bad(f("ad_group_bid_micros"), "must be > 0");
        }
        let budget = match (c.budget_micros, campaigns.len()) {
            (Some(b), _) => b,
            (None, 1) => task.scenario.budget_micros,
            (None, _) => return bad(f("budget_micros"), "required with several campaigns"),
        };
        if budget < 10_000 {
            return bad(f("budget_micros"), "must be >= 10000");
        }
        total += budget;
        for (j, k) in c.keywords.iter().enumerate() {
            let f = |x: &str| format!("account.campaigns[{i}].keywords[{j}].{x}");
            if k.text.trim().is_empty() || k.text.contains(['.', ':']) {
                return bad(f("text"), "must not be blank, nor hold . or :");
            }
            if match_type(&k.match_type).is_none() {
                return bad(f("match"), "must be broad, phrase or exact");
            }
            if k.bid_micros.is_some_and(|b| b <= 0) || (k.negative && k.bid_micros.is_some()) {
                return bad(f("bid_micros"), "must be > 0, and absent on a negative");
            }
            if !status_ok(&k.status, false) {
                return bad(f("status"), "must be ENABLED or PAUSED");
            }
        }
        for (j, a) in c.ads().iter().enumerate() {
            let f = |x: &str| format!("account.campaigns[{i}].ads[{j}].{x}");
            // The market's field names (`ad_group_ad.ad...`) end in the
            // spec's own, so the message names the spec's field.
            if let Err(e) = a.copy().check() {
                let field = match e.to_string() {
                    m if m.contains("headlines") => "headlines",
                    m if m.contains("descriptions") => "descriptions",
                    _ => "final_url",
                };
                return bad(f(field), e.to_string());
            }
            if !status_ok(&a.status, false) {
                return bad(f("status"), "must be ENABLED or PAUSED");
            }
            if a.disapproved
                .as_ref()
                .is_some_and(|d| d.topic.trim().is_empty() || d.message.trim().is_empty())
            {
                return bad(f("disapproved"), "needs a topic and a message");
            }
        }
    }
    if total != task.scenario.budget_micros {
        return bad(
            "scenario.budget_micros",
            format!("must be the campaigns' budgets summed, {total}"),
        );
    }
    Ok(())
}

fn scope(task: &Task) -> Result<Vec<Touch>, Problem> {
    task.scope
        .iter()
        .enumerate()
        .map(|(i, s)| Touch::parse(s).or_else(|e| bad(format!("scope[{i}]"), e)))
        .collect()
}

pub(super) fn has_keyword(task: &Task, text: &str) -> bool {
    text == "*"
        || task
            .account
            .campaigns
            .iter()
            .any(|c| c.keywords.iter().any(|k| k.text == text))
        || task.oracle.iter().any(|o| o.text.as_deref() == Some(text))
}

pub(super) fn has_campaign(task: &Task, name: &str) -> bool {
    name == "*" || task.account.campaigns.iter().any(|c| c.name == name)
}

pub(super) fn has_ad_group(task: &Task, name: &str) -> bool {
    task.account
        .campaigns
        .iter()
        .any(|c| c.ad_group_name() == name)
}

fn events(task: &Task) -> Result<(), Problem> {
    let vertical = task.vertical.market();
    let mut seen = BTreeSet::new();
    for (i, e) in task.events.iter().enumerate() {
        let f = |k: &str| format!("event[{i}].{k}");
        let Some(at) = task.time_of(&e.at) else {
            return bad(
                f("at"),
                "must be YYYY-MM-DDTHH:MM on a half hour within the market's days",
            );
        };
        seen.insert(e.kind.dynamic());
        let needs = |name: &str, present: bool, wanted: bool| -> Result<(), Problem> {
            match (present, wanted) {
                (false, true) => bad(f(name), format!("a {:?} event needs it", e.kind)),
                (true, false) => bad(f(name), format!("not a field of a {:?} event", e.kind)),
                _ => Ok(()),
            }
        };
        let k = e.kind;
        needs(
            "bot_searches",
            e.bot_searches.is_some(),
            k == EventKind::InvalidTraffic,
        )?;
        needs(
            "budget_micros",
            e.budget_micros.is_some(),
            matches!(k, EventKind::BudgetChange | EventKind::CompetitorEntering),
        )?;
        needs(
            "bid_micros",
            e.bid_micros.is_some(),
            k == EventKind::CompetitorEntering,
        )?;
        needs(
            "ad_group",
            e.ad_group.is_some(),
            k == EventKind::DisapprovedAd,
        )?;
        needs("keyword", e.keyword.is_some(), k == EventKind::StockChange)?;
        if e.bot_searches.is_some_and(|b| !(1..=100).contains(&b)) {
            return bad(f("bot_searches"), "must be 1..=100");
        }
        if e.budget_micros
            .is_some_and(|b| !(10_000..=1_000_000_000_000).contains(&b))
        {
            return bad(f("budget_micros"), "must be 10000..=1e12");
        }
        if e.bid_micros.is_some_and(|b| b <= 0) {
            return bad(f("bid_micros"), "must be > 0");
        }
        if e.ad_group
            .as_deref()
            .is_some_and(|g| !has_ad_group(task, g))
        {
            return bad(f("ad_group"), "no ad group of the account has that name");
        }
        if e.keyword.as_deref().is_some_and(|t| !has_keyword(task, t)) {
            return bad(f("keyword"), "no keyword of the account has that text");
        }
        let midnight = matches!(k, EventKind::CompetitorEntering | EventKind::Promotion);
        if midnight && (at.tick != 0 || at.day == 0) {
            return bad(f("at"), "happens at 00:00 of a day after the first");
        }
        if k == EventKind::Promotion {
            let date = task.date_of(at.day).or_else(|m| bad(f("at"), m))?;
            let traffic = Traffic::new(task.scenario.seed, task.scenario.opportunities_per_day);
            let start = traffic.promotion_start(vertical, date);
            if start != date.day {
                return bad(
                    f("at"),
                    format!(
                        "the market's promotion of this vertical that month starts on day {start}"
                    ),
                );
            }
        }
    }
    let mut listed = BTreeSet::new();
    for d in &task.dynamics {
        if !listed.insert(*d) {
            return bad("dynamics", format!("{d:?} listed twice"));
        }
    }
    if let Some(d) = seen.iter().find(|d| !listed.contains(d)) {
        return bad("dynamics", format!("an event is {d:?}: list it"));
    }
    for d in &listed {
        if *d == Dynamic::Seasonality {
            let start = task
                .market_start()
                .or_else(|m| bad("scenario.start_date", m))?;
            let seasonal_day = (0..task.market_days())
                .any(|i| seasonal(vertical, start.plus_days(i64::from(i))) != 1.0);
            if !seasonal_day {
                return bad(
                    "dynamics",
                    "seasonality: no day of the episode is in season",
                );
            }
        } else if !seen.contains(d) {
            return bad("dynamics", format!("{d:?} is listed but no event is one"));
        }
    }
    Ok(())
}

fn diagnosis(task: &Task) -> Result<(), Problem> {
    match (&task.diagnosis, task.modality) {
        (None, Modality::Analysis) => bad("diagnosis", "an analysis task grades a diagnosis"),
        (Some(_), m) if m != Modality::Analysis => {
            bad("diagnosis", "only analysis tasks grade a diagnosis")
        }
        (Some(d), _) => {
            if !d.accepted().contains(&d.cause) {
                return bad("diagnosis.accepted", "must accept the injected cause");
            }
            if let Some(kind) = d.cause.event() {
                if !task.events.iter().any(|e| e.kind == kind) {
                    return bad(
                        "diagnosis.cause",
                        format!(
                            "{} is injected by a {kind:?} event: add one",
                            d.cause.name()
                        ),
                    );
                }
            }
            Ok(())
        }
        (None, _) => Ok(()),
    }
}
