//! Valid paths are not errors: a reference step is judged by the data the
//! agent obtained, not by its literal call, and arithmetic done in the
//! calculator where the reference read a value off a report is no tool
//! error.

use std::collections::BTreeSet;

use adfarm_adbench::replay::{Answer, Replay};
use adfarm_adbench::scoring::{score, Episode, Grade, Label, Score};
use adfarm_adbench::tasks::reference_day;
use adfarm_adbench::tools::Call;
use serde_json::json;

use crate::Fixture;

/// Last week's cost, read off one SUM row.
const TASK: &str = r#"
id = "P-1"
tier = "L1"
user = 0
question = "What did my accounts spend last week?"
answer = { kind = "number", from = "s2.rows[0].Cost (CNY)" }
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
args = { user_id = "{user}", begin = "{D.last_week.monday}", end = "{D.last_week.sunday}", group_by_type = "SUM", fields = ["cost"], account_id_list = "${s1.rows[*].Account ID}", page_size = 1 }
[[steps]]
id = "s3"
tool = "summarize_results"
after = ["s2"]
key_args = ["query"]
args = { query = "Resolved" }
"#;

fn fixture() -> Fixture {
    Fixture::of(TASK)
}

fn cost(r: &Replay) -> f64 {
    match r.answer {
        Some(Answer::Number(n)) => n,
        ref other => panic!("{other:?}"),
    }
}

fn run(f: &Fixture, calls: Vec<Call>, text: &str) -> Score {
    score(
        &f.task,
        &f.reference,
        &Episode::play(&f.platform, calls, text, 0),
    )
}

/// The reference's report call fetched DATE by DATE over `begin..=end`.
fn by_date(f: &Fixture, begin: i32, end: i32) -> Call {
    let mut c = f.reference.calls[1].clone();
    let d = reference_day();
    c.args["group_by_type"] = json!("DATE");
    c.args["begin"] = json!(d.plus(begin).to_string());
    c.args["end"] = json!(d.plus(end).to_string());
    c.args["page_size"] = json!(100);
    c
}

/// Calculator code adding up the Cost of result `rid`'s rows from `from` on.
fn sum_cost(rid: &str, from: usize, to: usize) -> Call {
    Call {
        tool: "calculator".into(),
        args: json!({"code": format!(
            "t = 0\nfor r in {rid}['rows'][{from}:{to}]:\n    t = t + r['Cost (CNY)']\nprint(round(t, 2))"
        )}),
    }
}

fn days_to_last_monday() -> i32 {
    let d = reference_day();
    let monday = d.week_start().plus(-7);
    (0..14)
        .find(|n| d.plus(-n) == monday)
        .expect("within two weeks")
}

#[test]
fn the_sum_fetched_day_by_day_and_added_up_covers_the_step() {
    let f = fixture();
    let m = days_to_last_monday();
    let calls = vec![
        f.reference.calls[0].clone(),
        by_date(&f, -m, -m + 6),
        sum_cost("r2", 0, 7),
        f.reference.calls[2].clone(),
    ];
    let text = format!("They spent {} CNY.", cost(&f.reference));
    let s = run(&f, calls, &text);
    assert_eq!(s.grade, Grade::Correct);
    assert_eq!(s.coverage.by_data, vec!["s2".to_string()]);
    assert!(s.coverage.complete(), "{:?}", s.coverage);
    assert!(s.labels.is_empty(), "{:?}", s.labels);
    assert!(s.covered());
}

#[test]
fn a_wider_range_filtered_in_the_calculator_covers_the_step() {
    let f = fixture();
    let m = days_to_last_monday();
    // Three weeks of days, the last week's seven picked out by position
    // (rows come in date order).
    let calls = vec![
        f.reference.calls[0].clone(),
        by_date(&f, -m - 14, -m + 6),
        sum_cost("r2", 14, 21),
        f.reference.calls[2].clone(),
    ];
    let text = format!("They spent {} CNY.", cost(&f.reference));
    let s = run(&f, calls, &text);
    assert_eq!(s.coverage.by_data, vec!["s2".to_string()]);
    assert!(s.covered(), "{:?} {:?}", s.coverage, s.labels);
}

#[test]
fn a_calculator_the_reference_did_not_use_is_no_tool_error() {
    let f = fixture();
    let mut calls = f.reference.calls.clone();
    calls.insert(
        2,
        Call {
            tool: "calculator".into(),
            args: json!({"code": "print(round(r2['rows'][0]['Cost (CNY)'], 2))"}),
        },
    );
    let text = format!("They spent {} CNY.", cost(&f.reference));
    let s = run(&f, calls, &text);
    assert!(s.labels.is_empty(), "{:?}", s.labels);
    assert!(s.covered());
}

#[test]
fn other_days_obtained_do_not_cover_the_step() {
    let f = fixture();
    let m = days_to_last_monday();
    // The week before: the right shape, the wrong data.
    let calls = vec![
        f.reference.calls[0].clone(),
        by_date(&f, -m - 7, -m - 1),
        sum_cost("r2", 0, 7),
        f.reference.calls[2].clone(),
    ];
    let s = run(&f, calls, "They spent 1.00 CNY.");
    assert!(s.coverage.by_data.is_empty());
    assert_eq!(s.coverage.matched[1], None);
    assert!(!s.covered());
    assert_eq!(
        s.labels.intersection(&BTreeSet::from([Label::PE])).count(),
        1,
        "{:?}",
        s.labels
    );
}
