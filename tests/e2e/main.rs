//! End-to-end acceptance tests of the farm: the `adfarm` binary
//! against the real RabbitMQ and Redis and the fake OpenAI-compatible server.
//!
//! - `distributed`: a 2,000-job sweep over three worker processes equals the
//!   embedded run of the same file.
//! - `faults`: a killed worker, a restarted coordinator, a faulty provider
//!   (with and without Retry-After), a killed embedded run, permanent failures.
//! - `rate_limit`: three workers together hold a provider's requests/min.
//! - `budget`: a budget below the estimate stops the spending.
//! - `poison`: unreadable messages are dead-lettered; the worker carries on.
//! - `sweep_errors`: bad sweep files fail with file, line and field; absurd
//!   counts and oversized files are refused within a second.
//! - `plan_estimate`: `adfarm plan` prices embedding calls; a corrupt asset
//!   is named with the command that fetches it again.
//! - `gem_score`: `adfarm gem score` on a small response (no judge).
//! - `gem_report_html`: the HTML report opens in headless Chromium.
//! - `gem_report_sweep`: a small GEM-Bench sweep's report tables.
//! - `gem_report_text`: GEM-Bench's sections in Markdown, CSV, HTML, JSON.
//! - `prometheus`: a real Prometheus scrapes a sweep; every
//!   dashboard query answers, the alert rules pass promtool.
//! - `api`: submit, status and report through the coordinator's
//!   HTTP API (`coordinator --serve`, `--server`).
//! - `counter`: the tool-using counter suite embedded and
//!   distributed, `pass-at-k` and its section; one `echo` entry over two
//!   suites; a replayed episode answered from the cache.
//! - `leaderboard`: a quarterly release over stored sweeps (boards per
//!   benchmark version, changes since the last release, every page in
//!   headless Chromium, the JSON against its schema); a holdout release
//!   publishes no task id or text.
//! - `review_court`: two reviewers review pairs by keyboard in headless
//!   Chromium (through chromedriver), a third gets the disputed pair, wrong
//!   tokens are refused, markup in model output stays text, reviews survive
//!   a restart (embedded and Redis).
//! - `signals`: SIGTERM stops `adfarm run` (local model generating) and
//!   `adfarm worker` within the grace, a second signal at once; what was
//!   not settled is resumed or redelivered.
//!
//! This file is the harness: [`Fake`] (the fake server, in this process),
//! [`SweepFile`] (a synthetic sweep's TOML), [`Farm`] (one test's key prefix,
//! temporary directory and `adfarm` child processes).
//!
//! Design decision: tests observe the farm only from outside, as a user
//! would: exit codes, `adfarm report --format json`, the fake's `/stats`,
//! and the queues and keys under the test's own `ADFARM_PREFIX`. A fault
//! run is judged against a reference: an embedded `adfarm run` of the same
//! sweep file against a fault-free fake, whose cells must come out equal
//! (the fake's answers are a function of the request, and aggregates are
//! fixed-point integers, so equal means bit-identical).

mod adbench;
mod adsbench;
mod api;
mod budget;
mod chaos;
mod counter;
mod distributed;
mod exit_codes;
mod faults;
mod gem_local;
mod gem_report_html;
mod gem_report_sweep;
mod gem_report_text;
mod gem_score;
mod injected;
mod leaderboard;
mod own_redis;
mod plan_estimate;
mod poison;
mod prometheus;
mod rate_limit;
mod redis_cluster;
mod review_court;
mod sections;
mod signals;
mod store_loss;
mod sweep_errors;
mod webdriver;

use adfarm_backbone::{Queue, RabbitQueue, RedisStore, Store};
use adfarm_fake_llm::{FakeLlmConfig, Stats};
use adfarm_proto::report::Report;
use adfarm_proto::{Lane, SweepId};
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

