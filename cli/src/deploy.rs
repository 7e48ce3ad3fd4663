//! The two deployments, one code path: `run` puts coordinator and workers in
//! one process over the in-process queue and the embedded store;
//! `coordinator` and `worker` are the same pieces over RabbitMQ and Redis.

use crate::args;
use crate::exit::Exit;
use crate::progress::ProgressView;
use adfarm_backbone::{
    EmbeddedStore, Limiter, LocalLimiter, MemoryQueue, Queue, RabbitQueue, RedisStore, Store,
    StoreError,
};
use adfarm_coordinator::coordinate::CoordinateError;
use adfarm_coordinator::scale::{Policy, Pool};
use adfarm_coordinator::{api, report, scale, sweep_file, Coordinator};
use adfarm_proto::Lane;
use adfarm_suites::SuiteContext;
use adfarm_worker::backends::{Backends, EnvLookup, LocalLoader};
use adfarm_worker::{Gateway, Worker, WorkerConfig};
use anyhow::{Context, Result};
use std::path::Path;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Suites read their pinned assets from `<home>/assets` and keep what they
/// derive from them (e.g. embeddings of a dataset) in `<home>/cache`.
pub fn suite_context(home: &Path) -> SuiteContext {
    SuiteContext {
        assets_dir: adfarm_models::assets::assets_root(home),
        cache_dir: Some(home.join("cache")),
    }
}

pub(crate) fn env_lookup() -> EnvLookup {
    Arc::new(|name| std::env::var(name).ok())
}

/// Local models under `home`, the generator's keys and values within
/// `kv_memory` bytes.
pub(crate) fn local_loader(home: &Path, kv_memory: usize) -> LocalLoader {
    crate::local::loader(home.to_path_buf(), kv_memory)
}

fn env_fn(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Reads a sweep file (errors name file, line and field); nothing is
/// fetched (see [`load_sweep_to_run`]).
pub fn load_sweep(path: &Path, ctx: &SuiteContext) -> Result<adfarm_proto::SweepSpec> {
    Ok(sweep_file::load(path, ctx, &env_fn)?)
}

/// As [`load_sweep`], then fetches the pinned assets its suites declare
/// (on first use; verified ones are kept).
pub fn load_sweep_to_run(
    home: &Path,
    path: &Path,
    ctx: &SuiteContext,
) -> Result<adfarm_proto::SweepSpec> {
    let spec = load_sweep(path, ctx)?;
    let pins = sweep_pins(&spec, ctx);
    crate::local::announce(adfarm_models::assets::ensure(home, &pins)?);
    Ok(spec)
}

/// The pinned assets the suites of `spec` declare.
pub fn sweep_pins(
    spec: &adfarm_proto::SweepSpec,
    ctx: &SuiteContext,
) -> Vec<&'static adfarm_models::assets::Pin> {
    spec.suites
        .iter()
        .filter_map(|s| adfarm_suites::suite(&s.name, ctx))
        .flat_map(|suite| suite.assets())
        .collect()
}

/// The embedded store at `path` or `<home>/store.redb`.
pub fn embedded_store(home: &Path, path: Option<&Path>) -> Result<EmbeddedStore> {
    let path = path.map_or_else(|| home.join("store.redb"), Path::to_path_buf);
    Ok(EmbeddedStore::open(&path)?)
}

fn parse_lanes(names: &[String]) -> Result<Vec<Lane>> {
    if names.is_empty() {
        return Ok(Lane::ALL.to_vec());
    }
    names
        .iter()
        .map(|n| {
            Lane::parse(n).with_context(|| {
                let valid: Vec<&str> = Lane::ALL.iter().map(|l| l.as_str()).collect();
                format!("unknown lane {n:?}; valid: {}", valid.join(", "))
            })
        })
        .collect()
}

