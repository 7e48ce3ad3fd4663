//! `adfarm coordinator --serve` (issue 5): a sweep submitted with
//! `adfarm submit --server` runs on a worker, `adfarm status --server`
//! follows it to the end, and `adfarm report --server` gives the same
//! report as reading the store directly.

use crate::{assert_complete, planned, wait_for, Fake, Farm, SweepFile};
use adfarm_proto::report::Report;
use std::process::Stdio;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread")]
async fn submit_status_and_report_through_the_coordinator_api() {
    let fake = Fake::clean().await;
    let mut farm = Farm::new("api");
    let spec = SweepFile::synthetic("api", 30);
    let sweep = farm.sweep("api.toml", &spec, &fake);
    let sweep_s = sweep.to_string_lossy().to_string();
    let addr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        l.local_addr().expect("a bound address")
    };
    let url = format!("http://{addr}");
    farm.spawn(
        "coordinator",
        &["coordinator", "--serve", &addr.to_string()],
        true,
    );
    farm.start_workers(1, 8).await;
    wait_for(Duration::from_secs(20), "the API to listen", || async {
        tokio::net::TcpStream::connect(addr).await.ok()
    })
    .await
    .unwrap_or_else(|| panic!("the API never listened\n{}", farm.logs()));

    let status = farm
        .command("submit", &["submit", &sweep_s, "--server", &url])
        .status()
        .await
        .expect("adfarm submit starts");
    assert!(status.success(), "adfarm submit: {status}\n{}", farm.logs());

    let finished = wait_for(Duration::from_secs(60), "the sweep to finish", || async {
        let out = farm
            .command("status", &["status", &sweep_s, "--server", &url])
            .stdout(Stdio::piped())
            .output()
            .await
            .expect("adfarm status starts");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        (out.status.success() && text.contains(", finished")).then_some(text)
    })
    .await
    .unwrap_or_else(|| panic!("the sweep did not finish\n{}", farm.logs()));
    assert!(finished.contains("sweep api ("), "{finished}");

    let out = farm.path("api-report.json");
    let status = farm
        .command(
            "report",
            &[
                "report",
                &sweep_s,
                "--format",
                "json",
                "--server",
                &url,
                "--out",
                &out.to_string_lossy(),
            ],
        )
        .status()
        .await
        .expect("adfarm report starts");
    assert!(status.success(), "adfarm report: {status}\n{}", farm.logs());
    let remote: Report = serde_json::from_str(&std::fs::read_to_string(&out).unwrap())
        .expect("the JSON report is a Report");
    assert_complete(&remote);
    assert_eq!(planned(&remote), spec.planned_jobs());
    let direct = farm.report_cluster(&sweep).await;
    assert_eq!(remote.jobs, direct.jobs);
    assert_eq!(remote.cells, direct.cells);

    // Errors come back with the server's reason.
    let bad = farm
        .command("status", &["status", "no-such-sweep", "--server", &url])
        .stderr(Stdio::piped())
        .output()
        .await
        .expect("adfarm status starts");
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("404"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}
