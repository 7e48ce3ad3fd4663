//! Ads-Bench's auction market simulator: synthetic search traffic on a
//! simulated calendar, up to 47 competing bidders, GSP / first-price / VCG
//! slot auctions, Google's budget rules, and an agent account (campaigns,
//! ad groups, ads, keywords, gender exclusions) that an Ads API edits between
//! ticks, with delivery counted per audience group ([`AudienceDelivery`]).
//! The market is a pure function of its seed and the sequence of account
//! changes.
//!
//! Entry point: [`Market`] (`new`, `apply`, `step_tick`, `account`,
//! `metrics`, `event_log`); agents plug in through [`Policy`] and
//! [`run_episode`]. An Ads API reads `account()` and `metrics()` for
//! `search` and turns `mutate` operations into [`AccountChange`]s for
//! `apply`, which validates them (errors name the field) and logs them.
//!
//! ```
//! use adfarm_adsbench::market::*;
//!
//! let config = MarketConfig::new(7, Date::new(2025, 3, 1)?, 1).with_traffic(2_000.0);
//! let mut market = Market::new(config)?;
//! let campaign = market.apply(AccountChange::CreateCampaign {
//!     name: "Shoes".into(),
//!     daily_budget_micros: 20_000_000,
//!     status: Status::Enabled,
//!     bidding_strategy: BiddingStrategy::ManualCpc,
//! })?;
//! assert_eq!(campaign.to_string(), "customers/1234567890/campaigns/1");
//! let ResourceName::Campaign { campaign_id, .. } = campaign else { unreachable!() };
//! let group = market.apply(AccountChange::CreateAdGroup {
//!     campaign_id,
//!     name: "Running".into(),
//!     status: Status::Enabled,
//!     cpc_bid_micros: 1_000_000,
//! })?;
//! let ResourceName::AdGroup { ad_group_id, .. } = group else { unreachable!() };
//! market.apply(AccountChange::CreateKeyword {
//!     ad_group_id,
//!     text: "running shoes".into(),
//!     match_type: MatchType::Broad,
//!     status: Status::Enabled,
//!     cpc_bid_micros: None,
//! })?;
//! while let Some(tick) = market.step_tick() {
//!     // A worker checks for cancellation here, between ticks.
//!     assert!(tick.opportunities > 0);
//! }
//! let day = market.metrics().campaign_day(campaign_id, Date::new(2025, 3, 1)?);
//! assert!(day.impressions > 0 && day.cost_micros <= 2 * 20_000_000);
//! println!("digest {}", market.event_log().digest());
//! # Ok::<(), MarketError>(())
//! ```

pub mod account;
pub mod ad;
pub mod auction;
pub mod audience;
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
pub use ad::{Ad, AdCopy, Approval};
pub use auction::{Auction, AuctionRules, Bid, Mechanism, Placement, Pricing};
pub use audience::{AgeDelivery, AgeRange, AudienceDelivery, Gender, GroupDelivery};
pub use budget::{BudgetLedger, Cap, Credit, DayCaps};
pub use calendar::{Date, SimTime, Weekday, TICKS_PER_DAY};
pub use competitor::{CompetitorSpec, Strategy};
pub use episode::{Market, MarketConfig, TickSummary, AGENT};
pub use error::MarketError;
pub use event_log::{Event, EventLog};
pub use metrics::{Level, MetricKey, MetricRow, Metrics, SearchTermKey};
pub use policy::{run_episode, Cadence, EpisodeRun, Policy};
pub use report::{daily_report, format_table, DayReport};
pub use scripted::{FixedBids, OpenedAccount, PacingRule, ScriptedAccount};
pub use vocabulary::{MatchType, Vertical};
