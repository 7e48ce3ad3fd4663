//! `submit`, `status --server` and `report --server`: the same commands
//! against a coordinator's HTTP API instead of a store.

use crate::deploy::load_sweep;
use crate::inspect::{budget_note, print_jobs};
use adfarm_coordinator::api::{Submitted, SweepStatus};
use adfarm_suites::SuiteContext;
use anyhow::{bail, Context, Result};
use std::path::Path;

fn base(server: &str) -> String {
    server.trim_end_matches('/').to_string()
}

/// The sweep id for `which`: a sweep file's content hash, or `which` itself.
fn sweep_id(ctx: &SuiteContext, which: &str) -> Result<String> {
    let path = Path::new(which);
    if path.is_file() {
        return Ok(load_sweep(path, ctx)?.id().0);
    }
    Ok(which.to_string())
}

async fn fail(resp: reqwest::Response) -> anyhow::Error {
    let status = resp.status();
    let body: serde_json::Value = resp.json().await.unwrap_or_default();
    match body["error"].as_str() {
        Some(e) => anyhow::anyhow!("server answered {status}: {e}"),
        None => anyhow::anyhow!("server answered {status}"),
    }
}

/// `adfarm submit`: validates locally, then sends the sweep file.
pub async fn submit(ctx: &SuiteContext, path: &Path, server: &str) -> Result<()> {
    // Validating here gives errors with this file's name and line.
    load_sweep(path, ctx)?;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let resp = reqwest::Client::new()
        .post(format!("{}/sweeps", base(server)))
        .header("content-type", "application/toml")
        .body(text)
        .send()
        .await
        .with_context(|| format!("cannot reach the coordinator at {server}"))?;
    if !resp.status().is_success() {
        return Err(fail(resp).await);
    }
    let s: Submitted = resp.json().await?;
    println!("sweep {} ({})", s.name, s.id);
    println!(
        "{} jobs planned, {} published, estimated cost {:.4} USD",
        s.planned.values().sum::<i64>(),
        s.published,
        s.estimated_cost_usd
    );
    println!("follow it with: adfarm status {} --server {server}", s.id);
    Ok(())
}

/// `adfarm status --server`.
pub async fn status(ctx: &SuiteContext, which: &str, server: &str) -> Result<()> {
    let id = sweep_id(ctx, which)?;
    let resp = reqwest::get(format!("{}/sweeps/{id}", base(server)))
        .await
        .with_context(|| format!("cannot reach the coordinator at {server}"))?;
    if !resp.status().is_success() {
        return Err(fail(resp).await);
    }
    let s: SweepStatus = resp.json().await?;
    println!("sweep {} ({})", s.name, s.id);
    print_jobs(
        "kind",
        s.jobs.iter().map(|(kind, k)| {
            let counts = [k.planned, k.completed, k.failed, k.skipped];
            (kind.as_str(), counts)
        }),
    );
    let budget = budget_note(s.budget_usd);
    println!(
        "spent {:.4} USD{budget}, estimated {:.4} USD; {}/{} settled{}",
        s.spent_usd,
        s.estimated_cost_usd,
        s.settled,
        s.planned,
        if s.finished { ", finished" } else { "" }
    );
    Ok(())
}

/// `adfarm report --server`.
pub async fn report(
    ctx: &SuiteContext,
    which: &str,
    format: &str,
    out: Option<&Path>,
    server: &str,
) -> Result<()> {
    if adfarm_coordinator::report::Format::parse(format).is_none() {
        bail!("unknown report format {format:?}; valid: md, csv, json, html")
    }
    let id = sweep_id(ctx, which)?;
    let resp = reqwest::Client::new()
        // `format` is one of the known names: safe in a query string.
        .get(format!(
            "{}/sweeps/{id}/report?format={format}",
            base(server)
        ))
        .send()
        .await
        .with_context(|| format!("cannot reach the coordinator at {server}"))?;
    if !resp.status().is_success() {
        return Err(fail(resp).await);
    }
    let text = resp.text().await?;
    match out {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}
