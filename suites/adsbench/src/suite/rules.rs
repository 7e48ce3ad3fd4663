//! The rule-based baseline, [`RuleAgent`] (solution `rules`): the kill
//! switch, then pacing, with published thresholds, acting only through
//! the Ads API.
//!
//! At every decision point it reads, by GAQL, the spend of the day the
//! last half hour belonged to (at midnight, the day that just ended), the
//! budgets of its enabled campaigns and, when the brief sets a ROAS floor,
//! the hourly cost and conversion value of every three-hour window ending
//! at a whole hour since its previous decision. When today's spend > 1.15 ×
//! B or a window's ROAS < the floor (the thresholds of
//! [`kill_switch`](super::kill_switch), the same functions the harness
//! triggers with), it pauses every enabled campaign, with a note citing the
//! metric and its value, and holds the account paused for the rest of the
//! episode: a kill switch hands the account to a person, and none comes in
//! the simulation. Otherwise, at each day's first decision, it paces as
//! [`PacingAgent`] does (× 1.15 under 0.8 × B yesterday, ÷ 1.15 over 1.05
//! × B, ÷ 1.15 again over the CPA target): those thresholds are ours, the
//! market's [`PacingRule`](crate::market::PacingRule) defaults, not a
//! published industry rule.
//!
//! Earlier windows are read in hindsight: a conversion that landed since
//! a window's end counts in it (Google attributes conversions to the
//! click's hour), so a window that read under the floor at its end may no
//! longer by the next decision. At a cadence of one hour every window is
//! read at its end, as the harness reads it.

use super::agents::{number, ApiAgent, DecisionPoint, PacingAgent};
use super::kill_switch::{
    hour_index, hour_of, roas_fires, spend_fires, spend_threshold, HourlyMoney, Money,
    ROAS_WINDOW_HOURS,
};
use crate::api::error::GoogleAdsFailure;
use crate::api::MutateOperation;
use crate::gaql::{ResultRow, Value};
use crate::market::{Date, SimTime};
use crate::sandbox::AdsClient;

/// The kill switch, then pacing; see the module's documentation.
#[derive(Debug, Clone)]
pub struct RuleAgent {
    /// The pacing part, with its CPA target.
    pub pacing: PacingAgent,
    /// The previous decision point, if any.
    previous: Option<SimTime>,
    /// Whether the kill switch has paused the account.
    tripped: bool,
}

impl RuleAgent {
    /// The baseline with this CPA target for its pacing part.
    pub fn new(target_cpa_micros: i64) -> RuleAgent {
        RuleAgent {
            pacing: PacingAgent::new(target_cpa_micros),
            previous: None,
            tripped: false,
        }
    }

    /// Whether the kill switch has paused the account.
    pub fn tripped(&self) -> bool {
        self.tripped
    }
}

/// An enabled campaign: its resource name and budget, micros.
struct Enabled {
    resource_name: String,
    budget_micros: i64,
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::ResourceName(n) | Value::String(n) => Some(n.clone()),
        _ => None,
    }
}

fn date(v: Option<&Value>) -> Option<Date> {
    match v? {
        Value::Date(d) => Some(*d),
        Value::String(s) => Date::parse(s).ok(),
        _ => None,
    }
}

fn micros(v: Option<&Value>) -> i64 {
    (number(v) * 1e6).round() as i64
}

fn money(micros: i64) -> String {
    format!("{:.2}", micros as f64 / 1e6)
}

/// Why the kill switch fires now, as the note on each pause, or `None`.
fn kill_switch(
    client: &mut dyn AdsClient,
    at: &DecisionPoint<'_>,
    previous: Option<SimTime>,
    enabled: &[Enabled],
) -> Result<Option<String>, GoogleAdsFailure> {
    let today = client.today();
    // The last half hour ran on today, or at midnight on yesterday.
    let (day, which) = if at.now.tick == 0 {
        (
            today.plus_days(-1),
            format!("yesterday's ({})", today.plus_days(-1)),
        )
    } else {
        (today, "today's".to_string())
    };
    let budget: i64 = enabled.iter().map(|c| c.budget_micros).sum();
    let spend: i64 = client
        .search(&format!(
            "SELECT metrics.cost_micros FROM customer WHERE segments.date = '{day}'"
        ))?
        .iter()
        .map(|r| number(r.values.first()) as i64)
        .sum();
    if spend_fires(spend, budget) {
        return Ok(Some(format!(
            "kill switch: {which} spend {} > 1.15 × B = {:.2}",
            money(spend),
            spend_threshold(budget)
        )));
    }
    let Some(floor) = at.brief.roas_floor else {
        return Ok(None);
    };
    // Windows ending at each whole hour since the previous decision.
    let end = hour_index(today, at.now.hour());
    let hours_since = |p: SimTime| ((at.now.ordinal() - p.ordinal()) / 2) as i64;
    let first = previous.map_or(end, |p| end - hours_since(p) + 1);
    let (from, _) = hour_of(first - ROAS_WINDOW_HOURS);
    let (to, _) = hour_of(end - 1);
    let rows: Vec<ResultRow> = client.search(&format!(
        "SELECT segments.date, segments.hour, metrics.cost_micros, metrics.conversions_value \
         FROM customer WHERE segments.date BETWEEN '{from}' AND '{to}'"
    ))?;
    let mut hours = HourlyMoney::default();
    for r in &rows {
        let Some(d) = date(r.values.first()) else {
            continue;
        };
        hours.add(
            d,
            number(r.values.get(1)) as u8,
            Money {
                cost_micros: number(r.values.get(2)) as i64,
                value_micros: micros(r.values.get(3)),
            },
        );
    }
    for h in first..=end {
        if let Some(roas) = roas_fires(hours.window(h), floor) {
            let (d, hour) = hour_of(h);
            return Ok(Some(format!(
                "kill switch: ROAS {roas:.2} over the {ROAS_WINDOW_HOURS} hours to {d} \
                 {hour:02}:00 < floor {floor:.2}"
            )));
        }
    }
    Ok(None)
}

impl ApiAgent for RuleAgent {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        let previous = self.previous.replace(at.now);
        if self.tripped {
            return Ok(());
        }
        // Before the first tick there is nothing to read.
        if at.now.ordinal() > 0 {
            let enabled: Vec<Enabled> = client
                .search(
                    "SELECT campaign.resource_name, campaign_budget.amount_micros \
                     FROM campaign WHERE campaign.status = 'ENABLED'",
                )?
                .iter()
                .filter_map(|r| {
                    Some(Enabled {
                        resource_name: text(r.values.first())?,
                        budget_micros: number(r.values.get(1)) as i64,
                    })
                })
                .collect();
            if let Some(note) = kill_switch(client, at, previous, &enabled)? {
                let ops: Vec<MutateOperation> = enabled
                    .into_iter()
                    .map(|c| {
                        MutateOperation::update(
                            c.resource_name,
                            [("status", Value::Enum("PAUSED".into()))],
                        )
                        .with_note(&note)
                    })
                    .collect();
                if !ops.is_empty() {
                    client.mutate(ops)?;
                }
                self.tripped = true;
                return Ok(());
            }
        }
        self.pacing.decide(client, at)
    }
}
