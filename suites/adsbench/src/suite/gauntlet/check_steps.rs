//! The checks of a task's graded and scripted parts: each predicate's
//! fields for its kind, names that exist, bounds and dates; each oracle
//! step's time, fields and target, inside the task's scope.

use super::check::{bad, has_ad_group, has_campaign, has_keyword, match_type, status_ok, Problem};
use super::facts::parse_at;
use super::scope::{Kind, Touch};
use super::task::{OracleOp, PredicateKind, SetValue, Task};

pub(super) fn predicates(task: &Task) -> Result<(), Problem> {
    for (i, p) in task.predicates.iter().enumerate() {
        let f = |k: &str| format!("predicate[{i}].{k}");
        use PredicateKind as K;
        let k = p.kind;
        let fields: [(&str, bool, bool); 11] = [
            (
                "campaign",
                p.campaign.is_some(),
                matches!(k, K::CampaignStatus | K::Budget | K::Keywords | K::Kpi),
            ),
            ("ad_group", p.ad_group.is_some(), k == K::AdGroupStatus),
            (
                "keyword",
                p.keyword.is_some(),
                matches!(
                    k,
                    K::KeywordStatus | K::KeywordBid | K::NegativeKeyword | K::Kpi
                ),
            ),
            (
                "status",
                p.status.is_some(),
                matches!(k, K::CampaignStatus | K::KeywordStatus | K::AdGroupStatus),
            ),
            ("metric", p.metric.is_some(), k == K::Kpi),
            ("min", p.min.is_some(), matches!(k, K::Kpi | K::Keywords)),
            ("max", p.max.is_some(), k == K::Kpi),
            (
                "min_micros",
                p.min_micros.is_some(),
                matches!(k, K::KeywordBid | K::Budget),
            ),
            (
                "max_micros",
                p.max_micros.is_some(),
                matches!(k, K::KeywordBid | K::Budget),
            ),
            ("from", p.from.is_some(), k == K::Kpi),
            ("to", p.to.is_some(), k == K::Kpi),
        ];
        if let Some((name, _, _)) = fields.iter().find(|(_, set, allowed)| *set && !allowed) {
            return bad(f(name), format!("not a field of a {k:?} predicate"));
        }
        let required: &[(&str, bool)] = match k {
            K::CampaignStatus => &[
                ("campaign", p.campaign.is_some()),
                ("status", p.status.is_some()),
            ],
            K::KeywordStatus => &[
                ("keyword", p.keyword.is_some()),
                ("status", p.status.is_some()),
            ],
            K::AdGroupStatus => &[
                ("ad_group", p.ad_group.is_some()),
                ("status", p.status.is_some()),
            ],
            K::KeywordBid => &[("keyword", p.keyword.is_some())],
            K::Budget => &[("campaign", p.campaign.is_some())],
            K::Keywords => &[("min", p.min.is_some())],
            K::NegativeKeyword => &[("keyword", p.keyword.is_some())],
            K::Kpi => &[("metric", p.metric.is_some())],
            K::Objective => &[],
        };
        if let Some((name, _)) = required.iter().find(|(_, set)| !set) {
            return bad(f(name), format!("a {k:?} predicate needs it"));
        }
        if p.status.as_deref().is_some_and(|s| !status_ok(s, true)) {
            return bad(f("status"), "must be ENABLED, PAUSED or REMOVED");
        }
        if p.campaign
            .as_deref()
            .is_some_and(|c| !has_campaign(task, c))
        {
            return bad(f("campaign"), "no campaign of the account has that name");
        }
        if p.ad_group
            .as_deref()
            .is_some_and(|g| !has_ad_group(task, g))
        {
            return bad(f("ad_group"), "no ad group of the account has that name");
        }
        if p.keyword.as_deref().is_some_and(|t| !has_keyword(task, t)) {
            return bad(
                f("keyword"),
                "no keyword of the account or the oracle has that text",
            );
        }
        if (k == K::Kpi || k == K::KeywordBid || k == K::Budget)
            && p.min.is_none()
            && p.max.is_none()
            && p.min_micros.is_none()
            && p.max_micros.is_none()
        {
            return bad(f("max"), "a bound, min or max, is needed");
        }
        if let (Some(lo), Some(hi)) = (p.min, p.max) {
            if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                return bad(f("max"), "min <= max, both finite");
            }
        }
        if let (Some(lo), Some(hi)) = (p.min_micros, p.max_micros) {
            if lo > hi {
                return bad(f("max_micros"), "min_micros <= max_micros");
            }
        }
        if p.campaign.is_some() && p.keyword.is_some() {
            return bad(
                f("keyword"),
                "a KPI of a campaign or of a keyword, not both",
            );
        }
        let (first, last) = task
            .agent_dates()
            .or_else(|m| bad("scenario.start_date", m))?;
        let start = task
            .market_start()
            .or_else(|m| bad("scenario.start_date", m))?;
        for (name, d) in [("from", &p.from), ("to", &p.to)] {
            if let Some(d) = d {
                let date =
                    crate::market::Date::parse(d).or_else(|e| bad(f(name), e.to_string()))?;
                if date < start || date > last {
                    return bad(f(name), format!("must be a day from {start} to {last}"));
                }
            }
        }
        let _ = first;
    }
    Ok(())
}

