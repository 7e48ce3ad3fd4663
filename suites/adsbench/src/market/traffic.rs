//! What traffic arrives: how many opportunities each tick brings (hour and
//! weekday curves, seasonal peaks, promotions) and who they are (a synthetic
//! user and a query). Each tick is a pure function of (seed, day, tick).

use super::calendar::{Date, Weekday, TICKS_PER_DAY};
use super::rng::{key, purpose, Stream};
use super::vocabulary::{QueryCatalog, Vertical};

/// Share of searches per hour of day (local time), a typical diurnal shape.
const HOUR_CURVE: [f64; 24] = [
    0.35, 0.22, 0.15, 0.12, 0.12, 0.18, 0.35, 0.60, 0.85, 1.00, 1.08, 1.12, //
    1.15, 1.12, 1.08, 1.05, 1.05, 1.10, 1.20, 1.30, 1.35, 1.25, 0.95, 0.60,
];

/// Per-vertical weekday factors, Monday first.
const WEEKDAY_CURVE: [[f64; 7]; 6] = [
    [0.92, 0.90, 0.93, 0.97, 1.05, 1.14, 1.09], // retail: weekend shopping
    [1.05, 1.02, 1.00, 0.98, 0.97, 0.96, 1.02], // travel: planned early week
    [1.10, 1.08, 1.05, 1.02, 0.95, 0.85, 0.95], // finance: office hours
    [0.95, 0.95, 0.97, 1.00, 1.03, 1.10, 1.00], // auto: Saturday lots
    [1.08, 1.08, 1.05, 1.00, 0.90, 0.88, 1.01], // education
    [1.10, 1.05, 1.02, 1.00, 0.95, 0.90, 0.98], // health: Monday bookings
];

/// Share of all searches that belong to each vertical.
pub const VERTICAL_SHARE: [f64; 6] = [0.30, 0.18, 0.14, 0.12, 0.12, 0.14];

pub const PROMOTION_DAYS: u8 = 3;
pub const PROMOTION_TRAFFIC: f64 = 1.3;
pub const PROMOTION_CONVERSION: f64 = 1.5;

/// Device of the searcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Device {
    Mobile,
    Desktop,
    Tablet,
}

/// A synthetic searcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct User {
    /// Age band 0..6 (18–24 … 65+).
    pub age: u8,
    /// 0 female, 1 male, 2 undisclosed.
    pub gender: u8,
    pub device: Device,
    /// One bit per vertical the user is in the market for.
    pub interests: u8,
}

impl User {
    pub fn interested_in(&self, v: Vertical) -> bool {
        self.interests & (1 << v.index()) != 0
    }
}

/// One impression opportunity: a user searching a query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Opportunity {
    /// Position within its tick.
    pub index: u32,
    pub query: u32,
    pub vertical: Vertical,
    pub user: User,
    /// A promotion in the vertical raises conversion rates today.
    pub promoted: bool,
    /// Key of this opportunity's own random stream (clicks, conversions,
    /// tie-breaks draw from it, so outcomes are per-opportunity pure too).
    pub key: u64,
}

/// The market's traffic model.
#[derive(Debug, Clone)]
pub struct Traffic {
    seed: u64,
    opportunities_per_day: f64,
    tick_share: [f64; TICKS_PER_DAY as usize],
}

impl Traffic {
    pub fn new(seed: u64, opportunities_per_day: f64) -> Traffic {
        let total: f64 = HOUR_CURVE.iter().sum::<f64>() * 2.0;
        let mut tick_share = [0.0; TICKS_PER_DAY as usize];
        for (t, s) in tick_share.iter_mut().enumerate() {
            *s = HOUR_CURVE[t / 2] / total;
        }
        Traffic {
            seed,
            opportunities_per_day,
            tick_share,
        }
    }

    /// Fraction of a day's traffic that falls in `tick`.
    pub fn tick_share(&self, tick: u32) -> f64 {
        self.tick_share[tick as usize]
    }

    /// Fraction of a day's traffic before `tick` starts.
    pub fn share_before(&self, tick: u32) -> f64 {
        self.tick_share[..tick as usize].iter().sum()
    }

    /// The vertical's promotion window this month: `PROMOTION_DAYS` days from
    /// a seeded start, one per vertical per month.
    pub fn promotion_start(&self, v: Vertical, date: Date) -> u8 {
        let mut s = Stream::at(&[
            self.seed,
            purpose::PROMOTION,
            v as u64,
            date.year as u64,
            u64::from(date.month),
        ]);
        1 + s.below(u32::from(date.days_in_month() - PROMOTION_DAYS) + 1) as u8
    }

    pub fn promoted(&self, v: Vertical, date: Date) -> bool {
        let start = self.promotion_start(v, date);
        (start..start + PROMOTION_DAYS).contains(&date.day)
    }

    /// Expected traffic of `v` on `date` relative to an ordinary day.
    pub fn day_factor(&self, v: Vertical, date: Date) -> f64 {
        let promo = if self.promoted(v, date) {
            PROMOTION_TRAFFIC
        } else {
            1.0
        };
        WEEKDAY_CURVE[v.index()][date.weekday().index()] * seasonal(v, date) * promo
    }

    /// The whole market's expected traffic on `date` relative to an
    /// ordinary day: the platform paces daily budgets by it.
    pub fn traffic_index(&self, date: Date) -> f64 {
        Vertical::ALL
            .iter()
            .map(|&v| VERTICAL_SHARE[v.index()] * self.day_factor(v, date))
            .sum()
    }

