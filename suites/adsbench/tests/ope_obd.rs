//! The classic experiment on the Open Bandit Dataset sample: Bernoulli TS's
//! value estimated from the random policy's logs (campaign `all`), compared
//! with the on-policy value of the BTS logs. Our estimates must equal obp's
//! on the same rows to 1e-9 relative; the relative-error table is printed.
//!
//! The bootstrap uses the default 10,000 resamples in a release build
//! (`cargo test --release -p adfarm-adsbench --test ope_obd -- --nocapture`
//! prints the table for reports) and 1,000 in a debug build, where 10,000
//! resamples of 10,000 rounds take half a minute.
//!
//! Reads the pinned asset under `$ADFARM_HOME/assets/obp-0.5.7` (default
//! home `~/.cache/adfarm`); when it is missing the test fails with the
//! commands that fetch it.

use adfarm_adsbench::ope::obd::{self, LoggingPolicy};
use adfarm_adsbench::ope::{
    dr_beats_baseline, relative_errors, table, ActionTable, Estimator, OpeInput, Resamples,
    DEFAULT_ALPHA, DEFAULT_RESAMPLES,
};
use serde_json::Value;
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

/// obp's cross-fitted logistic-regression q̂, from the fixture's factors:
/// `q̂(i, a, p) = σ(context_logit[context_of_row[i]][p] + action_logit[fold[i]][p][a])`.
fn reward_model(f: &Value, n: usize, k: usize, l: usize) -> ActionTable {
    let fold = indices(&f["fold_of_row"]);
    let ctx = indices(&f["context_of_row"]);
    let context_logit = floats(&f["context_logit"]);
    let action_logit = floats(&f["action_logit"]);
    assert_eq!((fold.len(), ctx.len()), (n, n));
    let mut q = Vec::with_capacity(n * k * l);
    for i in 0..n {
        for a in 0..k {
            for p in 0..l {
                let z = context_logit[ctx[i] * l + p] + action_logit[(fold[i] * l + p) * k + a];
                q.push(1.0 / (1.0 + (-z).exp()));
            }
        }
    }
    ActionTable::new("estimated_rewards", n, k, l, q).expect("q̂")
}

#[test]
fn bts_from_random_logs_matches_obp() {
    let home = home();
    let load = |p| obd::load(&home, p).unwrap_or_else(|e| panic!("{e}"));
    let random = load(LoggingPolicy::Random);
    let bts = load(LoggingPolicy::Bts);

    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/obp/obd_random_all_bts.json");
    let f: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture"))
        .expect("fixture json");
    let n = f["n_rounds"].as_u64().unwrap() as usize;
    let k = f["n_actions"].as_u64().unwrap() as usize;
    let l = f["len_list"].as_u64().unwrap() as usize;
    assert_eq!(
        (random.log.n_rounds(), random.n_actions, random.len_list),
        (n, k, l)
    );
    // obp's rows are the file's rows in timestamp order, which is file order.
    assert!(
        random.row.iter().copied().eq(0..n),
        "rows out of obp's order"
    );

    let pi = ActionTable::tiled("action_dist", n, k, l, &floats(&f["bts_action_dist"]))
        .expect("action_dist");
    let q = reward_model(&f, n, k, l);
    let input = OpeInput::new(&random.log, &pi, Some(&q)).expect("input");

    let on_policy = bts.log.mean_reward();
    let obp_on_policy = f["on_policy_value"].as_f64().unwrap();
    assert!((on_policy - obp_on_policy).abs() <= 1e-12 * obp_on_policy);

    let mut worst = 0.0f64;
    for est in Estimator::ALL {
        let ours = est.estimate(&input).expect("estimate");
        let obp = f["estimates"][est.name()].as_f64().expect("obp estimate");
        let gap = (ours - obp).abs() / obp.abs();
        assert!(gap <= 1e-9, "{est}: ours {ours}, obp {obp}");
        worst = worst.max(gap);
    }

    let count = if cfg!(debug_assertions) {
        1_000
    } else {
        DEFAULT_RESAMPLES
    };
    let rows = relative_errors(
        &input,
        &Estimator::ALL,
        on_policy,
        &Resamples::Seeded { count, seed: 12345 },
        DEFAULT_ALPHA,
    )
    .expect("experiment");
    let dr = rows
        .iter()
        .find(|r| r.estimator.name() == "dr")
        .expect("dr row");
    let baseline = random.log.mean_reward();
    let gate = dr_beats_baseline(&dr.interval, baseline).expect("gate");
    println!("OBD (campaign all): BTS estimated from {n} random-policy rounds, {count} resamples");
    print!("{}", table(&rows, on_policy, DEFAULT_ALPHA));
    println!("largest relative gap to obp: {worst:.1e}");
    println!(
        "gate (DR lower bound {:.6} vs random policy's value {:.6}): {}",
        gate.dr_lower,
        gate.baseline,
        if gate.passed { "pass" } else { "fail" }
    );
}
