//! Google's budget rules for one campaign with an average daily budget B,
//! as Google Ads Help documents them ("About average daily budgets", "How
//! budget changes affect spend"): on any day spend may reach up to 2B; in
//! a calendar month the charging limit is 30.4 × B; when B changes
//! mid-month the month's limit becomes what was spent so far this month
//! plus the new B × the days left in the month; and what is delivered past
//! either cap is credited back, not charged. Platform pacing aims at B a
//! day scaled by the day's expected traffic.

use serde::{Deserialize, Serialize};

use super::calendar::Date;

/// Average days in a month: Google's monthly charging limit is 30.4 × B.
pub const DAYS_PER_MONTH: f64 = 30.4;
/// Google may spend up to twice the average daily budget on one day.
pub const DAILY_OVERDELIVERY: i64 = 2;

/// Which limit stopped a campaign from entering an auction, or which one
/// a charge went past.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Cap {
    /// 2 × the average daily budget, per day.
    Daily,
    /// The month's charging limit.
    Monthly,
}

/// The part of a charge delivered past a cap: credited to the advertiser,
/// so it is not spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credit {
    /// The cap the charge went past (the tighter one when both).
    pub cap: Cap,
    /// Micros credited.
    pub micros: i64,
}

/// An account's caps on one day, summed over its campaigns: what the day's
/// spend stays under, and its month's limit as of the day's end.
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

/// The month's charging limit when B holds from the month's first
/// morning: 30.4 × B.
fn full_month_limit(budget_micros: i64) -> i64 {
    (budget_micros as f64 * DAYS_PER_MONTH).floor() as i64
}

/// Spend bookkeeping and pacing state for one campaign.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetLedger {
    budget_micros: i64,
    day_spend_micros: i64,
    month_spend_micros: i64,
    month_limit_micros: i64,
    /// Delivered past a cap and credited, today and this month.
    day_credit_micros: i64,
    month_credit_micros: i64,
    /// Today's pacing target: B × the day's traffic index, at most 2B.
    target_micros: f64,
    traffic_index: f64,
    /// Probability of entering an eligible auction, steered each tick.
    throttle: f64,
    /// Caps whose hit is logged since midnight or the last budget change.
    logged_today: [bool; 2],
    /// The largest daily cap in force since midnight: each charge is held
    /// to 2 × the B of its moment, so the day's spend stays under 2 × the
    /// largest B of the day.
    day_cap_micros: i64,
}

impl BudgetLedger {
    /// A ledger for a campaign created at `tick` of `date`. Created before
    /// the first tick of a month's first day, it has the full month's
    /// 30.4 × B; later, its limit is that of a budget set mid-month with
    /// nothing spent: B × the days left, counting `date` itself.
    pub fn new(budget_micros: i64, date: Date, tick: u32, traffic_index: f64) -> BudgetLedger {
        let mut l = BudgetLedger {
            budget_micros,
            day_spend_micros: 0,
            month_spend_micros: 0,
            month_limit_micros: 0,
            day_credit_micros: 0,
            month_credit_micros: 0,
            target_micros: 0.0,
            traffic_index,
            throttle: 1.0,
            logged_today: [false; 2],
            day_cap_micros: DAILY_OVERDELIVERY * budget_micros,
        };
        l.month_limit_micros = l.limit_from(date, tick);
        l.retarget();
        l
    }

    /// Google's limit for the month from a budget set at `tick` of `date`:
    /// spent so far this month + B × the days left in the month. The day
    /// of the change counts as a whole day left: the market books money
    /// per calendar day, and from the change on that day may already spend
    /// up to 2 × the new B. A budget set before any tick of the month's
    /// first day holds the whole month, so it gets the full 30.4 × B.
    fn limit_from(&self, date: Date, tick: u32) -> i64 {
        if date.day == 1 && tick == 0 {
            return self.month_spend_micros + full_month_limit(self.budget_micros);
        }
        self.month_spend_micros + self.budget_micros * i64::from(date.days_left_in_month())
    }

    fn retarget(&mut self) {
        let b = self.budget_micros as f64;
        self.target_micros = (b * self.traffic_index).min(b * DAILY_OVERDELIVERY as f64);
    }

