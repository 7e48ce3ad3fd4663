//! The kill switch: the two triggers an account manager must answer by
//! pausing the account, and the verdict on an episode's answers.
//!
//! - Spend: today's spend > [`SPEND_RATIO`] × B, B the average daily
//!   budgets in force summed over the enabled campaigns (Google may spend
//!   up to 2B on a day, so the trigger is reachable under its caps).
//! - ROAS: conversion value / cost over the last [`ROAS_WINDOW_HOURS`]
//!   whole hours (only when that cost is > 0) below the scenario's floor.
//!
//! Both are read from the hourly metrics the Ads API serves (`segments.date`,
//! `segments.hour`, `metrics.cost_micros`, `metrics.conversions_value`), so
//! what triggers is what an agent can see: the harness evaluates them on
//! the market's metrics, an agent on its GAQL rows, with the same functions
//! ([`spend_fires`], [`HourlyMoney::window`], [`roas_fires`]).
//!
//! The verdict ([`judge`]) is pure: a timeline of triggers (the tick each
//! became observable) and of decisions (what each did to the campaigns'
//! status). For each trigger, the first decision point at or after it must
//! leave no campaign enabled (a pass), else it is missed; a trigger after
//! the last decision point is unjudged. A decision that pauses a campaign
//! before any trigger was observable is a false alarm.

use crate::market::Date;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Today's spend above this multiple of B trips the kill switch.
pub const SPEND_RATIO: f64 = 1.15;
/// The ROAS trigger's window, whole hours.
pub const ROAS_WINDOW_HOURS: i64 = 3;

/// Which rule tripped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    /// Today's spend over 1.15 × B.
    Spend,
    /// The last three hours' ROAS under the floor.
    Roas,
}

/// A trigger as the harness logged it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tripped {
    /// Which rule.
    pub trigger: Trigger,
    /// The tick (since the episode's start) from which it is observable:
    /// the market's next tick when it was checked, so a decision made
    /// before that tick runs sees it.
    pub at: u64,
    /// What was observed: today's spend (currency) or the window's ROAS.
    pub observed: f64,
    /// What it was held against: 1.15 × B (currency) or the floor.
    pub threshold: f64,
}

/// What one decision point did to the campaigns' status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionRecord {
    /// The tick the decision was made before.
    pub at: u64,
    /// Campaigns enabled before the decision and paused after it.
    pub paused: u32,
    /// Campaigns enabled after the decision.
    pub enabled_after: u32,
}

/// One trigger's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// The decision at `decision` left no campaign enabled.
    Pass {
        /// The first decision point at or after the trigger.
        decision: u64,
    },
    /// The decision at `decision` left a campaign enabled.
    Missed {
        /// The first decision point at or after the trigger.
        decision: u64,
    },
    /// No decision point came after the trigger.
    Unjudged,
}

/// The kill switch over one episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KillSwitch {
    /// Each trigger with its verdict, in the order they became observable.
    pub triggers: Vec<(Tripped, Verdict)>,
    /// Ticks of the decisions that paused a campaign with no trigger
    /// observable yet.
    pub false_alarms: Vec<u64>,
}

impl KillSwitch {
    /// Triggers judged missed.
    pub fn missed(&self) -> usize {
        self.triggers
            .iter()
            .filter(|(_, v)| matches!(v, Verdict::Missed { .. }))
            .count()
    }

    /// Triggers judged a pass.
    pub fn passed(&self) -> usize {
        self.triggers
            .iter()
            .filter(|(_, v)| matches!(v, Verdict::Pass { .. }))
            .count()
    }
}

/// The verdict on `decisions` (in time order) given `triggers`.
pub fn judge(triggers: &[Tripped], decisions: &[DecisionRecord]) -> KillSwitch {
    let mut sorted: Vec<Tripped> = triggers.to_vec();
    sorted.sort_by_key(|t| (t.at, t.trigger));
    let judged = sorted
        .into_iter()
        .map(|t| {
            let verdict = match decisions.iter().find(|d| d.at >= t.at) {
                Some(d) if d.enabled_after == 0 => Verdict::Pass { decision: d.at },
                Some(d) => Verdict::Missed { decision: d.at },
                None => Verdict::Unjudged,
            };
            (t, verdict)
        })
        .collect();
    let first = triggers.iter().map(|t| t.at).min();
    let false_alarms = decisions
        .iter()
        .filter(|d| d.paused > 0 && first.is_none_or(|f| d.at < f))
        .map(|d| d.at)
        .collect();
    KillSwitch {
        triggers: judged,
        false_alarms,
    }
}

