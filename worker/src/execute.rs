//! The worker loop: take a job, run it, store the result (aggregates move in
//! the same atomic step), publish its follow-ups, and only then settle the
//! delivery. Retry policy lives here, driven by `JobError::class()`.

use crate::gateway::Gateway;
use adfarm_backbone::metrics::Metrics;
use adfarm_backbone::{release, Delivery, Queue, Store, StoreError, SweepRecord, Walk};
use adfarm_llm::ErrorClass;
use adfarm_proto::tally::{BUDGET_CODE, NANO};
use adfarm_proto::{
    refusal, Envelope, Failure, Lane, SweepId, FORMAT_VERSION, MAX_ENVELOPE_BYTES,
    SWEEP_NOT_REGISTERED,
};
use adfarm_suites::{Solution, Suite, SuiteContext};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// How a worker runs.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// Lanes to consume.
    pub lanes: Vec<Lane>,
    /// Jobs in flight per lane (also the queue prefetch).
    pub concurrency: u16,
    /// Deliveries of one job (queue-level retries) before it is dead-lettered.
    pub max_job_attempts: u32,
    /// How long jobs in flight may take to settle once the worker is told
    /// to stop; past it they are dropped unsettled and delivered again.
    pub grace: Duration,
    /// How long a job of a sweep that is not registered (a store that lost
    /// it, a coordinator registering it again) is put back to wait before
    /// it is dead-lettered as [`SWEEP_NOT_REGISTERED`].
    pub sweep_wait: Duration,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        WorkerConfig {
            lanes: Lane::ALL.to_vec(),
            concurrency: 16,
            max_job_attempts: 5,
            grace: Duration::from_secs(20),
            sweep_wait: Duration::from_secs(600),
        }
    }
}

/// Delay between two looks for a job's sweep registration.
const SWEEP_POLL: Duration = Duration::from_secs(2);

impl WorkerConfig {
    /// The delay before a job of an unregistered sweep is looked at again,
    /// and how many such waits fit in [`WorkerConfig::sweep_wait`].
    fn sweep_waits(&self) -> (Duration, u32) {
        let step = SWEEP_POLL.min(self.sweep_wait);
        if step.is_zero() {
            return (step, 0);
        }
        let waits = self.sweep_wait.as_millis().div_ceil(step.as_millis());
        (step, u32::try_from(waits).unwrap_or(u32::MAX))
    }
}

/// A built solution's identity: (sweep, suite, solution name).
type SolutionKey = (SweepId, String, String);

/// Runs jobs from a queue against a store.
pub struct Worker {
    pub(crate) store: Arc<dyn Store>,
    queue: Arc<dyn Queue>,
    pub(crate) gateway: Gateway,
    pub(crate) ctx: SuiteContext,
    config: WorkerConfig,
    sweeps: Mutex<HashMap<SweepId, Arc<SweepRecord>>>,
    // Two suites may offer one solution name, so the suite is in the key.
    pub(crate) solutions: Mutex<HashMap<SolutionKey, Arc<dyn Solution>>>,
    // Suites load datasets lazily and keep them: one instance per process.
    pub(crate) suites: Mutex<HashMap<String, Arc<dyn Suite>>>,
    // Items found among their sweep's planned items (saves a store read per job).
    admitted: Mutex<HashSet<(SweepId, String)>>,
}

/// Planned items a worker remembers before asking the store again.
const ADMITTED_ITEMS: usize = 100_000;

/// What became of one delivery (also the `outcome` metric label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Completed,
    Duplicate,
    Retried,
    Failed,
    Skipped,
    Requeued,
    /// Not a planned job: dead-lettered for the quarantine, counted nowhere.
    Refused,
    /// Its sweep is not registered: put back to wait for it.
    Waiting,
}

/// Whether a job's item is one its sweep planned.
enum Admission {
    /// It is: run the job.
    Admitted,
    /// The registered sweep never planned it (the reason says why).
    Refused(String),
    /// The sweep is no longer registered: the store lost it.
    Unregistered,
}

impl Outcome {
    const ALL: [Outcome; 8] = [
        Outcome::Completed,
        Outcome::Duplicate,
        Outcome::Retried,
        Outcome::Failed,
        Outcome::Skipped,
        Outcome::Requeued,
        Outcome::Refused,
        Outcome::Waiting,
    ];

    fn as_str(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Duplicate => "duplicate",
            Outcome::Retried => "retried",
            Outcome::Failed => "failed",
            Outcome::Skipped => "skipped",
            Outcome::Requeued => "requeued",
            Outcome::Refused => "refused",
            Outcome::Waiting => "waiting",
        }
    }
}

/// Backoff of queue-level retries: 1 s, 2 s, 4 s, ... capped at 60 s.
fn job_backoff(attempt: u32) -> Duration {
    Duration::from_secs(1u64 << attempt.min(6)).min(Duration::from_secs(60))
}