pub(super) fn oracle(task: &Task, rules: &[Touch]) -> Result<(), Problem> {
    let agent = task.agent_start();
    for (i, o) in task.oracle.iter().enumerate() {
        let f = |k: &str| format!("oracle[{i}].{k}");
        match task.time_of(&o.at) {
            Some(t) if t >= agent => {}
            _ => {
                if parse_at(&o.at).is_none() {
                    return bad(f("at"), "must be YYYY-MM-DDTHH:MM on a half hour");
                }
                return bad(f("at"), "must fall within the agent's days");
            }
        }
        let touch = match o.op {
            OracleOp::Set => {
                if o.ad_group.is_some() || o.text.is_some() || o.match_type.is_some() {
                    return bad(f("op"), "set takes target and value only");
                }
                let target = o
                    .target
                    .as_deref()
                    .ok_or(())
                    .or_else(|()| bad(f("target"), "set needs a target"))?;
                let t = Touch::parse(target).or_else(|e| bad(f("target"), e))?;
                let value = o
                    .value
                    .as_ref()
                    .ok_or(())
                    .or_else(|()| bad(f("value"), "set needs a value"))?;
                let ok = match (t.field.as_str(), value) {
                    ("status", SetValue::Text(s)) => status_ok(s, false),
                    ("cpc_bid_micros" | "amount_micros", SetValue::Micros(m)) => *m > 0,
                    _ => false,
                };
                if !ok {
                    return bad(
                        f("value"),
                        "a status (ENABLED, PAUSED) or micros > 0 for the field",
                    );
                }
                let exists = match t.kind {
                    Kind::Campaign | Kind::Budget => has_campaign(task, &t.name),
                    Kind::AdGroup | Kind::Ad => has_ad_group(task, &t.name),
                    Kind::Keyword => has_keyword(task, &t.name),
                };
                if !exists || t.name == "*" || t.field == "*" {
                    return bad(f("target"), "must name one existing resource and one field");
                }
                t
            }
            OracleOp::CreateKeyword | OracleOp::CreateNegative => {
                if o.target.is_some() || o.value.is_some() {
                    return bad(
                        f("op"),
                        "a create takes ad_group, text, match (and bid_micros)",
                    );
                }
                let group = o.ad_group.as_deref().unwrap_or_default();
                if !has_ad_group(task, group) {
                    return bad(f("ad_group"), "no ad group of the account has that name");
                }
                let text = o.text.as_deref().unwrap_or_default();
                if text.trim().is_empty() || text.contains(['.', ':']) {
                    return bad(f("text"), "must not be blank, nor hold . or :");
                }
                if o.match_type.as_deref().and_then(match_type).is_none() {
                    return bad(f("match"), "must be broad, phrase or exact");
                }
                let negative = o.op == OracleOp::CreateNegative;
                if negative == o.bid_micros.is_some() || o.bid_micros.is_some_and(|b| b <= 0) {
                    return bad(f("bid_micros"), "a keyword's bid > 0; none on a negative");
                }
                Touch {
                    kind: Kind::Keyword,
                    name: text.to_string(),
                    field: "create".into(),
                }
            }
        };
        if !rules.iter().any(|r| r.covers(&touch)) {
            return bad(f("target"), format!("{touch} is outside the task's scope"));
        }
    }
    Ok(())
}
