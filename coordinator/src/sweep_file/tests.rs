//! Sweep-file parsing and validation, error by error.

use super::*;

const GOOD: &str = r#"
name = "demo"
seeds = [1, 2]
judges = ["fake"]
budget_usd = 1.5

[[suites]]
name = "synthetic"
datasets = ["default"]
params = { items = 10 }

[[solutions]]
name = "answer"
provider = "fake"
max_tokens = 32

[[providers]]
name = "fake"
kind = "openai-compatible"
base_url = "http://127.0.0.1:9/v1"
model = "fake-1"
requests_per_minute = 600
api_key_env = "FAKE_KEY"
"#;

fn env_with_key(name: &str) -> Option<String> {
    (name == "FAKE_KEY").then(|| "secret".to_string())
}

fn try_parse(text: &str) -> Result<SweepSpec, SweepFileError> {
    parse(
        Path::new("sweep.toml"),
        text,
        &SuiteContext::default(),
        &env_with_key,
    )
}

#[test]
fn a_good_file_parses() {
    let spec = try_parse(GOOD).unwrap();
    assert_eq!(spec.seeds, vec![1, 2]);
    assert_eq!(spec.providers[0].requests_per_minute, 600.0);
}

#[test]
fn syntax_errors_name_the_line() {
    let e = try_parse(&GOOD.replace("budget_usd = 1.5", "budget_usd = = 1.5")).unwrap_err();
    assert_eq!(e.line, Some(5), "{e}");
    assert!(
        e.to_string()
            .starts_with("sweep.toml:5: budget_usd: TOML syntax error"),
        "{e}"
    );
    let e = try_parse(&GOOD.replace("max_tokens = 32", "max_tokens = = 32")).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("solutions[0].max_tokens"), "{e}");
    let e = try_parse(&GOOD.replace("= 600", "= \"fast\"")).unwrap_err();
    assert_eq!(
        e.field.as_deref(),
        Some("providers[0].requests_per_minute"),
        "{e}"
    );
}

#[test]
fn unknown_solution_lists_valid_ones() {
    let e = try_parse(&GOOD.replace("name = \"answer\"", "name = \"anwser\"")).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("solutions[0].name"));
    assert_eq!(e.line, Some(13), "{e}");
    assert!(e.message.contains("valid: answer"), "{e}");
}

#[test]
fn negative_rate_is_rejected_with_its_field() {
    let e = try_parse(&GOOD.replace("requests_per_minute = 600", "requests_per_minute = -5"))
        .unwrap_err();
    assert_eq!(e.field.as_deref(), Some("providers[0].requests_per_minute"));
    assert_eq!(e.line, Some(22), "{e}");
    assert!(e.message.contains("-5"), "{e}");
}

#[test]
fn missing_api_key_variable_is_named_but_never_read() {
    let e = parse(Path::new("s.toml"), GOOD, &SuiteContext::default(), &|_| {
        None
    })
    .unwrap_err();
    assert_eq!(e.field.as_deref(), Some("providers[0].api_key_env"));
    assert!(e.message.contains("FAKE_KEY is not set"), "{e}");
}

#[test]
fn unknown_fields_and_judges_are_errors() {
    let e =
        try_parse(&GOOD.replace("budget_usd = 1.5", "budget_usd = 1.5\nbudjet = 3")).unwrap_err();
    assert!(e.message.contains("budjet"), "{e}");
    assert_eq!(e.line, Some(6), "{e}");
    let e = try_parse(&GOOD.replace("judges = [\"fake\"]", "judges = [\"gpt\"]")).unwrap_err();
    assert!(e.message.contains("valid: fake"), "{e}");
}

fn assert_at(e: &SweepFileError, line: usize, field: &str, message: &str) {
    assert_eq!(e.field.as_deref(), Some(field), "{e}");
    assert_eq!(e.line, Some(line), "{e}");
    assert!(e.message.contains(message), "{message:?} not in {e}");
    assert!(
        e.to_string()
            .starts_with(&format!("sweep.toml:{line}: {field}: ")),
        "{e}"
    );
}