impl Worker {
    /// A worker over `store` and `queue` calling models through `gateway`.
    pub fn new(
        store: Arc<dyn Store>,
        queue: Arc<dyn Queue>,
        gateway: Gateway,
        ctx: SuiteContext,
        config: WorkerConfig,
    ) -> Worker {
        Worker {
            store,
            queue,
            gateway,
            ctx,
            config,
            sweeps: Mutex::default(),
            solutions: Mutex::default(),
            suites: Mutex::default(),
            admitted: Mutex::default(),
        }
    }

    /// Consumes the configured lanes until `cancel` fires; jobs in flight
    /// then have the configured grace to settle. A job still running after
    /// it is dropped unsettled (never half-recorded: a result is stored in
    /// one atomic step, and acked only after), so the queue delivers it
    /// again.
    pub async fn run(self: Arc<Self>, cancel: CancellationToken) {
        let m = Metrics::global();
        let mut lanes = JoinSet::new();
        for kind in self.config.lanes.clone() {
            // Every outcome exists from the start at 0, so rates and ratios
            // of rare outcomes (dead letters, requeues) read 0, not "no data".
            for outcome in Outcome::ALL {
                m.jobs.with_label_values(&[kind.as_str(), outcome.as_str()]);
            }
            m.workers.with_label_values(&[kind.as_str()]).set(1);
            let me = self.clone();
            let cancel = cancel.clone();
            lanes.spawn(async move { me.lane(kind, cancel).await });
        }
        while lanes.join_next().await.is_some() {}
        for kind in &self.config.lanes {
            m.workers.with_label_values(&[kind.as_str()]).set(0);
        }
    }

