//! `adfarm leaderboard build`: reads the config, finds its sweeps in the
//! store (by file, id or name), and writes the release's site.

use crate::args::Backend;
use crate::exit::BadInput;
use crate::inspect::{find, open};
use adfarm_coordinator::leaderboard::{assemble, write_site, Config, Split, Sweep};
use adfarm_coordinator::report::cells_of;
use adfarm_proto::leaderboard::Release;
use adfarm_suites::SuiteContext;
use anyhow::{Context, Result};
use std::path::Path;

/// The split named on the command line (clap allows only these two).
pub fn split(name: &str) -> Split {
    if name == "holdout" {
        Split::Holdout
    } else {
        Split::Public
    }
}

/// Builds the release of `config` into `out`.
pub async fn build(
    home: &Path,
    ctx: &SuiteContext,
    config: &Path,
    out: &Path,
    split: Split,
    with_outputs: bool,
    backend: &Backend,
) -> Result<()> {
    let cfg = Config::read(config)?;
    let base = config.parent().unwrap_or(Path::new("."));
    let previous = match &cfg.release.previous {
        Some(p) => Some(read_previous(&base.join(p))?),
        None => None,
    };
    let store = open(home, backend).await?;
    let mut sweeps = Vec::with_capacity(cfg.sweeps.len());
    for (i, source) in cfg.sweeps.iter().enumerate() {
        let file = base.join(&source.sweep);
        let (which, file) = if file.is_file() {
            (file.display().to_string(), Some(source.sweep.clone()))
        } else {
            (source.sweep.clone(), None)
        };
        let record = find(store.as_ref(), ctx, &which)
            .await
            .with_context(|| format!("{}: sweeps[{i}].sweep", config.display()))?;
        let tally = store.tally(&record.id).await?;
        let results = store.results(&record.id).await?;
        sweeps.push(Sweep {
            source: source.clone(),
            file,
            cells: cells_of(&tally),
            record,
            results,
        });
    }
    let built = assemble(
        &cfg.release,
        &sweeps,
        previous.as_ref(),
        split,
        with_outputs,
        ctx,
    )
    .with_context(|| config.display().to_string())?;
    let files =
        write_site(out, &built).with_context(|| format!("cannot write {}", out.display()))?;
    let r = &built.release;
    println!(
        "release {} {} ({} split): {} boards, {} entries, {} files in {}",
        r.name,
        r.version,
        r.split,
        r.boards.len(),
        r.entries.len(),
        files.len(),
        out.display()
    );
    for b in &r.boards {
        let stale = if b.stale.is_some() { " [stale]" } else { "" };
        println!("  {}: {}{stale}", b.id, b.version.label());
        for row in &b.rows {
            let first = row.cells.first();
            println!(
                "    tier {:>2}  {:<28} {}",
                row.tier,
                row.entry,
                first
                    .and_then(|s| s.mean)
                    .map_or("–".into(), |m| format!("{m:.1}"))
            );
        }
    }
    Ok(())
}

/// The previous release's JSON.
fn read_previous(path: &Path) -> Result<Release> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| BadInput(format!("release.previous: {}: {e}", path.display())))?;
    let r: Release = serde_json::from_str(&text).map_err(|e| {
        BadInput(format!(
            "release.previous: {} is not a leaderboard.json: {e}",
            path.display()
        ))
    })?;
    if r.format != adfarm_proto::leaderboard::RELEASE_FORMAT {
        return Err(BadInput(format!(
            "release.previous: {} has release format {}; this binary reads format {}",
            path.display(),
            r.format,
            adfarm_proto::leaderboard::RELEASE_FORMAT
        ))
        .into());
    }
    Ok(r)
}
