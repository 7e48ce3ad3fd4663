//! A small GEM-Bench sweep (MT-Human, 2 queries, GI-R twice and the no-ads
//! control, two judges) run embedded against the fake OpenAI-compatible
//! server: `adfarm report` fills the GEM-Bench tables, including those read
//! from per-job results (cost from `Output.meta.calls`, judge agreement from
//! per-item verdicts), and renders them as HTML. The second GI-R entry
//! (`gi-r emb-b`) retrieves its ad with `emb-b` (model `fake-emb-2`, which
//! the fake embeds in its own space): Table 5, the paper's ablation. `emb-b`
//! also re-scores the same responses as a metric embedder (AdFarm's own
//! check). The cost Overall weighs input tokens by the sweep's
//! `cost_input_ratio` (0.25 here). Uses the GEM-Bench data in
//! `$ADFARM_HOME` (scripts/test fetches it).

use crate::sections::{col, estimate, mean, number, scorers, table, text};
use crate::{Fake, Farm};
use adfarm_gem::report::judge_metrics;
use adfarm_proto::report::{Report, Table, Value};
use adfarm_proto::Role;
use std::time::Duration;

fn sweep(base_url: &str) -> String {
    let mut s = String::from(
        "name = \"gem-report\"\nseeds = [1]\njudges = [\"judge-a\", \"judge-b\"]\nembedder = \"emb\"\n\n\
         [[suites]]\nname = \"gem\"\ndatasets = [\"mt-human\"]\nlimit = 2\n\
         params = { embedding_ablation = [\"emb-b\"], cost_input_ratio = 0.25 }\n",
    );
    for sol in ["gi-r", "no-ads"] {
        s.push_str(&format!(
            "\n[[solutions]]\nname = \"{sol}\"\nprovider = \"gen\"\nmax_tokens = 64\n"
        ));
    }
    s.push_str(
        "\n[[solutions]]\nname = \"gi-r\"\nlabel = \"gi-r emb-b\"\nembedder = \"emb-b\"\n\
         provider = \"gen\"\nmax_tokens = 64\n",
    );
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

/// A GEM-Bench sweep run to the end, embedded, in a farm of its own.
struct GemRun {
    farm: Farm,
    home: String,
    sweep: String,
    store: String,
}

impl GemRun {
    /// Runs `text` as sweep `name` and checks that it finished.
    async fn finish(name: &str, text: &str) -> GemRun {
        let mut farm = Farm::new(name);
        let sweep = farm.write("gem.toml", text).to_string_lossy().into_owned();
        let home = crate::assets_home();
        let store = farm.path("store.redb").to_string_lossy().into_owned();
        let run = farm.spawn(
            "run",
            &["--home", &home, "run", &sweep, "--store", &store, "--quiet"],
            false,
        );
        let status = farm.wait(run, Duration::from_secs(300)).await;
        assert!(status.success(), "adfarm run: {status}\n{}", farm.logs());
        GemRun {
            farm,
            home,
            sweep,
            store,
        }
    }

    /// `adfarm report` of the sweep in `format`, as written.
    async fn report(&self, format: &str) -> String {
        let out = self.farm.path(&format!("report.{format}"));
        let out_s = out.to_string_lossy().into_owned();
        let mut cmd = self.farm.command(
            "report",
            &[
                "--home",
                &self.home,
                "report",
                &self.sweep,
                "--store",
                &self.store,
                "--format",
                format,
                "--out",
                &out_s,
            ],
        );
        let status = cmd.status().await.expect("adfarm report starts");
        assert!(status.success(), "adfarm report: {status}");
        std::fs::read_to_string(&out).expect("the report was written")
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn gem_sweep_report_fills_cost_and_agreement_from_job_results() {
    let fake = Fake::clean().await;
    let run = GemRun::finish("gem-report", &sweep(&fake.base_url())).await;
    let report = |format: &'static str| run.report(format);
    let json = report("json").await;
    let r: Report = serde_json::from_str(&json).expect("a Report");
    crate::assert_complete(&r);
    // Effectiveness: both solutions; GI-R injects (IR is scored).
    let eff = table(&r, "gem", "effectiveness");
    let solutions = |t: &Table| -> Vec<String> { t.rows.iter().map(|row| text(&row[1])).collect() };
    assert_eq!(solutions(eff), ["gi-r", "gi-r emb-b", "no-ads"]);
    let gir = &eff.rows[0];
    assert_eq!(
        estimate(&gir[col(eff, "injection-rate", None)]).n,
        2,
        "{gir:?}"
    );
    assert!(gir[col(eff, "response-flow", None)].is_some(), "{gir:?}");
    // Table 3's Overall: the mean of RF, RC, AF, AC and IR, defined only
    // when all five are; the no-ads control has no ad metrics, so none.
    let parts = [
        "response-flow",
        "response-coherence",
        "ad-flow",
        "ad-coherence",
        "injection-rate",
    ];
    for row in &eff.rows {
        let means: Option<Vec<f64>> = parts
            .iter()
            .map(|m| mean(&row[col(eff, m, None)]))
            .collect();
        let overall = number(&row[col(eff, "overall", None)]);
        match means {
            Some(m) => {
                let want = m.iter().sum::<f64>() / 5.0;
                assert!(overall.is_some_and(|o| (o - want).abs() < 1e-9), "{row:?}");
            }
            None => assert_eq!(overall, None, "{row:?}"),
        }
        assert_eq!(number(&row[col(eff, "rewrite-failed", None)]), Some(0.0));
    }
    assert_eq!(
        number(&eff.rows[2][col(eff, "overall", None)]),
        None,
        "no-ads"
    );
    // Judge rows: 3 solutions × 2 judges, each with all six metrics (the
    // fake always answers an option), Overall = mean of the six.
    assert_eq!(scorers(table(&r, "gem", "overall")), ["judge-a", "judge-b"]);
    let details = [table(&r, "gem", "judge-0"), table(&r, "gem", "judge-1")];
    assert_eq!(details.iter().map(|t| t.rows.len()).sum::<usize>(), 6);
    for t in details {
        for row in &t.rows {
            let means: Vec<f64> = judge_metrics()
                .iter()
                .filter_map(|m| mean(&row[col(t, m, None)]))
                .collect();
            assert_eq!(means.len(), 6, "every metric scored: {row:?}");
            let want = means.iter().sum::<f64>() / 6.0;
            let overall = number(&row[col(t, "overall", None)]).expect("defined");
            assert!((overall - want).abs() < 1e-9, "{row:?}");
        }
    }
    // Table 5: GI-R per retrieval embedder, judged.
    let t5 = table(&r, "gem", "retrieval-ablation");
    let variants: Vec<(String, String)> = t5
        .rows
        .iter()
        .map(|row| (text(&row[1]), text(&row[2])))
        .collect();
    assert_eq!(
        variants,
        [
            ("gi-r".to_string(), "emb".to_string()),
            ("gi-r emb-b".to_string(), "emb-b".to_string())
        ]
    );
    assert!(t5
        .rows
        .iter()
        .all(|row| number(&row[col(t5, "overall", None)]).is_some()));
    // Cost from Output.meta.calls: every response has calls, GI-R's
    // include the ad-free answer, and Overall = 0.25·ITTFT + OTTFT (the
    // sweep's cost_input_ratio).
    let cost = table(&r, "gem", "cost");
    assert_eq!(cost.rows.len(), 3, "{:?}", cost.rows);
    for row in &cost.rows {
        assert_eq!(
            number(&row[col(cost, "responses", None)]),
            Some(2.0),
            "{row:?}"
        );
        let i = number(&row[col(cost, "ittft", None)]).expect("ITTFT");
        let o = number(&row[col(cost, "ottft", None)]).expect("OTTFT");
        assert!(i > 0.0 && o > 0.0, "{row:?}");
        let overall = number(&row[col(cost, "overall", None)]).expect("Overall");
        assert!((overall - (0.25 * i + o)).abs() < 1e-9, "{row:?}");
        assert!(number(&row[col(cost, "usd-per-response", None)]).expect("USD") > 0.0);
    }
    let cost_of = |s: &str| {
        cost.rows
            .iter()
            .find(|row| text(&row[1]) == s)
            .and_then(|row| number(&row[col(cost, "ittft", None)]))
    };
    assert!(cost_of("gi-r") >= cost_of("no-ads"), "{:?}", cost.rows);
    // Agreement: one pair, over the six metrics of 6 responses.
    let agreement = table(&r, "gem", "agreement");
    assert_eq!(agreement.rows.len(), 1);
    let a = &agreement.rows[0];
    assert_eq!(
        (text(&a[0]), text(&a[1])),
        ("judge-a".into(), "judge-b".into())
    );
    let paired = number(&a[col(agreement, "paired", None)]).expect("paired");
    assert!(paired > 0.0 && paired <= 36.0, "{a:?}");
    // The metric-embedder re-scoring: 6 responses scored by both
    // embedders, one job each.
    assert_eq!(r.jobs["embed-metrics"].planned, 12, "{:?}", r.jobs);
    let embedding_models: Vec<&str> = r
        .usage
        .iter()
        .filter(|u| u.role == Role::Embedding)
        .map(|u| u.model.as_str())
        .collect();
    assert!(embedding_models.contains(&"fake-emb-2"), "{:?}", r.usage);
    let ab = table(&r, "gem", "metric-embedders");
    let embedders = scorers(ab);
    assert_eq!(embedders, ["emb", "emb-b"]);
    assert_eq!(solutions(ab), ["gi-r", "gi-r emb-b", "no-ads"]);
    let metrics = [
        "response-flow",
        "response-coherence",
        "ad-flow",
        "ad-coherence",
    ];
    let mut differ = false;
    for row in &ab.rows {
        for e in &embedders {
            let rf = estimate(&row[col(ab, "response-flow", Some(e))]);
            assert_eq!(rf.n + rf.unscored, 2, "{e} {row:?}");
            for m in metrics {
                let mean = mean(&row[col(ab, m, Some(e))]);
                assert!(mean.is_none_or(f64::is_finite), "{e} {row:?}");
            }
        }
        for m in metrics {
            let (x, y) = (
                &row[col(ab, m, Some("emb"))],
                &row[col(ab, m, Some("emb-b"))],
            );
            if let (Some(Value::Estimate(x)), Some(Value::Estimate(y))) = (x, y) {
                differ |= x.mean.is_some() && y.mean.is_some() && x.mean != y.mean;
            }
        }
    }
    assert!(differ, "two embedding models give different scores: {ab:?}");
    let finite = |e: &str| {
        ab.rows
            .iter()
            .flat_map(|row| metrics.map(|m| row[col(ab, m, Some(e))].clone()))
            .filter(|v| mean(v).is_some_and(f64::is_finite))
            .count()
    };
    assert!(finite("emb") > 0 && finite("emb-b") > 0, "{ab:?}");
    // The primary's scores are Table 3's.
    assert_eq!(
        gir[col(eff, "response-flow", None)],
        ab.rows[0][col(ab, "response-flow", Some("emb"))]
    );

    let md = report("md").await;
    assert!(md.contains("## GEM-Bench: cost (Table 6)"), "{md}");
    assert!(
        md.contains("## GEM-Bench: retrieval-embedder ablation (Table 5)"),
        "{md}"
    );
    assert!(
        md.contains("## GEM-Bench: the responses re-scored by other metric embedders"),
        "{md}"
    );
    assert!(md.contains("## GEM-Bench: datasets"), "{md}");
    assert!(
        md.contains("| emb RF |") && md.contains("| emb-b AC |"),
        "{md}"
    );
    assert!(!md.contains("Judge emb-b"), "{md}");
    let html = report("html").await;
    assert!(html.contains("<svg id=\"gem-quality-cost\""));
    assert!(html.contains("<table id=\"gem-agreement\">"));
    assert!(html.contains("<table id=\"gem-metric-embedders\">"));
    assert!(html.contains("<table id=\"gem-retrieval-ablation\">"));
    assert_eq!(
        adfarm_coordinator::report::external_references(&html),
        Vec::<String>::new(),
        "the page fetches nothing"
    );
}

/// An empty generation is no response: every judge metric and embedding
/// metric of the no-ads control is unscored as `empty-response` in the
/// sweep's report, never scored as a (bad) answer.
#[tokio::test(flavor = "multi_thread")]
async fn an_empty_generation_is_unscored_as_empty_response_in_the_report() {
    let fake = Fake::clean().await;
    let base_url = fake.base_url();
    let mut sweep = String::from(
        "name = \"gem-empty\"\nseeds = [1]\njudges = [\"judge\"]\nembedder = \"emb\"\n\n\
         [[suites]]\nname = \"gem\"\ndatasets = [\"mt-human\"]\nlimit = 2\n\n\
         [[solutions]]\nname = \"no-ads\"\nprovider = \"gen\"\nmax_tokens = 64\n",
    );
    for (name, model) in [
        ("gen", adfarm_fake_llm::SILENT_MODEL),
        ("judge", "fake-judge-a"),
        ("emb", "fake-emb-1"),
    ] {
        sweep.push_str(&format!(
            "\n[[providers]]\nname = \"{name}\"\nkind = \"openai-compatible\"\nbase_url = \"{base_url}\"\n\
             model = \"{model}\"\nrequests_per_minute = 600000.0\nmax_concurrency = 16\ntimeout_secs = 10.0\n\
             input_usd_per_mtok = 1.0\noutput_usd_per_mtok = 2.0\n"
        ));
    }
    let run = GemRun::finish("gem-empty", &sweep).await;
    let r: Report = serde_json::from_str(&run.report("json").await).expect("a Report");
    crate::assert_complete(&r);
    let judged: Vec<_> = r
        .cells
        .iter()
        .filter(|c| {
            c.judge == "judge"
                || ["response-flow", "response-coherence"].contains(&c.metric.as_str())
        })
        .collect();
    assert!(
        judged.len() >= 8,
        "six judge metrics and the response metrics: {judged:?}"
    );
    for c in judged {
        assert_eq!(c.n, 0, "an empty response scores nothing: {c:?}");
        assert_eq!(c.unscored.get("empty-response"), Some(&2), "{c:?}");
    }
}
