//! How much each ad group delivers, generated top-down: a full-day total per
//! (ad group, day) from a hash of (seed, group, day), then seeded multinomial
//! splits into creative × site-set cells and into hours (audience cells:
//! `audience`). Splits preserve sums by construction, so every grouping adds up to
//! the total, and a query at ad-group level never computes a finer cell.
//! An account's day is capped as the knowledge base says budgets work: when
//! its ad groups together would pass the account's daily budget plus the
//! overspend allowance, every group of the account is scaled down by the
//! same ratio.

use super::calendar::{season_factor, weekday_factor, Day};
use super::catalog::{Audit, CreativeType, Industry, SiteSet};
use super::counts::Counts;
use super::entities::{epoch, Account, AdGroup};
use super::rng::{gamma_factor, hash, mix, poisson, round_count, split, uniform};
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
        Rates {
            views,
            ctr: 1.0,
            cpc: 1.0,
            cvr: 1.0,
            deep: 1.0,
        }
    }
}

/// One creative × site-set cell of an ad group's day.
#[derive(Debug, Clone, Copy, PartialEq)]
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
    // 104-108 are the audience splits' (see `audience`).
}

/// Most cells one split handles (24 hours is the widest split).
pub const MAX_SPLIT: usize = 32;

/// Splits `total` over cells with the given relative rates, keeping
/// clicks ≤ views, conversions ≤ clicks and deep ≤ conversions in each cell.
/// Works on stack arrays: it runs for every cell of every finer grouping.
pub fn split_counts(key: u64, total: Counts, rates: &[Rates], out: &mut Vec<Counts>) {
    out.clear();
    let m = rates.len();
    assert!(m <= MAX_SPLIT, "a split has at most {MAX_SPLIT} cells");
    if m == 0 {
        return;
    }
    let mut views = [0u64; MAX_SPLIT];
    let mut clicks = [0u64; MAX_SPLIT];
    let mut conv = [0u64; MAX_SPLIT];
    let mut tmp = [0u64; MAX_SPLIT];
    let mut w = [0f64; MAX_SPLIT];
    for i in 0..m {
        w[i] = rates[i].views;
    }
    split(mix(key ^ 1), total.views, &w[..m], None, &mut views[..m]);
    for i in 0..m {
        w[i] = views[i] as f64 * rates[i].ctr;
    }
    split(
        mix(key ^ 2),
        total.clicks,
        &w[..m],
        Some(&views[..m]),
        &mut clicks[..m],
    );
    for i in 0..m {
        w[i] = clicks[i] as f64 * rates[i].cpc;
    }
    split(mix(key ^ 3), total.cost, &w[..m], None, &mut tmp[..m]);
    for i in 0..m {
        out.push(Counts {
            views: views[i],
            clicks: clicks[i],
            cost: tmp[i],
            ..Counts::default()
        });
        w[i] = clicks[i] as f64 * rates[i].cvr;
    }
    split(
        mix(key ^ 4),
        total.conversions,
        &w[..m],
        Some(&clicks[..m]),
        &mut conv[..m],
    );
    for i in 0..m {
        w[i] = conv[i] as f64 * rates[i].deep;
    }
    split(
        mix(key ^ 5),
        total.deep,
        &w[..m],
        Some(&conv[..m]),
        &mut tmp[..m],
    );
    for i in 0..m {
        out[i].conversions = conv[i];
        out[i].deep = tmp[i];
    }
}

/// Demand factor of an account on a day: daily budget (fen) × sales peaks ×
/// weekday pattern × yearly trend and wave; zero while the account is held
/// in audit.
pub fn demand(account: &Account, day: Day) -> f64 {
    demand_with(account, day, calendar_factor(account.industry, day))
}

fn calendar_factor(ind: Industry, day: Day) -> f64 {
    season_factor(day, ind.peak_sensitivity()) * weekday_factor(day, ind.weekend_tilt())
}

