//! The `pass-at-k` stage: one CPU job per item × solution, released once
//! every seed's run of it is settled, scoring pass@1 and pass@n over those
//! n runs ([`adfarm_suite::stats::pass_at_k`]). It is `partial`: a run that failed counts as one that did not
//! reach the target, so a flaky provider lowers the score instead of
//! hiding the item.

use crate::check;
use adfarm_proto::{JobResult, Lane, Output, Role, Scope, Score, Stage, Variant, Verdict, SOLVE};
use adfarm_suite::stats::pass_at_k;
use adfarm_suite::StageOutput;
use serde::{Deserialize, Serialize};

/// Name of the stage.
pub const PASS_AT_K: &str = "pass-at-k";

/// The stage as the suite declares it.
pub fn stage() -> Stage {
    Stage {
        name: PASS_AT_K.into(),
        lane: Lane::Cpu,
        scope: Scope::Runs,
        after: vec![SOLVE.into()],
        // It calls no model; the role only says what kind of step it is.
        role: Role::Judge,
        variants: vec![Variant::none()],
        partial: true,
        solutions: Vec::new(),
        read_by_solve: false,
    }
}

/// The runs of one item × solution: the stage's output `meta`, which the
/// report reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Runs {
    /// Runs (seeds), failed ones included.
    pub runs: u64,
    /// Runs whose counter ended on the target.
    pub reached: u64,
    /// Runs that failed (no result; counted as not reached).
    pub failed: u64,
}

impl Runs {
    /// Counts the stage's inputs: every seed's solve result, `None` where
    /// the run failed.
    pub fn of(inputs: &[Option<JobResult>]) -> Runs {
        let reached = inputs
            .iter()
            .flatten()
            .filter(|r| check::reached_in(&r.scores))
            .count();
        Runs {
            runs: inputs.len() as u64,
            reached: reached as u64,
            failed: inputs.iter().filter(|r| r.is_none()).count() as u64,
        }
    }

    /// pass@`k` of these runs, as a share.
    pub fn pass_at(&self, k: u64) -> f64 {
        pass_at_k(self.runs, self.reached, k)
    }

    /// The metric names of pass@1 and pass@n (one name when n is 1).
    fn metrics(&self) -> Vec<(String, u64)> {
        let mut out = vec![("pass@1".to_string(), 1)];
        if self.runs > 1 {
            out.push((format!("pass@{}", self.runs), self.runs));
        }
        out
    }

    /// The job's output: pass@1 and pass@n on the benchmark scale (0–100),
    /// the counts in `meta`.
    pub fn output(&self) -> StageOutput {
        StageOutput {
            output: Some(Output {
                text: format!(
                    "{} of {} runs reached the target ({} failed)",
                    self.reached, self.runs, self.failed
                ),
                meta: serde_json::to_value(self).expect("runs serialise"),
            }),
            scores: self
                .metrics()
                .into_iter()
                .map(|(metric, k)| Score {
                    metric,
                    verdict: Verdict::Score(100.0 * self.pass_at(k)),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adfarm_proto::{Cell, JobId, Pipeline};

    fn solve(reached: bool) -> Option<JobResult> {
        let solved = crate::agent::solved(&crate::episode::Episode {
            task: crate::task::Task {
                start: 0,
                target: 2,
            },
            turns: vec![],
            end: crate::episode::End::Answered,
            counter: if reached { 2 } else { 0 },
        });
        Some(JobResult {
            id: JobId("j".into()),
            stage: SOLVE.into(),
            cell: Cell {
                suite: crate::SUITE.into(),
                dataset: "default".into(),
                solution: "agent".into(),
                seed: 1,
            },
            item: "0".into(),
            judge: None,
            output: Some(solved.output),
            scores: solved.scores,
            usage: vec![],
        })
    }

    #[test]
    fn failed_runs_count_as_misses() {
        let runs = Runs::of(&[solve(true), None, solve(false)]);
        assert_eq!(
            runs,
            Runs {
                runs: 3,
                reached: 1,
                failed: 1
            }
        );
        let out = runs.output();
        let scores: Vec<(&str, f64)> = out
            .scores
            .iter()
            .map(|s| match s.verdict {
                Verdict::Score(v) => (s.metric.as_str(), v),
                Verdict::Unscored(_) => panic!("{s:?}"),
            })
            .collect();
        assert_eq!(scores.len(), 2);
        assert_eq!(scores[0].0, "pass@1");
        assert!((scores[0].1 - 100.0 / 3.0).abs() < 1e-9);
        assert_eq!(scores[1], ("pass@3", 100.0));
        let meta = out.output.expect("counts").meta;
        assert_eq!(serde_json::from_value::<Runs>(meta).expect("Runs"), runs);
        let one = Runs::of(&[solve(false)]).output();
        assert_eq!(one.scores.len(), 1, "pass@1 is pass@n for one seed");
    }

    #[test]
    fn the_stage_reads_every_seeds_solve_and_runs_on_the_cpu_lane() {
        let s = stage();
        assert_eq!((s.lane, s.scope, s.partial), (Lane::Cpu, Scope::Runs, true));
        let pipeline = Pipeline {
            solutions: vec![0],
            stages: vec![s],
        };
        assert_eq!(pipeline.check(), Ok(()));
    }
}
