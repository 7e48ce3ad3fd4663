//! Ads-Bench on AdFarm: agents manage ad accounts inside an auction market
//! through a simulated Ads API; off-policy estimators judge logged policies.
//!
//! Three self-contained engines, and one adapter that makes them a suite:
//!
//! - [`market`]: the auction market simulator (traffic, auctions, budgets,
//!   the account model, the event log) and the crate's one calendar
//!   ([`market::Date`], [`market::Weekday`]). It imports no other module of
//!   the crate.
//! - [`gaql`], [`api`] and [`sandbox`]: the simulated Google Ads API. `gaql`
//!   parses, validates and evaluates queries over any
//!   [`RowSource`](gaql::RowSource); `api` serves `search` and `mutate`
//!   with Google's errors and request limits over any account seam;
//!   `sandbox` plugs the market's account into those seams, so this engine
//!   uses the market (its dates everywhere, its account in `sandbox` only).
//! - [`ope`]: off-policy evaluation (obp-exact estimators, bootstrap
//!   intervals, the Open Bandit Dataset). It imports no other module of the
//!   crate.
//! - [`score`]: the composite score (five weighted components in [0, 1])
//!   and the safety gates that fail an episode whatever its composite,
//!   per episode and per agent; pure arithmetic over an episode's facts.
//!   It imports no other module of the crate.
//! - [`suite`]: Ads-Bench as an AdFarm suite: the scenarios dataset, the
//!   scripted API agents, episode outcomes and scores, the report sections.
//!   It adapts the engines to the farm; no engine imports it.

pub mod api;
pub mod gaql;
pub mod market;
pub mod ope;
pub mod sandbox;
pub mod score;
pub mod suite;

pub use suite::AdsBench;
