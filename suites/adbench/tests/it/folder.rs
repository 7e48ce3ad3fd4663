//! Tasks a user writes: a folder outside the repo runs through the
//! dataset's `tasks_dir`, a broken task stops the plan naming its file,
//! line and field, and `adfarm adbench check` passes the shipped folder
//! and refuses a broken one.

use std::path::PathBuf;

use adfarm_adbench::replay::{reference_platform, replay, Answer};
use adfarm_adbench::suite::command::{self, check};
use adfarm_adbench::suite::dataset::{Params, Setting, DATASET};
use adfarm_adbench::tasks::{tasks_root, Split};
use adfarm_adbench::AdBench;
use adfarm_proto::SweepSpec;
use adfarm_suite::{CommandError, DataError, Suite};
use serde_json::json;

use crate::calculator;

/// A task of the documented shape: this month's cost per account, the
/// top one's share of the total.
const USER_TASK: &str = r#"id = "MY-001"
tier = "L2"
user = 3
question = "What share (%) of my cost this month so far, up to yesterday, came from my costliest account?"
answer = { kind = "percent", from = "s3.output" }

[[steps]]
id = "s1"
tool = "get_user_account_list"
key_args = ["user_id"]
[steps.args]
"user_id" = "{user}"
"page_size" = 100

[[steps]]
id = "s2"
tool = "daily_data_by_group_and_field"
after = ["s1"]
key_args = ["begin", "end", "group_by_type", "fields", "account_id_list"]
[steps.args]
"user_id" = "{user}"
"begin" = "{D.this_month.first}"
"end" = "{D-1}"
"group_by_type" = "ACCOUNT_ID"
"fields" = ["cost"]
"account_id_list" = "${s1.rows[*].Account ID}"
"page_size" = 100

[[steps]]
id = "s3"
tool = "calculator"
after = ["s2"]
key_args = []
[steps.args]
"code" = '''
costs = [r['Cost (CNY)'] for r in ${s2.rid}['rows']]
print(round(max(costs) / sum(costs) * 100, 2))
'''

[[steps]]
id = "s4"
tool = "summarize_results"
after = ["s3"]
key_args = ["query"]
[steps.args]
"query" = "Resolved"
"#;

/// A fresh folder under the system's temp dir, outside the repository.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("adbench-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }

    fn write(&self, file: &str, text: &str) -> PathBuf {
        let path = self.0.join(file);
        std::fs::write(&path, text).expect("write task");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn sweep(params: serde_json::Value) -> SweepSpec {
    serde_json::from_value(json!({
        "name": "mine",
        "seeds": [1],
        "suites": [{"name": "adbench", "datasets": ["tasks"], "params": params}],
        "solutions": [{"name": "oracle", "provider": "none"}],
        "providers": [],
    }))
    .expect("a sweep")
}

/// A folder of broken tasks, each edit of [`USER_TASK`] with the
/// `file:line: field` its problem must be reported at.
fn broken(dir: &TempDir) -> Vec<String> {
    let cases = [
        // A tool the platform does not have.
        (
            "bad-tool.toml",
            USER_TASK.replace("\"daily_data_by_group_and_field\"", "\"daily_report\""),
            "bad-tool.toml:17: s2.tool: unknown tool \"daily_report\"",
        ),
        // A date term the templates do not know.
        (
            "bad-template.toml",
            USER_TASK.replace("{D.this_month.first}", "{D.this_quarter.first}"),
            "bad-template.toml:22: s2.args.begin:",
        ),
        // A field tasks do not have.
        (
            "unknown-field.toml",
            USER_TASK.replace("tier = \"L2\"\n", "tier = \"L2\"\nlevel = 2\n"),
            "unknown-field.toml:3: level: unknown field",
        ),
        // Checks pass; the answer path finds nothing when replayed.
        (
            "bad-answer.toml",
            USER_TASK
                .replace("s3.output", "s2.rows[0].Spend")
                .replace("MY-001", "MY-002"),
            "bad-answer.toml:5: answer.from: replay on 2026-07-25:",
        ),
    ];
    cases
        .into_iter()
        .map(|(file, text, want)| {
            let path = dir.write(file, &text);
            format!(
                "{}{}",
                path.parent().expect("a folder").join("").display(),
                want
            )
        })
        .collect()
}

#[test]
fn a_task_written_outside_the_repo_runs_through_tasks_dir() {
    let dir = TempDir::new("tasks-dir");
    dir.write("my-001.toml", USER_TASK);
    let spec = sweep(json!({
        "tasks_dir": dir.0.display().to_string(),
        "split": "holdout",
        "env_dates": ["2026-07-25", "2026-08-03"],
    }));
    let s = AdBench::with_calculator(calculator());
    let items: Vec<_> = s
        .items(DATASET, &spec.suites[0].params)
        .expect("the folder's task plans")
        .map(|i| i.expect("an item"))
        .collect();
    let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["MY-001@2026-07-25", "MY-001@2026-08-03"]);
    for item in &items {
        let setting = Setting::of(item).expect("a setting");
        assert_eq!(setting.split, Split::Holdout, "the world the params name");
        assert_eq!(setting.task.user, 3);
        // Its reference is the ground truth on the holdout world: a share.
        let p = reference_platform(setting.seed(), setting.date, setting.hour).expect("platform");
        let r = replay(&setting.task, &p).expect("replays");
        match r.answer {
            Some(Answer::Number(x)) => assert!(x > 0.0 && x <= 100.0, "{x}"),
            other => panic!("{other:?}"),
        }
    }
    // The shipped split's ids are not the folder's.
    let err = s
        .items(
            DATASET,
            &json!({"tasks_dir": dir.0.display().to_string(), "tasks": ["L1-001"]}),
        )
        .err()
        .expect("L1-001 is not in the folder");
    assert!(err.to_string().contains("has no task \"L1-001\""), "{err}");
}

