//! `adfarm adsbench patch`: an episode's patch, read from the store a
//! sweep ran in, printed as JSON, and with `--replay` played again on the
//! episode's start state and checked against the stored episode.
//!
//! Episodes are named by their job id (or a prefix of it that names one);
//! without `--episode` the command lists the stored episodes with their
//! ids. Without `--sweep` it lists every sweep's episodes, and finds an
//! episode in the newest sweep that holds it.

use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::json;
use std::fmt::Write as _;

use super::assignment::Graded;
use super::patch::{replay, requests};
use super::AdsBench;
use adfarm_proto::{JobResult, SOLVE};
use adfarm_suite::{CommandError, StoredSweep, Suite, Toolbox};

/// The suite's commands.
pub fn command() -> Command {
    Command::new("adsbench")
        .about("Ads-Bench's own commands")
        .subcommand_required(true)
        .subcommand(
            Command::new("patch")
                .about("An episode's change set as a replayable patch")
                .arg(Arg::new("sweep").long("sweep").value_name("SWEEP").help(
                    "The sweep, by file, id or name (default: every stored sweep; \
                             an episode is taken from the newest sweep holding it)",
                ))
                .arg(Arg::new("episode").long("episode").value_name("ID").help(
                    "The episode's job id, or a prefix naming one (default: list the episodes)",
                ))
                .arg(
                    Arg::new("replay")
                        .long("replay")
                        .action(ArgAction::SetTrue)
                        .requires("episode")
                        .help("Replay the patch on the episode's start state and compare"),
                ),
        )
}

fn input(message: String) -> CommandError {
    CommandError::Input(message)
}

/// Runs `adfarm adsbench patch`, returning what it prints.
///
/// # Errors
/// No such sweep or episode, an episode that cannot be replayed, or a
/// replay that does not reproduce the stored episode.
pub async fn run(
    suite: &AdsBench,
    matches: &ArgMatches,
    toolbox: &dyn Toolbox,
) -> Result<String, CommandError> {
    let Some(("patch", m)) = matches.subcommand() else {
        return Err(input(format!(
            "unknown command {:?}; adsbench commands: patch",
            matches.subcommand_name().unwrap_or_default()
        )));
    };
    let chosen = m.get_one::<String>("sweep").map(String::as_str);
    let wanted = m.get_one::<String>("episode");
    let sweeps = match (chosen, wanted) {
        (None, Some(id)) => newest_holding(suite, toolbox, id).await?,
        _ => toolbox.stored(chosen).await?,
    };
    let episodes: Vec<(&StoredSweep, &JobResult)> = sweeps
        .iter()
        .flat_map(|s| episodes_of(suite, s).map(move |r| (s, r)))
        .collect();
    let Some(id) = wanted else {
        return Ok(listing(&episodes));
    };
    let matching: Vec<&(&StoredSweep, &JobResult)> =
        episodes.iter().filter(|(_, r)| names(r, id)).collect();
    let (sweep, result) = match matching.as_slice() {
        [one] => **one,
        [] => {
            return Err(input(format!(
                "no Ads-Bench episode {id:?} in {}; `adfarm adsbench patch` lists them",
                scope(&sweeps)
            )))
        }
        many => {
            return Err(input(format!(
                "episode {id:?} names {} episodes; give more of the id",
                many.len()
            )))
        }
    };
    let graded = stored_episode(result)?;
    let changes = graded.outcome.changes.clone().unwrap_or_default();
    let patch = requests(&changes).map_err(input)?;
    if !m.get_flag("replay") {
        let text = json!({
            "sweep": sweep.spec.name,
            "episode": result.id.0,
            "dataset": result.cell.dataset,
            "item": result.item,
            "solution": result.cell.solution,
            "seed": result.cell.seed,
            "requests": patch,
        });
        return Ok(format!(
            "{}\n",
            serde_json::to_string_pretty(&text).expect("JSON serialises")
        ));
    }
    let item = item_of(suite, sweep, result)?;
    let replayed = replay(&item, &patch).map_err(|e| input(e.to_string()))?;
    let ops: usize = patch.iter().map(|r| r.operations.len()).sum();
    let mut out = format!(
        "replayed {ops} operations in {} of {} requests on the start state of {} ({}), episode {} under {}, seed {}\n",
        replayed.requests,
        patch.len(),
        result.item,
        result.cell.dataset,
        result.id.0,
        result.cell.solution,
        result.cell.seed
    );
    let mut differences = replayed.differences(&graded);
    if replayed.requests < patch.len() || replayed.refused > 0 {
        differences.push(format!(
            "{} requests sent, {} decisions refused",
            replayed.requests, replayed.refused
        ));
    }
    if !differences.is_empty() {
        return Err(input(format!(
            "{out}the replay differs from the stored episode: {}",
            differences.join("; ")
        )));
    }
    let _ = writeln!(
        out,
        "identical: event-log digest {}, {} changes{}",
        replayed.graded.outcome.digest,
        changes.len(),
        replayed
            .graded
            .verdict
            .as_ref()
            .map_or(String::new(), |v| format!(
                ", {} of {} predicates held",
                v.predicates.iter().filter(|(_, h)| *h).count(),
                v.predicates.len()
            ))
    );
    Ok(out)
}

