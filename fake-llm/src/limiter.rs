//! The fake's own rate limit: token buckets for requests and tokens per
//! minute, refilling continuously, like a hosted provider's.

use std::time::Duration;
use tokio::time::Instant;

/// One continuously refilling bucket.
#[derive(Debug)]
struct Bucket {
    per_second: f64,
    capacity: f64,
    level: f64,
    last: Instant,
}

impl Bucket {
    fn new(per_minute: f64, capacity: f64, now: Instant) -> Bucket {
        Bucket {
            per_second: per_minute / 60.0,
            capacity,
            level: capacity,
            last: now,
        }
    }

    fn refill(&mut self, now: Instant) {
        let dt = now.saturating_duration_since(self.last).as_secs_f64();
        self.level = (self.level + dt * self.per_second).min(self.capacity);
        self.last = now;
    }

    /// How long until `n` is available; zero when it is now.
    fn wait_for(&self, n: f64) -> Duration {
        let missing = n - self.level;
        if missing <= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(missing / self.per_second)
        }
    }
}

/// Requests-per-minute and tokens-per-minute limits together: a request
/// passes only when both buckets hold enough, and then takes from both.
#[derive(Debug)]
pub(crate) struct Limiter {
    requests: Option<Bucket>,
    tokens: Option<Bucket>,
}

impl Limiter {
    /// Buckets of one second's worth: at least 2 requests, and at least the
    /// largest request for tokens (raised as larger requests arrive, so a
    /// request bigger than a second's worth can still pass eventually).
    pub(crate) fn new(rpm: Option<u32>, tpm: Option<u64>, now: Instant) -> Limiter {
        Limiter {
            requests: rpm.map(|r| {
                let r = f64::from(r);
                Bucket::new(r, (r / 60.0).max(2.0), now)
            }),
            tokens: tpm.map(|t| {
                let t = t as f64;
                Bucket::new(t, t / 60.0, now)
            }),
        }
    }

    /// Takes one request and `tokens` tokens, or says how long to wait.
    pub(crate) fn try_acquire(&mut self, tokens: u64, now: Instant) -> Result<(), Duration> {
        let tokens = tokens as f64;
        let mut wait = Duration::ZERO;
        if let Some(b) = &mut self.requests {
            b.refill(now);
            wait = wait.max(b.wait_for(1.0));
        }
        if let Some(b) = &mut self.tokens {
            b.capacity = b.capacity.max(tokens);
            b.refill(now);
            wait = wait.max(b.wait_for(tokens));
        }
        if wait > Duration::ZERO {
            return Err(wait);
        }
        if let Some(b) = &mut self.requests {
            b.level -= 1.0;
        }
        if let Some(b) = &mut self.tokens {
            b.level -= tokens;
        }
        Ok(())
    }
}

/// `Retry-After` seconds for a wait: whole seconds rounded up, at least 1,
/// since `Retry-After: 0` invites an immediate retry storm.
pub(crate) fn retry_after_secs(wait: Duration) -> u64 {
    (wait.as_secs_f64().ceil() as u64).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_bucket_holds_one_second_and_refills() {
        let t0 = Instant::now();
        let mut l = Limiter::new(Some(60), None, t0);
        assert!(l.try_acquire(0, t0).is_ok());
        assert!(l.try_acquire(0, t0).is_ok());
        let wait = l.try_acquire(0, t0).unwrap_err();
        assert!((wait.as_secs_f64() - 1.0).abs() < 1e-6, "{wait:?}");
        assert_eq!(retry_after_secs(wait), 1);
        assert!(l.try_acquire(0, t0 + Duration::from_millis(1000)).is_ok());
    }

    #[test]
    fn token_bucket_admits_a_request_larger_than_a_second() {
        let t0 = Instant::now();
        // 600 tokens per minute: 10 per second.
        let mut l = Limiter::new(None, Some(600), t0);
        let wait = l.try_acquire(50, t0).unwrap_err();
        assert_eq!(retry_after_secs(wait), 4);
        assert!(l.try_acquire(50, t0 + Duration::from_secs(4)).is_ok());
        assert!(l.try_acquire(1, t0 + Duration::from_secs(4)).is_err());
    }

    #[test]
    fn both_limits_must_pass_and_only_then_take() {
        let t0 = Instant::now();
        let mut l = Limiter::new(Some(600), Some(60), t0);
        // Tokens refuse: the request bucket must keep its 10.
        assert!(l.try_acquire(5, t0).is_err());
        for _ in 0..10 {
            assert!(l.try_acquire(0, t0).is_ok());
        }
        assert!(l.try_acquire(0, t0).is_err());
    }
}
