//! GEM-Bench on the real local models (SmolLM2 generates and judges, MiniLM
//! embeds), as `sweeps/quickstart.toml` runs it but on two MT-Human queries:
//! the embedded run fills the tables, a second run calls no model, and a
//! coordinator with two workers on RabbitMQ and Redis gives identical
//! numbers; `adfarm review serve` lists its pairs and ratings. Needs the assets in `$ADFARM_HOME` (scripts/test fetches them).

use crate::sections::{col, number, scorers, table, text};
use crate::{assert_complete, assert_same_results, assets_home, figure, Farm};
use adfarm_proto::report::Report;
use std::path::Path;
use std::time::{Duration, Instant};

/// The quickstart, cut to two queries, three solutions and short answers.
fn quickstart_sample() -> String {
    let quickstart = concat!(env!("CARGO_MANIFEST_DIR"), "/../sweeps/quickstart.toml");
    let text = std::fs::read_to_string(quickstart).expect("sweeps/quickstart.toml");
    let mut doc: toml::Table = toml::from_str(&text).expect("the quickstart parses");
    doc.insert("name".into(), "gem-local-e2e".into());
    let suite = &mut doc["suites"].as_array_mut().expect("suites")[0];
    suite
        .as_table_mut()
        .expect("a suite table")
        .insert("limit".into(), 2.into());
    let solutions = doc["solutions"].as_array_mut().expect("solutions");
    solutions.retain(|s| ["no-ads", "ad-chat", "gi-r"].contains(&s["name"].as_str().unwrap()));
    for s in solutions.iter_mut() {
        s.as_table_mut()
            .expect("a solution table")
            .insert("max_tokens".into(), 48.into());
    }
    toml::to_string(&doc).expect("TOML out")
}

/// Runs `adfarm run` on the embedded store `store`; returns what it printed.
async fn run_embedded(farm: &mut Farm, sweep: &Path, store: &Path) -> String {
    let (home, sweep_s, store_s) = (
        assets_home(),
        sweep.to_string_lossy().into_owned(),
        store.to_string_lossy().into_owned(),
    );
    let log = farm.path("run.log");
    let before = std::fs::metadata(&log).map_or(0, |m| m.len() as usize);
    let p = farm.spawn(
        "run",
        &["--home", &home, "run", &sweep_s, "--store", &store_s],
        false,
    );
    let status = farm.wait(p, Duration::from_secs(600)).await;
    assert!(status.success(), "adfarm run: {status}\n{}", farm.logs());
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    text.get(before..).unwrap_or_default().to_string()
}

