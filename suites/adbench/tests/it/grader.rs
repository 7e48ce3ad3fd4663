//! The answer grader pinned on hand-written answers to shipped public
//! tasks, graded against their references replayed on D0: answers an
//! analyst would accept pass, wrong ones fail, one principle per test.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use adfarm_adbench::replay::{reference_platform, replay, Answer, Replay};
use adfarm_adbench::scoring::{grade, Context, Grade, Graded};
use adfarm_adbench::scripted::answer_text;
use adfarm_adbench::tasks::{load, reference_day, tasks_root, AnswerSpec, Split, Task};
use adfarm_adbench::world::DEFAULT_HOUR;

/// Every public task with its reference replayed on D0.
fn public() -> &'static BTreeMap<String, (Task, Replay)> {
    static P: OnceLock<BTreeMap<String, (Task, Replay)>> = OnceLock::new();
    P.get_or_init(|| {
        let tasks = load(&tasks_root(), Split::Public).unwrap_or_else(|e| panic!("{e}"));
        let p = reference_platform(Split::Public.seed(), reference_day(), DEFAULT_HOUR)
            .expect("platform");
        tasks
            .into_iter()
            .map(|t| {
                let r = replay(&t, &p).unwrap_or_else(|e| panic!("{e}"));
                (t.id.clone(), (t, r))
            })
            .collect()
    })
}

fn task(id: &str) -> &'static (Task, Replay) {
    public().get(id).unwrap_or_else(|| panic!("no task {id}"))
}

/// The context the agent was given on `id`: its question and the user's ids.
fn context(id: &str) -> Context {
    let (t, r) = task(id);
    Context::of(&t.question, &r.observations)
}

/// Grades `text` as the final answer to task `id`, with `spec` in place
/// of the task's own.
fn graded_with(id: &str, spec: &AnswerSpec, text: &str) -> Graded {
    let (t, r) = task(id);
    grade(
        Some(spec),
        r.answer.as_ref(),
        t.outcome,
        Some(t.outcome),
        text,
        &context(id),
    )
}

fn graded(id: &str, text: &str) -> Graded {
    graded_with(
        id,
        task(id).0.answer.as_ref().expect("an answer spec"),
        text,
    )
}

/// Asserts each `(task, answer, grade)` and that none was ambiguous.
fn assert_clear(cases: &[(&str, &str, Grade)]) {
    for (id, text, want) in cases {
        let got = graded(id, text);
        assert_eq!(
            got,
            Graded {
                grade: *want,
                ambiguous: false
            },
            "{id}: {text:?} (reference {:?})",
            task(id).1.answer
        );
    }
}

/// The user's account ids on task `id`, as its account list shows them.
fn accounts(id: &str) -> Vec<u64> {
    let (_, r) = task(id);
    let list = r
        .observations
        .iter()
        .find(|o| o.tool == "get_user_account_list")
        .expect("an account list");
    let v: serde_json::Value = serde_json::from_str(&list.text).expect("json");
    v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["Account ID"].as_u64().expect("id"))
        .collect()
}

#[test]
fn the_references_the_cases_are_written_for_hold_on_d0() {
    let n = |id: &str| task(id).1.answer.clone();
    assert_eq!(n("L2-002"), Some(Answer::Number(-2.07)));
    assert_eq!(n("L3-009"), Some(Answer::Number(-51.04)));
    assert_eq!(n("L2-017"), Some(Answer::Number(-2.16)));
    assert_eq!(n("L2-031"), Some(Answer::Number(-20499.84)));
    assert_eq!(n("L3-001"), Some(Answer::Number(0.34)));
    assert_eq!(n("L3-002"), Some(Answer::Number(0.37)));
    assert_eq!(n("L2-037"), Some(Answer::Number(0.74)));
    assert_eq!(n("L1-001"), Some(Answer::Number(1557191.0)));
    assert_eq!(n("L1-002"), Some(Answer::Number(176995.0)));
    assert_eq!(n("L1-003"), Some(Answer::Number(1.22)));
    assert_eq!(n("L1-005"), Some(Answer::Number(42.55)));
    assert_eq!(n("L2-012"), Some(Answer::Number(21.0)));
    assert_eq!(n("L2-036"), Some(Answer::Number(8.0)));
    assert_eq!(n("L2-015"), Some(Answer::IdList(vec![14379385])));
    assert_eq!(n("L2-004"), Some(Answer::Choice("SITE_SET_UNION".into())));
    assert_eq!(n("L2-006"), Some(Answer::Choice("24-30".into())));
}

