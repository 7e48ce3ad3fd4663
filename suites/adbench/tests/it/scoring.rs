//! The scoring library pinned on hand-built cases: answer grading, Pass@k
//! and pass^k, trajectory coverage and the failure labels.

use std::collections::BTreeSet;

use adfarm_adbench::replay::{Answer, Replay};
use adfarm_adbench::scoring::passk::{binomial, curves, pass_at_1, pass_at_k, pass_hat_k};
use adfarm_adbench::scoring::{grade, score, Context, Episode, Grade, Label, Score};
use adfarm_adbench::tasks::{reference_day, AnswerKind, AnswerSpec};
use adfarm_adbench::tools::{Call, Outcome};
use serde_json::json;

use crate::Fixture;

fn spec(kind: AnswerKind, choices: &[&str]) -> AnswerSpec {
    AnswerSpec {
        kind,
        from: "s1.output".into(),
        choices: choices.iter().map(|c| c.to_string()).collect(),
        tolerance: None,
        unit: None,
        fraction: false,
    }
}

fn g(kind: AnswerKind, reference: Answer, text: &str) -> Grade {
    let s = spec(kind, &["SITE_SET_UNION", "SITE_SET_QQ"]);
    grade(
        Some(&s),
        Some(&reference),
        Outcome::Resolved,
        Some(Outcome::Resolved),
        text,
        &Context::default(),
    )
    .grade
}

#[test]
fn numbers_grade_after_rounding_to_two_decimals() {
    assert_eq!(
        g(
            AnswerKind::Number,
            Answer::Number(73.21),
            "The cost per conversion was 73.2149 CNY."
        ),
        Grade::Correct
    );
    assert_eq!(
        g(
            AnswerKind::Number,
            Answer::Number(2223424.03),
            "Total: 2,223,424.03 CNY"
        ),
        Grade::Correct
    );
    assert_eq!(
        g(
            AnswerKind::Percent,
            Answer::Number(-3.94),
            "Cost fell by -3.94% day over day"
        ),
        Grade::Correct
    );
    assert_eq!(
        g(AnswerKind::Number, Answer::Number(73.21), "About 73.3 CNY"),
        Grade::Wrong
    );
    // A date in the text is not read as the answer.
    assert_eq!(
        g(
            AnswerKind::Number,
            Answer::Number(20.0),
            "On 2026-07-20 nothing happened"
        ),
        Grade::Wrong
    );
}

#[test]
fn id_lists_grade_as_sets_and_other_kinds_by_their_rule() {
    let ids = Answer::IdList(vec![14379385, 20897919]);
    assert_eq!(
        g(
            AnswerKind::IdList,
            ids.clone(),
            "Accounts 20897919 and 14379385, spending 95% of budget"
        ),
        Grade::Correct
    );
    assert_eq!(
        g(AnswerKind::IdList, ids.clone(), "Only 14379385"),
        Grade::Wrong
    );
    assert_eq!(
        g(AnswerKind::IdList, ids, "14379385, 20897919 and 21143192"),
        Grade::Wrong
    );
    assert_eq!(
        g(
            AnswerKind::IdList,
            Answer::IdList(vec![]),
            "None of your creatives, 0 of 12."
        ),
        Grade::Correct
    );
    assert_eq!(
        g(AnswerKind::Bool, Answer::Bool(true), "Yes, it does."),
        Grade::Correct
    );
    assert_eq!(g(AnswerKind::Bool, Answer::Bool(true), "No."), Grade::Wrong);
    assert_eq!(
        g(
            AnswerKind::Choice,
            Answer::Choice("SITE_SET_UNION".into()),
            "SITE_SET_UNION is cheapest"
        ),
        Grade::Correct
    );
    assert_eq!(
        g(
            AnswerKind::Choice,
            Answer::Choice("SITE_SET_UNION".into()),
            "SITE_SET_UNION or SITE_SET_QQ"
        ),
        Grade::Wrong
    );
    let genders = spec(AnswerKind::Choice, &["MALE", "FEMALE", "UNKNOWN"]);
    let female = Answer::Choice("FEMALE".into());
    let graded = |t: &str| {
        grade(
            Some(&genders),
            Some(&female),
            Outcome::Resolved,
            Some(Outcome::Resolved),
            t,
            &Context::default(),
        )
        .grade
    };
    assert_eq!(
        graded("FEMALE users converted most."),
        Grade::Correct,
        "FEMALE does not name MALE"
    );
    assert_eq!(graded("MALE users converted most."), Grade::Wrong);
    let city = |text: &str| g(AnswerKind::Text, Answer::Text("Chengdu".into()), text);
    assert_eq!(city("Most came from Chengdu."), Grade::Correct);
    assert_eq!(city("most came from chengdu"), Grade::Correct);
    assert_eq!(city("Most came from Chengdudu."), Grade::Wrong);
    assert_eq!(city("Most came from Wuhan."), Grade::Wrong);
}

