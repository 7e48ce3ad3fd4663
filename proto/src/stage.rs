//! Stages: what a suite runs after (or beside) solving an item, declared as
//! data so that planning, workers, autoscaling and the chart read one
//! description and never name a suite.
//!
//! A sweep runs, per suite, a [`Pipeline`]: the built-in `solve` stage (a
//! solution on an item, once per seed) and the suite's declared stages. A
//! stage has a [`Scope`] (one job per run, per item, or per item × solution
//! over all seeds), the stages it reads (`after`), the [`Lane`] it queues on
//! and one job per [`Variant`] (e.g. one per judge).

use crate::outcome::Role;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Name of the built-in stage that runs a solution on an item.
pub const SOLVE: &str = "solve";

/// The queue a job waits on, named for the resource that bounds it. Lanes
/// are few and stable, so queues, worker pools and autoscaling are per lane
/// whatever suites a sweep runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lane {
    /// Solving items: generation, agent episodes (model-bound).
    Solve,
    /// Model-bound scoring: LLM judges.
    Model,
    /// Embedding-bound scoring.
    Embed,
    /// CPU-bound work: replays, simulations, aggregates over runs.
    Cpu,
}

impl Lane {
    /// Every lane.
    pub const ALL: [Lane; 4] = [Lane::Solve, Lane::Model, Lane::Embed, Lane::Cpu];

    /// Stable name used in queue names, metric labels and pool configs.
    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Solve => "solve",
            Lane::Model => "model",
            Lane::Embed => "embed",
            Lane::Cpu => "cpu",
        }
    }

    /// Parses [`Lane::as_str`] output.
    pub fn parse(s: &str) -> Option<Lane> {
        Lane::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

impl fmt::Display for Lane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How many jobs a stage has and which coordinates they carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// One job per item × solution × seed: a run, or a stage of one run
    /// (a judge of one response).
    Run,
    /// One job per item, shared by every solution and seed (the ground
    /// truth of a task that every agent's episode is checked against).
    Item,
    /// One job per item × solution, once all of its seeds' inputs are
    /// settled (Pass@k over n runs).
    Runs,
}

impl Scope {
    /// Whether a stage of this scope may read a stage of scope `input`:
    /// inputs are as coarse as the reader or coarser (an item's ground
    /// truth feeds runs; runs feed an aggregate over them).
    pub fn may_read(self, input: Scope) -> bool {
        matches!(
            (self, input),
            (Scope::Item, Scope::Item) | (Scope::Run, Scope::Item | Scope::Run) | (Scope::Runs, _)
        )
    }
}

/// One job of a stage per variant: the provider it calls (a judge, an
/// embedder) and the column its scores are reported under.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Variant {
    /// Provider the job calls, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Scorer column of its scores (the tally's judge column); `None`
    /// reports under [`crate::tally::NO_JUDGE`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
}

impl Variant {
    /// A variant calling no provider.
    pub fn none() -> Variant {
        Variant::default()
    }

    /// True for [`Variant::none`] (left out of job specs).
    pub fn is_none(&self) -> bool {
        self.provider.is_none() && self.column.is_none()
    }
}

/// A stage a suite declares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stage {
    /// Name, unique in the suite (`judge`, `replay`, `pass-at-k`...);
    /// also the job-count row in reports.
    pub name: String,
    /// Queue its jobs wait on.
    pub lane: Lane,
    /// Jobs per item, run or runs.
    pub scope: Scope,
    /// Stages whose results it reads ([`SOLVE`] or declared names); it
    /// runs once all of them are settled.
    pub after: Vec<String>,
    /// Role its provider calls are charged as.
    pub role: Role,
    /// One job per variant.
    pub variants: Vec<Variant>,
    /// Runs even when some inputs failed, seeing the ones that succeeded
    /// (an aggregate over runs counts a failed run); otherwise a failed
    /// input fails the job without running it.
    #[serde(default)]
    pub partial: bool,
    /// The solutions (by label) it runs for; empty: every solution. An
    /// [`Scope::Item`] stage has no solution and ignores it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub solutions: Vec<String>,
    /// Whether the solve of each solution it runs for reads it (a policy
    /// trained before evaluation): the solve waits for it and is given its
    /// result. It must not read the solve itself, directly or through
    /// another stage.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_by_solve: bool,
}

