//! AD-Bench (Hu et al., arXiv 2602.14257) on AdFarm: tool-using agents answer
//! ad-analytics questions against a simulated ad platform. The paper's
//! platform and data are private; this crate builds an open one. The
//! `calculator` tool's interpreter and sandbox are their own crate,
//! `adfarm-calculator`; this one serves its child entry.

/// The agents: ReAct tags or function calling over the platform's tools.
pub mod agent;
/// The knowledge base and its BM25 search.
pub mod knowledge;
/// Ground truth: reference trajectories replayed at the job's date.
pub mod replay;
/// Deterministic scoring: answers, Pass@k, trajectory coverage, failure labels.
pub mod scoring;
/// Scripted agents (oracle and mutants) that exercise the scorer and the agent loop.
pub mod scripted;
/// AD-Bench as an AdFarm suite: dataset, solutions, stages, report, command.
pub mod suite;
/// AD-Bench's tasks, their loader and checks.
pub mod tasks;
/// The platform's tools, their schemas and the episode state.
pub mod tools;
/// The simulated ad platform: a pure function of (seed, date, hour).
pub mod world;

pub use suite::{AdBench, SUITE};
