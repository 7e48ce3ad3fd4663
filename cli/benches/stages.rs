//! Where a sweep's time goes, stage by stage: runs the `adfarm` binary on a
//! sweep file in phases on one store, each phase adding one part of the
//! sweep while the store's model-call cache answers what earlier phases
//! already asked, and prints each phase's wall time, CPU time, and the
//! model calls and tokens it spent per role.
//!
//! ```text
//! cargo bench --profile dev -p adfarm --bench stages -- [SWEEP] [--limit N] [--whole]
//! ```
//!
//! SWEEP defaults to `sweeps/quickstart.toml`. The phases:
//! 1. the first item of each dataset under every solution, on a fresh
//!    home (so the first solve that needs a cached index, such as an ad
//!    database's embeddings, builds it here);
//! 2. the rest of the solutions' items;
//! 3. the judges' questions (`judges` restored);
//! 4. the embedding stage (the sweep's `embedder` restored; before, each
//!    solution embeds with it as its own): the sweep file itself;
//! 5. the same sweep under another name: every model call answered from
//!    the cache, so what is left is the farm's own work (planning, jobs,
//!    the store, the report).
//!
//! `ADFARM_BIN` names another `adfarm` binary to run (a release build, say)
//! in place of the one cargo built with the bench.
//!
//! `--limit N` cuts every dataset to its first N items; `--whole` first
//! runs the sweep in one go from a fresh home and store, for the total the
//! phases are measured against. Phases run one after another, so their
//! sum is more than a whole run, where stages overlap; the shares say which
//! part to attack. Needs the pinned assets under `$ADFARM_HOME` (`adfarm
//! assets fetch`); the ad index and every other cache start empty.

use anyhow::{bail, Context, Result};
use nix::sys::resource::{getrusage, UsageWho};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

struct Args {
    sweep: PathBuf,
    limit: Option<u64>,
    whole: bool,
}

fn args() -> Result<Args> {
    let mut out = Args {
        sweep: Path::new(env!("CARGO_MANIFEST_DIR")).join("../sweeps/quickstart.toml"),
        limit: None,
        whole: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            // cargo bench passes --bench to every bench binary.
            "--bench" => {}
            "--whole" => out.whole = true,
            "--limit" => {
                let n = it.next().context("--limit needs a number")?;
                out.limit = Some(n.parse().with_context(|| format!("--limit {n}"))?);
            }
            other if !other.starts_with('-') => out.sweep = other.into(),
            other => bail!("unknown argument {other}"),
        }
    }
    Ok(out)
}

/// The sweep file with `edit` applied to its TOML table.
fn variant(base: &toml::Table, edit: impl FnOnce(&mut toml::Table)) -> String {
    let mut t = base.clone();
    edit(&mut t);
    toml::to_string(&t).expect("a TOML table serialises")
}

fn set_limit(t: &mut toml::Table, limit: Option<u64>) {
    let Some(n) = limit else { return };
    if let Some(toml::Value::Array(suites)) = t.get_mut("suites") {
        for s in suites {
            if let Some(s) = s.as_table_mut() {
                let n = s
                    .get("limit")
                    .and_then(toml::Value::as_integer)
                    .map_or(n, |old| n.min(old as u64));
                s.insert("limit".into(), toml::Value::Integer(n as i64));
            }
        }
    }
}

fn without_judges(t: &mut toml::Table) {
    t.insert("judges".into(), toml::Value::Array(Vec::new()));
}

/// Drops the sweep's `embedder`, so no scoring stage embeds; a solution
/// that embeds for its own step keeps the same model as its own.
fn without_embedder(t: &mut toml::Table) {
    let Some(embedder) = t.remove("embedder") else {
        return;
    };
    if let Some(toml::Value::Array(solutions)) = t.get_mut("solutions") {
        for s in solutions.iter_mut().filter_map(toml::Value::as_table_mut) {
            s.entry("embedder").or_insert_with(|| embedder.clone());
        }
    }
}

/// Child processes' CPU seconds so far (user + system).
fn children_cpu() -> f64 {
    let u = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    secs(u.user_time()) + secs(u.system_time())
}

/// The largest peak RSS of any child so far, MiB.
fn children_peak_mib() -> f64 {
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(f64::NAN, |u| u.max_rss() as f64 / 1024.0)
}

struct Phase {
    name: &'static str,
    wall: f64,
    cpu: f64,
    /// Per role: calls made (not from the cache), input and output tokens.
    roles: BTreeMap<String, [i64; 3]>,
    jobs: i64,
}

