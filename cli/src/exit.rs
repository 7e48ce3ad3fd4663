//! The exit codes of `adfarm` (documented in the README, "Failure and
//! recovery"): scripts and CI read them, so a sweep whose jobs all failed
//! never exits 0.

use adfarm_coordinator::Progress;
use std::process::ExitCode;

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: done; for a sweep, every planned job completed (or was skipped
    /// by the budget, which the summary line says).
    Completed,
    /// 1: the sweep finished but some jobs failed or were dead-lettered,
    /// or the command failed.
    Failed,
    /// 2: bad input (arguments, sweep file, plan): refused before anything ran.
    BadInput,
    /// 3: stopped before the end (signal, store or broker lost): run the
    /// same command again to resume.
    Unfinished,
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Completed => 0,
            Exit::Failed => 1,
            Exit::BadInput => 2,
            Exit::Unfinished => 3,
        }
    }

    /// How a followed sweep ended.
    pub fn of_sweep(p: &Progress) -> Exit {
        if !p.finished() {
            Exit::Unfinished
        } else if p.tally.failed.values().sum::<i64>() > 0 {
            Exit::Failed
        } else {
            Exit::Completed
        }
    }

    /// The one summary line printed at the end of a sweep.
    pub fn summary(self, name: &str, p: &Progress) -> String {
        let completed: i64 = p.tally.completed.values().sum();
        let failed: i64 = p.tally.failed.values().sum();
        let skipped: i64 = p.tally.skipped.values().sum();
        let (settled, planned) = p.totals();
        let why = match self {
            Exit::Completed if skipped > 0 => "done; the budget stopped the rest",
            Exit::Completed => "done",
            Exit::Failed => "some jobs failed: the report's Failures section says why",
            Exit::BadInput => "bad input",
            Exit::Unfinished => "unfinished: run the same command again to resume",
        };
        format!(
            "sweep {name}: {settled}/{planned} jobs settled ({completed} completed, {failed} failed, \
             {skipped} skipped), {:.4} USD; exit {} ({why})",
            p.tally.spend_usd(),
            self.code()
        )
    }

    /// The exit code of an error, by what it is: bad input, or a lost
    /// store or broker (resumable), or anything else.
    pub fn of_error(e: &anyhow::Error) -> Exit {
        use adfarm_coordinator::coordinate::CoordinateError;
        for cause in e.chain() {
            match cause.downcast_ref::<CoordinateError>() {
                Some(CoordinateError::Plan(_)) => return Exit::BadInput,
                Some(
                    CoordinateError::Store(_)
                    | CoordinateError::Queue(_)
                    | CoordinateError::Stopped,
                ) => return Exit::Unfinished,
                None => {}
            }
            // A suite command refusing its arguments or input files
            // (a check of a broken file) is bad input too.
            if let Some(adfarm_suites::CommandError::Input(_)) = cause.downcast_ref() {
                return Exit::BadInput;
            }
            if cause.is::<adfarm_coordinator::sweep_file::SweepFileError>()
                || cause.is::<adfarm_coordinator::plan::PlanError>()
                || cause.is::<BadInput>()
                || cause.is::<adfarm_coordinator::leaderboard::ConfigError>()
                || cause.is::<adfarm_coordinator::leaderboard::LeaderboardError>()
            {
                return Exit::BadInput;
            }
            if cause.is::<adfarm_backbone::StoreError>()
                || cause.is::<adfarm_backbone::QueueError>()
            {
                return Exit::Unfinished;
            }
        }
        Exit::Failed
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e.code())
    }
}

/// Input refused by a command itself (not the sweep file's parser).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suite_command_refusing_its_input_exits_2_and_other_failures_1() {
        let input = anyhow::Error::from(adfarm_suites::CommandError::Input("bad task".into()));
        assert_eq!(Exit::of_error(&input), Exit::BadInput);
        assert_eq!(
            Exit::of_error(&input.context("a suite command")),
            Exit::BadInput
        );
        assert_eq!(Exit::of_error(&anyhow::anyhow!("other")), Exit::Failed);
    }
}
