//! The simulated ad platform. A [`World`] is a pure function of
//! (seed, date D, hour H): users, accounts, ad groups and creatives with
//! absolute-dated event schedules, and delivery counters drawn from
//! counter-based hashes. Data runs to D−1 in full and, on D, to hour H.
//!
//! - `rng`: hashing and draws; `calendar`: days and calendar effects;
//! - `catalog`: vocabularies; `entities`: objects and their schedules;
//! - `generate`: the seeded entities and event schedule; `memo`: computed days;
//! - `counts`: additive counters; `delivery`: the top-down generator;
//! - `audience`: gender, age, region and city splits;
//! - `query`: scoped, grouped sums; `peers`: other advertisers' creatives.

pub mod audience;
pub mod calendar;
pub mod catalog;
pub mod counts;
pub mod delivery;
pub mod entities;
pub mod generate;
pub mod memo;
pub mod peers;
pub mod query;
pub mod rng;

use std::collections::HashMap;

pub use calendar::Day;
pub use counts::Counts;
pub use entities::{Account, AdGroup, Creative, GroupStatus, User, HISTORY_DAYS};
pub use query::{DailyGrouping, HourlyGrouping, Key, Scope};

/// Why a world cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorldError {
    /// The date is outside the span the schedules cover.
    #[error("date {0} is outside the supported span {first}..={last}", first = first_date(), last = last_date())]
    DateOutOfSpan(Day),
    /// The hour is not 0..=23.
    #[error("hour {0} is not in 0..=23")]
    BadHour(u8),
}

impl WorldError {
    /// Bounded code, usable as a label.
    pub fn code(&self) -> &'static str {
        match self {
            WorldError::DateOutOfSpan(_) => "date-out-of-span",
            WorldError::BadHour(_) => "bad-hour",
        }
    }
}

/// The hour a world is seen at unless a task says otherwise: today's
/// morning is in.
pub const DEFAULT_HOUR: u8 = 12;

/// First world date supported (400 days of history after the epoch).
pub fn first_date() -> Day {
    Day::ymd(2024, 1, 1).expect("valid")
}

/// Last world date supported.
pub fn last_date() -> Day {
    Day::ymd(2030, 12, 31).expect("valid")
}

/// The platform as seen on date D at hour H.
#[derive(Debug)]
pub struct World {
    seed: u64,
    today: Day,
    hour: u8,
    users: Vec<User>,
    accounts: Vec<Account>,
    groups: Vec<AdGroup>,
    creatives: Vec<Creative>,
    user_index: HashMap<u64, usize>,
    account_index: HashMap<u64, usize>,
    group_index: HashMap<u64, usize>,
    /// Per account, per day of the history window: the demand factor
    /// (budget × calendar × trend, 0 on audit holds). Precomputed because
    /// every ad-group day reads it and calendar arithmetic is the slow part.
    demand: Vec<Vec<f64>>,
    /// Ad-group day totals before the account cap computed so far, by
    /// 16-day chunk.
    memo: memo::DayMemo<Counts>,
    /// Per account and day, (cap, uncapped spend) where the spend passed
    /// the cap, by 16-day chunk.
    scale_memo: memo::DayMemo<Option<(u64, u64)>>,
    /// Ad-group day cells computed so far, by 16-day chunk.
    cell_memo: memo::DayMemo<Vec<delivery::Cell>>,
}

impl World {
    /// Builds the world for `seed` on `today`; data on `today` covers hours
    /// `0..hour` (hour 12 means the morning is in).
    ///
    /// # Errors
    /// [`WorldError`] when the date is outside the supported span or the hour is not 0..=23.
    pub fn new(seed: u64, today: Day, hour: u8) -> Result<World, WorldError> {
        if today < first_date() || today > last_date() {
            return Err(WorldError::DateOutOfSpan(today));
        }
        if hour > 23 {
            return Err(WorldError::BadHour(hour));
        }
        let e = generate::generate(seed, today);
        let user_index = e.users.iter().enumerate().map(|(i, u)| (u.id, i)).collect();
        let account_index = e
            .accounts
            .iter()
            .enumerate()
            .map(|(i, a)| (a.id, i))
            .collect();
        let group_index = e
            .groups
            .iter()
            .enumerate()
            .map(|(i, g)| (g.id, i))
            .collect();
        let demand = delivery::demand_table(&e.accounts, today.plus(-HISTORY_DAYS), today);
        let memo = memo::DayMemo::new(e.groups.len(), HISTORY_DAYS as usize + 1);
        let cell_memo = memo::DayMemo::new(e.groups.len(), HISTORY_DAYS as usize + 1);
        let scale_memo = memo::DayMemo::new(e.accounts.len(), HISTORY_DAYS as usize + 1);
        Ok(World {
            seed,
            today,
            hour,
            users: e.users,
            accounts: e.accounts,
            groups: e.groups,
            creatives: e.creatives,
            user_index,
            account_index,
            group_index,
            demand,
            memo,
            cell_memo,
            scale_memo,
        })
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Date D.
    pub fn today(&self) -> Day {
        self.today
    }

    /// Hour H: today's data covers hours before it.
    pub fn hour(&self) -> u8 {
        self.hour
    }

    /// First day with data.
    pub fn history_start(&self) -> Day {
        self.today.plus(-HISTORY_DAYS)
    }

    /// All users.
    pub fn users(&self) -> &[User] {
        &self.users
    }

    /// All accounts.
    pub fn accounts(&self) -> &[Account] {
        &self.accounts
    }

    /// All visible ad groups.
    pub fn groups(&self) -> &[AdGroup] {
        &self.groups
    }

    /// All creatives of visible ad groups.
    pub fn creatives(&self) -> &[Creative] {
        &self.creatives
    }

    /// Index of the user with public id `id`.
    pub fn user_by_id(&self, id: u64) -> Option<usize> {
        self.user_index.get(&id).copied()
    }

    /// Index of the account with public id `id`.
    pub fn account_by_id(&self, id: u64) -> Option<usize> {
        self.account_index.get(&id).copied()
    }

    /// Index of the ad group with public id `id`.
    pub fn group_by_id(&self, id: u64) -> Option<usize> {
        self.group_index.get(&id).copied()
    }

    /// Demand factor of account `a` on `day` (see [`delivery::demand`]).
    pub fn demand_on(&self, a: usize, day: Day) -> f64 {
        let i = day.since(self.history_start());
        match self.demand[a].get(i as usize) {
            Some(v) if i >= 0 => *v,
            _ => delivery::demand(&self.accounts[a], day),
        }
    }

    /// The user with the most ad groups (the heaviest queries).
    pub fn largest_user(&self) -> usize {
        (0..self.users.len())
            .max_by_key(|&u| {
                (
                    self.users[u]
                        .accounts
                        .iter()
                        .map(|&a| self.accounts[a].groups.len())
                        .sum::<usize>(),
                    std::cmp::Reverse(u),
                )
            })
            .expect("worlds have users")
    }
}
