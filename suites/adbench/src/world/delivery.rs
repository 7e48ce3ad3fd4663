//! How much each ad group delivers, generated top-down: a full-day total per
//! (ad group, day) from a hash of (seed, group, day), then seeded multinomial
//! splits into creative × site-set cells, into hours, and into audience
//! cells. Splits preserve sums by construction, so every grouping adds up to
//! the total, and a query at ad-group level never computes a finer cell.

use super::calendar::{season_factor, weekday_factor, Day};
use super::catalog::{Audit, SiteSet, AGES, CITIES, CITY_WEIGHTS, REGIONS, REGION_WEIGHTS};
use super::counts::Counts;
use super::entities::{epoch, AdGroup};
use super::rng::{binomial, gamma_factor, hash, mix, poisson, split, uniform};
use super::World;

/// Relative rates of one cell of a split: traffic weight and how its CTR,
/// price, conversion and deep-conversion rates compare with its siblings'.
#[derive(Debug, Clone, Copy)]
pub struct Rates {
    /// Share of impressions (unnormalised).
    pub views: f64,
    /// Relative click-through rate.
    pub ctr: f64,
    /// Relative price per click.
    pub cpc: f64,
    /// Relative conversion rate.
    pub cvr: f64,
    /// Relative deep-conversion rate.
    pub deep: f64,
}

impl Rates {
    /// A cell that differs from its siblings only in traffic.
    pub fn traffic(views: f64) -> Rates {
        Rates { views, ctr: 1.0, cpc: 1.0, cvr: 1.0, deep: 1.0 }
    }
}

/// One creative × site-set cell of an ad group's day.
#[derive(Debug, Clone, Copy)]
pub struct Cell {
    /// Creative index in the world.
    pub creative: usize,
    /// Site set served.
    pub site: SiteSet,
    /// Delivery of the cell.
    pub counts: Counts,
}

/// Hash purposes for delivery draws.
mod tag {
    pub const TOTAL: u64 = 101;
    pub const CELLS: u64 = 102;
    pub const HOURS: u64 = 103;
    pub const GENDER: u64 = 104;
    pub const AGE: u64 = 105;
    pub const REGION: u64 = 106;
    pub const CITY: u64 = 107;
    pub const AUDIENCE: u64 = 108;
}

/// Splits `total` over cells with the given relative rates, keeping
/// clicks ≤ views, conversions ≤ clicks and deep ≤ conversions in each cell.
pub fn split_counts(key: u64, total: Counts, rates: &[Rates], out: &mut Vec<Counts>) {
    out.clear();
    let m = rates.len();
    if m == 0 {
        return;
    }
    let mut a = Vec::with_capacity(m);
    let mut b = Vec::with_capacity(m);
    let mut w: Vec<f64> = rates.iter().map(|r| r.views).collect();
    split(mix(key ^ 1), total.views, &w, None, &mut a);
    for i in 0..m {
        w[i] = a[i] as f64 * rates[i].ctr;
    }
    split(mix(key ^ 2), total.clicks, &w, Some(&a), &mut b);
    for i in 0..m {
        out.push(Counts { views: a[i], clicks: b[i], ..Counts::default() });
        w[i] = b[i] as f64 * rates[i].cpc;
    }
    split(mix(key ^ 3), total.cost, &w, None, &mut a);
    for i in 0..m {
        out[i].cost = a[i];
        w[i] = b[i] as f64 * rates[i].cvr;
    }
    split(mix(key ^ 4), total.conversions, &w, Some(&b), &mut a);
    for i in 0..m {
        out[i].conversions = a[i];
        w[i] = a[i] as f64 * rates[i].deep;
    }
    split(mix(key ^ 5), total.deep, &w, Some(&a), &mut b);
    for i in 0..m {
        out[i].deep = b[i];
    }
}

impl World {
    /// The creative × site-set cells an ad group could serve on `day`, with
    /// their rates; empty when the group, its account or all its creatives
    /// are off that day.
    pub fn cell_rates(&self, g: usize, day: Day, out: &mut Vec<(usize, SiteSet, Rates)>) {
        out.clear();
        let group = &self.groups[g];
        if !group.serves_on(day) || self.accounts[group.account].audit_on(day) != Audit::Approved {
            return;
        }
        for &c in &group.creatives {
            let cr = &self.creatives[c];
            let appeal = cr.appeal_on(day);
            if appeal <= 0.0 {
                continue;
            }
            for &(site, weight) in &group.site_sets {
                out.push((
                    c,
                    site,
                    Rates {
                        views: weight * appeal.sqrt(),
                        ctr: cr.kind.ctr_factor() * site.ctr_factor() * appeal,
                        cpc: site.cpc_factor(),
                        cvr: site.cvr_factor(),
                        deep: 1.0,
                    },
                ));
            }
        }
    }

