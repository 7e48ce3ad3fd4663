//! Builds a sweep's [`Report`] from the store and writes it as JSON, CSV,
//! Markdown or a self-contained HTML page. Cost is derived from usage
//! counters and the sweep's prices; a sweep with a `gem` suite also gets
//! the GEM-Bench tables ([`crate::gem_report`]).

use adfarm_backbone::{Store, StoreError, SweepRecord};
use adfarm_proto::report::{CellRow, JobCounts, Report, UsageRow};
use adfarm_proto::tally::BUDGET_CODE;
use adfarm_proto::FORMAT_VERSION;
use adfarm_suites::SuiteContext;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Output formats of `adfarm report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Markdown tables.
    Markdown,
    /// One CSV table of cells.
    Csv,
    /// The full [`Report`] as JSON.
    Json,
    /// A self-contained HTML page with tables and inline SVG plots.
    Html,
}

impl Format {
    /// Parses `md`, `csv`, `json` or `html`.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "md" | "markdown" => Some(Format::Markdown),
            "csv" => Some(Format::Csv),
            "json" => Some(Format::Json),
            "html" => Some(Format::Html),
            _ => None,
        }
    }
}

/// Builds the report of `rec` from the store (GEM-Bench tables from the
/// cells only; see [`build_with`]).
///
/// # Errors
/// When the store is unavailable.
pub async fn build(store: &dyn Store, rec: &SweepRecord) -> Result<Report, StoreError> {
    build_with(store, rec, None).await
}

/// Builds the report of `rec`; with `ctx` (to re-expand the sweep's jobs)
/// the GEM-Bench cost and judge agreement tables are filled from per-job
/// results.
///
/// # Errors
/// When the store is unavailable.
pub async fn build_with(
    store: &dyn Store,
    rec: &SweepRecord,
    ctx: Option<&SuiteContext>,
) -> Result<Report, StoreError> {
    let tally = store.tally(&rec.id).await?;
    let failures = store.failures(&rec.id).await?;
    let stages: std::collections::BTreeSet<&String> = rec
        .planned
        .keys()
        .chain(tally.completed.keys())
        .chain(tally.skipped.keys())
        .chain(tally.failed.keys().flatten())
        .collect();
    let jobs: BTreeMap<String, JobCounts> = stages
        .into_iter()
        .map(|k| {
            (
                k.clone(),
                JobCounts {
                    planned: rec.planned.get(k).copied().unwrap_or(0),
                    completed: tally.done(k),
                    failed: tally.failures(k),
                    skipped: tally.skips(k),
                },
            )
        })
        .collect();
    let cells: Vec<CellRow> = tally
        .cells
        .iter()
        .map(|(k, sums)| {
            let s = sums.summary();
            CellRow {
                suite: k.suite.clone(),
                dataset: k.dataset.clone(),
                solution: k.solution.clone(),
                judge: k.judge.clone(),
                metric: k.metric.clone(),
                n: s.n,
                unscored: sums.unscored.clone(),
                mean: s.mean,
                std: s.std,
                ci95: s.ci95,
            }
        })
        .collect();
    let mut rows: BTreeMap<(String, adfarm_proto::Role), UsageRow> = BTreeMap::new();
    for (k, u) in &tally.usage {
        let row = rows
            .entry((k.model.clone(), k.role))
            .or_insert_with(|| UsageRow {
                model: k.model.clone(),
                role: k.role,
                requests: 0,
                cached_requests: 0,
                input_tokens: 0,
                output_tokens: 0,
                cached_tokens: 0,
                estimated_requests: 0,
                cost_usd: 0.0,
            });
        if k.cached {
            row.cached_requests += u.requests;
            row.cached_tokens += u.input + u.output;
        } else {
            row.requests += u.requests;
            row.input_tokens += u.input;
            row.output_tokens += u.output;
            row.estimated_requests += u.counted;
            if let Some(p) = rec.spec.provider_for_model(&k.model) {
                row.cost_usd += p.cost_usd(u.input as u64, u.output as u64);
            }
        }
    }
    let usage: Vec<UsageRow> = rows.into_values().collect();
    let mut cost_by_role = BTreeMap::new();
    for r in &usage {
        *cost_by_role.entry(r.role).or_insert(0.0) += r.cost_usd;
    }
    let gem = crate::gem_report::build(store, rec, &cells, ctx).await?;
    Ok(Report {
        format_version: FORMAT_VERSION,
        sweep: rec.spec.name.clone(),
        sweep_id: rec.id.0.clone(),
        jobs,
        cells,
        usage,
        cost_by_role,
        cost_usd: tally.spend_usd(),
        budget_usd: rec.spec.budget_usd,
        stopped_by_budget: tally.skipped.values().any(|n| *n > 0),
        estimated_cost_usd: rec.estimated_cost_usd,
        dead_letters: failures
            .into_iter()
            .filter(|f| f.code != BUDGET_CODE)
            .collect(),
        gem,
    })
}

/// A number with two decimals, or `-` when absent (every renderer uses it).
pub(crate) fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"))
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Renders `r` in `format`.
pub fn render(r: &Report, format: Format) -> String {
    match format {
        Format::Json => serde_json::to_string_pretty(r).expect("report serialises"),
        Format::Csv => {
            let mut out =
                String::from("suite,dataset,solution,judge,metric,n,unscored,mean,std,ci95\n");
            for c in &r.cells {
                let unscored: i64 = c.unscored.values().sum();
                let f = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{},{}",
                    csv_field(&c.suite),
                    csv_field(&c.dataset),
                    csv_field(&c.solution),
                    csv_field(&c.judge),
                    csv_field(&c.metric),
                    c.n,
                    unscored,
                    f(c.mean),
                    f(c.std),
                    f(c.ci95)
                );
            }
            // The GEM-Bench tables follow the cells after a blank line.
            if let Some(g) = &r.gem {
                out.push('\n');
                out.push_str(&crate::gem_report::csv(g));
            }
            out
        }
        Format::Markdown => markdown(r),
        Format::Html => crate::report_html::html(r),
    }
}

fn markdown(r: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Sweep {} (`{}`)\n", r.sweep, r.sweep_id);
    if r.stopped_by_budget {
        let _ = writeln!(
            out,
            "**Stopped by the budget** of {} USD: jobs not run are counted as skipped.\n",
            num(r.budget_usd)
        );
    }
    let _ = writeln!(
        out,
        "## Jobs\n\n| kind | planned | completed | failed | skipped |\n|---|---:|---:|---:|---:|"
    );
    for (k, c) in &r.jobs {
        let _ = writeln!(
            out,
            "| {k} | {} | {} | {} | {} |",
            c.planned, c.completed, c.failed, c.skipped
        );
    }
    let _ = writeln!(out, "\n## Scores\n\n| suite | dataset | solution | judge | metric | n | unscored | mean | std | 95% CI |\n|---|---|---|---|---|---:|---:|---:|---:|---:|");
    for c in &r.cells {
        let unscored: i64 = c.unscored.values().sum();
        let ci = c.ci95.map_or("-".to_string(), |v| format!("±{v:.2}"));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.suite,
            c.dataset,
            c.solution,
            c.judge,
            c.metric,
            c.n,
            unscored,
            num(c.mean),
            num(c.std),
            ci
        );
    }
    if let Some(g) = &r.gem {
        out.push_str(&crate::gem_report::markdown(g));
    }
    let _ = writeln!(out, "\n## Usage and cost\n\n| model | role | requests | cached | input tokens | output tokens | cached tokens | estimated | USD |\n|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for u in &r.usage {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.4} |",
            u.model,
            u.role.as_str(),
            u.requests,
            u.cached_requests,
            u.input_tokens,
            u.output_tokens,
            u.cached_tokens,
            u.estimated_requests,
            u.cost_usd
        );
    }
    let _ = writeln!(
        out,
        "\nTotal spend: {:.4} USD (estimate before the run: {:.4} USD).",
        r.cost_usd, r.estimated_cost_usd
    );
    if !r.dead_letters.is_empty() {
        let _ = writeln!(out, "\n## Dead letters\n\n| job | kind | code | attempts | reason |\n|---|---|---|---:|---|");
        for f in &r.dead_letters {
            let kind = f.stage.as_deref().unwrap_or("unknown");
            let _ = writeln!(
                out,
                "| {} | {kind} | {} | {} | {} |",
                f.id,
                f.code,
                f.attempts,
                f.reason.replace('|', "/")
            );
        }
    }
    out
}
