//! What a bid-multiplier policy reads at a decision and how it acts, shared
//! by the bandits and the tabular Q-learning baseline
//! ([`QAgent`](crate::suite::qlearning::QAgent)): the base bids, an
//! [`Observation`] (B, the hourly money of yesterday and today, the
//! context's features, the reward of the interval since a past decision),
//! and one `mutate` setting an arm with a note citing what was read.

use super::ARMS;
use crate::api::error::GoogleAdsFailure;
use crate::api::MutateOperation;
use crate::gaql::Value;
use crate::sandbox::AdsClient;
use crate::suite::agents::{keyword_bids, number, DecisionPoint, BID_RANGE_MICROS};
use crate::suite::kill_switch::hour_index;
use std::collections::BTreeMap;

/// Cost and conversion value, micros.
#[derive(Debug, Clone, Copy, Default)]
struct Money {
    cost: f64,
    value: f64,
}

impl Money {
    fn roas(self) -> Option<f64> {
        (self.cost > 0.0).then(|| self.value / self.cost)
    }
}

/// Every enabled keyword's resource name and bid (its own, else its ad
/// group's), micros: the base bids the arms multiply.
///
/// # Errors
/// The API's answer to a failed search.
pub fn base_bids(client: &mut dyn AdsClient) -> Result<Vec<(String, i64)>, GoogleAdsFailure> {
    Ok(keyword_bids(client)?
        .into_iter()
        .map(|k| (k.resource_name, k.bid_micros))
        .collect())
}

/// The base bids, read at the first decision and kept in `slot` after.
///
/// # Errors
/// The API's refusal of the first read.
pub fn base_bids_once(
    slot: &mut Option<Vec<(String, i64)>>,
    client: &mut dyn AdsClient,
) -> Result<Vec<(String, i64)>, GoogleAdsFailure> {
    if let Some(b) = slot {
        return Ok(b.clone());
    }
    let b = base_bids(client)?;
    *slot = Some(b.clone());
    Ok(b)
}

/// What a decision read through GAQL, and the features built from it.
#[derive(Debug, Clone)]
pub struct Observation {
    /// B: the enabled campaigns' daily budgets, micros.
    pub budget_micros: f64,
    /// The decision's hour ([`hour_index`]).
    pub hour: i64,
    /// The decision's hour of day.
    pub hour_of_day: u8,
    /// Hours between decisions.
    pub cadence: i64,
    /// Today's spend over B × the share of the day gone (at midnight,
    /// yesterday's spend over B; 1 before any spend could be read),
    /// clamped to [0, 3].
    pub pace: f64,
    /// The last interval's ROAS over the last 24 hours' ROAS, − 1,
    /// clamped to [−1, 1] (0 where either had no cost).
    pub roas_vs_day: f64,
    /// Cost of the last `cadence` hours, micros.
    pub last_cost_micros: f64,
    /// ROAS of the last `cadence` hours; `None` without cost.
    pub last_roas: Option<f64>,
    hours: BTreeMap<i64, Money>,
    interval_budget: f64,
}