fn demand_with(account: &Account, day: Day, calendar: f64) -> f64 {
    if account.audit_on(day) != Audit::Approved {
        return 0.0;
    }
    let years = day.since(epoch()) as f64 / 365.25;
    let wave = 1.0 + 0.08 * libm::sin(years * std::f64::consts::TAU + (account.serial % 7) as f64);
    account.budget_on(day) as f64 * calendar * libm::exp(account.trend * years) * wave
}

/// [`demand`] for every account and day in `first..=last`, with the
/// calendar computed once per industry and day.
pub fn demand_table(accounts: &[Account], first: Day, last: Day) -> Vec<Vec<f64>> {
    let days = last.since(first) as usize + 1;
    let calendar: Vec<[f64; 6]> = (0..days)
        .map(|i| {
            let day = first.plus(i as i32);
            Industry::ALL.map(|ind| calendar_factor(ind, day))
        })
        .collect();
    accounts
        .iter()
        .map(|a| {
            (0..days)
                .map(|i| demand_with(a, first.plus(i as i32), calendar[i][a.industry as usize]))
                .collect()
        })
        .collect()
}

/// A cell's rates from its creative, site set, traffic weight and appeal.
#[inline]
fn cell_rates_of(kind: CreativeType, site: SiteSet, weight: f64, appeal: f64) -> Rates {
    Rates {
        views: weight * appeal,
        ctr: kind.ctr_factor() * site.ctr_factor() * appeal,
        cpc: site.cpc_factor(),
        cvr: site.cvr_factor(),
        deep: 1.0,
    }
}

/// Traffic-weighted sums of a group-day's cell rates: all the group-level
/// total needs. Cell rates factor into creative × site-set terms, so the
/// sums are (site sums, precomputed per group) × (creative sums, per day),
/// and a daily total never visits its cells.
#[derive(Debug, Clone, Copy, Default)]
struct Mix {
    cells: usize,
    views: f64,
    ctr: f64,
    cpc: f64,
    cvr: f64,
}

impl World {
    /// True when ad group `g` and its account may serve on `day`.
    fn group_serves(&self, g: usize, day: Day) -> bool {
        let group = &self.groups[g];
        group.serves_on(day) && self.demand_on(group.account, day) > 0.0
    }

    /// The creative × site-set cells an ad group could serve on `day`, with
    /// their rates; empty when the group, its account or all its creatives
    /// are off that day.
    pub fn cell_rates(&self, g: usize, day: Day, out: &mut Vec<(usize, SiteSet, Rates)>) {
        out.clear();
        if !self.group_serves(g, day) {
            return;
        }
        let group = &self.groups[g];
        for &c in &group.creatives {
            let cr = &self.creatives[c];
            let appeal = cr.appeal_on(day);
            if appeal <= 0.0 {
                continue;
            }
            for &(site, weight) in &group.site_sets {
                out.push((c, site, cell_rates_of(cr.kind, site, weight, appeal)));
            }
        }
    }

    /// The rate sums of ad group `g` on `day` (the group serves that day).
    fn group_mix(&self, g: usize, day: Day) -> Mix {
        let group = &self.groups[g];
        let (mut views, mut ctr, mut n) = (0.0, 0.0, 0);
        for &c in &group.creatives {
            let cr = &self.creatives[c];
            let appeal = cr.appeal_on(day);
            if appeal > 0.0 {
                views += appeal;
                ctr += appeal * appeal * cr.kind.ctr_factor();
                n += 1;
            }
        }
        let [w, wf, wfg, wfv] = group.site_mix;
        Mix {
            cells: n * group.site_sets.len(),
            views: w * views,
            ctr: wf * ctr,
            cpc: wfg * ctr,
            cvr: wfv * ctr,
        }
    }

    /// The full-day delivery of ad group `g` on `day`, as if the day were
    /// complete (today's partial day is cut by [`World::group_day`]): its
    /// uncapped delivery, scaled down with its siblings' on a day their
    /// account would have spent past its cap (see [`account_cap`]).
    /// Days in the history window are memoised (see [`super::memo`]).
    pub fn group_day_full(&self, g: usize, day: Day) -> Counts {
        let a = self.groups[g].account;
        let scale = match self
            .scale_memo
            .chunk(a, day, self.history_start(), |d| self.compute_scale(a, d))
        {
            Some((chunk, i)) => chunk[i],
            None => self.compute_scale(a, day),
        };
        scaled(self.uncapped_group_day(g, day), scale)
    }

