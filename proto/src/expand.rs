//! How a sweep expands into jobs: the jobs of one suite's [`Pipeline`], what
//! each job reads and which jobs read it. Coordinator and workers both call
//! these, so a job's id is the same whoever builds it, and a follow-up is
//! published by whoever settles its last input.

use crate::job::{Cell, Envelope, Item, JobId, JobSpec, SweepId};
use crate::stage::{Lane, Pipeline, Scope, Stage, Variant, SOLVE};
use crate::sweep::{ProviderSpec, SolutionSpec, SuiteSpec, SweepSpec};
use serde::Serialize;
use std::collections::BTreeMap;

/// The parts of a provider that determine its answers (not limits or prices).
#[derive(Serialize)]
struct ModelIdentity<'a> {
    kind: crate::ProviderKind,
    base_url: Option<&'a str>,
    model: &'a str,
}

fn identity(p: Option<&ProviderSpec>) -> Option<ModelIdentity<'_>> {
    p.map(|p| ModelIdentity {
        kind: p.kind,
        base_url: p.base_url.as_deref(),
        model: &p.model,
    })
}

fn config_bytes(parts: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(parts).expect("config serialises")
}

/// One suite of a sweep with its pipeline: everything job expansion reads.
#[derive(Debug, Clone, Copy)]
pub struct SuitePlan<'a> {
    /// The sweep's id.
    pub sweep: &'a SweepId,
    /// The whole sweep.
    pub spec: &'a SweepSpec,
    /// This suite's entry in it.
    pub suite: &'a SuiteSpec,
    /// Its solutions and stages.
    pub pipeline: &'a Pipeline,
}

impl<'a> SuitePlan<'a> {
    /// The solutions this suite runs, in sweep order.
    pub fn solutions(&self) -> impl Iterator<Item = &'a SolutionSpec> + 'a {
        let spec = self.spec;
        self.pipeline
            .solutions
            .iter()
            .filter_map(move |&i| spec.solutions.get(i))
    }

