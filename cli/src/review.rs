//! `adfarm review ...`: serve a sweep's review round, invite reviewers,
//! ask the sweep's judges about its pairs, and export the reviews.

use crate::args::Backend;
use crate::exit::BadInput;
use crate::inspect::{find, open};
use adfarm_backbone::LocalLimiter;
use adfarm_coordinator::review::{self, web, Court, ExportFormat};
use adfarm_llm::Provider;
use adfarm_proto::Role;
use adfarm_suites::SuiteContext;
use adfarm_worker::backends::Backends;
use adfarm_worker::gateway::UsageLog;
use adfarm_worker::Gateway;
use anyhow::{Context, Result};
use std::path::Path;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The link a token opens, under `base` (`http://host:port`).
fn link(base: &str, token: &str) -> String {
    format!("{}/r/{token}", base.trim_end_matches('/'))
}

/// `adfarm review serve`: serves the round until stopped; prints the
/// tasks per kind and a fresh admin link.
pub async fn serve(
    home: &Path,
    ctx: &SuiteContext,
    sweep: &str,
    addr: &str,
    url: Option<&str>,
    backend: &Backend,
    cancel: CancellationToken,
) -> Result<()> {
    let store = open(home, backend).await?;
    let rec = find(store.as_ref(), ctx, sweep).await?;
    let court = Court::load(store.as_ref(), &rec, ctx).await?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| BadInput(format!("--addr {addr}: cannot listen: {e}")))?;
    let bound = listener.local_addr()?;
    let base = url.map_or_else(|| format!("http://{bound}"), str::to_string);
    let admin = review::invite(store.as_ref(), &rec.id, "admin", true).await?;
    println!("review round of sweep {} ({})", rec.spec.name, rec.id);
    for (k, n) in court.count_by_kind() {
        let form = if k.kind.form.is_pair() {
            "pairs"
        } else {
            "ratings"
        };
        println!("  {}/{}: {n} {form} — {}", k.suite, k.kind.id, k.kind.title);
    }
    if court.tasks.is_empty() {
        println!("  (nothing to review: the sweep's suites declare no tasks over its results yet)");
    }
    println!("serving on http://{bound}");
    println!("admin dashboard: {}", link(&base, &admin.token));
    println!("invite reviewers with: adfarm review invite --sweep {sweep} --name NAME");
    let round = Arc::new(web::Round::new(court, store));
    axum::serve(listener, web::router(round))
        .with_graceful_shutdown(async move { cancel.cancelled().await })
        .await?;
    Ok(())
}

/// `adfarm review invite`: stores a reviewer and prints their link.
pub async fn invite(
    home: &Path,
    ctx: &SuiteContext,
    sweep: &str,
    name: &str,
    admin: bool,
    url: &str,
    backend: &Backend,
) -> Result<()> {
    let store = open(home, backend).await?;
    let rec = find(store.as_ref(), ctx, sweep).await?;
    let inv = review::invite(store.as_ref(), &rec.id, name, admin)
        .await
        .map_err(|e| match e {
            review::ReviewError::Input(m) => anyhow::Error::new(BadInput(format!("--name: {m}"))),
            e => e.into(),
        })?;
    println!(
        "{} ({}) may review sweep {}: {}",
        inv.reviewer.name,
        inv.reviewer.id,
        rec.spec.name,
        link(url, &inv.token)
    );
    Ok(())
}

/// `adfarm review export`.
pub async fn export(
    home: &Path,
    ctx: &SuiteContext,
    sweep: &str,
    format: &str,
    out: Option<&Path>,
    backend: &Backend,
) -> Result<()> {
    let format = match format {
        "csv" => ExportFormat::Csv,
        "json" => ExportFormat::Json,
        other => return Err(BadInput(format!("--format {other:?}: use csv or json")).into()),
    };
    let store = open(home, backend).await?;
    let rec = find(store.as_ref(), ctx, sweep).await?;
    let court = Court::load(store.as_ref(), &rec, ctx).await?;
    let reviews = review::reviews(store.as_ref(), &rec.id).await?;
    let text = review::export(&court, &reviews, format);
    match out {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}

/// `adfarm review judge`: asks the sweep's judges about every pair, in
/// both orders, through the same cache, budget and rate limits as the
/// sweep's own calls.
pub async fn judge(home: &Path, ctx: &SuiteContext, sweep: &str, backend: &Backend) -> Result<()> {
    let store = open(home, backend).await?;
    let rec = find(store.as_ref(), ctx, sweep).await?;
    if rec.spec.judges.is_empty() {
        return Err(BadInput(format!(
            "sweep {} names no judges; add `judges = [...]` to its sweep file",
            rec.spec.name
        ))
        .into());
    }
    let court = Court::load(store.as_ref(), &rec, ctx).await?;
    let gateway = Gateway::new(
        store.clone(),
        Arc::new(LocalLimiter::default()),
        Backends::new(
            crate::deploy::env_lookup(),
            crate::deploy::local_loader(home, adfarm_models::generator::DEFAULT_KV_MEMORY_BYTES),
        ),
    );
    let mut bound = Vec::new();
    for name in &rec.spec.judges {
        let m = gateway
            .bind(&rec, name, Role::Judge, UsageLog::default())
            .with_context(|| format!("judge {name}"))?;
        bound.push((name.clone(), m));
    }
    let judges: Vec<(String, &dyn Provider)> = bound
        .iter()
        .map(|(n, m)| (n.clone(), m as &dyn Provider))
        .collect();
    let asked = review::ask_judges(store.as_ref(), &court, &judges).await?;
    println!(
        "asked {} judge(s) {asked} question(s) about the pairs of sweep {}",
        judges.len(),
        rec.spec.name
    );
    Ok(())
}
