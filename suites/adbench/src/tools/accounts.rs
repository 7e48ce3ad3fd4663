//! The account tools: `get_user_account_list` (the only source of account
//! ids), `get_account_info` and `get_account_adgroup_info`, plus the
//! ownership checks the report tools share.

use serde_json::{json, Map, Value};

use super::args::Args;
use super::error::ToolError;
use super::platform::Ctx;
use super::table::{page_of, parse_paging};
use crate::world::catalog::{Audit, AGES, GENDERS, REGIONS};
use crate::world::{AdGroup, Day, GroupStatus, World};

/// Resolves `user_id` to a user index.
///
/// # Errors
/// A bad-argument error naming `user_id`.
pub fn user(w: &World, a: &Args<'_>) -> Result<usize, ToolError> {
    let id = a.id("user_id")?;
    w.user_by_id(id)
        .ok_or_else(|| ToolError::bad("user_id", format!("no user {id}")))
}

/// Resolves account ids that must belong to user `u`, checking each was listed.
///
/// # Errors
/// A bad-argument error naming `arg`, or a dependency error under strict dependencies.
pub fn owned_accounts(
    w: &World,
    ctx: &mut Ctx<'_>,
    u: usize,
    arg: &str,
    ids: &[u64],
) -> Result<Vec<usize>, ToolError> {
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        match w.account_by_id(id) {
            Some(i) if w.accounts()[i].user == u => out.push(i),
            _ => {
                return Err(ToolError::bad(
                    arg,
                    format!("account {id} is not an account of user {}", w.users()[u].id),
                ))
            }
        }
    }
    for &id in ids {
        ctx.require_listed(arg, id)?;
    }
    Ok(out)
}

/// The last day before today on which account `a` spent money, or None
/// when it spent nothing in the history window. It walks back from
/// yesterday, skipping days the account or a group cannot serve, so a
/// serving account costs one day of its groups.
pub fn last_consumption(w: &World, a: usize) -> Option<Day> {
    let acc = &w.accounts()[a];
    let mut day = w.today().plus(-1);
    while day >= w.history_start() {
        let spent = w.demand_on(a, day) > 0.0
            && acc
                .groups
                .iter()
                .any(|&g| w.groups()[g].serves_on(day) && w.group_day(g, day).cost > 0);
        if spent {
            return Some(day);
        }
        day = day.plus(-1);
    }
    None
}

