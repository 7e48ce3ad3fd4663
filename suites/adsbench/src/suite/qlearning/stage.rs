//! The `train` stage: one job per scenario and `q-learning` entry of the
//! sweep, before its solves. It trains the table ([`train`]) on the
//! scenario's training seeds with the entry's parameters and stores the
//! [`Trained`] record; every seed's solve of that entry reads it and plays
//! the table frozen. A gauntlet or red-team task trains on the scenario it
//! runs as (its market and budget on the training seeds, without the
//! task's account or events), then plays frozen through the task.

use super::{train, QConfig, Trained};
use crate::suite::assignment::Assignment;
use crate::suite::solutions::{refused, CancelOnDrop, Q_LEARNING};
use adfarm_proto::{JobResult, Lane, Output, Role, Scope, Stage, Variant};
use adfarm_suite::{DataError, JobError, StageJob, StageOutput, SweepView};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The stage's name.
pub const TRAIN: &str = "train";

/// The stage for `sweep`: read by the solves of its `q-learning` entries;
/// `None` when it has none.
pub fn stage(sweep: SweepView<'_>) -> Option<Stage> {
    let labels: Vec<String> = sweep
        .spec
        .solutions
        .iter()
        .filter(|s| s.name == Q_LEARNING)
        .filter(|s| s.suite.as_deref().is_none_or(|x| x == sweep.suite.name))
        .map(|s| s.label().to_string())
        .collect();
    (!labels.is_empty()).then(|| Stage {
        name: TRAIN.into(),
        lane: Lane::Cpu,
        scope: Scope::Runs,
        after: Vec::new(),
        // It calls no model; the role says whose step it is.
        role: Role::Agent,
        variants: vec![Variant::none()],
        partial: false,
        solutions: labels,
        read_by_solve: true,
    })
}

/// Runs one job: trains the cell's entry on the item's scenario.
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
    let cancelled = Arc::new(AtomicBool::new(false));
    let guard = CancelOnDrop(Arc::clone(&cancelled));
    let trained = tokio::task::spawn_blocking(move || {
        train(&scenario, &config, || !cancelled.load(Ordering::Relaxed))
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
/// scenario seed `scenario_seed`) plays, from its inputs: `None` when no
/// `train` result is among them.
///
/// # Errors
/// A stored record that does not read, or was trained with other
/// parameters or for another scenario.
pub fn read(
    item_id: &str,
    scenario_seed: u64,
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
    Ok(Some(trained))
}