    /// Midnight: today's spend resets; on the 1st the month resets too, to
    /// the full month's 30.4 × B.
    pub fn start_day(&mut self, date: Date, traffic_index: f64) {
        self.day_spend_micros = 0;
        self.day_credit_micros = 0;
        self.logged_today = [false; 2];
        self.day_cap_micros = DAILY_OVERDELIVERY * self.budget_micros;
        if date.day == 1 {
            self.month_spend_micros = 0;
            self.month_credit_micros = 0;
            self.month_limit_micros = full_month_limit(self.budget_micros);
        }
        self.traffic_index = traffic_index;
        self.retarget();
    }

    /// A new average daily budget from `tick` of `date` on: the month's
    /// limit becomes spent so far + the new B × the days left (see
    /// `limit_from`), so it is never below what was already spent.
    pub fn set_budget(&mut self, budget_micros: i64, date: Date, tick: u32) {
        self.budget_micros = budget_micros;
        // Before the day's first tick nothing was charged under the old B.
        let cap = DAILY_OVERDELIVERY * budget_micros;
        self.day_cap_micros = if tick == 0 {
            cap
        } else {
            self.day_cap_micros.max(cap)
        };
        self.month_limit_micros = self.limit_from(date, tick);
        // New caps: hitting them is news again.
        self.logged_today = [false; 2];
        self.retarget();
    }

