//! AD-Bench (Hu et al., arXiv 2602.14257) on AdFarm: tool-using agents answer
//! ad-analytics questions against a simulated ad platform. The paper's
//! platform and data are private; this crate builds an open one.
//!
//! - `world`: the simulated platform, a pure function of (seed, date, hour);
//! - `knowledge`: the knowledge base and its BM25 search;
//! - `tools`: the agent-facing tools, their schemas and per-episode state.

pub mod knowledge;
pub mod tools;
pub mod world;
