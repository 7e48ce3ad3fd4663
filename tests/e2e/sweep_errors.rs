//! Bad sweep files fail `adfarm plan` with one clear error naming the file,
//! the line and the field.

use crate::{Farm, SweepFile};
use std::time::{Duration, Instant};

const BASE_URL: &str = "http://127.0.0.1:9/v1";

/// Runs `adfarm plan` on `text` and returns its one-line error.
async fn plan_error(farm: &Farm, file: &str, text: &str) -> String {
    let path = farm.write(file, text);
    let (status, stdout, stderr) = farm.plan(&path).await;
    assert!(!status.success(), "plan accepted {file}:\n{stdout}");
    assert_eq!(status.code(), Some(2), "bad input exits 2:\n{stderr}");
    assert!(stdout.is_empty(), "plan printed a plan:\n{stdout}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one error line, got:\n{stderr}");
    let line = lines[0].to_string();
    assert!(
        line.starts_with(&format!("error: {}:", path.display())),
        "names the file: {line}"
    );
    line
}

/// The 1-based line of the first occurrence of `needle` in `text`.
fn line_of(text: &str, needle: &str) -> usize {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in the sweep"));
    text[..at].matches('\n').count() + 1
}

#[tokio::test]
async fn a_syntax_error_names_the_line() {
    let farm = Farm::new("bad-syntax");
    let good = SweepFile::synthetic("e2e-bad", 10).toml(BASE_URL);
    let text = good.replace("max_tokens = 64", "max_tokens = = 64");
    let line = line_of(&text, "max_tokens = =");
    let e = plan_error(&farm, "syntax.toml", &text).await;
    assert!(
        e.contains(&format!(
            "syntax.toml:{line}: solutions[0].max_tokens: TOML syntax error"
        )),
        "{e}"
    );
}

#[tokio::test]
async fn an_unknown_solution_lists_the_valid_ones() {
    let farm = Farm::new("bad-solution");
    let good = SweepFile::synthetic("e2e-bad", 10).toml(BASE_URL);
    let text = good.replace("name = \"answer\"", "name = \"anwser\"");
    let line = line_of(&text, "\"anwser\"");
    let e = plan_error(&farm, "solution.toml", &text).await;
    assert!(
        e.contains(&format!("solution.toml:{line}: solutions[0].name:")),
        "{e}"
    );
    assert!(e.contains("unknown solution \"anwser\""), "{e}");
    assert!(e.contains("valid: answer"), "{e}");
}

#[tokio::test]
async fn a_negative_rate_is_refused() {
    let farm = Farm::new("bad-rate");
    let good = SweepFile::synthetic("e2e-bad", 10).toml(BASE_URL);
    let text = good.replacen(
        "requests_per_minute = 600000.0",
        "requests_per_minute = -5.0",
        1,
    );
    let line = line_of(&text, "requests_per_minute = -5.0");
    let e = plan_error(&farm, "rate.toml", &text).await;
    assert!(
        e.contains(&format!(
            "rate.toml:{line}: providers[0].requests_per_minute:"
        )),
        "{e}"
    );
    assert!(e.contains("-5"), "{e}");
}

#[tokio::test]
async fn a_missing_api_key_variable_is_named() {
    let farm = Farm::new("bad-key");
    let var = "ADFARM_E2E_UNSET_API_KEY";
    let good = SweepFile::synthetic("e2e-bad", 10).toml(BASE_URL);
    let text = good.replacen(
        "model = \"fake-gen-1\"",
        &format!("model = \"fake-gen-1\"\napi_key_env = \"{var}\""),
        1,
    );
    let line = line_of(&text, "api_key_env");
    let e = plan_error(&farm, "key.toml", &text).await;
    assert!(
        e.contains(&format!("key.toml:{line}: providers[0].api_key_env:")),
        "{e}"
    );
    assert!(e.contains(&format!("{var} is not set")), "{e}");
}

#[tokio::test]
async fn a_misspelt_base_url_is_refused_at_plan() {
    let farm = Farm::new("bad-base-url");
    let text = SweepFile::synthetic("e2e-bad", 10).toml("htp://x");
    let line = line_of(&text, "htp://x");
    let e = plan_error(&farm, "url.toml", &text).await;
    assert!(
        e.contains(&format!("url.toml:{line}: providers[0].base_url:")),
        "{e}"
    );
    assert!(e.contains("scheme \"htp\" is not http or https"), "{e}");
}

