//! "Good creative" benchmarks by industry × creative type, effective-dated:
//! the platform revised them on 2026-07-01 (video benchmarks up, as video
//! inventory grew), so a question asked after that date gets another answer.

use crate::world::catalog::{CreativeType, Industry};
use crate::world::Day;

/// The day the revised benchmarks take effect.
pub fn revision_day() -> Day {
    Day::ymd(2026, 7, 1).expect("valid")
}

/// Benchmarks a creative must reach to count as good.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Benchmark {
    /// Minimum CTR in percent.
    pub ctr_pct: f64,
    /// Minimum conversion rate (conversions / clicks) in percent.
    pub cvr_pct: f64,
    /// Minimum spend over the window in CNY, so tiny tests do not rank.
    pub min_cost_cny: f64,
}

/// The benchmark in force on `day`.
pub fn benchmark(industry: Industry, kind: CreativeType, day: Day) -> Benchmark {
    let ctr = industry.base_ctr() * 100.0 * kind.ctr_factor();
    let cvr = industry.base_cvr() * 100.0;
    let revised = day >= revision_day();
    let (ctr_mult, cvr_mult) = match (kind, revised) {
        (CreativeType::Image, false) => (1.1, 1.0),
        (CreativeType::Image, true) => (1.05, 1.05),
        (CreativeType::Video, false) => (1.0, 0.95),
        (CreativeType::Video, true) => (1.2, 1.1),
    };
    Benchmark {
        ctr_pct: round2(ctr * ctr_mult),
        cvr_pct: round2(cvr * cvr_mult),
        min_cost_cny: if revised { 300.0 } else { 200.0 },
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
