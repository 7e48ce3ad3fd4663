//! Unbiasedness on a bandit with a known value: over R independent logs the
//! mean estimate of IPW, SNIPW, DR and SNDR lies within 3σ/√R of the truth
//! (σ: the estimates' standard deviation). DM with its misspecified reward
//! model must fail the same check, which shows the check has teeth.

use adfarm_adsbench::ope::{Estimator, OpeInput, SyntheticBandit};

/// Repetitions: enough that 3σ/√R is a tight bound (about 0.0023 here),
/// small enough for a debug-build test.
const R: usize = 1600;
/// Rounds per log.
const N: usize = 500;

struct Summary {
    bias: f64,
    bound: f64,
}

fn run(bandit: &SyntheticBandit, estimators: &[Estimator]) -> Vec<Summary> {
    let truth = bandit.true_value();
    let mut all = vec![Vec::with_capacity(R); estimators.len()];
    for rep in 0..R {
        let s = bandit.sample(N, 1_000 + rep as u64).expect("sample");
        let input =
            OpeInput::new(&s.log, &s.action_dist, Some(&s.estimated_rewards)).expect("input");
        for (est, out) in estimators.iter().zip(&mut all) {
            out.push(est.estimate(&input).expect("estimate"));
        }
    }
    all.iter()
        .map(|v| {
            let mean = v.iter().sum::<f64>() / R as f64;
            let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (R - 1) as f64;
            Summary {
                bias: mean - truth,
                bound: 3.0 * var.sqrt() / (R as f64).sqrt(),
            }
        })
        .collect()
}

#[test]
fn ipw_snipw_dr_sndr_are_unbiased_and_dm_is_not() {
    let bandit = SyntheticBandit::new(5, 4, 2024);
    let estimators = [
        Estimator::Ipw {
            clip: f64::INFINITY,
        },
        Estimator::SnIpw,
        Estimator::Dr {
            clip: f64::INFINITY,
        },
        Estimator::SnDr,
        Estimator::Dm,
    ];
    let got = run(&bandit, &estimators);
    println!(
        "true value {:.5} (logging policy {:.5})",
        bandit.true_value(),
        bandit.logging_value()
    );
    for (e, s) in estimators.iter().zip(&got) {
        println!("{:<6} bias {:+.5}  3σ/√R {:.5}", e.name(), s.bias, s.bound);
    }
    for (e, s) in estimators.iter().zip(&got).take(4) {
        assert!(
            s.bias.abs() < s.bound,
            "{e}: |bias| {} >= 3σ/√R {}",
            s.bias.abs(),
            s.bound
        );
    }
    let dm = &got[4];
    assert!(
        dm.bias.abs() > dm.bound,
        "dm with a biased reward model should be detected: bias {} bound {}",
        dm.bias,
        dm.bound
    );
}
