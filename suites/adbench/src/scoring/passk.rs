//! Pass@k and pass^k over n runs per task (Chen et al. 2021; Yao et al.
//! 2024): with c correct runs of n, Pass@k = 1 − C(n−c,k)/C(n,k) (at least
//! one of k draws correct) and pass^k = C(c,k)/C(n,k) (all k correct),
//! each averaged over tasks. Pass@1 is the mean correctness.

/// C(n, k) as a float; exact for the run counts used here (n ≤ 64).
pub fn binomial(n: u32, k: u32) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
}

/// Per task: (runs n, correct c).
pub type Counts = (u32, u32);

fn mean(tasks: &[Counts], f: impl Fn(u32, u32) -> f64) -> f64 {
    if tasks.is_empty() {
        return 0.0;
    }
    tasks.iter().map(|&(n, c)| f(n, c)).sum::<f64>() / tasks.len() as f64
}

/// Mean correctness over all runs of each task, averaged over tasks.
pub fn pass_at_1(tasks: &[Counts]) -> f64 {
    mean(tasks, |n, c| {
        if n == 0 {
            0.0
        } else {
            f64::from(c) / f64::from(n)
        }
    })
}

/// Pass@k, for k ≤ n of every task.
pub fn pass_at_k(tasks: &[Counts], k: u32) -> f64 {
    mean(tasks, |n, c| 1.0 - binomial(n - c, k) / binomial(n, k))
}

/// pass^k, for k ≤ n of every task.
pub fn pass_hat_k(tasks: &[Counts], k: u32) -> f64 {
    mean(tasks, |n, c| binomial(c, k) / binomial(n, k))
}

/// Pass@k and pass^k for k = 1..=n (n the fewest runs of any task).
pub fn curves(tasks: &[Counts]) -> Vec<(u32, f64, f64)> {
    let n = tasks.iter().map(|t| t.0).min().unwrap_or(0);
    (1..=n)
        .map(|k| (k, pass_at_k(tasks, k), pass_hat_k(tasks, k)))
        .collect()
}
