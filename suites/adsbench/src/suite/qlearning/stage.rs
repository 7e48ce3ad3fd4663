//! The `train` stage: one job per scenario, `q-learning` entry and sweep
//! seed, before its solves. It trains the table ([`train`]) on the
//! scenario's training seeds with the entry's parameters, exploring from
//! the sweep's seed, and stores the [`Trained`] record; that seed's solve
//! of the entry reads it and plays the table frozen. A gauntlet or red-team task trains on the scenario it
//! runs as (its market and budget on the training seeds, without the
//! task's account or events), then plays frozen through the task.
//!
//! [`check_disjoint`] holds the training seeds apart from the evaluated
//! ones at plan time: a sweep where some `q-learning` entry would train on
//! a seed that any of the sweep's items is evaluated on is refused,
//! naming the scenario's field.

use super::{train, training_seeds, QConfig, Trained, TRAIN_SEED_OFFSET};
use crate::suite::assignment::Assignment;
use crate::suite::solutions::{refused, CancelOnDrop, Q_LEARNING};
use crate::suite::{gauntlet, redteam, scenario};
use adfarm_proto::{JobResult, Lane, Output, Role, Scope, SolutionSpec, Stage, Variant};
use adfarm_suite::{DataError, JobError, StageJob, StageOutput, SweepView};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The stage's name.
pub const TRAIN: &str = "train";

/// The sweep's `q-learning` entries that play this suite.
fn entries<'a>(sweep: SweepView<'a>) -> impl Iterator<Item = &'a SolutionSpec> {
    sweep
        .spec
        .solutions
        .iter()
        .filter(|s| s.name == Q_LEARNING)
        .filter(move |s| s.suite.as_deref().is_none_or(|x| x == sweep.suite.name))
}

/// The stage for `sweep`: read by the solves of its `q-learning` entries;
/// `None` when it has none.
pub fn stage(sweep: SweepView<'_>) -> Option<Stage> {
    let labels: Vec<String> = entries(sweep).map(|s| s.label().to_string()).collect();
    (!labels.is_empty()).then(|| Stage {
        name: TRAIN.into(),
        lane: Lane::Cpu,
        // One per sweep seed: the seed's exploration learns its own table.
        scope: Scope::Run,
        after: Vec::new(),
        // It calls no model; the role says whose step it is.
        role: Role::Agent,
        variants: vec![Variant::none()],
        partial: false,
        solutions: labels,
        read_by_solve: true,
    })
}

/// An item the sweep evaluates: its scenario's seed, what it is, and the
/// sweep field that sets the seed (none for a built-in task).
struct Evaluated {
    seed: u64,
    what: String,
    field: Option<String>,
}

/// Every item of the sweep's datasets of this suite, with its seed.
fn evaluated(sweep: SweepView<'_>) -> Result<Vec<Evaluated>, DataError> {
    let params = &sweep.suite.params;
    let mut out = Vec::new();
    for dataset in &sweep.suite.datasets {
        let tasks = match dataset.as_str() {
            scenario::DATASET => {
                let listed = params.get("scenarios").and_then(|v| v.as_array());
                for (i, s) in scenario::scenarios(params)?.into_iter().enumerate() {
                    let field = match listed.and_then(|l| l.get(i)?.get("seed")) {
                        Some(_) => format!("params.scenarios[{i}].seed"),
                        None => "params.scenarios".into(),
                    };
                    out.push(Evaluated {
                        seed: s.seed,
                        what: format!("scenario {i}"),
                        field: Some(field),
                    });
                }
                continue;
            }
            gauntlet::DATASET => gauntlet::shipped(),
            redteam::DATASET => redteam::shipped(),
            _ => continue,
        };
        let tasks = tasks.map_err(|e| DataError::Param {
            field: dataset.clone(),
            reason: e.to_string(),
        })?;
        out.extend(tasks.into_iter().map(|t| Evaluated {
            seed: t.scenario.seed,
            what: format!("task {}", t.id),
            field: None,
        }));
    }
    Ok(out)
}