/// Runs `adfarm run` on `text` with `home` and `store`, then reads its
/// report (written afterwards, outside the measured time).
fn run(name: &'static str, text: &str, dir: &Path, home: &Path, store: &Path) -> Result<Phase> {
    let stem = name.replace(' ', "-");
    let file = dir.join(format!("{stem}.toml"));
    let report = dir.join(format!("{stem}.json"));
    std::fs::write(&file, text)?;
    let bin = std::env::var_os("ADFARM_BIN").unwrap_or(env!("CARGO_BIN_EXE_adfarm").into());
    let adfarm = |args: &[&std::ffi::OsStr]| -> Result<()> {
        let status = Command::new(&bin)
            .args(args)
            .env("ADFARM_HOME", home)
            // Each run's own summary would bury the table.
            .stdout(std::process::Stdio::null())
            .status()
            .context("start adfarm")?;
        if !status.success() {
            bail!("phase {name}: adfarm {:?} exited with {status}", args[0]);
        }
        Ok(())
    };
    let (t, cpu0) = (Instant::now(), children_cpu());
    adfarm(&[
        "run".as_ref(),
        "--quiet".as_ref(),
        "--store".as_ref(),
        store.as_os_str(),
        file.as_os_str(),
    ])?;
    let wall = t.elapsed().as_secs_f64();
    let cpu = children_cpu() - cpu0;
    adfarm(&[
        "report".as_ref(),
        file.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--out".as_ref(),
        report.as_os_str(),
        "--store".as_ref(),
        store.as_os_str(),
    ])?;
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report)?)
        .with_context(|| format!("read {}", report.display()))?;
    let mut roles = BTreeMap::new();
    for u in json["usage"].as_array().into_iter().flatten() {
        let role = u["role"].as_str().unwrap_or("?").to_string();
        let e: &mut [i64; 3] = roles.entry(role).or_default();
        e[0] += u["requests"].as_i64().unwrap_or(0);
        e[1] += u["input_tokens"].as_i64().unwrap_or(0);
        e[2] += u["output_tokens"].as_i64().unwrap_or(0);
    }
    let jobs = json["jobs"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(_, c)| c["completed"].as_i64().unwrap_or(0))
        .sum();
    Ok(Phase {
        name,
        wall,
        cpu,
        roles,
        jobs,
    })
}

/// A fresh home whose assets are the real home's: every cache starts empty.
fn fresh_home(dir: &Path, name: &str) -> Result<PathBuf> {
    let real = std::env::var_os("ADFARM_HOME")
        .map(PathBuf::from)
        .or_else(|| dirs::cache_dir().map(|d| d.join("adfarm")))
        .context("no ADFARM_HOME and no cache directory")?;
    let assets = real.join("assets");
    if !assets.is_dir() {
        bail!(
            "{} holds no assets: run `adfarm assets fetch` first",
            real.display()
        );
    }
    let home = dir.join(name);
    std::fs::create_dir_all(&home)?;
    std::os::unix::fs::symlink(&assets, home.join("assets"))?;
    Ok(home)
}

fn main() -> Result<()> {
    let a = args()?;
    let text =
        std::fs::read_to_string(&a.sweep).with_context(|| format!("read {}", a.sweep.display()))?;
    let base: toml::Table =
        toml::from_str(&text).with_context(|| format!("parse {}", a.sweep.display()))?;
    let mut full = base.clone();
    set_limit(&mut full, a.limit);
    let dir = tempfile::tempdir()?;
    let d = dir.path();

    let whole = if a.whole {
        let home = fresh_home(d, "whole-home")?;
        Some(run(
            "whole",
            &variant(&full, |_| {}),
            d,
            &home,
            &d.join("whole-store"),
        )?)
    } else {
        None
    };

    let home = fresh_home(d, "home")?;
    let store = d.join("store");
    let mut phases = Vec::new();
    let steps: [(&'static str, String); 5] = [
        (
            "first item",
            variant(&full, |t| {
                set_limit(t, Some(1));
                without_judges(t);
                without_embedder(t);
            }),
        ),
        (
            "solutions",
            variant(&full, |t| {
                without_judges(t);
                without_embedder(t);
            }),
        ),
        ("judges", variant(&full, without_embedder)),
        ("embedding", variant(&full, |_| {})),
        (
            "farm alone",
            variant(&full, |t| {
                let name = t.get("name").and_then(|v| v.as_str()).unwrap_or("sweep");
                let again = format!("{name}-again");
                t.insert("name".into(), toml::Value::String(again));
            }),
        ),
    ];
    for (name, text) in &steps {
        eprintln!("phase: {name}");
        phases.push(run(name, text, d, &home, &store)?);
    }

    let roles: Vec<String> = phases
        .iter()
        .chain(&whole)
        .flat_map(|p| p.roles.keys().cloned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let total: f64 = phases.iter().map(|p| p.wall).sum();
    println!(
        "\n{} {}",
        a.sweep.display(),
        a.limit.map_or(String::new(), |n| format!("(limit {n})"))
    );
    let mut head = "| phase | wall s | share | CPU s | jobs settled |".to_string();
    let mut rule = "|---|---:|---:|---:|---:|".to_string();
    for r in &roles {
        head.push_str(&format!(" {r} calls | {r} tokens in / out |"));
        rule.push_str("---:|---:|");
    }
    println!("{head}\n{rule}");
    let line = |p: &Phase, share: String| {
        let mut s = format!(
            "| {} | {:.1} | {share} | {:.1} | {} |",
            p.name, p.wall, p.cpu, p.jobs
        );
        for r in &roles {
            let [calls, input, output] = p.roles.get(r).copied().unwrap_or_default();
            s.push_str(&format!(" {calls} | {input} / {output} |"));
        }
        s
    };
    for p in &phases {
        println!("{}", line(p, format!("{:.0}%", 100.0 * p.wall / total)));
    }
    println!(
        "| phases in all | {total:.1} | | {:.1} | |",
        phases.iter().map(|p| p.cpu).sum::<f64>()
    );
    if let Some(w) = &whole {
        println!("{}", line(w, "–".into()));
    }
    println!("\npeak RSS of any run: {:.0} MiB", children_peak_mib());
    Ok(())
}