    /// [`World::group_day_full`] without the memos: the generator itself.
    pub fn compute_group_day(&self, g: usize, day: Day) -> Counts {
        let a = self.groups[g].account;
        let spent: u64 = self.accounts[a]
            .groups
            .iter()
            .map(|&s| self.compute_uncapped_group_day(s, day).cost)
            .sum();
        let scale = over_cap(account_cap(&self.accounts[a], day), spent);
        scaled(self.compute_uncapped_group_day(g, day), scale)
    }

    /// Ad group `g`'s delivery on `day` before the account cap, memoised.
    fn uncapped_group_day(&self, g: usize, day: Day) -> Counts {
        match self.memo.chunk(g, day, self.history_start(), |d| {
            self.compute_uncapped_group_day(g, d)
        }) {
            Some((chunk, i)) => chunk[i],
            None => self.compute_uncapped_group_day(g, day),
        }
    }

    /// The (cap, uncapped spend) of account `a` on `day` when the spend
    /// passes the cap.
    fn compute_scale(&self, a: usize, day: Day) -> Option<(u64, u64)> {
        let spent: u64 = self.accounts[a]
            .groups
            .iter()
            .map(|&g| self.uncapped_group_day(g, day).cost)
            .sum();
        over_cap(account_cap(&self.accounts[a], day), spent)
    }

    /// One ad group's day as its own demand would have it, before the
    /// account cap.
    fn compute_uncapped_group_day(&self, g: usize, day: Day) -> Counts {
        if !self.group_serves(g, day) {
            return Counts::default();
        }
        self.total_from_mix(g, day, &self.group_mix(g, day))
    }

    fn total_from_mix(&self, g: usize, day: Day, rates: &Mix) -> Counts {
        if rates.cells == 0 || rates.views <= 0.0 {
            return Counts::default();
        }
        let group = &self.groups[g];
        let account = &self.accounts[group.account];
        let ind = account.industry;
        // Few divisions on purpose: this runs once per ad-group day and the
        // divides' latency dominated it.
        let ratio = 1.0 / rates.ctr;
        let ctr = (ind.base_ctr() * rates.ctr / rates.views).min(0.3);
        let cvr = (ind.base_cvr() * rates.cvr * ratio).min(0.6);
        let (bid, bid_lift) = group.bid_and_lift_on(day);
        let cpc = bid as f64 * 0.7 * rates.cpc * ratio;
        // New groups ramp up through a learning phase.
        let age = day.since(group.launch);
        let learning = if age < 7 {
            0.35 + 0.65 / 7.0 * age as f64
        } else {
            1.0
        };
        let h = hash(&[self.seed, tag::TOTAL, group.id, day.0 as u64]);
        let demand = self.demand_on(group.account, day);
        let appeal = (rates.views / (rates.cells as f64) * 1.6).sqrt();
        let spend = demand
            * group.budget_share
            * 0.55
            * learning
            * bid_lift
            * appeal
            * gamma_factor(h, 8.0);
        // No one group plans past its account's budget; the account as a
        // whole is capped in `group_day_full`.
        let spend = spend.min(account.budget_on(day) as f64);
        // Each counter is drawn around its own expectation and then capped by
        // the one above it, rather than drawn from it: the draws are then
        // independent and overlap in the CPU instead of forming one chain.
        // The shared Gamma factor in `spend` keeps them correlated.
        let mean_views = spend / (cpc * ctr);
        let mean_clicks = mean_views * ctr;
        let mean_conversions = mean_clicks * cvr;
        let mean_deep = mean_conversions * ind.deep_rate() * objective_depth(group);
        let views = poisson(mix(h ^ 1), mean_views);
        let clicks = poisson(mix(h ^ 2), mean_clicks).min(views);
        let conversions = poisson(mix(h ^ 4), mean_conversions).min(clicks);
        let deep = poisson(mix(h ^ 5), mean_deep).min(conversions);
        let cost = round_count(clicks as f64 * cpc * uniform(mix(h ^ 3), 0.92, 1.08));
        Counts {
            views,
            clicks,
            cost,
            conversions,
            deep,
        }
    }