#[test]
fn a_sign_given_in_words_counts_as_a_minus() {
    use Grade::Correct;
    // L2-002 and L3-009 state their sign convention in the question
    // ("negative if cost fell"): a fall in words is still the negative
    // change they ask for.
    assert_clear(&[
        ("L2-002", "Your cost fell by 2.07% yesterday compared with the day before.", Correct),
        ("L3-009", "UNION's cost per conversion was 51.04% lower than the other site sets'.", Correct),
        ("L2-031", "Cost fell by ¥20,499.84 week over week.", Correct),
        ("L2-031", "Spend was down ¥20,499.84 on the week before.", Correct),
        ("L2-017", "Your conversions fell by 2.16% from the month before last to last month.", Correct),
        ("L2-017", "Conversions were down 2.16% month over month.", Correct),
        ("L2-017", "Last month's conversions decreased by 2.16%.", Correct),
        ("L2-017", "Conversions dropped 2.16% versus the month before last.", Correct),
        ("L2-017", "A 2.16% drop.", Correct),
        ("L2-031", "Last week you spent ¥20,499.84 less than the week before.", Correct),
        ("L2-002", "The change was -2.07%.", Correct),
        ("L3-009", "On SITE_SET_UNION the cost per conversion differed by −51.04% from the other site sets together.", Correct),
        ("L3-002", "Conversions rose by 0.37% day over day, from 7,277 to 7,304.", Correct),
        (
            "L2-037",
            "Over the last 7 days your video creatives' CTR was 0.74 percentage points higher than your image creatives'.",
            Correct,
        ),
    ]);
}

#[test]
fn words_saying_the_other_direction_or_no_sign_do_not_pass() {
    use Grade::Wrong;
    assert_clear(&[
        (
            "L2-017",
            "Conversions increased by 2.16% last month.",
            Wrong,
        ),
        ("L2-017", "Conversions rose 2.16%.", Wrong),
        ("L2-017", "Conversions changed by 2.16%.", Wrong),
        (
            "L2-031",
            "Last week you spent ¥20,499.84 more than the week before.",
            Wrong,
        ),
        ("L2-002", "The change was 2.07%.", Wrong),
        ("L2-002", "Cost rose 2.07% yesterday.", Wrong),
        (
            "L3-009",
            "UNION's cost per conversion was 51.04% higher.",
            Wrong,
        ),
        ("L2-031", "Cost rose by ¥20,499.84 week over week.", Wrong),
        ("L3-009", "The difference was 51.04%.", Wrong),
    ]);
}

#[test]
fn a_question_asking_for_a_shortfall_reads_fall_words_as_its_own_sign() {
    use Grade::{Correct, Wrong};
    assert_clear(&[
        (
            "L3-001",
            "Your CTR was 0.34 percentage points below the benchmark.",
            Correct,
        ),
        ("L3-001", "It falls short by 0.34 pp.", Correct),
        (
            "L3-001",
            "Your CTR was 0.34 percentage points above the benchmark.",
            Wrong,
        ),
        (
            "L2-031",
            "Last week's cost was ¥20,499.84 lower than the week before's.",
            Correct,
        ),
        (
            "L2-031",
            "Last week's cost was ¥20,499.84 higher than the week before's.",
            Wrong,
        ),
    ]);
}

