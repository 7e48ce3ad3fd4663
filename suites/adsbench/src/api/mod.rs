//! The simulated Google Ads API an agent acts through: `search` (GAQL, in
//! pages), `mutate` (create, update, remove; atomic or partial failure) and
//! the request limits in front of both, all on the simulated clock.
//!
//! - [`clock`]: simulated instants (dates are the market's [`Date`](crate::market::Date));
//! - [`error`]: Google's error shape (`GoogleAdsFailure`);
//! - [`search`]: the search endpoint and its page tokens;
//! - [`limits`]: the per-customer token bucket and the daily quota;
//! - [`mutate`]: the generic mutate layer over a [`MutableAccount`];
//! - [`rows`]: Google's resources as entity rows, written once for every
//!   account model;
//! - [`memory`]: a small hand-built account implementing both seams;
//! - [`service`]: [`AdsApi`], the three put together.
//!
//! Design decision: the API owns no account. The account model is passed to
//! each call through two small traits ([`RowSource`](crate::gaql::RowSource)
//! to read, [`MutableAccount`] to change), so the market's model plugs in
//! without this layer knowing its types.

pub mod clock;
pub mod error;
pub mod limits;
pub mod memory;
pub mod mutate;
pub mod rows;
pub mod search;
pub mod service;

pub use clock::SimTime;
pub use error::{
    ErrorCode, GoogleAdsError, GoogleAdsFailure, QueryError, QuotaError, RequestError,
};
pub use limits::{LimitsConfig, RequestLimiter};
pub use memory::InMemoryAccount;
pub use mutate::{MutableAccount, MutateOperation, MutateRequest, MutateResponse};
pub use search::{SearchRequest, SearchResponse, SearchService, PAGE_SIZE};
pub use service::AdsApi;