#[test]
fn a_broken_task_in_tasks_dir_stops_the_plan_naming_its_file_line_and_field() {
    let dir = TempDir::new("tasks-dir-broken");
    dir.write("my-001.toml", USER_TASK);
    let want = broken(&dir);
    let s = AdBench::with_calculator(calculator());
    let err = match s.items(DATASET, &json!({"tasks_dir": dir.0.display().to_string()})) {
        Err(e @ DataError::Files { .. }) => e.to_string(),
        Err(e) => panic!("not a file error: {e}"),
        Ok(_) => panic!("a broken folder planned"),
    };
    assert!(err.contains("4 problem(s)"), "{err}");
    for w in &want {
        assert!(err.contains(w.as_str()), "{err}\nshould contain\n{w}");
    }
    // A value that is not a path is refused by its field.
    match Params::read(&json!({"tasks_dir": 3})) {
        Err(DataError::Param { field, .. }) => assert_eq!(field, "params.tasks_dir"),
        other => panic!("{other:?}"),
    }
    // A missing folder is named too.
    let gone = dir.0.join("nowhere");
    let err = s
        .items(DATASET, &json!({"tasks_dir": gone.display().to_string()}))
        .err()
        .expect("no folder");
    assert!(err.to_string().contains("nowhere"), "{err}");
}

#[test]
fn check_passes_the_shipped_public_folder_and_refuses_a_broken_one() {
    let public = tasks_root().join("public");
    let ok = check(&public, Split::Public).expect("the shipped tasks pass");
    assert!(ok.contains("90 tasks load"), "{ok}");
    let dir = TempDir::new("check-broken");
    dir.write("my-001.toml", USER_TASK);
    let want = broken(&dir);
    // Through the command line as `adfarm adbench check DIR` parses it.
    let args = ["adbench", "check", &dir.0.display().to_string()];
    let matches = command::command()
        .try_get_matches_from(args)
        .expect("arguments parse");
    match command::run(&matches) {
        Err(CommandError::Input(text)) => {
            assert!(text.starts_with("4 problem(s)"), "{text}");
            assert!(text.contains("(1 tasks fine)"), "{text}");
            for w in &want {
                assert!(
                    text.lines().any(|l| l.starts_with(w.as_str())),
                    "{text}\nshould have a line starting\n{w}"
                );
            }
        }
        other => panic!("{other:?}"),
    }
    // An empty folder is a problem, not a pass.
    let empty = TempDir::new("check-empty");
    assert!(matches!(
        check(&empty.0, Split::Public),
        Err(CommandError::Input(t)) if t.contains("no task files")
    ));
}
