//! GEM-Bench tables of a sweep report (issue 4): effectiveness (paper
//! Table 3), per-judge Overall (Table 4) and details (Tables 7–9), token
//! cost (Table 6) and judge agreement, with their Markdown and CSV forms.
//! The embedding-model ablation (Table 5) is in [`crate::gem_ablation`].
//!
//! Effectiveness and judge tables come from the store's cells. Cost and
//! agreement need per-job data (`Output.meta.calls`, per-item verdicts), so
//! they are read with `Store::result` for the job ids obtained by
//! re-expanding the sweep (generate jobs, then their follow-ups).
//!
//! Definitions. Overall (Table 4) is the mean of the six judge metrics'
//! means (accuracy, naturalness, personality, trust, notice, click) of one
//! solution, dataset and judge, as the paper averages them; it is undefined
//! unless all six have a mean. Cost Overall is `input_ratio`·ITTFT + OTTFT
//! per response (ratio 0.5). Agreement pools the six metrics' verdicts of
//! every response: Cohen's κ and ordinal Krippendorff's α per judge pair,
//! α over all judges, and Kendall's τ-b between two judges' Overall per
//! solution (averaged over datasets).

use crate::gem_ablation;
use crate::plan::root_jobs;
use crate::report::num;
use adfarm_backbone::{Store, StoreError, SweepRecord};
use adfarm_gem::agreement::{self, Level};
use adfarm_gem::cost;
use adfarm_gem::judge_prompts::JUDGE_METRICS;
use adfarm_proto::report::{
    CellRow, GemAgreement, GemCostRow, GemJudgeRow, GemRow, GemTables, Stat,
};
use adfarm_proto::tally::NO_JUDGE;
use adfarm_suites::SuiteContext;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Suite name of GEM-Bench in sweep files.
pub const SUITE: &str = "gem";

/// Columns of the effectiveness table: (metric, header).
pub const EFFECTIVENESS: [(&str, &str); 7] = [
    ("injection-rate", "IR"),
    ("ad-selected", "ad selected"),
    ("ctr", "CTR"),
    ("response-flow", "RF"),
    ("response-coherence", "RC"),
    ("ad-flow", "AF"),
    ("ad-coherence", "AC"),
];

/// The six judge metric names.
pub fn judge_metrics() -> Vec<&'static str> {
    JUDGE_METRICS.iter().map(|m| m.name).collect()
}

pub(crate) fn stat(c: &CellRow) -> Stat {
    Stat {
        n: c.n,
        unscored: c.unscored.values().sum(),
        mean: c.mean,
        ci95: c.ci95,
    }
}

/// The tables that need only the cells (cost and agreement left empty).
/// `embedder` and `ablation` are the sweep's `embedder` and
/// `embedding_ablation`: cells scored by an ablation embedder go to Table 5,
/// never to the judge tables.
pub fn from_cells(
    cells: &[CellRow],
    judges: &[String],
    embedder: Option<&str>,
    ablation: &[String],
) -> GemTables {
    let mut eff: BTreeMap<(String, String), GemRow> = BTreeMap::new();
    let mut jud: BTreeMap<(String, String, String), GemJudgeRow> = BTreeMap::new();
    for c in cells
        .iter()
        .filter(|c| c.suite == SUITE && !ablation.contains(&c.judge))
    {
        if c.judge == NO_JUDGE {
            eff.entry((c.dataset.clone(), c.solution.clone()))
                .or_insert_with(|| GemRow {
                    dataset: c.dataset.clone(),
                    solution: c.solution.clone(),
                    metrics: BTreeMap::new(),
                })
                .metrics
                .insert(c.metric.clone(), stat(c));
        } else {
            jud.entry((c.dataset.clone(), c.solution.clone(), c.judge.clone()))
                .or_insert_with(|| GemJudgeRow {
                    dataset: c.dataset.clone(),
                    solution: c.solution.clone(),
                    judge: c.judge.clone(),
                    metrics: BTreeMap::new(),
                    overall: None,
                })
                .metrics
                .insert(c.metric.clone(), stat(c));
        }
    }
    let six = judge_metrics();
    let mut judge_scores: Vec<GemJudgeRow> = jud.into_values().collect();
    for row in &mut judge_scores {
        let means: Option<Vec<f64>> = six
            .iter()
            .map(|m| row.metrics.get(*m).and_then(|s| s.mean))
            .collect();
        row.overall = means.map(|v| v.iter().sum::<f64>() / v.len() as f64);
    }
    let mut all_judges: Vec<String> = judges.to_vec();
    for r in &judge_scores {
        if !all_judges.contains(&r.judge) {
            all_judges.push(r.judge.clone());
        }
    }
    GemTables {
        effectiveness: eff.into_values().collect(),
        judges: all_judges,
        judge_scores,
        cost: vec![],
        input_ratio: cost::DEFAULT_INPUT_RATIO,
        agreement: vec![],
        alpha_all: None,
        per_job: false,
        embedding_ablation: gem_ablation::from_cells(cells, embedder, ablation),
    }
}

