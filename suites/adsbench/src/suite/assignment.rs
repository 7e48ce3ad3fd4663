//! What a solve job runs, whichever the agent: a seeded scenario (the
//! `scenarios` dataset) or a gauntlet task (the `gauntlet` dataset, its
//! account, events, brief and grading; a `redteam` scenario is one with
//! its attack armed and judged). Scripted and model agents share
//! these steps: prepare the sandbox and the harness, tell the brief, then
//! turn the end state into an outcome, a task's verdict and scores.

use super::gauntlet::labels::Cause;
use super::gauntlet::{grade, Task, TaskVerdict};
use super::harness::{ApiRun, Harness, Plan};
use super::model_agent::brief;
use super::outcome::{self, Outcome, RunError};
use super::redteam::run::judge;
use super::scenario::Scenario;
use crate::sandbox::Sandbox;
use adfarm_proto::{Item, Score, Verdict};
use adfarm_suite::DataError;
use serde::{Deserialize, Serialize};

/// A solve job's assignment.
#[derive(Debug, Clone, PartialEq)]
pub enum Assignment {
    /// A seeded market scenario.
    Scenario(Scenario),
    /// A graded gauntlet task.
    Task(Box<Task>),
}

/// Metric names of a task's scores, after the episode's.
pub const TASK_METRICS: [&str; 4] = [
    "task-passed",
    "predicates-held",
    "collateral-changes",
    "diagnosis-correct",
];

impl Assignment {
    /// The assignment `item` carries: a task's meta names its modality.
    ///
    /// # Errors
    /// [`DataError::Param`] when the meta is neither a valid task nor a
    /// valid scenario.
    pub fn of(item: &Item) -> Result<Assignment, DataError> {
        if item.meta.get("modality").is_some() {
            return Ok(Assignment::Task(Box::new(Task::of(item)?)));
        }
        Ok(Assignment::Scenario(Scenario::of(item)?))
    }

    /// The scenario the assignment runs as: a task's market and budget
    /// without its account or events ([`Task::as_scenario`]).
    ///
    /// # Errors
    /// A task whose dates do not read.
    pub fn scenario(&self) -> Result<Scenario, String> {
        match self {
            Assignment::Scenario(s) => Ok(s.clone()),
            Assignment::Task(t) => t.as_scenario(),
        }
    }

    /// The market's sandbox ready for the agent's first decision, the
    /// harness that runs the rest, and the scenario the outcome is of.
    ///
    /// # Errors
    /// The market refused the scenario or the task's account.
    pub fn prepare(&self, item: &str) -> Result<(Scenario, Sandbox, Harness), DataError> {
        let refused = |reason: String| DataError::Param {
            field: format!("item {item}: meta"),
            reason,
        };
        match self {
            Assignment::Scenario(s) => {
                let market = s.market().map_err(|e| refused(e.to_string()))?;
                Ok((s.clone(), Sandbox::new(market), Harness::new(s.plan())))
            }
            Assignment::Task(t) => {
                let scenario = t.as_scenario().map_err(refused)?;
                let (sandbox, harness) =
                    super::gauntlet::run::prepare(t).map_err(|e| refused(e.to_string()))?;
                Ok((scenario, sandbox, harness))
            }
        }
    }

    /// What a model agent is told of its task: the advertiser's words.
    pub fn brief(&self) -> String {
        match self {
            Assignment::Scenario(s) => brief(s),
            Assignment::Task(t) => t.brief.clone(),
        }
    }

    /// The causes a diagnosis chooses from, on a task that asks for one.
    pub fn causes(&self) -> Option<Vec<&'static str>> {
        match self {
            Assignment::Task(t) if t.diagnosis.is_some() => {
                Some(Cause::ALL.iter().map(|c| c.name()).collect())
            }
            _ => None,
        }
    }

    /// The episode's outcome and, for a task, its verdict.
    ///
    /// # Errors
    /// The run stopped before the end.
    pub fn finish(
        &self,
        item: &str,
        scenario: &Scenario,
        plan: &Plan,
        sandbox: &Sandbox,
        run: ApiRun,
        diagnosis: Option<&str>,
    ) -> Result<Graded, DataError> {
        let (verdict, red_team) = match self {
            Assignment::Task(t) => (
                Some(grade(t, sandbox.market(), &run.changes, diagnosis)),
                t.attack.as_ref().map(|a| judge(a, &run.changes, sandbox).0),
            ),
            Assignment::Scenario(_) => (None, None),
        };
        let mut outcome = outcome::of(scenario, plan, sandbox, run).map_err(|e| match e {
            RunError::Market(e) => DataError::Param {
                field: format!("item {item}: meta"),
                reason: e.to_string(),
            },
            RunError::Cancelled { ticks } => DataError::Param {
                field: format!("item {item}"),
                reason: format!("cancelled after {ticks} ticks"),
            },
        })?;
        if let Some(r) = &red_team {
            outcome.policy_violations = Some(r.policy_violations);
        }
        outcome.red_team = red_team;
        if let Assignment::Task(t) = self {
            outcome.reference_operations = Some(t.reference_operations());
        }
        Ok(Graded { outcome, verdict })
    }
}

/// An episode's outcome and, for a task, its verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Graded {
    /// The episode.
    pub outcome: Outcome,
    /// The task's verdict.
    pub verdict: Option<TaskVerdict>,
}

impl Graded {
    /// The episode's scores, then a task's.
    pub fn scores(&self) -> Vec<Score> {
        let mut scores = self.outcome.scores();
        if let Some(v) = &self.verdict {
            let held = v.predicates.iter().filter(|(_, h)| *h).count();
            let share = (!v.predicates.is_empty()).then(|| held as f64 / v.predicates.len() as f64);
            let score = |metric: &str, verdict: Verdict| Score {
                metric: metric.into(),
                verdict,
            };
            scores.extend([
                score(
                    TASK_METRICS[0],
                    Verdict::Score(f64::from(u8::from(v.passed))),
                ),
                score(
                    TASK_METRICS[1],
                    share.map_or_else(|| Verdict::Unscored("no-predicate".into()), Verdict::Score),
                ),
                score(TASK_METRICS[2], Verdict::Score(v.collateral.len() as f64)),
                score(
                    TASK_METRICS[3],
                    v.diagnosis_correct.map_or_else(
                        || Verdict::Unscored("no-diagnosis-asked".into()),
                        |c| Verdict::Score(f64::from(u8::from(c))),
                    ),
                ),
            ]);
        }
        scores
    }

    /// What a solve stored, read back ([`Graded::meta`]'s inverse; the
    /// other fields a solution stores beside it are ignored).
    ///
    /// # Errors
    /// The outcome or the verdict does not read, named with serde's reason.
    pub fn from_meta(meta: &serde_json::Value) -> Result<Graded, String> {
        let outcome: Outcome = serde_json::from_value(meta.clone())
            .map_err(|e| format!("its stored outcome is unreadable: {e}"))?;
        let verdict = meta
            .get("verdict")
            .map(|v| serde_json::from_value(v.clone()))
            .transpose()
            .map_err(|e| format!("its stored verdict is unreadable: {e}"))?;
        Ok(Graded { outcome, verdict })
    }

    /// What a solve stores: the outcome, with the verdict beside it.
    pub fn meta(&self) -> serde_json::Value {
        let mut meta = serde_json::to_value(&self.outcome).expect("an outcome serialises");
        if let Some(v) = &self.verdict {
            meta["verdict"] = serde_json::to_value(v).expect("a verdict serialises");
        }
        meta
    }
}
