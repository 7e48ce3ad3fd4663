//! The distributed deployment on a three-node Redis Cluster gives the
//! embedded run's numbers: each sweep's keys share one hash tag, so its
//! scripts run on one node, and the limiter's keys are one per script.

use crate::own_redis::OwnCluster;
use crate::{assert_complete, assert_same_results, figure, planned, Fake, Farm, SweepFile};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_workers_on_a_redis_cluster_match_the_embedded_run() {
    let cluster = OwnCluster::start();
    let fake = Fake::clean().await;
    let mut farm = Farm::new("redis-cluster").with_redis(&cluster.url());
    let spec = SweepFile::synthetic("e2e-redis-cluster", 500);
    let sweep = farm.sweep("sweep.toml", &spec, &fake);
    let embedded = farm.run_embedded("embedded", &sweep, &[]).await;
    assert_complete(&embedded);

    farm.start_workers(3, 8).await;
    let wall = farm.coordinate(&sweep, Duration::from_secs(120)).await;
    let report = farm.report_cluster(&sweep).await;
    assert_complete(&report);
    assert_eq!(planned(&report), spec.planned_jobs());
    assert_same_results(&report, &embedded);
    assert_eq!(report.usage, embedded.usage);
    figure(
        "redis-cluster",
        format_args!(
            "{} jobs over 3 workers on a 3-node Redis Cluster in {:.1} s",
            planned(&report),
            wall.as_secs_f64()
        ),
    );
}
