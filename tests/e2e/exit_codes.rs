//! `adfarm run` exits non-zero when jobs failed, and says so in its last
//! line (exit codes: README, "Failure and recovery").

use crate::{Fake, Farm, SweepFile};
use adfarm_fake_llm::FakeLlmConfig;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_jobs_all_fail_exits_1() {
    // The fake wants a key the sweep does not send: every call is a 401,
    // a permanent error, so every solve job fails and nothing is judged.
    let fake = Fake::start(FakeLlmConfig {
        api_key: Some("not-sent".into()),
        ..FakeLlmConfig::default()
    })
    .await;
    let mut farm = Farm::new("exit-failed");
    let sweep = SweepFile::synthetic("e2e-exit-failed", 20);
    let path = farm.sweep("sweep.toml", &sweep, &fake);
    let p = farm.spawn_embedded("home", &path, &[]);
    let status = farm.wait(p, Duration::from_secs(90)).await;
    assert_eq!(status.code(), Some(1), "{}", farm.logs());
    let logs = farm.logs();
    let last = logs
        .lines()
        .rev()
        .find(|l| l.contains("sweep e2e-exit-failed:"))
        .unwrap_or_else(|| panic!("no summary line:\n{logs}"));
    assert!(last.contains("40/40 jobs settled"), "{last}");
    assert!(last.contains("0 completed, 40 failed, 0 skipped"), "{last}");
    assert!(last.contains("exit 1 (some jobs failed"), "{last}");
}
