//! [`RedisLimiter`]: the GCRA of [`crate::limiter::gcra`] run inside Redis,
//! so every worker of a deployment draws from one bucket per key. The
//! script reads the server's `TIME`, so workers on machines whose clocks
//! disagree still agree on when a bucket refills.

use super::connection::{connect, RedisConnection};
use super::scripts;
use crate::limiter::{LimitError, Limiter, Rate};
use async_trait::async_trait;
use std::fmt;
use std::time::Duration;

/// A deployment-wide rate limiter on Redis. Cloning shares the connection.
#[derive(Clone)]
pub struct RedisLimiter {
    con: RedisConnection,
    prefix: String,
}

impl fmt::Debug for RedisLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisLimiter")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisLimiter {
    /// Connects to the Redis at `url`; buckets live under `<prefix>:limit:`.
    ///
    /// # Errors
    /// When the URL is invalid or Redis cannot be reached; the message shows
    /// the URL without its password.
    pub async fn connect(url: &str, prefix: &str) -> Result<RedisLimiter, LimitError> {
        let con = connect(url).await.map_err(LimitError)?;
        Ok(RedisLimiter::with_connection(con, prefix))
    }

    /// A limiter on an existing connection (e.g. the store's).
    pub(crate) fn with_connection(con: RedisConnection, prefix: &str) -> RedisLimiter {
        RedisLimiter {
            con,
            prefix: prefix.to_string(),
        }
    }

    fn bucket(&self, key: &str) -> String {
        format!("{}:limit:{key}", self.prefix)
    }
}

/// Seconds per unit of `rate`, refused when it is not a positive finite
/// number: Redis would store an infinite TAT and block the key for good.
fn interval(rate: Rate) -> Result<f64, LimitError> {
    let t = rate.interval_secs();
    if t.is_finite() && t > 0.0 && rate.burst.is_finite() {
        Ok(t)
    } else {
        Err(LimitError(format!(
            "invalid rate: {} per minute, burst {}",
            rate.per_minute, rate.burst
        )))
    }
}

fn unavailable(e: redis::RedisError) -> LimitError {
    LimitError(e.to_string())
}

#[async_trait]
impl Limiter for RedisLimiter {
    async fn try_take(&self, key: &str, rate: Rate, cost: u64) -> Result<Duration, LimitError> {
        let t = interval(rate)?;
        let mut con = self.con.clone();
        let wait_micros: u64 = scripts::TAKE
            .key(self.bucket(key))
            .arg(t.to_string())
            .arg(rate.burst.to_string())
            .arg(cost)
            .invoke_async(&mut con)
            .await
            .map_err(unavailable)?;
        Ok(Duration::from_micros(wait_micros))
    }

    async fn adjust(&self, key: &str, rate: Rate, delta: i64) -> Result<(), LimitError> {
        let t = interval(rate)?;
        let mut con = self.con.clone();
        let _: i64 = scripts::ADJUST
            .key(self.bucket(key))
            .arg(t.to_string())
            .arg(delta)
            .invoke_async(&mut con)
            .await
            .map_err(unavailable)?;
        Ok(())
    }
}
