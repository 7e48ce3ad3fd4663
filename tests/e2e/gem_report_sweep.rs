//! A small GEM-Bench sweep (MT-Human, 2 queries, GI-R and the no-ads
//! control, two judges) run embedded against the fake OpenAI-compatible
//! server: `adfarm report` fills the GEM-Bench tables, including those read
//! from per-job results (cost from `Output.meta.calls`, judge agreement from
//! per-item verdicts), and renders them as HTML. An ablation embedder
//! (`emb-b`, model `fake-emb-2`, which the fake embeds in its own space)
//! re-scores the same responses for Table 5. Uses the GEM-Bench data in
//! `$ADFARM_HOME` (scripts/test fetches it).

use crate::{Fake, Farm};
use adfarm_proto::report::Report;
use adfarm_proto::Role;
use std::time::Duration;

fn sweep(base_url: &str) -> String {
    let mut s = String::from(
        "name = \"gem-report\"\nseeds = [1]\njudges = [\"judge-a\", \"judge-b\"]\nembedder = \"emb\"\n\
         embedding_ablation = [\"emb-b\"]\n\n\
         [[suites]]\nname = \"gem\"\ndatasets = [\"mt-human\"]\nlimit = 2\n",
    );
    for sol in ["gi-r", "no-ads"] {
        s.push_str(&format!(
            "\n[[solutions]]\nname = \"{sol}\"\nprovider = \"gen\"\nmax_tokens = 64\n"
        ));
    }
    for (name, model) in [
        ("gen", "fake-gen-1"),
        ("judge-a", "fake-judge-a"),
        ("judge-b", "fake-judge-b"),
        ("emb", "fake-emb-1"),
        ("emb-b", "fake-emb-2"),
    ] {
        s.push_str(&format!(
            "\n[[providers]]\nname = \"{name}\"\nkind = \"openai-compatible\"\nbase_url = \"{base_url}\"\n\
             model = \"{model}\"\nrequests_per_minute = 600000.0\nmax_concurrency = 16\ntimeout_secs = 10.0\n\
             input_usd_per_mtok = 1.0\noutput_usd_per_mtok = 2.0\n"
        ));
    }
    s
}