    /// This suite's solution labelled `name` (see [`SolutionSpec::label`]).
    pub fn solution(&self, name: &str) -> Option<&'a SolutionSpec> {
        self.solutions().find(|s| s.label() == name)
    }

    fn cell(&self, dataset: &str, solution: &str, seed: u64) -> Cell {
        Cell {
            suite: self.suite.name.clone(),
            dataset: dataset.to_string(),
            solution: solution.to_string(),
            seed,
        }
    }

    /// The job that runs `solution` on `item` with `seed`.
    pub fn solve(
        &self,
        dataset: &str,
        item: &Item,
        solution: &SolutionSpec,
        seed: u64,
    ) -> Envelope {
        let cell = self.cell(dataset, solution.label(), seed);
        let inputs = self.solve_inputs(&cell, item);
        let parts = (
            &self.suite.params,
            solution,
            identity(self.spec.provider(&solution.provider)),
        );
        // A solve that reads nothing keeps the id it has always had.
        let config = if inputs.is_empty() {
            config_bytes(&parts)
        } else {
            config_bytes(&(parts, &inputs))
        };
        let job = JobSpec {
            stage: SOLVE.to_string(),
            lane: Lane::Solve,
            scope: Scope::Run,
            cell,
            item: item.clone(),
            variant: Variant::none(),
        };
        Envelope::new(self.sweep.clone(), job, &config)
    }

    /// The ids of the jobs the solve at `cell` reads: the stages read by
    /// the solve that run for its solution, in declaration order.
    fn solve_inputs(&self, cell: &Cell, item: &Item) -> Vec<JobId> {
        self.pipeline
            .read_by_solve(&cell.solution)
            .flat_map(|stage| self.stage_jobs(stage, cell, item))
            .map(|e| e.id)
            .collect()
    }

    /// The jobs of `stage` at `cell` (one per variant); `cell` carries the
    /// coordinates the stage's scope keeps (see [`Cell`]).
    pub fn stage_jobs(&self, stage: &Stage, cell: &Cell, item: &Item) -> Vec<Envelope> {
        let cell = scoped(cell, stage.scope);
        if !stage.runs_for(&cell.solution) {
            return Vec::new();
        }
        let inputs = self.inputs_at(stage, &cell, item);
        let decl = Stage {
            variants: Vec::new(),
            ..stage.clone()
        };
        stage
            .variants
            .iter()
            .map(|variant| {
                let provider = variant
                    .provider
                    .as_deref()
                    .and_then(|p| self.spec.provider(p));
                let config =
                    config_bytes(&(&self.suite.params, &decl, identity(provider), &inputs));
                let job = JobSpec {
                    stage: stage.name.clone(),
                    lane: stage.lane,
                    scope: stage.scope,
                    cell: cell.clone(),
                    item: item.clone(),
                    variant: variant.clone(),
                };
                Envelope::new(self.sweep.clone(), job, &config)
            })
            .collect()
    }

    /// Every job of stage `name` (or [`SOLVE`]) that a job at `cell` of
    /// scope `reader` reads: the same run, the item's, or every seed's.
    fn jobs_of(&self, name: &str, reader: Scope, cell: &Cell, item: &Item) -> Vec<Envelope> {
        let Some(input_scope) = self.pipeline.scope_of(name) else {
            return Vec::new();
        };
        let seeds: Vec<u64> = match (reader, input_scope) {
            (Scope::Runs, Scope::Run) => self.spec.seeds.clone(),
            _ => vec![cell.seed],
        };
        let mut out = Vec::new();
        for seed in seeds {
            let at = Cell {
                seed,
                ..cell.clone()
            };
            if name == SOLVE {
                if let Some(sol) = self.solution(&cell.solution) {
                    out.push(self.solve(&cell.dataset, item, sol, seed));
                }
            } else if let Some(stage) = self.pipeline.stage(name) {
                out.extend(self.stage_jobs(stage, &at, item));
            }
        }
        out
    }

    fn inputs_at(&self, stage: &Stage, cell: &Cell, item: &Item) -> Vec<JobId> {
        stage
            .after
            .iter()
            .flat_map(|input| self.jobs_of(input, stage.scope, cell, item))
            .map(|e| e.id)
            .collect()
    }

    /// The ids of the jobs `env` reads, in declaration order (every seed's
    /// for a [`Scope::Runs`] stage).
    pub fn inputs(&self, env: &Envelope) -> Vec<JobId> {
        if env.job.is_solve() {
            return self.solve_inputs(&env.job.cell, &env.job.item);
        }
        match self.pipeline.stage(&env.job.stage) {
            Some(stage) => self.inputs_at(stage, &env.job.cell, &env.job.item),
            None => Vec::new(),
        }
    }

    /// The cells of a stage of scope `scope` that a job at `cell` of
    /// scope `from` feeds: every solution's and seed's from an item's
    /// job, every seed's from a job over runs, else its own.
    fn fed_cells(&self, from: Scope, cell: &Cell, scope: Scope) -> Vec<Cell> {
        if scope == Scope::Item {
            return vec![scoped(cell, Scope::Item)];
        }
        let solutions: Vec<&SolutionSpec> = match from {
            Scope::Item => self.solutions().collect(),
            _ => self.solution(&cell.solution).into_iter().collect(),
        };
        let seeds: Vec<u64> = match (from, scope) {
            (Scope::Run, _) => vec![cell.seed],
            (_, Scope::Run) => self.spec.seeds.clone(),
            _ => vec![0],
        };
        solutions
            .into_iter()
            .flat_map(|sol| {
                seeds
                    .iter()
                    .map(|&seed| self.cell(&cell.dataset, sol.label(), seed))
            })
            .collect()
    }

    /// The jobs that read `env`'s result, each once.
    pub fn dependents(&self, env: &Envelope) -> Vec<Envelope> {
        let job = &env.job;
        let mut out: Vec<Envelope> = Vec::new();
        if self
            .pipeline
            .stage(&job.stage)
            .is_some_and(|s| s.read_by_solve)
        {
            for cell in self.fed_cells(job.scope, &job.cell, Scope::Run) {
                let Some(sol) = self.solution(&cell.solution) else {
                    continue;
                };
                // Building a solve derives its inputs again: build only
                // the solves that read this job.
                if self.solve_inputs(&cell, &job.item).contains(&env.id) {
                    out.push(self.solve(&cell.dataset, &job.item, sol, cell.seed));
                }
            }
        }
        for stage in &self.pipeline.stages {
            if !stage.after.contains(&job.stage) {
                continue;
            }
            // The cells of `stage` that a job at `job.cell` feeds.
            let cells = match (job.scope, stage.scope) {
                (Scope::Item, Scope::Run | Scope::Runs) => {
                    self.fed_cells(Scope::Item, &job.cell, stage.scope)
                }
                _ => vec![job.cell.clone()],
            };
            for cell in cells {
                for d in self.stage_jobs(stage, &cell, &job.item) {
                    if !out.iter().any(|o| o.id == d.id) {
                        out.push(d);
                    }
                }
            }
        }
        out
    }

    /// The jobs of `item` that read nothing: one solve job per solution and
    /// seed, and the item's stages that need no input.
    pub fn roots(&self, dataset: &str, item: &Item) -> Vec<Envelope> {
        let mut out = Vec::new();
        for sol in self.solutions() {
            if self.pipeline.read_by_solve(sol.label()).next().is_some() {
                continue;
            }
            for &seed in &self.spec.seeds {
                out.push(self.solve(dataset, item, sol, seed));
            }
        }
        let item_cell = self.cell(dataset, "", 0);
        for stage in &self.pipeline.stages {
            if stage.after.is_empty() {
                for cell in self.fed_cells(Scope::Item, &item_cell, stage.scope) {
                    for e in self.stage_jobs(stage, &cell, item) {
                        if !out.iter().any(|o| o.id == e.id) {
                            out.push(e);
                        }
                    }
                }
            }
        }
        out
    }

    /// Whether `env` is a job of this plan: its dataset, solution, seed and
    /// stage are the sweep's, and its id is the one its content hashes to
    /// here. The item itself is checked against the planned items (see
    /// [`JobSpec::item_key`](crate::JobSpec::item_key)) by the caller.
    ///
    /// # Errors
    /// Why it is not, naming the coordinate that does not belong.
    pub fn admits(&self, env: &Envelope) -> Result<(), String> {
        let job = &env.job;
        let cell = &job.cell;
        if !self.suite.datasets.contains(&cell.dataset) {
            return Err(format!("dataset {:?} is not in the sweep", cell.dataset));
        }
        let runs_solution = || {
            self.solution(&cell.solution)
                .ok_or_else(|| format!("solution {:?} is not in the sweep", cell.solution))
        };
        let seed_planned = |seed: u64| {
            if self.spec.seeds.contains(&seed) {
                Ok(())
            } else {
                Err(format!("seed {seed} is not in the sweep"))
            }
        };
        let expected: Vec<Envelope> = if job.is_solve() {
            let solution = runs_solution()?;
            seed_planned(cell.seed)?;
            vec![self.solve(&cell.dataset, &job.item, solution, cell.seed)]
        } else {
            let stage = self
                .pipeline
                .stage(&job.stage)
                .ok_or_else(|| format!("stage {:?} is not in the sweep", job.stage))?;
            match stage.scope {
                Scope::Run => {
                    runs_solution()?;
                    seed_planned(cell.seed)?;
                }
                Scope::Runs => {
                    runs_solution()?;
                }
                Scope::Item => {}
            }
            if !stage.runs_for(&cell.solution) {
                return Err(format!(
                    "stage {:?} does not run for solution {:?}",
                    stage.name, cell.solution
                ));
            }
            self.stage_jobs(stage, cell, &job.item)
        };
        if expected.iter().any(|e| e.id == env.id) {
            Ok(())
        } else {
            Err(format!(
                "job id {} is not what its content hashes to in this sweep",
                env.id
            ))
        }
    }

    /// Jobs per stage that one item expands to.
    pub fn jobs_per_item(&self) -> BTreeMap<String, i64> {
        let solutions = self.pipeline.solutions.len() as i64;
        let seeds = self.spec.seeds.len() as i64;
        let mut out = BTreeMap::from([(SOLVE.to_string(), solutions * seeds)]);
        for s in &self.pipeline.stages {
            let ran = self
                .solutions()
                .filter(|sol| s.runs_for(sol.label()))
                .count() as i64;
            let per = match s.scope {
                Scope::Run => ran * seeds,
                Scope::Item => 1,
                Scope::Runs => ran,
            };
            *out.entry(s.name.clone()).or_default() += per * s.variants.len() as i64;
        }
        out
    }
}

