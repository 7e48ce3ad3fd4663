//! Reads a sweep file (TOML) into a validated [`SweepSpec`]. Every error
//! names the file, the line and the field, and unknown names list the valid
//! ones, so a bad sweep fails before any job runs.

use adfarm_proto::tally::SEP;
use adfarm_proto::{Pipeline, ProviderKind, SweepSpec};
use adfarm_suites::{DataError, Suite, SuiteContext, SweepView, SUITES};
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A problem in a sweep file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct SweepFileError {
    /// The file.
    pub file: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// Dotted field path (`providers[0].requests_per_minute`), when known.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SweepFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// One step of a field path.
#[derive(Debug, Clone)]
enum Seg {
    Key(&'static str),
    /// A key named by a suite (a parameter path), not by this file.
    Name(String),
    Index(usize),
}

/// `base` followed by the segments of a suite's field path
/// (`params.embedding_ablation[1]`).
fn extend(mut base: Vec<Seg>, field: &str) -> Vec<Seg> {
    for part in field.split('.').filter(|p| !p.is_empty()) {
        let (key, rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            base.push(Seg::Name(key.to_string()));
        }
        for index in rest.split('[') {
            if let Ok(i) = index.trim_end_matches(']').parse() {
                base.push(Seg::Index(i));
            }
        }
    }
    base
}

fn path_text(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) if s.is_empty() => s.push_str(k),
            Seg::Name(k) if s.is_empty() => s.push_str(k),
            Seg::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Seg::Name(k) => {
                s.push('.');
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// A node of the parsed document, with items unwrapped.
#[derive(Clone, Copy)]
enum Node<'a> {
    Table(&'a toml_edit::Table),
    Tables(&'a toml_edit::ArrayOfTables),
    Value(&'a toml_edit::Value),
}

fn node(item: &toml_edit::Item) -> Option<Node<'_>> {
    match item {
        toml_edit::Item::Table(t) => Some(Node::Table(t)),
        toml_edit::Item::ArrayOfTables(a) => Some(Node::Tables(a)),
        toml_edit::Item::Value(v) => Some(Node::Value(v)),
        toml_edit::Item::None => None,
    }
}

/// The byte span of `path` in the document, or of its closest ancestor.
fn locate(doc: &toml_edit::Document<String>, path: &[Seg]) -> Option<Range<usize>> {
    let mut at = Node::Table(doc.as_table());
    let mut best = None;
    for seg in path {
        let key = match seg {
            Seg::Key(k) => Some(*k),
            Seg::Name(k) => Some(k.as_str()),
            Seg::Index(_) => None,
        };
        let next = match (key, seg, at) {
            (Some(k), _, Node::Table(t)) => {
                best = t.key(k).and_then(|k| k.span()).or(best);
                t.get(k).and_then(node)
            }
            (Some(k), _, Node::Value(toml_edit::Value::InlineTable(t))) => {
                best = t.key(k).and_then(|k| k.span()).or(best);
                t.get(k).map(Node::Value)
            }
            (None, Seg::Index(i), Node::Tables(a)) => {
                let t = a.get(*i);
                best = t.and_then(|t| t.span()).or(best);
                t.map(Node::Table)
            }
            (None, Seg::Index(i), Node::Value(toml_edit::Value::Array(a))) => {
                let v = a.get(*i);
                best = v.and_then(|v| v.span()).or(best);
                v.map(Node::Value)
            }
            _ => None,
        };
        match next {
            Some(n) => at = n,
            None => return best,
        }
    }
    best
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The field that 1-based `line` assigns (`key = ...`), under the nearest
/// table header above it (`solutions[1].max_tokens`). Syntax and type errors
/// come before there is a document to walk, so the text is read line-wise.
fn field_on_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let key = lines.get(line.checked_sub(1)?)?.split_once('=')?.0.trim();
    let bare = |k: &str| {
        !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    };
    if !bare(key) {
        return None;
    }
    let mut seen: std::collections::HashMap<&str, usize> = Default::default();
    let mut table = None;
    for l in &lines[..line - 1] {
        let l = l.split('#').next().unwrap_or_default().trim();
        if let Some(name) = l.strip_prefix("[[").and_then(|r| r.strip_suffix("]]")) {
            let n = seen.entry(name.trim()).or_insert(0);
            table = Some(format!("{}[{n}]", name.trim()));
            *n += 1;
        } else if let Some(name) = l.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            table = Some(name.trim().to_string());
        }
    }
    Some(table.map_or_else(|| key.to_string(), |t| format!("{t}.{key}")))
}

/// Reads and validates the sweep file at `path`. `env` looks up
/// environment variables (only to check that API-key variables are set;
/// their values are never read into the spec).
///
/// # Errors
/// The first problem found, with file, line and field.
pub fn load(
    path: &Path,
    ctx: &SuiteContext,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<SweepSpec, SweepFileError> {
    let text = std::fs::read_to_string(path).map_err(|e| SweepFileError {
        file: path.to_path_buf(),
        line: None,
        field: None,
        message: format!("cannot read sweep file: {e}"),
    })?;
    parse(path, &text, ctx, env)
}

/// As [`load`], from text already read.
///
/// # Errors
/// As [`load`].
pub fn parse(
    path: &Path,
    text: &str,
    ctx: &SuiteContext,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<SweepSpec, SweepFileError> {
    let err_at =
        |span: Option<Range<usize>>, field: Option<String>, message: String| SweepFileError {
            file: path.to_path_buf(),
            line: span.map(|s| line_of(text, s.start)),
            field,
            message,
        };
    let doc = toml_edit::Document::parse(text.to_string()).map_err(|e| {
        err_at(
            e.span(),
            e.span()
                .and_then(|s| field_on_line(text, line_of(text, s.start))),
            format!("TOML syntax error: {}", e.message()),
        )
    })?;
    let spec: SweepSpec = toml::from_str(text).map_err(|e| {
        err_at(
            e.span(),
            e.span()
                .and_then(|s| field_on_line(text, line_of(text, s.start))),
            e.message().to_string(),
        )
    })?;
    validate(&spec, ctx, env)
        .map_err(|(p, message)| err_at(locate(&doc, &p), Some(path_text(&p)), message))?;
    Ok(spec)
}

type Invalid = (Vec<Seg>, String);

fn check_name(path: Vec<Seg>, name: &str) -> Result<(), Invalid> {
    if name.is_empty() || name.contains(SEP) {
        return Err((
            path,
            format!("must be non-empty and may not contain '{SEP}'"),
        ));
    }
    Ok(())
}

fn positive(path: Vec<Seg>, v: f64) -> Result<(), Invalid> {
    if !(v.is_finite() && v > 0.0) {
        return Err((path, format!("must be a positive number, got {v}")));
    }
    Ok(())
}

fn non_negative(path: Vec<Seg>, v: f64) -> Result<(), Invalid> {
    if !(v.is_finite() && v >= 0.0) {
        return Err((path, format!("must be zero or positive, got {v}")));
    }
    Ok(())
}

fn validate(
    spec: &SweepSpec,
    ctx: &SuiteContext,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(), Invalid> {
    use Seg::{Index, Key};
    check_name(vec![Key("name")], &spec.name)?;
    let provider_names: Vec<&str> = spec.providers.iter().map(|p| p.name.as_str()).collect();
    if spec.providers.is_empty() {
        return Err((
            vec![Key("providers")],
            "at least one [[providers]] entry is required".into(),
        ));
    }
    for (i, p) in spec.providers.iter().enumerate() {
        let at = |k| vec![Key("providers"), Index(i), Key(k)];
        check_name(at("name"), &p.name)?;
        check_name(at("model"), &p.model)?;
        if provider_names.iter().filter(|n| **n == p.name).count() > 1 {
            return Err((
                at("name"),
                format!("provider name {:?} is used twice", p.name),
            ));
        }
        positive(at("requests_per_minute"), p.requests_per_minute)?;
        if let Some(tpm) = p.tokens_per_minute {
            positive(at("tokens_per_minute"), tpm)?;
        }
        if p.max_concurrency == 0 {
            return Err((at("max_concurrency"), "must be at least 1".into()));
        }
        if p.max_attempts == 0 {
            return Err((at("max_attempts"), "must be at least 1".into()));
        }
        positive(at("timeout_secs"), p.timeout_secs)?;
        non_negative(at("input_usd_per_mtok"), p.input_usd_per_mtok)?;
        non_negative(at("output_usd_per_mtok"), p.output_usd_per_mtok)?;
        if p.kind == ProviderKind::OpenaiCompatible && p.base_url.is_none() {
            return Err((
                at("base_url"),
                "is required for kind = \"openai-compatible\"".into(),
            ));
        }
        if let Some(var) = &p.api_key_env {
            if env(var).is_none_or(|v| v.is_empty()) {
                return Err((
                    at("api_key_env"),
                    format!("environment variable {var} is not set"),
                ));
            }
        }
    }
    if spec.suites.is_empty() {
        return Err((
            vec![Key("suites")],
            "at least one [[suites]] entry is required".into(),
        ));
    }
    let mut suites = Vec::new();
    for (i, s) in spec.suites.iter().enumerate() {
        let at = |k| vec![Key("suites"), Index(i), Key(k)];
        let Some(suite) = adfarm_suites::suite(&s.name, ctx) else {
            return Err((
                at("name"),
                format!("unknown suite {:?}; valid: {}", s.name, SUITES.join(", ")),
            ));
        };
        if spec.suites[..i].iter().any(|o| o.name == s.name) {
            return Err((at("name"), format!("duplicate suite {:?}", s.name)));
        }
        let datasets = suite.datasets();
        if s.datasets.is_empty() {
            return Err((
                at("datasets"),
                format!("list at least one dataset; valid: {}", datasets.join(", ")),
            ));
        }
        for (k, d) in s.datasets.iter().enumerate() {
            let at = vec![Key("suites"), Index(i), Key("datasets"), Index(k)];
            if !datasets.contains(d) {
                return Err((
                    at,
                    format!(
                        "unknown dataset {d:?} for suite {}; valid: {}",
                        s.name,
                        datasets.join(", ")
                    ),
                ));
            }
            if s.datasets[..k].contains(d) {
                return Err((at, format!("duplicate dataset {d:?}")));
            }
        }
        if s.limit == Some(0) {
            return Err((at("limit"), "must be at least 1".into()));
        }
        suites.push(suite);
    }
    if spec.solutions.is_empty() {
        return Err((
            vec![Key("solutions")],
            "at least one [[solutions]] entry is required".into(),
        ));
    }
    for (i, s) in spec.solutions.iter().enumerate() {
        let at = |k| vec![Key("solutions"), Index(i), Key(k)];
        // The suites that run this entry: the named one, or every suite of
        // the sweep offering the name.
        let runs = |sol: &adfarm_proto::SolutionSpec, suite: &dyn Suite| {
            sol.suite.as_deref().is_none_or(|n| n == suite.name())
                && suite.solutions().contains(&sol.name)
        };
        if let Some(name) = &s.suite {
            if !spec.suites.iter().any(|x| &x.name == name) {
                let names: Vec<&str> = spec.suites.iter().map(|x| x.name.as_str()).collect();
                return Err((
                    at("suite"),
                    format!(
                        "no [[suites]] entry {name:?}; this sweep has: {}",
                        names.join(", ")
                    ),
                ));
            }
        }
        let offered: Vec<&Arc<dyn Suite>> = suites
            .iter()
            .filter(|suite| runs(s, suite.as_ref()))
            .collect();
        if offered.is_empty() {
            let valid: Vec<String> = suites
                .iter()
                .filter(|suite| s.suite.as_deref().is_none_or(|n| n == suite.name()))
                .flat_map(|suite| suite.solutions())
                .collect();
            return Err((
                at("name"),
                format!("unknown solution {:?}; valid: {}", s.name, valid.join(", ")),
            ));
        }
        if let Some(twin) = spec.solutions[..i].iter().find(|o| {
            o.name == s.name
                && suites
                    .iter()
                    .any(|x| runs(o, x.as_ref()) && runs(s, x.as_ref()))
        }) {
            return Err((
                at("name"),
                format!(
                    "duplicate solution {:?} (also [[solutions]] entry {}); give one a `suite`",
                    s.name,
                    spec.solutions
                        .iter()
                        .position(|o| std::ptr::eq(o, twin))
                        .unwrap_or(0)
                ),
            ));
        }
        if !provider_names.contains(&s.provider.as_str()) {
            return Err((
                at("provider"),
                format!(
                    "unknown provider {:?}; valid: {}",
                    s.provider,
                    provider_names.join(", ")
                ),
            ));
        }
        if s.max_tokens == 0 {
            return Err((at("max_tokens"), "must be at least 1".into()));
        }
        non_negative(at("temperature"), s.temperature as f64)?;
        for suite in offered {
            suite
                .check_solution(s)
                .map_err(|e| data_error(vec![Key("solutions"), Index(i)], e))?;
        }
    }
    for (i, j) in spec.judges.iter().enumerate() {
        if !provider_names.contains(&j.as_str()) {
            return Err((
                vec![Key("judges"), Index(i)],
                format!(
                    "unknown judge {j:?}; judges name providers, valid: {}",
                    provider_names.join(", ")
                ),
            ));
        }
    }
    if let Some(e) = &spec.embedder {
        if !provider_names.contains(&e.as_str()) {
            return Err((
                vec![Key("embedder")],
                format!(
                    "unknown provider {e:?}; valid: {}",
                    provider_names.join(", ")
                ),
            ));
        }
    }
    for (i, j) in spec.judges.iter().enumerate() {
        if spec.judges[..i].contains(j) {
            return Err((
                vec![Key("judges"), Index(i)],
                format!("duplicate judge {j:?}"),
            ));
        }
    }
    if spec.seeds.is_empty() {
        return Err((vec![Key("seeds")], "list at least one seed".into()));
    }
    for (i, seed) in spec.seeds.iter().enumerate() {
        if spec.seeds[..i].contains(seed) {
            return Err((
                vec![Key("seeds"), Index(i)],
                format!("duplicate seed {seed}"),
            ));
        }
    }
    // The suites' own checks last: they may read providers, judges, seeds.
    for (i, (s, suite)) in spec.suites.iter().zip(&suites).enumerate() {
        let at = vec![Key("suites"), Index(i)];
        let stages = suite
            .stages(SweepView { spec, suite: s })
            .map_err(|e| data_error(at.clone(), e))?;
        let pipeline = Pipeline {
            solutions: Vec::new(),
            stages,
        };
        pipeline.check().map_err(|e| {
            (
                at,
                format!("suite {} declares an invalid pipeline: {e}", s.name),
            )
        })?;
    }
    if let Some(b) = spec.budget_usd {
        non_negative(vec![Key("budget_usd")], b)?;
    }
    Ok(())
}

/// A suite's complaint about its part of the file, at `base` plus the
/// field the suite names.
fn data_error(base: Vec<Seg>, e: DataError) -> Invalid {
    match e {
        DataError::Param { field, reason } => (extend(base, &field), reason),
        other => (base, other.to_string()),
    }
}

#[cfg(test)]
mod tests {
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
        let e = try_parse(&GOOD.replace("budget_usd = 1.5", "budget_usd = 1.5\nbudjet = 3"))
            .unwrap_err();
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
        let e = try_parse(&GOOD.replace("params = { items = 10 }", "params = { items = -3 }"))
            .unwrap_err();
        assert_at(&e, 10, "suites[0].params.items", "non-negative integer");
        let e =
            try_parse(&GOOD.replace("max_tokens = 32", "max_tokens = 32\nparams = { tone = 1 }"))
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
}