impl Stage {
    /// Whether it runs for the solution labelled `solution`.
    pub fn runs_for(&self, solution: &str) -> bool {
        self.scope == Scope::Item
            || self.solutions.is_empty()
            || self.solutions.iter().any(|s| s == solution)
    }

    /// The usual LLM-as-judge stage: after `solve`, on the model lane, one
    /// job per run and per judge, each reported under the judge's name.
    pub fn per_judge(name: &str, judges: &[String]) -> Stage {
        Stage {
            name: name.to_string(),
            lane: Lane::Model,
            scope: Scope::Run,
            after: vec![SOLVE.to_string()],
            role: Role::Judge,
            variants: judges
                .iter()
                .map(|j| Variant {
                    provider: Some(j.clone()),
                    column: Some(j.clone()),
                })
                .collect(),
            partial: false,
            solutions: Vec::new(),
            read_by_solve: false,
        }
    }
}

/// What one suite runs in a sweep: its solutions and its stages.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Pipeline {
    /// Indices into the sweep's solutions that this suite runs.
    pub solutions: Vec<usize>,
    /// Declared stages, each after the stages it reads.
    pub stages: Vec<Stage>,
}

/// A pipeline that cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PipelineError {
    /// Two stages share a name, or a stage is called `solve`.
    #[error("stage {0:?} is declared twice")]
    Duplicate(String),
    /// A stage reads a stage declared after it, or none at all.
    #[error("stage {stage:?} reads {input:?}, which is not declared before it")]
    UnknownInput {
        /// The reader.
        stage: String,
        /// What it reads.
        input: String,
    },
    /// A stage reads a finer-grained stage than itself.
    #[error("stage {stage:?} ({scope:?}) cannot read {input:?} ({input_scope:?})")]
    Scope {
        /// The reader.
        stage: String,
        /// Its scope.
        scope: Scope,
        /// What it reads.
        input: String,
        /// Its scope.
        input_scope: Scope,
    },
    /// A stage name that would not survive a counter key or a queue label.
    #[error("stage name {0:?} must be lowercase letters, digits and '-'")]
    BadName(String),
    /// A stage has no variant (it would have no jobs).
    #[error("stage {0:?} has no variants")]
    NoVariants(String),
    /// A stage the solve reads reads the solve, directly or through
    /// another stage.
    #[error("stage {0:?} is read by the solve and cannot read it")]
    Cycle(String),
}

impl Pipeline {
    /// The stage called `name` (`None` for [`SOLVE`] and unknown names).
    pub fn stage(&self, name: &str) -> Option<&Stage> {
        self.stages.iter().find(|s| s.name == name)
    }