    /// The full-day delivery of ad group `g` on `day`, as if the day were
    /// complete (today's partial day is cut by [`World::group_day`]).
    pub fn group_day_full(&self, g: usize, day: Day) -> Counts {
        let mut cells = Vec::new();
        self.cell_rates(g, day, &mut cells);
        self.total_from_rates(g, day, &cells)
    }

    fn total_from_rates(&self, g: usize, day: Day, cells: &[(usize, SiteSet, Rates)]) -> Counts {
        if cells.is_empty() {
            return Counts::default();
        }
        let group = &self.groups[g];
        let account = &self.accounts[group.account];
        let ind = account.industry;
        let (mut wv, mut wctr, mut wcpc, mut wcvr) = (0.0, 0.0, 0.0, 0.0);
        for (_, _, r) in cells {
            wv += r.views;
            wctr += r.views * r.ctr;
            wcpc += r.views * r.ctr * r.cpc;
            wcvr += r.views * r.ctr * r.cvr;
        }
        let ctr = (ind.base_ctr() * wctr / wv).min(0.3);
        let cvr = (ind.base_cvr() * wcvr / wctr).min(0.6);
        let bid = group.bid_on(day) as f64;
        let cpc = bid * 0.7 * wcpc / wctr;
        let years = day.since(epoch()) as f64 / 365.25;
        let wave = 1.0 + 0.08 * (years * std::f64::consts::TAU + (account.serial % 7) as f64).sin();
        // New groups ramp up through a learning phase.
        let age = day.since(group.launch) as f64;
        let learning = if age < 7.0 { 0.35 + 0.65 * age / 7.0 } else { 1.0 };
        let bid_lift = (bid / group.bids[0].1 as f64).powf(0.6);
        let h = hash(&[self.seed, tag::TOTAL, group.id, day.0 as u64]);
        let spend = account.budget_on(day) as f64
            * group.budget_share
            * 0.55
            * season_factor(day, ind.peak_sensitivity())
            * weekday_factor(day, ind.weekend_tilt())
            * (account.trend * years).exp()
            * wave
            * learning
            * bid_lift
            * (wv / cells.len() as f64 * 1.6).sqrt()
            * gamma_factor(h, 8.0);
        let spend = spend.min(account.budget_on(day) as f64);
        let views = poisson(mix(h ^ 1), spend / cpc / ctr);
        let clicks = binomial(mix(h ^ 2), views, ctr);
        let cost = (clicks as f64 * cpc * uniform(mix(h ^ 3), 0.92, 1.08)).round() as u64;
        let conversions = binomial(mix(h ^ 4), clicks, cvr);
        let deep = binomial(mix(h ^ 5), conversions, ind.deep_rate() * objective_depth(group));
        Counts { views, clicks, cost, conversions, deep }
    }

    /// The full-day creative × site-set cells of ad group `g` on `day`.
    pub fn day_cells_full(&self, g: usize, day: Day, out: &mut Vec<Cell>) {
        out.clear();
        let mut rates = Vec::new();
        self.cell_rates(g, day, &mut rates);
        let total = self.total_from_rates(g, day, &rates);
        if total.is_zero() {
            return;
        }
        let r: Vec<Rates> = rates.iter().map(|x| x.2).collect();
        let mut parts = Vec::new();
        split_counts(hash(&[self.seed, tag::CELLS, self.groups[g].id, day.0 as u64]), total, &r, &mut parts);
        out.extend(rates.iter().zip(parts).map(|(&(creative, site, _), counts)| Cell { creative, site, counts }));
    }

