//! Deployment-wide rate limits: a GCRA bucket per key (provider model and
//! unit, e.g. `gpt-4o:requests`). [`LocalLimiter`] serves one process (the
//! embedded deployment); `RedisLimiter` runs the same arithmetic in a Lua
//! script so every worker of a deployment shares one bucket.

use async_trait::async_trait;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A refill rate and the burst a bucket tolerates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Units (requests or tokens) per minute.
    pub per_minute: f64,
    /// Units that may go out back to back after an idle period.
    pub burst: f64,
}

impl Rate {
    /// Seconds per unit.
    pub fn interval_secs(&self) -> f64 {
        60.0 / self.per_minute
    }
}

/// Limiter failures (only the Redis-backed one can fail).
#[derive(Debug, thiserror::Error)]
#[error("rate limiter unavailable: {0}")]
pub struct LimitError(pub String);

/// A shared GCRA limiter.
#[async_trait]
pub trait Limiter: Send + Sync {
    /// Tries to take `cost` units from bucket `key`. Returns zero when taken,
    /// else how long to wait before trying again (nothing was taken).
    /// A request larger than the burst is admitted when the bucket is full,
    /// and puts it into debt, so no request waits forever.
    ///
    /// # Errors
    /// When the shared limiter cannot be reached.
    async fn try_take(&self, key: &str, rate: Rate, cost: u64) -> Result<Duration, LimitError>;

    /// Charges (`delta` > 0) or refunds (`delta` < 0) units after the fact:
    /// tokens are taken at an estimate and reconciled with real usage.
    ///
    /// # Errors
    /// When the shared limiter cannot be reached.
    async fn adjust(&self, key: &str, rate: Rate, delta: i64) -> Result<(), LimitError>;
}

/// GCRA step shared in spirit with the Lua script: `tat` is the theoretical
/// arrival time (seconds). Returns the new tat if admitted, else the wait.
pub fn gcra(tat: f64, now: f64, rate: Rate, cost: u64) -> Result<f64, f64> {
    let t = rate.interval_secs();
    let base = tat.max(now);
    let new_tat = base + cost as f64 * t;
    let allow_at = new_tat - rate.burst.max(1.0) * t;
    if tat <= now || allow_at <= now {
        Ok(new_tat)
    } else {
        Err(allow_at - now)
    }
}

/// In-process limiter for the embedded deployment.
#[derive(Debug)]
pub struct LocalLimiter {
    epoch: Instant,
    tats: Mutex<HashMap<String, f64>>,
}

impl Default for LocalLimiter {
    fn default() -> Self {
        LocalLimiter {
            epoch: Instant::now(),
            tats: Mutex::new(HashMap::new()),
        }
    }
}

#[async_trait]
impl Limiter for LocalLimiter {
    async fn try_take(&self, key: &str, rate: Rate, cost: u64) -> Result<Duration, LimitError> {
        let now = self.epoch.elapsed().as_secs_f64();
        let mut tats = self.tats.lock().expect("limiter lock is never poisoned");
        let tat = tats.get(key).copied().unwrap_or(0.0);
        match gcra(tat, now, rate, cost) {
            Ok(new_tat) => {
                tats.insert(key.to_string(), new_tat);
                Ok(Duration::ZERO)
            }
            Err(wait) => Ok(Duration::from_secs_f64(wait)),
        }
    }

    async fn adjust(&self, key: &str, rate: Rate, delta: i64) -> Result<(), LimitError> {
        let now = self.epoch.elapsed().as_secs_f64();
        let mut tats = self.tats.lock().expect("limiter lock is never poisoned");
        let tat = tats.get(key).copied().unwrap_or(0.0).max(now);
        tats.insert(
            key.to_string(),
            (tat + delta as f64 * rate.interval_secs()).max(now),
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: Rate = Rate {
        per_minute: 60.0,
        burst: 1.0,
    };

    #[test]
    fn spaced_requests_pass_and_early_ones_wait() {
        let tat = gcra(0.0, 10.0, R, 1).unwrap();
        assert_eq!(tat, 11.0);
        let wait = gcra(tat, 10.5, R, 1).unwrap_err();
        assert!((wait - 0.5).abs() < 1e-9);
        assert_eq!(gcra(tat, 11.0, R, 1).unwrap(), 12.0);
    }

    #[test]
    fn a_request_above_the_burst_goes_through_when_idle_then_costs_debt() {
        let tokens = Rate {
            per_minute: 600.0,
            burst: 10.0,
        };
        let tat = gcra(0.0, 5.0, tokens, 100).unwrap();
        assert!((tat - 15.0).abs() < 1e-9);
        assert!(gcra(tat, 6.0, tokens, 1).is_err());
    }

    #[tokio::test]
    async fn local_limiter_refunds_shorten_the_wait() {
        let l = LocalLimiter::default();
        let r = Rate {
            per_minute: 60.0,
            burst: 1.0,
        };
        assert_eq!(l.try_take("k", r, 5).await.unwrap(), Duration::ZERO);
        assert!(l.try_take("k", r, 1).await.unwrap() > Duration::from_secs(3));
        l.adjust("k", r, -5).await.unwrap();
        assert_eq!(l.try_take("k", r, 1).await.unwrap(), Duration::ZERO);
    }
}
