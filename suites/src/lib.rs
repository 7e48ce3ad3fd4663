//! Benchmark domain code: datasets, solutions, judges and metrics. Knows
//! nothing of queues, stores or HTTP; models are reached through the
//! [`Provider`] and [`Embedder`] traits the worker implements.
//!
//! - [`llm`]: the model seams (`Provider`, `Embedder`) and their errors.
//! - [`suite`]: the `Suite` and `Solution` traits every benchmark implements.
//! - [`synthetic`]: a dataset-free suite for load and fault tests.
//! - [`gem`]: GEM-Bench (ad-injected responses): data, solutions, metrics, judges.
//! - [`registry`]: name → suite, with the list of valid names.
//!
//! Design decision: a suite turns model replies into [`adfarm_proto::Score`]s
//! itself, so an unparsable reply is an `Unscored` verdict, never a 0.

pub mod gem;
pub mod llm;
pub mod registry;
pub mod suite;
pub mod synthetic;

pub use llm::{
    ChatRequest, Choice, Completion, Embedder, Embeddings, ErrorClass, LlmError, Message, Provider,
};
pub use registry::SuiteContext;
pub use suite::{JobError, Models, Solution, Solved, Suite};