    /// Fills `out` with the opportunities of one tick (cleared first).
    pub fn generate(
        &self,
        catalog: &QueryCatalog,
        day: u32,
        date: Date,
        tick: u32,
        out: &mut Vec<Opportunity>,
    ) {
        out.clear();
        for v in Vertical::ALL {
            let mut s = Stream::at(&[
                self.seed,
                purpose::VOLUME,
                u64::from(day),
                u64::from(tick),
                v as u64,
            ]);
            let expected = self.opportunities_per_day
                * VERTICAL_SHARE[v.index()]
                * self.tick_share(tick)
                * self.day_factor(v, date);
            // Day-to-day noise on top of the curves (σ = 0.1 lognormal).
            let noisy = expected * s.lognormal(-0.005, 0.1);
            let n = s.round_stochastic(noisy);
            let promoted = self.promoted(v, date);
            for _ in 0..n {
                let index = out.len() as u32;
                let k = key(&[
                    self.seed,
                    purpose::OPPORTUNITY,
                    u64::from(day),
                    u64::from(tick),
                    u64::from(index),
                ]);
                let mut r = Stream::new(k);
                let query = catalog.sample(v, r.uniform());
                let device = match r.below(20) {
                    0..=11 => Device::Mobile,
                    12..=17 => Device::Desktop,
                    _ => Device::Tablet,
                };
                // In-market for the vertical searched about half the time, plus
                // unrelated interests at random.
                let mut interests = (r.next_u64() & (r.next_u64() >> 8) & 0x3f) as u8;
                if r.bernoulli(0.5) {
                    interests |= 1 << v.index();
                } else {
                    interests &= !(1 << v.index());
                }
                let user = User {
                    age: r.below(6) as u8,
                    gender: r.below(3) as u8,
                    device,
                    interests,
                };
                out.push(Opportunity {
                    index,
                    query,
                    vertical: v,
                    user,
                    promoted,
                    key: mix_key(k),
                });
            }
        }
    }
}

/// A separate key for outcome draws, so they never replay the numbers
/// that generated the opportunity.
fn mix_key(k: u64) -> u64 {
    key(&[k, 0x5eed])
}

/// Seasonal peaks by vertical and calendar date.
pub fn seasonal(v: Vertical, date: Date) -> f64 {
    let (m, d) = (date.month, date.day);
    match v {
        Vertical::Retail => {
            let bf = black_friday(date.year);
            let from_bf = date.days_since_epoch() - bf.days_since_epoch();
            if (0..=3).contains(&from_bf) {
                2.0 // Black Friday through Cyber Monday
            } else if m == 12 && d <= 23 {
                1.4
            } else {
                1.0
            }
        }
        Vertical::Travel if m == 1 || m == 6 || m == 7 => 1.3,
        Vertical::Finance if (m == 1 && d >= 15) || m == 2 || m == 3 || (m == 4 && d <= 15) => 1.2,
        Vertical::Auto if (3..=5).contains(&m) => 1.15,
        Vertical::Education if (m == 8 && d >= 15) || (m == 9 && d <= 15) => 1.5,
        Vertical::Health if m == 1 => 1.4,
        _ => 1.0,
    }
}

/// The day after Thanksgiving (the fourth Thursday of November).
pub fn black_friday(year: i32) -> Date {
    let first = Date {
        year,
        month: 11,
        day: 1,
    };
    let to_thursday = (Weekday::Thursday.index() + 7 - first.weekday().index()) % 7;
    first.plus_days(to_thursday as i64 + 21 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tick_is_a_pure_function_of_its_coordinates() {
        let cat = QueryCatalog::new();
        let t = Traffic::new(11, 50_000.0);
        let date = Date::new(2025, 3, 10).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        t.generate(&cat, 4, date, 20, &mut a);
        // Generate other ticks in between: no hidden state may leak.
        t.generate(&cat, 1, date, 3, &mut b);
        t.generate(&cat, 4, date, 20, &mut b);
        assert!(!a.is_empty());
        assert_eq!(a, b);
        t.generate(&cat, 4, date, 21, &mut b);
        assert_ne!(a, b);
    }

    #[test]
    fn curves_shape_volume() {
        let cat = QueryCatalog::new();
        let t = Traffic::new(3, 100_000.0);
        let date = Date::new(2025, 3, 10).unwrap();
        let mut buf = Vec::new();
        let mut count = |tick| {
            t.generate(&cat, 0, date, tick, &mut buf);
            buf.len()
        };
        let night = count(8);
        let evening = count(40);
        assert!(evening > 5 * night, "evening {evening} vs 4am {night}");
        let day_total: f64 = (0..TICKS_PER_DAY).map(|k| t.tick_share(k)).sum();
        assert!((day_total - 1.0).abs() < 1e-12);
        assert_eq!(black_friday(2025), Date::new(2025, 11, 28).unwrap());
        assert_eq!(black_friday(2024), Date::new(2024, 11, 29).unwrap());
        assert!(
            t.traffic_index(Date::new(2025, 11, 28).unwrap())
                > t.traffic_index(Date::new(2025, 11, 12).unwrap())
        );
    }

    #[test]
    fn one_promotion_window_per_vertical_per_month() {
        let t = Traffic::new(5, 1.0);
        for v in Vertical::ALL {
            let days = (1..=30)
                .filter(|&d| t.promoted(v, Date::new(2025, 6, d).unwrap()))
                .count();
            assert_eq!(days, PROMOTION_DAYS as usize);
        }
    }
}
