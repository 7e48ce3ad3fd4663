//! The suite's report section: per solution × scenario, the daily table
//! (spend, clicks, conversions, CPA, ROAS) beside Google's caps (2B a day,
//! the month's charging limit), the overdelivery credited and which caps
//! bound, read from the solve results' [`Outcome`]s.

use super::outcome::Outcome;
use adfarm_proto::report::{Column, ColumnKind, Key, Section, Table, Value};
use adfarm_proto::SOLVE;
use adfarm_suite::ReportInput;
use std::collections::BTreeMap;

/// The section's id.
pub const DAILY: &str = "daily";

/// The section, or none before any episode has a result. One table per
/// solution × scenario (the first seed's run: episodes do not depend on
/// the sweep's seed), in the sweep's solution order, then item id.
pub fn sections(input: &ReportInput<'_>) -> Vec<Section> {
    let mut runs: BTreeMap<(usize, &str, &str), Outcome> = BTreeMap::new();
    // A gauntlet task's episode is reported by its verdict (the gauntlet
    // section), not by day.
    let scenario_runs = input.results.iter().filter(|r| {
        r.stage == SOLVE
            && r.output
                .as_ref()
                .is_some_and(|o| o.meta.get("verdict").is_none())
    });
    for r in scenario_runs {
        let Some(outcome) = Outcome::stored(r) else {
            continue;
        };
        let solution = r.cell.solution.as_str();
        let order = input.solution_order(solution);
        runs.entry((order, solution, r.item.as_str()))
            .or_insert(outcome);
    }
    if runs.is_empty() {
        return Vec::new();
    }
    let usd = ColumnKind::Usd { decimals: 2 };
    let money = |m: i64| Some(Value::Number(m as f64 / 1e6));
    let tables = runs
        .into_iter()
        .map(|((_, solution, item), o)| {
            // The caps in force: each day's own, each month's final
            // charging limit; none on the total line.
            let row = |d: &super::outcome::DailyRow, caps: Option<(i64, i64)>| {
                vec![
                    Some(Value::Text(solution.into())),
                    Some(Value::Text(d.date.clone())),
                    money(d.spend_micros),
                    Some(Value::Integer(d.clicks as i64)),
                    Some(Value::Number(d.conversions)),
                    d.cpa().map(Value::Number),
                    d.roas().map(Value::Number),
                    caps.and_then(|c| money(c.0)),
                    caps.and_then(|c| money(c.1)),
                    money(d.credit_micros),
                    Some(Value::Text(d.caps_bound())),
                ]
            };
            let mut rows: Vec<_> = o
                .days
                .iter()
                .map(|d| {
                    let month = o.months.get(&d.date[..7]).map_or(0, |m| m.cap_micros);
                    row(d, Some((d.day_cap_micros, month)))
                })
                .collect();
            rows.push(row(&o.totals(), None));
            Table {
                id: format!("{DAILY}-{solution}-{item}"),
                title: Some(format!(
                    "{solution} on {item}: {} from {}, {} days, B = {:.2} at the start",
                    o.scenario.mechanism,
                    o.scenario.start_date,
                    o.scenario.days,
                    o.budget_micros() as f64 / 1e6
                )),
                scorer: None,
                columns: vec![
                    Column::key("solution", "Solution", Key::Solution),
                    Column::new("date", "Date", ColumnKind::Text),
                    Column::new("spend", "Spend", usd),
                    Column::new("clicks", "Clicks", ColumnKind::Integer),
                    Column::new(
                        "conversions",
                        "Conversions",
                        ColumnKind::Number { decimals: 1 },
                    ),
                    Column::new("cpa", "CPA", usd),
                    Column::new("roas", "ROAS", ColumnKind::Number { decimals: 2 }),
                    Column::new("day-cap", "Daily cap 2B", usd),
                    Column::new("month-cap", "Month limit", usd),
                    Column::new("credited", "Credited", usd),
                    Column::new("caps-bound", "Caps bound", ColumnKind::Text),
                ],
                rows,
                notes: vec![format!(
                    "Max day spend {:.2} × that day's B; max month spend {:.1}% of its limit; \
                     {} budget-cap hits; {:.2} credited; event-log digest {}.",
                    o.max_day_over_b(),
                    100.0 * o.max_month_over_cap(),
                    o.budget_cap_hits,
                    o.totals().credit_micros as f64 / 1e6,
                    o.digest
                )],
            }
        })
        .collect();
    vec![Section {
        suite: input.suite.name.clone(),
        id: DAILY.into(),
        title: "Ads-Bench: daily account KPIs".into(),
        intro: Some(
            "Each agent manages the scenario's account through the simulated Ads API only \
             (GAQL search, mutate), at its decision points (every `cadence` hours; once each \
             simulated morning by default). Conversions count those \
             landed before the episode's end, by click date; the caps are Google's, from the \
             average daily budget B in force (Google Ads Help, \"About average daily budgets\"): \
             at most 2B charged on a day (the day's largest B); at most 30.4B in a calendar \
             month, or, once B changes mid-month, what was spent so far plus the new B × the \
             days left (the month's final limit); what is delivered past a cap is credited \
             back, not charged. Caps bound: the daily cap or the month's limit stopped the \
             campaign that day."
                .into(),
        ),
        tables,
        notes: Vec::new(),
        plots: Vec::new(),
    }]
}
