//! The sandbox: the auction market behind the simulated Ads API, the only
//! door an agent has to its account. `search` reads the market (GAQL over
//! [`RowSource`](crate::gaql::RowSource) for [`Market`]); `mutate` turns
//! operations into [`AccountChange`](crate::market::AccountChange)s, applied
//! between ticks; both pass the API's request limits on the market's clock.
//!
//! - this file: [`Sandbox`], [`AdsClient`] (what an agent holds) and the
//!   calendar bridge between the market's and the API's dates;
//! - `rows`: the market as a row source;
//! - `changes`: mutate operations as account changes;
//! - [`faults`]: a deterministic fault schedule (outages, quota errors,
//!   partial failures) on the market's clock, and how the agent met it;
//! - `tracking`: a conversion-tracking outage, hiding conversions from
//!   searches while the market still records them.

mod changes;
pub mod faults;
mod rows;
mod tracking;

pub use changes::PendingChanges;
pub use faults::{Fault, FaultKind, FaultLog, FaultSchedule};
pub use rows::{age_criterion_name, budget_name, gender_criterion_name};
pub use tracking::TrackingOutage;

use crate::api::error::GoogleAdsFailure;
use crate::api::{
    AdsApi, LimitsConfig, MutateOperation, MutateRequest, MutateResponse, SearchRequest,
    SearchResponse, SimTime,
};
use crate::gaql::ResultRow;
use crate::market::{Date, Market, TICKS_PER_DAY};

/// What an agent holds: the API's two calls and the simulated date.
pub trait AdsClient {
    /// The customer the agent manages.
    fn customer_id(&self) -> u64;

    /// The date of the next tick ("today").
    fn today(&self) -> Date;

    /// Every row of a GAQL query (all pages; each page is one request).
    ///
    /// # Errors
    /// Query and quota errors, as Google's failure shape.
    fn search(&mut self, query: &str) -> Result<Vec<ResultRow>, GoogleAdsFailure>;

    /// One atomic mutate request.
    ///
    /// # Errors
    /// The failing operations (nothing committed), or a quota error.
    fn mutate(
        &mut self,
        operations: Vec<MutateOperation>,
    ) -> Result<MutateResponse, GoogleAdsFailure>;
}

