//! Sweep-file parsing and validation, error by error.

use super::*;
use crate::demo_sweep::demo_sweep;
use adfarm_proto::ProviderKind;
use std::sync::LazyLock;

/// A valid sweep every test breaks in one place.
static GOOD: LazyLock<String> = LazyLock::new(|| {
    demo_sweep(
        "name = \"demo\"\nseeds = [1, 2]\njudges = [\"fake\"]\nbudget_usd = 1.5",
        10,
        "api_key_env = \"FAKE_KEY\"\n",
    )
});

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
    let spec = try_parse(&GOOD).unwrap();
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
    let e = parse(
        Path::new("s.toml"),
        &GOOD,
        &SuiteContext::default(),
        &|_| None,
    )
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

#[test]
fn only_local_providers_take_a_prefix_cache_size() {
    let e = try_parse(&GOOD.replace(
        "requests_per_minute = 600",
        "requests_per_minute = 600\nprefix_cache_tokens = 65536",
    ))
    .unwrap_err();
    assert_at(
        &e,
        23,
        "providers[0].prefix_cache_tokens",
        "only to kind = \"local\"",
    );
    let local = GOOD
        .replace("kind = \"openai-compatible\"", "kind = \"local\"")
        .replace("base_url = \"http://127.0.0.1:9/v1\"\n", "")
        .replace(
            "requests_per_minute = 600",
            "requests_per_minute = 600\nprefix_cache_tokens = 65536",
        );
    assert_eq!(
        try_parse(&local).unwrap().providers[0].prefix_cache_tokens,
        Some(65536)
    );
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
fn suite_and_solution_parameters_fail_the_file_with_their_line() {
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
fn a_bad_gem_solution_parameter_names_its_line() {
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
fn duplicate_judges_seeds_and_solutions_are_rejected() {
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

/// The 1-based line of the first line of `text` equal to `line`.
fn line_of(text: &str, line: &str) -> usize {
    1 + text
        .lines()
        .position(|l| l == line)
        .unwrap_or_else(|| panic!("{line:?} not in\n{text}"))
}

#[test]
fn gem_needs_the_prices_of_its_http_providers_unless_explicitly_zero() {
    let http = "\n[[providers]]\nname = \"http-judge\"\nkind = \"openai-compatible\"\n\
                base_url = \"http://127.0.0.1:9/v1\"\nmodel = \"j-1\"\nrequests_per_minute = 600\n";
    let unpriced =
        gem("{}", "{}").replace(r#"judges = ["fake"]"#, r#"judges = ["http-judge"]"#) + http;
    let e = try_parse(&unpriced).unwrap_err();
    // An absent field is reported at its table's header.
    let line = line_of(&unpriced, "name = \"http-judge\"") - 1;
    assert_at(
        &e,
        line,
        "providers[4].input_usd_per_mtok",
        "0 for a free model",
    );
    let half = format!("{unpriced}input_usd_per_mtok = 0.0\n");
    let e = try_parse(&half).unwrap_err();
    assert_at(&e, line, "providers[4].output_usd_per_mtok", "http-judge");
    let free = format!("{half}output_usd_per_mtok = 0\n");
    let spec = try_parse(&free).expect("an explicit 0 is a price");
    assert_eq!(spec.providers[4].output_usd_per_mtok, Some(0.0));
    // A provider the sweep declares but GEM-Bench never calls needs none.
    let unused = gem("{}", "{}") + &http.replace("http-judge", "spare");
    try_parse(&unused).expect("an unused provider is not priced");
}

#[test]
fn the_cost_input_ratio_is_a_checked_suite_parameter() {
    let spec = try_parse(&gem("{ cost_input_ratio = 0.25 }", "{}")).expect("a ratio");
    assert_eq!(spec.suites[0].params["cost_input_ratio"], 0.25);
    let e = try_parse(&gem("{ cost_input_ratio = -1 }", "{}")).unwrap_err();
    assert_at(
        &e,
        8,
        "suites[0].params.cost_input_ratio",
        "non-negative number",
    );
}

#[test]
fn gi_r_variants_need_distinct_labels_and_known_embedders() {
    let variant = |label: &str, embedder: &str| {
        format!(
            "\n[[solutions]]\nname = \"gi-r\"\nlabel = \"{label}\"\nprovider = \"fake\"\nembedder = \"{embedder}\"\n"
        )
    };
    let base = gem("{}", "{}");
    let (head, providers) = base.split_at(base.find("\n[[providers]]").expect("providers"));
    let with = |extra: &str| format!("{head}{extra}{providers}");
    let text = with(&variant("gi-r minilm", "emb-b"));
    let spec = try_parse(&text).expect("two labelled GI-R entries");
    assert_eq!(spec.solutions[1].label(), "gi-r minilm");
    assert_eq!(spec.solutions[1].embedder(&spec), Some("emb-b"));
    assert_eq!(
        spec.solutions[0].embedder(&spec),
        Some("emb"),
        "the sweep's"
    );

    let text = with(&variant("gi-r", "emb-b"));
    let e = try_parse(&text).unwrap_err();
    let line = line_of(&text, "label = \"gi-r\"");
    assert_at(
        &e,
        line,
        "solutions[1].label",
        "duplicate solution \"gi-r\"",
    );
    let text = with(&variant("x", "nope"));
    let e = try_parse(&text).unwrap_err();
    let line = line_of(&text, "embedder = \"nope\"");
    assert_at(
        &e,
        line,
        "solutions[1].embedder",
        "unknown provider \"nope\"",
    );
    let text = with(&variant("-", "emb"));
    let e = try_parse(&text).unwrap_err();
    assert_at(
        &e,
        line_of(&text, "label = \"-\""),
        "solutions[1].label",
        "may not be",
    );
}

/// The shipped paper sweep judges with the paper's models (Kimi-K2, not a
/// stand-in such as GPT-4o-mini) and embeds with the paper's embedder.
#[test]
fn the_shipped_paper_sweep_names_the_papers_models() {
    let text = include_str!("../../../sweeps/gem-bench-paper.toml");
    let spec = parse(
        Path::new("gem-bench-paper.toml"),
        text,
        &SuiteContext::default(),
        &|_| Some("key".to_string()),
    )
    .expect("the shipped sweep is valid");
    let model = |provider: &str| spec.provider(provider).expect("declared").model.as_str();
    let judges: Vec<&str> = spec.judges.iter().map(|j| model(j)).collect();
    assert_eq!(
        judges,
        [
            "gpt-4.1-mini",
            "qwen-max",
            "claude-3-5-haiku-20241022",
            "kimi-k2-0711-preview"
        ]
    );
    assert_eq!(
        model(spec.embedder.as_deref().expect("an embedder")),
        "text-embedding-3-small"
    );
    // Table 5: GI-R once per retrieval embedder, the ablation labelled.
    let gi_r: Vec<(&str, Option<&str>)> = spec
        .solutions
        .iter()
        .filter(|s| s.name == "gi-r")
        .map(|s| (s.label(), s.embedder(&spec).map(model)))
        .collect();
    assert_eq!(
        gi_r,
        [
            ("gi-r", Some("text-embedding-3-small")),
            ("gi-r minilm", Some("all-minilm-l6-v2"))
        ]
    );
    assert!(spec
        .providers
        .iter()
        .all(|p| p.kind == ProviderKind::Local || p.unpriced().is_empty()));
}

#[test]
fn count_fields_above_their_maximum_name_the_field_and_the_maximum() {
    let huge = "1000000000000";
    let e = try_parse(&GOOD.replace("items = 10 }", &format!("items = {huge} }}"))).unwrap_err();
    assert_at(&e, 10, "suites[0].params.items", "at most 1000000");
    let e = try_parse(&GOOD.replace(
        "datasets = [\"default\"]",
        &format!("datasets = [\"default\"]\nlimit = {huge}"),
    ))
    .unwrap_err();
    assert_at(&e, 10, "suites[0].limit", "at most 1000000");
    let seeds: Vec<String> = (0..=MAX_SEEDS).map(|i| i.to_string()).collect();
    let e = try_parse(&GOOD.replace("seeds = [1, 2]", &format!("seeds = [{}]", seeds.join(", "))))
        .unwrap_err();
    assert_at(&e, 3, "seeds", "at most 1000");
    let many =
        "\n[[solutions]]\nname = \"echo\"\nprovider = \"fake\"\nmax_tokens = 8\nlabel = \"e\"\n";
    let labelled: String = (0..MAX_SOLUTIONS)
        .map(|i| many.replace("\"e\"", &format!("\"e{i}\"")))
        .collect();
    let e = try_parse(&GOOD.replace("\n[[providers]]", &format!("{labelled}\n[[providers]]")))
        .unwrap_err();
    assert_eq!(e.field.as_deref(), Some("solutions"), "{e}");
    assert!(e.message.contains("at most 100"), "{e}");
}

#[test]
fn an_item_expanding_to_too_many_jobs_is_refused_by_suite() {
    // 100 solutions × 1000 seeds is 10^5 solve jobs per item, plus a judge
    // job each: above MAX_JOBS_PER_ITEM.
    let seeds: Vec<String> = (0..MAX_SEEDS).map(|i| i.to_string()).collect();
    let labelled: String = (1..MAX_SOLUTIONS)
        .map(|i| {
            format!("\n[[solutions]]\nname = \"echo\"\nprovider = \"fake\"\nmax_tokens = 8\nlabel = \"e{i}\"\n")
        })
        .collect();
    let text = GOOD
        .replace("seeds = [1, 2]", &format!("seeds = [{}]", seeds.join(", ")))
        .replace("\n[[providers]]", &format!("{labelled}\n[[providers]]"));
    let e = try_parse(&text).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("suites[0]"), "{e}");
    assert!(
        e.message.contains(&format!("at most {MAX_JOBS_PER_ITEM}")),
        "{e}"
    );
}

#[test]
fn an_oversized_file_is_refused_by_size_before_parsing() {
    let big = format!("{}\n# {}\n", *GOOD, "x".repeat(MAX_SWEEP_FILE_BYTES));
    let e = try_parse(&big).unwrap_err();
    assert_eq!((e.line, e.field.as_deref()), (None, None), "{e}");
    assert!(
        e.to_string().starts_with("sweep.toml: is "),
        "names the file: {e}"
    );
    assert!(e.message.contains("at most 1048576 bytes"), "{e}");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.toml");
    std::fs::write(&path, &big).unwrap();
    let e = load(&path, &SuiteContext::default(), &env_with_key).unwrap_err();
    assert_eq!(e.file, path);
    assert!(e.message.contains("at most 1048576 bytes"), "{e}");

    let path = dir.path().join("good.toml");
    std::fs::write(&path, &*GOOD).unwrap();
    assert!(load(&path, &SuiteContext::default(), &env_with_key).is_ok());
}
