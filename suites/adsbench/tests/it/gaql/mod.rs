//! Integration tests of the simulated Ads API's query side, limits and
//! mutate layer, against the hand-built account of
//! `InMemoryAccount::sample()` (expected answers are computed by hand in
//! each test from the figures in its doc).

mod errors;
mod limits;
mod mutate;
mod paging;
mod queries;

use adfarm_adsbench::api::GoogleAdsFailure;
use adfarm_adsbench::api::{
    InMemoryAccount, SearchRequest, SearchResponse, SearchService, SimTime,
};
use adfarm_adsbench::market::Date;

/// Noon on the sample account's "today", Wednesday 2024-03-13.
pub fn now() -> SimTime {
    SimTime::at_hour(Date::new(2024, 3, 13).expect("a valid date"), 12)
}

/// Runs `query` on the sample account.
pub fn search(query: &str) -> Result<SearchResponse, GoogleAdsFailure> {
    let account = InMemoryAccount::sample();
    SearchService::new().search(
        &account,
        &SearchRequest::new(account.customer_id, query),
        now(),
    )
}
