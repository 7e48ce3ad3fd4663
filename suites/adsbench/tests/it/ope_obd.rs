//! The classic experiment on the Open Bandit Dataset sample: Bernoulli TS's
//! value estimated from the random policy's logs (campaign `all`), compared
//! with the on-policy value of the BTS logs. Our estimates must equal obp's
//! on the same rows to 1e-9 relative; the relative-error table is printed,
//! and is the suite's report section.
//!
//! The bootstrap uses the default 10,000 resamples in a release build
//! (`cargo test --release -p adfarm-adsbench --test ope_obd -- --nocapture`
//! prints the table for reports) and 1,000 in a debug build, where 10,000
//! resamples of 10,000 rounds take half a minute.
//!
//! Reads the pinned asset under `$ADFARM_HOME/assets/obp-0.5.7` (default
//! home `~/.cache/adfarm`); when it is missing the test fails with the
//! commands that fetch it. obp's side (TS's action distribution, its
//! reward model, its estimates) is the dump the crate embeds.

use adfarm_adsbench::ope::classic::{self, ObpReference};
use adfarm_adsbench::ope::obd::{self, LoggingPolicy};
use adfarm_adsbench::ope::{table, Estimator, OpeInput, DEFAULT_ALPHA, DEFAULT_RESAMPLES};
use adfarm_adsbench::suite::{OPE_OBD, SUITE};
use adfarm_adsbench::AdsBench;
use adfarm_proto::report::Value as Cell;
use adfarm_proto::SweepSpec;
use adfarm_suite::{ReportInput, Suite, SuiteContext};
use std::path::PathBuf;

fn home() -> PathBuf {
    if let Some(h) = std::env::var_os("ADFARM_HOME") {
        return PathBuf::from(h);
    }
    // The asset machinery's default: the user's cache directory + adfarm.
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .expect("neither ADFARM_HOME nor HOME is set");
    cache.join("adfarm")
}

#[test]
fn bts_from_random_logs_matches_obp() {
    let assets = home().join("assets");
    let random = obd::load(&assets, LoggingPolicy::Random).unwrap_or_else(|e| panic!("{e}"));
    let bts = obd::load(&assets, LoggingPolicy::Bts).unwrap_or_else(|e| panic!("{e}"));
    let obp = ObpReference::embedded();
    let (n, k, l) = (obp.n_rounds, obp.n_actions, obp.len_list);
    assert_eq!(
        (random.log.n_rounds(), random.n_actions, random.len_list),
        (n, k, l)
    );
    // obp's rows are the file's rows in timestamp order, which is file order.
    assert!(
        random.row.iter().copied().eq(0..n),
        "rows out of obp's order"
    );
    let on_policy = bts.log.mean_reward();
    assert!((on_policy - obp.on_policy_value).abs() <= 1e-12 * obp.on_policy_value);

    let pi = obp.action_dist().expect("action_dist");
    let q = obp.reward_model().expect("q̂");
    let input = OpeInput::new(&random.log, &pi, Some(&q)).expect("input");
    for est in Estimator::ALL {
        let ours = est.estimate(&input).expect("estimate");
        let theirs = obp.estimates[est.name()];
        assert!(
            (ours - theirs).abs() <= 1e-9 * theirs.abs(),
            "{est}: ours {ours}, obp {theirs}"
        );
    }

    let count = if cfg!(debug_assertions) {
        1_000
    } else {
        DEFAULT_RESAMPLES
    };
    let c = classic::run(&assets, count).expect("the experiment");
    assert!(c.largest_gap_to_obp <= 1e-9, "{}", c.largest_gap_to_obp);
    assert_eq!((c.rounds, c.on_policy), (n, on_policy));
    for r in &c.rows {
        assert_eq!(r.estimate, r.estimator.estimate(&input).expect("estimate"));
    }
    assert_eq!(c.gate.baseline, random.log.mean_reward());
    println!("OBD (campaign all): BTS estimated from {n} random-policy rounds, {count} resamples");
    print!("{}", table(&c.rows, on_policy, DEFAULT_ALPHA));
    println!("largest relative gap to obp: {:.1e}", c.largest_gap_to_obp);
    println!(
        "gate (DR lower bound {:.6} vs random policy's value {:.6}): {}",
        c.gate.dr_lower,
        c.gate.baseline,
        if c.gate.passed { "pass" } else { "fail" }
    );
}

/// `adfarm report` of any Ads-Bench sweep carries the same table: the
/// suite's `ope-obd` section, computed from the asset the host fetched.
#[test]
fn the_report_has_the_relative_error_table() {
    let ctx = SuiteContext {
        assets_dir: home().join("assets"),
        cache_dir: None,
    };
    let spec: SweepSpec = serde_json::from_value(serde_json::json!({
        "name": "s",
        "seeds": [1],
        "suites": [{"name": SUITE, "datasets": ["scenarios"], "params": {}}],
        "solutions": [{"name": "pacing", "provider": "none"}],
        "providers": [],
    }))
    .expect("a sweep");
    let input = ReportInput {
        spec: &spec,
        suite: &spec.suites[0],
        cells: &[],
        results: &[],
    };
    let sections = AdsBench::new(&ctx).report(&input).expect("sections");
    let s = sections
        .iter()
        .find(|s| s.id == OPE_OBD)
        .expect("the OPE section");
    let t = &s.tables[0];
    let names: Vec<_> = t.rows.iter().map(|r| r[0].clone()).collect();
    let expected: Vec<_> = Estimator::ALL
        .iter()
        .map(|e| Some(Cell::Text(e.to_string())))
        .collect();
    assert_eq!(names, expected);
    // The estimates are the estimators' on the asset's rows (checked against
    // obp above); the intervals are 95% bootstrap intervals around them.
    let random = obd::load(&ctx.assets_dir, LoggingPolicy::Random).expect("the log");
    let on_policy = obd::load(&ctx.assets_dir, LoggingPolicy::Bts)
        .expect("the log")
        .log
        .mean_reward();
    let obp = ObpReference::embedded();
    let (pi, q) = (
        obp.action_dist().expect("pi"),
        obp.reward_model().expect("q"),
    );
    let ope = OpeInput::new(&random.log, &pi, Some(&q)).expect("input");
    for (row, est) in t.rows.iter().zip(Estimator::ALL) {
        let v: Vec<f64> = row[1..]
            .iter()
            .map(|v| match v {
                Some(Cell::Number(x)) => *x,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(v[0], est.estimate(&ope).expect("estimate"), "{row:?}");
        assert!(v[1] <= v[0] && v[0] <= v[2], "{row:?}");
        assert_eq!(v[3], (v[0] - on_policy).abs() / on_policy, "{row:?}");
        assert!(v[4] <= v[5] && v[4] >= 0.0, "{row:?}");
    }
    assert!(
        t.notes[0].contains(&format!("{DEFAULT_RESAMPLES} resamples")),
        "{:?}",
        t.notes
    );
    assert!(s.notes.iter().any(|n| n.contains("OPE gate")), "{s:?}");

    // Without the asset, the section says how to fetch it.
    let bare = AdsBench::new(&SuiteContext {
        assets_dir: "/nonexistent-adfarm-home/assets".into(),
        cache_dir: None,
    });
    let sections = bare.report(&input).expect("sections");
    assert!(sections[0].tables.is_empty());
    assert!(
        sections[0].notes[0].contains("pip download"),
        "{sections:?}"
    );
}