#[tokio::test]
async fn an_oversized_params_table_is_refused_at_plan() {
    let farm = Farm::new("bad-params");
    let good = SweepFile::synthetic("e2e-bad", 10).toml(BASE_URL);
    let blob = "x".repeat(200_000);
    let text = good.replacen(
        "params = { items = 10 }",
        &format!("params = {{ items = 10, note = \"{blob}\" }}"),
        1,
    );
    let line = line_of(&text, "params = {");
    let e = plan_error(&farm, "params.toml", &text).await;
    assert!(
        e.contains(&format!("params.toml:{line}: suites[0].params:")),
        "{e}"
    );
    assert!(e.contains("at most 65536"), "{e}");
}

/// A sweep of `suite` on `dataset` with solution `solution` (which calls
/// no model) and suite parameters `params`.
fn suite_sweep(suite: &str, dataset: &str, solution: &str, params: &str) -> String {
    format!(
        "name = \"e2e-bounds\"\nseeds = [1]\n\n[[suites]]\nname = \"{suite}\"\n\
         datasets = [\"{dataset}\"]\nparams = {params}\n\n[[solutions]]\nname = \"{solution}\"\n\
         provider = \"gen\"\n\n[[providers]]\nname = \"gen\"\nkind = \"openai-compatible\"\n\
         base_url = \"{BASE_URL}\"\nmodel = \"gen-1\"\nrequests_per_minute = 60\n"
    )
}

#[tokio::test]
async fn absurd_item_counts_are_refused_at_plan_within_a_second() {
    let farm = Farm::new("bad-counts");
    let huge = "1000000000000";
    let synthetic = SweepFile::synthetic("e2e-bad", 10).toml(BASE_URL);
    let cases = [
        (
            "synthetic.toml",
            synthetic.replacen("items = 10", &format!("items = {huge}"), 1),
            "suites[0].params.items",
            "at most 1000000",
        ),
        (
            "limit.toml",
            synthetic.replacen(
                "datasets = [\"default\"]",
                &format!("datasets = [\"default\"]\nlimit = {huge}"),
                1,
            ),
            "suites[0].limit",
            "at most 1000000",
        ),
        (
            "counter.toml",
            suite_sweep(
                "counter",
                "default",
                "echo",
                &format!("{{ items = {huge} }}"),
            ),
            "suites[0].params.items",
            "at most 100000",
        ),
        (
            "adsbench.toml",
            suite_sweep(
                "adsbench",
                "scenarios",
                "pacing",
                &format!("{{ scenarios = {huge} }}"),
            ),
            "suites[0].params.scenarios",
            "1..=1000",
        ),
        (
            "adsbench-days.toml",
            suite_sweep(
                "adsbench",
                "scenarios",
                "pacing",
                &format!("{{ scenarios = [{{ days = {huge}, opportunities_per_day = 1e12 }}] }}"),
            ),
            "suites[0].params.scenarios[0].days",
            "1..=120",
        ),
        (
            "adbench.toml",
            suite_sweep(
                "adbench",
                "tasks",
                "oracle",
                &format!("{{ per_tier = {huge} }}"),
            ),
            "suites[0].params.per_tier",
            "at most 10000",
        ),
    ];
    for (file, text, field, max) in cases {
        let line = line_of(
            &text,
            if field.ends_with("limit") {
                "limit ="
            } else {
                "params ="
            },
        );
        let t0 = Instant::now();
        let e = plan_error(&farm, file, &text).await;
        assert!(
            t0.elapsed() < Duration::from_secs(1),
            "{file}: refused after {:?}",
            t0.elapsed()
        );
        assert!(e.contains(&format!("{file}:{line}: {field}: ")), "{e}");
        assert!(e.contains(max), "{e}");
    }
}

#[tokio::test]
async fn an_oversized_sweep_file_is_refused_by_size() {
    let farm = Farm::new("bad-size");
    let good = SweepFile::synthetic("e2e-bad", 10).toml(BASE_URL);
    let text = format!("{good}\n# {}\n", "x".repeat(2 * 1024 * 1024));
    let e = plan_error(&farm, "size.toml", &text).await;
    assert!(e.contains("size.toml: is "), "{e}");
    assert!(e.contains("at most 1048576 bytes"), "{e}");
}
