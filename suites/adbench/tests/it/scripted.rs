//! Scripted agents on every public task: the oracle scores Pass 100%,
//! coverage 100%, no label; each mutant earns its label on every task it
//! applies to. Played directly on three dates, and through both agent
//! protocols (`agent::run` with a `ScriptedModel`, the calculator in its
//! child process) on the reference date, where the agent's episode must
//! be the one the script plays directly.

use std::sync::Arc;

use adfarm_adbench::agent::{self, Brief, End, Limits, Protocol, Sampling};
use adfarm_adbench::replay::{reference_platform, replay, Replay};
use adfarm_adbench::scoring::{score, Episode, Grade, Label};
use adfarm_adbench::scripted::{episode, Script, ScriptedModel};
use adfarm_adbench::tasks::{load, reference_day, tasks_root, Split, Task};
use adfarm_adbench::tools::Platform;
use adfarm_adbench::world::{Day, DEFAULT_HOUR};

use crate::child_platform;

const MUTANTS: [(Script, Label); 5] = [
    (Script::NoAccountList, Label::TE),
    (Script::WrongDates, Label::PE),
    (Script::ToollessTurn, Label::IF),
    (Script::WrongArithmetic, Label::CE),
    (Script::InventedNumber, Label::Hal),
];

/// Plays every script on every public task at `d` with `play` (None when
/// the script does not apply), checks the oracle is clean and each mutant
/// labelled, and says how many tasks each mutant applied to.
fn check_scripts(
    d: Day,
    play: &dyn Fn(Script, &Task, &Replay, &Platform) -> Option<Episode>,
) -> [usize; 5] {
    let tasks = load(&tasks_root(), Split::Public).expect("tasks");
    let p = reference_platform(Split::Public.seed(), d, DEFAULT_HOUR).expect("platform");
    let mut applied = [0usize; 5];
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
            applied[i] += 1;
            let s = score(t, &r, &e);
            assert!(
                s.labels.contains(label),
                "{script:?} on {} at {d}: {:?}",
                t.id,
                s.labels
            );
        }
    }
    eprintln!(
        "{d}: mutants applied to {applied:?} of {} tasks",
        tasks.len()
    );
    assert!(applied.iter().all(|&n| n >= 5), "{applied:?}");
    applied
}

#[test]
fn the_oracle_is_clean_and_every_mutant_earns_its_label() {
    for shift in [0, 9, 45] {
        check_scripts(reference_day().plus(shift), &episode);
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
