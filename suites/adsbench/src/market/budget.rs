//! Google's budget rules for one campaign: an average daily budget B, at
//! most 2B charged on any day, at most 30.4 × B in a calendar month
//! (recomputed piecewise when B changes mid-month), and platform pacing
//! that aims at B a day scaled by the day's expected traffic.

use serde::{Deserialize, Serialize};

use super::calendar::{Date, TICKS_PER_DAY};

/// Average days in a month: Google's monthly charging limit is 30.4 × B.
pub const DAYS_PER_MONTH: f64 = 30.4;
/// Google may spend up to twice the average daily budget on one day.
pub const DAILY_OVERDELIVERY: i64 = 2;

/// Days since the month began at `tick` of `date` (fractional).
fn month_position(date: Date, tick: u32) -> f64 {
    f64::from(date.day - 1) + f64::from(tick) / f64::from(TICKS_PER_DAY)
}

/// Which limit stopped a campaign from entering an auction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Cap {
    Daily,
    Monthly,
}

/// An account's caps on one day, summed over its campaigns: what the day's
/// spend stays under, and its month's piecewise limit as of the day's end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayCaps {
    /// Σ 2 × the largest B in force that day.
    pub day_cap_micros: i64,
    /// Σ of the month limits at midnight (a later change that month moves
    /// the month's limit; its last day holds the final one).
    pub month_limit_micros: i64,
}

impl DayCaps {
    /// The caps of `ledgers` now, at the end of a day.
    pub fn of(ledgers: &[BudgetLedger]) -> DayCaps {
        ledgers.iter().fold(DayCaps::default(), |c, l| DayCaps {
            day_cap_micros: c.day_cap_micros + l.day_cap_micros,
            month_limit_micros: c.month_limit_micros + l.month_limit_micros,
        })
    }
}

/// Spend bookkeeping and pacing state for one campaign.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetLedger {
    budget_micros: i64,
    day_spend_micros: i64,
    month_spend_micros: i64,
    month_limit_micros: i64,
    /// Allowance earned this month under earlier budgets, and when (days
    /// into the month) the current budget took effect.
    earlier_allowance_micros: f64,
    segment_start: f64,
    /// Today's pacing target: B × the day's traffic index, at most 2B.
    target_micros: f64,
    traffic_index: f64,
    /// Probability of entering an eligible auction, steered each tick.
    throttle: f64,
    /// Caps whose hit is logged since midnight or the last budget change.
    logged_today: [bool; 2],
    /// The largest daily cap in force since midnight: `fits` holds each
    /// charge to 2 × the B of its moment, so the day's spend stays under
    /// 2 × the largest B of the day.
    day_cap_micros: i64,
}

impl BudgetLedger {
    /// A ledger for a campaign created at `tick` of `date`: its month limit
    /// covers only what is left of the month.
    pub fn new(budget_micros: i64, date: Date, tick: u32, traffic_index: f64) -> BudgetLedger {
        let mut l = BudgetLedger {
            budget_micros,
            day_spend_micros: 0,
            month_spend_micros: 0,
            month_limit_micros: 0,
            earlier_allowance_micros: 0.0,
            segment_start: month_position(date, tick),
            target_micros: 0.0,
            traffic_index,
            throttle: 1.0,
            logged_today: [false; 2],
            day_cap_micros: DAILY_OVERDELIVERY * budget_micros,
        };
        l.month_limit_micros = l.limit(date, tick);
        l.retarget();
        l
    }

    /// Allowance of past segments plus the current B's share of the rest
    /// of the month: B × 30.4 / (days in month) per day.
    fn limit(&self, date: Date, tick: u32) -> i64 {
        let rest = f64::from(date.days_in_month()) - month_position(date, tick);
        (self.earlier_allowance_micros + self.per_day_allowance(date) * rest).floor() as i64
    }

    fn per_day_allowance(&self, date: Date) -> f64 {
        self.budget_micros as f64 * DAYS_PER_MONTH / f64::from(date.days_in_month())
    }

