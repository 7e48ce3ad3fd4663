//! Grading a task: each predicate on the account's end state and the
//! KPIs the market measured, the change set against the scope (collateral
//! damage), and the diagnosis against the accepted causes. A task passes
//! when every predicate holds, nothing out of scope was changed, and, for
//! an analysis task, the diagnosis names an accepted cause.
//!
//! Status predicates read `PAUSED` as "serves nothing": a removed
//! campaign, ad group or keyword satisfies it too (whether removing was
//! allowed is the scope's business). A KPI without a denominator (CPA
//! without conversions, ROAS without spend) fails its predicate.

use super::super::change_log::Change;
use super::run::Episode;
use super::scope::{collateral, Touch};
use super::task::{Cause, Metric, Predicate, PredicateKind, Task};
use crate::market::{Account, Date, Keyword, Market, MetricRow, Status};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The verdict on one task's episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskVerdict {
    /// Each predicate's name and whether it held, in file order.
    pub predicates: Vec<(String, bool)>,
    /// The committed operations outside the task's scope.
    pub collateral: Vec<Change>,
    /// Whether the diagnosis named an accepted cause; `None` when the
    /// task grades no diagnosis.
    pub diagnosis_correct: Option<bool>,
    /// Every predicate held, no collateral damage, the diagnosis right.
    pub passed: bool,
    /// The diagnosis the agent gave, on a task that asks for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<String>,
}

impl Episode {
    /// This episode graded against `task`.
    pub fn grade(&self, task: &Task) -> TaskVerdict {
        grade(task, &self.market, &self.changes, self.diagnosis.as_deref())
    }
}

/// Grades the end state `market`, the agent's `changes` and its
/// `diagnosis` against `task`.
pub fn grade(
    task: &Task,
    market: &Market,
    changes: &[Change],
    diagnosis: Option<&str>,
) -> TaskVerdict {
    let predicates: Vec<(String, bool)> = task
        .predicates
        .iter()
        .map(|p| (name(task, p), holds(task, market, p)))
        .collect();
    let rules: Vec<Touch> = task
        .scope
        .iter()
        .filter_map(|s| Touch::parse(s).ok())
        .collect();
    let collateral = collateral(changes, &rules, market.account());
    let diagnosis_correct = task.diagnosis.as_ref().map(|d| {
        diagnosis
            .and_then(Cause::parse)
            .is_some_and(|c| d.accepted().contains(&c))
    });
    let passed = predicates.iter().all(|(_, held)| *held)
        && collateral.is_empty()
        && diagnosis_correct != Some(false);
    TaskVerdict {
        predicates,
        collateral,
        diagnosis_correct,
        passed,
        diagnosis: task.diagnosis.as_ref().and(diagnosis).map(str::to_string),
    }
}

/// The predicate's name: its own, else one made from its fields.
fn name(task: &Task, p: &Predicate) -> String {
    if let Some(n) = &p.name {
        return n.clone();
    }
    let what = p
        .campaign
        .as_deref()
        .or(p.ad_group.as_deref())
        .or(p.keyword.as_deref())
        .unwrap_or("account");
    let bounds = |lo: Option<f64>, hi: Option<f64>| match (lo, hi) {
        (Some(lo), Some(hi)) => format!(" in [{lo}, {hi}]"),
        (Some(lo), None) => format!(" >= {lo}"),
        (None, Some(hi)) => format!(" <= {hi}"),
        (None, None) => String::new(),
    };
    let micros = |m: Option<i64>| m.map(|m| m as f64 / 1e6);
    match p.kind {
        PredicateKind::CampaignStatus
        | PredicateKind::KeywordStatus
        | PredicateKind::AdGroupStatus => {
            format!("{what} {}", p.status.as_deref().unwrap_or_default())
        }
        PredicateKind::KeywordBid => format!(
            "bid of {what}{}",
            bounds(micros(p.min_micros), micros(p.max_micros))
        ),
        PredicateKind::Budget => format!(
            "budget of {what}{}",
            bounds(micros(p.min_micros), micros(p.max_micros))
        ),
        PredicateKind::Keywords => format!("enabled keywords of {what}{}", bounds(p.min, None)),
        PredicateKind::NegativeKeyword => format!("negative keyword {what}"),
        PredicateKind::Kpi => format!(
            "{:?} of {what}{}",
            p.metric.unwrap_or(Metric::Spend),
            bounds(p.min, p.max)
        )
        .to_lowercase(),
        PredicateKind::Objective => {
            let (_, ceiling) = task.objective.kind.metric();
            format!(
                "objective {:?} {} {}",
                task.objective.kind,
                if ceiling { "<=" } else { ">=" },
                task.objective.target
            )
            .to_lowercase()
        }
    }
}

fn status_holds(actual: Status, wanted: &str) -> bool {
    actual.as_str() == wanted || (wanted == "PAUSED" && actual == Status::Removed)
}

fn named(pattern: &str, name: &str) -> bool {
    pattern == "*" || pattern == name
}

fn positive_keywords<'a>(account: &'a Account, text: &'a str) -> impl Iterator<Item = &'a Keyword> {
    account
        .keywords
        .iter()
        .filter(move |k| !k.negative && named(text, &k.text))
}

fn within<T: PartialOrd>(x: T, lo: Option<T>, hi: Option<T>) -> bool {
    lo.is_none_or(|lo| x >= lo) && hi.is_none_or(|hi| x <= hi)
}

