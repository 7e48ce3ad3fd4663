//! The API's request limits, on the simulated clock.
//!
//! - Per customer, a token bucket: `requests_per_second` refill, `burst`
//!   capacity. An empty bucket answers `QuotaError.RESOURCE_TEMPORARILY_EXHAUSTED`
//!   with the exact delay after which one token is back.
//! - Per developer token (one per simulation), a daily operations quota: a
//!   search page counts 1, a mutate counts its operations (Google's Basic
//!   access: 15,000 a day). A request that would pass it answers
//!   `QuotaError.RESOURCE_EXHAUSTED` with the delay until simulated midnight.
//!
//! A hand-written bucket rather than `governor`: governor reads time from a
//! clock object it owns, while here the caller passes the simulated instant
//! with each request, and the retry delay must be exact to the millisecond
//! for replays to match. Tokens are kept in thousandths, so refill at an
//! integer rate per second is exact integer arithmetic. Rejected requests
//! spend neither a token nor quota.

use super::clock::SimTime;
use super::error::{ErrorCode, GoogleAdsError, QuotaError, QuotaErrorDetails, RateScope};
use crate::market::Date;
use std::collections::BTreeMap;

/// The limits' settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitsConfig {
    /// Sustained requests per second per customer.
    pub requests_per_second: u32,
    /// Requests a customer may make at once after being idle.
    pub burst: u32,
    /// Operations a day for the developer token.
    pub daily_operations: u64,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            requests_per_second: 10,
            burst: 20,
            daily_operations: 15_000,
        }
    }
}

const MILLI: i64 = 1000;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    /// Thousandths of a token.
    millitokens: i64,
    updated: SimTime,
}

/// The request limiter of one developer token.
#[derive(Debug, Clone)]
pub struct RequestLimiter {
    config: LimitsConfig,
    buckets: BTreeMap<u64, Bucket>,
    day: Option<Date>,
    used_today: u64,
}

impl RequestLimiter {
    /// A limiter with full buckets and the whole day's quota.
    pub fn new(config: LimitsConfig) -> RequestLimiter {
        RequestLimiter {
            config,
            buckets: BTreeMap::new(),
            day: None,
            used_today: 0,
        }
    }

    /// Operations spent on `now`'s day.
    pub fn used_today(&self, now: SimTime) -> u64 {
        if self.day == Some(now.date()) {
            self.used_today
        } else {
            0
        }
    }

    /// Admits one request of `operations` operations for `customer_id` at
    /// `now`, spending a token and the operations.
    ///
    /// # Errors
    /// `RESOURCE_EXHAUSTED` when the day's quota cannot cover the request
    /// (retry at midnight); `RESOURCE_TEMPORARILY_EXHAUSTED` when the
    /// customer's bucket is empty (retry after the delay given).
    pub fn admit(
        &mut self,
        customer_id: u64,
        operations: u64,
        now: SimTime,
    ) -> Result<(), GoogleAdsError> {
        if self.day != Some(now.date()) {
            self.day = Some(now.date());
            self.used_today = 0;
        }
        if self.used_today + operations > self.config.daily_operations {
            let midnight = SimTime::midnight(now.date().plus_days(1));
            return Err(quota_error(
                QuotaError::ResourceExhausted,
                RateScope::Developer,
                format!(
                    "Daily quota of {} operations reached ({} used, {} requested); it resets at midnight.",
                    self.config.daily_operations, self.used_today, operations
                ),
                "Operations per day for the developer token",
                midnight.millis_since(now),
            ));
        }
        let capacity = i64::from(self.config.burst) * MILLI;
        // r tokens a second is r thousandths of a token a millisecond.
        let rate = i64::from(self.config.requests_per_second);
        let bucket = self.buckets.entry(customer_id).or_insert(Bucket {
            millitokens: capacity,
            updated: now,
        });
        let elapsed = now.millis_since(bucket.updated).max(0);
        bucket.millitokens = (bucket.millitokens + elapsed * rate).min(capacity);
        bucket.updated = bucket.updated.max(now);
        if bucket.millitokens < MILLI {
            let missing = MILLI - bucket.millitokens;
            let delay = if rate == 0 {
                i64::MAX
            } else {
                (missing + rate - 1) / rate
            };
            return Err(quota_error(
                QuotaError::ResourceTemporarilyExhausted,
                RateScope::Account,
                format!(
                    "Too many requests for customer {customer_id}: at most {} a second (bursts of {}).",
                    self.config.requests_per_second, self.config.burst
                ),
                "Requests per account",
                delay,
            ));
        }
        bucket.millitokens -= MILLI;
        self.used_today += operations;
        Ok(())
    }
}