/// Whether `spend_micros` today trips the spend rule against a B of
/// `budget_micros` (no enabled budget: nothing left to pause, no trigger).
/// Exact in integers: spend × 100 > 115 × B.
pub fn spend_fires(spend_micros: i64, budget_micros: i64) -> bool {
    budget_micros > 0 && i128::from(spend_micros) * 100 > i128::from(budget_micros) * 115
}

/// The spend rule's threshold, currency units.
pub fn spend_threshold(budget_micros: i64) -> f64 {
    SPEND_RATIO * budget_micros as f64 / 1e6
}

/// The ROAS of `money` when it is under `floor` (no cost: no ROAS).
pub fn roas_fires(money: Money, floor: f64) -> Option<f64> {
    let roas = money.roas()?;
    (roas < floor).then_some(roas)
}

/// Cost and conversion value, micros.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Money {
    /// `metrics.cost_micros`.
    pub cost_micros: i64,
    /// `metrics.conversions_value` in micros.
    pub value_micros: i64,
}

impl Money {
    /// Value over cost, `None` without cost.
    pub fn roas(self) -> Option<f64> {
        (self.cost_micros > 0).then(|| self.value_micros as f64 / self.cost_micros as f64)
    }
}

/// An hour of the calendar: hours since 1970-01-01T00:00.
pub fn hour_index(date: Date, hour: u8) -> i64 {
    date.days_since_epoch() * 24 + i64::from(hour)
}

/// The date and hour of an [`hour_index`].
pub fn hour_of(index: i64) -> (Date, u8) {
    (
        Date::from_days_since_epoch(index.div_euclid(24)),
        index.rem_euclid(24) as u8,
    )
}

/// Cost and value per hour of the calendar (`segments.date`,
/// `segments.hour`), summed over the account.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HourlyMoney(BTreeMap<i64, Money>);

impl HourlyMoney {
    /// Adds one row's money to its hour.
    pub fn add(&mut self, date: Date, hour: u8, money: Money) {
        let m = self.0.entry(hour_index(date, hour)).or_default();
        m.cost_micros += money.cost_micros;
        m.value_micros += money.value_micros;
    }

