//! Ads-Bench on AdFarm: agents manage ad accounts inside an auction market
//! through a simulated Ads API; off-policy estimators judge logged policies.

/// The simulated Google Ads API: GAQL search, mutate, request limits.
pub mod api;
/// GAQL: the query language of the Ads API's `search`.
pub mod gaql;
/// The auction market simulator the Ads API and agents act on.
pub mod market;
/// Off-policy evaluation: obp-exact estimators, bootstrap intervals, the
/// Open Bandit Dataset.
pub mod ope;
