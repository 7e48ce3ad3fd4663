//! Pass@k and pass^k over n runs per task (Chen et al. 2021; Yao et al.
//! 2024), each the mean over tasks of the per-task estimate of
//! [`adfarm_suite::stats`]: Pass@k = 1 − C(n−c,k)/C(n,k) (at least one of
//! k draws correct) and pass^k = C(c,k)/C(n,k) (all k correct), with c
//! correct runs of n. Pass@1 is the mean correctness.

use adfarm_suite::stats;

pub use adfarm_suite::stats::binomial;

/// Per task: (runs n, correct c).
pub type Counts = (u32, u32);

/// The mean of `f(n, c)` over tasks; 0 without tasks.
fn mean(tasks: &[Counts], f: impl Fn(u64, u64) -> f64) -> f64 {
    stats::mean(tasks.iter().map(|&(n, c)| f(n.into(), c.into()))).unwrap_or(0.0)
}

/// Mean correctness over all runs of each task, averaged over tasks.
pub fn pass_at_1(tasks: &[Counts]) -> f64 {
    mean(tasks, |n, c| if n == 0 { 0.0 } else { c as f64 / n as f64 })
}

/// Pass@k, for k ≤ n of every task.
pub fn pass_at_k(tasks: &[Counts], k: u32) -> f64 {
    mean(tasks, |n, c| stats::pass_at_k(n, c, k.into()))
}

/// pass^k, for k ≤ n of every task.
pub fn pass_hat_k(tasks: &[Counts], k: u32) -> f64 {
    mean(tasks, |n, c| stats::pass_hat_k(n, c, k.into()))
}

/// Pass@k and pass^k for k = 1..=n (n the fewest runs of any task).
pub fn curves(tasks: &[Counts]) -> Vec<(u32, f64, f64)> {
    let n = tasks.iter().map(|t| t.0).min().unwrap_or(0);
    (1..=n)
        .map(|k| (k, pass_at_k(tasks, k), pass_hat_k(tasks, k)))
        .collect()
}