#[test]
fn the_declared_outcome_must_match_the_task() {
    let s = spec(AnswerKind::Number, &[]);
    let n = Answer::Number(1.5);
    assert_eq!(
        grade(
            Some(&s),
            Some(&n),
            Outcome::Resolved,
            Some(Outcome::Unresolved),
            "1.5",
            &Context::default(),
        )
        .grade,
        Grade::Wrong
    );
    assert_eq!(
        grade(
            Some(&s),
            Some(&n),
            Outcome::Resolved,
            None,
            "1.5",
            &Context::default()
        )
        .grade,
        Grade::Wrong
    );
    assert_eq!(
        grade(
            None,
            None,
            Outcome::Unresolved,
            Some(Outcome::Unresolved),
            "cannot",
            &Context::default(),
        )
        .grade,
        Grade::Correct
    );
    assert_eq!(
        grade(
            None,
            None,
            Outcome::Unresolved,
            Some(Outcome::Resolved),
            "42",
            &Context::default(),
        )
        .grade,
        Grade::Wrong
    );
}

#[test]
fn pass_at_k_and_pass_hat_k_follow_their_formulas() {
    assert_eq!(binomial(5, 2), 10.0);
    assert_eq!(binomial(3, 4), 0.0);
    // One task, 5 runs, 2 correct.
    let t = [(5, 2)];
    assert!((pass_at_1(&t) - 0.4).abs() < 1e-12);
    assert!((pass_at_k(&t, 2) - (1.0 - 3.0 / 10.0)).abs() < 1e-12);
    assert!((pass_hat_k(&t, 2) - 1.0 / 10.0).abs() < 1e-12);
    assert_eq!(pass_at_k(&t, 4), 1.0, "any 4 of 5 include a correct run");
    assert_eq!(pass_hat_k(&t, 3), 0.0);
    // Averaged over tasks.
    let two = [(4, 4), (4, 0)];
    assert_eq!(pass_at_1(&two), 0.5);
    let c = curves(&two);
    assert_eq!(c.len(), 4);
    assert!(c.iter().all(|&(_, at, hat)| at == 0.5 && hat == 0.5));
}

const TASK: &str = r#"
id = "S-1"
tier = "L2"
user = 0
question = "What was the CPM of my accounts last week?"
answer = { kind = "number", from = "s4.output" }
[[steps]]
id = "s1"
tool = "get_user_account_list"
key_args = ["user_id"]
args = { user_id = "{user}", page_size = 100 }
[[steps]]
id = "s2"
tool = "daily_data_by_group_and_field"
after = ["s1"]
key_args = ["begin", "end", "group_by_type", "fields", "account_id_list"]
args = { user_id = "{user}", begin = "{D.last_week.monday}", end = "{D.last_week.sunday}", group_by_type = "SUM", fields = ["cost", "view_count"], account_id_list = "${s1.rows[*].Account ID}", page_size = 1 }
[[steps]]
id = "s3"
tool = "search"
entry = ["M12"]
args = { query = "CPM" }
[[steps]]
id = "s4"
tool = "calculator"
after = ["s2", "s3"]
args = { code = "r = ${s2.rid}['rows'][0]\nprint(round(r['Cost (CNY)'] / r['Impressions'] * 1000, 2))" }
[[steps]]
id = "s5"
tool = "summarize_results"
after = ["s4"]
key_args = ["query"]
args = { query = "Resolved" }
"#;