    /// A cell's delivery by hour of day (full day).
    pub fn cell_hours(&self, g: usize, day: Day, cell: &Cell, out: &mut Vec<Counts>) {
        let group = &self.groups[g];
        let curve = cell.site.hour_curve();
        let rates: Vec<Rates> = (0..24)
            .map(|h| {
                let on = group.hours >> h & 1 == 1;
                // Late-night clicks convert less.
                let cvr = if (1..6).contains(&h) { 0.7 } else { 1.0 };
                Rates { views: if on { curve[h] } else { 0.0 }, ctr: 1.0, cpc: 1.0, cvr, deep: 1.0 }
            })
            .collect();
        let key = hash(&[self.seed, tag::HOURS, self.creatives[cell.creative].id, cell.site as u64, day.0 as u64]);
        split_counts(key, cell.counts, &rates, out);
    }

    /// Cells of ad group `g` on `day` as reported: full days before today;
    /// on today, only the hours before the world's hour.
    pub fn day_cells(&self, g: usize, day: Day, out: &mut Vec<Cell>) {
        self.day_cells_full(g, day, out);
        if day == self.today {
            let mut hours = Vec::new();
            for cell in out.iter_mut() {
                self.cell_hours(g, day, cell, &mut hours);
                cell.counts = hours[..self.hour as usize].iter().copied().sum();
            }
        }
    }

    /// Delivery of ad group `g` on `day` as reported (partial on today,
    /// nothing after it).
    pub fn group_day(&self, g: usize, day: Day) -> Counts {
        if day > self.today {
            Counts::default()
        } else if day == self.today {
            let mut cells = Vec::new();
            self.day_cells(g, day, &mut cells);
            cells.iter().map(|c| c.counts).sum()
        } else {
            self.group_day_full(g, day)
        }
    }

    /// Splits a group-day total by gender, age band, region or city.
    pub fn audience_split(&self, g: usize, day: Day, total: Counts, dim: Audience, out: &mut Vec<Counts>) {
        let group = &self.groups[g];
        let ind = self.accounts[group.account].industry;
        let gid = group.id;
        // Stable per-group differences in how each audience cell responds.
        let rel = |d: u64, i: usize| uniform(hash(&[self.seed, tag::AUDIENCE, gid, d, i as u64]), 0.8, 1.25);
        let key = |t: u64| hash(&[self.seed, t, gid, day.0 as u64]);
        match dim {
            Audience::Gender => {
                let male = match ind {
                    super::catalog::Industry::Game | super::catalog::Industry::Automotive | super::catalog::Industry::Finance => 1.4,
                    _ => 0.8,
                };
                let base = [male, 1.0, 0.15];
                let rates: Vec<Rates> = (0..3)
                    .map(|i| {
                        let on = group.genders >> i & 1 == 1;
                        Rates { views: if on { base[i] } else { 0.0 }, ctr: rel(0, i), cpc: 1.0, cvr: rel(1, i), deep: 1.0 }
                    })
                    .collect();
                split_counts(key(tag::GENDER), total, &rates, out);
            }
            Audience::Age => {
                const BASE: [f64; 6] = [0.9, 1.4, 1.3, 0.9, 0.5, 0.2];
                let rates: Vec<Rates> = (0..AGES.len())
                    .map(|i| {
                        let on = group.ages >> i & 1 == 1;
                        Rates { views: if on { BASE[i] } else { 0.0 }, ctr: rel(2, i), cpc: 1.0, cvr: rel(3, i), deep: 1.0 }
                    })
                    .collect();
                split_counts(key(tag::AGE), total, &rates, out);
            }
            Audience::Region => {
                let rates: Vec<Rates> = (0..REGIONS.len())
                    .map(|i| {
                        let on = group.regions >> i & 1 == 1;
                        Rates { views: if on { REGION_WEIGHTS[i] } else { 0.0 }, ctr: rel(4, i), cpc: 1.0, cvr: rel(5, i), deep: 1.0 }
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
                    let rates: Vec<Rates> = (0..3).map(|j| Rates::traffic(CITY_WEIGHTS[r * 3 + j])).collect();
                    split_counts(mix(key(tag::CITY) ^ r as u64), *counts, &rates, &mut part);
                    out.extend_from_slice(&part);
                }
                debug_assert_eq!(out.len(), CITIES.len());
            }
        }
    }
}

/// How much deeper than the industry's default the group's goal reaches.
fn objective_depth(group: &AdGroup) -> f64 {
    use super::catalog::Objective::*;
    match group.objective {
        Purchase => 1.3,
        AppInstall => 1.0,
        Leads => 0.9,
        Follow => 0.6,
        StoreVisit => 0.8,
    }
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
