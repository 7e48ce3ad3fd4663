//! The retry policy of every model call: which failures are retried, how
//! long to wait (jittered exponential backoff or the server's Retry-After),
//! and how many attempts. The gateway wraps each call in [`with_retries`].

use adfarm_llm::{ErrorClass, LlmError};
use backon::{ExponentialBuilder, Retryable};
use reqwest::header::HeaderMap;
use std::future::Future;
use std::time::{Duration, SystemTime};

/// First backoff delay of [`backoff_policy`].
pub const BACKOFF_BASE: Duration = Duration::from_millis(200);
/// Longest backoff delay [`with_retries`] sleeps (before Retry-After).
pub const BACKOFF_MAX: Duration = Duration::from_secs(20);
/// Longest Retry-After [`with_retries`] honours: a misconfigured server
/// saying "come back tomorrow" must not park a worker that long.
pub const RETRY_AFTER_MAX: Duration = Duration::from_secs(600);

/// Jittered exponential backoff for `max_attempts` attempts in all: first
/// delay [`BACKOFF_BASE`], doubling up to [`BACKOFF_MAX`]; jitter adds up to
/// the same again, which [`with_retries`] clamps back to [`BACKOFF_MAX`].
pub fn backoff_policy(max_attempts: u32) -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_jitter()
        .with_factor(2.0)
        .with_min_delay(BACKOFF_BASE)
        .with_max_delay(BACKOFF_MAX)
        .with_max_times(max_attempts.saturating_sub(1) as usize)
}

/// Runs `f` up to `max_attempts` times (at least once), retrying only
/// [`ErrorClass::Transient`] and [`ErrorClass::RateLimited`] failures. Between
/// attempts it sleeps the [`backoff_policy`] delay, or the server's
/// Retry-After when that is longer (capped at [`RETRY_AFTER_MAX`]), and
/// calls `on_retry(error, delay)` first (for metrics and logs).
///
/// # Errors
/// The first permanent or budget error, or the last error once the attempts
/// are spent.
pub async fn with_retries<T, F, Fut, N>(max_attempts: u32, f: F, on_retry: N) -> Result<T, LlmError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, LlmError>>,
    N: FnMut(&LlmError, Duration),
{
    f.retry(backoff_policy(max_attempts))
        .when(|e: &LlmError| {
            matches!(
                e.class(),
                ErrorClass::Transient { .. } | ErrorClass::RateLimited { .. }
            )
        })
        .adjust(|e: &LlmError, backoff: Option<Duration>| {
            let backoff = backoff?.min(BACKOFF_MAX);
            let asked = match e.class() {
                ErrorClass::Transient { retry_after } | ErrorClass::RateLimited { retry_after } => {
                    retry_after
                }
                ErrorClass::Permanent | ErrorClass::Budget => None,
            };
            Some(asked.map_or(backoff, |a| backoff.max(a.min(RETRY_AFTER_MAX))))
        })
        .notify(on_retry)
        .await
}

/// The delay a server asked for: `retry-after-ms` (OpenAI) or
/// `Retry-After` as seconds or an HTTP date (relative to `now`).
pub fn parse_retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms / 1000.0));
        }
    }
    let value = header("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_reads_seconds_dates_and_ms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let mut h = HeaderMap::new();
        assert_eq!(parse_retry_after(&h, now), None);
        h.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(parse_retry_after(&h, now), Some(Duration::from_secs(7)));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        h.insert("retry-after", HeaderValue::from_str(&later).unwrap());
        assert_eq!(parse_retry_after(&h, now), Some(Duration::from_secs(30)));
        h.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(parse_retry_after(&h, now), None);
        h.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(
            parse_retry_after(&h, now),
            Some(Duration::from_millis(1500))
        );
    }
}
