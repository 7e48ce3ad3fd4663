//! The seams that make one program run in two deployments, and their
//! implementations:
//!
//! - [`queue`]: the `Queue` trait; [`memory_queue`] (in-process, embedded
//!   deployment) and [`rabbit`] (RabbitMQ via lapin, distributed).
//! - [`store`]: the `Store` trait (results, aggregates, LLM cache, sweep
//!   state); [`embedded_store`] (redb file on disk) and [`redis_store`].
//! - [`release`]: publishes a settled job's follow-ups once all their
//!   inputs are settled (or fails them when an input failed).
//! - [`limiter`]: deployment-wide rate limits (GCRA); local and Redis-backed.
//! - [`metrics`]: every Prometheus metric AdFarm exports, and the endpoint.
//! - [`redact`]: endpoint URLs without their credentials, for logs.
//!
//! Design decision: a store records a result and adds its aggregate
//! increments in one atomic step, only when the result is new, so
//! at-least-once delivery still gives exactly-once aggregation.

pub mod embedded_store;
pub mod limiter;
pub mod memory_queue;
pub mod metrics;
pub mod queue;
pub mod rabbit;
pub mod redact;
pub mod redis_store;
pub mod release;
pub mod store;

pub use embedded_store::EmbeddedStore;
pub use limiter::{Limiter, LocalLimiter, Rate};
pub use memory_queue::MemoryQueue;
pub use queue::{Consumer, DeadLetter, Delivery, Queue, QueueError};
pub use rabbit::RabbitQueue;
pub use redact::redact_url;
pub use redis_store::{RedisLimiter, RedisStore};
pub use release::{release, Released, Walk};
pub use store::{Recorded, Store, StoreError, SweepRecord};