    /// The full-day creative × site-set cells of ad group `g` on `day`.
    /// Days in the history window are memoised (see [`super::memo`]).
    pub fn day_cells_full(&self, g: usize, day: Day, out: &mut Vec<Cell>) {
        let hit = self.cell_memo.chunk(g, day, self.history_start(), |d| {
            let mut cells = Vec::new();
            self.compute_day_cells(g, d, &mut cells);
            cells
        });
        match hit {
            Some((chunk, i)) => {
                out.clear();
                out.extend_from_slice(&chunk[i]);
            }
            None => self.compute_day_cells(g, day, out),
        }
    }

    /// [`World::day_cells_full`] without the memo.
    pub fn compute_day_cells(&self, g: usize, day: Day, out: &mut Vec<Cell>) {
        out.clear();
        let total = self.group_day_full(g, day);
        if total.is_zero() {
            return;
        }
        let mut rates = Vec::new();
        self.cell_rates(g, day, &mut rates);
        let r: Vec<Rates> = rates.iter().map(|x| x.2).collect();
        let mut parts = Vec::new();
        split_counts(
            hash(&[self.seed, tag::CELLS, self.groups[g].id, day.0 as u64]),
            total,
            &r,
            &mut parts,
        );
        out.extend(
            rates
                .iter()
                .zip(parts)
                .map(|(&(creative, site, _), counts)| Cell {
                    creative,
                    site,
                    counts,
                }),
        );
    }

    /// A cell's delivery by hour of day (full day).
    pub fn cell_hours(&self, g: usize, day: Day, cell: &Cell, out: &mut Vec<Counts>) {
        let group = &self.groups[g];
        let curve = cell.site.hour_curve();
        let rates: [Rates; 24] = std::array::from_fn(|h| {
            let on = group.hours >> h & 1 == 1;
            // Late-night clicks convert less.
            let cvr = if (1..6).contains(&h) { 0.7 } else { 1.0 };
            Rates {
                views: if on { curve[h] } else { 0.0 },
                ctr: 1.0,
                cpc: 1.0,
                cvr,
                deep: 1.0,
            }
        });
        let key = hash(&[
            self.seed,
            tag::HOURS,
            self.creatives[cell.creative].id,
            cell.site as u64,
            day.0 as u64,
        ]);
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
}

/// How far past its daily budget an account's cost may go in a day, in
/// percent: the knowledge base's overspend rule (R08, "up to 10% because
/// of delayed billing").
pub const OVERSPEND_PERCENT: u64 = 10;

/// The most an account may spend on `day`, in fen: its daily budget plus
/// the overspend allowance. The budget is the account's (R03-R05), so the
/// cap holds for the sum of its ad groups, not each group apart.
pub fn account_cap(account: &Account, day: Day) -> u64 {
    account.budget_on(day) * (100 + OVERSPEND_PERCENT) / 100
}

/// `Some((cap, spent))` when `spent` passes `cap`.
fn over_cap(cap: u64, spent: u64) -> Option<(u64, u64)> {
    (spent > cap).then_some((cap, spent))
}

/// Every counter times cap / spent, rounded down: integer arithmetic, so
/// the account's scaled costs sum to at most the cap, and rounding down
/// keeps clicks ≤ views, conversions ≤ clicks and deep ≤ conversions.
fn scaled(c: Counts, scale: Option<(u64, u64)>) -> Counts {
    let Some((cap, spent)) = scale else { return c };
    let f = |x: u64| (u128::from(x) * u128::from(cap) / u128::from(spent)) as u64;
    let clicks = f(c.clicks);
    Counts {
        views: f(c.views),
        clicks,
        // Cost is paid per click: none left, nothing charged.
        cost: if clicks == 0 { 0 } else { f(c.cost) },
        conversions: f(c.conversions),
        deep: f(c.deep),
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
