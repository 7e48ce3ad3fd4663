//! Bad sweep files fail `adfarm plan` with one clear error naming the file,
//! the line and the field.

use crate::{Farm, SweepFile};

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
