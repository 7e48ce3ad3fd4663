//! The suite's stages around an episode:
//! - `replay` (per task × date, on the CPU lane): the reference trajectory
//!   replayed on the item's world, the ground truth every agent's episode
//!   on that item is checked against;
//! - `score` (per episode): grade, trajectory coverage and failure labels,
//!   deterministic, from the replay and the episode;
//! - `pass-at-k` (per task × date × agent, over every seed's episode):
//!   Pass@k and pass^k for k = 1..n, a failed episode counting as wrong;
//! - `judge` (per episode and judge, optional): see [`super::judge`].

use adfarm_proto::{
    Item, JobResult, Lane, Output, Role, Scope, Score, Stage, Variant, Verdict, SOLVE,
};
use adfarm_suite::{DataError, JobError, StageJob, StageOutput};
use serde::{Deserialize, Serialize};

use super::dataset::Setting;
use crate::agent::Run;
use crate::replay::{reference_platform, replay, Replay};
use crate::scoring::{self, passk, Grade, Label};
use crate::tasks::Tier;

/// Ground truth per task × date.
pub const REPLAY: &str = "replay";
/// Per-episode scoring.
pub const SCORE: &str = "score";
/// Pass@k over an agent's runs of a task.
pub const PASS_AT_K: &str = "pass-at-k";

/// Score metric: the answer is right (100) or not (0).
pub const CORRECT: &str = "correct";
/// Score metric: the paper's trajectory coverage, 100 when the whole
/// reference trajectory was reproduced with no TE, PE or IF label, else 0.
pub const COVERAGE: &str = "coverage";
/// Score metric: share of the reference's steps matched, 0–100.
pub const STEP_SHARE: &str = "step-share";
/// Score metric: the agent's turns in the tool phase (interaction steps).
pub const TURNS: &str = "turns";
/// Score metric: tool calls the agent made.
pub const CALLS: &str = "calls";

/// The metric of a failure label: 100 on an episode that has it, else 0,
/// so its mean is the share of episodes with the label.
pub fn label_metric(label: Label) -> String {
    format!("label-{label:?}")
}

/// The Pass@k metric for `k`.
pub fn pass_at(k: u32) -> String {
    format!("pass@{k}")
}

/// The pass^k metric for `k`.
pub fn pass_hat(k: u32) -> String {
    format!("pass^{k}")
}

/// The three stages, in order, and the judge's when the sweep lists
/// judges.
pub fn declared(judges: &[String]) -> Vec<Stage> {
    let cpu = |name: &str, scope, after: &[&str], partial| Stage {
        name: name.into(),
        lane: Lane::Cpu,
        scope,
        after: after.iter().map(|s| s.to_string()).collect(),
        role: Role::Judge,
        variants: vec![Variant::none()],
        partial,
        solutions: Vec::new(),
        read_by_solve: false,
    };
    let mut stages = vec![
        cpu(REPLAY, Scope::Item, &[], false),
        cpu(SCORE, Scope::Run, &[REPLAY, SOLVE], false),
        cpu(PASS_AT_K, Scope::Runs, &[SCORE], true),
    ];
    if !judges.is_empty() {
        stages.push(super::judge::stage(judges));
    }
    stages
}

/// What `score` keeps of an episode's score, for reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    /// Task id.
    pub task: String,
    /// Its tier.
    pub tier: Tier,
    /// The answer is right by the rules.
    pub correct: bool,
    /// The rules found the answer ambiguous (an LLM grader may decide).
    #[serde(default)]
    pub ambiguous: bool,
    /// The whole reference trajectory reproduced with no TE, PE or IF
    /// label (the paper's coverage of one sample).
    pub covered: bool,
    /// Reference steps matched, 0..=1.
    pub step_share: f64,
    /// Failure labels.
    pub labels: Vec<Label>,
    /// Turns in the tool phase (the closing answer call not counted).
    pub turns: usize,
    /// Tool calls made.
    pub calls: usize,
    /// Reference calls.
    pub reference_calls: usize,
}

/// What `pass-at-k` keeps: runs and correct runs of one agent on one item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Runs {
    /// Task id.
    pub task: String,
    /// Its tier.
    pub tier: Tier,
    /// Runs (seeds), failed ones included.
    pub n: u32,
    /// Correct runs.
    pub c: u32,
}

pub(super) fn data(field: &str, reason: String) -> JobError {
    JobError::Data(DataError::Param {
        field: field.into(),
        reason,
    })
}

