//! Stopping on a signal, the same for `run`, `coordinator` and `worker`:
//! the first SIGTERM or SIGINT fires the shutdown token (loops stop taking
//! work, jobs in flight have the grace to settle, then the command ends
//! unfinished); a second signal, or the grace plus a short margin going by
//! with the command still running, ends the process at once with exit 3.
//!
//! Ending at once is safe: a result is stored in one atomic step and acked
//! only after, so what was not settled is delivered again (RabbitMQ) or
//! resumed by the next run (embedded), exactly as after a crash.

use crate::exit::Exit;
use std::time::Duration;
use tokio::signal::unix::{signal, SignalKind};
use tokio_util::sync::CancellationToken;

/// Time past the grace for the work after draining (the report, closing
/// connections) before the process ends regardless. The chart's pod
/// grace period leaves more than this past the process's grace.
const AFTER_GRACE: Duration = Duration::from_secs(5);

/// Listens for SIGTERM and SIGINT; the returned token fires on the first.
pub fn on_signals(grace: Duration) -> CancellationToken {
    let token = CancellationToken::new();
    let first = token.clone();
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler installs");
    let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler installs");
    tokio::spawn(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        eprintln!(
            "stopping: jobs in flight have {} s to settle (a second signal stops at once)",
            grace.as_secs_f64()
        );
        first.cancel();
        tokio::select! {
            _ = term.recv() => eprintln!("stopping now: second signal"),
            _ = int.recv() => eprintln!("stopping now: second signal"),
            _ = tokio::time::sleep(grace + AFTER_GRACE) => {
                eprintln!("stopping now: still running {} s after the grace", AFTER_GRACE.as_secs());
            }
        }
        std::process::exit(Exit::Unfinished.code().into());
    });
    token
}