/// RabbitMQ of the tests (override with `ADFARM_E2E_AMQP_URL`).
pub fn amqp_url() -> String {
    std::env::var("ADFARM_E2E_AMQP_URL")
        .unwrap_or_else(|_| "amqp://guest:guest@127.0.0.1:5672/%2f".into())
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port on 127.0.0.1")
        .port()
}

/// Redis of the tests (override with `ADFARM_E2E_REDIS_URL`).
pub fn redis_url() -> String {
    std::env::var("ADFARM_E2E_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// The fake OpenAI-compatible server, served by this test's runtime.
pub struct Fake {
    addr: SocketAddr,
    task: JoinHandle<std::io::Result<()>>,
}

impl Fake {
    /// Serves `cfg` on a free port of 127.0.0.1.
    pub async fn start(cfg: FakeLlmConfig) -> Fake {
        let (addr, task) = adfarm_fake_llm::serve(cfg, "127.0.0.1:0")
            .await
            .expect("the fake server starts");
        Fake { addr, task }
    }

    /// A fault-free fake with no latency and no limits.
    pub async fn clean() -> Fake {
        Fake::start(FakeLlmConfig::default()).await
    }

    /// Its OpenAI base URL.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Its counters.
    pub async fn stats(&self) -> Stats {
        reqwest::get(format!("http://{}/stats", self.addr))
            .await
            .expect("the fake answers /stats")
            .json()
            .await
            .expect("/stats is JSON")
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Provider settings of a synthetic sweep (one generator, judges as listed).
#[derive(Debug, Clone)]
pub struct SweepFile {
    /// Sweep name.
    pub name: String,
    /// Synthetic items.
    pub items: u64,
    /// Seeds.
    pub seeds: Vec<u64>,
    /// Judges as (provider name, model); model `missing` answers 404.
    pub judges: Vec<(String, String)>,
    /// requests_per_minute of every provider.
    pub rpm: f64,
    /// max_concurrency of every provider (per process).
    pub max_concurrency: u32,
    /// timeout_secs of every provider.
    pub timeout_secs: f64,
    /// max_tokens of the solution.
    pub max_tokens: u32,
    /// Sweep budget.
    pub budget_usd: Option<f64>,
}

/// Prices of the generator, USD per million input and output tokens.
pub const GEN_PRICE: (f64, f64) = (0.15, 0.60);
/// Prices of every judge.
pub const JUDGE_PRICE: (f64, f64) = (2.50, 10.00);
/// max_tokens of the synthetic suite's judge call.
pub const JUDGE_MAX_TOKENS: u32 = 16;

impl SweepFile {
    /// `items` synthetic items, one seed, judge `fake-judge`, limits far
    /// above what a test reaches.
    pub fn synthetic(name: &str, items: u64) -> SweepFile {
        SweepFile {
            name: name.into(),
            items,
            seeds: vec![1],
            judges: vec![("fake-judge".into(), "fake-judge-1".into())],
            rpm: 600_000.0,
            max_concurrency: 16,
            timeout_secs: 10.0,
            max_tokens: 64,
            budget_usd: None,
        }
    }

    /// Jobs the sweep expands to.
    pub fn planned_jobs(&self) -> i64 {
        let generate = self.items as i64 * self.seeds.len() as i64;
        generate * (1 + self.judges.len() as i64)
    }

    /// The sweep file, its providers at `base_url`.
    pub fn toml(&self, base_url: &str) -> String {
        let mut s = String::new();
        let judges: Vec<String> = self.judges.iter().map(|(n, _)| format!("{n:?}")).collect();
        let seeds: Vec<String> = self.seeds.iter().map(u64::to_string).collect();
        writeln!(s, "name = {:?}", self.name).unwrap();
        writeln!(s, "seeds = [{}]", seeds.join(", ")).unwrap();
        writeln!(s, "judges = [{}]", judges.join(", ")).unwrap();
        if let Some(b) = self.budget_usd {
            writeln!(s, "budget_usd = {b}").unwrap();
        }
        write!(
            s,
            "\n[[suites]]\nname = \"synthetic\"\ndatasets = [\"default\"]\nparams = {{ items = {} }}\n",
            self.items
        )
        .unwrap();
        write!(
            s,
            "\n[[solutions]]\nname = \"answer\"\nprovider = \"fake-gen\"\nmax_tokens = {}\n",
            self.max_tokens
        )
        .unwrap();
        let providers =
            std::iter::once(("fake-gen".to_string(), "fake-gen-1".to_string(), GEN_PRICE)).chain(
                self.judges
                    .iter()
                    .map(|(n, m)| (n.clone(), m.clone(), JUDGE_PRICE)),
            );
        for (name, model, (input, output)) in providers {
            write!(
                s,
                "\n[[providers]]\nname = {name:?}\nkind = \"openai-compatible\"\nbase_url = {base_url:?}\n\
                 model = {model:?}\nrequests_per_minute = {:?}\nmax_concurrency = {}\ntimeout_secs = {:?}\n\
                 input_usd_per_mtok = {input:?}\noutput_usd_per_mtok = {output:?}\n",
                self.rpm, self.max_concurrency, self.timeout_secs
            )
            .unwrap();
        }
        s
    }
}

/// A child process of a [`Farm`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proc(usize);

/// One test's world: a unique `ADFARM_PREFIX` on the shared RabbitMQ and
/// Redis, a temporary directory (sweep files, embedded stores, logs) and the
/// `adfarm` processes it started. Dropping it kills those processes (SIGKILL)
/// and deletes the prefix's Redis keys, queues and exchange.
pub struct Farm {
    /// Key and queue prefix.
    pub prefix: String,
    dir: TempDir,
    children: Vec<(String, Child)>,
    redis: String,
}

impl Farm {
    /// This farm on the Redis at `url` instead of the shared one.
    pub fn with_redis(mut self, url: &str) -> Farm {
        self.redis = url.to_string();
        self
    }

    /// A fresh world for test `test`.
    pub fn new(test: &str) -> Farm {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("the clock is past 1970")
            .subsec_nanos();
        Farm {
            prefix: format!("e2e-{test}-{}-{nanos:08x}", std::process::id()),
            dir: tempfile::Builder::new()
                .prefix(&format!("adfarm-e2e-{test}-"))
                .tempdir()
                .expect("a temporary directory"),
            children: Vec::new(),
            redis: redis_url(),
        }
    }

    /// A path in the test's directory.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes a file in the test's directory.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.path(rel);
        std::fs::write(&p, text).expect("the temporary directory is writable");
        p
    }

    /// Writes `sweep` pointing at `fake` as `<rel>`.
    pub fn sweep(&self, rel: &str, sweep: &SweepFile, fake: &Fake) -> PathBuf {
        self.write(rel, &sweep.toml(&fake.base_url()))
    }

    /// `adfarm <args>` with this farm's environment only, output to `<label>.log`.
    pub fn command(&self, label: &str, args: &[&str]) -> Command {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.path(&format!("{label}.log")))
            .expect("a log file");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_adfarm"));
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("ADFARM_") {
                cmd.env_remove(k);
            }
        }
        cmd.args(args)
            .env("ADFARM_PREFIX", &self.prefix)
            .env("ADFARM_AMQP_URL", amqp_url())
            .env("ADFARM_HOME", self.path("home"))
            .env("ADFARM_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("a log handle"))
            .stderr(log)
            .kill_on_drop(true);
        cmd
    }

    /// Starts `adfarm <args>`.
    pub fn spawn(&mut self, label: &str, args: &[&str], redis: bool) -> Proc {
        let mut cmd = self.command(label, args);
        if redis {
            cmd.env("ADFARM_REDIS_URL", self.redis.clone());
        }
        let child = cmd.spawn().expect("the adfarm binary starts");
        self.children.push((label.to_string(), child));
        Proc(self.children.len() - 1)
    }

    /// Starts `n` workers with `--concurrency c` and waits until each of
    /// them consumes every job queue.
    pub async fn start_workers(&mut self, n: usize, concurrency: u16) -> Vec<Proc> {
        let already = self.consumers().await;
        let c = concurrency.to_string();
        let procs: Vec<Proc> = (0..n)
            .map(|i| {
                let label = format!("worker-{}", self.children.len() + i);
                self.spawn(&label, &["worker", "--concurrency", &c], true)
            })
            .collect();
        let want = already + n as u64;
        wait_for(Duration::from_secs(30), "workers to subscribe", || async {
            let got = self.consumers().await;
            (got >= want).then_some(())
        })
        .await
        .unwrap_or_else(|| panic!("workers did not subscribe\n{}", self.logs()));
        procs
    }

    /// Consumers of the least-consumed lane queue.
    pub async fn consumers(&self) -> u64 {
        let q = self.queue().await;
        let mut least = u64::MAX;
        for kind in Lane::ALL {
            least = least.min(q.consumers(kind).await.expect("the queue exists"));
        }
        least
    }

    /// Starts `adfarm coordinator --sweep <sweep>`.
    pub fn spawn_coordinator(&mut self, sweep: &Path) -> Proc {
        let n = self.children.len();
        self.spawn(
            &format!("coordinator-{n}"),
            &["coordinator", "--sweep", &sweep.to_string_lossy()],
            true,
        )
    }

    /// Runs a coordinator to the end; panics unless it exits 0 in `limit`.
    /// Returns its wall time.
    pub async fn coordinate(&mut self, sweep: &Path, limit: Duration) -> Duration {
        self.coordinate_to(sweep, limit, 0).await
    }

    /// As [`Farm::coordinate`], expecting exit code `code`.
    pub async fn coordinate_to(&mut self, sweep: &Path, limit: Duration, code: i32) -> Duration {
        let t0 = Instant::now();
        let p = self.spawn_coordinator(sweep);
        let status = self.wait(p, limit).await;
        assert_eq!(
            status.code(),
            Some(code),
            "coordinator: {status}\n{}",
            self.logs()
        );
        t0.elapsed()
    }

    /// Waits for `p` to exit; panics after `limit`.
    pub async fn wait(&mut self, p: Proc, limit: Duration) -> ExitStatus {
        let (label, child) = &mut self.children[p.0];
        match tokio::time::timeout(limit, child.wait()).await {
            Ok(status) => status.expect("wait on a child"),
            Err(_) => {
                let label = label.clone();
                panic!("{label} still running after {limit:?}\n{}", self.logs())
            }
        }
    }

    /// Whether `p` still runs.
    pub fn running(&mut self, p: Proc) -> bool {
        matches!(self.children[p.0].1.try_wait(), Ok(None))
    }

    /// Sends `signal` (`TERM`, `INT`, ...) to `p` without waiting for it.
    pub fn signal(&self, p: Proc, signal: &str) {
        let pid = self.children[p.0].1.id().expect("the child still runs");
        let status = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &pid.to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{signal} {pid}: {status}");
    }

    /// `kill -9` and reap.
    pub async fn kill(&mut self, p: Proc) {
        let child = &mut self.children[p.0].1;
        child.start_kill().expect("SIGKILL is delivered");
        child.wait().await.expect("the killed child is reaped");
    }

    /// `adfarm --home <home> run <sweep> --quiet <extra>`, against the
    /// embedded store in `<home>`, started (see [`Farm::run_embedded`]).
    pub fn spawn_embedded(&mut self, home: &str, sweep: &Path, extra: &[&str]) -> Proc {
        let home = self.path(home);
        let mut args = vec![
            "--home".to_string(),
            home.to_string_lossy().into_owned(),
            "run".into(),
            sweep.to_string_lossy().into_owned(),
            "--quiet".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let n = self.children.len();
        self.spawn(&format!("run-{n}"), &args, false)
    }

    /// Runs the sweep embedded to the end and returns its report.
    pub async fn run_embedded(&mut self, home: &str, sweep: &Path, extra: &[&str]) -> Report {
        let p = self.spawn_embedded(home, sweep, extra);
        let status = self.wait(p, Duration::from_secs(90)).await;
        assert!(status.success(), "adfarm run: {status}\n{}", self.logs());
        self.report_embedded(home, sweep).await
    }

    /// `adfarm report --format json` of the sweep in the embedded store of `<home>`.
    pub async fn report_embedded(&self, home: &str, sweep: &Path) -> Report {
        let home = self.path(home);
        self.report(&["--home", &home.to_string_lossy()], sweep, false, &[])
            .await
    }

    /// `adfarm report --format json` of the sweep in this farm's Redis.
    pub async fn report_cluster(&self, sweep: &Path) -> Report {
        self.report(&[], sweep, true, &[]).await
    }

    /// Runs `sweep` (written from `spec`) to the end on `workers` worker
    /// processes of `concurrency` each, and checks the cluster's report
    /// against `reference`, an embedded run of the same file: every planned
    /// job done, the same job counts, cells and usage. Returns the report
    /// and the coordinator's wall time.
    pub async fn run_cluster_matching(
        &mut self,
        sweep: &Path,
        spec: &SweepFile,
        (workers, concurrency): (usize, u16),
        reference: &Report,
    ) -> (Report, Duration) {
        self.start_workers(workers, concurrency).await;
        let wall = self.coordinate(sweep, Duration::from_secs(120)).await;
        let report = self.report_cluster(sweep).await;
        assert_complete(&report);
        assert_eq!(planned(&report), spec.planned_jobs());
        assert_same_results(&report, reference);
        assert_eq!(report.usage, reference.usage);
        (report, wall)
    }

    /// `adfarm <pre> report <sweep> --format json --out F <post>`, against
    /// this farm's Redis when `redis`, parsed.
    pub async fn report(&self, pre: &[&str], sweep: &Path, redis: bool, post: &[&str]) -> Report {
        let out = self.path(&format!(
            "report-{}.json",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .expect("the clock is past 1970")
                .as_nanos()
        ));
        let mut args: Vec<&str> = pre.to_vec();
        let sweep = sweep.to_string_lossy();
        let out_s = out.to_string_lossy();
        args.extend(["report", &sweep, "--format", "json", "--out", &out_s]);
        args.extend(post);
        let mut cmd = self.command("report", &args);
        if redis {
            cmd.env("ADFARM_REDIS_URL", self.redis.clone());
        }
        let status = cmd.status().await.expect("adfarm report starts");
        assert!(status.success(), "adfarm report: {status}\n{}", self.logs());
        let text = std::fs::read_to_string(&out).expect("the report was written");
        serde_json::from_str(&text).expect("the JSON report is a Report")
    }

    /// `adfarm plan <sweep>`: exit status, stdout, stderr.
    pub async fn plan(&self, sweep: &Path) -> (ExitStatus, String, String) {
        let mut cmd = self.command("plan", &["plan", &sweep.to_string_lossy()]);
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let out = cmd.output().await.expect("adfarm plan starts");
        (
            out.status,
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// This farm's Redis store.
    pub async fn store(&self) -> RedisStore {
        RedisStore::connect(&self.redis, &self.prefix)
            .await
            .expect("Redis is running")
    }

    /// This farm's queues (declares them).
    pub async fn queue(&self) -> RabbitQueue {
        RabbitQueue::connect(
            &amqp_url(),
            &self.prefix,
            RabbitQueue::DEFAULT_DELIVERY_LIMIT,
        )
        .await
        .expect("RabbitMQ is running")
    }

    /// Settled and planned jobs of the sweep in Redis (zeros before it is registered).
    pub async fn progress(&self, store: &RedisStore, id: &SweepId) -> (i64, i64) {
        let Some(rec) = store.sweep(id).await.expect("Redis answers") else {
            return (0, 0);
        };
        let tally = store.tally(id).await.expect("Redis answers");
        let planned = rec.planned.values().sum();
        let settled = rec.planned.keys().map(|k| tally.settled(k)).sum();
        (settled, planned)
    }

    /// The last lines of every process log, for failure messages.
    pub fn logs(&self) -> String {
        let mut out = String::new();
        let mut entries: Vec<_> = std::fs::read_dir(self.dir.path())
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for p in entries {
            if p.extension().is_some_and(|e| e == "log") {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                let tail = &lines[lines.len().saturating_sub(15)..];
                let _ = writeln!(
                    out,
                    "--- {} ---\n{}",
                    p.file_name().unwrap_or_default().to_string_lossy(),
                    tail.join("\n")
                );
            }
        }
        out
    }
}

impl Drop for Farm {
    fn drop(&mut self) {
        for (_, child) in &mut self.children {
            let _ = child.start_kill();
        }
        if std::thread::panicking() {
            eprintln!("process logs of {}:\n{}", self.prefix, self.logs());
        }
        // A runtime of its own: this may run inside the test's runtime, or
        // while a panic unwinds it.
        let prefix = self.prefix.clone();
        let redis = self.redis.clone();
        let cleanup = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a cleanup runtime");
            rt.block_on(async {
                if let Ok(store) = RedisStore::connect(&redis, &prefix).await {
                    let _ = store.delete_all().await;
                }
                if let Ok(queue) =
                    RabbitQueue::connect(&amqp_url(), &prefix, RabbitQueue::DEFAULT_DELIVERY_LIMIT)
                        .await
                {
                    let _ = queue.delete_all().await;
                }
            });
        });
        let _ = cleanup.join();
    }
}

/// The sweep id of a sweep file (as `adfarm` computes it).
pub fn sweep_id(path: &Path) -> SweepId {
    adfarm_coordinator::sweep_file::load(
        path,
        &adfarm_suites::SuiteContext::default(),
        &|k: &str| std::env::var(k).ok(),
    )
    .expect("the test's sweep file is valid")
    .id()
}

/// Polls `probe` every 20 ms until it gives a value or `limit` passes.
pub async fn wait_for<T, F, Fut>(limit: Duration, _what: &str, mut probe: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = probe().await {
            return Some(v);
        }
        if Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The assets home the test command prepared (`$ADFARM_HOME`, else the
/// binary's default), as an argument for `--home`.
pub fn assets_home() -> String {
    std::env::var_os("ADFARM_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            dirs::cache_dir()
                .unwrap_or_else(std::env::temp_dir)
                .join("adfarm")
        })
        .to_string_lossy()
        .into_owned()
}

/// Every planned job completed; nothing failed, skipped or dead-lettered.
pub fn assert_complete(r: &Report) {
    assert!(!r.jobs.is_empty(), "no jobs in {r:#?}");
    for (kind, c) in &r.jobs {
        assert_eq!(
            (c.completed, c.failed, c.skipped),
            (c.planned, 0, 0),
            "{kind}: {c:?}; dead letters: {:#?}",
            r.dead_letters
        );
    }
    assert!(r.dead_letters.is_empty(), "{:#?}", r.dead_letters);
    assert!(!r.stopped_by_budget);
}

/// Same job counts and the same cells (n, mean, std, ci95, unscored) as `reference`.
pub fn assert_same_results(r: &Report, reference: &Report) {
    assert_eq!(r.jobs, reference.jobs, "job counts differ");
    assert_eq!(r.cells, reference.cells, "cells differ");
}

/// Total planned jobs of a report.
pub fn planned(r: &Report) -> i64 {
    r.jobs.values().map(|c| c.planned).sum()
}

/// Prints a measured figure (shown with `--no-capture`).
pub fn figure(test: &str, what: std::fmt::Arguments<'_>) {
    println!("[e2e {test}] {what}");
}
