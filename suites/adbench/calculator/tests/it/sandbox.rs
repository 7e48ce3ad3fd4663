//! The calculator's sandbox, end to end through its child process:
//! refusals name what they refuse, limits stop runaway snippets, and the
//! runner keeps serving correct answers after each of them. How long the
//! limits take to stop a run is measured by the `runs` bench, not asserted.

use adfarm_calculator::{
    evaluate, Calculator, ErrorKind, Reply, Request, CODE_CHARS, OUTPUT_LIMIT,
};

use crate::{calculator, snippet};

fn run(calc: &Calculator, code: &str) -> Reply {
    calc.run_request(&snippet(code))
}

/// After any failure the next, ordinary snippet must still get its answer.
fn assert_still_serving(calc: &Calculator) {
    let reply = run(
        calc,
        "xs = [3, 4]\nprint(sum(x * x for x in xs) ** 0.5, f'{2/3:.3f}')",
    );
    assert_eq!(reply.error, None);
    assert_eq!(reply.output, "5.0 0.667\n");
}

fn error_kind(reply: &Reply) -> ErrorKind {
    reply
        .error
        .as_ref()
        .map(|e| e.kind)
        .unwrap_or_else(|| panic!("expected an error, got output {:?}", reply.output))
}

#[test]
fn file_network_process_and_dynamic_imports_are_refused_by_name() {
    let calc = calculator();
    let cases = [
        ("f = open('/etc/passwd')\nprint(f.read())", "open"),
        ("import os\nprint(os.listdir('/'))", "os"),
        ("import socket", "socket"),
        ("import subprocess\nsubprocess.run(['ls'])", "subprocess"),
        ("os = __import__('os')", "__import__"),
        ("from os import path", "os"),
        ("import math, sys", "sys"),
        ("import time\nprint(time.time())", "time"),
        ("eval('1 + 1')", "eval"),
        ("with open('x') as f:\n    pass", "with"),
        ("class Campaign:\n    pass", "class"),
    ];
    for (code, name) in cases {
        let reply = run(&calc, code);
        assert_eq!(error_kind(&reply), ErrorKind::Refused, "{code}");
        let message = &reply.error.as_ref().expect("an error").message;
        assert!(
            message.contains(&format!("`{name}`")),
            "{code}: message {message:?} should name `{name}`"
        );
        assert_eq!(reply.output, "", "{code}: nothing ran before the refusal");
        assert_still_serving(&calc);
    }
}

#[test]
fn a_refused_name_is_reported_where_it_is_reached() {
    let calc = calculator();
    let reply = run(&calc, "print('before')\nopen('x')");
    assert_eq!(error_kind(&reply), ErrorKind::Refused);
    assert_eq!(reply.output, "before\n");
    assert!(reply
        .to_text()
        .ends_with("[refused] `open` is not available: the calculator has no file access"));
}

#[test]
fn an_endless_loop_is_stopped_at_the_time_limit() {
    let calc = calculator();
    let reply = run(&calc, "print('started')\nn = 0\nwhile True:\n    n += 1");
    assert_eq!(error_kind(&reply), ErrorKind::Timeout);
    // What it printed before it was killed still reaches the agent.
    assert_eq!(reply.output, "started\n");
    assert_still_serving(&calc);
}

#[test]
fn a_silent_child_is_killed_at_the_wall_clock() {
    // A child that never answers and burns no CPU: only the wall clock stops it.
    let sleeper = Calculator::new("/bin/sleep", ["30"]);
    let reply = run(&sleeper, "print(1)");
    assert_eq!(error_kind(&reply), ErrorKind::Timeout);
    assert_eq!(
        reply.error.expect("a timeout").message,
        "the snippet ran past the 5 s wall-clock limit and was stopped"
    );
}

#[test]
fn a_gibibyte_allocation_is_a_memory_error_not_a_crash() {
    let calc = calculator();
    for code in [
        "big = 'x' * (1 << 30)\nprint(len(big))",
        "big = [0] * (1 << 30)\nprint(len(big))",
        "big = list(range(1 << 30))",
        // Grows through the allocator until the address-space limit aborts the child.
        "print('before')\ns = 'a' * (100 << 20)\nt = s + s\nu = t + t\nprint(len(u))",
    ] {
        let reply = run(&calc, code);
        assert_eq!(error_kind(&reply), ErrorKind::Memory, "{code}: {reply:?}");
        let expected_output = if code.starts_with("print") {
            "before\n"
        } else {
            ""
        };
        assert_eq!(reply.output, expected_output, "{code}");
        assert!(reply.to_text().contains("[memory limit]"), "{code}");
        assert_still_serving(&calc);
    }
}

