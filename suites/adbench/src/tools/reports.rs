//! The report tools: `daily_data_by_group_and_field` and
//! `hourly_data_by_group_and_field`. They check arguments and scope, ask the
//! world for grouped sums and render one page of labelled rows.

use serde_json::Value;

use super::accounts::{owned_accounts, user};
use super::args::Args;
use super::episode::FlagKind;
use super::error::ToolError;
use super::platform::Ctx;
use super::table::{
    columns, order_rows, paginate, parse_fields, parse_order, parse_paging, render,
};
use crate::world::{DailyGrouping, Day, HourlyGrouping, Scope, World};

/// Key column labels of a daily grouping.
pub fn daily_key_labels(g: DailyGrouping) -> &'static [&'static str] {
    match g {
        DailyGrouping::Sum => &[],
        DailyGrouping::Date => &["Date"],
        DailyGrouping::Month => &["Month"],
        DailyGrouping::Week => &["Week", "Week start"],
        DailyGrouping::SiteSet => &["Site set"],
        DailyGrouping::AdGroup => &["Ad group ID", "Ad group name"],
        DailyGrouping::Account => &["Account ID", "Account name"],
        DailyGrouping::Creative => &["Creative ID", "Creative name", "Creative type"],
        DailyGrouping::MaterialVideo => &["Video material ID"],
        DailyGrouping::MaterialImage => &["Image material ID"],
        DailyGrouping::MarketingAsset => &["Marketing asset ID", "Marketing asset"],
        DailyGrouping::Gender => &["Gender"],
        DailyGrouping::Age => &["Age"],
        DailyGrouping::Region => &["Region"],
        DailyGrouping::City => &["City", "Region"],
    }
}

/// Key column labels of an hourly grouping.
pub fn hourly_key_labels(g: HourlyGrouping) -> &'static [&'static str] {
    match g {
        HourlyGrouping::Sum => &[],
        HourlyGrouping::Hour => &["Hour"],
        HourlyGrouping::Account => &["Account ID", "Account name"],
        HourlyGrouping::AdGroup => &["Ad group ID", "Ad group name"],
        HourlyGrouping::AdGroupHour => &["Ad group ID", "Ad group name", "Hour"],
        HourlyGrouping::Creative => &["Creative ID", "Creative name", "Creative type"],
        HourlyGrouping::CreativeHour => &["Creative ID", "Creative name", "Creative type", "Hour"],
    }
}

/// How far the data goes, for the agent.
fn data_through(w: &World) -> String {
    format!(
        "full days to {}; {} to {:02}:00",
        w.today().plus(-1),
        w.today(),
        w.hour()
    )
}

/// Resolves an optional `adgroup_id` within the scope's accounts; its
/// account must have been listed. When the accounts came from an
/// `account_id_list`, they were checked already and are not flagged twice.
fn scoped_adgroup(
    w: &World,
    ctx: &mut Ctx<'_>,
    a: &Args<'_>,
    accounts: &[usize],
    accounts_checked: bool,
) -> Result<Option<usize>, ToolError> {
    let Some(id) = a.opt_id("adgroup_id")? else {
        return Ok(None);
    };
    match w.group_by_id(id) {
        Some(g) if accounts.contains(&w.groups()[g].account) => {
            let acc = w.accounts()[w.groups()[g].account].id;
            if !accounts_checked && !ctx.state.listed_accounts.contains(&acc) {
                ctx.violation(
                    "adgroup_id",
                    FlagKind::UnlistedAccount,
                    format!("ad group {id} belongs to account {acc}, which was not obtained from get_user_account_list"),
                )?;
            }
            Ok(Some(g))
        }
        _ => Err(ToolError::bad(
            "adgroup_id",
            format!("ad group {id} is not in the accounts queried"),
        )),
    }
}

/// `daily_data_by_group_and_field`.
///
/// # Errors
/// A [`ToolError`] naming the bad argument; unlisted accounts under strict dependencies.
pub fn daily(w: &World, ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<Value, ToolError> {
    let u = user(w, a)?;
    let begin = a.date("begin")?;
    let end = a.date("end")?;
    if begin < w.history_start() {
        return Err(ToolError::bad(
            "begin",
            format!(
                "{begin} is before the first day with data, {}",
                w.history_start()
            ),
        ));
    }
    if end > w.today() {
        return Err(ToolError::bad(
            "end",
            format!("{end} is after today, {}", w.today()),
        ));
    }
    if end < begin {
        return Err(ToolError::bad(
            "end",
            format!("{end} is before begin {begin}"),
        ));
    }
    let name = a.string("group_by_type")?;
    let grouping = DailyGrouping::parse(name)
        .ok_or_else(|| ToolError::bad("group_by_type", format!("unknown grouping {name:?}")))?;
    let fields = parse_fields(a)?;
    let order = parse_order(a, &fields)?;
    let (size, page) = parse_paging(a, None)?;
    let ids = a.id_list("account_id_list")?;
    let accounts = owned_accounts(w, ctx, u, "account_id_list", &ids)?;
    let adgroup = scoped_adgroup(w, ctx, a, &accounts, true)?;
    let rows = order_rows(
        w.daily(&Scope { accounts, adgroup }, begin, end, grouping),
        order,
    );
    let (rows, mut m) = paginate(rows, size, page)?;
    m.insert("rows".into(), Value::Array(render(w, &rows, &fields)));
    m.insert("group_by_type".into(), name.into());
    m.insert("begin".into(), begin.to_string().into());
    m.insert("end".into(), end.to_string().into());
    m.insert(
        "columns".into(),
        columns(daily_key_labels(grouping), &fields),
    );
    m.insert("data_through".into(), data_through(w).into());
    Ok(Value::Object(m))
}

/// `hourly_data_by_group_and_field`.
///
/// # Errors
/// A [`ToolError`] naming the bad argument; unlisted accounts under strict dependencies.
pub fn hourly(w: &World, ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<Value, ToolError> {
    let u = user(w, a)?;
    let date: Day = a.date("date")?;
    if date < w.history_start() || date > w.today() {
        return Err(ToolError::bad(
            "date",
            format!(
                "{date} is outside the data, {} to {}",
                w.history_start(),
                w.today()
            ),
        ));
    }
    let name = a.string("group_by_type")?;
    let grouping = HourlyGrouping::parse(name)
        .ok_or_else(|| ToolError::bad("group_by_type", format!("unknown grouping {name:?}")))?;
    let fields = parse_fields(a)?;
    let order = parse_order(a, &fields)?;
    let (size, page) = parse_paging(a, None)?;
    let listed = a.opt_id_list("account_id_list")?;
    let accounts = match &listed {
        Some(ids) => owned_accounts(w, ctx, u, "account_id_list", ids)?,
        None => w.users()[u].accounts.clone(),
    };
    let adgroup = scoped_adgroup(w, ctx, a, &accounts, listed.is_some())?;
    let rows = order_rows(
        w.hourly(&Scope { accounts, adgroup }, date, grouping),
        order,
    );
    let (rows, mut m) = paginate(rows, size, page)?;
    m.insert("rows".into(), Value::Array(render(w, &rows, &fields)));
    m.insert("group_by_type".into(), name.into());
    m.insert("date".into(), date.to_string().into());
    m.insert(
        "columns".into(),
        columns(hourly_key_labels(grouping), &fields),
    );
    m.insert("data_through".into(), data_through(w).into());
    Ok(Value::Object(m))
}