/// Where the command looked, for an error.
/// The suite's scored episodes in `sweep`.
fn episodes_of<'a>(
    suite: &'a AdsBench,
    sweep: &'a StoredSweep,
) -> impl Iterator<Item = &'a JobResult> + 'a {
    sweep
        .results
        .iter()
        .filter(|r| r.stage == SOLVE && r.cell.suite == suite.name() && r.output.is_some())
}

/// Whether `id` is the episode's job id or a prefix of it.
fn names(episode: &JobResult, id: &str) -> bool {
    episode.id.0.starts_with(id)
}

/// The newest stored sweep holding an episode `id` names, alone, read
/// sweep by sweep so that the older ones are never loaded; none when no
/// sweep holds one. An episode run again in a later sweep is found there.
async fn newest_holding(
    suite: &AdsBench,
    toolbox: &dyn Toolbox,
    id: &str,
) -> Result<Vec<StoredSweep>, CommandError> {
    for sweep_id in toolbox.sweep_ids().await? {
        let sweeps = toolbox.stored(Some(&sweep_id)).await?;
        if sweeps
            .iter()
            .any(|s| episodes_of(suite, s).any(|r| names(r, id)))
        {
            return Ok(sweeps);
        }
    }
    Ok(Vec::new())
}

fn scope(sweeps: &[StoredSweep]) -> String {
    match sweeps {
        [one] => format!("sweep {} ({})", one.spec.name, one.id),
        [] => "any stored sweep".into(),
        _ => format!("the store's {} sweeps", sweeps.len()),
    }
}

/// The stored episodes, one line each.
fn listing(episodes: &[(&StoredSweep, &JobResult)]) -> String {
    if episodes.is_empty() {
        return "no Ads-Bench episodes stored\n".into();
    }
    let mut out = format!(
        "{:<16} {:<20} {:<12} {:<22} {:<18} {:>5} {:>8}\n",
        "episode", "sweep", "dataset", "item", "solution", "seed", "changes"
    );
    for (s, r) in episodes {
        let changes = r
            .output
            .as_ref()
            .and_then(|o| o.meta.get("changes"))
            .and_then(serde_json::Value::as_array)
            .map_or(0, Vec::len);
        let _ = writeln!(
            out,
            "{:<16} {:<20} {:<12} {:<22} {:<18} {:>5} {:>8}",
            &r.id.0[..r.id.0.len().min(16)],
            s.spec.name,
            r.cell.dataset,
            r.item,
            r.cell.solution,
            r.cell.seed,
            changes
        );
    }
    out
}

/// The episode a solve stored.
fn stored_episode(r: &JobResult) -> Result<Graded, CommandError> {
    let meta = &r.output.as_ref().expect("episodes have an output").meta;
    Graded::from_meta(meta).map_err(|e| input(format!("episode {}: {e}", r.id)))
}

/// The dataset item the episode played, from the sweep's own parameters.
fn item_of(
    suite: &AdsBench,
    sweep: &StoredSweep,
    r: &JobResult,
) -> Result<adfarm_proto::Item, CommandError> {
    let entry = sweep
        .spec
        .suites
        .iter()
        .find(|s| s.name == suite.name())
        .ok_or_else(|| {
            input(format!(
                "sweep {} has no {} entry",
                sweep.spec.name,
                suite.name()
            ))
        })?;
    let items = suite
        .items(&r.cell.dataset, &entry.params)
        .map_err(|e| input(e.to_string()))?;
    for item in items {
        let item = item.map_err(|e| input(e.to_string()))?;
        if item.id == r.item {
            return Ok(item);
        }
    }
    Err(input(format!(
        "dataset {} no longer has item {}",
        r.cell.dataset, r.item
    )))
}
