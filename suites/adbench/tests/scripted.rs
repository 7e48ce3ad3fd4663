//! Scripted agents on every public task and three dates: the oracle
//! scores Pass 100%, coverage 100%, no label; each mutant earns its label
//! on every task it applies to.

use adfarm_adbench::replay::{reference_platform, replay};
use adfarm_adbench::scoring::{score, Grade, Label};
use adfarm_adbench::scripted::{episode, Script};
use adfarm_adbench::tasks::{load, reference_day, tasks_root, AnswerKind, Split};
use adfarm_adbench::world::DEFAULT_HOUR;

#[test]
fn the_oracle_is_clean_and_every_mutant_earns_its_label() {
    let tasks = load(&tasks_root(), Split::Public).expect("tasks");
    let mutants = [
        (Script::NoAccountList, Label::TE),
        (Script::WrongDates, Label::PE),
        (Script::ToollessTurn, Label::IF),
        (Script::WrongArithmetic, Label::CE),
        (Script::InventedNumber, Label::Hal),
    ];
    for shift in [0, 9, 45] {
        let d = reference_day().plus(shift);
        let p = reference_platform(Split::Public.seed(), d, DEFAULT_HOUR).expect("platform");
        let mut applied = [0usize; 5];
        for t in &tasks {
            let r = replay(t, &p).expect("replay");
            let oracle = episode(Script::Oracle, t, &r, &p).expect("the oracle always applies");
            let s = score(t, &r, &oracle);
            let expected = if t
                .answer
                .as_ref()
                .is_some_and(|a| a.kind == AnswerKind::Text)
            {
                Grade::NeedsJudge
            } else {
                Grade::Correct
            };
            assert_eq!(s.grade, expected, "{} on {d}", t.id);
            assert_eq!(s.coverage.fraction(), 1.0, "{} on {d}", t.id);
            assert!(s.labels.is_empty(), "{} on {d}: {:?}", t.id, s.labels);
            for (i, (script, label)) in mutants.iter().enumerate() {
                let Some(e) = episode(*script, t, &r, &p) else {
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
    }
}