/// `get_user_account_list`: id, name, industry and last consumption date
/// (null when none in the history window) of each account.
///
/// # Errors
/// Bad `user_id`, `page_size` or `page`.
pub fn user_account_list(w: &World, ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<Value, ToolError> {
    let u = user(w, a)?;
    let (size, page) = parse_paging(a, None)?;
    let rows: Vec<Value> = w.users()[u]
        .accounts
        .iter()
        .map(|&i| {
            let acc = &w.accounts()[i];
            json!({
                "Account ID": acc.id,
                "Account name": acc.name,
                "Industry": acc.industry.name(),
                "Last consumption date": last_consumption(w, i).map(|d| d.to_string()),
            })
        })
        .collect();
    let mut m = page_of(rows, size, page)?;
    if let Some(Value::Array(shown)) = m.get("rows") {
        for r in shown {
            if let Some(id) = r["Account ID"].as_u64() {
                ctx.state.listed_accounts.insert(id);
            }
        }
    }
    m.insert("user_id".into(), w.users()[u].id.into());
    m.insert("user_name".into(), w.users()[u].name.clone().into());
    Ok(Value::Object(m))
}

/// `get_account_info`.
///
/// # Errors
/// Bad `user_id` or `account_id_list`; unlisted accounts under strict dependencies.
pub fn account_info(w: &World, ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<Value, ToolError> {
    let u = user(w, a)?;
    let ids = a.id_list("account_id_list")?;
    let accounts = owned_accounts(w, ctx, u, "account_id_list", &ids)?;
    let today = w.today();
    let rows: Vec<Value> = accounts
        .iter()
        .map(|&i| {
            let acc = &w.accounts()[i];
            let active = acc.groups.iter().filter(|&&g| w.groups()[g].status_on(today) == GroupStatus::Active).count();
            json!({
                "Account ID": acc.id,
                "Account name": acc.name,
                "Industry": acc.industry.name(),
                "Daily budget (CNY)": acc.budget_on(today) as f64 / 100.0,
                "Audit status": acc.audit_on(today).name(),
                "Created": acc.created.to_string(),
                "Ad groups": acc.groups.len(),
                "Active ad groups": active,
                "Marketing assets": acc.assets.iter().map(|(id, n)| json!({"Marketing asset ID": id, "Marketing asset": n})).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(json!({"user_id": w.users()[u].id, "rows": rows}))
}

/// Delivery hours as `HH:00-HH:00` spans.
pub fn schedule_label(hours: u32) -> String {
    let mut spans = Vec::new();
    let mut h = 0;
    while h < 24 {
        if hours >> h & 1 == 1 {
            let start = h;
            while h < 24 && hours >> h & 1 == 1 {
                h += 1;
            }
            spans.push(format!("{start:02}:00-{h:02}:00"));
        } else {
            h += 1;
        }
    }
    spans.join(", ")
}

fn targeted(mask: u8, names: &[&str]) -> Value {
    if (0..names.len()).all(|i| mask >> i & 1 == 1) {
        return json!("ALL");
    }
    Value::Array(
        (0..names.len())
            .filter(|&i| mask >> i & 1 == 1)
            .map(|i| json!(names[i]))
            .collect(),
    )
}

fn group_row(w: &World, g: &AdGroup) -> Value {
    let today = w.today();
    let acc = &w.accounts()[g.account];
    let creatives: Vec<Value> = g
        .creatives
        .iter()
        .map(|&c| {
            let cr = &w.creatives()[c];
            json!({
                "Creative ID": cr.id,
                "Creative name": cr.name,
                "Creative type": cr.kind.name(),
                "Material ID": cr.material,
                "Added": cr.added.to_string(),
                "Audit status": if cr.rejected { Audit::Rejected.name() } else { Audit::Approved.name() },
            })
        })
        .collect();
    let mut m = Map::new();
    m.insert("Ad group ID".into(), g.id.into());
    m.insert("Ad group name".into(), g.name.clone().into());
    m.insert("Status".into(), g.status_on(today).name().into());
    m.insert("Launch date".into(), g.launch.to_string().into());
    m.insert("End date".into(), g.end.plus(-1).to_string().into());
    m.insert("Bid (CNY)".into(), (g.bid_on(today) as f64 / 100.0).into());
    m.insert("Objective".into(), g.objective.name().into());
    m.insert(
        "Site sets".into(),
        Value::Array(g.site_sets.iter().map(|(s, _)| json!(s.name())).collect()),
    );
    m.insert("Schedule".into(), schedule_label(g.hours).into());
    m.insert("Target genders".into(), targeted(g.genders, &GENDERS));
    m.insert("Target ages".into(), targeted(g.ages, &AGES));
    m.insert("Target regions".into(), targeted(g.regions, &REGIONS));
    m.insert(
        "Marketing asset".into(),
        acc.assets[g.asset].1.clone().into(),
    );
    m.insert("Creatives".into(), Value::Array(creatives));
    Value::Object(m)
}

/// `get_account_adgroup_info`: active groups first, then newest launch.
///
/// # Errors
/// Bad `user_id`, `account_id`, `adgroup_id_list`, `page_size` or `page`;
/// an unlisted account under strict dependencies.
pub fn adgroup_info(w: &World, ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<Value, ToolError> {
    let u = user(w, a)?;
    let account_id = a.id("account_id")?;
    let acc = owned_accounts(w, ctx, u, "account_id", &[account_id])?[0];
    let wanted = a.opt_id_list("adgroup_id_list")?;
    let (size, page) = parse_paging(a, Some(20))?;
    let today = w.today();
    let mut groups: Vec<&AdGroup> = match &wanted {
        Some(ids) => ids
            .iter()
            .map(|&id| match w.group_by_id(id) {
                Some(g) if w.groups()[g].account == acc => Ok(&w.groups()[g]),
                _ => Err(ToolError::bad(
                    "adgroup_id_list",
                    format!("ad group {id} is not in account {account_id}"),
                )),
            })
            .collect::<Result<_, _>>()?,
        None => w.accounts()[acc]
            .groups
            .iter()
            .map(|&g| &w.groups()[g])
            .collect(),
    };
    if wanted.is_none() {
        groups.sort_by_key(|g| (g.status_on(today), std::cmp::Reverse(g.launch), g.id));
    }
    let rows = groups.iter().map(|g| group_row(w, g)).collect();
    let mut m = page_of(rows, size, page)?;
    m.insert("account_id".into(), account_id.into());
    Ok(Value::Object(m))
}
