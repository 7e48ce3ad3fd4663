//! Time of one off-policy estimate at n = 10,000 logged rounds (the issue's
//! budget: 0.1 ms; obp 0.5.7's DR takes about 2.5 ms at K = 10), for each
//! estimator, on two shapes: 10 actions in one slot, and OBD's 80 items in
//! 3 positions. An estimate runs on a prepared [`OpeInput`]; preparing it
//! (checking the tables and reducing them to per-round terms, once per log)
//! is timed separately, and so is a 10,000-resample bootstrap.
//! `tools/obp-fixtures/time_obp.py` times obp on the same shapes.
//!
//! Run: `cargo bench -p adfarm-adsbench --bench ope`.

use adfarm_adsbench::ope::{
    resample_means, ActionTable, Estimator, LoggedBandit, OpeInput, Resamples, SplitMix64,
};
use std::hint::black_box;
use std::time::Instant;

const N: usize = 10_000;

/// A random log and policy tables of the given shape.
fn shape(n_actions: usize, len_list: usize) -> (LoggedBandit, ActionTable, ActionTable) {
    let mut rng = SplitMix64::new(42);
    let mut log = LoggedBandit::default();
    let mut pi = Vec::with_capacity(N * n_actions * len_list);
    let mut q = Vec::with_capacity(N * n_actions * len_list);
    for _ in 0..N {
        let weights: Vec<f64> = (0..n_actions * len_list)
            .map(|_| 0.1 + rng.next_f64())
            .collect();
        for a in 0..n_actions {
            for p in 0..len_list {
                let col: f64 = (0..n_actions).map(|b| weights[b * len_list + p]).sum();
                pi.push(weights[a * len_list + p] / col);
                q.push(rng.next_f64());
            }
        }
        log.action.push(rng.below(n_actions));
        log.position.push(rng.below(len_list));
        log.reward.push(f64::from(u8::from(rng.next_f64() < 0.3)));
        log.pscore.push(1.0 / n_actions as f64);
    }
    let pi = ActionTable::new("action_dist", N, n_actions, len_list, pi).expect("pi");
    let q = ActionTable::new("estimated_rewards", N, n_actions, len_list, q).expect("q");
    (log, pi, q)
}

/// Median of `runs` timings of `f`, in microseconds.
fn time_us(runs: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..runs.div_ceil(10) {
        f();
    }
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn main() {
    println!("median time per call at n = {N} rounds (µs)");
    for (k, l) in [(10, 1), (80, 3)] {
        let (log, pi, q) = shape(k, l);
        let check = time_us(50, || {
            black_box(OpeInput::new(&log, &pi, Some(&q)).expect("input"));
        });
        let input = OpeInput::new(&log, &pi, Some(&q)).expect("input");
        println!("K = {k}, positions = {l}: prepare input (check + per-round terms) {check:.1}");
        let clipped = [Estimator::Ipw { clip: 10.0 }, Estimator::Dr { clip: 10.0 }];
        for e in Estimator::ALL.iter().chain(&clipped) {
            let us = time_us(500, || {
                black_box(e.estimate(black_box(&input)).expect("estimate"));
            });
            let verdict = if us <= 100.0 { "ok" } else { "OVER 100 µs" };
            println!("  {:<14} {us:>8.1}  {verdict}", e.to_string());
        }
        let rounds = Estimator::Dr {
            clip: f64::INFINITY,
        }
        .round_rewards(&input)
        .expect("rounds");
        let boot = time_us(3, || {
            black_box(resample_means(&[&rounds], &Resamples::seeded(7)).expect("bootstrap"));
        });
        println!(
            "  bootstrap (10,000 resamples of one estimator) {:.1} ms",
            boot / 1e3
        );
    }
}
