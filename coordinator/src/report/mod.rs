//! A sweep's [`Report`]: built from the store (tally, dead letters and
//! every stored result, each read in one pass) and from the sweep's suites,
//! which add their own sections; written as JSON, CSV, Markdown or one
//! self-contained HTML page.
//!
//! - this file: [`build`], [`render`] and the [`Format`]s;
//! - `markdown`, `csv`, `html`: one renderer per format, each drawing the
//!   farm's own tables and any suite section;
//! - `svg`: the HTML page's plots; `offline`: what a page would fetch
//!   ([`external_references`], none for the HTML report);
//! - `cell`: how a typed table cell reads as text;
//! - `fixture` (tests only): a report with a made-up suite's section.
//!
//! Design decision: nothing here names a suite. A suite turns its cells and
//! results into sections (tables and plots as data) through
//! `Suite::report`; the renderers draw any section the same way.

mod cell;
mod csv;
#[cfg(test)]
mod fixture;
mod html;
mod markdown;
mod offline;
mod svg;

pub(crate) use html::esc;
pub use offline::external_references;

use adfarm_backbone::{Store, StoreError, SweepRecord};
use adfarm_proto::report::{BilledRow, CellRow, JobCounts, Report, Section, UsageRow};
use adfarm_proto::tally::{Tally, BUDGET_CODE};
use adfarm_proto::{JobResult, Role, FORMAT_VERSION};
use adfarm_suites::{DataError, ReportInput, Suite, SuiteContext};
use std::collections::BTreeMap;

/// Output formats of `adfarm report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Markdown tables.
    Markdown,
    /// The cells, then every suite table value in long form.
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

/// Why a report could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The sweep names a suite this binary does not serve.
    #[error("suite {0:?} is not served by this binary")]
    UnknownSuite(String),
    /// The review section could not be built.
    #[error("review section: {0}")]
    Review(String),
    /// A suite could not build its part (its sections, its review tasks).
    #[error("suite {suite}: {source}")]
    Suite {
        /// Suite.
        suite: String,
        /// What it reported.
        source: DataError,
    },
}

impl ReportError {
    /// Bounded error code, usable as a metric label.
    pub fn code(&self) -> &'static str {
        match self {
            ReportError::Store(e) => e.code(),
            ReportError::UnknownSuite(_) => "report-unknown-suite",
            ReportError::Suite { .. } => "report-suite",
            ReportError::Review(_) => "report-review",
        }
    }
}

/// Builds the report of `rec`: the farm's counts, cells, usage, cost and
/// dead letters from the store, then each suite's sections (in sweep
/// order) from its cells and its results, all read in one pass.
///
/// # Errors
/// When the store is unavailable, or a suite of the sweep is unknown or
/// fails to build its sections.
pub async fn build(
    store: &dyn Store,
    rec: &SweepRecord,
    ctx: &SuiteContext,
) -> Result<Report, ReportError> {
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
    let cells = cells_of(&tally);
    let mut rows: BTreeMap<(String, Role), UsageRow> = BTreeMap::new();
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
    let billed: Vec<BilledRow> = tally
        .billed
        .iter()
        .map(|(k, u)| BilledRow {
            model: k.model.clone(),
            role: k.role,
            requests: u.requests,
            input_tokens: u.input,
            output_tokens: u.output,
            cost_usd: rec
                .spec
                .provider_for_model(&k.model)
                .map_or(0.0, |p| p.cost_usd(u.input as u64, u.output as u64)),
        })
        .collect();
    let mut cost_by_role = BTreeMap::new();
    for r in &usage {
        *cost_by_role.entry(r.role).or_insert(0.0) += r.cost_usd;
    }
    let results = by_suite(store.results(&rec.id).await?);
    let mut sections: Vec<Section> = ask_suites(rec, ctx, &cells, &results, |suite, input| {
        suite.report(input)
    })?
    .into_iter()
    .flatten()
    .collect();
    let reviews = crate::review::reviews(store, &rec.id)
        .await
        .map_err(|e| ReportError::Review(e.to_string()))?;
    if !reviews.is_empty() {
        let review = |e: crate::review::ReviewError| ReportError::Review(e.to_string());
        let court = crate::review::Court::of(rec, ctx, &cells, &results).map_err(review)?;
        let verdicts = crate::review::pair_verdicts(store, &rec.id)
            .await
            .map_err(review)?;
        sections.extend(crate::review::sections(&court, &reviews, &verdicts));
    }
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
        billed,
        // The store's billed counters start with the registration they
        // belong to: after a loss, say so rather than under-report.
        billed_since_unix: tally.store_lost.then_some(rec.created_unix),
        dead_letters: failures
            .into_iter()
            .filter(|f| f.code != BUDGET_CODE)
            .collect(),
        sections,
    })
}

/// The leaderboard cells of a sweep's tally, one per (suite, dataset,
/// solution, judge, metric).
pub fn cells_of(tally: &Tally) -> Vec<CellRow> {
    tally
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
        .collect()
}

/// A sweep's results grouped by suite, each group in job-id order.
pub(crate) fn by_suite(results: Vec<JobResult>) -> BTreeMap<String, Vec<JobResult>> {
    let mut out: BTreeMap<String, Vec<JobResult>> = BTreeMap::new();
    for r in results {
        out.entry(r.cell.suite.clone()).or_default().push(r);
    }
    out
}

