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

mod locate;
#[cfg(test)]
mod tests;

use locate::{extend, field_on_line, line_of, locate, path_text, Seg};

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

/// An HTTP(S) URL with a host: a typo such as `htp://` fails here, at
/// plan time, not as 400 failed jobs. Quotes nothing of the URL but its
/// scheme, since a URL may carry credentials.
fn check_base_url(base: &str) -> Result<(), String> {
    let url = url::Url::parse(base).map_err(|e| format!("is not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("scheme {:?} is not http or https", url.scheme()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("has no host".into());
    }
    Ok(())
}

/// Largest `params` table, serialised as JSON. Parameters travel in every
/// job's config and hash; real ones are a few hundred bytes, and a 50 MB
/// table would be copied into every job (gigabytes of memory, no end).
pub const MAX_PARAMS_BYTES: usize = 64 * 1024;

fn bounded_params(path: Vec<Seg>, params: &serde_json::Value) -> Result<(), Invalid> {
    let size = serde_json::to_vec(params).map_or(usize::MAX, |b| b.len());
    if size > MAX_PARAMS_BYTES {
        return Err((
            path,
            format!(
                "is {size} bytes as JSON; at most {MAX_PARAMS_BYTES} are allowed (put large data in a dataset)"
            ),
        ));
    }
    Ok(())
}

/// The judge column's name for "no scorer", which a label may not take.
const NO_LABEL: &str = adfarm_proto::tally::NO_JUDGE;

/// Highest price per million tokens: far above any real model's, low
/// enough that the sweep's nano-USD counters cannot overflow.
const MAX_USD_PER_MTOK: f64 = 10_000.0;

fn price(path: Vec<Seg>, v: Option<f64>) -> Result<(), Invalid> {
    let Some(v) = v else { return Ok(()) };
    non_negative(path.clone(), v)?;
    if v > MAX_USD_PER_MTOK {
        return Err((
            path,
            format!("must be at most {MAX_USD_PER_MTOK} USD per million tokens"),
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
        if let Some(group) = &p.limit_group {
            check_name(at("limit_group"), group)?;
            if let Some((j, o)) = spec.providers[..i]
                .iter()
                .enumerate()
                .find(|(_, o)| o.limit_group.as_ref() == Some(group))
            {
                if o.requests_per_minute != p.requests_per_minute {
                    return Err((
                        at("requests_per_minute"),
                        format!(
                            "limit group {group:?} allows {} requests per minute (providers[{j}]); \
                             every provider of a group states the same limit",
                            o.requests_per_minute
                        ),
                    ));
                }
                if o.tokens_per_minute != p.tokens_per_minute {
                    return Err((
                        at("tokens_per_minute"),
                        format!(
                            "limit group {group:?} allows {:?} tokens per minute (providers[{j}]); \
                             every provider of a group states the same limit",
                            o.tokens_per_minute
                        ),
                    ));
                }
            }
        }
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
        price(at("input_usd_per_mtok"), p.input_usd_per_mtok)?;
        price(at("output_usd_per_mtok"), p.output_usd_per_mtok)?;
        if p.kind == ProviderKind::OpenaiCompatible && p.base_url.is_none() {
            return Err((
                at("base_url"),
                "is required for kind = \"openai-compatible\"".into(),
            ));
        }
        if p.prefix_cache_tokens.is_some() && p.kind != ProviderKind::Local {
            return Err((
                at("prefix_cache_tokens"),
                "applies only to kind = \"local\" (a server keeps its own cache)".into(),
            ));
        }
        if let Some(base) = &p.base_url {
            check_base_url(base).map_err(|reason| (at("base_url"), reason))?;
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
        bounded_params(at("params"), &s.params)?;
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
        if let Some(label) = &s.label {
            check_name(at("label"), label)?;
            if label == NO_LABEL {
                return Err((at("label"), format!("may not be {NO_LABEL:?}")));
            }
        }
        if let Some(twin) = spec.solutions[..i].iter().find(|o| {
            o.label() == s.label()
                && suites
                    .iter()
                    .any(|x| runs(o, x.as_ref()) && runs(s, x.as_ref()))
        }) {
            return Err((
                at(if s.label.is_some() { "label" } else { "name" }),
                format!(
                    "duplicate solution {:?} (also [[solutions]] entry {}); give one a `label` or a `suite`",
                    s.label(),
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
        if let Some(e) = &s.embedder {
            if !provider_names.contains(&e.as_str()) {
                return Err((
                    at("embedder"),
                    format!(
                        "unknown provider {e:?}; valid: {}",
                        provider_names.join(", ")
                    ),
                ));
            }
        }
        if s.max_tokens == 0 {
            return Err((at("max_tokens"), "must be at least 1".into()));
        }
        non_negative(at("temperature"), s.temperature as f64)?;
        bounded_params(at("params"), &s.params)?;
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
        DataError::Sweep { field, reason } => (extend(vec![], &field), reason),
        other => (base, other.to_string()),
    }
}