#[tokio::test(flavor = "multi_thread")]
async fn gem_sweep_report_fills_cost_and_agreement_from_job_results() {
    let fake = Fake::clean().await;
    let mut farm = Farm::new("gem-report");
    let path = farm.write("gem.toml", &sweep(&fake.base_url()));
    let home = crate::assets_home();
    let store = farm.path("store.redb").to_string_lossy().into_owned();
    let sweep_arg = path.to_string_lossy().into_owned();
    let run = farm.spawn(
        "run",
        &[
            "--home", &home, "run", &sweep_arg, "--store", &store, "--quiet",
        ],
        false,
    );
    let status = farm.wait(run, Duration::from_secs(300)).await;
    assert!(status.success(), "adfarm run: {status}\n{}", farm.logs());

    let report = |format: &str| {
        let out = farm.path(&format!("report.{format}"));
        let out_s = out.to_string_lossy().into_owned();
        let mut cmd = farm.command(
            "report",
            &[
                "--home", &home, "report", &sweep_arg, "--store", &store, "--format", format,
                "--out", &out_s,
            ],
        );
        async move {
            let status = cmd.status().await.expect("adfarm report starts");
            assert!(status.success(), "adfarm report: {status}");
            std::fs::read_to_string(&out).expect("the report was written")
        }
    };
    let json = report("json").await;
    let r: Report = serde_json::from_str(&json).expect("a Report");
    crate::assert_complete(&r);
    let g = r.gem.as_ref().expect("a gem sweep has GEM-Bench tables");
    assert!(g.per_job, "per-job results were read");
    assert_eq!(g.judges, ["judge-a", "judge-b"]);
    // Effectiveness: both solutions; GI-R injects (IR is scored).
    let eff: Vec<&str> = g
        .effectiveness
        .iter()
        .map(|e| e.solution.as_str())
        .collect();
    assert_eq!(eff, ["gi-r", "no-ads"]);
    let gir = &g.effectiveness[0];
    assert_eq!(gir.metrics["injection-rate"].n, 2, "{gir:?}");
    assert!(gir.metrics.contains_key("response-flow"), "{gir:?}");
    // Judge rows: 2 solutions × 2 judges, Overall = mean of the six.
    assert_eq!(g.judge_scores.len(), 4);
    for row in &g.judge_scores {
        let means: Vec<f64> = adfarm_coordinator::gem_report::judge_metrics()
            .iter()
            .filter_map(|m| row.metrics.get(*m).and_then(|s| s.mean))
            .collect();
        if means.len() == 6 {
            let want = means.iter().sum::<f64>() / 6.0;
            assert!((row.overall.expect("defined") - want).abs() < 1e-9);
        }
    }
    // Cost from Output.meta.calls: every response has calls, GI-R's
    // include the ad-free answer, and Overall = 0.5·ITTFT + OTTFT.
    assert_eq!(g.cost.len(), 2, "{:?}", g.cost);
    for c in &g.cost {
        assert_eq!(c.responses, 2, "{c:?}");
        let (i, o) = (c.ittft.expect("ITTFT"), c.ottft.expect("OTTFT"));
        assert!(i > 0.0 && o > 0.0, "{c:?}");
        assert!((c.overall.expect("Overall") - (0.5 * i + o)).abs() < 1e-9);
        assert!(c.usd_per_response.expect("USD") > 0.0);
    }
    let cost_of = |s: &str| {
        g.cost
            .iter()
            .find(|c| c.solution == s)
            .and_then(|c| c.ittft)
    };
    assert!(cost_of("gi-r") >= cost_of("no-ads"), "{:?}", g.cost);
    // Agreement: one pair, over the six metrics of 4 responses.
    assert_eq!(g.agreement.len(), 1);
    let a = &g.agreement[0];
    assert_eq!(
        (a.judge_a.as_str(), a.judge_b.as_str()),
        ("judge-a", "judge-b")
    );
    assert!(a.paired > 0 && a.paired <= 24, "{a:?}");
    // Table 5: 4 responses scored by both embedders, one job each.
    assert_eq!(r.jobs["embed-metrics"].planned, 8, "{:?}", r.jobs);
    let embedding_models: Vec<&str> = r
        .usage
        .iter()
        .filter(|u| u.role == Role::Embedding)
        .map(|u| u.model.as_str())
        .collect();
    assert!(embedding_models.contains(&"fake-emb-2"), "{:?}", r.usage);
    let ab = g
        .embedding_ablation
        .as_ref()
        .expect("the sweep has an embedding ablation");
    assert_eq!(ab.embedders, ["emb", "emb-b"]);
    let rows: Vec<&str> = ab.rows.iter().map(|r| r.solution.as_str()).collect();
    assert_eq!(rows, ["gi-r", "no-ads"]);
    let mut differ = false;
    for row in &ab.rows {
        for e in &ab.embedders {
            let m = &row.metrics[e];
            let rf = &m["response-flow"];
            assert_eq!(rf.n + rf.unscored, 2, "{e} {row:?}");
            for s in m.values() {
                assert!(s.mean.is_none_or(f64::is_finite), "{e} {row:?}");
            }
        }
        for (metric, s) in &row.metrics["emb"] {
            let other = row.metrics["emb-b"].get(metric).and_then(|s| s.mean);
            differ |= s.mean.is_some() && other.is_some() && s.mean != other;
        }
    }
    assert!(differ, "two embedding models give different scores: {ab:?}");
    let finite = |e: &str| {
        ab.rows
            .iter()
            .flat_map(|r| r.metrics[e].values())
            .filter_map(|s| s.mean)
            .filter(|m| m.is_finite())
            .count()
    };
    assert!(finite("emb") > 0 && finite("emb-b") > 0, "{ab:?}");
    // The primary's scores are Table 3's.
    assert_eq!(
        gir.metrics["response-flow"],
        ab.rows[0].metrics["emb"]["response-flow"]
    );

    let md = report("md").await;
    assert!(md.contains("## GEM-Bench: cost (Table 6)"), "{md}");
    assert!(
        md.contains("## GEM-Bench: embedding-model ablation (Table 5)"),
        "{md}"
    );
    assert!(
        md.contains("| emb RF |") && md.contains("| emb-b AC |"),
        "{md}"
    );
    assert!(!md.contains("Judge emb-b"), "{md}");
    let html = report("html").await;
    assert!(html.contains("<svg id=\"plot-quality-cost\""));
    assert!(html.contains("<table id=\"gem-agreement\">"));
    assert!(html.contains("<table id=\"gem-embedding-ablation\">"));
}
