//! The per-day account report a suite prints: spend, clicks, conversions,
//! CPA and ROAS for each date of the episode (conversions as attributed to
//! their click's date, counting those that landed before the episode end),
//! and the budget caps in force that day.

use std::fmt::Write;

use super::budget::DayCaps;
use super::calendar::Date;
use super::episode::Market;
use super::metrics::MetricRow;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DayReport {
    pub date: Date,
    pub totals: MetricRow,
    /// The account's caps that day, from the budgets then in force.
    pub caps: DayCaps,
}

/// One row per episode day so far, for the whole account.
pub fn daily_report(market: &Market) -> Vec<DayReport> {
    let start = market.config().start_date;
    let days = market.now().day.min(market.config().days);
    (0..days)
        .map(|d| {
            let date = start.plus_days(i64::from(d));
            DayReport {
                date,
                totals: market.metrics().account_day(date),
                caps: market.day_caps()[d as usize],
            }
        })
        .collect()
}

/// A fixed-width text table of `rows` with a total line.
pub fn format_table(rows: &[DayReport]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<10} {:>10} {:>7} {:>7} {:>8} {:>8} {:>6}",
        "date", "spend", "impr", "clicks", "conv", "CPA", "ROAS"
    );
    let mut total = MetricRow::default();
    let mut line = |label: String, r: &MetricRow| {
        let cpa = r.cpa().map_or("-".to_string(), |c| format!("{c:.2}"));
        let roas = r.roas().map_or("-".to_string(), |x| format!("{x:.2}"));
        let _ = writeln!(
            out,
            "{label:<10} {:>10.2} {:>7} {:>7} {:>8.1} {cpa:>8} {roas:>6}",
            r.cost_micros as f64 / 1e6,
            r.impressions,
            r.clicks,
            r.conversions
        );
    };
    for r in rows {
        line(r.date.to_string(), &r.totals);
        total += r.totals;
    }
    line("total".to_string(), &total);
    out
}
