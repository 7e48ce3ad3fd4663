//! The worker loop: take a job, run it, store the result (aggregates move in
//! the same atomic step), publish its follow-ups, and only then settle the
//! delivery. Retry policy lives here, driven by `JobError::class()`.

use crate::gateway::{Gateway, UsageLog};
use adfarm_backbone::metrics::Metrics;
use adfarm_backbone::{release, Delivery, Queue, Store, StoreError, SweepRecord, Walk};
use adfarm_llm::{Embedder, ErrorClass, LlmError};
use adfarm_proto::tally::{BUDGET_CODE, NANO};
use adfarm_proto::{Envelope, Failure, JobResult, Lane, Role, SweepId, Verdict, FORMAT_VERSION};
use adfarm_suites::{
    DataError, JobError, Models, Solution, StageJob, StageModels, Suite, SuiteContext,
};
use std::collections::HashMap;
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
}

impl Default for WorkerConfig {
    fn default() -> Self {
        WorkerConfig {
            lanes: Lane::ALL.to_vec(),
            concurrency: 16,
            max_job_attempts: 5,
        }
    }
}

/// A built solution's identity: (sweep, suite, solution name).
type SolutionKey = (SweepId, String, String);

/// Runs jobs from a queue against a store.
pub struct Worker {
    store: Arc<dyn Store>,
    queue: Arc<dyn Queue>,
    gateway: Gateway,
    ctx: SuiteContext,
    config: WorkerConfig,
    sweeps: Mutex<HashMap<SweepId, Arc<SweepRecord>>>,
    // Two suites may offer one solution name, so the suite is in the key.
    solutions: Mutex<HashMap<SolutionKey, Arc<dyn Solution>>>,
    // Suites load datasets lazily and keep them: one instance per process.
    suites: Mutex<HashMap<String, Arc<dyn Suite>>>,
}

/// What became of one delivery (also the `outcome` metric label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Completed,
    Duplicate,
    Retried,
    Failed,
    Skipped,
    Requeued,
}

impl Outcome {
    const ALL: [Outcome; 6] = [
        Outcome::Completed,
        Outcome::Duplicate,
        Outcome::Retried,
        Outcome::Failed,
        Outcome::Skipped,
        Outcome::Requeued,
    ];