fn quota_error(
    code: QuotaError,
    rate_scope: RateScope,
    message: String,
    rate_name: &str,
    retry_delay_millis: i64,
) -> GoogleAdsError {
    GoogleAdsError {
        quota_details: Some(Box::new(QuotaErrorDetails {
            rate_scope,
            rate_name: rate_name.to_string(),
            retry_delay_millis,
        })),
        ..GoogleAdsError::new(ErrorCode::QuotaError(code), message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delay(e: &GoogleAdsError) -> i64 {
        e.quota_details.as_ref().unwrap().retry_delay_millis
    }

    #[test]
    fn a_burst_then_the_retry_delay_honoured() {
        let mut limits = RequestLimiter::new(LimitsConfig::default());
        let t0 = SimTime::at_hour(Date::new(2024, 3, 13).unwrap(), 9);
        for _ in 0..20 {
            limits.admit(7, 1, t0).unwrap();
        }
        let e = limits.admit(7, 1, t0).unwrap_err();
        assert_eq!(
            e.error_code,
            ErrorCode::QuotaError(QuotaError::ResourceTemporarilyExhausted)
        );
        assert_eq!(delay(&e), 100);
        // Another customer has its own bucket.
        limits.admit(8, 1, t0).unwrap();
        // Too early by a millisecond: still refused, with the rest of the wait.
        let e = limits.admit(7, 1, t0.plus_millis(99)).unwrap_err();
        assert_eq!(delay(&e), 1);
        let t1 = t0.plus_millis(100);
        limits.admit(7, 1, t1).unwrap();
        assert!(limits.admit(7, 1, t1).is_err());
        // Sustained: one request every 100 ms always passes.
        for i in 1..=50 {
            limits.admit(7, 1, t1.plus_millis(100 * i)).unwrap();
        }
        // 20 + 1 for customer 7 before the loop, 1 for customer 8.
        assert_eq!(limits.used_today(t1), 20 + 1 + 1 + 50);
    }

    #[test]
    fn the_daily_quota_resets_at_midnight() {
        let mut limits = RequestLimiter::new(LimitsConfig::default());
        let day = Date::new(2024, 3, 13).unwrap();
        let mut t = SimTime::at_hour(day, 8);
        // 15,000 one-operation requests, paced at the sustained rate.
        for _ in 0..15_000 {
            limits.admit(7, 1, t).unwrap();
            t = t.plus_millis(100);
        }
        let e = limits.admit(7, 1, t).unwrap_err();
        assert_eq!(
            e.error_code,
            ErrorCode::QuotaError(QuotaError::ResourceExhausted)
        );
        let wait = delay(&e);
        assert_eq!(t.plus_millis(wait), SimTime::midnight(day.plus_days(1)));
        assert!(limits.admit(7, 1, t.plus_millis(wait - 1)).is_err());
        limits.admit(7, 1, t.plus_millis(wait)).unwrap();
        assert_eq!(limits.used_today(t.plus_millis(wait)), 1);
    }

    #[test]
    fn a_mutate_that_would_pass_the_quota_is_refused_whole() {
        let mut limits = RequestLimiter::new(LimitsConfig {
            daily_operations: 100,
            ..LimitsConfig::default()
        });
        let t = SimTime::at_hour(Date::new(2024, 3, 13).unwrap(), 8);
        limits.admit(1, 90, t).unwrap();
        assert!(limits.admit(1, 11, t).is_err());
        limits.admit(1, 10, t).unwrap();
    }
}