#[test]
fn choices_match_regardless_of_case_and_by_their_display_label() {
    use Grade::{Correct, Wrong};
    assert_clear(&[
        (
            "L2-005",
            "Female users brought the most conversions last week.",
            Correct,
        ),
        ("L2-005", "female", Correct),
        ("L2-005", "FEMALE.", Correct),
        ("L2-005", "Male users brought the most conversions.", Wrong),
        (
            "L2-004",
            "Union had the lowest cost per conversion.",
            Correct,
        ),
        ("L2-004", "site_set_union", Correct),
        ("L2-004", "The Union site set.", Correct),
        (
            "L2-004",
            "Tencent Video had the lowest cost per conversion.",
            Wrong,
        ),
        (
            "L2-004",
            "Tencent News had the lowest cost per conversion.",
            Wrong,
        ),
        ("L2-025", "QQ had the highest CTR last week.", Correct),
        (
            "L3-023",
            "WeChat Moments had the highest cost per conversion.",
            Correct,
        ),
        ("L2-006", "The 24–30 age band.", Correct),
        ("L2-006", "People aged 24 to 30.", Correct),
        ("L2-006", "The 31-40 band.", Wrong),
        (
            "L3-032",
            "Users of unknown gender had the cheapest deep conversions.",
            Correct,
        ),
        ("L2-007", "guangdong", Correct),
        ("L2-008", "Most conversions came from chengdu.", Correct),
    ]);
}

#[test]
fn numbers_and_ids_the_question_or_the_account_list_state_are_context() {
    use Grade::{Correct, Wrong};
    assert_clear(&[
        ("L2-036", "Your cost was above the 14-day average on 8 of the last 14 days.", Correct),
        ("L2-036", "I looked at the last 14 days of cost.", Wrong),
        ("L3-018", "2 of your image creatives had a 7-day CTR below half the benchmark.", Correct),
        ("L3-018", "I checked each image creative's 7-day CTR.", Wrong),
        (
            "L2-018",
            "Material 700750116 had the highest CTR among image materials with at least 1,000 impressions in the last 14 days.",
            Correct,
        ),
        ("L2-034", "Hour 1 (01:00) had the lowest CPC among hours with at least 100 valid clicks.", Correct),
        ("L2-034", "Only hours with at least 100 valid clicks count.", Wrong),
    ]);
    // The user's own accounts around an ad group's id are context.
    let a = accounts("L2-001");
    let text = format!(
        "In account {}, ad group 2014162887 spent the most last week.",
        a[0]
    );
    assert_clear(&[("L2-001", &text, Correct)]);
    // When the reference is accounts, other accounts are not context.
    let a = accounts("L2-015");
    assert!(a.len() >= 2, "user 11 has several accounts: {a:?}");
    let other = a.iter().find(|x| **x != 14379385).expect("another account");
    let text = format!("Account {other} had the highest CTR.");
    assert_clear(&[("L2-015", &text, Wrong)]);
}

