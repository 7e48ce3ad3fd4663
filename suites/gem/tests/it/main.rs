//! GEM-Bench integration tests: solution logic with deterministic fake
//! models, judging, and the real gembench 1.0.9 data (which must be
//! unpacked: `adfarm assets fetch`, or set ADFARM_GEMBENCH_DIR).

mod caprod;
mod fakes;
mod judging;
mod real_data;
mod solutions;
