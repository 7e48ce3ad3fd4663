//! The sweep's meaning, checked section by section after it parsed: every
//! name known, every number in range, nothing listed twice. Sections run in
//! file order, and the suites' own checks last, since they may read any
//! other section.

use super::checks::{
    at_least_one, at_most, bounded_params, check_base_url, check_name, data_error, first_time,
    known_provider, non_negative, positive, price, required, Invalid, MAX_JOBS_PER_ITEM,
    MAX_JUDGES, MAX_LIMIT, MAX_SEEDS, MAX_SOLUTIONS,
};
use super::locate::Seg::{self, Index, Key};
use adfarm_proto::{Pipeline, ProviderKind, SolutionSpec, SuiteSpec, SweepSpec};
use adfarm_suites::{Suite, SuiteContext, SweepView, SUITES};
use std::sync::Arc;

/// The judge column's name for "no scorer", which a label may not take.
const NO_LABEL: &str = adfarm_proto::tally::NO_JUDGE;

/// The first problem in `spec`, with the path of its field. `env` tells
/// whether the API-key variables are set.
pub(super) fn validate(
    spec: &SweepSpec,
    ctx: &SuiteContext,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(), Invalid> {
    check_name(vec![Key("name")], &spec.name)?;
    let providers = providers(spec, env)?;
    let suites = suites(spec, ctx)?;
    solutions(spec, &suites, &providers)?;
    judges(spec, &providers)?;
    seeds(spec)?;
    pipelines(spec, &suites)?;
    if let Some(b) = spec.budget_usd {
        non_negative(vec![Key("budget_usd")], b)?;
    }
    Ok(())
}

/// `[[providers]]`: names, limits (the same within a limit group), prices,
/// endpoints and key variables. Returns the providers' names.
fn providers<'s>(
    spec: &'s SweepSpec,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<&'s str>, Invalid> {
    let names: Vec<&str> = spec.providers.iter().map(|p| p.name.as_str()).collect();
    required("providers", &spec.providers)?;
    for (i, p) in spec.providers.iter().enumerate() {
        let at = |k| vec![Key("providers"), Index(i), Key(k)];
        check_name(at("name"), &p.name)?;
        check_name(at("model"), &p.model)?;
        if names.iter().filter(|n| **n == p.name).count() > 1 {
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
        at_least_one(at("max_concurrency"), p.max_concurrency)?;
        at_least_one(at("max_attempts"), p.max_attempts)?;
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
    Ok(names)
}

/// `[[suites]]`: known suites, each once, with known datasets. Returns the
/// suites, in file order.
fn suites(spec: &SweepSpec, ctx: &SuiteContext) -> Result<Vec<Arc<dyn Suite>>, Invalid> {
    required("suites", &spec.suites)?;
    let names: Vec<&str> = spec.suites.iter().map(|s| s.name.as_str()).collect();
    let mut suites = Vec::new();
    for (i, s) in spec.suites.iter().enumerate() {
        let at = |k| vec![Key("suites"), Index(i), Key(k)];
        let Some(suite) = adfarm_suites::suite(&s.name, ctx) else {
            return Err((
                at("name"),
                format!("unknown suite {:?}; valid: {}", s.name, SUITES.join(", ")),
            ));
        };
        first_time(at("name"), "suite", &names[..i], &names[i])?;
        let datasets = suite.datasets();
        if s.datasets.is_empty() {
            return Err((
                at("datasets"),
                format!("list at least one dataset; valid: {}", datasets.join(", ")),
            ));
        }
        for (k, d) in s.datasets.iter().enumerate() {
            let at = || vec![Key("suites"), Index(i), Key("datasets"), Index(k)];
            if !datasets.contains(d) {
                return Err((
                    at(),
                    format!(
                        "unknown dataset {d:?} for suite {}; valid: {}",
                        s.name,
                        datasets.join(", ")
                    ),
                ));
            }
            first_time(at(), "dataset", &s.datasets[..k], d)?;
        }
        if let Some(limit) = s.limit {
            at_least_one(at("limit"), limit)?;
            if limit > MAX_LIMIT {
                return Err((
                    at("limit"),
                    format!("must be at most {MAX_LIMIT}, got {limit}"),
                ));
            }
        }
        bounded_params(at("params"), &s.params)?;
        suites.push(suite);
    }
    Ok(suites)
}

/// Whether `suite` runs solution entry `sol`: the entry names that suite,
/// or none, and the suite offers the solution.
fn runs(sol: &SolutionSpec, suite: &dyn Suite) -> bool {
    sol.suite.as_deref().is_none_or(|n| n == suite.name()) && suite.solutions().contains(&sol.name)
}

/// `[[solutions]]`: each offered by a suite of the sweep, told apart from
/// the others, calling known providers; then each suite's own check.
fn solutions(
    spec: &SweepSpec,
    suites: &[Arc<dyn Suite>],
    providers: &[&str],
) -> Result<(), Invalid> {
    required("solutions", &spec.solutions)?;
    at_most(vec![Key("solutions")], &spec.solutions, MAX_SOLUTIONS)?;
    for (i, s) in spec.solutions.iter().enumerate() {
        let at = |k| vec![Key("solutions"), Index(i), Key(k)];
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
        if let Some(twin) = spec.solutions[..i].iter().position(|o| {
            o.label() == s.label()
                && suites
                    .iter()
                    .any(|x| runs(o, x.as_ref()) && runs(s, x.as_ref()))
        }) {
            return Err((
                at(if s.label.is_some() { "label" } else { "name" }),
                format!(
                    "duplicate solution {:?} (also [[solutions]] entry {twin}); give one a `label` or a `suite`",
                    s.label(),
                ),
            ));
        }
        known_provider(at("provider"), providers, &s.provider)?;
        if let Some(e) = &s.embedder {
            known_provider(at("embedder"), providers, e)?;
        }
        at_least_one(at("max_tokens"), s.max_tokens)?;
        non_negative(at("temperature"), s.temperature as f64)?;
        bounded_params(at("params"), &s.params)?;
        for suite in offered {
            suite
                .check_solution(s)
                .map_err(|e| data_error(vec![Key("solutions"), Index(i)], e))?;
        }
    }
    Ok(())
}

/// `judges` and the sweep's `embedder`: each names a provider; a judge is
/// listed once.
fn judges(spec: &SweepSpec, providers: &[&str]) -> Result<(), Invalid> {
    let at = |i| vec![Key("judges"), Index(i)];
    at_most(vec![Key("judges")], &spec.judges, MAX_JUDGES)?;
    for (i, j) in spec.judges.iter().enumerate() {
        if !providers.contains(&j.as_str()) {
            return Err((
                at(i),
                format!(
                    "unknown judge {j:?}; judges name providers, valid: {}",
                    providers.join(", ")
                ),
            ));
        }
    }
    if let Some(e) = &spec.embedder {
        known_provider(vec![Key("embedder")], providers, e)?;
    }
    for (i, j) in spec.judges.iter().enumerate() {
        first_time(at(i), "judge", &spec.judges[..i], j)?;
    }
    Ok(())
}

/// `seeds`: at least one, at most [`MAX_SEEDS`], each once.
fn seeds(spec: &SweepSpec) -> Result<(), Invalid> {
    if spec.seeds.is_empty() {
        return Err((vec![Key("seeds")], "list at least one seed".into()));
    }
    at_most(vec![Key("seeds")], &spec.seeds, MAX_SEEDS)?;
    for (i, seed) in spec.seeds.iter().enumerate() {
        first_time(vec![Key("seeds"), Index(i)], "seed", &spec.seeds[..i], seed)?;
    }
    Ok(())
}

/// Each suite's stages for this sweep, which the suite may refuse, form a
/// valid pipeline of at most [`MAX_JOBS_PER_ITEM`] jobs per item.
fn pipelines(spec: &SweepSpec, suites: &[Arc<dyn Suite>]) -> Result<(), Invalid> {
    for (i, (s, suite)) in spec.suites.iter().zip(suites).enumerate() {
        let at: Vec<Seg> = vec![Key("suites"), Index(i)];
        let stages = suite
            .stages(SweepView { spec, suite: s })
            .map_err(|e| data_error(at.clone(), e))?;
        let solutions = spec
            .solutions
            .iter()
            .enumerate()
            .filter(|(_, sol)| runs(sol, suite.as_ref()))
            .map(|(k, _)| k)
            .collect();
        let pipeline = Pipeline { solutions, stages };
        pipeline.check().map_err(|e| {
            (
                at.clone(),
                format!("suite {} declares an invalid pipeline: {e}", s.name),
            )
        })?;
        let jobs = per_item_jobs(spec, s, &pipeline);
        if jobs > MAX_JOBS_PER_ITEM {
            return Err((
                at,
                format!(
                    "each item of suite {} expands to {jobs} jobs (solutions × seeds × judges); \
                     at most {MAX_JOBS_PER_ITEM} are allowed",
                    s.name
                ),
            ));
        }
    }
    Ok(())
}

/// Jobs one item of `pipeline` expands to, as the planner counts them.
fn per_item_jobs(spec: &SweepSpec, suite: &SuiteSpec, pipeline: &Pipeline) -> i64 {
    let id = spec.id();
    let expansion = adfarm_proto::expand::SuitePlan {
        sweep: &id,
        spec,
        suite,
        pipeline,
    };
    expansion.jobs_per_item().values().sum()
}
