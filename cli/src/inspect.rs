//! Read-only commands: `plan`, `status` and `report`, against either store.

use crate::args::Backend;
use crate::deploy::{embedded_store, load_sweep, sweep_pins};
use adfarm_backbone::{RedisStore, Store, SweepRecord};
use adfarm_coordinator::{plan, report};
use adfarm_suites::SuiteContext;
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::sync::Arc;

/// `adfarm plan`: counts and cost estimate, nothing run. Assets are read
/// where they are, never fetched; a corrupt one is named with the command
/// that fetches it again.
pub fn plan(path: &Path, home: &Path, ctx: &SuiteContext) -> Result<()> {
    let spec = load_sweep(path, ctx)?;
    adfarm_models::assets::check_present(home, &sweep_pins(&spec, ctx))?;
    let p = plan::plan(&spec, ctx)?;
    println!("sweep {} ({})", spec.name, spec.id());
    println!("\n{:<14} {:>10}", "job kind", "jobs");
    for (k, n) in &p.planned {
        println!("{:<14} {:>10}", k.as_str(), n);
    }
    println!("{:<14} {:>10}", "total", p.planned.values().sum::<i64>());
    println!(
        "\n{:<16} {:<24} {:<11} {:>9} {:>13} {:>13} {:>10}",
        "provider", "model", "role", "calls", "input tok", "output tok", "USD"
    );
    for r in &p.estimate.rows {
        println!(
            "{:<16} {:<24} {:<11} {:>9} {:>13} {:>13} {:>10.4}",
            r.provider,
            r.model,
            r.role.as_str(),
            r.calls,
            r.input_tokens,
            r.output_tokens,
            r.usd
        );
    }
    println!(
        "\nestimated cost: {:.4} USD (output at max_tokens: an upper bound)",
        p.estimate.total_usd
    );
    if let Some(b) = spec.budget_usd {
        if b < p.estimate.total_usd {
            println!(
                "budget {b:.4} USD is below the estimate: the sweep will stop when it is spent"
            );
        }
    }
    Ok(())
}

pub(crate) async fn open(home: &Path, backend: &Backend) -> Result<Arc<dyn Store>> {
    Ok(match &backend.redis {
        Some(url) => Arc::new(RedisStore::connect(url, &backend.prefix).await?),
        None => Arc::new(embedded_store(home, backend.store.as_deref())?),
    })
}

/// Finds a sweep by file, id or name (the latest registration wins).
pub(crate) async fn find(
    store: &dyn Store,
    ctx: &SuiteContext,
    which: &str,
) -> Result<SweepRecord> {
    let path = Path::new(which);
    if path.is_file() {
        let id = load_sweep(path, ctx)?.id();
        return store
            .sweep(&id)
            .await?
            .with_context(|| format!("sweep {} from {which} has not been run in this store", id));
    }
    let all = store.sweeps().await?;
    let mut matching: Vec<SweepRecord> = all
        .iter()
        .filter(|r| r.id.0 == which || r.spec.name == which)
        .cloned()
        .collect();
    matching.sort_by_key(|r| r.created_unix);
    match matching.pop() {
        Some(r) => Ok(r),
        None => {
            let names: Vec<String> = all
                .iter()
                .map(|r| format!("{} ({})", r.spec.name, r.id))
                .collect();
            bail!(
                "no sweep {which:?} in this store; known: {}",
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            )
        }
    }
}

/// `adfarm status`.
pub async fn status(home: &Path, ctx: &SuiteContext, which: &str, backend: &Backend) -> Result<()> {
    let store = open(home, backend).await?;
    let rec = find(store.as_ref(), ctx, which).await?;
    let tally = store.tally(&rec.id).await?;
    println!("sweep {} ({})", rec.spec.name, rec.id);
    print_jobs(
        "stage",
        rec.planned.iter().map(|(k, planned)| {
            let counts = [*planned, tally.done(k), tally.failures(k), tally.skips(k)];
            (k.as_str(), counts)
        }),
    );
    let budget = budget_note(rec.spec.budget_usd);
    println!(
        "spent {:.4} USD{budget}, estimated {:.4} USD",
        tally.spend_usd(),
        rec.estimated_cost_usd
    );
    Ok(())
}

/// `adfarm report`.
pub async fn report(
    home: &Path,
    ctx: &SuiteContext,
    which: &str,
    format: &str,
    out: Option<&Path>,
    backend: &Backend,
) -> Result<()> {
    let Some(format) = report::Format::parse(format) else {
        bail!("unknown report format {format:?}; valid: md, csv, json, html")
    };
    let store = open(home, backend).await?;
    let rec = find(store.as_ref(), ctx, which).await?;
    let r = report::build(store.as_ref(), &rec, ctx).await?;
    let text = report::render(&r, format);
    match out {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}

/// Prints the jobs table of `adfarm status`: a header naming the first
/// column `first`, then a row per stage or kind with its planned, done,
/// failed and skipped jobs.
pub(crate) fn print_jobs<'a>(first: &str, rows: impl IntoIterator<Item = (&'a str, [i64; 4])>) {
    println!(
        "{:<14} {:>9} {:>9} {:>9} {:>9}",
        first, "planned", "done", "failed", "skipped"
    );
    for (name, [planned, done, failed, skipped]) in rows {
        println!("{name:<14} {planned:>9} {done:>9} {failed:>9} {skipped:>9}");
    }
}

/// ` (budget <usd>)` after the spend of a sweep with a budget, else nothing.
pub(crate) fn budget_note(budget_usd: Option<f64>) -> String {
    budget_usd.map_or(String::new(), |b| format!(" (budget {b:.4})"))
}
