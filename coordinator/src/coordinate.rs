//! Runs a sweep from the coordinator's side: register it, publish every job
//! that is not settled yet, then follow the store until every planned job is
//! settled (completed, dead-lettered or skipped by the budget).
//!
//! Resuming is the same path as starting: settled jobs are skipped, and the
//! follow-ups of finished generate jobs are published again in case the
//! process died between storing a result and publishing its follow-ups.

use crate::plan::{self, Plan, PlanError};
use adfarm_backbone::metrics::Metrics;
use adfarm_backbone::store::{fail_with_follow_ups, parent_failed};
use adfarm_backbone::{Queue, QueueError, Store, StoreError, SweepRecord};
use adfarm_proto::tally::Tally;
use adfarm_proto::{Envelope, Failure, JobKind, SweepSpec};
use adfarm_suites::SuiteContext;
use futures::{StreamExt, TryStreamExt};
use std::collections::BTreeMap;
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
}

/// Where a sweep stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Jobs per kind the sweep expands to.
    pub planned: BTreeMap<JobKind, i64>,
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
            .all(|(k, n)| self.tally.settled(*k) >= *n)
    }

    /// Jobs of every kind settled / planned.
    pub fn totals(&self) -> (i64, i64) {
        let planned = self.planned.values().sum();
        let settled = self.planned.keys().map(|k| self.tally.settled(*k)).sum();
        (settled, planned)
    }
}

/// Publishes and follows sweeps.
pub struct Coordinator {
    store: Arc<dyn Store>,
    queue: Arc<dyn Queue>,
    ctx: SuiteContext,
}

const BATCH: usize = 512;
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
        Coordinator { store, queue, ctx }
    }

    /// Plans `spec` and registers it (keeping the first registration time).
    ///
    /// # Errors
    /// Unreadable datasets or an unavailable store.
    pub async fn register(&self, spec: &SweepSpec) -> Result<(SweepRecord, Plan), CoordinateError> {
        let ctx = self.ctx.clone();
        let owned = spec.clone();
        let plan = tokio::task::spawn_blocking(move || plan::plan(&owned, &ctx))
            .await
            .expect("planning does not panic")?;
        let id = spec.id();
        let created_unix = match self.store.sweep(&id).await? {
            Some(old) => old.created_unix,
            None => now_unix(),
        };
        let follow_ups = spec
            .suites
            .iter()
            .filter_map(|s| {
                adfarm_suites::suite(&s.name, &self.ctx)
                    .map(|suite| (s.name.clone(), suite.follow_ups()))
            })
            .collect();
        let rec = SweepRecord {
            id,
            spec: spec.clone(),
            planned: plan.planned.clone(),
            follow_ups,
            estimated_cost_usd: plan.estimate.total_usd,
            created_unix,
        };
        self.store.save_sweep(&rec).await?;
        Ok((rec, plan))
    }

    /// Publishes every job of the sweep that is not settled. Returns how many
    /// were published.
    ///
    /// # Errors
    /// Unreadable datasets, or an unavailable store or queue.
    pub async fn publish(&self, rec: &SweepRecord) -> Result<u64, CoordinateError> {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<Vec<Envelope>, PlanError>>(4);
        let spec = rec.spec.clone();
        let ctx = self.ctx.clone();
        // Expansion is CPU work on a blocking thread, streamed in batches.
        let producer = tokio::task::spawn_blocking(move || {
            let mut batch = Vec::with_capacity(BATCH);
            for job in plan::generate_jobs(&spec, &ctx) {
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
        let mut published = 0;
        while let Some(batch) = rx.recv().await {
            published += self.publish_batch(rec, batch?).await?;
        }
        producer.await.expect("expansion does not panic");
        Ok(published)
    }

    async fn publish_batch(
        &self,
        rec: &SweepRecord,
        batch: Vec<Envelope>,
    ) -> Result<u64, CoordinateError> {
        let ids: Vec<_> = batch.iter().map(|e| e.id.clone()).collect();
        let settled = self.store.settled(&rec.id, &ids).await?;
        let (finished, todo): (Vec<_>, Vec<_>) =
            batch.into_iter().zip(settled).partition(|(_, done)| *done);
        let finished: Vec<Envelope> = finished.into_iter().map(|(env, _)| env).collect();
        // Confirms are awaited concurrently: one round trip per job would cap
        // publishing at the broker's latency.
        let mut published = todo.len() as u64;
        futures::stream::iter(todo.iter().map(|(env, _)| self.queue.publish(env)))
            .buffer_unordered(PUBLISH_IN_FLIGHT)
            .try_collect::<Vec<()>>()
            .await?;
        // Follow-ups of settled generate jobs: publish the unsettled ones
        // (or fail them when their parent failed).
        for parent in finished {
            let next = rec.follow_ups(&parent);
            if next.is_empty() {
                continue;
            }
            let ids: Vec<_> = next.iter().map(|e| e.id.clone()).collect();
            let settled = self.store.settled(&rec.id, &ids).await?;
            if settled.iter().all(|s| *s) {
                continue;
            }
            let parent_ok = self.store.result(&rec.id, &parent.id).await?.is_some();
            let parent_failure = if parent_ok {
                None
            } else {
                self.store
                    .failures(&rec.id)
                    .await?
                    .into_iter()
                    .find(|f| f.id == parent.id)
            };
            for (env, done) in next.into_iter().zip(settled) {
                if done {
                    continue;
                }
                match &parent_failure {
                    None => {
                        self.queue.publish(&env).await?;
                        published += 1;
                    }
                    Some(f) => {
                        self.store.fail(&rec.id, &parent_failed(&env, f)).await?;
                    }
                }
            }
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
            tally: self.store.tally(&rec.id).await?,
            budget_usd: rec.spec.budget_usd,
        })
    }

    /// Records dead letters that reached the dead-letter queue without a
    /// stored failure (the broker's delivery limit), with their follow-ups.
    ///
    /// # Errors
    /// When the store or queue is unavailable.
    pub async fn drain_dead_letters(&self) -> Result<usize, CoordinateError> {
        let dead = self.queue.take_dead_letters(256).await?;
        let n = dead.len();
        for d in dead {
            let Ok(env) = serde_json::from_slice::<Envelope>(&d.body) else {
                tracing::warn!(code = %d.code, reason = %d.reason, "Dead letter is not a job envelope; dropped from the queue.");
                continue;
            };
            let failure = Failure {
                id: env.id.clone(),
                kind: Some(env.kind()),
                code: d.code,
                reason: d.reason,
                attempts: env.attempt + 1,
            };
            let Some(rec) = self.store.sweep(&env.sweep).await? else {
                continue;
            };
            fail_with_follow_ups(self.store.as_ref(), &rec, &env, &failure).await?;
        }
        Ok(n)
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
            self.drain_dead_letters().await?;
            let p = self.progress(rec).await?;
            for kind in JobKind::ALL {
                let set = |state: &str, v: i64| {
                    metrics
                        .sweep_jobs
                        .with_label_values(&[sweep, kind.as_str(), state])
                        .set(v)
                };
                set("planned", p.planned.get(&kind).copied().unwrap_or(0));
                set("completed", p.tally.done(kind));
                set("failed", p.tally.failures(kind));
                set("skipped", p.tally.skips(kind));
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