/// Asks every suite of `rec`, in sweep order, for `ask` over its own cells
/// and results (its sections, its review tasks).
///
/// # Errors
/// A suite this binary does not serve, or the first suite that fails.
pub(crate) fn ask_suites<T>(
    rec: &SweepRecord,
    ctx: &SuiteContext,
    cells: &[CellRow],
    by_suite: &BTreeMap<String, Vec<JobResult>>,
    mut ask: impl FnMut(&dyn Suite, &ReportInput<'_>) -> Result<T, DataError>,
) -> Result<Vec<T>, ReportError> {
    // Every suite first: expanding the jobs needs them all.
    let suites = rec
        .spec
        .suites
        .iter()
        .map(|entry| {
            adfarm_suites::suite(&entry.name, ctx)
                .map(|suite| (entry, suite))
                .ok_or_else(|| ReportError::UnknownSuite(entry.name.clone()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::with_capacity(suites.len());
    for (entry, suite) in suites {
        let cells: Vec<CellRow> = cells
            .iter()
            .filter(|c| c.suite == entry.name)
            .cloned()
            .collect();
        let input = ReportInput {
            spec: &rec.spec,
            suite: entry,
            cells: &cells,
            results: by_suite.get(&entry.name).map_or(&[], Vec::as_slice),
        };
        out.push(
            ask(suite.as_ref(), &input).map_err(|source| ReportError::Suite {
                suite: entry.name.clone(),
                source,
            })?,
        );
    }
    Ok(out)
}

/// A number with two decimals, or `-` when absent (the farm's tables).
pub(crate) fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"))
}

/// Renders `r` in `format`.
pub fn render(r: &Report, format: Format) -> String {
    match format {
        Format::Json => serde_json::to_string_pretty(r).expect("report serialises"),
        Format::Csv => csv::render(r),
        Format::Markdown => markdown::render(r),
        Format::Html => html::render(r),
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::report;
    use super::*;
    use crate::demo_sweep::demo_sweep;
    use crate::plan::root_jobs;
    use crate::Coordinator;
    use adfarm_backbone::{EmbeddedStore, MemoryQueue};
    use adfarm_proto::{Cell, Score, SweepSpec, Verdict, SOLVE};
    use std::sync::Arc;

    #[test]
    fn json_is_the_report_and_omits_sections_when_there_are_none() {
        let r = report();
        let json = render(&r, Format::Json);
        let back: Report = serde_json::from_str(&json).expect("JSON round-trips");
        assert_eq!(back, r);
        let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        assert_eq!(
            v["sections"][0]["tables"][1]["columns"][3]["kind"]["type"],
            "percent"
        );
        assert_eq!(v["jobs"]["solve"]["planned"], 4);
        let plain = Report {
            sections: vec![],
            ..r
        };
        let json = render(&plain, Format::Json);
        assert!(!json.contains("\"sections\""), "{json}");
        let back: Report = serde_json::from_str(&json).expect("parses without sections");
        assert!(back.sections.is_empty());
    }

    async fn registered() -> (
        Arc<EmbeddedStore>,
        SweepRecord,
        SuiteContext,
        tempfile::TempDir,
    ) {
        let dir = tempfile::tempdir().expect("temporary directory");
        let store = Arc::new(EmbeddedStore::open(&dir.path().join("s.redb")).expect("store"));
        let ctx = SuiteContext {
            assets_dir: dir.path().to_path_buf(),
            cache_dir: None,
        };
        let sweep = demo_sweep("name = \"report-demo\"\njudges = [\"fake\"]", 3, "");
        let spec: SweepSpec = crate::sweep_file::parse_inline(&sweep).expect("a valid sweep");
        let coordinator =
            Coordinator::new(store.clone(), Arc::new(MemoryQueue::new(4)), ctx.clone());
        let (rec, _) = coordinator.register(&spec).await.expect("registered");
        (store, rec, ctx, dir)
    }

    #[tokio::test]
    async fn build_reads_the_results_and_asks_every_suite_for_sections() {
        let (store, rec, ctx, _dir) = registered().await;
        let env = root_jobs(&rec.spec, &rec.pipelines, &ctx, &Default::default())
            .next()
            .expect("a job")
            .expect("synthetic items");
        let result = JobResult {
            id: env.id.clone(),
            stage: SOLVE.into(),
            item: env.job.item.id.clone(),
            cell: Cell {
                suite: "synthetic".into(),
                dataset: "default".into(),
                solution: "answer".into(),
                seed: 0,
            },
            judge: None,
            output: None,
            scores: vec![Score {
                metric: "quality".into(),
                verdict: Verdict::Score(40.0),
            }],
            usage: vec![],
        };
        store.record(&rec.id, &result).await.expect("recorded");
        let r = build(store.as_ref(), &rec, &ctx).await.expect("a report");
        assert_eq!(r.jobs["solve"].planned, 3);
        assert_eq!(r.jobs["solve"].completed, 1);
        assert_eq!(r.jobs["judge"].planned, 3);
        assert_eq!(r.cells.len(), 1);
        assert_eq!(r.cells[0].mean, Some(40.0));
        assert!(r.sections.is_empty(), "the synthetic suite adds no section");

        let mut unknown = rec.clone();
        unknown.spec.suites[0].name = "no-such-suite".into();
        let err = build(store.as_ref(), &unknown, &ctx)
            .await
            .expect_err("an unknown suite cannot report");
        assert_eq!(err.code(), "report-unknown-suite");
        assert!(err.to_string().contains("no-such-suite"), "{err}");
    }
}
