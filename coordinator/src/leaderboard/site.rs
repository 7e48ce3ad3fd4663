//! A release as a static site: an index, a page per board and per entry,
//! a compare page with a page per pair of entries, `leaderboard.json`
//! with its schema, and the raw per-item results of the public boards.
//! Every page is plain HTML with inline CSS: no script, nothing fetched
//! but the site's own files, and every name, model output or parameter is
//! escaped text.

use super::assemble::{slug, Built, RawBoard};
use super::board::resample_seed;
use crate::report::esc;
use adfarm_proto::leaderboard::{release_schema, Board, Entry, Release, Row, Standing};
use adfarm_suites::stats::{mean, resample_means, share_above, summarise};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:80em}\
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:3px 8px;vertical-align:top}\
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}\
nav a{margin-right:1em}.stale{background:#fff3cd;padding:.5em;border:1px solid #e0c36c}\
.sig{font-weight:bold}.new{color:#06c;font-size:85%}.muted{color:#666;font-size:90%}\
pre{white-space:pre-wrap;margin:0;font-size:85%}";

/// Writes the site of `built` into `out` (created if missing); returns
/// the files written, relative to `out`.
///
/// # Errors
/// When a file cannot be written.
pub fn write(out: &Path, built: &Built) -> std::io::Result<Vec<PathBuf>> {
    let r = &built.release;
    let mut files: Vec<(PathBuf, String)> = vec![
        ("index.html".into(), index(r, &built.raw)),
        ("compare.html".into(), compare_index(r)),
        (
            "leaderboard.json".into(),
            serde_json::to_string_pretty(r).expect("a release serialises") + "\n",
        ),
        (
            "leaderboard.schema.json".into(),
            serde_json::to_string_pretty(&release_schema()).expect("a schema serialises") + "\n",
        ),
    ];
    for b in &r.boards {
        let raw = built.raw.iter().find(|x| x.board == b.id);
        files.push((format!("board-{}.html", b.id).into(), board_page(r, b, raw)));
    }
    for e in &r.entries {
        files.push((e.page.clone().into(), entry_page(r, e)));
    }
    for (a, b) in pairs(r) {
        files.push((pair_file(a, b).into(), pair_page(r, a, b)));
    }
    for raw in &built.raw {
        files.push((format!("results/{}.csv", raw.board).into(), raw_csv(raw)));
        let json = serde_json::to_string_pretty(&raw.values).expect("values serialise") + "\n";
        files.push((format!("results/{}.json", raw.board).into(), json));
    }
    std::fs::create_dir_all(out.join("results"))?;
    let mut written = Vec::with_capacity(files.len());
    for (path, text) in files {
        std::fs::write(out.join(&path), text)?;
        written.push(path);
    }
    Ok(written)
}

/// Every pair of entries that share a board, each once, in name order.
fn pairs(r: &Release) -> Vec<(&Entry, &Entry)> {
    let mut out = vec![];
    for (i, a) in r.entries.iter().enumerate() {
        for b in &r.entries[i + 1..] {
            if a.boards.iter().any(|x| b.boards.contains(x)) {
                out.push((a, b));
            }
        }
    }
    out
}

fn pair_file(a: &Entry, b: &Entry) -> String {
    format!("compare-{}--{}.html", slug(&a.name), slug(&b.name))
}

fn page(r: &Release, title: &str, body: &str) -> String {
    let mut nav = String::from("<nav><a href=\"index.html\">Index</a>");
    for b in &r.boards {
        let _ = write!(
            nav,
            "<a href=\"board-{}.html\">{}</a>",
            esc(&b.id),
            esc(&b.id)
        );
    }
    nav.push_str("<a href=\"compare.html\">Compare</a><a href=\"leaderboard.json\">leaderboard.json</a></nav>");
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} · {} {}</title>\
<style>{STYLE}</style></head><body>{nav}\n<h1>{}</h1>\n{body}\n<p class=\"muted\">{} {} ({}), {} split, built by adfarm {}.</p></body></html>\n",
        esc(title),
        esc(&r.name),
        esc(&r.version),
        esc(title),
        esc(&r.name),
        esc(&r.version),
        esc(&r.date),
        esc(&r.split),
        esc(&r.built_with),
    )
}