fn all_nonempty<T>(mut items: impl Iterator<Item = T>, ok: impl Fn(T) -> bool) -> bool {
    let mut any = false;
    let all = items.all(|x| {
        any = true;
        ok(x)
    });
    any && all
}

/// Whether `p` holds on `market`.
fn holds(task: &Task, market: &Market, p: &Predicate) -> bool {
    let account = market.account();
    let status = p.status.as_deref().unwrap_or_default();
    match p.kind {
        PredicateKind::CampaignStatus => {
            let pattern = p.campaign.as_deref().unwrap_or("*");
            all_nonempty(
                account.campaigns.iter().filter(|c| named(pattern, &c.name)),
                |c| status_holds(c.status, status),
            )
        }
        PredicateKind::AdGroupStatus => {
            let pattern = p.ad_group.as_deref().unwrap_or("*");
            all_nonempty(
                account.ad_groups.iter().filter(|g| named(pattern, &g.name)),
                |g| status_holds(g.status, status),
            )
        }
        PredicateKind::KeywordStatus => all_nonempty(
            positive_keywords(account, p.keyword.as_deref().unwrap_or("*")),
            |k| status_holds(k.status, status),
        ),
        PredicateKind::KeywordBid => all_nonempty(
            positive_keywords(account, p.keyword.as_deref().unwrap_or("*"))
                .filter(|k| k.status == Status::Enabled),
            |k| within(account.effective_cpc_micros(k), p.min_micros, p.max_micros),
        ),
        PredicateKind::Budget => {
            let pattern = p.campaign.as_deref().unwrap_or("*");
            let budget: i64 = account
                .campaigns
                .iter()
                .filter(|c| named(pattern, &c.name))
                .filter(|c| pattern != "*" || c.status == Status::Enabled)
                .map(|c| c.daily_budget_micros)
                .sum();
            within(budget, p.min_micros, p.max_micros)
        }
        PredicateKind::Keywords => {
            let groups = ad_groups_of(account, p.campaign.as_deref().unwrap_or("*"));
            let n = positive_keywords(account, "*")
                .filter(|k| k.status == Status::Enabled && groups.contains(&k.ad_group_id))
                .count();
            within(n as f64, p.min, None)
        }
        PredicateKind::NegativeKeyword => account.keywords.iter().any(|k| {
            k.negative
                && k.status == Status::Enabled
                && Some(k.text.as_str()) == p.keyword.as_deref()
        }),
        PredicateKind::Kpi => {
            let metric = p.metric.unwrap_or(Metric::Spend);
            kpi(task, market, p, metric).is_some_and(|x| within(x, p.min, p.max))
        }
        PredicateKind::Objective => {
            let (metric, ceiling) = task.objective.kind.metric();
            let target = task.objective.target;
            let whole = Predicate {
                kind: PredicateKind::Kpi,
                name: None,
                campaign: None,
                ad_group: None,
                keyword: None,
                status: None,
                metric: Some(metric),
                min: None,
                max: None,
                min_micros: None,
                max_micros: None,
                from: None,
                to: None,
            };
            kpi(task, market, &whole, metric).is_some_and(|x| {
                if ceiling {
                    x <= target
                } else {
                    x >= target
                }
            })
        }
    }
}

fn ad_groups_of(account: &Account, campaign: &str) -> BTreeSet<u64> {
    let campaigns: BTreeSet<u64> = account
        .campaigns
        .iter()
        .filter(|c| named(campaign, &c.name))
        .map(|c| c.id)
        .collect();
    account
        .ad_groups
        .iter()
        .filter(|g| campaigns.contains(&g.campaign_id))
        .map(|g| g.id)
        .collect()
}

/// The KPI `metric` of `p`'s campaign or keyword (the account's when
/// neither) over its dates (the agent's days by default).
pub fn kpi(task: &Task, market: &Market, p: &Predicate, metric: Metric) -> Option<f64> {
    let (first, last) = task.agent_dates().ok()?;
    let from = p.from.as_deref().map_or(Ok(first), Date::parse).ok()?;
    let to = p.to.as_deref().map_or(Ok(last), Date::parse).ok()?;
    let account = market.account();
    let campaigns: Option<BTreeSet<u64>> = p.campaign.as_deref().map(|name| {
        account
            .campaigns
            .iter()
            .filter(|c| named(name, &c.name))
            .map(|c| c.id)
            .collect()
    });
    let keywords: Option<BTreeSet<u64>> = p
        .keyword
        .as_deref()
        .map(|text| positive_keywords(account, text).map(|k| k.id).collect());
    let mut total = MetricRow::default();
    for (k, r) in market.metrics().rows() {
        let keep = k.date >= from
            && k.date <= to
            && campaigns
                .as_ref()
                .is_none_or(|c| c.contains(&k.campaign_id))
            && keywords
                .as_ref()
                .is_none_or(|w| w.contains(&k.criterion_id));
        if keep {
            total += *r;
        }
    }
    let money = |m: i64| m as f64 / 1e6;
    match metric {
        Metric::Spend => Some(money(total.cost_micros)),
        Metric::Impressions => Some(total.impressions as f64),
        Metric::Clicks => Some(total.clicks as f64),
        Metric::Conversions => Some(total.conversions),
        Metric::Value => Some(money(total.conversions_value_micros)),
        Metric::Cpa => {
            (total.conversions > 0.0).then(|| money(total.cost_micros) / total.conversions)
        }
        Metric::Roas => (total.cost_micros > 0)
            .then(|| total.conversions_value_micros as f64 / total.cost_micros as f64),
    }
}
