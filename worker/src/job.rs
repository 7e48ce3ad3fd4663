//! What one job does: find its suite and solution (built once per sweep
//! and process), bind the models it may call, then solve the item or run
//! the stage on its settled inputs. The result carries the usage logged.

use crate::execute::Worker;
use crate::gateway::UsageLog;
use adfarm_backbone::metrics::Metrics;
use adfarm_backbone::{StoreError, SweepRecord};
use adfarm_llm::{Embedder, LlmError};
use adfarm_proto::{Envelope, JobId, JobResult, Role, Verdict};
use adfarm_suites::{DataError, JobError, Models, Solution, StageJob, StageModels, Suite};
use std::sync::Arc;

impl Worker {
    pub(crate) fn suite(&self, name: &str) -> Option<Arc<dyn Suite>> {
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

    pub(crate) fn solution(
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

    /// Runs the job: solves its item, or runs its stage on its inputs.
    pub(crate) async fn execute(
        &self,
        rec: &SweepRecord,
        env: &Envelope,
    ) -> Result<JobResult, JobError> {
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
        let plan = rec
            .plan_of(&cell.suite)
            .ok_or_else(|| data_error("suite", format!("sweep has no suite {:?}", cell.suite)))?;
        if env.job.is_solve() {
            let spec = plan.solution(&cell.solution).ok_or_else(|| {
                data_error(
                    "solution",
                    format!("sweep has no solution {:?}", cell.solution),
                )
            })?;
            let solution = self.solution(rec, &cell.suite, &cell.solution)?;
            let llm = self
                .gateway
                .bind(rec, &spec.provider, solution.role(), log.clone())?;
            // A solution may embed with its own model (an ablation of it).
            let own_embedder = match &spec.embedder {
                Some(name) => Some(self.gateway.bind(rec, name, Role::Embedding, log.clone())?),
                None => None,
            };
            let models = Models {
                llm: &llm,
                embedder: own_embedder
                    .as_ref()
                    .or(sweep_embedder.as_ref())
                    .map(|e| e as &dyn Embedder),
            };
            let mut inputs = Vec::new();
            for stored in self.inputs(env, plan.inputs(env)).await? {
                // A solve runs only once every stage it reads succeeded.
                inputs.push(stored.ok_or_else(|| {
                    data_error("inputs", "a stage this solve reads failed".into())
                })?);
            }
            let solved = solution
                .solve_reading(&env.job.item, models, cell.seed, &inputs)
                .await?;
            result.output = Some(solved.output);
            result.scores = solved.scores;
        } else {
            let suite = self
                .suite(&cell.suite)
                .ok_or_else(|| data_error("suite", format!("unknown suite {:?}", cell.suite)))?;
            let stage = plan.pipeline.stage(&env.job.stage).ok_or_else(|| {
                data_error(
                    "stage",
                    format!("suite {} declares no stage {:?}", cell.suite, env.job.stage),
                )
            })?;
            let inputs = self.inputs(env, plan.inputs(env)).await?;
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
                solution: plan.solution(&cell.solution),
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

    /// The stored results of `ids`, `None` for a failed one; an input not
    /// settled yet is [`JobError::MissingInput`] (retried).
    async fn inputs(
        &self,
        env: &Envelope,
        ids: Vec<JobId>,
    ) -> Result<Vec<Option<JobResult>>, JobError> {
        let mut inputs = Vec::with_capacity(ids.len());
        for id in ids {
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
        Ok(inputs)
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
