//! The HTML report of a small GEM-Bench report opens in headless Chromium
//! (Debian `chromium`; scripts/test installs it when missing): the rendered
//! DOM holds every GEM table and the three plots with their marks, a
//! screenshot is taken, and the browser logs no console message or
//! uncaught error.

use crate::sections::report_of;
use adfarm_coordinator::report::{render, Format};
use adfarm_gem::report::{judge_metrics, Agreement, CostRow, Tables};
use adfarm_proto::report::{CellRow, Report};
use adfarm_proto::tally::NO_JUDGE;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const SUITE: &str = "gem";

fn cell(dataset: &str, solution: &str, judge: &str, metric: &str, mean: f64) -> CellRow {
    CellRow {
        suite: SUITE.into(),
        dataset: dataset.into(),
        solution: solution.into(),
        judge: judge.into(),
        metric: metric.into(),
        n: 10,
        unscored: BTreeMap::new(),
        mean: Some(mean),
        std: Some(3.0),
        ci95: Some(2.0),
    }
}

/// Three solutions (one with a `<`, to check escaping), two judges.
fn small_report() -> Report {
    let solutions = ["gi-r", "ad-chat", "no<ads>"];
    let judges = ["judge-a", "judge-b"];
    let mut cells = vec![];
    for (si, s) in solutions.iter().enumerate() {
        for m in [
            "injection-rate",
            "ad-selected",
            "response-flow",
            "response-coherence",
            "ad-flow",
            "ad-coherence",
        ] {
            cells.push(cell("mt-human", s, NO_JUDGE, m, 40.0 + 10.0 * si as f64));
        }
        for (ji, j) in judges.iter().enumerate() {
            for (mi, m) in judge_metrics().into_iter().enumerate() {
                let v = 30.0 + 15.0 * si as f64 + 5.0 * ji as f64 + mi as f64;
                cells.push(cell("mt-human", s, j, m, v));
            }
        }
    }
    let judges: Vec<String> = judges.iter().map(|j| j.to_string()).collect();
    let mut gem = Tables::from_cells(&cells, &judges, None, &[]);
    for (si, s) in solutions.iter().enumerate() {
        let ittft = 200.0 + 300.0 * si as f64;
        gem.cost.push(CostRow {
            dataset: "mt-human".into(),
            solution: s.to_string(),
            responses: 10,
            ittft,
            ottft: 150.0,
            overall: 0.5 * ittft + 150.0,
            usd_per_response: 0.0002,
            latency_s: Some(2.25),
        });
    }
    gem.agreement.push(Agreement {
        judge_a: judges[0].clone(),
        judge_b: judges[1].clone(),
        paired: 180,
        kappa: Some(0.42),
        alpha: Some(0.55),
        tau_by_dataset: BTreeMap::from([("mt-human".to_string(), Some(1.0))]),
        tau: Some(1.0),
    });
    gem.alpha_all = Some(0.55);
    report_of("gem-html", cells, gem.sections(SUITE))
}

/// `chromium --headless ... <extra> file://<page>`: stdout and stderr.
pub(crate) fn chromium(dir: &Path, page: &Path, extra: &[&str]) -> (String, String) {
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap_or_else(|e| {
            panic!("chromium is needed (apt-get install chromium; scripts/test installs it): {e}")
        });
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "chromium: {}\n{stderr}", out.status);
    (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}

pub(crate) fn assert_no_console_messages(stderr: &str) {
    let bad: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
        .collect();
    assert!(bad.is_empty(), "console output:\n{}", bad.join("\n"));
}

#[test]
fn gem_html_report_renders_tables_and_plots_in_chromium() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let page = dir.path().join("report.html");
    std::fs::write(&page, render(&small_report(), Format::Html)).expect("writable");

    let (dom, stderr) = chromium(dir.path(), &page, &["--dump-dom"]);
    assert_no_console_messages(&stderr);
    for id in [
        "gem-effectiveness",
        "gem-overall",
        "gem-judge-0",
        "gem-judge-1",
        "gem-cost",
        "gem-agreement",
        "scores",
    ] {
        assert!(
            dom.contains(&format!("<table id=\"{id}\">")),
            "table {id} missing"
        );
    }
    for id in [
        "gem-quality-cost",
        "gem-metric-bars",
        "gem-agreement-heatmap",
    ] {
        assert!(
            dom.contains(&format!("<svg id=\"{id}\"")),
            "plot {id} missing"
        );
    }
    // One point per solution, a bar per (metric, solution), a 2×2 heatmap.
    assert_eq!(dom.matches("<circle class=\"point\"").count(), 3);
    assert_eq!(dom.matches("<rect class=\"bar\"").count(), 10 * 3);
    assert_eq!(dom.matches("<rect class=\"heat\"").count(), 4);
    assert!(dom.contains("no&lt;ads&gt;"), "names are escaped");
    assert_eq!(
        adfarm_coordinator::report::external_references(&dom),
        Vec::<String>::new(),
        "the rendered page fetches nothing"
    );
    assert!(!dom.contains("no<ads>"));

    let shot = dir.path().join("report.png");
    let arg = format!("--screenshot={}", shot.display());
    let (_, stderr) = chromium(dir.path(), &page, &[&arg, "--window-size=1200,2400"]);
    assert_no_console_messages(&stderr);
    let png = std::fs::read(&shot).expect("chromium wrote the screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    assert!(
        png.len() > 10_000,
        "a page with content, not a blank ({} bytes)",
        png.len()
    );
}