fn fixture() -> Fixture {
    Fixture::of(TASK)
}

fn answer_text(r: &Replay) -> String {
    match &r.answer {
        Some(Answer::Number(n)) => format!("The CPM was {n:.2} CNY."),
        other => panic!("{other:?}"),
    }
}

fn run(f: &Fixture, calls: Vec<Call>, text: &str, toolless: u32) -> Score {
    let e = Episode::play(&f.platform, calls, text, toolless);
    score(&f.task, &f.reference, &e)
}

fn labels(s: &Score) -> BTreeSet<Label> {
    s.labels.clone()
}

#[test]
fn the_reference_itself_scores_clean() {
    let f = fixture();
    let s = run(&f, f.reference.calls.clone(), &answer_text(&f.reference), 0);
    assert_eq!(s.grade, Grade::Correct);
    assert_eq!(s.coverage.step_share(), 1.0);
    assert!(s.labels.is_empty(), "{:?}", s.labels);
}

#[test]
fn parallel_or_reordered_independent_calls_still_cover() {
    let f = fixture();
    let c = &f.reference.calls;
    // search first, then the account list: neither waits for the other.
    let mut calc = c[3].clone();
    // The report is now the third result: the agent's code says so.
    calc.args["code"] = json!(calc.args["code"]
        .as_str()
        .expect("code")
        .replace("r2", "r3"));
    let calls = vec![c[2].clone(), c[0].clone(), c[1].clone(), calc, c[4].clone()];
    let s = run(&f, calls, &answer_text(&f.reference), 0);
    assert_eq!(s.coverage.step_share(), 1.0);
    assert!(s.labels.is_empty(), "{:?}", s.labels);
}

#[test]
fn an_inverted_dependency_does_not_cover_and_is_a_tool_error() {
    let f = fixture();
    let c = &f.reference.calls;
    // The report before the account list it depends on.
    let calls = vec![
        c[1].clone(),
        c[0].clone(),
        c[2].clone(),
        c[3].clone(),
        c[4].clone(),
    ];
    let s = run(&f, calls, &answer_text(&f.reference), 0);
    assert!(s.coverage.step_share() < 1.0);
    assert_eq!(s.coverage.inverted, vec!["s2".to_string()]);
    assert!(labels(&s).contains(&Label::TE));
}

#[test]
fn a_missing_account_list_is_a_tool_error() {
    let f = fixture();
    let calls: Vec<Call> = f.reference.calls.iter().skip(1).cloned().collect();
    let s = run(&f, calls, &answer_text(&f.reference), 0);
    assert_eq!(s.grade, Grade::Correct);
    assert!(labels(&s).contains(&Label::TE));
    assert_eq!(s.coverage.matched[0], None);
}

#[test]
fn a_stray_tool_is_a_tool_error() {
    let f = fixture();
    let mut calls = f.reference.calls.clone();
    calls.insert(4, Call { tool: "get_account_info".into(), args: json!({"user_id": f.reference.calls[0].args["user_id"], "account_id_list": f.reference.calls[1].args["account_id_list"]}) });
    let s = run(&f, calls, &answer_text(&f.reference), 0);
    assert_eq!(labels(&s), BTreeSet::from([Label::TE]));
}

#[test]
fn wrong_dates_are_a_parameter_error() {
    let f = fixture();
    let mut calls = f.reference.calls.clone();
    calls[1].args["begin"] = json!(reference_day().plus(-14).to_string());
    let s = run(&f, calls, &answer_text(&f.reference), 0);
    assert!(s.coverage.key_arg_mismatch.contains(&"s2".to_string()));
    assert!(labels(&s).contains(&Label::PE));
}

#[test]
fn id_lists_match_as_sets_and_extra_fields_are_allowed() {
    let f = fixture();
    let mut calls = f.reference.calls.clone();
    let mut ids = calls[1].args["account_id_list"]
        .as_array()
        .expect("ids")
        .clone();
    ids.reverse();
    calls[1].args["account_id_list"] = json!(ids);
    calls[1].args["fields"] = json!(["view_count", "ctr", "cost"]);
    let s = run(&f, calls, &answer_text(&f.reference), 0);
    assert_eq!(s.coverage.step_share(), 1.0);
    assert!(s.labels.is_empty(), "{:?}", s.labels);
}

