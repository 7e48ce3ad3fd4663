//! The report as one self-contained HTML page: inline CSS and SVG, no
//! script and nothing fetched, so it opens offline and can be attached to
//! an email. With GEM-Bench tables it adds three plots: quality vs cost per
//! solution, per-metric bars and a judge agreement (Cohen's κ) heatmap.

use crate::gem_ablation;
use crate::gem_report::stat_cell;
use crate::gem_report::{judge_metrics, keys, EFFECTIVENESS};
use crate::report::num;
use adfarm_proto::report::{GemTables, Report};
use std::collections::BTreeMap;
use std::fmt::Write;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:3px 8px}\
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}\
svg{border:1px solid #ddd;margin:1em 0;background:#fff}figure{margin:0}\
figcaption{color:#555;font-size:90%}";

/// Solution colours, cycled.
const COLOURS: [&str; 8] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];

/// Escapes text for HTML content and attributes.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An HTML table; cells after the first `left` columns are right-aligned.
fn table(out: &mut String, id: &str, head: &[String], rows: &[Vec<String>], left: usize) {
    let _ = write!(out, "<table id=\"{id}\"><thead><tr>");
    for h in head {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr></thead><tbody>");
    for r in rows {
        out.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let class = if i >= left { " class=\"n\"" } else { "" };
            let _ = write!(out, "<td{class}>{}</td>", esc(c));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>\n");
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The whole report as an HTML page.
pub fn html(r: &Report) -> String {
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
                k.as_str().to_string(),
                c.planned.to_string(),
                c.completed.to_string(),
                c.failed.to_string(),
                c.skipped.to_string(),
            ]
        })
        .collect();
    table(
        &mut out,
        "jobs",
        &strings(&["kind", "planned", "completed", "failed", "skipped"]),
        &rows,
        1,
    );
    if let Some(g) = &r.gem {
        gem(&mut out, g);
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
    table(
        &mut out,
        "scores",
        &strings(&[
            "suite", "dataset", "solution", "judge", "metric", "n", "unscored", "mean", "std",
            "95% CI",
        ]),
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
    table(
        &mut out,
        "usage",
        &strings(&[
            "model",
            "role",
            "requests",
            "cached",
            "input tokens",
            "output tokens",
            "USD",
        ]),
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
        table(
            &mut out,
            "dead-letters",
            &strings(&["job", "kind", "code", "attempts", "reason"]),
            &rows,
            5,
        );
    }
    out.push_str("</body></html>\n");
    out
}

pub(crate) fn gem(out: &mut String, t: &GemTables) {
    out.push_str("<h2>GEM-Bench: effectiveness (Table 3)</h2>\n");
    let mut head = strings(&["dataset", "solution"]);
    head.extend(EFFECTIVENESS.iter().map(|(_, h)| h.to_string()));
    let rows: Vec<Vec<String>> = t
        .effectiveness
        .iter()
        .map(|r| {
            let mut row = vec![r.dataset.clone(), r.solution.clone()];
            row.extend(
                EFFECTIVENESS
                    .iter()
                    .map(|(m, _)| stat_cell(r.metrics.get(*m))),
            );
            row
        })
        .collect();
    table(out, "gem-effectiveness", &head, &rows, 2);

    if let Some(a) = &t.embedding_ablation {
        let _ = writeln!(
            out,
            "<h2>GEM-Bench: embedding-model ablation (Table 5)</h2>\n<p>{}</p>",
            esc(gem_ablation::CAPTION)
        );
        let mut head = strings(&["dataset", "solution"]);
        head.extend(gem_ablation::headers(a));
        let rows: Vec<Vec<String>> = a
            .rows
            .iter()
            .map(|r| {
                let mut row = vec![r.dataset.clone(), r.solution.clone()];
                row.extend(gem_ablation::cells(a, r));
                row
            })
            .collect();
        table(out, "gem-embedding-ablation", &head, &rows, 2);
    }

    out.push_str("<h2>GEM-Bench: Overall per judge (Table 4)</h2>\n<p>Overall = mean of the six judge metrics (accuracy, naturalness, personality, trust, notice, click).</p>\n");
    let mut head = strings(&["dataset", "solution"]);
    head.extend(t.judges.iter().cloned());
    let rows: Vec<Vec<String>> = keys(t)
        .into_iter()
        .map(|(d, s)| {
            let mut row = vec![d.clone(), s.clone()];
            row.extend(t.judges.iter().map(|j| {
                num(t
                    .judge_scores
                    .iter()
                    .find(|x| x.dataset == d && x.solution == s && &x.judge == j)
                    .and_then(|x| x.overall))
            }));
            row
        })
        .collect();
    table(out, "gem-overall", &head, &rows, 2);

    let six = judge_metrics();
    for (i, j) in t.judges.iter().enumerate() {
        let _ = writeln!(out, "<h3>Judge {}: details (Tables 7–9)</h3>", esc(j));
        let mut head = strings(&["dataset", "solution"]);
        head.extend(six.iter().map(|m| m.to_string()));
        head.push("Overall".into());
        let rows: Vec<Vec<String>> = t
            .judge_scores
            .iter()
            .filter(|r| &r.judge == j)
            .map(|r| {
                let mut row = vec![r.dataset.clone(), r.solution.clone()];
                row.extend(six.iter().map(|m| stat_cell(r.metrics.get(*m))));
                row.push(num(r.overall));
                row
            })
            .collect();
        table(out, &format!("gem-judge-{i}"), &head, &rows, 2);
    }

    let _ = writeln!(
        out,
        "<h2>GEM-Bench: cost (Table 6)</h2>\n<p>Tokens per response of every call before the response is shown; Overall = {}·ITTFT + OTTFT; latency: seconds of those calls (measured, so it varies between runs).</p>",
        t.input_ratio
    );
    let rows: Vec<Vec<String>> = t
        .cost
        .iter()
        .map(|c| {
            vec![
                c.dataset.clone(),
                c.solution.clone(),
                c.responses.to_string(),
                num(c.ittft),
                num(c.ottft),
                num(c.overall),
                c.usd_per_response.map_or("-".into(), |u| format!("{u:.6}")),
                num(c.latency_s),
            ]
        })
        .collect();
    table(
        out,
        "gem-cost",
        &strings(&[
            "dataset",
            "solution",
            "responses",
            "ITTFT",
            "OTTFT",
            "Overall",
            "USD/response",
            "latency (s)",
        ]),
        &rows,
        2,
    );

    out.push_str("<h2>GEM-Bench: judge agreement</h2>\n");
    let several = t.judges.len() >= 2;
    if several {
        let rows: Vec<Vec<String>> = t
            .agreement
            .iter()
            .map(|a| {
                vec![
                    a.judge_a.clone(),
                    a.judge_b.clone(),
                    a.paired.to_string(),
                    num(a.kappa),
                    num(a.alpha),
                    num(a.tau),
                ]
            })
            .collect();
        table(
            out,
            "gem-agreement",
            &strings(&[
                "judge A",
                "judge B",
                "paired verdicts",
                "Cohen's κ",
                "Krippendorff's α (ordinal)",
                "Kendall's τ",
            ]),
            &rows,
            2,
        );
        let _ = writeln!(
            out,
            "<p>Krippendorff's α over all judges: {}.</p>",
            num(t.alpha_all)
        );
    } else {
        let _ = writeln!(out, "<p>{}</p>", esc(&crate::gem_report::one_judge_note(t)));
    }
    out.push_str("<h2>GEM-Bench: plots</h2>\n");
    quality_vs_cost(out, t);
    metric_bars(out, t);
    if several {
        agreement_heatmap(out, t);
    }
}

/// Mean of the defined values.
fn mean(v: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let xs: Vec<f64> = v.into_iter().flatten().collect();
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// Solutions in table order.
fn solutions(t: &GemTables) -> Vec<String> {
    let mut s: Vec<String> = keys(t).into_iter().map(|(_, s)| s).collect();
    s.sort();
    s.dedup();
    s
}

fn quality_vs_cost(out: &mut String, t: &GemTables) {
    // Quality: Overall averaged over judges and datasets; cost: tokens.
    let points: Vec<(String, f64, f64)> = solutions(t)
        .into_iter()
        .filter_map(|s| {
            let q = mean(
                t.judge_scores
                    .iter()
                    .filter(|r| r.solution == s)
                    .map(|r| r.overall),
            )?;
            let c = mean(t.cost.iter().filter(|r| r.solution == s).map(|r| r.overall))?;
            Some((s, c, q))
        })
        .collect();
    let (w, h, pad) = (560.0, 340.0, 50.0);
    let xmax = points.iter().map(|p| p.1).fold(1.0f64, f64::max) * 1.1;
    let _ = write!(
        out,
        "<figure><svg id=\"plot-quality-cost\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"quality vs cost\">\
         <line x1=\"{pad}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/><line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{}\" stroke=\"#333\"/>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">cost Overall (tokens per response)</text>\
         <text x=\"14\" y=\"{}\" font-size=\"12\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">judge Overall (0–100)</text>\
         <text x=\"{pad}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">0</text><text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{xmax:.0}</text>\
         <text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">0</text><text x=\"{}\" y=\"{pad}\" font-size=\"10\" text-anchor=\"end\">100</text>",
        h - pad,
        w - pad,
        h - pad,
        h - pad,
        w / 2.0,
        h - 10.0,
        h / 2.0,
        h / 2.0,
        h - pad + 14.0,
        w - pad,
        h - pad + 14.0,
        pad - 4.0,
        h - pad,
        pad - 4.0,
    );
    for (i, (s, c, q)) in points.iter().enumerate() {
        let x = pad + c / xmax * (w - 2.0 * pad);
        let y = h - pad - q / 100.0 * (h - 2.0 * pad);
        let _ = write!(
            out,
            "<circle class=\"point\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"5\" fill=\"{}\"><title>{}: {q:.2} at {c:.0} tokens</title></circle><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{}</text>",
            COLOURS[i % COLOURS.len()],
            esc(s),
            x + 7.0,
            // Alternate label sides so coinciding points stay readable.
            if i % 2 == 0 { y - 4.0 } else { y + 14.0 },
            esc(s)
        );
    }
    if points.is_empty() {
        let _ = write!(out, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">no solution has both a judge Overall and a cost</text>", w / 2.0, h / 2.0);
    }
    out.push_str("</svg><figcaption>Quality (judge Overall, mean over judges and datasets) vs cost (0.5·ITTFT + OTTFT) per solution.</figcaption></figure>\n");
}

fn metric_bars(out: &mut String, t: &GemTables) {
    let sols = solutions(t);
    let mut metrics: Vec<&str> = judge_metrics();
    metrics.extend([
        "response-flow",
        "response-coherence",
        "ad-flow",
        "ad-coherence",
    ]);
    // metric → solution → mean over judges and datasets.
    let mut vals: BTreeMap<(&str, &str), f64> = BTreeMap::new();
    for m in &metrics {
        for s in &sols {
            let v = mean(
                t.judge_scores
                    .iter()
                    .filter(|r| &r.solution == s)
                    .map(|r| r.metrics.get(*m).and_then(|x| x.mean))
                    .chain(
                        t.effectiveness
                            .iter()
                            .filter(|r| &r.solution == s)
                            .map(|r| r.metrics.get(*m).and_then(|x| x.mean)),
                    ),
            );
            if let Some(v) = v {
                vals.insert((m, s.as_str()), v);
            }
        }
    }
    let group = (sols.len().max(1) as f64) * 10.0 + 14.0;
    let (pad, h) = (40.0, 300.0);
    let w = pad * 2.0 + group * metrics.len() as f64;
    let _ = write!(
        out,
        "<figure><svg id=\"plot-metric-bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{:.0}\" role=\"img\" aria-label=\"per-metric bars\">\
         <line x1=\"{pad}\" y1=\"{}\" x2=\"{:.0}\" y2=\"{}\" stroke=\"#333\"/><text x=\"{}\" y=\"{pad}\" font-size=\"10\" text-anchor=\"end\">100</text>",
        h + 70.0,
        h - pad,
        w - pad,
        h - pad,
        pad - 4.0
    );
    for (mi, m) in metrics.iter().enumerate() {
        let x0 = pad + mi as f64 * group + 7.0;
        for (si, s) in sols.iter().enumerate() {
            if let Some(v) = vals.get(&(*m, s.as_str())) {
                let bh = v.clamp(0.0, 100.0) / 100.0 * (h - 2.0 * pad);
                let _ = write!(
                    out,
                    "<rect class=\"bar\" x=\"{:.1}\" y=\"{:.1}\" width=\"9\" height=\"{bh:.1}\" fill=\"{}\"><title>{} {}: {v:.2}</title></rect>",
                    x0 + si as f64 * 10.0,
                    h - pad - bh,
                    COLOURS[si % COLOURS.len()],
                    esc(s),
                    esc(m)
                );
            }
        }
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" transform=\"rotate(45 {:.1} {:.1})\">{}</text>",
            x0,
            h - pad + 12.0,
            x0,
            h - pad + 12.0,
            esc(m)
        );
    }
    for (si, s) in sols.iter().enumerate() {
        let _ = write!(
            out,
            "<rect x=\"{:.0}\" y=\"{:.0}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.0}\" y=\"{:.0}\" font-size=\"11\">{}</text>",
            pad + si as f64 * 90.0,
            8.0,
            COLOURS[si % COLOURS.len()],
            pad + si as f64 * 90.0 + 13.0,
            17.0,
            esc(s)
        );
    }
    out.push_str("</svg><figcaption>Per-metric means per solution (judge metrics averaged over judges and datasets; embedding metrics over datasets), 0–100.</figcaption></figure>\n");
}

/// Colour of a κ in [-1, 1]: white at 0, blue towards 1, red towards -1.
fn heat(k: f64) -> String {
    let k = k.clamp(-1.0, 1.0);
    let (r, g, b) = if k >= 0.0 {
        (255.0 * (1.0 - k), 255.0 * (1.0 - 0.6 * k), 255.0)
    } else {
        (255.0, 255.0 * (1.0 + k), 255.0 * (1.0 + k))
    };
    format!("rgb({:.0},{:.0},{:.0})", r, g, b)
}

fn agreement_heatmap(out: &mut String, t: &GemTables) {
    let n = t.judges.len();
    let (cell, left, top) = (70.0, 150.0, 30.0);
    let w = left + cell * n as f64 + 10.0;
    let h = top + cell * n as f64 + 30.0;
    let _ = write!(
        out,
        "<figure><svg id=\"plot-agreement\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" role=\"img\" aria-label=\"judge agreement heatmap\">"
    );
    let kappa = |a: &str, b: &str| -> Option<f64> {
        if a == b {
            return Some(1.0);
        }
        t.agreement
            .iter()
            .find(|x| (x.judge_a == a && x.judge_b == b) || (x.judge_a == b && x.judge_b == a))
            .and_then(|x| x.kappa)
    };
    for (i, a) in t.judges.iter().enumerate() {
        let y = top + i as f64 * cell;
        let _ = write!(
            out,
            "<text x=\"{:.0}\" y=\"{:.0}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            y + cell / 2.0 + 4.0,
            esc(a)
        );
        let _ = write!(
            out,
            "<text x=\"{:.0}\" y=\"{:.0}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            left + i as f64 * cell + cell / 2.0,
            top - 8.0,
            esc(a)
        );
        for (j, b) in t.judges.iter().enumerate() {
            let x = left + j as f64 * cell;
            let k = kappa(a, b);
            let fill = k.map_or_else(|| "#eee".to_string(), heat);
            let _ = write!(
                out,
                "<rect class=\"heat\" x=\"{x:.0}\" y=\"{y:.0}\" width=\"{cell}\" height=\"{cell}\" fill=\"{fill}\" stroke=\"#fff\"><title>κ({}, {}) = {}</title></rect>\
                 <text x=\"{:.0}\" y=\"{:.0}\" font-size=\"12\" text-anchor=\"middle\">{}</text>",
                esc(a),
                esc(b),
                num(k),
                x + cell / 2.0,
                y + cell / 2.0 + 4.0,
                num(k)
            );
        }
    }
    if n == 0 {
        out.push_str("<text x=\"10\" y=\"20\" font-size=\"12\">no judges</text>");
    }
    out.push_str("</svg><figcaption>Cohen's κ between judges on the six metrics' verdicts (diagonal: 1).</figcaption></figure>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }

    #[test]
    fn heat_is_white_at_zero_and_blue_at_one() {
        assert_eq!(heat(0.0), "rgb(255,255,255)");
        assert_eq!(heat(1.0), "rgb(0,102,255)");
        assert_eq!(heat(-1.0), "rgb(255,0,0)");
    }
}
