//! `adfarm adbench replay --task ID --date D`: a task's reference
//! trajectory replayed on the world at D, step by step: each call with its
//! templates resolved, what it returned, and the answer read from it. What
//! an agent's episode on that task and date is graded against.
//!
//! `adfarm adbench check DIR`: a folder of task files a user wrote, each
//! loaded, checked and replayed on the dates the shipped tasks are checked
//! on (D0, D0+9 across a month end, D0+45 across a rule change); every
//! problem printed `file:line: field: message`, and bad input (exit 2)
//! when there is any.

use std::path::{Path, PathBuf};

use clap::{Arg, ArgMatches, Command};

use crate::replay::{reference_platform, replay};
use crate::tasks::{self, folder, reference_day, Split};
use crate::world::{Day, DEFAULT_HOUR};
use adfarm_suite::CommandError;

/// Characters of each observation shown (as an agent would see it).
const SHOWN_CHARS: usize = 6000;

/// The `adfarm adbench` command.
pub fn command() -> Command {
    Command::new(super::SUITE)
        .about("AD-Bench tools")
        .subcommand_required(true)
        .subcommand(
            Command::new("replay")
                .about("Replay a task's reference trajectory on a date, step by step")
                .arg(
                    Arg::new("task")
                        .long("task")
                        .required(true)
                        .help("Task id, e.g. L2-014"),
                )
                .arg(
                    Arg::new("date")
                        .long("date")
                        .help("World date D, YYYY-MM-DD (default: the reference day D0)"),
                )
                .arg(
                    Arg::new("hour")
                        .long("hour")
                        .value_parser(clap::value_parser!(u8).range(0..=23))
                        .help("Data on D covers the hours before this one (default 12)"),
                )
                .arg(
                    Arg::new("split")
                        .long("split")
                        .value_parser(["public", "holdout"])
                        .default_value("public"),
                ),
        )
        .subcommand(
            Command::new("check")
                .about("Load, check and replay every task file in a folder; exit 2 on any problem")
                .arg(
                    Arg::new("dir")
                        .required(true)
                        .value_parser(clap::value_parser!(PathBuf))
                        .help("Folder of task files (*.toml)"),
                )
                .arg(
                    Arg::new("split")
                        .long("split")
                        .value_parser(["public", "holdout"])
                        .default_value("public")
                        .help("The world the tasks run on"),
                ),
        )
}

/// The shift in days from D0 of each date a task is replayed on.
pub const CHECK_SHIFTS: [i32; 3] = [0, 9, 45];

fn split_of(m: &ArgMatches) -> Split {
    match m.get_one::<String>("split").map(String::as_str) {
        Some("holdout") => Split::Holdout,
        _ => Split::Public,
    }
}

/// `adfarm adbench check DIR`: what it prints when every task in `dir`
/// loads, passes its checks and replays on D0, D0+9 and D0+45 on `split`'s
/// world.
///
/// # Errors
/// [`CommandError::Input`] listing every problem, `file:line: field:
/// message`, one a line.
pub fn check(dir: &Path, split: Split) -> Result<String, CommandError> {
    let dates: Vec<_> = CHECK_SHIFTS
        .iter()
        .map(|&s| reference_day().plus(s))
        .collect();
    let found = folder::inspect(dir, split, &dates, DEFAULT_HOUR);
    let on = dates
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if found.problems.is_empty() {
        return Ok(format!(
            "{}: {} tasks load, pass their checks and replay on {on} ({} world)\n",
            dir.display(),
            found.tasks.len(),
            split.dir_name()
        ));
    }
    let lines: Vec<String> = found.problems.iter().map(ToString::to_string).collect();
    Err(CommandError::Input(format!(
        "{} problem(s) in {} ({} tasks fine):\n{}",
        lines.len(),
        dir.display(),
        found.tasks.len(),
        lines.join("\n")
    )))
}

/// Runs `adfarm adbench replay` or `check`, returning what it prints.
///
/// # Errors
/// An unknown task or date, a reference that does not replay, or a folder
/// with problems.
pub fn run(matches: &ArgMatches) -> Result<String, CommandError> {
    let m = match matches.subcommand() {
        Some(("replay", m)) => m,
        Some(("check", m)) => {
            let dir = m.get_one::<PathBuf>("dir").expect("required");
            return check(dir, split_of(m));
        }
        _ => {
            return Err(CommandError::Input(format!(
                "adbench has no command {:?}",
                matches.subcommand_name().unwrap_or_default()
            )))
        }
    };
    let split = split_of(m);
    let id = m.get_one::<String>("task").expect("required");
    let date = match m.get_one::<String>("date") {
        None => reference_day(),
        Some(d) => Day::parse(d)
            .ok_or_else(|| CommandError::Input(format!("--date {d:?} is not YYYY-MM-DD")))?,
    };
    let hour = m.get_one::<u8>("hour").copied().unwrap_or(DEFAULT_HOUR);
    let task = tasks::shipped(split)
        .map_err(|e| CommandError::Input(e.to_string()))?
        .into_iter()
        .find(|t| &t.id == id)
        .ok_or_else(|| {
            CommandError::Input(format!("the {} split has no task {id:?}", split.dir_name()))
        })?;
    let platform = reference_platform(split.seed(), date, hour)
        .map_err(|e| CommandError::Input(format!("--date: {e}")))?;
    let r = replay(&task, &platform).map_err(|e| CommandError::Input(e.to_string()))?;
    let mut out = format!(
        "{} ({:?}, {} split) on {date} at {hour:02}:00\n{}\n",
        task.id,
        task.tier,
        split.dir_name(),
        task.question
    );
    for ((step, call), obs) in task.steps.iter().zip(&r.calls).zip(&r.observations) {
        out.push_str(&format!(
            "\n{} {}({})\n  -> {}{}\n",
            step.id,
            call.tool,
            call.args,
            obs.result_id
                .as_deref()
                .map(|id| format!("{id}: "))
                .unwrap_or_default(),
            obs.cut(SHOWN_CHARS).replace('\n', "\n     ")
        ));
    }
    out.push_str(&format!(
        "\noutcome: {:?}\nanswer: {}\n",
        r.outcome,
        match &r.answer {
            Some(a) => serde_json::to_string(a).expect("an answer serialises"),
            None => "none (the task expects Unresolved)".into(),
        }
    ));
    Ok(out)
}
