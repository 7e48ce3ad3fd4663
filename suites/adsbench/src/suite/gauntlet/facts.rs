//! What follows from a task's fields: its budget stratum, its calendar
//! (the market starts `warmup_days` before the agent), times of events and
//! oracle steps on the market's clock, and the [`Scenario`] it runs as.

use super::super::scenario::Scenario;
use super::task::Task;
use crate::market::{Date, SimTime};
use serde::{Deserialize, Serialize};

/// Budget strata by daily budget (currency): micro under 100, small to
/// 1,000, medium to 5,000, large to 50,000, enterprise above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stratum {
    /// Under 100 a day.
    Micro,
    /// 100 to 1,000 a day.
    Small,
    /// Over 1,000 to 5,000 a day.
    Medium,
    /// Over 5,000 to 50,000 a day.
    Large,
    /// Over 50,000 a day.
    Enterprise,
}

impl Stratum {
    /// Every stratum, smallest first.
    pub const ALL: [Stratum; 5] = [
        Stratum::Micro,
        Stratum::Small,
        Stratum::Medium,
        Stratum::Large,
        Stratum::Enterprise,
    ];

    /// The stratum of a daily budget in micros.
    pub fn of(budget_micros: i64) -> Stratum {
        const UNIT: i64 = 1_000_000;
        match budget_micros {
            b if b < 100 * UNIT => Stratum::Micro,
            b if b <= 1_000 * UNIT => Stratum::Small,
            b if b <= 5_000 * UNIT => Stratum::Medium,
            b if b <= 50_000 * UNIT => Stratum::Large,
            _ => Stratum::Enterprise,
        }
    }
}

/// `YYYY-MM-DDTHH:MM` on a half hour, as (date, tick of the day).
pub fn parse_at(text: &str) -> Option<(Date, u32)> {
    let (date, time) = text.split_once('T')?;
    let date = Date::parse(date).ok()?;
    let (h, m) = time.split_once(':')?;
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    if h > 23 || !(m == 0 || m == 30) || time.len() != 5 {
        return None;
    }
    Some((date, h * 2 + m / 30))
}

impl Task {
    /// The budget stratum of the account's daily budget.
    pub fn stratum(&self) -> Stratum {
        Stratum::of(self.scenario.budget_micros)
    }

    /// The agent's first day.
    ///
    /// # Errors
    /// A start date that is not a date (the task's checks refuse it).
    pub fn start_date(&self) -> Result<Date, String> {
        Date::parse(&self.scenario.start_date).map_err(|e| e.to_string())
    }

    /// The market's first day: the warm-up's first, or the agent's.
    ///
    /// # Errors
    /// See [`Task::start_date`].
    pub fn market_start(&self) -> Result<Date, String> {
        Ok(self
            .start_date()?
            .plus_days(-i64::from(self.scenario.warmup_days)))
    }

    /// Days the market runs: the warm-up and the agent's.
    pub fn market_days(&self) -> u32 {
        self.scenario.warmup_days + self.scenario.days
    }

    /// The agent's first decision on the market's clock.
    pub fn agent_start(&self) -> SimTime {
        SimTime {
            day: self.scenario.warmup_days,
            tick: 0,
        }
    }

    /// The agent's days, first and last.
    ///
    /// # Errors
    /// See [`Task::start_date`].
    pub fn agent_dates(&self) -> Result<(Date, Date), String> {
        let first = self.start_date()?;
        Ok((
            first,
            first.plus_days(i64::from(self.scenario.days.max(1)) - 1),
        ))
    }

    /// The `[[oracle]]` steps with their tick on the market's clock, in
    /// time order (a loaded task: every step's time is valid).
    pub fn oracle_timeline(&self) -> Vec<(u64, super::task::OracleStep)> {
        let mut steps: Vec<(u64, super::task::OracleStep)> = self
            .oracle
            .iter()
            .filter_map(|s| Some((self.time_of(&s.at)?.ordinal(), s.clone())))
            .collect();
        steps.sort_by_key(|(t, _)| *t);
        steps
    }

    /// The reference solution's operation count: its steps, each one
    /// operation (a `set` names one resource, a create makes one), which
    /// the composite's operations economy measures an agent against.
    pub fn reference_operations(&self) -> u64 {
        self.oracle_timeline().len() as u64
    }

    /// `at` (`YYYY-MM-DDTHH:MM`) on the market's clock, if it falls within
    /// the market's days.
    pub fn time_of(&self, at: &str) -> Option<SimTime> {
        let (date, tick) = parse_at(at)?;
        let day = date.days_since_epoch() - self.market_start().ok()?.days_since_epoch();
        let day = u32::try_from(day)
            .ok()
            .filter(|d| *d < self.market_days())?;
        Some(SimTime { day, tick })
    }

    /// The date of a day of the market's clock.
    ///
    /// # Errors
    /// See [`Task::start_date`].
    pub fn date_of(&self, day: u32) -> Result<Date, String> {
        Ok(self.market_start()?.plus_days(i64::from(day)))
    }

    /// The scenario the task runs as: the market from its first warm-up
    /// day, the account's budget, the cadence. The account itself is the
    /// task's, not the scenario's scripted one, and the events are the
    /// task's (see `run`).
    ///
    /// # Errors
    /// See [`Task::start_date`].
    pub fn as_scenario(&self) -> Result<Scenario, String> {
        let s = &self.scenario;
        Ok(Scenario {
            seed: s.seed,
            start_date: self.market_start()?.to_string(),
            days: self.market_days(),
            mechanism: s.mechanism.clone(),
            budget_micros: s.budget_micros,
            opportunities_per_day: s.opportunities_per_day,
            budget_change: None,
            cadence: s.cadence,
            kill_switch: false,
            roas_floor: None,
            drain: None,
            special_category: s.special_category,
            exclude: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strata_split_at_the_issue_s_bounds() {
        let m = 1_000_000;
        assert_eq!(Stratum::of(99 * m), Stratum::Micro);
        assert_eq!(Stratum::of(100 * m), Stratum::Small);
        assert_eq!(Stratum::of(1_000 * m), Stratum::Small);
        assert_eq!(Stratum::of(1_000 * m + 1), Stratum::Medium);
        assert_eq!(Stratum::of(5_000 * m), Stratum::Medium);
        assert_eq!(Stratum::of(50_000 * m), Stratum::Large);
        assert_eq!(Stratum::of(50_001 * m), Stratum::Enterprise);
    }

    #[test]
    fn times_are_half_hours_of_a_date() {
        let d = Date::new(2025, 3, 4).expect("a date");
        assert_eq!(parse_at("2025-03-04T09:00"), Some((d, 18)));
        assert_eq!(parse_at("2025-03-04T23:30"), Some((d, 47)));
        assert_eq!(parse_at("2025-03-04T09:15"), None);
        assert_eq!(parse_at("2025-03-04T24:00"), None);
        assert_eq!(parse_at("2025-03-04 09:00"), None);
        assert_eq!(parse_at("2025-03-04T9:00"), None);
    }
}