/// A market and the API in front of it.
#[derive(Debug)]
pub struct Sandbox {
    market: Market,
    api: AdsApi,
    /// Every distinct numeric value a search returned, in the order first
    /// seen: what an agent's change notes may cite.
    observed: Vec<(&'static str, f64)>,
    seen: std::collections::BTreeSet<(&'static str, u64)>,
    /// Windows during which requests fail (none by default).
    faults: FaultSchedule,
    fault_log: FaultLog,
    /// A conversion-tracking outage searches show (none by default).
    tracking_outage: Option<TrackingOutage>,
}

/// Distinct values the sandbox keeps for citation checks: a bound on its
/// memory whatever an agent searches (later values are not kept).
pub const MAX_OBSERVED: usize = 200_000;

impl Sandbox {
    /// The API in front of `market`, with Google's default limits.
    pub fn new(market: Market) -> Sandbox {
        Sandbox {
            market,
            api: AdsApi::new(LimitsConfig::default()),
            observed: Vec::new(),
            seen: std::collections::BTreeSet::new(),
            faults: FaultSchedule::default(),
            fault_log: FaultLog::default(),
            tracking_outage: None,
        }
    }

    /// The same sandbox with requests failing as `faults` schedules.
    pub fn with_faults(mut self, faults: FaultSchedule) -> Sandbox {
        self.faults = faults;
        self
    }

    /// The same sandbox with searches hiding conversions from `outage`'s
    /// start on.
    pub fn with_tracking_outage(mut self, outage: Option<TrackingOutage>) -> Sandbox {
        self.tracking_outage = outage;
        self
    }

    /// How the agent's requests met the fault schedule so far.
    pub fn fault_log(&self) -> &FaultLog {
        &self.fault_log
    }

    /// The schedule's answer to `request` now, if it refuses it.
    fn fault(&mut self, request: faults::Request) -> Result<(), GoogleAdsFailure> {
        let (tick, now) = (self.market.now().ordinal(), self.now());
        match self.faults.answer(tick, now, request, &mut self.fault_log) {
            Some(errors) => Err(GoogleAdsFailure { errors }),
            None => Ok(()),
        }
    }

    /// Every distinct numeric field value searches returned so far, in the
    /// order first seen (money in micros, as the API serves it).
    pub fn observed(&self) -> &[(&'static str, f64)] {
        &self.observed
    }

    fn observe(&mut self, page: &SearchResponse) {
        for row in &page.results {
            for (field, value) in page.field_mask.iter().zip(&row.values) {
                let Some(x) = (match value {
                    crate::gaql::Value::Int64(n) => Some(*n as f64),
                    crate::gaql::Value::Double(x) => Some(*x),
                    _ => None,
                }) else {
                    continue;
                };
                if self.observed.len() < MAX_OBSERVED && self.seen.insert((*field, x.to_bits())) {
                    self.observed.push((*field, x));
                }
            }
        }
    }

    /// The market, read-only (for the harness and the scores, not agents).
    pub fn market(&self) -> &Market {
        &self.market
    }

    /// The market, to step it between the agent's calls.
    pub fn market_mut(&mut self) -> &mut Market {
        &mut self.market
    }

    /// The API instant of the market's next tick: ticks split the day
    /// evenly, so requests made between ticks share that instant.
    pub fn now(&self) -> SimTime {
        let tick_millis = 86_400_000 / i64::from(TICKS_PER_DAY);
        SimTime::midnight(self.market.date())
            .plus_millis(i64::from(self.market.now().tick) * tick_millis)
    }

    /// One page of a search.
    ///
    /// # Errors
    /// See [`AdsApi::search`]; a scheduled fault's error first.
    pub fn search_page(
        &mut self,
        request: &SearchRequest,
    ) -> Result<SearchResponse, GoogleAdsFailure> {
        self.fault(faults::Request::Search)?;
        let now = self.now();
        let source = tracking::Tracked {
            market: &self.market,
            outage: self.tracking_outage,
        };
        let page = self.api.search(&source, request, now)?;
        self.observe(&page);
        Ok(page)
    }

    /// A mutate request: run on a copy of the account, and the accepted
    /// changes applied to the market only when the request commits.
    ///
    /// # Errors
    /// See [`AdsApi::mutate`]; a scheduled fault's error first (nothing
    /// commits).
    pub fn mutate_request(
        &mut self,
        request: &MutateRequest,
    ) -> Result<MutateResponse, GoogleAdsFailure> {
        self.fault(faults::Request::Mutate(request.operations.len()))?;
        let now = self.now();
        let mut pending = PendingChanges::new(self.market.account().clone());
        let response = self.api.mutate(&mut pending, request, now)?;
        if !request.validate_only {
            for change in pending.into_changes() {
                // Validated against this very account state just now.
                self.market
                    .apply(change)
                    .expect("a change the API accepted applies to the market");
            }
        }
        Ok(response)
    }
}

impl AdsClient for Sandbox {
    fn customer_id(&self) -> u64 {
        self.market.account().customer_id
    }

    fn today(&self) -> Date {
        self.market.date()
    }

    fn search(&mut self, query: &str) -> Result<Vec<ResultRow>, GoogleAdsFailure> {
        let first = SearchRequest::new(self.customer_id(), query);
        let mut page = self.search_page(&first)?;
        let mut rows = std::mem::take(&mut page.results);
        while let Some(token) = page.next_page_token.take() {
            page = self.search_page(&first.page(token))?;
            rows.append(&mut page.results);
        }
        Ok(rows)
    }

    fn mutate(
        &mut self,
        operations: Vec<MutateOperation>,
    ) -> Result<MutateResponse, GoogleAdsFailure> {
        let request = MutateRequest {
            customer_id: self.customer_id(),
            operations,
            partial_failure: false,
            validate_only: false,
        };
        self.mutate_request(&request)
    }
}