    fn as_str(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Duplicate => "duplicate",
            Outcome::Retried => "retried",
            Outcome::Failed => "failed",
            Outcome::Skipped => "skipped",
            Outcome::Requeued => "requeued",
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
        }
    }

    /// Consumes the configured lanes until `cancel` fires; jobs in flight
    /// finish and settle before it returns.
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
        while jobs.join_next().await.is_some() {}
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
        let env: Envelope = match serde_json::from_slice(&d.body) {
            Ok(env) => env,
            Err(e) => {
                let reason = format!("not a job envelope: {e}");
                tracing::warn!(code = "bad-message", reason = %reason, "Dead-lettering an unreadable message.");
                self.bury(d, "bad-message", &reason).await;
                return Ok(Outcome::Failed);
            }
        };
        if env.v != FORMAT_VERSION {
            let reason = format!(
                "envelope format {} is not this worker's {FORMAT_VERSION}",
                env.v
            );
            self.bury(d, "bad-version", &reason).await;
            return Ok(Outcome::Failed);
        }
        let Some(rec) = self.sweep(&env.sweep).await? else {
            self.bury(
                d,
                "unknown-sweep",
                &format!("sweep {} is not registered in the store", env.sweep),
            )
            .await;
            return Ok(Outcome::Failed);
        };
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
        let mut seen = std::collections::HashSet::new();
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

    fn suite(&self, name: &str) -> Option<Arc<dyn Suite>> {
        let mut suites = self
            .suites
            .lock()
            .expect("suite cache lock is never poisoned");
        if let Some(s) = suites.get(name) {
            return Some(s.clone());
        }
        let suite = adfarm_suites::suite(name, &self.ctx)?;
        suites.insert(name.to_string(), suite.clone());
        Some(suite)
    }

    fn solution(
        &self,
        rec: &SweepRecord,
        suite: &str,
        name: &str,
    ) -> Result<Arc<dyn Solution>, JobError> {
        let key = (rec.id.clone(), suite.to_string(), name.to_string());
        if let Some(s) = self
            .solutions
            .lock()
            .expect("solution cache lock is never poisoned")
            .get(&key)
        {
            return Ok(s.clone());
        }
        let spec = rec
            .plan_of(suite)
            .and_then(|plan| plan.solution(name))
            .ok_or_else(|| {
                data_error(
                    "solution",
                    format!("suite {suite} runs no solution {name:?} in this sweep"),
                )
            })?;
        let sol = self
            .suite(suite)
            .ok_or_else(|| data_error("suite", format!("unknown suite {suite:?}")))?
            .solution(spec)?;
        self.solutions
            .lock()
            .expect("solution cache lock is never poisoned")
            .insert(key, sol.clone());
        Ok(sol)
    }

    async fn execute(&self, rec: &SweepRecord, env: &Envelope) -> Result<JobResult, JobError> {
        let cell = env.job.cell.clone();
        let log = UsageLog::default();
        let mut result = JobResult {
            id: env.id.clone(),
            stage: env.job.stage.clone(),
            cell: cell.clone(),
            item: env.job.item.id.clone(),
            judge: env.job.variant.column.clone(),
            output: None,
            scores: vec![],
            usage: vec![],
        };
        let sweep_embedder = match &rec.spec.embedder {
            Some(name) => Some(self.gateway.bind(rec, name, Role::Embedding, log.clone())?),
            None => None,
        };
        if env.job.is_solve() {
            let spec = rec
                .plan_of(&cell.suite)
                .and_then(|plan| plan.solution(&cell.solution))
                .ok_or_else(|| {
                    data_error(
                        "solution",
                        format!("sweep has no solution {:?}", cell.solution),
                    )
                })?;
            let solution = self.solution(rec, &cell.suite, &cell.solution)?;
            let llm = self
                .gateway
                .bind(rec, &spec.provider, solution.role(), log.clone())?;
            let models = Models {
                llm: &llm,
                embedder: sweep_embedder.as_ref().map(|e| e as &dyn Embedder),
            };
            let solved = solution.solve(&env.job.item, models, cell.seed).await?;
            result.output = Some(solved.output);
            result.scores = solved.scores;
        } else {
            let suite = self
                .suite(&cell.suite)
                .ok_or_else(|| data_error("suite", format!("unknown suite {:?}", cell.suite)))?;
            let plan = rec.plan_of(&cell.suite).ok_or_else(|| {
                data_error("suite", format!("sweep has no suite {:?}", cell.suite))
            })?;
            let stage = plan.pipeline.stage(&env.job.stage).ok_or_else(|| {
                data_error(
                    "stage",
                    format!("suite {} declares no stage {:?}", cell.suite, env.job.stage),
                )
            })?;
            let mut inputs = Vec::new();
            for id in plan.inputs(env) {
                let stored = self.store.result(&env.sweep, &id).await.map_err(infra)?;
                if stored.is_none()
                    && !self
                        .store
                        .settled(&env.sweep, std::slice::from_ref(&id))
                        .await
                        .map_err(infra)?[0]
                {
                    return Err(JobError::MissingInput(id.0));
                }
                inputs.push(stored);
            }
            let provider = env.job.variant.provider.as_deref();
            let (llm, embedder) = match provider {
                Some(name) if stage.role == Role::Embedding => (
                    None,
                    Some(self.gateway.bind(rec, name, Role::Embedding, log.clone())?),
                ),
                Some(name) => (
                    Some(self.gateway.bind(rec, name, stage.role, log.clone())?),
                    sweep_embedder,
                ),
                None => (None, sweep_embedder),
            };
            let job = StageJob {
                stage: &env.job.stage,
                cell: &cell,
                item: &env.job.item,
                variant: &env.job.variant,
                inputs: &inputs,
            };
            let models = StageModels {
                llm: llm.as_ref().map(|l| l as &dyn adfarm_llm::Provider),
                embedder: embedder.as_ref().map(|e| e as &dyn Embedder),
            };
            let out = suite.run_stage(job, models).await?;
            result.output = out.output;
            result.scores = out.scores;
            if stage.role == Role::Judge {
                if let Some(name) = provider {
                    count_verdicts(&llm_model(rec, name), &result);
                }
            }
        }
        result.usage = log.take();
        Ok(result)
    }
}

fn data_error(field: &str, reason: String) -> JobError {
    JobError::Data(DataError::Param {
        field: field.into(),
        reason,
    })
}

fn infra(e: StoreError) -> JobError {
    JobError::Llm(LlmError::Infra(e.to_string()))
}

/// Judge verdicts by model and metric, scored or not.
fn count_verdicts(model: &str, result: &JobResult) {
    let m = Metrics::global();
    for s in &result.scores {
        let scored = matches!(s.verdict, Verdict::Score(_));
        let (verdict, other) = if scored {
            ("scored", "unscored")
        } else {
            ("unscored", "scored")
        };
        m.judge_verdicts
            .with_label_values(&[model, &s.metric, verdict])
            .inc();
        // Both verdicts exist, so the parse-failure share reads 0, not "no data".
        m.judge_verdicts
            .with_label_values(&[model, &s.metric, other]);
    }
}

fn llm_model(rec: &SweepRecord, provider: &str) -> String {
    rec.spec
        .provider(provider)
        .map_or_else(|| provider.to_string(), |p| p.model.clone())
}