fn usd(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else {
        format!("{v:.4}")
    }
}

/// `mean ±ci (n)`.
fn estimate(s: &Standing) -> String {
    match (s.mean, s.ci95) {
        (Some(m), Some(c)) => format!("{m:.1} ±{c:.1} (n={})", s.n),
        (Some(m), None) => format!("{m:.1} (n={})", s.n),
        _ => format!("– (n={})", s.n),
    }
}

fn rank_text(s: &Standing) -> String {
    match (s.rank_best, s.rank_worst) {
        (Some(b), Some(w)) if b == w => format!("{b}"),
        (Some(b), Some(w)) => format!("{b}–{w}"),
        _ => "–".into(),
    }
}

fn change_text(s: &Standing) -> String {
    let Some(c) = &s.change else {
        return String::new();
    };
    let mark = if c.significant { "*" } else { "" };
    let class = if c.significant { " class=\"sig\"" } else { "" };
    let tasks = if c.tasks_changed {
        ", tasks changed"
    } else {
        ""
    };
    format!(
        "<br><span{class}>Δ {:+.1}{mark}</span> <span class=\"muted\">[{:+.1}, {:+.1}] on {} shared{tasks}</span>",
        c.delta, c.lower, c.upper, c.shared_items
    )
}

fn entry_link(r: &Release, name: &str) -> String {
    match r.entries.iter().find(|e| e.name == name) {
        Some(e) => format!("<a href=\"{}\">{}</a>", esc(&e.page), esc(name)),
        None => esc(name),
    }
}

fn index(r: &Release, raw: &[RawBoard]) -> String {
    let mut b = String::new();
    let _ = write!(
        b,
        "<p>Release {} of {}, published {}; the {} split.",
        esc(&r.version),
        esc(&r.name),
        esc(&r.date),
        esc(&r.split)
    );
    if let Some(p) = &r.previous {
        let _ = write!(
            b,
            " Changes are since {} {} ({}).",
            esc(&p.name),
            esc(&p.version),
            esc(&p.date)
        );
    }
    b.push_str("</p>\n");
    for board in &r.boards {
        let _ = write!(
            b,
            "<h2><a href=\"board-{}.html\">{}</a></h2><p class=\"muted\">{}</p>",
            esc(&board.id),
            esc(&board.id),
            esc(&board.version.label())
        );
        if let Some(why) = &board.stale {
            let _ = write!(b, "<p class=\"stale\">Stale: {}</p>", esc(why));
        }
        let first = board.metrics.first();
        let _ = write!(
            b,
            "<table id=\"summary-{}\"><thead><tr><th>Tier</th><th>Entry</th><th>Team</th><th>{}</th><th>Rank</th></tr></thead><tbody>",
            esc(&board.id),
            esc(first.map_or("", |m| m.title.as_str()))
        );
        for row in &board.rows {
            let s = row.cells.first();
            let _ = write!(
                b,
                "<tr><td class=\"n\">{}</td><td>{}{}</td><td>{}</td><td class=\"n\">{}{}</td><td class=\"n\">{}</td></tr>",
                row.tier,
                entry_link(r, &row.entry),
                if row.new { " <span class=\"new\">new</span>" } else { "" },
                esc(team_of(r, &row.entry)),
                s.map(estimate).map(|t| esc(&t)).unwrap_or_default(),
                s.map(change_text).unwrap_or_default(),
                s.map(rank_text).unwrap_or_default(),
            );
        }
        b.push_str("</tbody></table>\n");
    }
    b.push_str("<h2>Data</h2><ul><li><a href=\"leaderboard.json\">leaderboard.json</a>: every number on these pages, with its <a href=\"leaderboard.schema.json\">JSON Schema</a></li>");
    for x in raw {
        let _ = write!(
            b,
            "<li>{} per-item results: <a href=\"results/{}.csv\">CSV</a>, <a href=\"results/{}.json\">JSON</a></li>",
            esc(&x.board),
            esc(&x.board),
            esc(&x.board)
        );
    }
    b.push_str("</ul>");
    let _ = write!(
        b,
        "<h2>How ranks were made</h2><p>{}</p><p class=\"muted\">{} bootstrap resamples, seed {}.</p>",
        esc(&r.method.description),
        r.method.resamples,
        r.method.seed
    );
    page(r, &format!("{} {}", r.name, r.version), &b)
}