    /// Whether the campaign may still enter auctions: both caps have room
    /// left. The last click may go past a cap, as Google's own delivery
    /// does; [`BudgetLedger::charge`] credits what goes past.
    pub fn has_room(&self) -> Result<(), Cap> {
        if self.day_spend_micros >= DAILY_OVERDELIVERY * self.budget_micros {
            return Err(Cap::Daily);
        }
        if self.month_spend_micros >= self.month_limit_micros {
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

    /// Books a delivered charge of `micros`: what fits under both caps
    /// (today's 2 × B of the moment and the month's limit) is spend, the
    /// rest is credited back and returned.
    pub fn charge(&mut self, micros: i64) -> Option<Credit> {
        let day_room = (DAILY_OVERDELIVERY * self.budget_micros - self.day_spend_micros).max(0);
        let month_room = (self.month_limit_micros - self.month_spend_micros).max(0);
        let (cap, room) = if day_room <= month_room {
            (Cap::Daily, day_room)
        } else {
            (Cap::Monthly, month_room)
        };
        let booked = micros.min(room);
        self.day_spend_micros += booked;
        self.month_spend_micros += booked;
        let credited = micros - booked;
        (credited > 0).then(|| {
            self.day_credit_micros += credited;
            self.month_credit_micros += credited;
            Credit {
                cap,
                micros: credited,
            }
        })
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

    /// Whether a pacing draw `u` in [0, 1) lets the campaign enter.
    pub fn admits(&self, u: f64) -> bool {
        u < self.throttle
    }

    /// The average daily budget B in force, micros.
    pub fn budget_micros(&self) -> i64 {
        self.budget_micros
    }

    /// Spend booked today (credits excluded), micros.
    pub fn day_spend_micros(&self) -> i64 {
        self.day_spend_micros
    }

    /// Spend booked this month (credits excluded), micros.
    pub fn month_spend_micros(&self) -> i64 {
        self.month_spend_micros
    }

    /// Delivered past a cap and credited today, micros.
    pub fn day_credit_micros(&self) -> i64 {
        self.day_credit_micros
    }

    /// Delivered past a cap and credited this month, micros.
    pub fn month_credit_micros(&self) -> i64 {
        self.month_credit_micros
    }

    /// This month's charging limit, as of now (a later budget change
    /// moves it).
    pub fn month_limit_micros(&self) -> i64 {
        self.month_limit_micros
    }

    /// Today's daily cap: 2 × the largest B in force since midnight.
    pub fn day_cap_micros(&self) -> i64 {
        self.day_cap_micros
    }

    /// The pacing throttle, in (0, 1].
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
        assert_eq!(l.charge(19_000_000), None);
        assert_eq!(l.has_room(), Ok(()));
        assert_eq!(l.charge(1_000_000), None);
        assert_eq!(l.has_room(), Err(Cap::Daily));
        l.start_day(d(2025, 3, 2), 1.0);
        assert_eq!(l.has_room(), Ok(()));
        assert_eq!(l.day_cap_micros(), 20_000_000);
    }

    #[test]
    fn the_days_cap_is_twice_the_largest_budget_in_force_that_day() {
        let mut l = BudgetLedger::new(10_000_000, d(2025, 3, 3), 0, 1.0);
        l.set_budget(25_000_000, d(2025, 3, 3), 10);
        l.set_budget(5_000_000, d(2025, 3, 3), 20);
        assert_eq!(l.day_cap_micros(), 50_000_000, "2 × the 25 of the morning");
        l.charge(10_000_000);
        assert_eq!(l.has_room(), Err(Cap::Daily), "charges: 2 × B now");
        l.start_day(d(2025, 3, 4), 1.0);
        assert_eq!(l.day_cap_micros(), 10_000_000);
        l.set_budget(3_000_000, d(2025, 3, 4), 0);
        assert_eq!(l.day_cap_micros(), 6_000_000, "set before the first tick");
    }

    #[test]
    fn a_mid_month_budget_change_limits_the_month_to_spent_so_far_plus_new_budget_times_days_left()
    {
        let mut l = BudgetLedger::new(10_000_000, d(2025, 4, 1), 0, 1.0);
        for day in 1..=15 {
            l.start_day(d(2025, 4, day), 1.0);
            l.charge(12_000_000);
        }
        assert_eq!(l.month_spend_micros(), 180_000_000);
        // April has 30 days; from the 16th, 15 are left counting the 16th.
        l.start_day(d(2025, 4, 16), 1.0);
        l.set_budget(20_000_000, d(2025, 4, 16), 0);
        assert_eq!(l.month_limit_micros(), 180_000_000 + 20_000_000 * 15);
        l.charge(7_000_000);
        // Down to 5 at noon on the 21st: the 21st still counts as a day left.
        l.start_day(d(2025, 4, 21), 1.0);
        l.set_budget(5_000_000, d(2025, 4, 21), 24);
        assert_eq!(l.month_limit_micros(), 187_000_000 + 5_000_000 * 10);
        l.start_day(d(2025, 5, 1), 1.0);
        assert_eq!(l.month_limit_micros(), 152_000_000, "30.4 × the 5 in force");
        assert_eq!(l.month_spend_micros(), 0);
    }

    #[test]
    fn spend_past_the_daily_or_monthly_cap_is_credited_not_charged() {
        let mut l = BudgetLedger::new(10_000_000, d(2025, 4, 29), 0, 1.0);
        assert_eq!(l.month_limit_micros(), 20_000_000, "two days left × 10");
        l.charge(15_000_000);
        let credit = l.charge(8_000_000);
        assert_eq!(
            credit,
            Some(Credit {
                cap: Cap::Daily,
                micros: 3_000_000
            })
        );
        assert_eq!(l.day_spend_micros(), 20_000_000, "spend stops at 2B");
        assert_eq!(l.day_credit_micros(), 3_000_000);
        l.start_day(d(2025, 4, 30), 1.0);
        assert_eq!(l.has_room(), Err(Cap::Monthly));
        l.set_budget(4_000_000, d(2025, 4, 30), 0);
        assert_eq!(l.month_limit_micros(), 24_000_000);
        let credit = l.charge(6_000_000);
        assert_eq!(
            credit,
            Some(Credit {
                cap: Cap::Monthly,
                micros: 2_000_000
            })
        );
        assert_eq!(
            l.month_spend_micros(),
            24_000_000,
            "spend stops at the limit"
        );
        assert_eq!(l.month_credit_micros(), 5_000_000);
        assert_eq!(l.has_room(), Err(Cap::Monthly));
    }

    #[test]
    fn a_full_month_at_a_constant_budget_is_charged_thirty_point_four_budgets() {
        let mut l = BudgetLedger::new(1_000_000, d(2025, 1, 1), 0, 1.0);
        let mut delivered = 0;
        // 700k does not divide the caps: the last click of each capped
        // day, and of the month, goes past and is credited.
        for day in 1..=31 {
            l.start_day(d(2025, 1, day), 1.0);
            while l.has_room().is_ok() {
                l.charge(700_000);
                delivered += 700_000;
            }
        }
        assert_eq!(l.month_spend_micros(), 30_400_000);
        assert_eq!(delivered - l.month_credit_micros(), 30_400_000);
        assert!(l.month_credit_micros() > 0);
        assert_eq!(l.has_room(), Err(Cap::Monthly));
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