    /// The stages the solve of `solution` reads, in declaration order.
    pub fn read_by_solve<'p>(&'p self, solution: &'p str) -> impl Iterator<Item = &'p Stage> + 'p {
        self.stages
            .iter()
            .filter(move |s| s.read_by_solve && s.runs_for(solution))
    }

    /// Scope of stage `name`: [`Scope::Run`] for [`SOLVE`].
    pub fn scope_of(&self, name: &str) -> Option<Scope> {
        if name == SOLVE {
            return Some(Scope::Run);
        }
        self.stage(name).map(|s| s.scope)
    }

    /// Checks names, order and scopes of the declared stages.
    ///
    /// # Errors
    /// The first problem found.
    pub fn check(&self) -> Result<(), PipelineError> {
        // Stages that read the solve, directly or through another.
        let mut after_solve: Vec<&str> = Vec::new();
        for (i, s) in self.stages.iter().enumerate() {
            if s.after
                .iter()
                .any(|a| a == SOLVE || after_solve.contains(&a.as_str()))
            {
                if s.read_by_solve {
                    return Err(PipelineError::Cycle(s.name.clone()));
                }
                after_solve.push(&s.name);
            }
            let valid = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
            if s.name.is_empty() || !s.name.chars().all(valid) {
                return Err(PipelineError::BadName(s.name.clone()));
            }
            if s.name == SOLVE || self.stages[..i].iter().any(|p| p.name == s.name) {
                return Err(PipelineError::Duplicate(s.name.clone()));
            }
            if s.variants.is_empty() {
                return Err(PipelineError::NoVariants(s.name.clone()));
            }
            for input in &s.after {
                let scope = if input == SOLVE {
                    Some(Scope::Run)
                } else {
                    self.stages[..i]
                        .iter()
                        .find(|p| &p.name == input)
                        .map(|p| p.scope)
                };
                let Some(input_scope) = scope else {
                    return Err(PipelineError::UnknownInput {
                        stage: s.name.clone(),
                        input: input.clone(),
                    });
                };
                if !s.scope.may_read(input_scope) {
                    return Err(PipelineError::Scope {
                        stage: s.name.clone(),
                        scope: s.scope,
                        input: input.clone(),
                        input_scope,
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
impl Stage {
    /// A judge stage on the CPU lane reading `after`, not partial: the
    /// fixture the crate's tests vary.
    pub(crate) fn for_test(
        name: &str,
        scope: Scope,
        after: &[&str],
        variants: Vec<Variant>,
    ) -> Stage {
        Stage {
            name: name.into(),
            lane: Lane::Cpu,
            scope,
            after: after.iter().map(|s| s.to_string()).collect(),
            role: Role::Judge,
            variants,
            partial: false,
            solutions: Vec::new(),
            read_by_solve: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stage(name: &str, scope: Scope, after: &[&str]) -> Stage {
        Stage::for_test(name, scope, after, vec![Variant::none()])
    }

    #[test]
    fn lanes_round_trip_through_their_names() {
        for l in Lane::ALL {
            assert_eq!(Lane::parse(l.as_str()), Some(l));
        }
        assert_eq!(Lane::parse("judge"), None);
    }

    #[test]
    fn a_pipeline_reads_only_what_is_declared_before_and_as_coarse() {
        let ok = Pipeline {
            solutions: vec![0],
            stages: vec![
                stage("truth", Scope::Item, &[]),
                stage("check", Scope::Run, &[SOLVE, "truth"]),
                stage("pass", Scope::Runs, &["check"]),
            ],
        };
        assert_eq!(ok.check(), Ok(()));
        assert_eq!(ok.scope_of(SOLVE), Some(Scope::Run));
        assert_eq!(ok.scope_of("pass"), Some(Scope::Runs));

        let later = Pipeline {
            solutions: vec![],
            stages: vec![
                stage("a", Scope::Run, &["b"]),
                stage("b", Scope::Run, &[SOLVE]),
            ],
        };
        assert!(matches!(
            later.check(),
            Err(PipelineError::UnknownInput { .. })
        ));
        let finer = Pipeline {
            solutions: vec![],
            stages: vec![stage("truth", Scope::Item, &[SOLVE])],
        };
        assert!(matches!(finer.check(), Err(PipelineError::Scope { .. })));
        let twice = Pipeline {
            solutions: vec![],
            stages: vec![stage("a", Scope::Run, &[]), stage("a", Scope::Run, &[])],
        };
        assert_eq!(twice.check(), Err(PipelineError::Duplicate("a".into())));
        let mut empty = stage("a", Scope::Run, &[]);
        empty.variants.clear();
        let none = Pipeline {
            solutions: vec![],
            stages: vec![empty],
        };
        assert_eq!(none.check(), Err(PipelineError::NoVariants("a".into())));
    }

    #[test]
    fn the_solve_reads_no_stage_that_reads_it() {
        let mut train = stage("train", Scope::Runs, &[]);
        train.read_by_solve = true;
        train.solutions = vec!["learner".into()];
        assert!(train.runs_for("learner") && !train.runs_for("fixed"));
        let ok = Pipeline {
            solutions: vec![0, 1],
            stages: vec![train.clone(), stage("check", Scope::Run, &[SOLVE])],
        };
        assert_eq!(ok.check(), Ok(()));
        assert_eq!(ok.read_by_solve("learner").count(), 1);
        assert_eq!(ok.read_by_solve("fixed").count(), 0);
        // Through another stage: check reads the solve, train reads check.
        let mut late = train;
        late.after = vec!["check".into()];
        let cycle = Pipeline {
            solutions: vec![0],
            stages: vec![stage("check", Scope::Run, &[SOLVE]), late],
        };
        assert_eq!(cycle.check(), Err(PipelineError::Cycle("train".into())));
        // An item stage runs for every solution, whatever it lists.
        let mut truth = stage("truth", Scope::Item, &[]);
        truth.solutions = vec!["learner".into()];
        assert!(truth.runs_for("fixed"));
    }
}