#[test]
fn issue_9_suite_and_solution_parameters_fail_the_file_with_their_line() {
    let e =
        try_parse(&GOOD.replace("params = { items = 10 }", "params = { items = -3 }")).unwrap_err();
    assert_at(&e, 10, "suites[0].params.items", "non-negative integer");
    let e = try_parse(&GOOD.replace("max_tokens = 32", "max_tokens = 32\nparams = { tone = 1 }"))
        .unwrap_err();
    assert_at(&e, 16, "solutions[0].params.tone", "takes no parameters");
}

/// A GEM-Bench sweep whose suite entry carries `suite_params` (line 8)
/// and whose one solution `gi-r` carries `solution_params` (line 13).
fn gem(suite_params: &str, solution_params: &str) -> String {
    let mut text = format!(
        r#"name = "g"
judges = ["fake"]
embedder = "emb"

[[suites]]
name = "gem"
datasets = ["mt-human"]
params = {suite_params}

[[solutions]]
name = "gi-r"
provider = "fake"
params = {solution_params}
"#
    );
    for (name, model) in [
        ("fake", "f-1"),
        ("emb", "e-1"),
        ("emb-b", "e-2"),
        ("emb-c", "e-3"),
    ] {
        text.push_str(&format!(
            "\n[[providers]]\nname = \"{name}\"\nkind = \"local\"\nmodel = \"{model}\"\nrequests_per_minute = 600\n"
        ));
    }
    text
}

#[test]
fn issue_9_a_bad_gem_solution_parameter_names_its_line() {
    try_parse(&gem("{}", "{ top_t = 3 }")).expect("a good GEM sweep");
    let e = try_parse(&gem("{}", "{ top_t = 0 }")).unwrap_err();
    assert_at(&e, 13, "solutions[0].params.top_t", "at least 1");
    let e = try_parse(&gem("{}", "{ psi = \"cubic\" }")).unwrap_err();
    assert_at(&e, 13, "solutions[0].params.psi", "unknown \"cubic\"");
    let e = try_parse(&gem("{}", "{ topt = 3 }")).unwrap_err();
    assert_at(&e, 13, "solutions[0].params.topt", "valid: top_t");
}

#[test]
fn gem_embedding_ablation_errors_name_the_field_and_line() {
    let spec = try_parse(&gem(r#"{ embedding_ablation = ["emb-b", "emb-c"] }"#, "{}")).unwrap();
    assert_eq!(spec.suites[0].params["embedding_ablation"][1], "emb-c");
    let cases = [
        (
            r#"["emb-b", "nope"]"#,
            "suites[0].params.embedding_ablation[1]",
            "unknown provider \"nope\"",
        ),
        (
            r#"["fake"]"#,
            "suites[0].params.embedding_ablation[0]",
            "is a judge",
        ),
        (
            r#"["emb-b", "emb"]"#,
            "suites[0].params.embedding_ablation[1]",
            "already the `embedder`",
        ),
        (
            r#"["emb-b", "emb-c", "emb-b"]"#,
            "suites[0].params.embedding_ablation[2]",
            "listed twice",
        ),
    ];
    for (ablation, field, message) in cases {
        let text = gem(&format!("{{ embedding_ablation = {ablation} }}"), "{}");
        let e = try_parse(&text).unwrap_err();
        assert_at(&e, 8, field, message);
    }
    let no_embedder =
        gem(r#"{ embedding_ablation = ["emb-b"] }"#, "{}").replace("embedder = \"emb\"\n", "");
    let e = try_parse(&no_embedder).unwrap_err();
    assert_at(
        &e,
        7,
        "suites[0].params.embedding_ablation",
        "needs `embedder`",
    );
}

#[test]
fn issue_10_duplicate_judges_seeds_and_solutions_are_rejected() {
    let e = try_parse(&GOOD.replace(r#"judges = ["fake"]"#, r#"judges = ["fake", "fake"]"#))
        .unwrap_err();
    assert_at(&e, 4, "judges[1]", "duplicate judge \"fake\"");
    let e = try_parse(&GOOD.replace("seeds = [1, 2]", "seeds = [1, 2, 1]")).unwrap_err();
    assert_at(&e, 3, "seeds[2]", "duplicate seed 1");
    let twice = GOOD.replace(
        "[[providers]]",
        "[[solutions]]\nname = \"answer\"\nprovider = \"fake\"\n\n[[providers]]",
    );
    let e = try_parse(&twice).unwrap_err();
    assert_at(&e, 18, "solutions[1].name", "duplicate solution \"answer\"");
}
