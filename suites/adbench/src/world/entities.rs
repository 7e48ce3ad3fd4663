//! The advertisers' objects: users, accounts, ad groups and creatives, and
//! how their dated schedules answer "what was true on day d" (budget, bid,
//! status, creative appeal). `generate` builds them from the seed.

use super::calendar::Day;
use super::catalog::{Audit, CreativeType, Industry, Objective, SiteSet};

/// Number of users (advertisers) on the platform.
pub const USERS: usize = 12;
/// Days of history kept before the world's date.
pub const HISTORY_DAYS: i32 = 400;

/// The day schedules start from; every world date lies well after it.
pub fn epoch() -> Day {
    Day::ymd(2022, 6, 1).expect("valid epoch")
}

/// A platform user (an advertiser), owner of 1–6 accounts.
#[derive(Debug, Clone)]
pub struct User {
    /// Id given to the agent with its request.
    pub id: u64,
    /// Company name.
    pub name: String,
    /// Indices of the user's accounts in the world.
    pub accounts: Vec<usize>,
}

/// An ad account: the unit of budget, industry and account audit.
#[derive(Debug, Clone)]
pub struct Account {
    /// Public account id.
    pub id: u64,
    /// Index of the owning user.
    pub user: usize,
    /// Global account number; stable for a seed, used in other ids.
    pub serial: u64,
    /// Display name.
    pub name: String,
    /// The account's industry.
    pub industry: Industry,
    /// Day the account was opened.
    pub created: Day,
    /// Daily budget in fen (1/100 CNY), as (from day, value), ascending.
    pub budgets: Vec<(Day, u64)>,
    /// Days the account was under review or suspended: [from, to).
    pub holds: Vec<(Day, Day, Audit)>,
    /// Promoted products (marketing assets), as (id, name).
    pub assets: Vec<(u64, String)>,
    /// Yearly growth of demand (log scale).
    pub trend: f64,
    /// Indices of the account's visible ad groups, by slot then launch.
    pub groups: Vec<usize>,
}

impl Account {
    /// Daily budget in fen on `day`.
    pub fn budget_on(&self, day: Day) -> u64 {
        let i = self.budgets.partition_point(|(d, _)| *d <= day);
        self.budgets[i.saturating_sub(1)].1
    }

    /// Audit state on `day`.
    pub fn audit_on(&self, day: Day) -> Audit {
        self.holds
            .iter()
            .find(|(a, b, _)| *a <= day && day < *b)
            .map_or(Audit::Approved, |h| h.2)
    }
}

/// An ad group: schedule, targeting, bid, site sets and objective.
#[derive(Debug, Clone)]
pub struct AdGroup {
    /// Public ad group id.
    pub id: u64,
    /// Index of its account.
    pub account: usize,
    /// Display name.
    pub name: String,
    /// First day of delivery.
    pub launch: Day,
    /// First day after the planned end.
    pub end: Day,
    /// Pauses: [from, to).
    pub pauses: Vec<(Day, Day)>,
    /// Bid in fen, as (from day, value), ascending.
    pub bids: Vec<(Day, u64)>,
    /// Delivery lift of each bid relative to the first, `(bid/bid0)^0.6`
    /// (precomputed: it is read for every ad-group day).
    pub bid_lifts: Vec<f64>,
    /// Ad group audit: approved from `audit_until` unless rejected for good.
    pub audit_until: Day,
    /// Rejected at review and never delivered.
    pub rejected: bool,
    /// Delivery hours, bit h set when the group serves in hour h.
    pub hours: u32,
    /// Targeted genders (bits over `GENDERS`; UNKNOWN always served).
    pub genders: u8,
    /// Targeted age bands (bits over `AGES`).
    pub ages: u8,
    /// Targeted regions (bits over `REGIONS`).
    pub regions: u8,
    /// Site sets served, with their traffic weights.
    pub site_sets: Vec<(SiteSet, f64)>,
    /// Site-set sums the daily total needs, precomputed once:
    /// Σw, Σw·ctr, Σw·ctr·cpc, Σw·ctr·cvr over the group's site sets.
    pub site_mix: [f64; 4],
    /// Optimisation goal.
    pub objective: Objective,
    /// Index into the account's assets.
    pub asset: usize,
    /// Share of the account budget this group is planned to spend.
    pub budget_share: f64,
    /// Creative indices in the world.
    pub creatives: Vec<usize>,
}

impl AdGroup {
    /// Bid in fen on `day`.
    pub fn bid_on(&self, day: Day) -> u64 {
        let i = self.bids.partition_point(|(d, _)| *d <= day);
        self.bids[i.saturating_sub(1)].1
    }

    /// Bid in fen and its delivery lift on `day`.
    pub fn bid_and_lift_on(&self, day: Day) -> (u64, f64) {
        let i = self
            .bids
            .partition_point(|(d, _)| *d <= day)
            .saturating_sub(1);
        (self.bids[i].1, self.bid_lifts[i])
    }

    /// True when the group is paused on `day`.
    pub fn paused_on(&self, day: Day) -> bool {
        self.pauses.iter().any(|(a, b)| *a <= day && day < *b)
    }

    /// Status as shown on `day` (its own state, not the account's).
    pub fn status_on(&self, day: Day) -> GroupStatus {
        if self.rejected {
            GroupStatus::Rejected
        } else if day < self.audit_until {
            GroupStatus::PendingAudit
        } else if day >= self.end {
            GroupStatus::Ended
        } else if self.paused_on(day) {
            GroupStatus::Paused
        } else {
            GroupStatus::Active
        }
    }

    /// True when the group itself may serve on `day`.
    pub fn serves_on(&self, day: Day) -> bool {
        day >= self.launch && self.status_on(day) == GroupStatus::Active
    }
}

/// An ad group's status; the order is the listing order (serving first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GroupStatus {
    /// Serving.
    Active,
    /// Paused by the advertiser for a while.
    Paused,
    /// Waiting for review.
    PendingAudit,
    /// Rejected at review; never serves.
    Rejected,
    /// Past its end date.
    Ended,
}

impl GroupStatus {
    /// Name shown in rows.
    pub fn name(self) -> &'static str {
        match self {
            GroupStatus::Active => "ACTIVE",
            GroupStatus::Paused => "PAUSED",
            GroupStatus::PendingAudit => "PENDING_AUDIT",
            GroupStatus::Rejected => "REJECTED",
            GroupStatus::Ended => "ENDED",
        }
    }
}

/// An image or video creative of an ad group.
#[derive(Debug, Clone)]
pub struct Creative {
    /// Public creative id.
    pub id: u64,
    /// Index of its ad group.
    pub group: usize,
    /// Display name.
    pub name: String,
    /// Image or video.
    pub kind: CreativeType,
    /// Material (the uploaded image or video) id; shared across creatives.
    pub material: u64,
    /// Day it was added to the group.
    pub added: Day,
    /// Rejected at review; never serves.
    pub rejected: bool,
    /// Appeal relative to its peers (multiplies CTR and traffic).
    pub quality: f64,
    /// Days until the decaying part of its appeal has halved.
    pub fatigue_days: f64,
}

impl Creative {
    /// Appeal on `day` after fatigue: new creatives start fresh and decay
    /// hyperbolically towards 55% of their appeal (a division, not an
    /// exponential: it is evaluated for every creative of every ad-group day).
    pub fn appeal_on(&self, day: Day) -> f64 {
        if self.rejected || day < self.added {
            return 0.0;
        }
        let age = day.since(self.added) as f64;
        self.quality * (0.55 + 0.45 / (1.0 + age / self.fatigue_days))
    }
}