/// Refuses `sweep` when a `q-learning` entry would train on a seed one of
/// the sweep's items is evaluated on: its training seeds for an item of
/// seed s are s + [`TRAIN_SEED_OFFSET`] + k ([`training_seeds`]), which a
/// scenario's own `seed` may equal.
///
/// # Errors
/// [`DataError::Param`] naming the scenario's `seed` that meets a training
/// seed (the evaluated one where a scenario sets it, else the trained
/// one's); an entry whose parameters do not read is left to
/// [`check_solution`](adfarm_suite::Suite::check_solution).
pub fn check_disjoint(sweep: SweepView<'_>) -> Result<(), DataError> {
    let configs: Vec<(&str, QConfig)> = entries(sweep)
        .filter_map(|s| Some((s.label(), QConfig::from_spec(s).ok()?)))
        .collect();
    let Some(most) = configs.iter().map(|(_, c)| c.episodes).max() else {
        return Ok(());
    };
    let items = evaluated(sweep)?;
    let by_seed: BTreeMap<u64, &Evaluated> = items.iter().map(|e| (e.seed, e)).collect();
    for trained in &items {
        for (k, seed) in training_seeds(trained.seed, most).into_iter().enumerate() {
            let Some(hit) = by_seed.get(&seed) else {
                continue;
            };
            let Some((label, _)) = configs.iter().find(|(_, c)| k < c.episodes as usize) else {
                continue;
            };
            return Err(DataError::Param {
                field: hit
                    .field
                    .clone()
                    .or_else(|| trained.field.clone())
                    .unwrap_or_else(|| "params.scenarios".into()),
                reason: format!(
                    "seed {seed} is evaluated ({}) and is a training seed of `{label}` for {} \
                     (seed {} + {TRAIN_SEED_OFFSET} + {k}); training seeds must differ from \
                     every seed the sweep evaluates",
                    hit.what, trained.what, trained.seed
                ),
            });
        }
    }
    Ok(())
}

/// Runs one job: trains the cell's entry on the item's scenario under the
/// cell's seed.
///
/// # Errors
/// An entry whose parameters do not read, an item that is no scenario or
/// task, a market the scenario cannot build.
pub async fn run(job: StageJob<'_>) -> Result<StageOutput, JobError> {
    let spec = job.solution.ok_or_else(|| DataError::Param {
        field: format!("item {}", job.item.id),
        reason: format!("the {TRAIN} stage runs for a solution, and this job names none"),
    })?;
    let config = QConfig::from_spec(spec)?;
    let id = job.item.id.clone();
    let scenario = Assignment::of(job.item)?
        .scenario()
        .map_err(|reason| DataError::Param {
            field: format!("item {id}: meta"),
            reason,
        })?;
    let sweep_seed = job.cell.seed;
    let cancelled = Arc::new(AtomicBool::new(false));
    let guard = CancelOnDrop(Arc::clone(&cancelled));
    let trained = tokio::task::spawn_blocking(move || {
        train(&scenario, &config, sweep_seed, || {
            !cancelled.load(Ordering::Relaxed)
        })
    })
    .await
    .map_err(|e| DataError::Param {
        field: format!("item {id}"),
        reason: format!("the training thread failed: {e}"),
    })?
    .map_err(|e| refused(&id, e))?;
    drop(guard);
    let profits: Vec<String> = trained
        .episodes
        .iter()
        .map(|e| format!("{:.2}", e.profit_micros as f64 / 1e6))
        .collect();
    Ok(StageOutput {
        output: Some(Output {
            text: format!(
                "{id}: {} training episodes (profits {}); {} of {} state-arm pairs visited",
                trained.episodes.len(),
                profits.join(", "),
                trained.table.visited(),
                trained.table.values.len() * trained.table.values[0].len(),
            ),
            meta: serde_json::to_value(&trained).expect("a trained table serialises"),
        }),
        scores: Vec::new(),
    })
}

/// The table a solve of an entry with `config` on item `item_id` (of
/// scenario seed `scenario_seed`) under the sweep's seed `sweep_seed`
/// plays, from its inputs: `None` when no `train` result is among them.
///
/// # Errors
/// A stored record that does not read, or was trained with other
/// parameters, for another scenario or under another sweep seed.
pub fn read(
    item_id: &str,
    scenario_seed: u64,
    sweep_seed: u64,
    config: &QConfig,
    inputs: &[JobResult],
) -> Result<Option<Trained>, JobError> {
    let Some(meta) = inputs
        .iter()
        .find(|r| r.stage == TRAIN)
        .and_then(|r| r.output.as_ref())
        .map(|o| &o.meta)
        .filter(|m| !m.is_null())
    else {
        return Ok(None);
    };
    let bad = |reason: String| DataError::Param {
        field: format!("item {item_id}: {TRAIN}"),
        reason,
    };
    let trained: Trained = serde_json::from_value(meta.clone())
        .map_err(|e| bad(format!("the stored table does not read: {e}")))?;
    if trained.config != *config {
        return Err(bad("the table was trained with other parameters".into()).into());
    }
    if scenario_seed != trained.scenario_seed {
        return Err(bad(format!(
            "the table was trained for scenario seed {}, not {scenario_seed}",
            trained.scenario_seed
        ))
        .into());
    }
    if sweep_seed != trained.sweep_seed {
        return Err(bad(format!(
            "the table was trained under sweep seed {}, not {sweep_seed}",
            trained.sweep_seed
        ))
        .into());
    }
    Ok(Some(trained))
}
