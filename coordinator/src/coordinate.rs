//! Runs a sweep from the coordinator's side: register it, publish every job
//! that is not settled yet, then follow the store until every planned job is
//! settled (completed, dead-lettered or skipped by the budget).
//!
//! Resuming is the same path as starting: settled jobs are skipped, and the
//! settled part of each item's job graph is walked so that follow-ups lost
//! with an in-process queue (or never published because a process died
//! between storing a result and releasing its follow-ups) are published.
//!
//! Stopping is the same path as finishing early: once the coordinator's
//! stop token fires, planning ends with [`CoordinateError::Stopped`],
//! publishing ends after the batch in flight (what is not published is
//! published by the next run) and following returns the progress so far.

use crate::plan::{self, Plan, PlanError};
use adfarm_backbone::metrics::Metrics;
use adfarm_backbone::{
    release, DeadLetter, Queue, QueueError, Store, StoreError, SweepRecord, Walk,
};
use adfarm_proto::tally::Tally;
use adfarm_proto::{refusal, Envelope, Failure, JobId, Lane, SweepSpec, SWEEP_NOT_REGISTERED};
use adfarm_suites::SuiteContext;
use futures::{StreamExt, TryStreamExt};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio_util::sync::CancellationToken;

/// Coordinator failures.
#[derive(Debug, thiserror::Error)]
pub enum CoordinateError {
    /// A dataset could not be read.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The queue failed.
    #[error(transparent)]
    Queue(#[from] QueueError),
    /// The stop token fired before the sweep was planned.
    #[error("stopped before the sweep was planned")]
    Stopped,
}

/// Where a sweep stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Jobs per stage the sweep expands to.
    pub planned: BTreeMap<String, i64>,
    /// The lane each stage's jobs queue on.
    pub lanes: BTreeMap<String, Lane>,
    /// Aggregates so far.
    pub tally: Tally,
    /// Budget, if any.
    pub budget_usd: Option<f64>,
}

impl Progress {
    /// Every planned job is settled.
    pub fn finished(&self) -> bool {
        self.planned
            .iter()
            .all(|(k, n)| self.tally.settled(k) >= *n)
    }

    /// Unsettled jobs per lane (what worker pools still have to do).
    pub fn unsettled_per_lane(&self) -> BTreeMap<Lane, u64> {
        let mut out = BTreeMap::new();
        for (stage, n) in &self.planned {
            let lane = self.lanes.get(stage).copied().unwrap_or(Lane::Solve);
            *out.entry(lane).or_default() += (n - self.tally.settled(stage)).max(0) as u64;
        }
        out
    }

    /// Jobs of every stage settled / planned.
    pub fn totals(&self) -> (i64, i64) {
        let planned = self.planned.values().sum();
        let settled = self.planned.keys().map(|k| self.tally.settled(k)).sum();
        (settled, planned)
    }
}

/// Publishes and follows sweeps.
pub struct Coordinator {
    store: Arc<dyn Store>,
    queue: Arc<dyn Queue>,
    ctx: SuiteContext,
    stop: CancellationToken,
}