#[test]
fn a_snippet_past_the_length_limit_is_refused_unrun_naming_the_limit() {
    let calc = calculator();
    let at_limit = format!("print(1){}", " ".repeat(CODE_CHARS - 8));
    assert_eq!(run(&calc, &at_limit).output, "1\n");
    let five_mb = format!("print(1)\n{}", "#".repeat(5 << 20));
    for reply in [run(&calc, &five_mb), evaluate(&snippet(&five_mb))] {
        assert_eq!(error_kind(&reply), ErrorKind::Refused);
        assert_eq!(reply.output, "");
        let text = reply.to_text();
        assert!(
            text.contains(&format!("{} characters", (5 << 20) + 9))
                && text.contains(&format!("at most {CODE_CHARS}")),
            "{text}"
        );
    }
    assert_still_serving(&calc);
}

#[test]
fn output_past_16_kib_is_cut_with_a_marker() {
    let calc = calculator();
    let reply = run(&calc, "for i in range(100000):\n    print('row', i)");
    assert_eq!(error_kind(&reply), ErrorKind::OutputTooLong);
    assert_eq!(reply.output.len(), OUTPUT_LIMIT);
    let full: String = (0..100000).map(|i| format!("row {i}\n")).collect();
    assert!(full.starts_with(&reply.output));
    let text = reply.to_text();
    assert!(
        text.contains("[output cut] output passed 16 KiB"),
        "{}",
        &text[text.len() - 200..]
    );
    assert_still_serving(&calc);
}

#[test]
fn runtime_errors_name_the_exception_and_line_and_keep_earlier_output() {
    let calc = calculator();
    let reply = run(&calc, "print('partial')\nrows = {'a': 1}\nx = rows['b']");
    assert_eq!(error_kind(&reply), ErrorKind::Runtime);
    assert_eq!(reply.output, "partial\n");
    assert_eq!(
        reply.error.expect("an error").message,
        "KeyError: 'b' (line 3)"
    );

    let reply = run(&calc, "def f(n):\n    return f(n + 1)\nf(0)");
    assert_eq!(error_kind(&reply), ErrorKind::Runtime);
    assert!(reply
        .error
        .expect("an error")
        .message
        .starts_with("RecursionError"));

    let reply = run(&calc, "print(7 ** 100000)");
    assert_eq!(error_kind(&reply), ErrorKind::Runtime);
    assert!(reply
        .error
        .expect("an error")
        .message
        .contains("4300 digits"));
    assert_still_serving(&calc);
}

#[test]
fn syntax_errors_say_where() {
    let calc = calculator();
    let reply = run(&calc, "x = 1\nif x > 0\n    print(x)");
    assert_eq!(error_kind(&reply), ErrorKind::Syntax);
    let message = reply.error.expect("an error").message;
    assert!(
        message.starts_with("SyntaxError: line 2: expected `:`"),
        "{message}"
    );
}

#[test]
fn tool_results_are_variables_with_their_key_order() {
    let calc = calculator();
    let reply = calc.run(
        "print(r1)\nprint(r2[0]['name'], len(r2), r2[1]['spend'] * 2)",
        &[
            (
                "r1".to_string(),
                serde_json::json!({"zeta": 1, "alpha": [1.5, null, true, "s"]}),
            ),
            (
                "r2".to_string(),
                serde_json::json!([{"name": "x"}, {"spend": 2.25}]),
            ),
        ],
    );
    assert_eq!(reply.error, None);
    // serde_json::Value sorts keys; JSON text given directly keeps its order.
    assert_eq!(
        reply.output,
        "{'alpha': [1.5, None, True, 's'], 'zeta': 1}\nx 2 4.5\n"
    );
    let reply = calc.run_request(&Request {
        code: "print(list(r1), r1['b'][-1])".into(),
        variables: vec![("r1".into(), r#"{"b": [1, 2, 3], "a": 0}"#.into())],
    });
    assert_eq!(reply.output, "['b', 'a'] 3\n");
}

#[test]
fn the_child_runs_with_an_empty_environment() {
    // Exit 9 when the child sees no variables but the ones a shell sets
    // itself (PWD, SHLVL, _), 7 otherwise.
    let probe = Calculator::new(
        "/bin/sh",
        [
            "-c",
            "env | grep -v -E '^(PWD|OLDPWD|SHLVL|_)=' | grep -q . && exit 7; exit 9",
        ],
    );
    let reply = run(&probe, "print(1)");
    let message = reply.error.expect("the probe never replies").message;
    assert!(message.contains("exit code 9"), "{message}");
}

#[test]
fn a_child_that_dies_without_reply_is_reported() {
    let broken = Calculator::new("/bin/false", Vec::<String>::new());
    let reply = run(&broken, "print(1)");
    assert_eq!(error_kind(&reply), ErrorKind::Crashed);
    let missing = Calculator::new("/nonexistent/calculator-child", Vec::<String>::new());
    assert_eq!(error_kind(&run(&missing, "print(1)")), ErrorKind::Crashed);
}