fn team_of<'a>(r: &'a Release, name: &str) -> &'a str {
    r.entries
        .iter()
        .find(|e| e.name == name)
        .map_or("", |e| e.team.as_str())
}

fn board_page(r: &Release, board: &Board, raw: Option<&RawBoard>) -> String {
    let v = &board.version;
    let mut b = String::new();
    if let Some(why) = &board.stale {
        let _ = write!(b, "<p class=\"stale\">Stale: {}</p>", esc(why));
    }
    let _ = write!(
        b,
        "<table id=\"version\"><tbody><tr><th>Suite</th><td>{}</td></tr><tr><th>Benchmark version</th><td>{}</td></tr>\
<tr><th>Task set</th><td>{} ({} items)</td></tr><tr><th>Scorer</th><td>{}</td></tr><tr><th>Judges</th><td>{}</td></tr><tr><th>Split</th><td>{}</td></tr></tbody></table>",
        esc(&v.suite),
        esc(&v.suite_version),
        esc(&v.data),
        v.items,
        esc(&v.scorer),
        esc(v.judges.as_deref().unwrap_or("none")),
        if v.hidden { "hidden: aggregates only" } else { "public" }
    );
    let others: Vec<&Board> = r
        .boards
        .iter()
        .filter(|o| o.id != board.id && o.version.suite == v.suite)
        .collect();
    if !others.is_empty() {
        b.push_str("<p>Other versions of this benchmark are ranked apart, never with this board: ");
        for o in others {
            let _ = write!(
                b,
                "<a href=\"board-{}.html\">{}</a> ({}) ",
                esc(&o.id),
                esc(&o.id),
                esc(&o.version.label())
            );
        }
        b.push_str("</p>");
    }
    let _ = write!(
        b,
        "<table id=\"board\"><thead><tr><th>Tier</th><th>Entry</th><th>Team</th>"
    );
    for m in &board.metrics {
        let _ = write!(
            b,
            "<th title=\"{}\">{}</th>",
            esc(&m.description),
            esc(&m.title)
        );
    }
    b.push_str("<th>Rank (95%)</th><th>Beats next</th><th>Seed spread</th><th>USD / run</th><th>USD / point</th></tr></thead><tbody>");
    for row in &board.rows {
        let first = row.cells.first();
        let _ = write!(
            b,
            "<tr><td class=\"n\">{}</td><td>{}{}</td><td>{}</td>",
            row.tier,
            entry_link(r, &row.entry),
            if row.new {
                " <span class=\"new\">new</span>"
            } else {
                ""
            },
            esc(team_of(r, &row.entry))
        );
        for s in &row.cells {
            let _ = write!(
                b,
                "<td class=\"n\">{}{}</td>",
                esc(&estimate(s)),
                change_text(s)
            );
        }
        let _ = write!(
            b,
            "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            first.map(rank_text).unwrap_or_default(),
            first
                .and_then(|s| s.beats_next)
                .map_or("–".into(), |p| format!("{:.0}%", 100.0 * p)),
            first.and_then(|s| s.seed_spread).map_or("–".into(), |x| format!("±{x:.1}")),
            usd(row.cost_per_run_usd),
            row.cost_per_point_usd.map_or("–".into(), usd),
        );
    }
    b.push_str("</tbody></table>");
    b.push_str("<p class=\"muted\">Each value: mean ±95% CI over items (n items); Δ: change since the previous release on the items both scored, * when its 95% interval excludes zero. Rank, beats next and seed spread are on the first metric.</p><ul>");
    for m in &board.metrics {
        let _ = write!(
            b,
            "<li><b>{}</b>: {}</li>",
            esc(&m.title),
            esc(&m.description)
        );
    }
    b.push_str("</ul>");
    let _ = write!(
        b,
        "<h2>How ranks were made</h2><p>{}</p>",
        esc(&r.method.description)
    );
    match raw {
        Some(x) => {
            let _ = write!(
                b,
                "<p>Per-item results: <a href=\"results/{}.csv\">CSV</a>, <a href=\"results/{}.json\">JSON</a>.</p>",
                esc(&x.board),
                esc(&x.board)
            );
        }
        None => b.push_str(
            "<p>The tasks of this board are a hidden split: only aggregates are published.</p>",
        ),
    }
    b.push_str("<h2>Reproduce</h2>");
    recipes(&mut b, board.rows.iter());
    page(r, &format!("{} · {}", v.suite, board.id), &b)
}

