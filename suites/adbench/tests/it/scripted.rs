//! Scripted agents on every public task: the oracle scores Pass 100%,
//! coverage 100%, no label; each mutant earns its label on every task it
//! applies to, and answers from its own results, so it fails where its
//! mutation changed the data. Played directly on three dates, and through
//! both agent protocols (`agent::run` with a `ScriptedModel`, the
//! calculator in its child process) on the reference date, where the
//! agent's episode must be the one the script plays directly.

use std::sync::Arc;

use adfarm_adbench::agent::{self, Brief, End, Limits, Protocol, Sampling};
use adfarm_adbench::replay::{reference_platform, replay, Replay};
use adfarm_adbench::scoring::{score, Episode, Grade, Label};
use adfarm_adbench::scripted::{answer_step, episode, plan, Plan, Script, ScriptedModel};
use adfarm_adbench::tasks::{load, reference_day, tasks_root, Split, Task};
use adfarm_adbench::tools::{Observation, Platform};
use adfarm_adbench::world::{Day, DEFAULT_HOUR};
use serde_json::Value;

use crate::child_platform;

const MUTANTS: [(Script, Label); 5] = [
    (Script::NoAccountList, Label::TE),
    (Script::WrongDates, Label::PE),
    (Script::ToollessTurn, Label::IF),
    (Script::WrongArithmetic, Label::CE),
    (Script::InventedNumber, Label::Hal),
];

/// One mutant's tasks at one date.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    /// Tasks it applied to.
    applied: usize,
    /// ... of which it answered right.
    passed: usize,
    /// Tasks where its observation of the answer step differs from the
    /// reference's (or it has none): its mutation changed the data.
    changed: usize,
    /// ... of which it answered right.
    passed_changed: usize,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.applied += o.applied;
        self.passed += o.passed;
        self.changed += o.changed;
        self.passed_changed += o.passed_changed;
    }
}

fn percent(n: usize, of: usize) -> String {
    if of == 0 {
        return "-".into();
    }
    format!("{:.1}%", 100.0 * n as f64 / of as f64)
}

/// An observation's data: its JSON without the result id it was stored
/// under (a mutant that skips a call numbers its results differently).
fn data(o: &Observation) -> Value {
    let mut v: Value = serde_json::from_str(&o.text).expect("observations are JSON");
    if let Value::Object(m) = &mut v {
        m.remove("result_id");
    }
    v
}

/// True when `e`, the episode of plan `p` on `t`, did not obtain the data
/// the reference obtained at the answer step.
fn data_changed(t: &Task, r: &Replay, p: &Plan, e: &Episode) -> bool {
    let Some(step) = answer_step(t) else {
        return false;
    };
    match p.call_of(step) {
        None => true,
        Some(i) => data(&e.observations[i]) != data(&r.observations[step]),
    }
}

/// Plays every script on every public task at `d` with `play` (None when
/// the script does not apply), checks the oracle is clean and each mutant
/// labelled, and tallies each mutant's answers.
fn check_scripts(
    d: Day,
    play: &dyn Fn(Script, &Task, &Replay, &Platform) -> Option<Episode>,
) -> [Tally; 5] {
    let tasks = load(&tasks_root(), Split::Public).expect("tasks");
    let p = reference_platform(Split::Public.seed(), d, DEFAULT_HOUR).expect("platform");
    let mut tally = [Tally::default(); 5];
    for t in &tasks {
        let r = replay(t, &p).expect("replay");
        let oracle = play(Script::Oracle, t, &r, &p).expect("the oracle always applies");
        let s = score(t, &r, &oracle);
        assert_eq!(s.grade, Grade::Correct, "{} on {d}", t.id);
        assert_eq!(s.coverage.step_share(), 1.0, "{} on {d}", t.id);
        assert!(s.labels.is_empty(), "{} on {d}: {:?}", t.id, s.labels);
        for (i, (script, label)) in MUTANTS.iter().enumerate() {
            let Some(e) = play(*script, t, &r, &p) else {
                continue;
            };
            let plan = plan(*script, t, &r, &p).expect("applies as played");
            let s = score(t, &r, &e);
            assert!(
                s.labels.contains(label),
                "{script:?} on {} at {d}: {:?}",
                t.id,
                s.labels
            );
            let passed = usize::from(s.grade == Grade::Correct);
            let changed = data_changed(t, &r, &plan, &e);
            if !changed && *script != Script::InventedNumber {
                // The same data read the same way: the oracle's answer.
                assert_eq!(e.final_text, oracle.final_text, "{script:?} on {}", t.id);
            }
            if *script != Script::InventedNumber {
                // Its answer is read from its own results: no number in it
                // comes from nowhere.
                assert!(
                    !s.labels.contains(&Label::Hal),
                    "{script:?} on {} at {d}: {:?}",
                    t.id,
                    e.final_text
                );
            }
            tally[i] += Tally {
                applied: 1,
                passed,
                changed: usize::from(changed),
                passed_changed: passed * usize::from(changed),
            };
        }
    }
    let applied: Vec<usize> = tally.iter().map(|t| t.applied).collect();
    eprintln!(
        "{d}: mutants applied to {applied:?} of {} tasks",
        tasks.len()
    );
    assert!(applied.iter().all(|&n| n >= 5), "{applied:?}");
    tally
}

