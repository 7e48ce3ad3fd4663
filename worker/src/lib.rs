//! Executes jobs: the worker loop, the model gateway and model clients.
//!
//! - [`execute`]: take a job, run it, store, publish follow-ups, settle.
//! - `job`: what one job does (solve an item or run a stage).
//! - [`gateway`]: cache, budget, rate limits, retries and metering of every
//!   model call, as `Provider`/`Embedder` handles for suites.
//! - [`backends`]: raw model clients per provider model (HTTP or local).
//! - [`openai`]: the OpenAI-compatible HTTP client (chat with tools, closed
//!   choice, embeddings) and the retry policy.
//!
//! Design decision: a delivery is acked only after its result (and its
//! follow-ups) are stored, so a killed worker loses nothing; the store's
//! set-if-absent makes the redelivery count once.

pub mod backends;
pub mod execute;
pub mod gateway;
mod job;
pub mod openai;

pub use execute::{Worker, WorkerConfig};
pub use gateway::Gateway;