#[test]
fn a_schema_rejection_is_a_parameter_error() {
    let f = fixture();
    let mut calls = f.reference.calls.clone();
    let mut bad = calls[1].clone();
    bad.args["group_by_type"] = json!("TOTAL");
    calls.insert(1, bad);
    let s = run(&f, calls, &answer_text(&f.reference), 0);
    assert!(labels(&s).contains(&Label::PE));
    assert_eq!(s.coverage.step_share(), 1.0);
}

#[test]
fn a_toolless_turn_is_an_instruction_following_failure() {
    let f = fixture();
    let s = run(&f, f.reference.calls.clone(), &answer_text(&f.reference), 1);
    assert_eq!(labels(&s), BTreeSet::from([Label::IF]));
}

#[test]
fn wrong_arithmetic_on_the_right_data_is_a_computation_error() {
    let f = fixture();
    let mut calls = f.reference.calls.clone();
    calls[3].args["code"] =
        json!("r = r2['rows'][0]\nprint(round(r['Cost (CNY)'] / r['Impressions'], 2))");
    let printed = Episode::play(&f.platform, calls.clone(), "", 0).observations[3]
        .text
        .clone();
    let value: serde_json::Value = serde_json::from_str(&printed).expect("json");
    let text = format!(
        "The CPM was {} CNY.",
        value["output"].as_str().expect("output").trim()
    );
    let s = run(&f, calls, &text, 0);
    assert_eq!(s.grade, Grade::Wrong);
    assert!(labels(&s).contains(&Label::CE), "{:?}", s.labels);
    assert!(
        !labels(&s).contains(&Label::Hal),
        "the wrong number was printed, not invented"
    );
    assert_eq!(
        s.coverage.matched[3], None,
        "the calculator did not print the reference value"
    );
}

#[test]
fn a_failing_calculator_is_a_computation_error() {
    let f = fixture();
    let mut calls = f.reference.calls.clone();
    calls.insert(
        3,
        Call {
            tool: "calculator".into(),
            args: json!({"code": "print(1/0)"}),
        },
    );
    let s = run(&f, calls, &answer_text(&f.reference), 0);
    assert_eq!(s.grade, Grade::Correct);
    assert!(labels(&s).contains(&Label::CE));
}

#[test]
fn an_invented_number_is_a_hallucination() {
    let f = fixture();
    let text = format!(
        "{} Next week it will be 31.41 CNY.",
        answer_text(&f.reference)
    );
    let s = run(&f, f.reference.calls.clone(), &text, 0);
    assert_eq!(s.grade, Grade::Correct);
    assert_eq!(labels(&s), BTreeSet::from([Label::Hal]));
}

#[test]
fn long_repetitive_episodes_and_overflow_are_long_context_failures() {
    let f = fixture();
    let mut calls: Vec<Call> = Vec::new();
    for _ in 0..3 {
        calls.extend(f.reference.calls[..4].iter().cloned());
    }
    calls.push(f.reference.calls[4].clone());
    let s = run(&f, calls, &answer_text(&f.reference), 0);
    assert!(labels(&s).contains(&Label::LC));
    let mut e = Episode::play(
        &f.platform,
        f.reference.calls.clone(),
        &answer_text(&f.reference),
        0,
    );
    e.context_overflow = true;
    assert_eq!(
        score(&f.task, &f.reference, &e).labels,
        BTreeSet::from([Label::LC])
    );
}

#[test]
fn a_search_counts_only_when_the_entry_is_in_its_top_three() {
    let f = fixture();
    let mut calls = f.reference.calls.clone();
    calls[2].args["query"] = json!("ad group status");
    let s = run(&f, calls, &answer_text(&f.reference), 0);
    assert_eq!(s.coverage.matched[2], None);
    assert!((s.coverage.step_share() - 0.8).abs() < 1e-12);
}