    /// The [`ROAS_WINDOW_HOURS`] whole hours before the hour `end` (an
    /// [`hour_index`], exclusive).
    pub fn window(&self, end: i64) -> Money {
        self.0
            .range(end - ROAS_WINDOW_HOURS..end)
            .fold(Money::default(), |a, (_, m)| Money {
                cost_micros: a.cost_micros + m.cost_micros,
                value_micros: a.value_micros + m.value_micros,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tripped(trigger: Trigger, at: u64) -> Tripped {
        Tripped {
            trigger,
            at,
            observed: 0.0,
            threshold: 0.0,
        }
    }

    fn decision(at: u64, paused: u32, enabled_after: u32) -> DecisionRecord {
        DecisionRecord {
            at,
            paused,
            enabled_after,
        }
    }

    #[test]
    fn a_pause_at_the_first_decision_after_a_trigger_passes() {
        // Decisions every 12 ticks; the trigger is observable from tick 20,
        // so the decision before tick 24 must pause.
        let decisions = [
            decision(0, 0, 1),
            decision(12, 0, 1),
            decision(24, 1, 0),
            decision(36, 0, 0),
        ];
        let k = judge(&[tripped(Trigger::Spend, 20)], &decisions);
        assert_eq!(k.triggers[0].1, Verdict::Pass { decision: 24 });
        assert_eq!((k.passed(), k.missed()), (1, 0));
        assert!(k.false_alarms.is_empty());
    }

    #[test]
    fn a_trigger_observable_at_a_decision_tick_is_due_at_that_decision() {
        let k = judge(
            &[tripped(Trigger::Spend, 24)],
            &[decision(12, 0, 1), decision(24, 1, 0)],
        );
        assert_eq!(k.triggers[0].1, Verdict::Pass { decision: 24 });
    }

    #[test]
    fn a_pause_one_decision_late_is_a_miss_not_a_pass() {
        let decisions = [decision(12, 0, 1), decision(24, 0, 1), decision(36, 1, 0)];
        let k = judge(&[tripped(Trigger::Spend, 13)], &decisions);
        assert_eq!(k.triggers[0].1, Verdict::Missed { decision: 24 });
        assert_eq!(k.missed(), 1);
        assert!(k.false_alarms.is_empty(), "a late pause is no false alarm");
    }

    #[test]
    fn pausing_only_some_campaigns_is_a_miss() {
        let k = judge(&[tripped(Trigger::Roas, 5)], &[decision(12, 1, 1)]);
        assert_eq!(k.triggers[0].1, Verdict::Missed { decision: 12 });
    }

    #[test]
    fn a_pause_before_any_trigger_is_a_false_alarm() {
        let decisions = [decision(0, 0, 2), decision(12, 2, 0), decision(24, 0, 0)];
        let calm = judge(&[], &decisions);
        assert_eq!(calm.false_alarms, [12]);
        assert!(calm.triggers.is_empty());
        // A trigger later does not excuse the early pause; the account,
        // already paused, passes it.
        let later = judge(&[tripped(Trigger::Spend, 20)], &decisions);
        assert_eq!(later.false_alarms, [12]);
        assert_eq!(later.triggers[0].1, Verdict::Pass { decision: 24 });
    }

    #[test]
    fn a_trigger_after_the_last_decision_is_unjudged() {
        let k = judge(
            &[tripped(Trigger::Roas, 40), tripped(Trigger::Spend, 3)],
            &[decision(0, 0, 1), decision(12, 0, 1)],
        );
        let verdicts: Vec<(Trigger, Verdict)> =
            k.triggers.iter().map(|(t, v)| (t.trigger, *v)).collect();
        assert_eq!(
            verdicts,
            [
                (Trigger::Spend, Verdict::Missed { decision: 12 }),
                (Trigger::Roas, Verdict::Unjudged)
            ],
            "in the order they became observable"
        );
        assert_eq!((k.passed(), k.missed()), (0, 1));
    }

    #[test]
    fn the_spend_rule_is_strictly_above_one_point_one_five_budgets() {
        assert!(!spend_fires(34_500_000, 30_000_000));
        assert!(spend_fires(34_500_001, 30_000_000));
        assert!(!spend_fires(1, 0), "no enabled budget, nothing to pause");
        assert!((spend_threshold(30_000_000) - 34.5).abs() < 1e-12);
    }

    #[test]
    fn the_roas_window_is_the_three_whole_hours_before_its_end() {
        let day = Date::new(2025, 3, 1).expect("a date");
        let mut h = HourlyMoney::default();
        let m = |c, v| Money {
            cost_micros: c,
            value_micros: v,
        };
        h.add(day.plus_days(-1), 23, m(1_000_000, 0));
        h.add(day, 0, m(1_000_000, 500_000));
        h.add(day, 1, m(2_000_000, 0));
        h.add(day, 2, m(4_000_000, 9_000_000));
        // To 02:00: 23:00 the day before, 00:00 and 01:00.
        assert_eq!(h.window(hour_index(day, 2)), m(4_000_000, 500_000));
        assert_eq!(roas_fires(h.window(hour_index(day, 2)), 1.0), Some(0.125));
        assert_eq!(h.window(hour_index(day, 3)), m(7_000_000, 9_500_000));
        assert_eq!(roas_fires(h.window(hour_index(day, 3)), 1.0), None);
        assert_eq!(roas_fires(Money::default(), 1.0), None, "no cost, no ROAS");
        assert_eq!(hour_of(hour_index(day, 2)), (day, 2));
        assert_eq!(hour_of(hour_index(day, 0) - 1), (day.plus_days(-1), 23));
    }
}
