//! [`AdsApi`]: the request limits in front of search and mutate.

use super::clock::SimTime;
use super::error::GoogleAdsFailure;
use super::limits::{LimitsConfig, RequestLimiter};
use super::mutate::{mutate, MutableAccount, MutateRequest, MutateResponse, MAX_OPERATIONS};
use super::search::{SearchRequest, SearchResponse, SearchService};
use crate::gaql::RowSource;

/// The simulated API of one developer token: limits, search and mutate.
#[derive(Debug, Clone)]
pub struct AdsApi {
    limits: RequestLimiter,
    search: SearchService,
}

impl AdsApi {
    /// An API with the given limits.
    pub fn new(limits: LimitsConfig) -> AdsApi {
        AdsApi {
            limits: RequestLimiter::new(limits),
            search: SearchService::new(),
        }
    }

    /// The limiter (to read the day's usage).
    pub fn limits(&self) -> &RequestLimiter {
        &self.limits
    }

    /// One page of a search at `now`: one request, one operation.
    ///
    /// # Errors
    /// A quota error, or the search's own errors.
    pub fn search(
        &mut self,
        source: &dyn RowSource,
        request: &SearchRequest,
        now: SimTime,
    ) -> Result<SearchResponse, GoogleAdsFailure> {
        self.limits.admit(request.customer_id, 1, now)?;
        self.search.search(source, request, now)
    }

    /// A mutate at `now`: one request, as many operations as it holds.
    ///
    /// # Errors
    /// A quota error, or the mutate's own errors.
    pub fn mutate<A: MutableAccount>(
        &mut self,
        account: &mut A,
        request: &MutateRequest,
        now: SimTime,
    ) -> Result<MutateResponse, GoogleAdsFailure> {
        let n = request.operations.len();
        // A request refused for its size is not charged.
        if (1..=MAX_OPERATIONS).contains(&n) {
            self.limits.admit(request.customer_id, n as u64, now)?;
        }
        mutate(account, request)
    }
}