/// `adfarm run`: everything in this process.
pub async fn run_embedded(
    home: &Path,
    ctx: &SuiteContext,
    run: args::Run,
    cancel: CancellationToken,
    grace: std::time::Duration,
) -> Result<Exit> {
    let spec = load_sweep_to_run(home, &run.sweep, ctx)?;
    if let Some(addr) = &run.fake_llm {
        let (bound, _server) =
            adfarm_fake_llm::serve(adfarm_fake_llm::FakeLlmConfig::default(), addr.as_str())
                .await
                .with_context(|| format!("cannot start the fake LLM server on {addr}"))?;
        tracing::info!(addr = %bound, "Fake LLM server started.");
    }
    let store: Arc<dyn Store> = Arc::new(embedded_store(home, run.store.as_deref())?);
    let queue = MemoryQueue::new(5);
    let shared_queue: Arc<dyn Queue> = Arc::new(queue.clone());
    let limiter: Arc<dyn Limiter> = Arc::new(LocalLimiter::default());
    let coordinator = Coordinator::new(store.clone(), shared_queue.clone(), ctx.clone())
        .stopping_on(cancel.clone());
    let (rec, plan) = coordinator.register(&spec).await?;
    let gateway = Gateway::new(
        store.clone(),
        limiter,
        Backends::new(env_lookup(), local_loader(home, run.local.kv_memory())),
    );
    let config = WorkerConfig {
        concurrency: run.concurrency,
        grace,
        ..WorkerConfig::default()
    };
    let worker = Arc::new(Worker::new(
        store.clone(),
        shared_queue,
        gateway,
        ctx.clone(),
        config,
    ));
    // The workers stop on a signal too, or when the sweep is done.
    let worker_stop = cancel.child_token();
    let workers = tokio::spawn(worker.run(worker_stop.clone()));

    let published = coordinator.publish(&rec).await?;
    let mut view = ProgressView::new(&rec, run.quiet);
    view.note(&format!(
        "sweep {} ({}): {} jobs, {} published now, estimated cost {:.4} USD",
        rec.spec.name,
        rec.id,
        plan.planned.values().sum::<i64>(),
        published,
        plan.estimate.total_usd
    ));
    let progress = coordinator
        .follow(&rec, &cancel, |p| view.update(p))
        .await?;
    view.finish(&progress);
    worker_stop.cancel();
    queue.close();
    workers.await?;

    let report = report::build(store.as_ref(), &rec, ctx).await?;
    let summary = report::render(&report, report::Format::Markdown);
    match &run.report {
        Some(path) => {
            std::fs::write(path, &summary)
                .with_context(|| format!("cannot write report {}", path.display()))?;
            eprintln!("report written to {}", path.display());
        }
        None => println!("{summary}"),
    }
    let exit = Exit::of_sweep(&progress);
    eprintln!("{}", exit.summary(&rec.spec.name, &progress));
    Ok(exit)
}

async fn connect(cluster: &args::Cluster) -> Result<(Arc<RedisStore>, Arc<RabbitQueue>)> {
    let store = RedisStore::connect(&cluster.redis, &cluster.prefix).await?;
    let queue =
        RabbitQueue::connect(&cluster.amqp, &cluster.prefix, cluster.delivery_limit).await?;
    Ok((Arc::new(store), Arc::new(queue)))
}

/// `adfarm dead-letters`: one line per quarantined message (code, lane,
/// size, sweep and job when readable, reason), oldest first.
pub async fn dead_letters(cluster: &args::Cluster, max: usize, purge: bool) -> Result<()> {
    let queue =
        RabbitQueue::connect(&cluster.amqp, &cluster.prefix, cluster.delivery_limit).await?;
    let letters = queue.quarantined(max, purge).await?;
    for d in &letters {
        let job = serde_json::from_slice::<adfarm_proto::Envelope>(&d.body)
            .map(|e| format!("sweep {} job {}", e.sweep, e.id))
            .unwrap_or_else(|_| "not a job envelope".into());
        println!(
            "{}\t{}\t{} bytes\t{job}\t{}",
            d.code,
            d.lane.map_or("-", Lane::as_str),
            d.body.len(),
            d.reason
        );
    }
    let verb = if purge { "purged" } else { "listed" };
    eprintln!("{} quarantined message(s) {verb}", letters.len());
    Ok(())
}

/// `adfarm coordinator`: plan, publish, follow to the end.
pub async fn coordinator(
    home: &Path,
    ctx: &SuiteContext,
    c: args::Coordinator,
    cancel: CancellationToken,
) -> Result<Exit> {
    let (store, queue) = connect(&c.cluster).await?;
    let queue_for_scaling: Arc<dyn Queue> = queue.clone();
    let coordinator =
        Arc::new(Coordinator::new(store.clone(), queue, ctx.clone()).stopping_on(cancel.clone()));
    let server = match c.serve {
        Some(addr) => {
            let state = api::ApiState::new(
                coordinator.clone(),
                store.clone(),
                ctx.clone(),
                Arc::new(env_fn),
                cancel.clone(),
            );
            let (bound, task) = api::serve(addr, state)
                .await
                .with_context(|| format!("cannot serve the API on {addr}"))?;
            eprintln!("coordinator API listening on http://{bound}");
            Some(task)
        }
        None => None,
    };
    let Some(sweep) = &c.sweep else {
        if c.autoscale.enabled {
            tracing::warn!(
                "Autoscaling needs --sweep (its providers' rate limits); pools left as they are."
            );
        }
        if let Some(task) = server {
            task.await??;
        }
        return Ok(Exit::Completed);
    };
    let spec = load_sweep_to_run(home, sweep, ctx)?;
    let (mut rec, plan) = coordinator.register(&spec).await?;
    // Scaling starts before publishing, so workers start on the first jobs.
    let scaling = autoscaler(&c.autoscale, &rec, queue_for_scaling.clone(), &cancel).await?;
    let published = coordinator.publish(&rec).await?;
    tracing::info!(sweep = %rec.id, jobs = plan.planned.values().sum::<i64>(), published, "Sweep published.");
    eprintln!(
        "sweep {} ({}): {} jobs planned, {published} published",
        rec.spec.name,
        rec.id,
        plan.planned.values().sum::<i64>()
    );
    let mut last = std::time::Instant::now();
    let progress = loop {
        let followed = coordinator
            .follow(&rec, &cancel, |p| {
                if let Some(s) = &scaling {
                    s.observe(p);
                }
                if last.elapsed().as_secs() >= 5 {
                    let (settled, planned) = p.totals();
                    eprintln!(
                        "{settled}/{planned} jobs settled, {:.4} USD spent",
                        p.tally.spend_usd()
                    );
                    last = std::time::Instant::now();
                }
            })
            .await;
        match followed {
            // The store came back without the sweep: what it held is gone,
            // so the sweep is planned again and everything missing is
            // republished (the workers refuse writes for the lost epoch).
            Err(CoordinateError::Store(StoreError::Lost { .. })) => {
                eprintln!(
                    "the store lost sweep {} (restarted without its data?): re-planning and republishing what is missing",
                    rec.id
                );
                rec = coordinator.register(&spec).await?.0;
                coordinator.publish(&rec).await?;
            }
            other => break other?,
        }
    };
    let exit = Exit::of_sweep(&progress);
    eprintln!("{}", exit.summary(&rec.spec.name, &progress));
    if let Some(s) = scaling {
        s.stop(progress.finished()).await;
    }
    if let Some(task) = server {
        // Status and reports stay available until the coordinator is stopped.
        task.await??;
    }
    Ok(exit)
}

