//! A real Prometheus scrapes a coordinator and two workers during
//! a synthetic sweep, and every panel query of every dashboard in
//! `dashboards/` answers with a non-empty, finite result; the alert rules
//! pass `promtool check rules` and their unit tests.
//!
//! The coordinator exits once its sweep is settled, so its series go stale
//! at the next failed scrape. Queries are therefore evaluated at the time
//! of its last successful scrape (`time=` of `/api/v1/query`), when every
//! process was up and the 15 s rate windows still cover the sweep's work.

use crate::{figure, wait_for, Fake, Farm, SweepFile};
use adfarm_fake_llm::FakeLlmConfig;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::process::{Child, Command};

/// What Grafana puts in for its own variables, as the test evaluates them.
const GRAFANA_VARS: &[(&str, &str)] = &[
    ("$__rate_interval", "15s"),
    ("${__rate_interval}", "15s"),
    ("$__interval", "1s"),
    ("${__interval}", "1s"),
    ("$__range", "5m"),
    ("${__range}", "5m"),
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the cli crate sits in the workspace root")
        .to_path_buf()
}

/// A Prometheus server on a free port with its TSDB in the farm's directory.
struct Prometheus {
    base: String,
    child: Child,
    log: PathBuf,
}

impl Prometheus {
    async fn start(farm: &Farm, coordinator: &str, workers: &[String]) -> Prometheus {
        let rules = repo_root().join("dashboards/alerts.yml");
        let targets = |t: &[String]| {
            t.iter()
                .map(|a| format!("{a:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let config = format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n\
             rule_files:\n  - {rules:?}\n\
             scrape_configs:\n\
             \x20 - job_name: adfarm-coordinator\n    static_configs:\n      - targets: [{}]\n\
             \x20 - job_name: adfarm-worker\n    static_configs:\n      - targets: [{}]\n",
            targets(&[coordinator.to_string()]),
            targets(workers),
        );
        let config = farm.write("prometheus.yml", &config);
        let port = crate::free_port();
        let log = farm.path("prometheus.log");
        let out = std::fs::File::create(&log).expect("a log file");
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                farm.path("prometheus-data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdin(Stdio::null())
            .stdout(out.try_clone().expect("a log handle"))
            .stderr(out)
            .kill_on_drop(true)
            .spawn()
            .expect(
                "prometheus is installed (Debian package `prometheus`; scripts/test installs it)",
            );
        let p = Prometheus {
            base: format!("http://127.0.0.1:{port}"),
            child,
            log,
        };
        let ready = wait_for(Duration::from_secs(20), "prometheus", || async {
            let r = reqwest::get(format!("{}/-/ready", p.base)).await.ok()?;
            r.status().is_success().then_some(())
        })
        .await;
        assert!(ready.is_some(), "Prometheus not ready:\n{}", p.log_tail());
        p
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// `/api/v1/query` at `time` (seconds), its `data` or the error text.
    async fn query(&self, expr: &str, time: f64) -> Result<Value, String> {
        let url = reqwest::Url::parse_with_params(
            &format!("{}/api/v1/query", self.base),
            &[("query", expr), ("time", &format!("{time:.3}"))],
        )
        .expect("a valid URL");
        let body: Value = reqwest::get(url)
            .await
            .map_err(|e| e.to_string())?
            .json()
            .await
            .map_err(|e| e.to_string())?;
        if body["status"] != "success" {
            return Err(format!("{}: {}", body["errorType"], body["error"]));
        }
        Ok(body["data"].clone())
    }

    async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }
}

/// The values of a query's result: one per series (vector) or the scalar.
fn values(data: &Value) -> Vec<String> {
    let text = |v: &Value| v[1].as_str().unwrap_or("?").to_string();
    match data["resultType"].as_str() {
        Some("vector") => data["result"]
            .as_array()
            .map(|a| a.iter().map(|s| text(&s["value"])).collect())
            .unwrap_or_default(),
        Some("scalar") => vec![text(&data["result"])],
        _ => vec![],
    }
}

/// Checks that a query answered a non-empty vector of finite numbers.
fn judge(data: Result<Value, String>) -> Result<usize, String> {
    let data = data?;
    let vals = values(&data);
    if vals.is_empty() {
        return Err(format!("empty result ({})", data["resultType"]));
    }
    for v in &vals {
        if !v.parse::<f64>().is_ok_and(f64::is_finite) {
            return Err(format!("non-finite value {v} in {vals:?}"));
        }
    }
    Ok(vals.len())
}

/// `label_values(metric, label)` of a dashboard variable, as PromQL.
fn variable_query(q: &str) -> Option<(String, String)> {
    let inner = q.strip_prefix("label_values(")?.strip_suffix(')')?;
    let (metric, label) = inner.rsplit_once(',')?;
    Some((metric.trim().to_string(), label.trim().to_string()))
}

/// Every (dashboard, panel title, expr) of the dashboards, and every
/// variable as (dashboard, name, query).
type Panels = Vec<(String, String, String)>;
fn dashboards() -> (Panels, Panels) {
    let dir = repo_root().join("dashboards");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("dashboards/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let (mut panels, mut vars) = (Vec::new(), Vec::new());
    for f in files {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&f).expect("readable"))
            .unwrap_or_else(|e| panic!("{name} is not JSON: {e}"));
        for v in doc["templating"]["list"].as_array().into_iter().flatten() {
            if v["type"] == "query" {
                let q = v["query"]["query"]
                    .as_str()
                    .or_else(|| v["definition"].as_str())
                    .unwrap_or_default();
                vars.push((
                    name.clone(),
                    v["name"].as_str().unwrap_or("?").into(),
                    q.into(),
                ));
            }
        }
        // Panels may nest in rows.
        let mut stack: Vec<Value> = doc["panels"].as_array().cloned().unwrap_or_default();
        while let Some(p) = stack.pop() {
            stack.extend(p["panels"].as_array().cloned().unwrap_or_default());
            for t in p["targets"].as_array().into_iter().flatten() {
                if let Some(expr) = t["expr"].as_str() {
                    let title = p["title"].as_str().unwrap_or("?");
                    let r = t["refId"].as_str().unwrap_or("?");
                    panels.push((name.clone(), format!("{title} [{r}]"), expr.to_string()));
                }
            }
        }
    }
    (panels, vars)
}

fn substitute(expr: &str, vars: &[(String, String)]) -> String {
    let mut s = expr.to_string();
    for (k, v) in GRAFANA_VARS {
        s = s.replace(k, v);
    }
    // Longest names first, so `$model` does not eat into `$models`.
    let mut vars = vars.to_vec();
    vars.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
    for (k, v) in &vars {
        s = s.replace(&format!("${{{k}}}"), v);
        s = s.replace(&format!("${k}"), v);
    }
    s
}

fn promtool(args: &[&str]) {
    let out = std::process::Command::new("promtool")
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("promtool is installed (it comes with the Debian package `prometheus`)");
    assert!(
        out.status.success(),
        "promtool {args:?}: {}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn alert_rules_pass_promtool() {
    promtool(&["check", "rules", "dashboards/alerts.yml"]);
    promtool(&["test", "rules", "dashboards/alerts.test.yml"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_dashboard_query_answers_from_a_live_sweep() {
    const SWEEP: &str = "e2e-prometheus";
    let t0 = Instant::now();
    // Slow enough that the sweep spans several scrapes; faults so the retry
    // and 429 series exist.
    let fake = Fake::start(FakeLlmConfig {
        latency_ms: 60,
        p_500: 0.05,
        p_429: 0.03,
        ..FakeLlmConfig::default()
    })
    .await;
    let mut farm = Farm::new("prometheus");
    let spec = SweepFile {
        budget_usd: Some(10.0),
        ..SweepFile::synthetic(SWEEP, 400)
    };
    let sweep = farm.sweep("sweep.toml", &spec, &fake);

    let coordinator_addr = format!("127.0.0.1:{}", crate::free_port());
    let worker_addrs: Vec<String> = (0..2)
        .map(|_| format!("127.0.0.1:{}", crate::free_port()))
        .collect();
    let prom = Prometheus::start(&farm, &coordinator_addr, &worker_addrs).await;

    let before = farm.consumers().await;
    for (i, addr) in worker_addrs.iter().enumerate() {
        farm.spawn(
            &format!("worker-{i}"),
            &["--metrics-addr", addr, "worker", "--concurrency", "2"],
            true,
        );
    }
    let subscribed = wait_for(Duration::from_secs(30), "workers", || async {
        (farm.consumers().await >= before + 2).then_some(())
    })
    .await;
    assert!(
        subscribed.is_some(),
        "workers did not subscribe\n{}",
        farm.logs()
    );
    let sweep_s = sweep.to_string_lossy().into_owned();
    let coordinator = farm.spawn(
        "coordinator",
        &[
            "--metrics-addr",
            &coordinator_addr,
            "coordinator",
            "--sweep",
            &sweep_s,
        ],
        true,
    );
    let status = farm.wait(coordinator, Duration::from_secs(45)).await;
    assert!(status.success(), "coordinator: {status}\n{}", farm.logs());
    let sweep_wall = t0.elapsed();
    // Two more scrapes of the workers' final counters.
    tokio::time::sleep(Duration::from_millis(2500)).await;

    // The coordinator's last successful scrape.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the clock is past 1970")
        .as_secs_f64();
    let last = prom
        .query("up{job=\"adfarm-coordinator\"}[5m]", now)
        .await
        .ok()
        .and_then(|d| {
            d["result"][0]["values"]
                .as_array()?
                .iter()
                .filter(|v| v[1] == "1")
                .filter_map(|v| v[0].as_f64())
                .reduce(f64::max)
        })
        .unwrap_or_else(|| {
            panic!(
                "Prometheus never scraped the coordinator\n{}\n{}",
                prom.log_tail(),
                farm.logs()
            )
        });
    let scrapes = prom
        .query("count_over_time(up{job=\"adfarm-worker\"}[10m])", now)
        .await
        .map(|d| values(&d))
        .unwrap_or_default();
    assert_eq!(scrapes.len(), 2, "both workers scraped: {scrapes:?}");

    let (panels, variables) = dashboards();
    assert!(!panels.is_empty(), "no panel queries in dashboards/");
    let mut failures = Vec::new();
    let mut checked = 0;

    // The variables' own queries, and the values the test picks from them.
    let wanted = [
        ("sweep", SWEEP),
        ("model", "fake-gen-1"),
        ("kind", "solve"),
        ("judge", "fake-judge-1"),
    ];
    for (board, name, q) in &variables {
        let Some((metric, label)) = variable_query(q) else {
            failures.push(format!("{board} ${name}: not label_values(m, l): {q}"));
            continue;
        };
        let expr = format!("count by ({label}) ({metric})");
        checked += 1;
        match prom.query(&expr, last).await {
            Ok(d) => {
                let got: Vec<String> = d["result"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s["metric"][label.as_str()].as_str().map(String::from))
                    .collect();
                let want = wanted.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
                if got.is_empty() || want.is_some_and(|w| !got.iter().any(|g| g == w)) {
                    failures.push(format!("{board} ${name}: {q} gave {got:?}"));
                }
            }
            Err(e) => failures.push(format!("{board} ${name}: {q}: {e}")),
        }
    }

    // Every panel query, with every variable on "All" and on a real value.
    let all: Vec<(String, String)> = wanted
        .iter()
        .map(|(n, _)| (n.to_string(), ".*".to_string()))
        .collect();
    let real: Vec<(String, String)> = wanted
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    for (board, title, expr) in &panels {
        for (mode, vars) in [("All", &all), ("one value", &real)] {
            let q = substitute(expr, vars);
            checked += 1;
            if q.contains('$') {
                failures.push(format!(
                    "{board} / {title} ({mode}): unknown variable in {q}"
                ));
                continue;
            }
            if let Err(e) = judge(prom.query(&q, last).await) {
                failures.push(format!("{board} / {title} ({mode}): {e}\n    {q}"));
            }
        }
    }
    prom.stop().await;
    assert!(
        failures.is_empty(),
        "{} of {checked} dashboard queries failed:\n{}",
        failures.len(),
        failures.iter().fold(String::new(), |mut s, f| {
            let _ = writeln!(s, "  {f}");
            s
        })
    );
    let s = fake.stats().await;
    figure(
        "prometheus",
        format_args!(
            "{} panel queries × 2 variable settings and {} variables answered at the coordinator's last scrape; \
             sweep {:.1} s ({} requests, {} 500s, {} 429s); {:.1} s in all",
            panels.len(),
            variables.len(),
            sweep_wall.as_secs_f64(),
            s.requests,
            s.server_errors,
            s.injected_429,
            t0.elapsed().as_secs_f64()
        ),
    );
}