fn recipes<'a>(b: &mut String, rows: impl Iterator<Item = &'a Row>) {
    b.push_str("<table class=\"recipes\"><thead><tr><th>Entry</th><th>Sweep</th><th>adfarm</th><th>Solution</th><th>Provider · model</th><th>Judges</th><th>Seeds</th><th>Protocols</th><th>Parameters</th></tr></thead><tbody>");
    for row in rows {
        let x = &row.recipe;
        let seeds: Vec<String> = x.seeds.iter().map(u64::to_string).collect();
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}{} <span class=\"muted\">{}</span></td><td>{}</td><td>{}</td><td>{} · {}</td><td>{}</td><td>{}</td><td>{}</td><td><pre>{}</pre></td></tr>",
            esc(&row.entry),
            esc(&x.sweep),
            x.sweep_file
                .as_deref()
                .map(|f| format!(" ({})", esc(f)))
                .unwrap_or_default(),
            esc(&x.sweep_id),
            esc(&x.adfarm),
            esc(&x.solution),
            esc(&x.provider),
            esc(&x.model),
            esc(&x.judges.join(", ")),
            seeds.join(", "),
            esc(&x.protocols.join(", ")),
            esc(&serde_json::to_string(&x.params).expect("JSON serialises")),
        );
    }
    b.push_str("</tbody></table>");
}

fn entry_page(r: &Release, e: &Entry) -> String {
    let mut b = String::new();
    let _ = write!(b, "<p>Team {}.</p>", esc(&e.team));
    for board in r.boards.iter().filter(|x| e.boards.contains(&x.id)) {
        let Some(row) = board.rows.iter().find(|x| x.entry == e.name) else {
            continue;
        };
        let _ = write!(
            b,
            "<h2><a href=\"board-{}.html\">{}</a>: tier {} of {} entries</h2><p class=\"muted\">{}</p>",
            esc(&board.id),
            esc(&board.id),
            row.tier,
            board.rows.len(),
            esc(&board.version.label())
        );
        b.push_str("<table><thead><tr><th>Metric</th><th>Value</th><th>Rank (95%)</th><th>Seed spread</th></tr></thead><tbody>");
        for (m, s) in board.metrics.iter().zip(&row.cells) {
            let _ = write!(
                b,
                "<tr><td>{}</td><td class=\"n\">{}{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                esc(&m.title),
                esc(&estimate(s)),
                change_text(s),
                rank_text(s),
                s.seed_spread.map_or("–".into(), |x| format!("±{x:.1}"))
            );
        }
        let _ = write!(
            b,
            "</tbody></table><p>USD per run {}, per point {}.</p>",
            usd(row.cost_per_run_usd),
            row.cost_per_point_usd.map_or("–".into(), usd)
        );
        recipes(&mut b, std::iter::once(row));
    }
    let others: Vec<&Entry> = pairs(r)
        .into_iter()
        .filter_map(|(a, c)| {
            if a.name == e.name {
                Some(c)
            } else if c.name == e.name {
                Some(a)
            } else {
                None
            }
        })
        .collect();
    if !others.is_empty() {
        b.push_str("<h2>Compare with</h2><ul>");
        for o in others {
            let (a, c) = if e.name < o.name { (e, o) } else { (o, e) };
            let _ = write!(
                b,
                "<li><a href=\"{}\">{}</a></li>",
                esc(&pair_file(a, c)),
                esc(&o.name)
            );
        }
        b.push_str("</ul>");
    }
    page(r, &e.name, &b)
}

