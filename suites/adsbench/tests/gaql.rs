//! Integration tests of the simulated Ads API's query side, limits and
//! mutate layer, against the hand-built account of
//! `InMemoryAccount::sample()` (expected answers are computed by hand in
//! each test from the figures in its doc).

mod gaql {
    pub mod errors;
    pub mod limits;
    pub mod mutate;
    pub mod paging;
    pub mod queries;
}

use adfarm_adsbench::api::GoogleAdsFailure;
use adfarm_adsbench::api::{
    InMemoryAccount, SearchRequest, SearchResponse, SearchService, SimDate, SimTime,
};

/// Noon on the sample account's "today", Wednesday 2024-03-13.
pub fn now() -> SimTime {
    SimTime::at_hour(SimDate::from_ymd(2024, 3, 13).expect("a valid date"), 12)
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