/// What `adfarm review serve` lists for the sweep in `store`, read once it
/// serves; the server is stopped after.
async fn review_round_of(farm: &mut Farm, sweep: &Path, store: &Path) -> String {
    let (home, sweep_s, store_s) = (
        assets_home(),
        sweep.to_string_lossy().into_owned(),
        store.to_string_lossy().into_owned(),
    );
    let addr = format!("127.0.0.1:{}", crate::free_port());
    let p = farm.spawn(
        "review",
        &[
            "--home", &home, "review", "serve", "--sweep", &sweep_s, "--store", &store_s, "--addr",
            &addr,
        ],
        false,
    );
    let log = farm.path("review.log");
    let t0 = Instant::now();
    let listed = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains("serving on") {
            break text;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "review serve did not start:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    farm.kill(p).await;
    listed
}

/// The JSON report from the embedded `store`, or from Redis without one.
async fn report(farm: &Farm, sweep: &Path, store: Option<&Path>) -> Report {
    let home = assets_home();
    let store = store.map(|s| s.to_string_lossy().into_owned());
    let post: Vec<&str> = store.iter().flat_map(|s| ["--store", s.as_str()]).collect();
    farm.report(&["--home", &home], sweep, store.is_none(), &post)
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_models_fill_the_tables_once_and_match_across_deployments() {
    let mut farm = Farm::new("gem-local");
    let sweep = farm.write("quickstart-sample.toml", &quickstart_sample());
    let store = farm.path("store.redb");

    let t0 = Instant::now();
    run_embedded(&mut farm, &sweep, &store).await;
    let first_wall = t0.elapsed();
    let embedded = report(&farm, &sweep, Some(&store)).await;
    assert_complete(&embedded);
    assert_eq!(scorers(table(&embedded, "gem", "overall")), ["smollm2"]);
    let eff = table(&embedded, "gem", "effectiveness");
    assert_eq!(eff.rows.len(), 3, "{:?}", eff.rows);
    let details = table(&embedded, "gem", "judge-0");
    assert_eq!(details.rows.len(), 3, "{:?}", details.rows);
    for row in &details.rows {
        let overall = number(&row[col(details, "overall", None)]);
        assert!(overall.is_some(), "every judge metric scored: {row:?}");
    }
    let cost = table(&embedded, "gem", "cost");
    assert_eq!(cost.rows.len(), 3);
    for row in &cost.rows {
        let ittft = number(&row[col(cost, "ittft", None)]);
        assert!(ittft.is_some_and(|i| i > 0.0), "{row:?}");
    }
    let gir = eff
        .rows
        .iter()
        .find(|row| text(&row[1]) == "gi-r")
        .expect("gi-r");
    assert!(gir[col(eff, "response-flow", None)].is_some(), "{gir:?}");

    // The court lists what people can review: each ad-injected response
    // against the no-ads control on its query, and every response on the
    // six judge questions (2 queries × 3 solutions).
    let listed = review_round_of(&mut farm, &sweep, &store).await;
    assert!(
        listed.contains("gem/judge-questions: 6 ratings"),
        "{listed}"
    );
    let pairs: usize = listed
        .lines()
        .find(|l| l.contains("gem/ads-vs-control: "))
        .and_then(|l| l.split(": ").nth(1)?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no pairs listed: {listed}"));
    assert!((1..=4).contains(&pairs), "{listed}");

    // Again: every job is settled, nothing is published, no model is called.
    let again = run_embedded(&mut farm, &sweep, &store).await;
    assert!(again.contains(" jobs, 0 published now"), "{again}");
    let second = report(&farm, &sweep, Some(&store)).await;
    assert_eq!(second.usage, embedded.usage, "no new model calls");
    assert_same_results(&second, &embedded);

    // A coordinator and two workers on RabbitMQ and Redis.
    let home = assets_home();
    for i in 0..2 {
        farm.spawn(
            &format!("worker-{i}"),
            &["--home", &home, "worker", "--concurrency", "8"],
            true,
        );
    }
    let t1 = Instant::now();
    let sweep_s = sweep.to_string_lossy().into_owned();
    let c = farm.spawn(
        "coordinator",
        &["--home", &home, "coordinator", "--sweep", &sweep_s],
        true,
    );
    let status = farm.wait(c, Duration::from_secs(600)).await;
    assert!(status.success(), "coordinator: {status}\n{}", farm.logs());
    let distributed_wall = t1.elapsed();
    let cluster = report(&farm, &sweep, None).await;
    assert_complete(&cluster);
    assert_same_results(&cluster, &embedded);
    // The same calls, the same tokens. Embedding usage may differ by the ad
    // index alone: the first run on a machine embeds it, later processes
    // load it from the home's cache.
    let calls = |r: &Report| {
        r.usage
            .iter()
            .filter(|u| u.role != adfarm_proto::Role::Embedding)
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(calls(&cluster), calls(&embedded));
    // Identical tables but for latency, which is measured.
    let unmeasured = |r: &Report| {
        let mut sections = r.sections.clone();
        for t in sections.iter_mut().flat_map(|s| &mut s.tables) {
            if t.id == "cost" {
                let latency = col(t, "latency-s", None);
                for row in &mut t.rows {
                    assert!(number(&row[latency]).is_some_and(|s| s > 0.0), "{row:?}");
                    row[latency] = None;
                }
            }
        }
        sections
    };
    assert_eq!(
        unmeasured(&cluster),
        unmeasured(&embedded),
        "identical GEM-Bench tables"
    );

    figure(
        "gem-local",
        format_args!(
            "{} jobs on the local models: embedded {:.1} s, 2 workers {:.1} s; overall {:?}",
            crate::planned(&embedded),
            first_wall.as_secs_f64(),
            distributed_wall.as_secs_f64(),
            details
                .rows
                .iter()
                .map(|row| (text(&row[1]), number(&row[col(details, "overall", None)])))
                .collect::<Vec<_>>()
        ),
    );
}
