//! GEM-Bench integration tests: solution logic with deterministic fake
//! models, judging, and the real gembench 1.0.9 data (which must be
//! unpacked: `adfarm assets fetch`, or set ADFARM_GEMBENCH_DIR).

#[path = "gem/caprod.rs"]
mod caprod;
#[path = "gem/fakes.rs"]
mod fakes;
#[path = "gem/judging.rs"]
mod judging;
#[path = "gem/real_data.rs"]
mod real_data;
#[path = "gem/solutions.rs"]
mod solutions;