/// The running autoscale loop of `adfarm coordinator --autoscale`.
struct Scaling {
    outstanding: tokio::sync::watch::Sender<std::collections::BTreeMap<Lane, u64>>,
    settings: scale::AutoscaleSettings,
    scaler: Arc<dyn scale::WorkerScaler>,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Scaling {
    /// Passes the unsettled jobs per lane to the loop.
    fn observe(&self, p: &adfarm_coordinator::Progress) {
        self.outstanding.send_replace(p.unsettled_per_lane());
    }

    /// Stops the loop; a finished sweep leaves every pool at its minimum.
    async fn stop(self, finished: bool) {
        self.stop.cancel();
        let _ = self.task.await;
        if finished {
            scale::scale_to_min(&self.settings, self.scaler.as_ref()).await;
        }
    }
}

/// Starts the autoscale loop when `--autoscale` is given.
async fn autoscaler(
    a: &args::Autoscale,
    rec: &adfarm_backbone::SweepRecord,
    queue: Arc<dyn Queue>,
    cancel: &CancellationToken,
) -> Result<Option<Scaling>> {
    if !a.enabled {
        return Ok(None);
    }
    let pools = if a.worker_pools.is_empty() {
        Pool::per_lane(0, a.max_workers)
    } else {
        a.worker_pools
            .iter()
            .map(|p| Pool::parse(p, 0, a.max_workers))
            .collect::<Result<_, _>>()?
    };
    let settings = scale::AutoscaleSettings {
        pools: pools
            .into_iter()
            .map(|p| {
                let deployment = format!("{}{}", a.worker_deployment_prefix, p.name);
                (p, deployment)
            })
            .collect(),
        policy: Policy {
            worker_slots: a.worker_concurrency.max(1),
            idle_before_zero: std::time::Duration::from_secs(a.idle_secs),
            drain_target: std::time::Duration::from_secs(a.drain_secs.max(1)),
            ..Policy::default()
        },
        interval: std::time::Duration::from_secs(15),
    };
    let kube: Arc<dyn scale::WorkerScaler> =
        Arc::new(scale::KubeScaler::infer(&a.k8s_namespace).await?);
    let (outstanding, rx) = tokio::sync::watch::channel(Default::default());
    let stop = cancel.child_token();
    let task = tokio::spawn({
        let (settings, rec, kube, stop) =
            (settings.clone(), rec.clone(), kube.clone(), stop.clone());
        async move { scale::run_autoscaler(settings, &rec, queue, kube, rx, stop).await }
    });
    tracing::info!(namespace = %a.k8s_namespace, pools = settings.pools.len(), "Autoscaling worker pools.");
    Ok(Some(Scaling {
        outstanding,
        settings,
        scaler: kube,
        stop,
        task,
    }))
}

/// `adfarm worker`: run jobs until stopped.
pub async fn worker(
    home: &Path,
    ctx: &SuiteContext,
    w: args::Worker,
    cancel: CancellationToken,
    grace: std::time::Duration,
) -> Result<()> {
    let (store, queue) = connect(&w.cluster).await?;
    let limiter: Arc<dyn Limiter> = Arc::new(store.limiter());
    let gateway = Gateway::new(
        store.clone(),
        limiter,
        Backends::new(env_lookup(), local_loader(home, w.local.kv_memory())),
    );
    let config = WorkerConfig {
        lanes: parse_lanes(&w.lanes)?,
        concurrency: w.concurrency,
        grace,
        sweep_wait: std::time::Duration::from_secs(w.sweep_wait_secs),
        ..WorkerConfig::default()
    };
    let worker = Arc::new(Worker::new(store, queue, gateway, ctx.clone(), config));
    eprintln!(
        "worker running; stop with Ctrl-C or SIGTERM (jobs in flight get {} s to settle)",
        grace.as_secs()
    );
    worker.run(cancel).await;
    Ok(())
}
