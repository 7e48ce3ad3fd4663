//! A budget below the estimate stops the spending, and the report says so.

use crate::{figure, Fake, Farm, SweepFile, GEN_PRICE, JUDGE_MAX_TOKENS, JUDGE_PRICE};
use std::time::Duration;

/// Upper bound of the words of one judge prompt of the synthetic suite:
/// instructions and question (well under 40 words) plus an answer of at
/// most `max_tokens` words (the fake counts words as tokens).
fn judge_input_bound(max_tokens: u32) -> f64 {
    f64::from(40 + max_tokens)
}

/// Reads "estimated cost: X USD" from `adfarm plan`.
fn plan_estimate(stdout: &str) -> f64 {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("estimated cost:"))
        .unwrap_or_else(|| panic!("no estimate in:\n{stdout}"));
    line.split_whitespace()
        .nth(2)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("unreadable estimate: {line}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_below_the_estimate_stops_spending() {
    const WORKERS: u16 = 3;
    const CONCURRENCY: u16 = 16;
    let fake = Fake::clean().await;
    let mut farm = Farm::new("budget");
    let spec = SweepFile {
        budget_usd: Some(0.05),
        ..SweepFile::synthetic("e2e-budget", 400)
    };
    let budget = spec.budget_usd.expect("set above");
    let sweep = farm.sweep("sweep.toml", &spec, &fake);

    let (status, stdout, stderr) = farm.plan(&sweep).await;
    assert!(status.success(), "{stderr}");
    let estimate = plan_estimate(&stdout);
    assert!(budget < estimate, "budget {budget} vs estimate {estimate}");
    assert!(stdout.contains("is below the estimate"), "{stdout}");

    farm.start_workers(usize::from(WORKERS), CONCURRENCY).await;
    let wall = farm.coordinate(&sweep, Duration::from_secs(60)).await;
    let report = farm.report_cluster(&sweep).await;

    assert!(report.stopped_by_budget, "{report:#?}");
    assert_eq!(report.budget_usd, Some(budget));
    for (kind, c) in &report.jobs {
        assert_eq!(c.completed + c.skipped, c.planned, "{kind}: {c:?}");
        assert_eq!(c.failed, 0, "{kind}: {c:?}");
    }
    let skipped: i64 = report.jobs.values().map(|c| c.skipped).sum();
    assert!(skipped > 0);
    assert!(
        report.dead_letters.is_empty(),
        "budget skips are not dead letters"
    );

    // Calls that can be in flight when the budget is reached: every job
    // slot of every worker (one call at a time per job), each at most the
    // dearest call of the sweep.
    let per_call = |price: (f64, f64), input: f64, output: u32| {
        (input * price.0 + f64::from(output) * price.1) / 1e6
    };
    let dearest = per_call(
        JUDGE_PRICE,
        judge_input_bound(spec.max_tokens),
        JUDGE_MAX_TOKENS,
    )
    .max(per_call(GEN_PRICE, 40.0, spec.max_tokens));
    let in_flight = f64::from(WORKERS) * f64::from(CONCURRENCY) * report.jobs.len() as f64;
    let overshoot = report.cost_usd - budget;
    assert!(
        report.cost_usd >= budget,
        "spent {} of {budget}",
        report.cost_usd
    );
    assert!(
        overshoot <= in_flight * dearest,
        "overshoot {overshoot} USD > {in_flight} calls in flight × {dearest} USD"
    );
    // Usage rows bill what the ledger says was spent.
    let billed: f64 = report.usage.iter().map(|u| u.cost_usd).sum();
    assert!(
        (billed - report.cost_usd).abs() < 1e-6,
        "{billed} vs {}",
        report.cost_usd
    );

    figure(
        "budget",
        format_args!(
            "estimate {estimate:.4} USD, budget {budget} USD, spent {:.6} USD (overshoot {overshoot:.6} USD, \
             bound {:.4} = {in_flight} calls × {dearest:.6}); {skipped} jobs skipped; {:.1} s",
            report.cost_usd,
            in_flight * dearest,
            wall.as_secs_f64()
        ),
    );
}