    fn retarget(&mut self) {
        let b = self.budget_micros as f64;
        self.target_micros = (b * self.traffic_index).min(b * DAILY_OVERDELIVERY as f64);
    }

    /// Midnight: today's spend resets; on the 1st the month resets too.
    pub fn start_day(&mut self, date: Date, traffic_index: f64) {
        self.day_spend_micros = 0;
        self.logged_today = [false; 2];
        self.day_cap_micros = DAILY_OVERDELIVERY * self.budget_micros;
        if date.day == 1 {
            self.month_spend_micros = 0;
            self.earlier_allowance_micros = 0.0;
            self.segment_start = 0.0;
            self.month_limit_micros = self.limit(date, 0);
        }
        self.traffic_index = traffic_index;
        self.retarget();
    }

    /// A new average daily budget from `tick` of `date` on. The month
    /// limit is piecewise: 30.4 / (days in month) × Σ B × (days under B), so
    /// it never exceeds 30.4 × the largest B of the month, and equals
    /// 30.4 × B when B holds all month. Spend already above it just stops
    /// further spend (nothing is refunded).
    pub fn set_budget(&mut self, budget_micros: i64, date: Date, tick: u32) {
        let now = month_position(date, tick);
        self.earlier_allowance_micros += self.per_day_allowance(date) * (now - self.segment_start);
        self.segment_start = now;
        self.budget_micros = budget_micros;
        // Before the day's first tick nothing was charged under the old B.
        let cap = DAILY_OVERDELIVERY * budget_micros;
        self.day_cap_micros = if tick == 0 {
            cap
        } else {
            self.day_cap_micros.max(cap)
        };
        self.month_limit_micros = self.limit(date, tick);
        // New caps: hitting them is news again.
        self.logged_today = [false; 2];
        self.retarget();
    }

    /// Whether a charge of up to `max_price` fits both caps.
    pub fn fits(&self, max_price_micros: i64) -> Result<(), Cap> {
        if self.day_spend_micros + max_price_micros > DAILY_OVERDELIVERY * self.budget_micros {
            return Err(Cap::Daily);
        }
        if self.month_spend_micros + max_price_micros > self.month_limit_micros {
            return Err(Cap::Monthly);
        }
        Ok(())
    }

    /// True the first time `cap` is hit today or since the last budget
    /// change (so each time a cap starts binding is logged once).
    pub fn note_hit(&mut self, cap: Cap) -> bool {
        let seen = &mut self.logged_today[cap as usize];
        !std::mem::replace(seen, true)
    }

    pub fn charge(&mut self, micros: i64) {
        self.day_spend_micros += micros;
        self.month_spend_micros += micros;
    }

    /// Steers the throttle towards the day's plan: `share_before` is the
    /// share of the day's traffic already past.
    pub fn pace(&mut self, share_before: f64) {
        let planned = self.target_micros * share_before;
        if planned <= 0.0 {
            return;
        }
        let ratio = self.day_spend_micros as f64 / planned;
        if ratio > 1.05 {
            self.throttle = (self.throttle * 0.7).max(0.02);
        } else if ratio < 0.9 {
            self.throttle = (self.throttle * 1.3).min(1.0);
        }
    }

    pub fn admits(&self, u: f64) -> bool {
        u < self.throttle
    }

    pub fn budget_micros(&self) -> i64 {
        self.budget_micros
    }

    pub fn day_spend_micros(&self) -> i64 {
        self.day_spend_micros
    }

    pub fn month_spend_micros(&self) -> i64 {
        self.month_spend_micros
    }

    /// This month's piecewise limit, as of now (a later budget change
    /// moves it).
    pub fn month_limit_micros(&self) -> i64 {
        self.month_limit_micros
    }

    /// Today's daily cap: 2 × the largest B in force since midnight.
    pub fn day_cap_micros(&self) -> i64 {
        self.day_cap_micros
    }

    pub fn throttle(&self) -> f64 {
        self.throttle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u8, day: u8) -> Date {
        Date::new(y, m, day).unwrap()
    }

