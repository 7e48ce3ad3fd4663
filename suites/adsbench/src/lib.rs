//! Ads-Bench on AdFarm: agents manage ad accounts inside an auction market
//! through a simulated Ads API; off-policy estimators judge logged policies.

/// The auction market simulator the Ads API and agents act on.
pub mod market;