fn compare_index(r: &Release) -> String {
    let mut b = String::from("<p>Any two entries that share a board, side by side: the paired difference on the items both scored.</p>");
    for board in &r.boards {
        let names: Vec<&Entry> = r
            .entries
            .iter()
            .filter(|e| e.boards.contains(&board.id))
            .collect();
        if names.len() < 2 {
            continue;
        }
        let _ = write!(
            b,
            "<h2>{}</h2><table id=\"compare-{}\"><thead><tr><th></th>",
            esc(&board.id),
            esc(&board.id)
        );
        for e in &names {
            let _ = write!(b, "<th>{}</th>", esc(&e.name));
        }
        b.push_str("</tr></thead><tbody>");
        for a in &names {
            let _ = write!(b, "<tr><th>{}</th>", esc(&a.name));
            for c in &names {
                if a.name == c.name {
                    b.push_str("<td></td>");
                    continue;
                }
                let (x, y) = if a.name < c.name { (*a, *c) } else { (*c, *a) };
                let _ = write!(
                    b,
                    "<td><a href=\"{}\">compare</a></td>",
                    esc(&pair_file(x, y))
                );
            }
            b.push_str("</tr>");
        }
        b.push_str("</tbody></table>");
    }
    page(r, "Compare", &b)
}

fn pair_page(r: &Release, a: &Entry, c: &Entry) -> String {
    let mut b = String::new();
    for board in &r.boards {
        let (Some(ra), Some(rc)) = (
            board.rows.iter().find(|x| x.entry == a.name),
            board.rows.iter().find(|x| x.entry == c.name),
        ) else {
            continue;
        };
        let _ = write!(
            b,
            "<h2><a href=\"board-{}.html\">{}</a></h2><table><thead><tr><th>Metric</th><th>{}</th><th>{}</th><th>Difference on shared items (95%)</th><th>P({} above)</th></tr></thead><tbody>",
            esc(&board.id),
            esc(&board.id),
            esc(&a.name),
            esc(&c.name),
            esc(&a.name)
        );
        for (m, (sa, sc)) in board.metrics.iter().zip(ra.cells.iter().zip(&rc.cells)) {
            let diffs: Vec<f64> = sa
                .items
                .iter()
                .filter_map(|(k, v)| sc.items.get(k).map(|o| v - o))
                .collect();
            let (diff, p) = match mean(diffs.iter().copied()) {
                Some(d) => {
                    let what = format!("compare:{}:{}:{}", a.name, c.name, m.id);
                    let seed = resample_seed(r.method.seed, &board.id, &what);
                    let means = resample_means(&[&diffs], r.method.resamples as usize, seed);
                    let set = means.into_iter().next().expect("one set");
                    let zeros = vec![0.0; set.len()];
                    let p = share_above(&set, &zeros);
                    let ci = summarise(set, 1.0 - r.method.level);
                    (
                        format!(
                            "{d:+.1} [{:+.1}, {:+.1}] on {}",
                            ci.lower,
                            ci.upper,
                            diffs.len()
                        ),
                        p.map_or("–".into(), |p| format!("{:.0}%", 100.0 * p)),
                    )
                }
                None => ("no shared items".into(), "–".into()),
            };
            let _ = write!(
                b,
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                esc(&m.title),
                esc(&estimate(sa)),
                esc(&estimate(sc)),
                esc(&diff),
                esc(&p)
            );
        }
        b.push_str("</tbody></table>");
    }
    page(r, &format!("{} vs {}", a.name, c.name), &b)
}

fn raw_csv(raw: &RawBoard) -> String {
    let mut out = String::from("entry,metric,item,seed,value,output\n");
    let field = |s: &str| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    for v in &raw.values {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{}",
            field(&v.entry),
            field(&v.metric),
            field(&v.item),
            v.seed.map_or(String::new(), |s| s.to_string()),
            v.value,
            field(v.output.as_deref().unwrap_or(""))
        );
    }
    out
}
