//! The report as one self-contained HTML page: inline CSS and SVG, no
//! script and nothing fetched, so it opens offline and can be attached to
//! an email. The suites' sections (tables, then plots) follow the jobs.

use super::cell::display;
use super::num;
use super::svg;
use adfarm_proto::report::{ColumnKind, Report, Section, Table};
use std::fmt::Write;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:3px 8px}\
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}\
svg{border:1px solid #ddd;margin:1em 0;background:#fff}figure{margin:0}\
figcaption{color:#555;font-size:90%}";

/// Escapes text for HTML content and attributes.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An HTML table; cells of the columns `right` marks are right-aligned.
fn table(out: &mut String, id: &str, head: &[String], rows: &[Vec<String>], right: &[bool]) {
    let _ = write!(out, "<table id=\"{}\"><thead><tr>", esc(id));
    for h in head {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr></thead><tbody>");
    for r in rows {
        out.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let class = if right.get(i).copied().unwrap_or(false) {
                " class=\"n\""
            } else {
                ""
            };
            let _ = write!(out, "<td{class}>{}</td>", esc(c));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>\n");
}

/// One of the farm's tables: the first `left` columns are text.
fn farm_table(out: &mut String, id: &str, head: &[&str], rows: &[Vec<String>], left: usize) {
    let head: Vec<String> = head.iter().map(|s| s.to_string()).collect();
    let right: Vec<bool> = (0..head.len()).map(|i| i >= left).collect();
    table(out, id, &head, rows, &right);
}

/// The whole report as an HTML page.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    let title = format!("Sweep {} ({})", r.sweep, r.sweep_id);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    if r.stopped_by_budget {
        let _ = writeln!(
            out,
            "<p><strong>Stopped by the budget</strong> of {} USD.</p>",
            num(r.budget_usd)
        );
    }
    out.push_str("<h2>Jobs</h2>\n");
    let rows: Vec<Vec<String>> = r
        .jobs
        .iter()
        .map(|(k, c)| {
            vec![
                k.clone(),
                c.planned.to_string(),
                c.completed.to_string(),
                c.failed.to_string(),
                c.skipped.to_string(),
            ]
        })
        .collect();
    farm_table(
        &mut out,
        "jobs",
        &["kind", "planned", "completed", "failed", "skipped"],
        &rows,
        1,
    );
    for s in &r.sections {
        section(&mut out, s);
    }
    out.push_str("<h2>Scores</h2>\n");
    let rows: Vec<Vec<String>> = r
        .cells
        .iter()
        .map(|c| {
            vec![
                c.suite.clone(),
                c.dataset.clone(),
                c.solution.clone(),
                c.judge.clone(),
                c.metric.clone(),
                c.n.to_string(),
                c.unscored.values().sum::<i64>().to_string(),
                num(c.mean),
                num(c.std),
                c.ci95.map_or("-".into(), |v| format!("±{v:.2}")),
            ]
        })
        .collect();
    farm_table(
        &mut out,
        "scores",
        &[
            "suite", "dataset", "solution", "judge", "metric", "n", "unscored", "mean", "std",
            "95% CI",
        ],
        &rows,
        5,
    );
    out.push_str("<h2>Usage and cost</h2>\n");
    let rows: Vec<Vec<String>> = r
        .usage
        .iter()
        .map(|u| {
            vec![
                u.model.clone(),
                u.role.as_str().to_string(),
                u.requests.to_string(),
                u.cached_requests.to_string(),
                u.input_tokens.to_string(),
                u.output_tokens.to_string(),
                format!("{:.4}", u.cost_usd),
            ]
        })
        .collect();
    farm_table(
        &mut out,
        "usage",
        &[
            "model",
            "role",
            "requests",
            "cached",
            "input tokens",
            "output tokens",
            "USD",
        ],
        &rows,
        2,
    );
    let _ = writeln!(
        out,
        "<p>Total spend: {:.4} USD (estimate before the run: {:.4} USD).</p>",
        r.cost_usd, r.estimated_cost_usd
    );
    if !r.dead_letters.is_empty() {
        out.push_str("<h2>Dead letters</h2>\n");
        let rows: Vec<Vec<String>> = r
            .dead_letters
            .iter()
            .map(|f| {
                vec![
                    f.id.0.clone(),
                    f.stage.clone().unwrap_or_else(|| "unknown".into()),
                    f.code.clone(),
                    f.attempts.to_string(),
                    f.reason.clone(),
                ]
            })
            .collect();
        farm_table(
            &mut out,
            "dead-letters",
            &["job", "kind", "code", "attempts", "reason"],
            &rows,
            5,
        );
    }
    out.push_str("</body></html>\n");
    out
}

/// A suite section: heading, introduction, tables, notes, then plots.
fn section(out: &mut String, s: &Section) {
    let _ = writeln!(out, "<h2>{}</h2>", esc(&s.title));
    if let Some(intro) = &s.intro {
        let _ = writeln!(out, "<p>{}</p>", esc(intro));
    }
    for t in &s.tables {
        suite_table(out, &s.suite, t);
    }
    for note in &s.notes {
        let _ = writeln!(out, "<p>{}</p>", esc(note));
    }
    for p in &s.plots {
        svg::plot(out, &format!("{}-{}", s.suite, p.id), p);
    }
}

/// A suite table (id `<suite>-<table id>`) under its `h3` title; numbers
/// are right-aligned.
fn suite_table(out: &mut String, suite: &str, t: &Table) {
    if let Some(title) = &t.title {
        let _ = writeln!(out, "<h3>{}</h3>", esc(title));
    }
    let head: Vec<String> = t.columns.iter().map(|c| c.header.clone()).collect();
    let right: Vec<bool> = t
        .columns
        .iter()
        .map(|c| c.kind != ColumnKind::Text)
        .collect();
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|row| {
            t.columns
                .iter()
                .enumerate()
                .map(|(i, c)| display(c.kind, row.get(i).and_then(Option::as_ref)))
                .collect()
        })
        .collect();
    table(out, &format!("{suite}-{}", t.id), &head, &rows, &right);
    for note in &t.notes {
        let _ = writeln!(out, "<p>{}</p>", esc(note));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::report;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }

    #[test]
    fn sections_draw_their_tables_notes_and_plots_before_the_scores() {
        let html = render(&report());
        for want in [
            "<h2>Demo: tiers</h2>\n<p>Pass@1 per tier.</p>\n<table id=\"demo-pivot\">",
            "<th>s1</th><th>s2</th>",
            "<td>agent&lt;x&gt;</td><td class=\"n\">75.00</td><td class=\"n\">-</td>",
            "<p>Overall per scorer.</p>\n<h3>Scorer s1</h3>\n<table id=\"demo-s1\">",
            "<td class=\"n\">60.00 ±0.50</td><td class=\"n\">45.7%</td>",
            "<table id=\"demo-pairs\">",
            "<p>α over all scorers: -.</p>\n<figure><svg id=\"demo-scatter\"",
            "<svg id=\"demo-bars\"",
            "<svg id=\"demo-heat\"",
            "<figcaption>Quality vs cost.</figcaption>",
        ] {
            assert!(html.contains(want), "{want:?} missing in\n{html}");
        }
        let section = html.find("<h2>Demo: tiers</h2>").expect("the section");
        assert!(html.find("<h2>Jobs</h2>").expect("jobs") < section);
        assert!(section < html.find("<h2>Scores</h2>").expect("scores"));
        assert!(!html.contains("<script"), "no script in the page");
        assert!(!html.contains("agent<x>"), "names are escaped");
    }
}
