//! A deterministic fault schedule in front of the API: windows of the
//! market's clock during which requests fail as Google's fail, and a log
//! of how the agent met them.
//!
//! - [`FaultKind::Internal`]: every request answers
//!   `InternalError.INTERNAL_ERROR` (gRPC status INTERNAL);
//! - [`FaultKind::Unavailable`]: every request answers
//!   `InternalError.TRANSIENT_ERROR` (gRPC status UNAVAILABLE);
//! - [`FaultKind::Quota`]: every request answers
//!   `QuotaError.RESOURCE_TEMPORARILY_EXHAUSTED` with a retry delay that
//!   ends with the window;
//! - [`FaultKind::PartialFailure`]: searches pass; a mutate request has its
//!   second half of operations (the last one at least) refused with
//!   `InternalError.TRANSIENT_ERROR` located at their indexes, and, the
//!   request being atomic, nothing commits: an agent that resends only the
//!   refused operations loses the others.
//!
//! Google names the gRPC status in the failure's envelope, which this
//! API's error shape has no field for: the status opens the message.
//!
//! Time inside one decision does not move (every request between two
//! ticks shares the tick's instant), so an agent backs off by leaving the
//! rest of its decision and retrying at a later decision point; a retry
//! inside the same decision comes too early and is refused again.

use crate::api::error::{ErrorCode, GoogleAdsError, QuotaError, QuotaErrorDetails, RateScope};
use crate::api::SimTime;

/// How requests fail during a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// `InternalError.INTERNAL_ERROR` on every request.
    Internal,
    /// `InternalError.TRANSIENT_ERROR` (UNAVAILABLE) on every request.
    Unavailable,
    /// `QuotaError.RESOURCE_TEMPORARILY_EXHAUSTED`, retry at the window's end.
    Quota,
    /// A mutate's second half refused, nothing committed; searches pass.
    PartialFailure,
}

/// One window: ticks `from..to` of the market's clock (ordinals).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// What fails.
    pub kind: FaultKind,
    /// The first tick (ordinal) of the window.
    pub from: u64,
    /// The tick (ordinal) the window ends before.
    pub to: u64,
}

/// The windows of an episode; none by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultSchedule {
    /// The windows, in any order.
    pub faults: Vec<Fault>,
}

/// How the agent met the faults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultLog {
    /// Requests a fault refused (every kind).
    pub refused: u64,
    /// Of those, the ones refused with a retry delay (quota).
    pub retries: u64,
    /// Of those, the ones whose next request came no sooner than the
    /// delay asked (one never followed by a request waited too).
    honoured: u64,
    /// When the last refusal with a delay allows the next request.
    awaiting: Option<SimTime>,
}

impl FaultLog {
    /// Refusals with a delay the agent honoured (see [`FaultLog::retries`]).
    pub fn retries_honoured(&self) -> u64 {
        self.honoured + u64::from(self.awaiting.is_some())
    }
}

/// What a request is, for the schedule.
#[derive(Debug, Clone, Copy)]
pub(super) enum Request {
    /// One search page.
    Search,
    /// A mutate of this many operations.
    Mutate(usize),
}

/// Milliseconds in one tick of the market (a half hour).
const TICK_MILLIS: i64 = 86_400_000 / crate::market::TICKS_PER_DAY as i64;

impl FaultSchedule {
    /// The window covering tick `tick`, if any (the first listed).
    pub fn at(&self, tick: u64) -> Option<&Fault> {
        self.faults.iter().find(|f| (f.from..f.to).contains(&tick))
    }