    async fn lane(self: Arc<Self>, kind: Lane, cancel: CancellationToken) {
        let mut jobs = JoinSet::new();
        'outer: while !cancel.is_cancelled() {
            let mut consumer = match self.queue.consume(kind, self.config.concurrency).await {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(kind = %kind, code = e.code(), error = %e, "Cannot consume; retrying in 1 s.");
                    tokio::select! {
                        _ = cancel.cancelled() => break,
                        _ = tokio::time::sleep(Duration::from_secs(1)) => continue,
                    }
                }
            };
            loop {
                // Reap finished jobs so the set does not grow without bound.
                while jobs.try_join_next().is_some() {}
                let next = tokio::select! {
                    _ = cancel.cancelled() => break 'outer,
                    n = consumer.next() => n,
                };
                match next {
                    Ok(Some(d)) => {
                        let me = self.clone();
                        jobs.spawn(async move { me.handle(kind, d).await });
                    }
                    Ok(None) => break 'outer,
                    Err(e) => {
                        tracing::warn!(kind = %kind, code = e.code(), error = %e, "Consumer failed; resubscribing.");
                        tokio::time::sleep(Duration::from_millis(500)).await;
                        continue 'outer;
                    }
                }
            }
        }
        self.drain(kind, jobs).await;
    }

    /// Waits for `jobs` to settle for at most the grace, then drops the rest.
    async fn drain(&self, kind: Lane, mut jobs: JoinSet<()>) {
        let settled = async { while jobs.join_next().await.is_some() {} };
        if tokio::time::timeout(self.config.grace, settled)
            .await
            .is_err()
        {
            tracing::warn!(
                kind = %kind,
                jobs = jobs.len(),
                grace_secs = self.config.grace.as_secs_f64(),
                "Grace over: jobs in flight stop unsettled and will be delivered again."
            );
            jobs.shutdown().await;
        }
    }

    async fn sweep(&self, id: &SweepId) -> Result<Option<Arc<SweepRecord>>, StoreError> {
        if let Some(r) = self
            .sweeps
            .lock()
            .expect("sweep cache lock is never poisoned")
            .get(id)
        {
            return Ok(Some(r.clone()));
        }
        let Some(rec) = self.store.sweep(id).await? else {
            return Ok(None);
        };
        let rec = Arc::new(rec);
        self.sweeps
            .lock()
            .expect("sweep cache lock is never poisoned")
            .insert(id.clone(), rec.clone());
        Ok(Some(rec))
    }

    async fn handle(&self, kind: Lane, d: Delivery) {
        let started = Instant::now();
        let outcome = match self.settle(d).await {
            Ok(o) => o,
            Err(e) => {
                if matches!(e, StoreError::Lost { .. }) {
                    // Read the sweep again next time: a coordinator re-registers it.
                    tracing::error!(error = %e, "The store lost a sweep; its jobs wait for a re-registration.");
                    self.forget_sweeps();
                }
                // The delivery was dropped unsettled: the queue delivers it again.
                tracing::warn!(kind = %kind, code = e.code(), error = %e, "Store unavailable; job left for redelivery.");
                tokio::time::sleep(Duration::from_millis(500)).await;
                Outcome::Requeued
            }
        };
        let m = Metrics::global();
        m.jobs
            .with_label_values(&[kind.as_str(), outcome.as_str()])
            .inc();
        m.job_duration
            .with_label_values(&[kind.as_str()])
            .observe(started.elapsed().as_secs_f64());
    }

    /// Runs and settles one delivery. A store error leaves it unsettled.
    async fn settle(&self, d: Delivery) -> Result<Outcome, StoreError> {
        if d.body.len() > MAX_ENVELOPE_BYTES {
            let reason = format!(
                "{} bytes; envelopes are at most {MAX_ENVELOPE_BYTES}",
                d.body.len()
            );
            return Ok(self.refuse(d, refusal::OVERSIZE, &reason).await);
        }
        let env: Envelope = match serde_json::from_slice(&d.body) {
            Ok(env) => env,
            Err(e) => {
                let reason = format!("not a job envelope: {e}");
                return Ok(self.refuse(d, refusal::BAD_MESSAGE, &reason).await);
            }
        };
        if env.v != FORMAT_VERSION {
            let reason = format!(
                "envelope format {} is not this worker's {FORMAT_VERSION}",
                env.v
            );
            return Ok(self.refuse(d, refusal::BAD_VERSION, &reason).await);
        }
        let Some(rec) = self.sweep(&env.sweep).await? else {
            return Ok(self.wait_for_sweep(d, &env).await);
        };
        match self.admit(&rec, &env).await? {
            Admission::Admitted => {}
            Admission::Refused(reason) => {
                return Ok(self.refuse(d, refusal::UNPLANNED, &reason).await)
            }
            Admission::Unregistered => return Ok(self.wait_for_sweep(d, &env).await),
        }
        if self.store.result(&env.sweep, &env.id).await?.is_some() {
            self.release(&rec, &env).await?;
            self.ack(d).await;
            return Ok(Outcome::Duplicate);
        }
        if let Some(budget) = rec.spec.budget_usd {
            if self.store.spend_nano_usd(&env.sweep).await? as f64 >= budget * NANO {
                return self.skip(&rec, &env, d, budget).await;
            }
        }
        match self.execute(&rec, &env).await {
            Ok(result) => {
                self.store.record(&env.sweep, &result).await?;
                self.release(&rec, &env).await?;
                self.ack(d).await;
                Ok(Outcome::Completed)
            }
            Err(e) => match e.class() {
                ErrorClass::Budget => {
                    self.skip(&rec, &env, d, rec.spec.budget_usd.unwrap_or(0.0))
                        .await
                }
                ErrorClass::Permanent => self.fail(&rec, &env, d, e.code(), &e.to_string()).await,
                ErrorClass::Transient { retry_after } | ErrorClass::RateLimited { retry_after } => {
                    if env.attempt + 1 >= self.config.max_job_attempts {
                        let reason = format!(
                            "gave up after {} attempts; last error: {e}",
                            env.attempt + 1
                        );
                        return self.fail(&rec, &env, d, e.code(), &reason).await;
                    }
                    let mut next = env.clone();
                    next.attempt += 1;
                    let after = retry_after.unwrap_or_else(|| job_backoff(env.attempt));
                    tracing::info!(job = %env.id, code = e.code(), attempt = next.attempt, "Job retried later.");
                    if let Err(qe) = d.retry(&next, after).await {
                        tracing::warn!(job = %env.id, code = qe.code(), "Retry publish failed; the broker redelivers the job.");
                    }
                    Ok(Outcome::Retried)
                }
            },
        }
    }

    async fn ack(&self, d: Delivery) {
        if let Err(e) = d.ack().await {
            // The result is stored; a redelivery will find it and ack then.
            tracing::warn!(code = e.code(), error = %e, "Ack failed; the job will be redelivered as a duplicate.");
        }
    }

    fn forget_sweeps(&self) {
        self.sweeps
            .lock()
            .expect("sweep cache lock is never poisoned")
            .clear();
        self.admitted
            .lock()
            .expect("admitted-item lock is never poisoned")
            .clear();
    }

    /// Dead-letters a message that is no planned job; nothing is recorded.
    async fn refuse(&self, d: Delivery, code: &str, reason: &str) -> Outcome {
        tracing::warn!(code, reason, "Refusing a message that is no planned job.");
        self.bury(d, code, reason).await;
        Outcome::Refused
    }

    /// Puts a job of an unregistered sweep back on its queue to look again
    /// later; past [`WorkerConfig::sweep_wait`] it is dead-lettered as
    /// [`SWEEP_NOT_REGISTERED`] (no refusal: a registration admits it).
    async fn wait_for_sweep(&self, d: Delivery, env: &Envelope) -> Outcome {
        let (step, waits) = self.config.sweep_waits();
        if env.waited >= waits {
            let reason = format!(
                "sweep {} was not registered in the store for {} s",
                env.sweep,
                self.config.sweep_wait.as_secs()
            );
            tracing::warn!(job = %env.id, sweep = %env.sweep, "Job dead-lettered: its sweep stayed unregistered.");
            self.bury(d, SWEEP_NOT_REGISTERED, &reason).await;
            return Outcome::Failed;
        }
        let mut next = env.clone();
        next.waited += 1;
        tracing::info!(job = %env.id, sweep = %env.sweep, waited = next.waited, "Sweep not registered; the job waits for it.");
        if let Err(e) = d.retry(&next, step).await {
            tracing::warn!(job = %env.id, code = e.code(), "Retry publish failed; the broker redelivers the job.");
        }
        Outcome::Waiting
    }

    /// Whether `env` is a job of `rec`'s plan and of one of its planned
    /// items. A sweep registers its items before itself, so an item missing
    /// while the sweep is registered is one it never planned; missing
    /// because the store lost the sweep, it waits for the registration.
    async fn admit(&self, rec: &SweepRecord, env: &Envelope) -> Result<Admission, StoreError> {
        let cell = &env.job.cell;
        let Some(plan) = rec.plan_of(&cell.suite) else {
            return Ok(Admission::Refused(format!(
                "suite {:?} is not in the sweep",
                cell.suite
            )));
        };
        if let Err(why) = plan.admits(env) {
            return Ok(Admission::Refused(why));
        }
        let key = (rec.id.clone(), env.job.item_key());
        if self
            .admitted
            .lock()
            .expect("admitted-item lock is never poisoned")
            .contains(&key)
        {
            return Ok(Admission::Admitted);
        }
        if !self.store.item_planned(&rec.id, &key.1).await? {
            // The cached record may outlive the store's: ask it again.
            self.sweeps
                .lock()
                .expect("sweep cache lock is never poisoned")
                .remove(&rec.id);
            if self.sweep(&rec.id).await?.is_none() {
                return Ok(Admission::Unregistered);
            }
            if !self.store.item_planned(&rec.id, &key.1).await? {
                return Ok(Admission::Refused(format!(
                    "item {:?} of {}/{} (with this content) is not one the sweep planned",
                    env.job.item.id, cell.suite, cell.dataset
                )));
            }
        }
        let mut admitted = self
            .admitted
            .lock()
            .expect("admitted-item lock is never poisoned");
        // A bound, not an eviction policy: past it, items are asked again.
        if admitted.len() >= ADMITTED_ITEMS {
            admitted.clear();
        }
        admitted.insert(key);
        Ok(Admission::Admitted)
    }

    async fn bury(&self, d: Delivery, code: &str, reason: &str) {
        if let Err(e) = d.dead_letter(code, reason).await {
            tracing::warn!(code = e.code(), error = %e, "Dead-lettering failed; the message will be redelivered.");
        }
    }

    async fn fail(
        &self,
        rec: &SweepRecord,
        env: &Envelope,
        d: Delivery,
        code: &str,
        reason: &str,
    ) -> Result<Outcome, StoreError> {
        tracing::warn!(job = %env.id, stage = env.stage(), code, reason, "Job failed permanently.");
        let failure = Failure {
            id: env.id.clone(),
            stage: Some(env.stage().to_string()),
            code: code.to_string(),
            reason: reason.to_string(),
            attempts: env.attempt + 1,
        };
        self.store.fail(&env.sweep, &failure).await?;
        self.release(rec, env).await?;
        self.bury(d, code, reason).await;
        Ok(Outcome::Failed)
    }

    async fn skip(
        &self,
        rec: &SweepRecord,
        env: &Envelope,
        d: Delivery,
        budget: f64,
    ) -> Result<Outcome, StoreError> {
        let failure = Failure {
            id: env.id.clone(),
            stage: Some(env.stage().to_string()),
            code: BUDGET_CODE.into(),
            reason: format!("not run: the sweep budget of {budget} USD is spent"),
            attempts: env.attempt,
        };
        self.store.fail(&env.sweep, &failure).await?;
        self.release(rec, env).await?;
        self.ack(d).await;
        Ok(Outcome::Skipped)
    }

    /// Publishes (or fails) the jobs that read `env`, now that it is settled.
    async fn release(&self, rec: &SweepRecord, env: &Envelope) -> Result<(), StoreError> {
        let mut seen = HashSet::new();
        release(
            self.store.as_ref(),
            self.queue.as_ref(),
            rec,
            env,
            Walk::Dependents,
            &mut seen,
        )
        .await?;
        Ok(())
    }
}
