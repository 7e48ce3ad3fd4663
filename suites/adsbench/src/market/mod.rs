//! Ads-Bench's auction market simulator: synthetic search traffic on a
//! simulated calendar, up to 47 competing bidders, GSP / first-price / VCG
//! slot auctions, Google's budget rules, and an agent account (campaigns,
//! ad groups, keywords) that an Ads API edits between ticks. The market is
//! a pure function of its seed and the sequence of account changes.
//!
//! Entry point: [`Market`] (`new`, `apply`, `step_tick`, `account`,
//! `metrics`, `event_log`); agents plug in through [`Policy`] and
//! [`run_episode`].

pub mod account;
pub mod auction;
pub mod budget;
pub mod calendar;
pub mod competitor;
pub mod episode;
pub mod error;
pub mod event_log;
pub mod metrics;
pub mod policy;
pub mod report;
pub mod response;
pub mod rng;
pub mod scripted;
pub mod traffic;
pub mod vocabulary;

pub use account::{
    Account, AccountChange, AdGroup, BiddingStrategy, Campaign, Keyword, ResourceName, Status,
};
pub use auction::{Auction, AuctionRules, Bid, Mechanism, Placement, Pricing};
pub use budget::{BudgetLedger, Cap};
pub use calendar::{Date, SimTime, Weekday, TICKS_PER_DAY};
pub use competitor::{CompetitorSpec, Strategy};
pub use episode::{Market, MarketConfig, TickSummary, AGENT};
pub use error::MarketError;
pub use event_log::{Event, EventLog};
pub use metrics::{Level, MetricKey, MetricRow, Metrics, SearchTermKey};
pub use policy::{run_episode, Cadence, EpisodeRun, Policy};
pub use report::{daily_report, format_table, DayReport};
pub use scripted::{FixedBids, PacingRule, ScriptedAccount};
pub use vocabulary::{MatchType, Vertical};