#[test]
fn an_answer_listing_every_candidate_does_not_pass_a_one_value_question() {
    use Grade::Wrong;
    let hours: Vec<String> = (0..24)
        .map(|h| format!("{h:02}:00 ¥{}.50", 1000 + 37 * h))
        .collect();
    let every_hour = format!("Hourly cost yesterday: {}.", hours.join(", "));
    // Every ad group of the user's accounts, the reference's among them.
    let p =
        reference_platform(Split::Public.seed(), reference_day(), DEFAULT_HOUR).expect("platform");
    let w = p.world();
    let mine = &w.users()[task("L2-001").0.user].accounts;
    let groups: Vec<String> = w
        .groups()
        .iter()
        .filter(|g| mine.contains(&g.account))
        .map(|g| g.id.to_string())
        .collect();
    assert!(groups.len() >= 4 && groups.contains(&"2014162887".to_string()));
    let every_group = format!("Ad groups by cost: {}.", groups.join(", "));
    let all_accounts = format!(
        "Your accounts: {}.",
        accounts("L2-015")
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert_clear(&[
        ("L2-012", &every_hour, Wrong),
        ("L2-001", &every_group, Wrong),
        ("L2-015", &all_accounts, Wrong),
        (
            "L1-002",
            "Daily clicks: 61,210, 176,995, 58,004, 70,113 and 66,502.",
            Wrong,
        ),
        (
            "L2-005",
            "MALE, FEMALE and UNKNOWN users all converted.",
            Wrong,
        ),
    ]);
}

#[test]
fn supporting_figures_of_other_units_do_not_compete_with_the_answer() {
    use Grade::Correct;
    assert_clear(&[
        (
            "L1-001",
            "Last week (Jul 13–19) your 6 accounts spent ¥1,557,191.00 in total.",
            Correct,
        ),
        (
            "L1-001",
            "1,557,191.00 CNY, on 2026-07-13 to 2026-07-19.",
            Correct,
        ),
        (
            "L1-002",
            "Your accounts got 176,995 valid clicks yesterday across 4 accounts.",
            Correct,
        ),
        (
            "L2-012",
            "The costliest hour was 21:00-22:00, at ¥7,681.44.",
            Correct,
        ),
        ("L2-012", "9 pm cost the most.", Correct),
        ("L2-012", "Hour 21.", Correct),
        (
            "L1-003",
            "The CTR over the last 7 days was 1.22%, from 12,345 clicks.",
            Correct,
        ),
        (
            "L3-008",
            "Yes, your daily budget meets the minimum.",
            Correct,
        ),
        ("L3-008", "No, it falls below the minimum.", Grade::Wrong),
        (
            "L3-007",
            "None of your video creatives beat the benchmark.",
            Correct,
        ),
        (
            "L3-007",
            "Creative 6242368615 beat the benchmark.",
            Grade::Wrong,
        ),
    ]);
}

#[test]
fn a_second_candidate_of_the_same_unit_is_ambiguous_and_the_first_stated_counts() {
    let amb = |id: &str, text: &str, want: Grade| {
        assert_eq!(
            graded(id, text),
            Graded {
                grade: want,
                ambiguous: true
            },
            "{id}: {text:?}"
        );
    };
    amb(
        "L1-005",
        "Last month you paid ¥42.55 per conversion (¥1,234,567.89 in all).",
        Grade::Correct,
    );
    amb("L2-012", "Hour 20 or hour 21.", Grade::Wrong);
    amb("L2-005", "FEMALE, well ahead of MALE.", Grade::Correct);
    amb("L2-015", "Account 14379385, then 20897919.", Grade::Correct);
    // For a change, the one figure stated with a direction is the answer.
    amb(
        "L2-031",
        "Last week's cost was ¥1,591,426.62, ¥20,499.84 lower than the week before.",
        Grade::Correct,
    );
}

#[test]
fn tolerances_units_and_fractions_are_those_the_task_declares() {
    use Grade::{Correct, Wrong};
    assert_clear(&[
        ("L1-005", "¥42.5549 per conversion.", Correct),
        ("L1-005", "About ¥42.6 per conversion.", Wrong),
        ("L1-005", "42.55%", Wrong),
        ("L1-003", "0.0122", Wrong),
        ("L1-001", "1557191.00 yuan", Correct),
    ]);
    let spec = |id: &str| task(id).0.answer.clone().expect("spec");
    let loose = AnswerSpec {
        tolerance: Some(0.1),
        ..spec("L1-005")
    };
    assert_eq!(graded_with("L1-005", &loose, "About ¥42.6.").grade, Correct);
    assert_eq!(graded_with("L1-005", &loose, "About ¥42.7.").grade, Wrong);
    let fraction = AnswerSpec {
        fraction: true,
        ..spec("L1-003")
    };
    assert_eq!(graded_with("L1-003", &fraction, "0.0122").grade, Correct);
    assert_eq!(graded_with("L1-003", &fraction, "1.22%").grade, Correct);
    assert_eq!(graded_with("L1-003", &fraction, "0.122").grade, Wrong);
}

#[test]
fn the_oracles_answer_passes_every_task_of_both_splits_unambiguously_on_three_dates() {
    for split in [Split::Public, Split::Holdout] {
        let tasks = load(&tasks_root(), split).unwrap_or_else(|e| panic!("{e}"));
        for shift in [0, 9, 45] {
            let d = reference_day().plus(shift);
            let p = reference_platform(split.seed(), d, DEFAULT_HOUR).expect("platform");
            for t in &tasks {
                let r = replay(t, &p).unwrap_or_else(|e| panic!("{e}"));
                let g = grade(
                    t.answer.as_ref(),
                    r.answer.as_ref(),
                    t.outcome,
                    Some(t.outcome),
                    &answer_text(r.answer.as_ref()),
                    &Context::of(&t.question, &r.observations),
                );
                assert_eq!(
                    g,
                    Graded {
                        grade: Grade::Correct,
                        ambiguous: false
                    },
                    "{} on {d}",
                    t.id
                );
            }
        }
    }
}
