//! The backbone against real servers: RabbitMQ for the queue, Redis for the
//! store and the rate limiter (`ADFARM_AMQP_URL` / `ADFARM_REDIS_URL`, else
//! the local defaults). One binary, one module per seam.
//!
//! - `limiter`: the Redis GCRA shared by several workers.
//! - `rabbit`: `RabbitQueue` publish, consume, settle, reconnect, dead-letter.
//! - `store`: the embedded and Redis stores, scenario by scenario, with the
//!   same tallies.

mod limiter;
mod rabbit;
mod store;

/// The Redis the tests use.
pub fn redis_url() -> String {
    std::env::var("ADFARM_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_string())
}

/// A key prefix no other test run shares (process id and clock).
pub fn redis_prefix(test: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_nanos();
    format!("adfarm-test:{test}:{}-{nanos}", std::process::id())
}
