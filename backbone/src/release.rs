//! Follow-ups: once a job is settled, each job that reads it is published
//! when all of its inputs are settled, or failed without running when an
//! input it needs failed. Whoever settles a job calls [`release`] before
//! acking it (a worker), or walks the settled part of a sweep on resume (the
//! coordinator); job ids are content hashes and results are stored "set if
//! absent", so two callers releasing the same job is harmless.

use crate::queue::Queue;
use crate::store::{Store, StoreError, SweepRecord};
use adfarm_proto::tally::BUDGET_CODE;
use adfarm_proto::{Envelope, Failure, JobId};
use std::collections::{HashMap, HashSet};

/// Failure code of a job that could not run because an input failed.
pub const INPUT_FAILED: &str = "input-failed";

/// How far [`release`] walks from the settled job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// Its dependents only (a worker that just settled it).
    Dependents,
    /// Also on through dependents that are settled already (resuming a
    /// sweep whose follow-ups may have been lost with an in-process queue).
    Deep,
}

/// What [`release`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Released {
    /// Follow-ups published.
    pub published: u64,
    /// Follow-ups failed because an input failed.
    pub failed: u64,
}

/// Publishes or fails the jobs that read `settled` once their inputs are
/// all settled. `seen` holds ids already handled by this caller (shared
/// across calls of one resume pass, so an aggregate over many runs is
/// looked at once).
///
/// # Errors
/// When the store is unavailable or a publish is not confirmed (reported
/// as a store failure: either way the caller must not ack).
pub async fn release(
    store: &dyn Store,
    queue: &dyn Queue,
    rec: &SweepRecord,
    settled: &Envelope,
    walk: Walk,
    seen: &mut HashSet<JobId>,
) -> Result<Released, StoreError> {
    let mut out = Released::default();
    let Some(plan) = rec.plan_of(&settled.job.cell.suite) else {
        return Ok(out);
    };
    let mut failures: Option<HashMap<JobId, Failure>> = None;
    let mut stack = vec![settled.clone()];
    while let Some(env) = stack.pop() {
        let next = plan.dependents(&env);
        if next.is_empty() {
            continue;
        }
        let ids: Vec<JobId> = next.iter().map(|d| d.id.clone()).collect();
        let done = store.settled(&rec.id, &ids).await?;
        for (job, done) in next.into_iter().zip(done) {
            if !seen.insert(job.id.clone()) {
                continue;
            }
            if done {
                if walk == Walk::Deep {
                    stack.push(job);
                }
                continue;
            }
            let inputs = plan.inputs(&job);
            if !store.settled(&rec.id, &inputs).await?.iter().all(|s| *s) {
                continue;
            }
            let partial = plan
                .pipeline
                .stage(&job.job.stage)
                .is_some_and(|s| s.partial);
            if !partial {
                if let Some(failure) = failed_input(store, rec, &inputs, &mut failures).await? {
                    store.fail(&rec.id, &input_failed(&job, &failure)).await?;
                    out.failed += 1;
                    stack.push(job);
                    continue;
                }
            }
            queue.publish(&job).await.map_err(|e| StoreError::Backend {
                op: "publish follow-up",
                reason: e.to_string(),
            })?;
            out.published += 1;
        }
    }
    Ok(out)
}

/// The failure of the first of `inputs` (all settled) that has no result.
async fn failed_input(
    store: &dyn Store,
    rec: &SweepRecord,
    inputs: &[JobId],
    failures: &mut Option<HashMap<JobId, Failure>>,
) -> Result<Option<Failure>, StoreError> {
    for id in inputs {
        if store.result(&rec.id, id).await?.is_some() {
            continue;
        }
        if failures.is_none() {
            let all = store.failures(&rec.id).await?;
            *failures = Some(all.into_iter().map(|f| (f.id.clone(), f)).collect());
        }
        let known = failures.as_ref().and_then(|f| f.get(id)).cloned();
        return Ok(Some(known.unwrap_or_else(|| Failure {
            id: id.clone(),
            stage: None,
            code: INPUT_FAILED.into(),
            reason: "failed".into(),
            attempts: 0,
        })));
    }
    Ok(None)
}

/// The failure recorded for `job` when its input failed with `input`:
/// skipped when the budget stopped the input, [`INPUT_FAILED`] otherwise.
pub fn input_failed(job: &Envelope, input: &Failure) -> Failure {
    let code = if input.code == BUDGET_CODE {
        BUDGET_CODE.to_string()
    } else {
        INPUT_FAILED.into()
    };
    let stage = input.stage.as_deref().unwrap_or("an input");
    Failure {
        id: job.id.clone(),
        stage: Some(job.job.stage.clone()),
        code,
        reason: format!("its {stage} job failed: {}", input.reason),
        attempts: 0,
    }
}
