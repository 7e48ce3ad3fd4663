//! Our estimators against obp 0.5.7 on the fixtures `tools/obp-fixtures`
//! generated: every estimate within 1e-9 relative, and the bootstrap
//! intervals on obp's own resample indices equal up to summation order.

use adfarm_adsbench::ope::{
    resample_means, summarise, ActionTable, Estimator, LoggedBandit, OpeInput, Resamples,
};
use serde_json::Value;
use std::path::PathBuf;

const CASES: [&str; 7] = [
    "uniform",
    "epsilon_greedy",
    "deterministic",
    "positions",
    "cubed_propensities",
    "deficient_support",
    "k1000",
];

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/obp")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn indices(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_u64().expect("index") as usize)
        .collect()
}

/// Decodes the script's three encodings of an `(n, K, L)` table: dense,
/// sparse `[i, a, l, value]` entries, or an outer product of per-round and
/// per-action factors (bit-identical: one correctly rounded product).
fn table(field: &'static str, v: &Value) -> ActionTable {
    let shape = indices(&v["shape"]);
    let (n, k, l) = (shape[0], shape[1], shape[2]);
    let values = if let Some(d) = v.get("dense") {
        floats(d)
    } else if let Some(s) = v.get("sparse") {
        let mut out = vec![0.0; n * k * l];
        for e in s.as_array().expect("entries") {
            let e = e.as_array().expect("entry");
            let at = |j: usize| e[j].as_u64().expect("index") as usize;
            out[(at(0) * k + at(1)) * l + at(2)] = e[3].as_f64().expect("value");
        }
        out
    } else {
        let rows = floats(&v["outer"]["rows"]);
        let actions = floats(&v["outer"]["actions"]);
        assert_eq!(l, 1, "outer products are single-slot");
        rows.iter()
            .flat_map(|r| actions.iter().map(move |a| r * a))
            .collect()
    };
    ActionTable::new(field, n, k, l, values).expect(field)
}

fn estimators(clip: f64) -> [(&'static str, Estimator); 7] {
    [
        (
            "ipw",
            Estimator::Ipw {
                clip: f64::INFINITY,
            },
        ),
        ("ipw_clipped", Estimator::Ipw { clip }),
        ("snipw", Estimator::SnIpw),
        ("dm", Estimator::Dm),
        (
            "dr",
            Estimator::Dr {
                clip: f64::INFINITY,
            },
        ),
        ("dr_clipped", Estimator::Dr { clip }),
        ("sndr", Estimator::SnDr),
    ]
}

fn relative_gap(ours: f64, obp: f64) -> f64 {
    if ours == obp {
        0.0
    } else {
        (ours - obp).abs() / obp.abs()
    }
}

#[test]
fn every_fixture_matches_obp() {
    let resamples = fixture("resample_indices");
    let rows: Vec<Vec<usize>> = resamples["indices"]
        .as_array()
        .expect("rows")
        .iter()
        .map(indices)
        .collect();
    let (mut worst_estimate, mut worst_interval) = (0.0f64, 0.0f64);
    for case in CASES {
        let f = fixture(case);
        let log = LoggedBandit {
            action: indices(&f["action"]),
            position: indices(&f["position"]),
            reward: floats(&f["reward"]),
            pscore: floats(&f["pscore"]),
        };
        let pi = table("action_dist", &f["action_dist"]);
        let q = table("estimated_rewards", &f["q_hat"]);
        let input = OpeInput::new(&log, &pi, Some(&q)).unwrap_or_else(|e| panic!("{case}: {e}"));
        let alpha = f["alpha"].as_f64().expect("alpha");
        for (name, est) in estimators(f["clip"].as_f64().expect("clip")) {
            let obp = f["estimates"][name].as_f64().expect("estimate");
            let ours = est.estimate(&input).unwrap();
            let gap = relative_gap(ours, obp);
            assert!(gap <= 1e-9, "{case}/{name}: ours {ours}, obp {obp}");
            worst_estimate = worst_estimate.max(gap);

            let rounds = est.round_rewards(&input).unwrap();
            let means = resample_means(&[&rounds], &Resamples::Given(&rows)).unwrap();
            let ci = summarise(means.into_iter().next().unwrap(), alpha);
            let want = &f["intervals"][name];
            for (what, ours, obp) in [
                ("mean", ci.mean, want["mean"].as_f64().unwrap()),
                ("lower", ci.lower, want["lower"].as_f64().unwrap()),
                ("upper", ci.upper, want["upper"].as_f64().unwrap()),
            ] {
                let gap = relative_gap(ours, obp);
                // numpy sums each resample pairwise, we sum in order: the
                // only difference is rounding.
                assert!(gap <= 1e-12, "{case}/{name} {what}: ours {ours}, obp {obp}");
                worst_interval = worst_interval.max(gap);
            }
        }
    }
    println!(
        "largest relative gap to obp: estimates {worst_estimate:.1e}, intervals {worst_interval:.1e}"
    );
}

#[test]
fn clipping_and_extreme_weights_change_the_answer() {
    // Guards the fixtures themselves: with cubed propensities some weights
    // far exceed the clip, and clipped and unclipped estimates differ, so
    // matching both means clipping is implemented, not bypassed.
    for case in ["cubed_propensities", "k1000"] {
        let f = fixture(case);
        let e = &f["estimates"];
        assert_ne!(e["ipw"].as_f64(), e["ipw_clipped"].as_f64(), "{case}");
        assert_ne!(e["dr"].as_f64(), e["dr_clipped"].as_f64(), "{case}");
        let pi = table("action_dist", &f["action_dist"]);
        let (action, position) = (indices(&f["action"]), indices(&f["position"]));
        let pscore = floats(&f["pscore"]);
        let largest = (0..pscore.len())
            .map(|i| pi.get(i, action[i], position[i]) / pscore[i])
            .fold(0.0, f64::max);
        let clip = f["clip"].as_f64().unwrap();
        assert!(largest > 4.0 * clip, "{case}: largest weight {largest}");
    }
}