/// Per-response cost sums of one (dataset, solution).
#[derive(Default)]
struct CostSum {
    n: i64,
    ittft: u64,
    ottft: u64,
    latency_ms: u64,
    usd: f64,
}

/// The sweep's ablation embedders (GEM's `params.embedding_ablation`).
fn ablation_of(rec: &SweepRecord) -> Vec<String> {
    rec.spec
        .suites
        .iter()
        .find(|s| s.name == SUITE)
        .and_then(|s| s.params.get("embedding_ablation"))
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

/// The GEM-Bench tables of `rec`, or `None` when it has no `gem` suite.
/// With `ctx`, per-job results are read for cost and agreement.
///
/// # Errors
/// When the store is unavailable.
pub async fn build(
    store: &dyn Store,
    rec: &SweepRecord,
    cells: &[CellRow],
    ctx: Option<&SuiteContext>,
) -> Result<Option<GemTables>, StoreError> {
    if !rec.spec.suites.iter().any(|s| s.name == SUITE) {
        return Ok(None);
    }
    let mut t = from_cells(
        cells,
        &rec.spec.judges,
        rec.spec.embedder.as_deref(),
        &ablation_of(rec),
    );
    let Some(ctx) = ctx else {
        return Ok(Some(t));
    };
    let mut costs: BTreeMap<(String, String), CostSum> = BTreeMap::new();
    // (generate job, metric) → judge → category.
    let mut units: BTreeMap<(String, String), BTreeMap<String, i64>> = BTreeMap::new();
    let six = judge_metrics();
    for env in root_jobs(&rec.spec, &rec.pipelines, ctx) {
        let env = match env {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(code = "plan", error = %e, "GEM report: a dataset could not be re-expanded.");
                continue;
            }
        };
        if env.job.cell().suite != SUITE || !env.job.is_solve() {
            continue;
        }
        let cell = env.job.cell();
        if let Some(r) = store.result(&env.sweep, &env.id).await? {
            if let Some(out) = &r.output {
                let calls = cost::calls_from_meta(&out.meta);
                if !calls.is_empty() {
                    let c = costs
                        .entry((cell.dataset.clone(), cell.solution.clone()))
                        .or_default();
                    c.n += 1;
                    c.ittft += cost::ittft(&calls);
                    c.ottft += cost::ottft(&calls);
                    c.latency_ms += cost::latency_ms(&calls);
                    c.usd += calls
                        .iter()
                        .filter_map(|k| {
                            let p = rec.spec.provider_for_model(&k.model)?;
                            Some(p.cost_usd(k.input, k.output))
                        })
                        .sum::<f64>();
                }
            }
        }
        let follow_ups = rec
            .plan_of(SUITE)
            .map(|plan| plan.dependents(&env))
            .unwrap_or_default();
        for f in follow_ups {
            let (true, Some(judge)) = (f.stage() == "judge", &f.job.variant.column) else {
                continue;
            };
            let Some(r) = store.result(&f.sweep, &f.id).await? else {
                continue;
            };
            for s in r.scores.iter().filter(|s| six.contains(&s.metric.as_str())) {
                if let Some(v) = agreement::verdict_category(&s.verdict) {
                    units
                        .entry((env.id.0.clone(), s.metric.clone()))
                        .or_default()
                        .insert(judge.clone(), v);
                }
            }
        }
    }
    t.per_job = true;
    t.cost = costs
        .into_iter()
        .map(|((dataset, solution), c)| {
            let n = c.n as f64;
            let (i, o) = (c.ittft as f64 / n, c.ottft as f64 / n);
            GemCostRow {
                dataset,
                solution,
                responses: c.n,
                ittft: Some(i),
                ottft: Some(o),
                overall: Some(t.input_ratio * i + o),
                usd_per_response: Some(c.usd / n),
                // Results from before latency was recorded have none.
                latency_s: (c.latency_ms > 0).then(|| c.latency_ms as f64 / 1000.0 / n),
            }
        })
        .collect();
    t.agreement = agreement_rows(&t, &units);
    let all: Vec<Vec<Option<f64>>> = units
        .values()
        .map(|m| {
            t.judges
                .iter()
                .map(|j| m.get(j).map(|v| *v as f64))
                .collect()
        })
        .collect();
    t.alpha_all = agreement::krippendorff_alpha(&all, Level::Ordinal);
    Ok(Some(t))
}