/// `cell` with the coordinates `scope` does not keep zeroed, so every job
/// of a shared or aggregate stage has one id whoever derives it.
fn scoped(cell: &Cell, scope: Scope) -> Cell {
    match scope {
        Scope::Run => cell.clone(),
        Scope::Item => Cell {
            solution: String::new(),
            seed: 0,
            ..cell.clone()
        },
        Scope::Runs => Cell {
            seed: 0,
            ..cell.clone()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn spec() -> SweepSpec {
        serde_json::from_value(serde_json::json!({
            "name": "s",
            "suites": [{"name": "tiny", "datasets": ["d"], "params": {"p": 1}}],
            "solutions": [
                {"name": "a", "provider": "gen"},
                {"name": "b", "provider": "gen"}
            ],
            "providers": [
                {"name": "gen", "kind": "openai-compatible", "model": "g", "requests_per_minute": 60.0},
                {"name": "j1", "kind": "openai-compatible", "model": "m1", "requests_per_minute": 60.0},
                {"name": "j2", "kind": "openai-compatible", "model": "m2", "requests_per_minute": 60.0}
            ],
            "judges": ["j1", "j2"],
            "seeds": [1, 2, 3]
        }))
        .expect("a sweep spec")
    }

    fn stage(name: &str, scope: Scope, after: &[&str], variants: Vec<Variant>) -> Stage {
        Stage {
            partial: scope == Scope::Runs,
            ..Stage::for_test(name, scope, after, variants)
        }
    }

    fn judge(name: &str) -> Variant {
        Variant {
            provider: Some(name.into()),
            column: Some(name.into()),
        }
    }

    fn pipeline() -> Pipeline {
        Pipeline {
            solutions: vec![0, 1],
            stages: vec![
                stage("truth", Scope::Item, &[], vec![Variant::none()]),
                stage(
                    "judge",
                    Scope::Run,
                    &[SOLVE],
                    vec![judge("j1"), judge("j2")],
                ),
                stage(
                    "check",
                    Scope::Run,
                    &[SOLVE, "truth"],
                    vec![Variant::none()],
                ),
                stage("pass", Scope::Runs, &["check"], vec![Variant::none()]),
            ],
        }
    }

    fn plan<'a>(id: &'a SweepId, spec: &'a SweepSpec, pipeline: &'a Pipeline) -> SuitePlan<'a> {
        SuitePlan {
            sweep: id,
            spec,
            suite: &spec.suites[0],
            pipeline,
        }
    }

    /// Every job reachable from `roots` through dependents, by id.
    fn walk(plan: &SuitePlan<'_>, roots: Vec<Envelope>) -> BTreeMap<JobId, Envelope> {
        let mut all = BTreeMap::new();
        let mut todo = roots;
        while let Some(e) = todo.pop() {
            if all.insert(e.id.clone(), e.clone()).is_none() {
                todo.extend(plan.dependents(&e));
            }
        }
        all
    }

    fn item() -> Item {
        Item {
            id: "0".into(),
            input: "q".into(),
            meta: serde_json::Value::Null,
        }
    }

    #[test]
    fn the_graph_is_consistent_from_both_ends() {
        let spec = spec();
        let id = spec.id();
        let pipeline = pipeline();
        pipeline.check().expect("a valid pipeline");
        let plan = plan(&id, &spec, &pipeline);
        let roots = plan.roots("d", &item());
        // 2 solutions × 3 seeds solve jobs + the item's ground truth.
        assert_eq!(roots.len(), 7);
        let truth = roots.iter().find(|e| e.stage() == "truth").unwrap();
        assert_eq!(
            (truth.job.cell.solution.as_str(), truth.job.cell.seed),
            ("", 0)
        );

        // Walk the whole graph from the roots through dependents.
        let all = walk(&plan, roots.clone());
        let mut per_stage: BTreeMap<String, i64> = BTreeMap::new();
        for e in all.values() {
            *per_stage.entry(e.stage().to_string()).or_default() += 1;
        }
        assert_eq!(per_stage, plan.jobs_per_item());
        assert_eq!(per_stage["judge"], 12);
        assert_eq!(per_stage["pass"], 2);

        // Every job's inputs exist, and it is among each input's dependents.
        for e in all.values() {
            for input in plan.inputs(e) {
                let parent = &all[&input];
                let deps: BTreeSet<JobId> =
                    plan.dependents(parent).into_iter().map(|d| d.id).collect();
                assert!(
                    deps.contains(&e.id),
                    "{} reads {}",
                    e.stage(),
                    parent.stage()
                );
            }
        }
        let pass = all.values().find(|e| e.stage() == "pass").unwrap();
        assert_eq!(plan.inputs(pass).len(), 3, "one check per seed");
        let check = all.values().find(|e| e.stage() == "check").unwrap();
        assert_eq!(plan.inputs(check).len(), 2, "its run and the item's truth");
    }

    #[test]
    fn a_solve_waits_for_the_stage_it_reads_and_only_its_solution_does() {
        let spec = spec();
        let id = spec.id();
        let mut train = stage("train", Scope::Runs, &[], vec![Variant::none()]);
        train.read_by_solve = true;
        train.solutions = vec!["b".into()];
        let plain = pipeline();
        let mut trained = pipeline();
        trained.stages.insert(0, train);
        trained.check().expect("a valid pipeline");
        let plan = plan(&id, &spec, &trained);
        let roots = plan.roots("d", &item());
        // a's 3 solves, the item's truth and b's one training job.
        assert_eq!(roots.len(), 5);
        let train = &roots.iter().find(|e| e.stage() == "train").unwrap().clone();
        assert_eq!(
            (train.job.cell.solution.as_str(), train.job.cell.seed),
            ("b", 0)
        );
        assert!(roots
            .iter()
            .filter(|e| e.job.is_solve())
            .all(|e| e.job.cell.solution == "a"));

        // b's solves are the training job's dependents and read it.
        let fed: Vec<Envelope> = plan
            .dependents(train)
            .into_iter()
            .filter(|e| e.job.is_solve())
            .collect();
        assert_eq!(fed.len(), 3, "one solve per seed");
        for solve in &fed {
            assert_eq!(solve.job.cell.solution, "b");
            assert_eq!(plan.inputs(solve), vec![train.id.clone()]);
            assert_eq!(plan.admits(solve), Ok(()));
        }
        // a's solve reads nothing and keeps the id it has without the
        // stage; b's differs (it reads the table).
        let before = SuitePlan {
            pipeline: &plain,
            ..plan
        };
        let a = &spec.solutions[0];
        let b = &spec.solutions[1];
        assert!(plan.inputs(&plan.solve("d", &item(), a, 1)).is_empty());
        assert_eq!(
            plan.solve("d", &item(), a, 1).id,
            before.solve("d", &item(), a, 1).id
        );
        assert_ne!(
            plan.solve("d", &item(), b, 1).id,
            before.solve("d", &item(), b, 1).id
        );

        // The whole graph, walked from the roots, is what the counts say.
        let all = walk(&plan, roots);
        let mut per_stage: BTreeMap<String, i64> = BTreeMap::new();
        for e in all.values() {
            *per_stage.entry(e.stage().to_string()).or_default() += 1;
        }
        assert_eq!(per_stage, plan.jobs_per_item());
        assert_eq!(per_stage["train"], 1);
        assert_eq!(per_stage[SOLVE], 6);
        for e in all.values() {
            assert_eq!(plan.admits(e), Ok(()), "{}", e.stage());
        }
        // No training job for a.
        let mut forged = train.clone();
        forged.job.cell.solution = "a".into();
        let err = plan.admits(&forged).unwrap_err();
        assert!(err.contains("does not run for solution \"a\""), "{err}");
    }

    #[test]
    fn the_plan_admits_its_jobs_and_nothing_else() {
        let spec = spec();
        let id = spec.id();
        let pipeline = pipeline();
        let plan = plan(&id, &spec, &pipeline);
        let all = walk(&plan, plan.roots("d", &item()));
        for e in all.values() {
            assert_eq!(plan.admits(e), Ok(()), "{}", e.stage());
        }
        let solve = all.values().find(|e| e.job.is_solve()).unwrap().clone();
        let refused = |e: Envelope, why: &str| {
            let err = plan.admits(&e).expect_err(why);
            assert!(err.contains(why), "{err}");
        };
        let mut forged = solve.clone();
        forged.id = JobId("00000000000000000000000000000000".into());
        refused(forged, "is not what its content hashes to");
        let mut other_item = solve.clone();
        other_item.job.item.input = "another question".into();
        refused(other_item, "is not what its content hashes to");
        let mut seed = solve.clone();
        seed.job.cell.seed = 99;
        refused(seed, "seed 99 is not in the sweep");
        let mut solution = solve.clone();
        solution.job.cell.solution = "z".into();
        refused(solution, "solution \"z\" is not in the sweep");
        let mut dataset = solve.clone();
        dataset.job.cell.dataset = "elsewhere".into();
        refused(dataset, "dataset \"elsewhere\" is not in the sweep");
        let mut stage = solve;
        stage.job.stage = "teleport".into();
        refused(stage, "stage \"teleport\" is not in the sweep");
        // Item keys follow the item's content, not just its id.
        let a = all.values().next().unwrap().job.clone();
        let mut b = a.clone();
        b.item.input.push('!');
        assert_ne!(a.item_key(), b.item_key());
        assert_eq!(a.item_key(), a.clone().item_key());
    }

    #[test]
    fn ids_follow_what_determines_the_result() {
        let spec = spec();
        let id = spec.id();
        let pipeline = pipeline();
        let plan = plan(&id, &spec, &pipeline);
        let a = plan.solve("d", &item(), &spec.solutions[0], 1);
        assert_eq!(a.id, plan.solve("d", &item(), &spec.solutions[0], 1).id);
        assert_ne!(a.id, plan.solve("d", &item(), &spec.solutions[0], 2).id);
        let judges = plan.dependents(&a);
        let j1: Vec<_> = judges
            .iter()
            .filter(|e| e.stage() == "judge")
            .map(|e| e.id.clone())
            .collect();
        assert_eq!(j1.len(), 2, "one job per judge");
        assert_ne!(j1[0], j1[1]);

        // Another solution config changes its judges' ids (they read it).
        let mut other = spec.clone();
        other.solutions[0].max_tokens = 7;
        let other_plan = SuitePlan {
            spec: &other,
            ..plan
        };
        let b = other_plan.solve("d", &item(), &other.solutions[0], 1);
        assert_ne!(a.id, b.id);
        let j2: Vec<_> = other_plan
            .dependents(&b)
            .into_iter()
            .filter(|e| e.stage() == "judge")
            .map(|e| e.id)
            .collect();
        assert!(j1.iter().all(|id| !j2.contains(id)));
    }
}
