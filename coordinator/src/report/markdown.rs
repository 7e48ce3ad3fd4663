//! The report as Markdown: the farm's tables (jobs, scores, usage and cost,
//! dead letters) with the suites' sections after the scores. Plots are
//! left to the HTML page; their numbers are in the tables.

use super::cell::display;
use super::num;
use adfarm_proto::report::{ColumnKind, Report, Section, Table};
use std::fmt::Write;

/// The whole report as Markdown.
pub fn render(r: &Report) -> String {
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
    for s in &r.sections {
        section(&mut out, s);
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
    if !r.billed.is_empty() {
        let calls: i64 = r.billed.iter().map(|b| b.requests).sum();
        let since = match r.billed_since_unix {
            Some(t) => format!(
                " since the store was last lost (the sweep was registered again at Unix time {t}; \
                 requests sent before were erased with the store)"
            ),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "Billed by the providers{since}: {calls} calls, {:.4} USD (every call that reached a provider; \
             the table counts each call once).",
            r.billed_usd()
        );
    }
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

/// A suite section: `##` heading, introduction, tables, notes.
fn section(out: &mut String, s: &Section) {
    let _ = writeln!(out, "\n## {}", s.title);
    if let Some(intro) = &s.intro {
        let _ = writeln!(out, "\n{intro}");
    }
    for t in &s.tables {
        table(out, t);
    }
    for note in &s.notes {
        let _ = writeln!(out, "\n{note}");
    }
}

/// A table under its `###` title, numbers right-aligned, then its notes.
fn table(out: &mut String, t: &Table) {
    if let Some(title) = &t.title {
        let _ = writeln!(out, "\n### {title}");
    }
    out.push_str("\n|");
    for c in &t.columns {
        let _ = write!(out, " {} |", c.header);
    }
    out.push_str("\n|");
    for c in &t.columns {
        out.push_str(if c.kind == ColumnKind::Text {
            "---|"
        } else {
            "---:|"
        });
    }
    out.push('\n');
    for row in &t.rows {
        out.push('|');
        for (i, c) in t.columns.iter().enumerate() {
            let v = row.get(i).and_then(Option::as_ref);
            let _ = write!(out, " {} |", display(c.kind, v));
        }
        out.push('\n');
    }
    for note in &t.notes {
        let _ = writeln!(out, "\n{note}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::report;

    #[test]
    fn sections_follow_the_scores_with_titles_tables_and_notes() {
        let md = render(&report());
        let want = "\n## Demo: tiers\n\nPass@1 per tier.\n\n\
            | dataset | solution | s1 | s2 |\n|---|---|---:|---:|\n\
            | L1 | agent<x> | 75.00 | - |\n| L1 | b,c | 20.50 | 1.00 |\n\n\
            Overall per scorer.\n\n\
            ### Scorer s1\n\n\
            | dataset | solution | pass@1 | coverage | USD/run | runs | Overall |\n\
            |---|---|---:|---:|---:|---:|---:|\n\
            | L1 | agent<x> | 60.00 ±0.50 | 45.7% | 0.0001 | 10 | 75.00 |\n\n\
            | scorer A | scorer B | κ |\n|---|---|---:|\n| s1 | s2 | 0.50 |\n\n\
            α over all scorers: -.\n\n## Usage and cost\n";
        assert!(md.contains(want), "{md}");
        let scores = md.find("## Scores").expect("scores");
        assert!(scores < md.find("## Demo: tiers").expect("the section"));
        assert!(!md.contains("Quality vs cost"), "plots are for HTML");
        assert!(md.contains("| job-1 | solve | http-4xx | 3 | bad / request |"));
    }

    #[test]
    fn a_bill_after_a_store_loss_says_which_interval_it_covers() {
        let mut r = report();
        r.billed = vec![adfarm_proto::report::BilledRow {
            model: "m".into(),
            role: adfarm_proto::Role::Generation,
            requests: 7,
            input_tokens: 70,
            output_tokens: 7,
            cost_usd: 0.25,
        }];
        let whole = render(&r);
        assert!(
            whole.contains("Billed by the providers: 7 calls, 0.2500 USD"),
            "{whole}"
        );
        r.billed_since_unix = Some(1_700_000_000);
        let md = render(&r);
        assert!(
            md.contains(
                "Billed by the providers since the store was last lost (the sweep was registered \
                 again at Unix time 1700000000; requests sent before were erased with the store): \
                 7 calls, 0.2500 USD"
            ),
            "{md}"
        );
    }

    #[test]
    fn a_short_row_shows_its_missing_cells() {
        let mut r = report();
        r.sections[0].tables[0].rows[0].truncate(3);
        let md = render(&r);
        assert!(md.contains("| L1 | agent<x> | 75.00 | - |\n"), "{md}");
    }
}