    /// The failure the schedule answers `request` with at tick `tick`
    /// (instant `now`), logged in `log`; `None` lets the request through.
    pub(super) fn answer(
        &self,
        tick: u64,
        now: SimTime,
        request: Request,
        log: &mut FaultLog,
    ) -> Option<Vec<GoogleAdsError>> {
        if let Some(allowed) = log.awaiting.take() {
            if now >= allowed {
                log.honoured += 1;
            }
        }
        let fault = self.at(tick)?;
        let errors = match (fault.kind, request) {
            (FaultKind::Internal, _) => vec![GoogleAdsError::new(
                ErrorCode::Other("InternalError.INTERNAL_ERROR"),
                "INTERNAL: An internal error has occurred. Retry the request with exponential backoff.",
            )],
            (FaultKind::Unavailable, _) => vec![transient()],
            (FaultKind::Quota, _) => {
                let delay = (fault.to - tick) as i64 * TICK_MILLIS;
                log.retries += 1;
                log.awaiting = Some(now.plus_millis(delay));
                vec![GoogleAdsError {
                    quota_details: Some(Box::new(QuotaErrorDetails {
                        rate_scope: RateScope::Account,
                        rate_name: "Requests per account".into(),
                        retry_delay_millis: delay,
                    })),
                    ..GoogleAdsError::new(
                        ErrorCode::QuotaError(QuotaError::ResourceTemporarilyExhausted),
                        format!(
                            "RESOURCE_EXHAUSTED: Too many requests for this account; retry in {} seconds.",
                            delay / 1000
                        ),
                    )
                }]
            }
            (FaultKind::PartialFailure, Request::Search) => return None,
            (FaultKind::PartialFailure, Request::Mutate(n)) => {
                (n / 2..n).map(|i| transient().at_operation(i)).collect()
            }
        };
        log.refused += 1;
        Some(errors)
    }
}

fn transient() -> GoogleAdsError {
    GoogleAdsError::new(
        ErrorCode::Other("InternalError.TRANSIENT_ERROR"),
        "UNAVAILABLE: The service is temporarily unavailable. Retry the request with exponential backoff.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::market::Date;

    fn at(tick: u64) -> SimTime {
        SimTime::midnight(Date::new(2025, 3, 3).expect("a date"))
            .plus_millis(tick as i64 * TICK_MILLIS)
    }

    #[test]
    fn a_quota_window_asks_for_its_end_and_counts_an_early_retry_as_not_honoured() {
        let schedule = FaultSchedule {
            faults: vec![Fault {
                kind: FaultKind::Quota,
                from: 10,
                to: 14,
            }],
        };
        let mut log = FaultLog::default();
        assert!(schedule
            .answer(9, at(9), Request::Search, &mut log)
            .is_none());
        let e = schedule
            .answer(10, at(10), Request::Search, &mut log)
            .expect("refused");
        let delay = e[0]
            .quota_details
            .as_ref()
            .expect("a delay")
            .retry_delay_millis;
        assert_eq!(delay, 4 * TICK_MILLIS);
        // Retried at once: too early, refused again with the rest of the wait.
        let e = schedule
            .answer(10, at(10), Request::Search, &mut log)
            .expect("refused");
        assert_eq!(e[0].code(), "RESOURCE_TEMPORARILY_EXHAUSTED");
        // Then waits for the window's end.
        assert!(schedule
            .answer(14, at(14), Request::Search, &mut log)
            .is_none());
        assert_eq!(
            (log.refused, log.retries, log.retries_honoured()),
            (2, 2, 1)
        );
    }

    #[test]
    fn a_partial_failure_refuses_a_mutate_s_second_half_and_lets_searches_through() {
        let schedule = FaultSchedule {
            faults: vec![Fault {
                kind: FaultKind::PartialFailure,
                from: 0,
                to: 48,
            }],
        };
        let mut log = FaultLog::default();
        assert!(schedule
            .answer(3, at(3), Request::Search, &mut log)
            .is_none());
        let e = schedule
            .answer(3, at(3), Request::Mutate(4), &mut log)
            .expect("refused");
        let indexes: Vec<Option<usize>> = e
            .iter()
            .map(|e| e.location.field_path_elements[0].index)
            .collect();
        assert_eq!(indexes, [Some(2), Some(3)]);
        assert_eq!(
            schedule
                .answer(3, at(3), Request::Mutate(1), &mut log)
                .map(|e| e.len()),
            Some(1)
        );
        assert_eq!((log.refused, log.retries), (2, 0));
    }
}