/// Each judge's Overall per solution, averaged over datasets.
fn solution_overall(t: &GemTables, judge: &str) -> BTreeMap<String, f64> {
    let mut acc: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for r in t.judge_scores.iter().filter(|r| r.judge == judge) {
        if let Some(o) = r.overall {
            let e = acc.entry(r.solution.clone()).or_default();
            e.0 += o;
            e.1 += 1.0;
        }
    }
    acc.into_iter().map(|(k, (s, n))| (k, s / n)).collect()
}

fn agreement_rows(
    t: &GemTables,
    units: &BTreeMap<(String, String), BTreeMap<String, i64>>,
) -> Vec<GemAgreement> {
    let mut rows = vec![];
    for (i, a) in t.judges.iter().enumerate() {
        for b in &t.judges[i + 1..] {
            let va: Vec<Option<i64>> = units.values().map(|m| m.get(a).copied()).collect();
            let vb: Vec<Option<i64>> = units.values().map(|m| m.get(b).copied()).collect();
            let paired = va
                .iter()
                .zip(&vb)
                .filter(|(x, y)| x.is_some() && y.is_some());
            let pair_units: Vec<Vec<Option<f64>>> = va
                .iter()
                .zip(&vb)
                .map(|(x, y)| vec![x.map(|v| v as f64), y.map(|v| v as f64)])
                .collect();
            let (oa, ob) = (solution_overall(t, a), solution_overall(t, b));
            let common: Vec<&String> = oa.keys().filter(|k| ob.contains_key(*k)).collect();
            let xa: Vec<f64> = common.iter().map(|k| oa[*k]).collect();
            let xb: Vec<f64> = common.iter().map(|k| ob[*k]).collect();
            rows.push(GemAgreement {
                judge_a: a.clone(),
                judge_b: b.clone(),
                paired: paired.count() as i64,
                kappa: agreement::cohen_kappa(&va, &vb),
                alpha: agreement::krippendorff_alpha(&pair_units, Level::Ordinal),
                tau: agreement::kendall_tau_b(&xa, &xb),
            });
        }
    }
    rows
}

/// Mean ± 95% CI half-width, or `-`.
pub(crate) fn stat_cell(s: Option<&Stat>) -> String {
    match s {
        Some(Stat {
            mean: Some(m),
            ci95: Some(c),
            ..
        }) => format!("{m:.2} ±{c:.2}"),
        Some(Stat { mean: Some(m), .. }) => format!("{m:.2}"),
        _ => "-".into(),
    }
}