/// One stage job, owned, so it can move to the blocking pool.
pub struct Job {
    /// The stage.
    pub stage: String,
    /// The item.
    pub item: Item,
    /// The results it reads (see [`adfarm_suite::StageJob::inputs`]).
    pub inputs: Vec<Option<JobResult>>,
}

impl Job {
    /// An owned copy of `job`.
    pub fn of(job: &StageJob<'_>) -> Job {
        Job {
            stage: job.stage.to_string(),
            item: job.item.clone(),
            inputs: job.inputs.to_vec(),
        }
    }
}

/// The `output.meta` of input `i`, read as `T`.
pub(super) fn read<T: for<'de> Deserialize<'de>>(job: &Job, i: usize) -> Result<T, JobError> {
    let what = &job.stage;
    let result: &JobResult = job
        .inputs
        .get(i)
        .and_then(Option::as_ref)
        .ok_or_else(|| JobError::MissingInput(format!("{what} input {i}")))?;
    let meta = result
        .output
        .as_ref()
        .map(|o| o.meta.clone())
        .unwrap_or_default();
    serde_json::from_value(meta).map_err(|e| {
        data(
            "output.meta",
            format!(
                "the {} result of {} is unreadable: {e}",
                result.stage, job.item.id
            ),
        )
    })
}

pub(super) fn score(metric: &str, v: f64) -> Score {
    Score {
        metric: metric.into(),
        verdict: Verdict::Score(v),
    }
}

pub(super) fn to_output<T: Serialize>(text: String, meta: &T) -> Option<Output> {
    Some(Output {
        text,
        meta: serde_json::to_value(meta).expect("stage outputs serialise"),
    })
}

/// Runs one job of a declared stage.
///
/// # Errors
/// A stage the suite does not declare, an item that is not a task
/// setting, or a reference that no longer replays (a broken task).
pub fn run(job: &Job) -> Result<StageOutput, JobError> {
    let setting = Setting::of(&job.item)?;
    match job.stage.as_str() {
        REPLAY => {
            let platform = reference_platform(setting.seed(), setting.date, setting.hour)
                .map_err(|e| data("env_dates", e.to_string()))?;
            let r = replay(&setting.task, &platform).map_err(|e| data("task", e.to_string()))?;
            let text = crate::scripted::answer_text(r.answer.as_ref());
            Ok(StageOutput {
                output: to_output(text, &r),
                scores: Vec::new(),
            })
        }
        SCORE => {
            let reference: Replay = read(job, 0)?;
            let run: Run = read(job, 1)?;
            let s = scoring::score(&setting.task, &reference, &run.episode);
            let correct = s.grade == Grade::Correct;
            let kept = Scored {
                task: setting.task.id.clone(),
                tier: setting.task.tier,
                correct,
                ambiguous: s.ambiguous,
                covered: s.covered(),
                step_share: s.coverage.step_share(),
                labels: s.labels.iter().copied().collect(),
                turns: run.turns.len(),
                calls: run.episode.calls.len(),
                reference_calls: reference.calls.len(),
            };
            let mut scores = vec![
                score(CORRECT, if correct { 100.0 } else { 0.0 }),
                score(COVERAGE, if kept.covered { 100.0 } else { 0.0 }),
                score(STEP_SHARE, 100.0 * kept.step_share),
                score(TURNS, kept.turns as f64),
                score(CALLS, kept.calls as f64),
            ];
            scores.extend(Label::ALL.iter().map(|l| {
                score(
                    &label_metric(*l),
                    if s.labels.contains(l) { 100.0 } else { 0.0 },
                )
            }));
            Ok(StageOutput {
                output: to_output(String::new(), &kept),
                scores,
            })
        }
        PASS_AT_K => {
            let n = job.inputs.len() as u32;
            let mut c = 0;
            for i in 0..job.inputs.len() {
                if job.inputs[i].is_some() {
                    let s: Scored = read(job, i)?;
                    c += u32::from(s.correct);
                }
            }
            let counts = [(n, c)];
            let mut scores = Vec::new();
            for (k, at, hat) in passk::curves(&counts) {
                scores.push(score(&pass_at(k), 100.0 * at));
                scores.push(score(&pass_hat(k), 100.0 * hat));
            }
            let kept = Runs {
                task: setting.task.id.clone(),
                tier: setting.task.tier,
                n,
                c,
            };
            Ok(StageOutput {
                output: to_output(String::new(), &kept),
                scores,
            })
        }
        other => Err(data(
            "stage",
            format!("the adbench suite declares no stage {other:?}"),
        )),
    }
}