    #[test]
    fn daily_cap_is_twice_the_budget() {
        let mut l = BudgetLedger::new(10_000_000, d(2025, 3, 1), 0, 1.0);
        assert_eq!(l.month_limit_micros(), 304_000_000);
        l.charge(19_000_000);
        assert_eq!(l.fits(1_000_000), Ok(()));
        assert_eq!(l.fits(1_000_001), Err(Cap::Daily));
        l.start_day(d(2025, 3, 2), 1.0);
        assert_eq!(l.fits(1_000_001), Ok(()));
        assert_eq!(l.day_cap_micros(), 20_000_000);
    }

    #[test]
    fn the_days_cap_is_twice_the_largest_budget_in_force_that_day() {
        let mut l = BudgetLedger::new(10_000_000, d(2025, 3, 3), 0, 1.0);
        l.set_budget(25_000_000, d(2025, 3, 3), 10);
        l.set_budget(5_000_000, d(2025, 3, 3), 20);
        assert_eq!(l.day_cap_micros(), 50_000_000, "2 × the 25 of the morning");
        assert_eq!(l.fits(10_000_001), Err(Cap::Daily), "charges: 2 × B now");
        l.start_day(d(2025, 3, 4), 1.0);
        assert_eq!(l.day_cap_micros(), 10_000_000);
        l.set_budget(3_000_000, d(2025, 3, 4), 0);
        assert_eq!(l.day_cap_micros(), 6_000_000, "set before the first tick");
    }

    #[test]
    fn monthly_limit_is_piecewise_when_the_budget_changes() {
        let mut l = BudgetLedger::new(10_000_000, d(2025, 4, 1), 0, 1.0);
        for day in 1..=15 {
            l.start_day(d(2025, 4, day), 1.0);
            l.charge(12_000_000);
        }
        // Halfway through April (30 days): B → 20 at tick 0 of the 16th, so
        // the limit is 30.4/30 × (10 × 15 + 20 × 15) whatever was spent.
        l.start_day(d(2025, 4, 16), 1.0);
        l.set_budget(20_000_000, d(2025, 4, 16), 0);
        assert_eq!(l.month_limit_micros(), 456_000_000);
        // Down to 5 at noon on the 21st: 30.4/30 × (150 + 20 × 5.5 + 5 × 9.5).
        l.set_budget(5_000_000, d(2025, 4, 21), 24);
        assert_eq!(l.month_limit_micros(), 311_600_000);
        l.start_day(d(2025, 5, 1), 1.0);
        assert_eq!(l.month_limit_micros(), 152_000_000, "30.4 × the 5 in force");
        assert_eq!(l.month_spend_micros(), 0);
    }

    #[test]
    fn monthly_limit_binds_in_a_31_day_month() {
        let mut l = BudgetLedger::new(1_000_000, d(2025, 1, 1), 0, 1.0);
        let mut spent = 0;
        for day in 1..=31 {
            l.start_day(d(2025, 1, day), 1.0);
            while l.fits(100_000).is_ok() {
                l.charge(100_000);
                spent += 100_000;
            }
        }
        assert_eq!(spent, 30_400_000);
        assert_eq!(l.fits(100_000), Err(Cap::Monthly));
    }

    #[test]
    fn pacing_throttles_when_ahead_and_opens_when_behind() {
        let mut l = BudgetLedger::new(10_000_000, d(2025, 1, 6), 0, 1.0);
        l.charge(9_000_000);
        l.pace(0.25);
        assert!(l.throttle() < 1.0);
        let low = l.throttle();
        l.start_day(d(2025, 1, 7), 1.0);
        l.pace(0.25);
        assert!(l.throttle() > low);
        assert!(l.note_hit(Cap::Daily));
        assert!(!l.note_hit(Cap::Daily));
        l.set_budget(20_000_000, d(2025, 1, 7), 30);
        assert!(l.note_hit(Cap::Daily), "a new budget's cap is a new hit");
    }
}
