//! Ads-Bench on AdFarm: agents manage ad accounts inside an auction market
//! through a simulated Ads API; off-policy estimators judge logged policies.

pub mod ope;
