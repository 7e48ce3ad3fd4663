//! AD-Bench (Hu et al., arXiv 2602.14257) on AdFarm: tool-using agents answer
//! ad-analytics questions against a simulated ad platform. The paper's
//! platform and data are private; this crate builds an open one.

pub mod knowledge;
pub mod tools;
pub mod world;
