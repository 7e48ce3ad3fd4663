//! The distributed deployment on a three-node Redis Cluster gives the
//! embedded run's numbers: each sweep's keys share one hash tag, so its
//! scripts run on one node, and the limiter's keys are one per script.

use crate::own_redis::OwnCluster;
use crate::{assert_complete, figure, planned, Fake, Farm, SweepFile};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_workers_on_a_redis_cluster_match_the_embedded_run() {
    let cluster = OwnCluster::start();
    let fake = Fake::clean().await;
    let mut farm = Farm::new("redis-cluster").with_redis(&cluster.url());
    let spec = SweepFile::synthetic("e2e-redis-cluster", 500);
    let sweep = farm.sweep("sweep.toml", &spec, &fake);
    let embedded = farm.run_embedded("embedded", &sweep, &[]).await;
    assert_complete(&embedded);

    let (report, wall) = farm
        .run_cluster_matching(&sweep, &spec, (3, 8), &embedded)
        .await;
    figure(
        "redis-cluster",
        format_args!(
            "{} jobs over 3 workers on a 3-node Redis Cluster in {:.1} s",
            planned(&report),
            wall.as_secs_f64()
        ),
    );
}