const BATCH: usize = 512;
/// Root jobs streamed from their expansion, in batches of [`BATCH`].
type Expansion = tokio::sync::mpsc::Receiver<Result<Vec<Envelope>, PlanError>>;
/// Publishes awaiting their broker confirm at once.
const PUBLISH_IN_FLIGHT: usize = 64;

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Coordinator {
    /// A coordinator over `store` and `queue`.
    pub fn new(store: Arc<dyn Store>, queue: Arc<dyn Queue>, ctx: SuiteContext) -> Coordinator {
        Coordinator {
            store,
            queue,
            ctx,
            stop: CancellationToken::new(),
        }
    }

    /// The same coordinator, whose planning and publishing end once `stop`
    /// fires (see the module's note on stopping).
    pub fn stopping_on(self, stop: CancellationToken) -> Coordinator {
        Coordinator { stop, ..self }
    }

    /// Plans `spec` and registers it (keeping the first registration time).
    ///
    /// # Errors
    /// Unreadable datasets or an unavailable store;
    /// [`CoordinateError::Stopped`] when the stop token fires first.
    pub async fn register(&self, spec: &SweepSpec) -> Result<(SweepRecord, Plan), CoordinateError> {
        let ctx = self.ctx.clone();
        let owned = spec.clone();
        let stop = self.stop.clone();
        let plan = tokio::task::spawn_blocking(move || plan::plan_until(&owned, &ctx, &stop))
            .await
            .expect("planning does not panic")?
            .ok_or(CoordinateError::Stopped)?;
        let id = spec.id();
        let (created_unix, epoch) = match self.store.sweep(&id).await? {
            Some(old) if !old.epoch.is_empty() => (old.created_unix, old.epoch),
            Some(old) => (old.created_unix, new_epoch(&id)),
            None => (now_unix(), new_epoch(&id)),
        };
        let rec = SweepRecord {
            id,
            spec: spec.clone(),
            planned: plan.planned.clone(),
            pipelines: plan.pipelines.clone(),
            estimated_cost_usd: plan.estimate.total_usd,
            created_unix,
            epoch,
            benchmarks: plan.benchmarks.clone(),
            adfarm: env!("CARGO_PKG_VERSION").into(),
        };
        // The items go on record before the sweep: a worker that finds the
        // sweep registered can take an item missing from it for a forgery,
        // while one that finds no sweep waits (its store may have been lost
        // and be registering again right now).
        let (mut items, expansion) = self.expand(&rec);
        loop {
            let batch = tokio::select! {
                _ = self.stop.cancelled() => break,
                b = items.recv() => b,
            };
            let Some(batch) = batch else { break };
            let mut keys: Vec<String> = batch?.iter().map(|e| e.job.item_key()).collect();
            keys.sort_unstable();
            keys.dedup();
            self.store.plan_items(&rec.id, &keys).await?;
        }
        drop(items);
        expansion.await.expect("expansion does not panic");
        if self.stop.is_cancelled() {
            return Err(CoordinateError::Stopped);
        }
        self.store.save_sweep(&rec).await?;
        Ok((rec, plan))
    }

    /// The sweep's root jobs, expanded on a blocking thread (it is CPU
    /// work) and streamed in batches; an expansion error ends the stream.
    /// The handle is the expansion's thread, to await once the stream ends:
    /// it ends at its next item once stopped, or at its next batch once
    /// nobody receives.
    fn expand(&self, rec: &SweepRecord) -> (Expansion, tokio::task::JoinHandle<()>) {
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<Vec<Envelope>, PlanError>>(4);
        let spec = rec.spec.clone();
        let pipelines = rec.pipelines.clone();
        let ctx = self.ctx.clone();
        let stop = self.stop.clone();
        let task = tokio::task::spawn_blocking(move || {
            let mut batch = Vec::with_capacity(BATCH);
            for job in plan::root_jobs(&spec, &pipelines, &ctx, &stop) {
                match job {
                    Ok(env) => batch.push(env),
                    Err(e) => {
                        let _ = tx.blocking_send(Err(e));
                        return;
                    }
                }
                if batch.len() == BATCH && tx.blocking_send(Ok(std::mem::take(&mut batch))).is_err()
                {
                    return;
                }
            }
            if !batch.is_empty() {
                let _ = tx.blocking_send(Ok(batch));
            }
        });
        (rx, task)
    }

    /// Publishes every job of the sweep that is not settled. Returns how many
    /// were published: fewer when the stop token fires first.
    ///
    /// # Errors
    /// Unreadable datasets, or an unavailable store or queue.
    pub async fn publish(&self, rec: &SweepRecord) -> Result<u64, CoordinateError> {
        let (mut jobs, expansion) = self.expand(rec);
        let mut published = 0;
        // Follow-ups already looked at in this pass (an aggregate over many
        // runs is reached from each of them).
        let mut seen = HashSet::new();
        loop {
            let batch = tokio::select! {
                _ = self.stop.cancelled() => break,
                b = jobs.recv() => b,
            };
            let Some(batch) = batch else { break };
            published += self.publish_batch(rec, batch?, &mut seen).await?;
        }
        drop(jobs);
        expansion.await.expect("expansion does not panic");
        Ok(published)
    }

    async fn publish_batch(
        &self,
        rec: &SweepRecord,
        batch: Vec<Envelope>,
        seen: &mut HashSet<JobId>,
    ) -> Result<u64, CoordinateError> {
        // Workers run jobs of planned items only: `register` put them on
        // record before any of their jobs (or follow-ups) is published.
        let ids: Vec<_> = batch.iter().map(|e| e.id.clone()).collect();
        let settled = self.store.settled(&rec.id, &ids).await?;
        let (finished, todo): (Vec<_>, Vec<_>) =
            batch.into_iter().zip(settled).partition(|(_, done)| *done);
        // Confirms are awaited concurrently: one round trip per job would cap
        // publishing at the broker's latency.
        let mut published = todo.len() as u64;
        futures::stream::iter(todo.iter().map(|(env, _)| self.queue.publish(env)))
            .buffer_unordered(PUBLISH_IN_FLIGHT)
            .try_collect::<Vec<()>>()
            .await?;
        for (root, _) in finished {
            let released = release(
                self.store.as_ref(),
                self.queue.as_ref(),
                rec,
                &root,
                Walk::Deep,
                seen,
            )
            .await?;
            published += released.published;
        }
        Ok(published)
    }

    /// Current progress of the sweep.
    ///
    /// # Errors
    /// When the store is unavailable.
    pub async fn progress(&self, rec: &SweepRecord) -> Result<Progress, CoordinateError> {
        Ok(Progress {
            planned: rec.planned.clone(),
            lanes: rec
                .planned
                .keys()
                .filter_map(|stage| rec.lane_of(stage).map(|l| (stage.clone(), l)))
                .collect(),
            tally: self.store.tally(&rec.id).await?,
            budget_usd: rec.spec.budget_usd,
        })
    }

    /// Records dead letters of planned jobs (failed, or past the broker's
    /// delivery limit) as their jobs' failures, with their follow-ups; sets
    /// every other message aside in the quarantine, counted nowhere.
    ///
    /// # Errors
    /// When the store or queue is unavailable.
    pub async fn drain_dead_letters(&self) -> Result<usize, CoordinateError> {
        let dead = self.queue.take_dead_letters(256).await?;
        let n = dead.len();
        for d in dead {
            let env = match serde_json::from_slice::<Envelope>(&d.body) {
                Ok(env) if !refusal::is_refusal(&d.code) => env,
                _ => {
                    self.set_aside(&d).await?;
                    continue;
                }
            };
            let Some(rec) = self.store.sweep(&env.sweep).await? else {
                // No registration to count it in (a forged sweep id, or a
                // lost store whose coordinator has not come back): kept
                // for a person to look at, under its own code.
                self.set_aside(&d).await?;
                continue;
            };
            if d.code == SWEEP_NOT_REGISTERED {
                // The sweep is registered again: the job waits no more.
                let fresh = Envelope { waited: 0, ..env };
                self.queue.publish(&fresh).await?;
                continue;
            }
            let failure = Failure {
                id: env.id.clone(),
                stage: Some(env.stage().to_string()),
                code: d.code,
                reason: d.reason,
                attempts: env.attempt + 1,
            };
            self.store.fail(&env.sweep, &failure).await?;
            release(
                self.store.as_ref(),
                self.queue.as_ref(),
                &rec,
                &env,
                Walk::Dependents,
                &mut HashSet::new(),
            )
            .await?;
        }
        Ok(n)
    }

    async fn set_aside(&self, d: &DeadLetter) -> Result<(), CoordinateError> {
        tracing::warn!(code = %d.code, reason = %d.reason, "A message that is no planned job was set aside; `adfarm dead-letters` lists it.");
        self.queue.quarantine(d).await?;
        Ok(())
    }

    /// Follows the sweep until every planned job is settled or `cancel`
    /// fires, calling `on_progress` on each poll.
    ///
    /// # Errors
    /// When the store or queue stays unavailable.
    pub async fn follow(
        &self,
        rec: &SweepRecord,
        cancel: &CancellationToken,
        mut on_progress: impl FnMut(&Progress) + Send,
    ) -> Result<Progress, CoordinateError> {
        let metrics = Metrics::global();
        let sweep = rec.spec.name.as_str();
        loop {
            // The store must still hold this registration: one that came
            // back empty would otherwise read as a sweep with no progress.
            match self.store.sweep(&rec.id).await? {
                Some(now) if now.epoch == rec.epoch => {}
                _ => {
                    return Err(CoordinateError::Store(StoreError::Lost {
                        sweep: rec.id.0.clone(),
                    }))
                }
            }
            self.drain_dead_letters().await?;
            let p = self.progress(rec).await?;
            for (stage, planned) in &p.planned {
                let set = |state: &str, v: i64| {
                    metrics
                        .sweep_jobs
                        .with_label_values(&[sweep, stage, state])
                        .set(v)
                };
                set("planned", *planned);
                set("completed", p.tally.done(stage));
                set("failed", p.tally.failures(stage));
                set("skipped", p.tally.skips(stage));
            }
            for kind in Lane::ALL {
                if let Ok(depth) = self.queue.depth(kind).await {
                    metrics
                        .queue_depth
                        .with_label_values(&[kind.as_str()])
                        .set(depth as i64);
                }
                if let Ok(consumers) = self.queue.consumers(kind).await {
                    metrics
                        .queue_consumers
                        .with_label_values(&[kind.as_str()])
                        .set(consumers as i64);
                }
            }
            let spent = p.tally.spend_usd();
            metrics
                .sweep_cost
                .with_label_values(&[sweep, "spent"])
                .set(spent);
            metrics
                .sweep_cost
                .with_label_values(&[sweep, "estimated"])
                .set(rec.estimated_cost_usd);
            metrics
                .sweep_cost
                .with_label_values(&[sweep, "remaining-estimate"])
                .set(remaining_estimate(rec, &p));
            if let Some(b) = rec.spec.budget_usd {
                metrics
                    .sweep_cost
                    .with_label_values(&[sweep, "budget"])
                    .set(b);
            }
            on_progress(&p);
            if p.finished() {
                return Ok(p);
            }
            tokio::select! {
                _ = cancel.cancelled() => return Ok(p),
                _ = tokio::time::sleep(Duration::from_millis(250)) => {}
            }
        }
    }
}

/// Estimated cost still to come: the estimate scaled by the unsettled share.
fn remaining_estimate(rec: &SweepRecord, p: &Progress) -> f64 {
    let (settled, planned) = p.totals();
    if planned == 0 {
        return 0.0;
    }
    rec.estimated_cost_usd * (planned - settled).max(0) as f64 / planned as f64
}

/// A fresh registration's epoch: unique per registration, nothing secret.
fn new_epoch(id: &adfarm_proto::SweepId) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    adfarm_proto::content_hash(&[
        b"epoch",
        id.0.as_bytes(),
        &nanos.to_le_bytes(),
        &std::process::id().to_le_bytes(),
    ])
}
