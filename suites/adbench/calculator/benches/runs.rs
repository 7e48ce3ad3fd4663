//! What a calculator run costs and how fast the limits stop one: a snippet
//! interpreted in process, the same snippet through a fresh child process
//! (spawn + interpret + reply), an endless loop stopped by the CPU limit
//! (or the wall clock, whichever comes first), and a silent child killed
//! by the wall clock. Prints min / p50 / p99 / max wall time per run.
//! Run: `cargo bench -p adfarm-calculator --bench runs` (add `-- quick`
//! to skip the two limit rows, which take seconds per run).

use std::time::{Duration, Instant};

use adfarm_calculator::{evaluate, Calculator, ErrorKind, Reply, Request, WALL_SECONDS};

/// A typical agent snippet: a generator sum and a formatted float.
const SNIPPET: &str = "xs = [3, 4]\nprint(sum(x * x for x in xs) ** 0.5, f'{2/3:.3f}')";
const SNIPPET_OUTPUT: &str = "5.0 0.667\n";

fn request(code: &str) -> Request {
    Request {
        code: code.to_string(),
        variables: Vec::new(),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Times `runs` calls of `run`, each checked by `check`, and prints a row.
fn row(name: &str, runs: usize, run: impl Fn() -> Reply, check: impl Fn(&Reply)) {
    let mut wall = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let reply = run();
        wall.push(t.elapsed());
        check(&reply);
    }
    wall.sort();
    let [min, p50, p99, max] = [
        wall[0],
        percentile(&wall, 0.5),
        percentile(&wall, 0.99),
        wall[wall.len() - 1],
    ]
    .map(ms);
    println!("{name:<40} {runs:>5} {min:>9.3} {p50:>9.3} {p99:>9.3} {max:>9.3}");
}

fn answered(reply: &Reply) {
    assert_eq!(reply.error, None);
    assert_eq!(reply.output, SNIPPET_OUTPUT);
}

fn timed_out(reply: &Reply) {
    let kind = reply.error.as_ref().map(|e| e.kind);
    assert_eq!(kind, Some(ErrorKind::Timeout), "{reply:?}");
}

fn main() {
    let calc = Calculator::new(env!("CARGO_BIN_EXE_calculator-child"), Vec::<String>::new());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "machine: {} cores, load average {}\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split_whitespace().next().unwrap_or("?")
    );
    println!(
        "{:<40} {:>5} {:>9} {:>9} {:>9} {:>9}",
        "run (ms)", "runs", "min", "p50", "p99", "max"
    );
    let snippet = request(SNIPPET);
    row("in process", 2000, || evaluate(&snippet), answered);
    row(
        "child process (spawn + interpret)",
        100,
        || calc.run_request(&snippet),
        answered,
    );
    if std::env::args().any(|a| a == "quick") {
        return;
    }
    let endless = request("n = 0\nwhile True:\n    n += 1");
    row(
        "endless loop, stopped by the CPU limit",
        3,
        || calc.run_request(&endless),
        timed_out,
    );
    let sleeper = Calculator::new("/bin/sleep", [(WALL_SECONDS * 6).to_string()]);
    row(
        "silent child, killed at the wall clock",
        1,
        || sleeper.run_request(&snippet),
        timed_out,
    );
}
