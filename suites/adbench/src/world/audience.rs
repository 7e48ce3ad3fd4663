//! Audience splits of the daily report: a group-day total divided by
//! gender, age band, province or city with seeded multinomial splits, so
//! every audience grouping sums to the total. Cities refine provinces.

use super::calendar::Day;
use super::catalog::{Industry, AGES, CITIES, CITY_WEIGHTS, REGIONS, REGION_WEIGHTS};
use super::counts::Counts;
use super::delivery::{split_counts, Rates};
use super::rng::{hash, mix, uniform};
use super::World;

/// Hash purposes for audience draws.
mod tag {
    pub const GENDER: u64 = 104;
    pub const AGE: u64 = 105;
    pub const REGION: u64 = 106;
    pub const CITY: u64 = 107;
    pub const AUDIENCE: u64 = 108;
}

/// An audience dimension of the daily report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// MALE, FEMALE, UNKNOWN.
    Gender,
    /// Age bands.
    Age,
    /// Provinces.
    Region,
    /// Cities (three per province).
    City,
}

impl World {
    /// Splits a group-day total by gender, age band, region or city.
    pub fn audience_split(
        &self,
        g: usize,
        day: Day,
        total: Counts,
        dim: Audience,
        out: &mut Vec<Counts>,
    ) {
        let group = &self.groups[g];
        let ind = self.accounts[group.account].industry;
        let gid = group.id;
        // Stable per-group differences in how each audience cell responds.
        let rel = |d: u64, i: usize| {
            uniform(
                hash(&[self.seed, tag::AUDIENCE, gid, d, i as u64]),
                0.8,
                1.25,
            )
        };
        let key = |t: u64| hash(&[self.seed, t, gid, day.0 as u64]);
        match dim {
            Audience::Gender => {
                let male = match ind {
                    Industry::Game | Industry::Automotive | Industry::Finance => 1.4,
                    _ => 0.8,
                };
                let base = [male, 1.0, 0.15];
                let rates: Vec<Rates> = (0..3)
                    .map(|i| {
                        let on = group.genders >> i & 1 == 1;
                        Rates {
                            views: if on { base[i] } else { 0.0 },
                            ctr: rel(0, i),
                            cpc: 1.0,
                            cvr: rel(1, i),
                            deep: 1.0,
                        }
                    })
                    .collect();
                split_counts(key(tag::GENDER), total, &rates, out);
            }
            Audience::Age => {
                const BASE: [f64; 6] = [0.9, 1.4, 1.3, 0.9, 0.5, 0.2];
                let rates: Vec<Rates> = (0..AGES.len())
                    .map(|i| {
                        let on = group.ages >> i & 1 == 1;
                        Rates {
                            views: if on { BASE[i] } else { 0.0 },
                            ctr: rel(2, i),
                            cpc: 1.0,
                            cvr: rel(3, i),
                            deep: 1.0,
                        }
                    })
                    .collect();
                split_counts(key(tag::AGE), total, &rates, out);
            }
            Audience::Region => {
                let rates: Vec<Rates> = (0..REGIONS.len())
                    .map(|i| {
                        let on = group.regions >> i & 1 == 1;
                        Rates {
                            views: if on { REGION_WEIGHTS[i] } else { 0.0 },
                            ctr: rel(4, i),
                            cpc: 1.0,
                            cvr: rel(5, i),
                            deep: 1.0,
                        }
                    })
                    .collect();
                split_counts(key(tag::REGION), total, &rates, out);
            }
            Audience::City => {
                // Cities refine the region split, so cities of a region sum to it.
                let mut regions = Vec::new();
                self.audience_split(g, day, total, Audience::Region, &mut regions);
                out.clear();
                let mut part = Vec::new();
                for (r, counts) in regions.iter().enumerate() {
                    let rates: Vec<Rates> = (0..3)
                        .map(|j| Rates::traffic(CITY_WEIGHTS[r * 3 + j]))
                        .collect();
                    split_counts(mix(key(tag::CITY) ^ r as u64), *counts, &rates, &mut part);
                    out.extend_from_slice(&part);
                }
                debug_assert_eq!(out.len(), CITIES.len());
            }
        }
    }
}
