//! A mutant's own run: the reference trajectory played step by step with
//! the mutation applied, each step's templates resolved against the
//! results this run obtained (not the reference's), and the answer read
//! by the task's spec from this run's own observation of the answer step.

use serde_json::Value;

use crate::replay::answer::read;
use crate::replay::{parsed, Answer, Replay};
use crate::tasks::{template, Task};
use crate::tools::{Call, EpisodeState, Observation, Platform};
use crate::world::Day;

/// What a mutant says when its own results do not hold the answer (the
/// answer step failed or was never made).
pub const NO_ANSWER: &str =
    "My tool results do not hold what this question needs, so I cannot answer it.";

/// How a mutant departs from the reference.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mutation {
    /// A reference step (index) it never calls.
    pub skip: Option<usize>,
    /// Every `begin`, `end` and `date` argument one day early.
    pub shift_dates: bool,
    /// The calculator step (index) whose printed value it gets wrong.
    pub slip_at: Option<usize>,
}

/// A mutant's calls, the reference step each plays, and what they returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Calls in order, arguments resolved from this run's own results.
    pub calls: Vec<Call>,
    /// For each call, the index of the reference step it plays.
    pub steps: Vec<usize>,
    /// One observation per call.
    pub observations: Vec<Observation>,
}

/// Moves the `begin`, `end` and `date` arguments one day early; true when
/// there was one.
pub fn shift_dates(args: &mut Value) -> bool {
    let mut shifted = false;
    for key in ["begin", "end", "date"] {
        if let Some(d) = args.get(key).and_then(Value::as_str).and_then(Day::parse) {
            args[key] = Value::String(d.plus(-1).to_string());
            shifted = true;
        }
    }
    shifted
}

/// Calculator code whose last `print(x)` prints `1.1 * (x)`, or None when
/// it prints nothing.
pub fn slip(code: &str) -> Option<String> {
    let i = code.rfind("print(")?;
    let close = code.rfind(')').filter(|&j| j > i)?;
    Some(format!(
        "{}print(1.1 * ({})){}",
        &code[..i],
        &code[i + 6..close],
        &code[close..].trim_start_matches(')')
    ))
}

/// Plays `task`'s reference on `platform` with `mutation`. A skipped
/// step's data is what the mutant presumes without calling (the
/// reference's, never a result id); a step whose templates its own results
/// cannot fill (an earlier step failed or returned no rows) is not made.
/// None when the world has no such user.
pub fn play(
    task: &Task,
    reference: &Replay,
    platform: &Platform,
    mutation: &Mutation,
) -> Option<Run> {
    let world = platform.world();
    let user = world.users().get(task.user)?.id;
    let mut state = EpisodeState::default();
    let mut run = Run {
        calls: Vec::new(),
        steps: Vec::new(),
        observations: Vec::new(),
    };
    let mut seen: Vec<(String, Value)> = Vec::new();
    for (i, step) in task.steps.iter().enumerate() {
        if mutation.skip == Some(i) {
            continue;
        }
        let lookup = |id: &str| -> Option<Value> {
            if let Some((_, v)) = seen.iter().find(|(s, _)| s == id) {
                return Some(v.clone());
            }
            let at = task.steps.iter().position(|s| s.id == id)?;
            if mutation.skip != Some(at) {
                return None;
            }
            let mut v = parsed(reference.observations.get(at)?);
            if let Value::Object(m) = &mut v {
                m.remove("rid");
            }
            Some(v)
        };
        let ctx = template::Context {
            today: world.today(),
            user,
            steps: &lookup,
        };
        let Ok(mut args) = template::resolve(&step.args, &ctx) else {
            continue;
        };
        if mutation.shift_dates {
            shift_dates(&mut args);
        }
        if mutation.slip_at == Some(i) {
            if let Some(wrong) = args["code"].as_str().and_then(slip) {
                args["code"] = Value::String(wrong);
            }
        }
        let obs = platform.call(&mut state, &step.tool, &args);
        seen.push((step.id.clone(), parsed(&obs)));
        run.calls.push(Call {
            tool: step.tool.clone(),
            args,
        });
        run.steps.push(i);
        run.observations.push(obs);
    }
    Some(run)
}

impl Run {
    /// The answer read by `task`'s spec from this run's observation of the
    /// answer step; None when the task has no answer or this run's results
    /// do not hold it.
    pub fn answer(&self, task: &Task) -> Option<Answer> {
        let spec = task.answer.as_ref()?;
        let at = super::answer_step(task)?;
        let obs = &self.observations[self.steps.iter().position(|&s| s == at)?];
        if !obs.ok() {
            return None;
        }
        read(spec, &parsed(obs)).ok()
    }
}
