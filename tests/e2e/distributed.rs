//! The distributed deployment gives the embedded deployment's numbers.

use crate::{assert_complete, figure, planned, Fake, Farm, SweepFile};
use std::time::Instant;

/// 1,000 items × 1 seed × 1 judge: 1,000 generate + 1,000 judge jobs over
/// three worker processes, compared with `adfarm run` of the same file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_workers_match_the_embedded_run() {
    let fake = Fake::clean().await;
    let mut farm = Farm::new("distributed");
    let spec = SweepFile::synthetic("e2e-distributed", 1000);
    let sweep = farm.sweep("sweep.toml", &spec, &fake);

    let t0 = Instant::now();
    let embedded = farm.run_embedded("embedded", &sweep, &[]).await;
    let embedded_wall = t0.elapsed();
    assert_complete(&embedded);
    assert_eq!(planned(&embedded), 2000);

    // Each generation and each judge call was made once, and cost the same.
    let (report, wall) = farm
        .run_cluster_matching(&sweep, &spec, (3, 16), &embedded)
        .await;
    assert_eq!(fake.stats().await.requests, 2 * 2000);

    figure(
        "distributed",
        format_args!(
            "{} jobs; 3 workers {:.1} s, embedded {:.1} s; cells {:?}",
            planned(&report),
            wall.as_secs_f64(),
            embedded_wall.as_secs_f64(),
            report
                .cells
                .iter()
                .map(|c| (c.metric.as_str(), c.n, c.mean))
                .collect::<Vec<_>>()
        ),
    );
}
