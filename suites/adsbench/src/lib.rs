//! Ads-Bench on AdFarm: agents manage ad accounts inside an auction market
//! through a simulated Ads API; off-policy estimators judge logged policies.

/// Scripted agents acting only through the Ads API.
pub mod agents;
/// The simulated Google Ads API: GAQL search, mutate, request limits.
pub mod api;
/// GAQL: the query language of the Ads API's `search`.
pub mod gaql;
/// The auction market simulator the Ads API and agents act on.
pub mod market;
/// Off-policy evaluation: obp-exact estimators, bootstrap intervals, the
/// Open Bandit Dataset.
pub mod ope;
/// One scenario under one agent: daily KPIs, caps, digest, scores.
pub mod outcome;
/// The market behind the Ads API: what an agent acts through.
pub mod sandbox;
/// The `scenarios` dataset: seeded market scenarios.
pub mod scenario;
/// Ads-Bench as an AdFarm suite.
pub mod suite;

pub use suite::AdsBench;