impl Observation {
    /// Reads B and, once a tick has run, the account's hourly cost and
    /// conversion value of yesterday and today (`segments.date`,
    /// `segments.hour`).
    ///
    /// # Errors
    /// The API's answer to a failed search.
    pub fn read(
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<Observation, GoogleAdsFailure> {
        let budget: f64 = client
            .search(
                "SELECT campaign.id, campaign_budget.amount_micros FROM campaign \
                 WHERE campaign.status = 'ENABLED'",
            )?
            .iter()
            .map(|r| number(r.values.get(1)))
            .sum();
        let today = client.today();
        let now = hour_index(today, at.now.hour());
        let started = at.now.ordinal() > 0;
        let hours = if started {
            hourly(client)?
        } else {
            BTreeMap::new()
        };
        let cadence = i64::from(at.brief.cadence_hours);
        let last = between(&hours, now - cadence, now);
        let midnight = hour_index(today, 0);
        let pace = if !started || budget <= 0.0 {
            1.0
        } else if at.now.tick == 0 {
            between(&hours, midnight - 24, midnight).cost / budget
        } else {
            let share = f64::from(at.now.tick) / f64::from(crate::market::TICKS_PER_DAY);
            between(&hours, midnight, now).cost / (budget * share)
        }
        .clamp(0.0, 3.0);
        let day_roas = between(&hours, now - 24, now).roas();
        let roas_vs_day = match (last.roas(), day_roas) {
            (Some(r), Some(d)) if d > 0.0 => (r / d - 1.0).clamp(-1.0, 1.0),
            _ => 0.0,
        };
        Ok(Observation {
            budget_micros: budget,
            hour: now,
            hour_of_day: at.now.hour(),
            cadence,
            pace,
            roas_vs_day,
            last_cost_micros: last.cost,
            last_roas: last.roas(),
            hours,
            interval_budget: budget * at.brief.cadence_hours as f64 / 24.0,
        })
    }

    /// The interval reward of a decision made at `hour` ([`hour_index`]):
    /// the conversion value − cost of the hours from it to now over B ×
    /// cadence / 24 (conversions not landed yet are left out). `None`
    /// when B is 0.
    pub fn reward_since(&self, hour: i64) -> Option<f64> {
        (self.interval_budget > 0.0).then(|| {
            let since = between(&self.hours, hour, self.hour);
            (since.value - since.cost) / self.interval_budget
        })
    }

    /// The bandits' context ([`FEATURES`](super::FEATURES)).
    pub fn context(&self) -> Vec<f64> {
        let (hour_sin, hour_cos) =
            (std::f64::consts::TAU * f64::from(self.hour_of_day) / 24.0).sin_cos();
        vec![1.0, hour_sin, hour_cos, self.pace - 1.0, self.roas_vs_day]
    }

    /// The note of a change to `arm` by `policy`, citing what was read
    /// (`linucb: arm ×1.25; pace 0.82, last 6 h cost 7.10, ROAS 2.10`).
    pub fn note(&self, policy: &str, arm: usize) -> String {
        let roas = self
            .last_roas
            .map_or_else(|| "n/a".to_string(), |r| format!("{r:.2}"));
        format!(
            "{policy}: arm ×{}; pace {:.2}, last {} h cost {:.2}, ROAS {roas}",
            ARMS[arm],
            self.pace,
            self.cadence,
            self.last_cost_micros / 1e6
        )
    }
}

/// Sets every base keyword to base × the arm's multiplier (clamped to the
/// pacing range) in one `mutate`, each operation carrying `note`.
///
/// # Errors
/// The API's answer to a failed mutate.
pub fn set_arm(
    client: &mut dyn AdsClient,
    base: &[(String, i64)],
    arm: usize,
    note: &str,
) -> Result<(), GoogleAdsFailure> {
    let (lo, hi) = BID_RANGE_MICROS;
    let ops: Vec<MutateOperation> = base
        .iter()
        .map(|(name, bid)| {
            let micros = ((*bid as f64 * ARMS[arm]).round() as i64).clamp(lo, hi);
            MutateOperation::update(name.clone(), [("cpc_bid_micros", Value::Int64(micros))])
                .with_note(note)
        })
        .collect();
    if !ops.is_empty() {
        client.mutate(ops)?;
    }
    Ok(())
}

/// The account's cost and value per hour ([`hour_index`]) of yesterday
/// and today.
fn hourly(client: &mut dyn AdsClient) -> Result<BTreeMap<i64, Money>, GoogleAdsFailure> {
    let today = client.today();
    let rows = client.search(&format!(
        "SELECT segments.date, segments.hour, metrics.cost_micros, metrics.conversions_value \
         FROM customer WHERE segments.date BETWEEN '{}' AND '{today}'",
        today.plus_days(-1)
    ))?;
    let mut hours: BTreeMap<i64, Money> = BTreeMap::new();
    for r in &rows {
        let date = match r.values.first() {
            Some(Value::Date(d)) => *d,
            Some(Value::String(s)) => match crate::market::Date::parse(s) {
                Ok(d) => d,
                Err(_) => continue,
            },
            _ => continue,
        };
        let m = hours
            .entry(hour_index(date, number(r.values.get(1)) as u8))
            .or_default();
        m.cost += number(r.values.get(2));
        // The API serves conversion value in currency units.
        m.value += number(r.values.get(3)) * 1e6;
    }
    Ok(hours)
}

/// The money of the hours `from..to`.
fn between(hours: &BTreeMap<i64, Money>, from: i64, to: i64) -> Money {
    hours
        .range(from..to)
        .fold(Money::default(), |acc, (_, m)| Money {
            cost: acc.cost + m.cost,
            value: acc.value + m.value,
        })
}
