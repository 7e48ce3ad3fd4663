//! A sweep's court: the tasks its suites declare over its stored results,
//! checked whole (unique ids, known kinds, a pair's two artifacts).

use super::ReviewError;
use crate::report::cells_of;
use adfarm_backbone::{Store, SweepRecord};
use adfarm_proto::report::CellRow;
use adfarm_proto::JobResult;
use adfarm_suites::{ReviewForm, ReviewKind, ReviewTask, Reviewables, SuiteContext};
use std::collections::{BTreeMap, HashMap};

/// A review kind and the suite that declared it.
#[derive(Debug, Clone, PartialEq)]
pub struct CourtKind {
    /// The suite.
    pub suite: String,
    /// The kind.
    pub kind: ReviewKind,
}

/// A task and the suite that declared it.
#[derive(Debug, Clone, PartialEq)]
pub struct CourtTask {
    /// The suite.
    pub suite: String,
    /// The task.
    pub task: ReviewTask,
}

/// Every reviewable task of one sweep.
#[derive(Debug, Clone)]
pub struct Court {
    /// The sweep.
    pub sweep: SweepRecord,
    /// The kinds, suite by suite in sweep order.
    pub kinds: Vec<CourtKind>,
    /// The tasks, suite by suite in the order each declared them.
    pub tasks: Vec<CourtTask>,
    by_id: HashMap<String, usize>,
    kind_of: HashMap<(String, String), usize>,
}

impl Court {
    /// A court over `declared`: each suite's name and what it declared.
    ///
    /// # Errors
    /// [`ReviewError::Declared`] for a task of an undeclared kind, a task
    /// id used twice, or a pair without exactly two artifacts (a rating
    /// without exactly one).
    pub fn new(
        sweep: SweepRecord,
        declared: Vec<(String, Reviewables)>,
    ) -> Result<Court, ReviewError> {
        let mut court = Court {
            sweep,
            kinds: Vec::new(),
            tasks: Vec::new(),
            by_id: HashMap::new(),
            kind_of: HashMap::new(),
        };
        for (suite, r) in declared {
            for kind in r.kinds {
                let key = (suite.clone(), kind.id.clone());
                if court.kind_of.insert(key, court.kinds.len()).is_some() {
                    return Err(declared_error(&suite, format!("kind {:?} twice", kind.id)));
                }
                court.kinds.push(CourtKind {
                    suite: suite.clone(),
                    kind,
                });
            }
            for task in r.tasks {
                let Some(&k) = court.kind_of.get(&(suite.clone(), task.kind.clone())) else {
                    return Err(declared_error(
                        &suite,
                        format!("task {} is of undeclared kind {:?}", task.id, task.kind),
                    ));
                };
                let want = if court.kinds[k].kind.form.is_pair() {
                    2
                } else {
                    1
                };
                if task.artifacts.len() != want {
                    return Err(declared_error(
                        &suite,
                        format!(
                            "task {} has {} artifacts; a {} has {want}",
                            task.id,
                            task.artifacts.len(),
                            if want == 2 { "pair" } else { "rating" }
                        ),
                    ));
                }
                if court
                    .by_id
                    .insert(task.id.clone(), court.tasks.len())
                    .is_some()
                {
                    return Err(declared_error(&suite, format!("task id {} twice", task.id)));
                }
                court.tasks.push(CourtTask {
                    suite: suite.clone(),
                    task,
                });
            }
        }
        Ok(court)
    }

    /// The court of sweep `rec`: each of its suites' tasks over the
    /// sweep's stored results, read in one pass.
    ///
    /// # Errors
    /// When the store fails, a suite is not served by this binary, or a
    /// suite's declaration is invalid.
    pub async fn load(
        store: &dyn Store,
        rec: &SweepRecord,
        ctx: &SuiteContext,
    ) -> Result<Court, ReviewError> {
        let cells = cells_of(&store.tally(&rec.id).await?);
        let results = crate::report::by_suite(store.results(&rec.id).await?);
        Court::of(rec, ctx, &cells, &results)
    }

    /// The court of sweep `rec` over its cells and its stored results per
    /// suite (already read, as a report has them).
    ///
    /// # Errors
    /// A suite not served by this binary, or a suite's declaration is
    /// invalid.
    pub fn of(
        rec: &SweepRecord,
        ctx: &SuiteContext,
        cells: &[CellRow],
        results: &BTreeMap<String, Vec<JobResult>>,
    ) -> Result<Court, ReviewError> {
        let declared = crate::report::ask_suites(rec, ctx, cells, results, |suite, input| {
            Ok((suite.name().to_string(), suite.reviews(input)?))
        })?;
        Court::new(rec.clone(), declared)
    }

    /// The task with id `id`.
    pub fn task(&self, id: &str) -> Option<&CourtTask> {
        self.by_id.get(id).map(|&i| &self.tasks[i])
    }

    /// The kind of `task`.
    pub fn kind_of(&self, task: &CourtTask) -> &CourtKind {
        let i = self.kind_of[&(task.suite.clone(), task.task.kind.clone())];
        &self.kinds[i]
    }

    /// The form of `task`'s kind.
    pub fn form_of(&self, task: &CourtTask) -> &ReviewForm {
        &self.kind_of(task).kind.form
    }

    /// Tasks per kind, in kind order.
    pub fn count_by_kind(&self) -> Vec<(&CourtKind, usize)> {
        self.kinds
            .iter()
            .map(|k| {
                let n = self
                    .tasks
                    .iter()
                    .filter(|t| t.suite == k.suite && t.task.kind == k.kind.id)
                    .count();
                (k, n)
            })
            .collect()
    }
}

fn declared_error(suite: &str, reason: String) -> ReviewError {
    ReviewError::Declared {
        suite: suite.to_string(),
        reason,
    }
}