/// The GEM-Bench tables as Markdown sections.
pub fn markdown(t: &GemTables) -> String {
    let mut out = String::from("\n## GEM-Bench: effectiveness (Table 3)\n\n| dataset | solution |");
    for (_, h) in EFFECTIVENESS {
        let _ = write!(out, " {h} |");
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---:|".repeat(EFFECTIVENESS.len()));
    out.push('\n');
    for r in &t.effectiveness {
        let _ = write!(out, "| {} | {} |", r.dataset, r.solution);
        for (m, _) in EFFECTIVENESS {
            let _ = write!(out, " {} |", stat_cell(r.metrics.get(m)));
        }
        out.push('\n');
    }
    out.push_str("\nIR: ad present in the text; CTR: CA-Prod selection accuracy; RF/RC/AF/AC: embedding flow and coherence (0–100). Mean ±95% CI.\n");
    if let Some(a) = &t.embedding_ablation {
        out.push_str(&gem_ablation::markdown(a));
    }
    let _ = writeln!(out, "\n## GEM-Bench: Overall per judge (Table 4)\n\nOverall = mean of the six judge metrics (accuracy, naturalness, personality, trust, notice, click).\n");
    let _ = write!(out, "| dataset | solution |");
    for j in &t.judges {
        let _ = write!(out, " {j} |");
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---:|".repeat(t.judges.len()));
    out.push('\n');
    for r in &keys(t) {
        let _ = write!(out, "| {} | {} |", r.0, r.1);
        for j in &t.judges {
            let o = t
                .judge_scores
                .iter()
                .find(|x| x.dataset == r.0 && x.solution == r.1 && &x.judge == j)
                .and_then(|x| x.overall);
            let _ = write!(out, " {} |", num(o));
        }
        out.push('\n');
    }
    let six = judge_metrics();
    for j in &t.judges {
        let _ = write!(
            out,
            "\n### Judge {j}: details (Tables 7–9)\n\n| dataset | solution |"
        );
        for m in &six {
            let _ = write!(out, " {m} |");
        }
        out.push_str(" Overall | moderate+good |\n|---|---|");
        out.push_str(&"---:|".repeat(six.len() + 2));
        out.push('\n');
        for r in t.judge_scores.iter().filter(|r| &r.judge == j) {
            let _ = write!(out, "| {} | {} |", r.dataset, r.solution);
            for m in &six {
                let _ = write!(out, " {} |", stat_cell(r.metrics.get(*m)));
            }
            let mg = r.metrics.get("moderate-good-rate").and_then(|s| s.mean);
            let _ = writeln!(out, " {} | {} |", num(r.overall), num(mg));
        }
    }
    let _ = writeln!(
        out,
        "\n## GEM-Bench: cost (Table 6)\n\nTokens per response of all calls before the response is shown; Overall = {}·ITTFT + OTTFT; latency: seconds of those calls (measured, so it varies between runs).\n\n| dataset | solution | responses | ITTFT | OTTFT | Overall | USD/response | latency (s) |\n|---|---|---:|---:|---:|---:|---:|---:|",
        t.input_ratio
    );
    for c in &t.cost {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            c.dataset,
            c.solution,
            c.responses,
            num(c.ittft),
            num(c.ottft),
            num(c.overall),
            c.usd_per_response.map_or("-".into(), |u| format!("{u:.6}")),
            num(c.latency_s)
        );
    }
    if t.judges.len() < 2 {
        let _ = writeln!(
            out,
            "\n## GEM-Bench: judge agreement\n\n{}",
            one_judge_note(t)
        );
    } else {
        let _ = writeln!(
            out,
            "\n## GEM-Bench: judge agreement\n\n| judge A | judge B | paired verdicts | Cohen's κ | Krippendorff's α (ordinal) | Kendall's τ (Overall per solution) |\n|---|---|---:|---:|---:|---:|"
        );
        for a in &t.agreement {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                a.judge_a,
                a.judge_b,
                a.paired,
                num(a.kappa),
                num(a.alpha),
                num(a.tau)
            );
        }
        let _ = writeln!(out, "\nα over all judges: {}.", num(t.alpha_all));
    }
    if !t.per_job {
        out.push_str("\nCost and agreement need per-job results: render with `adfarm report`.\n");
    }
    out
}

