//! What the business component counts as the account doing well: the
//! task's objective read as a utility, higher better, summed over days.
//!
//! A gauntlet task names its objective (CPA, ROAS, revenue, leads,
//! installs, awareness); a plain scenario names none and is judged by
//! profit. Each utility is linear in the day's KPIs, so the days before
//! the agent took over (a warm start) add the same to every agent, the
//! do-nothing one and the hindsight-best multiplier included, and cancel
//! in the business component's normalisation.
//!
//! The two targeted objectives are read the way the bidding strategies
//! that serve them are: a CPA ceiling T values each conversion at T
//! (u = T · conversions − cost, positive exactly while CPA < T), a ROAS
//! floor R asks each unit of cost to return R (u = value − R · cost,
//! positive exactly while ROAS > R). The volume objectives count their
//! KPI and leave cost to the budget, which caps it either way.

use super::gauntlet::labels::{Objective, ObjectiveKind};
use super::outcome::{DailyRow, Outcome};
use serde::{Deserialize, Serialize};

/// A business utility over an episode's days.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Utility {
    /// Conversion value − cost (a scenario with no objective).
    #[default]
    Profit,
    /// Conversions valued at the target CPA, less cost.
    Cpa {
        /// The ceiling, micros per conversion.
        target_micros: f64,
    },
    /// Conversion value less the target ROAS times cost.
    Roas {
        /// The floor, value per unit of cost.
        target: f64,
    },
    /// Conversion value, micros.
    Revenue,
    /// Conversions (leads or installs).
    Conversions,
    /// Impressions.
    Impressions,
}

impl Utility {
    /// The utility that serves `objective`.
    pub fn of_objective(objective: &Objective) -> Utility {
        match objective.kind {
            ObjectiveKind::Cpa => Utility::Cpa {
                target_micros: objective.target * 1e6,
            },
            ObjectiveKind::Roas => Utility::Roas {
                target: objective.target,
            },
            ObjectiveKind::Revenue => Utility::Revenue,
            ObjectiveKind::Leads | ObjectiveKind::Installs => Utility::Conversions,
            ObjectiveKind::Awareness => Utility::Impressions,
        }
    }

    /// One day's utility.
    pub fn day(self, d: &DailyRow) -> f64 {
        let spend = d.spend_micros as f64;
        let value = d.value_micros as f64;
        match self {
            Utility::Profit => value - spend,
            Utility::Cpa { target_micros } => target_micros * d.conversions - spend,
            Utility::Roas { target } => value - target * spend,
            Utility::Revenue => value,
            Utility::Conversions => d.conversions,
            Utility::Impressions => d.impressions as f64,
        }
    }

    /// The episode's utility: the sum over its days, in day order.
    pub fn of(self, o: &Outcome) -> f64 {
        o.days.iter().map(|d| self.day(d)).fold(0.0, |a, b| a + b)
    }

    /// A value of this utility as the report shows it: money in
    /// currency, counts as counts.
    pub fn show(self, u: f64) -> String {
        match self {
            Utility::Conversions => format!("{u:.1}"),
            Utility::Impressions => format!("{u:.0}"),
            _ => format!("{:.2}", u / 1e6),
        }
    }

    /// How the report names it.
    pub fn describe(self) -> String {
        match self {
            Utility::Profit => "profit (value − cost)".into(),
            Utility::Cpa { target_micros } => {
                format!("{:.2} × conversions − cost", target_micros / 1e6)
            }
            Utility::Roas { target } => format!("value − {target} × cost"),
            Utility::Revenue => "conversion value".into(),
            Utility::Conversions => "conversions".into(),
            Utility::Impressions => "impressions".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(spend: i64, value: i64, conversions: f64, impressions: u64) -> DailyRow {
        DailyRow {
            date: "2026-03-02".into(),
            spend_micros: spend,
            impressions,
            clicks: 0,
            conversions,
            value_micros: value,
            day_cap_micros: 0,
            credit_micros: 0,
            daily_cap_bound: false,
            monthly_cap_bound: false,
        }
    }

    #[test]
    fn a_targeted_utility_is_positive_exactly_while_the_target_is_met() {
        let cpa = Utility::of_objective(&Objective {
            kind: ObjectiveKind::Cpa,
            target: 20.0,
        });
        // 10 conversions for 150 currency: CPA 15 < 20.
        assert_eq!(cpa.day(&day(150_000_000, 0, 10.0, 0)), 50_000_000.0);
        // The same conversions for 250: CPA 25 > 20.
        assert!(cpa.day(&day(250_000_000, 0, 10.0, 0)) < 0.0);
        let roas = Utility::of_objective(&Objective {
            kind: ObjectiveKind::Roas,
            target: 4.0,
        });
        // Value 500 on cost 100: ROAS 5 > 4.
        assert_eq!(
            roas.day(&day(100_000_000, 500_000_000, 0.0, 0)),
            100_000_000.0
        );
        assert!(roas.day(&day(100_000_000, 300_000_000, 0.0, 0)) < 0.0);
    }

    #[test]
    fn volume_objectives_count_their_kpi_and_a_scenario_counts_profit() {
        let d = day(100_000_000, 300_000_000, 7.5, 1_200);
        let of = |kind, target| Utility::of_objective(&Objective { kind, target }).day(&d);
        assert_eq!(of(ObjectiveKind::Revenue, 1.0), 300_000_000.0);
        assert_eq!(of(ObjectiveKind::Leads, 1.0), 7.5);
        assert_eq!(of(ObjectiveKind::Installs, 1.0), 7.5);
        assert_eq!(of(ObjectiveKind::Awareness, 1.0), 1_200.0);
        assert_eq!(Utility::default().day(&d), 200_000_000.0);
    }
}