#[test]
fn the_oracle_is_clean_and_every_mutant_earns_its_label() {
    for shift in [0, 9, 45] {
        check_scripts(reference_day().plus(shift), &episode);
    }
}

#[test]
fn each_mutant_answers_from_its_own_results_so_changed_data_fails_it() {
    let mut total = [Tally::default(); 5];
    for shift in [0, 9, 45] {
        let d = reference_day().plus(shift);
        for (sum, t) in total.iter_mut().zip(check_scripts(d, &episode)) {
            *sum += t;
        }
    }
    eprintln!("mutant            applied  Pass@1   data changed  Pass@1 there");
    for ((script, _), t) in MUTANTS.iter().zip(&total) {
        eprintln!(
            "{:<17} {:>7}  {:>6}  {:>12}  {:>12}",
            script.name(),
            t.applied,
            percent(t.passed, t.applied),
            t.changed,
            percent(t.passed_changed, t.changed)
        );
        if t.changed > 0 {
            assert!(
                t.passed_changed < t.changed,
                "{script:?} passes every task whose data it changed: {t:?}"
            );
        }
    }
    // Querying the wrong days or printing a wrong value always changes
    // what the answer step returns.
    for script in [Script::WrongDates, Script::WrongArithmetic] {
        let i = MUTANTS
            .iter()
            .position(|(s, _)| *s == script)
            .expect("a mutant");
        assert!(
            total[i].changed * 2 > total[i].applied,
            "{script:?}: {:?}",
            total[i]
        );
    }
}

/// Checks every script through `protocol` against the direct play.
fn through(protocol: Protocol) {
    let d = reference_day();
    let seed = Split::Public.seed();
    let platform = Arc::new(child_platform(seed, d));
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let sampling = Sampling {
        max_tokens: 512,
        temperature: 0.0,
        seed: 1,
    };
    // Runs in which independent steps shared a turn.
    let shared = std::cell::Cell::new(0usize);
    let play = |script: Script, t: &Task, r: &Replay, p: &Platform| -> Option<Episode> {
        let model = ScriptedModel::new(script, t, r, p)?;
        let brief = Brief {
            question: &t.question,
            user_id: p.world().users()[t.user].id,
            today: d,
            hour: DEFAULT_HOUR,
        };
        let run = rt
            .block_on(agent::run(
                protocol,
                &model,
                Arc::clone(&platform),
                brief,
                Limits::default(),
                sampling,
            ))
            .expect("a scripted model does not fail");
        assert_eq!(run.end, End::Summarized, "{script:?} on {}", t.id);
        assert!(
            run.turns.iter().all(|turn| turn.format_error.is_none()),
            "{script:?} on {}: {:?}",
            t.id,
            run.turns
        );
        if run.turns.iter().any(|turn| turn.calls.len() > 1) {
            shared.set(shared.get() + 1);
        }
        let direct = episode(script, t, r, p).expect("applies as the model did");
        assert_eq!(run.episode, direct, "{script:?} on {}", t.id);
        Some(run.episode)
    };
    let direct = check_scripts(d, &episode);
    assert_eq!(check_scripts(d, &play), direct);
    eprintln!(
        "{protocol:?}: {} runs had a turn of parallel calls",
        shared.get()
    );
    assert!(shared.get() > 0);
}

#[test]
fn scripted_agents_through_react_tags_score_as_played_directly() {
    through(Protocol::React);
}

#[test]
fn scripted_agents_through_function_calling_score_as_played_directly() {
    through(Protocol::FunctionCalling);
}

#[test]
fn scripts_serialise_by_their_names() {
    for s in Script::ALL {
        let json = serde_json::to_string(&s).expect("serialise");
        assert_eq!(json, format!("\"{}\"", s.name()));
        assert_eq!(serde_json::from_str::<Script>(&json).expect("read"), s);
    }
}