/// Why there is no agreement table.
pub(crate) fn one_judge_note(t: &GemTables) -> String {
    format!(
        "Agreement compares judges (pairwise Cohen's κ, Krippendorff's α, Kendall's τ); \
         this sweep has {}. List two or more in `judges` to see it.",
        match t.judges.len() {
            0 => "none".to_string(),
            _ => "one".to_string(),
        }
    )
}

/// Every (dataset, solution) in the tables, sorted.
pub fn keys(t: &GemTables) -> Vec<(String, String)> {
    let mut keys: Vec<(String, String)> = t
        .effectiveness
        .iter()
        .map(|r| (r.dataset.clone(), r.solution.clone()))
        .chain(
            t.judge_scores
                .iter()
                .map(|r| (r.dataset.clone(), r.solution.clone())),
        )
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The GEM-Bench tables as CSV: one `table,dataset,solution,judge,column,value` row per value.
pub fn csv(t: &GemTables) -> String {
    let mut out = String::from("table,dataset,solution,judge,column,value\n");
    let mut row = |fields: [&str; 5], v: Option<f64>| {
        let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        let v = v.map_or(String::new(), |v| v.to_string());
        let _ = writeln!(out, "{},{v}", fields.join(","));
    };
    for r in &t.effectiveness {
        for (m, s) in &r.metrics {
            row(
                ["effectiveness", &r.dataset, &r.solution, NO_JUDGE, m],
                s.mean,
            );
        }
    }
    if let Some(a) = &t.embedding_ablation {
        for (fields, v) in gem_ablation::csv_rows(a) {
            row(fields.each_ref().map(String::as_str), v);
        }
    }
    for r in &t.judge_scores {
        for (m, s) in &r.metrics {
            row(["judge", &r.dataset, &r.solution, &r.judge, m], s.mean);
        }
        row(
            ["judge", &r.dataset, &r.solution, &r.judge, "overall"],
            r.overall,
        );
    }
    for c in &t.cost {
        for (k, v) in [
            ("ittft", c.ittft),
            ("ottft", c.ottft),
            ("overall", c.overall),
            ("usd-per-response", c.usd_per_response),
            ("latency-s", c.latency_s),
        ] {
            row(["cost", &c.dataset, &c.solution, NO_JUDGE, k], v);
        }
    }
    for a in &t.agreement {
        let pair = format!("{}~{}", a.judge_a, a.judge_b);
        for (k, v) in [("kappa", a.kappa), ("alpha", a.alpha), ("tau", a.tau)] {
            row(["agreement", "-", "-", &pair, k], v);
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use adfarm_proto::report::Report;

    fn cell(solution: &str, judge: &str, metric: &str, mean: f64) -> CellRow {
        CellRow {
            suite: SUITE.into(),
            dataset: "mt-human".into(),
            solution: solution.into(),
            judge: judge.into(),
            metric: metric.into(),
            n: 10,
            unscored: BTreeMap::from([("no-ad".to_string(), 2)]),
            mean: Some(mean),
            std: Some(1.0),
            ci95: Some(0.5),
        }
    }

    /// Two solutions, two judges: judge j1 gives gi-r 60 + i·6 on metric i
    /// (Overall 75) and ad-chat 30 on all six; j2 the reverse ranking.
    pub(crate) fn cells() -> Vec<CellRow> {
        let mut v = vec![
            cell("gi-r", NO_JUDGE, "injection-rate", 100.0),
            cell("gi-r", NO_JUDGE, "response-flow", 40.0),
            cell("ad-chat", NO_JUDGE, "ctr", 12.5),
            cell("other-suite", NO_JUDGE, "x", 1.0),
        ];
        v.last_mut().expect("four cells").suite = "synthetic".into();
        for (i, m) in judge_metrics().into_iter().enumerate() {
            v.push(cell("gi-r", "j1", m, 60.0 + 6.0 * i as f64));
            v.push(cell("ad-chat", "j1", m, 30.0));
            v.push(cell("gi-r", "j2", m, 20.0));
            if m != "click" {
                v.push(cell("ad-chat", "j2", m, 50.0));
            }
        }
        v.push(cell("gi-r", "j1", "moderate-good-rate", 5.0));
        v
    }

    pub(crate) fn report(gem: GemTables) -> Report {
        Report {
            format_version: 1,
            sweep: "t".into(),
            sweep_id: "id".into(),
            jobs: BTreeMap::new(),
            cells: cells(),
            usage: vec![],
            cost_by_role: BTreeMap::new(),
            cost_usd: 0.0,
            budget_usd: None,
            stopped_by_budget: false,
            estimated_cost_usd: 0.0,
            dead_letters: vec![],
            gem: Some(gem),
        }
    }

    #[test]
    fn overall_is_the_mean_of_the_six_judge_metrics_and_needs_all_six() {
        let t = from_cells(&cells(), &["j1".into(), "j2".into()], None, &[]);
        let overall = |s: &str, j: &str| {
            t.judge_scores
                .iter()
                .find(|r| r.solution == s && r.judge == j)
                .expect("row")
                .overall
        };
        // 60, 66, 72, 78, 84, 90 → 75.
        assert_eq!(overall("gi-r", "j1"), Some(75.0));
        assert_eq!(overall("ad-chat", "j1"), Some(30.0));
        assert_eq!(overall("ad-chat", "j2"), None, "click is missing");
        assert_eq!(t.effectiveness.len(), 2, "the synthetic cell is not GEM");
        let gir = &t.effectiveness[1];
        assert_eq!(gir.solution, "gi-r");
        assert_eq!(gir.metrics["injection-rate"].mean, Some(100.0));
        assert_eq!(gir.metrics["injection-rate"].unscored, 2);
    }

    #[test]
    fn agreement_counts_pairs_and_ranks_solutions() {
        let mut t = from_cells(&cells(), &["j1".into(), "j2".into()], None, &[]);
        // ad-chat gets a j2 Overall so both judges rank both solutions.
        for r in &mut t.judge_scores {
            if r.judge == "j2" && r.solution == "ad-chat" {
                r.overall = Some(50.0);
            }
        }
        let mut units = BTreeMap::new();
        for (u, (a, b)) in [(0, 0), (30, 30), (60, 60), (90, 60)]
            .into_iter()
            .enumerate()
        {
            let m = BTreeMap::from([("j1".to_string(), a), ("j2".to_string(), b)]);
            units.insert((format!("job{u}"), "accuracy".to_string()), m);
        }
        units.insert(
            ("job9".into(), "accuracy".into()),
            BTreeMap::from([("j1".to_string(), 30)]),
        );
        let rows = agreement_rows(&t, &units);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!(
            (r.judge_a.as_str(), r.judge_b.as_str(), r.paired),
            ("j1", "j2", 4)
        );
        // po = 3/4; marginals j1 {0,30,60,90} ¼ each, j2 {0:¼,30:¼,60:½}
        // → pe = 1/16 + 1/16 + 1/8 = 1/4; κ = (3/4 − 1/4)/(3/4) = 2/3.
        assert!((r.kappa.expect("defined") - 2.0 / 3.0).abs() < 1e-12);
        assert!(r.alpha.expect("defined") > 0.5);
        // j1 ranks gi-r (75) over ad-chat (30), j2 the reverse (20 < 50).
        assert_eq!(r.tau, Some(-1.0));
    }

    #[test]
    fn one_judge_says_why_there_is_no_agreement_table() {
        let one: Vec<CellRow> = cells().into_iter().filter(|c| c.judge != "j2").collect();
        let t = from_cells(&one, &["j1".into()], None, &[]);
        let md = markdown(&t);
        assert!(md.contains("this sweep has one"), "{md}");
        assert!(!md.contains("| judge A | judge B |"), "{md}");
        let mut html = String::new();
        crate::report_html::gem(&mut html, &t);
        assert!(html.contains("this sweep has one"));
        assert!(!html.contains("plot-agreement"));
    }

    #[test]
    fn markdown_csv_and_html_carry_every_table() {
        let mut t = from_cells(&cells(), &["j1".into(), "j2".into()], None, &[]);
        t.cost.push(GemCostRow {
            dataset: "mt-human".into(),
            solution: "gi-r".into(),
            responses: 10,
            ittft: Some(400.0),
            ottft: Some(100.0),
            overall: Some(300.0),
            usd_per_response: Some(0.0001),
            latency_s: Some(1.5),
        });
        t.agreement.push(GemAgreement {
            judge_a: "j1".into(),
            judge_b: "j2".into(),
            paired: 4,
            kappa: Some(0.5),
            alpha: Some(0.6),
            tau: Some(-1.0),
        });
        t.per_job = true;
        let r = report(t);
        let md = crate::report::render(&r, crate::report::Format::Markdown);
        for want in [
            "effectiveness (Table 3)",
            "| mt-human | gi-r | 100.00 ±0.50 | - | - | 40.00 ±0.50 |",
            "Overall per judge (Table 4)",
            "| mt-human | gi-r | 75.00 | 35.00 |"
                .replace("35.00", "20.00")
                .as_str(),
            "Judge j2: details",
            "cost (Table 6)",
            "| mt-human | gi-r | 10 | 400.00 | 100.00 | 300.00 | 0.000100 |",
            "| j1 | j2 | 4 | 0.50 | 0.60 | -1.00 |",
        ] {
            assert!(md.contains(want), "{want:?} missing in\n{md}");
        }
        let csv = crate::report::render(&r, crate::report::Format::Csv);
        assert!(csv.contains("judge,mt-human,gi-r,j1,overall,75\n"), "{csv}");
        assert!(csv.contains("cost,mt-human,gi-r,-,overall,300\n"), "{csv}");
        assert!(csv.contains("agreement,-,-,j1~j2,kappa,0.5\n"), "{csv}");
        assert_eq!(csv_field("a,\"b\""), "\"a,\"\"b\"\"\"");
        let json = crate::report::render(&r, crate::report::Format::Json);
        let back: Report = serde_json::from_str(&json).expect("JSON round-trips");
        assert_eq!(back, r);
        let html = crate::report::render(&r, crate::report::Format::Html);
        for want in [
            "<table id=\"gem-effectiveness\">",
            "<table id=\"gem-overall\">",
            "<table id=\"gem-judge-1\">",
            "<table id=\"gem-cost\">",
            "<table id=\"gem-agreement\">",
            "<svg id=\"plot-quality-cost\"",
            "<circle class=\"point\"",
            "<svg id=\"plot-metric-bars\"",
            "<rect class=\"bar\"",
            "<svg id=\"plot-agreement\"",
            "<rect class=\"heat\"",
        ] {
            assert!(html.contains(want), "{want:?} missing");
        }
        assert!(!html.contains("<script"), "no script in the page");
        assert!(
            !html.contains("http://") || !html.contains("src=\"http"),
            "nothing fetched"
        );
    }

    #[test]
    fn reports_without_gem_omit_the_field() {
        let mut r = report(GemTables::default());
        r.gem = None;
        let json = crate::report::render(&r, crate::report::Format::Json);
        assert!(!json.contains("\"gem\":"));
        let back: Report = serde_json::from_str(&json).expect("old reports still parse");
        assert_eq!(back.gem, None);
    }
}
