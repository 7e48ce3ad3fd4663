//! GEM-Bench (Hu et al. 2025, arXiv 2509.14221): ad-injected responses.
//!
//! - [`data`], [`caprod`]: loaders for the `gembench==1.0.9` data, with
//!   count checks; [`summary`]: counts and CA-Prod's label conflicts.
//! - [`item`]: items and their `meta`; [`split`]: the sentence splitter.
//! - [`metrics`]: RF, RC, AF, AC, injection rate, CTR (pure functions).
//! - [`retrieval`], [`inject`]: top-t ad retrieval and the Ψ injector.
//! - [`solutions`]: Ad-Chat, GI-R, GIR-R, GIR-P and the no-ads control.
//! - [`judge`], [`judge_prompts`]: the six judge metrics, both protocols.
//! - [`scoring`]: embedding metrics of an output, one-shot scoring.
//! - [`agreement`], [`cost`]: judge agreement and token cost helpers;
//!   [`interval`]: means and 95% intervals over items (clustered).
//! - [`report`]: the paper's tables and plots as report sections;
//!   [`headline`]: its benchmark version and leaderboard metrics;
//!   [`review`]: what people review (ads vs the control, the six judge
//!   questions).
//! - [`command`]: `adfarm gem score`, the metrics of one response.
//! - [`assets`]: the pinned `gembench` wheel the data comes from.
//!
//! Design decision: data loads lazily on first use and is shared by every
//! solution through an `Arc`; the ad database's embeddings are kept in
//! memory per embedding model, so retrieval costs one embedding pass per
//! worker, not per job.

pub mod agreement;
pub mod assets;
pub mod caprod;
pub mod command;
pub mod cost;
pub mod data;
pub mod headline;
pub mod inject;
pub mod interval;
pub mod item;
pub mod judge;
pub mod judge_prompts;
pub mod metrics;
pub mod report;
pub mod retrieval;
pub mod review;
pub mod scoring;
pub mod solutions;
pub mod split;
pub mod summary;

use adfarm_proto::report::Section;
use adfarm_proto::{Item, Lane, ProviderKind, Role, Scope, SolutionSpec, Stage, Variant, SOLVE};
use adfarm_suite::{
    Benchmark, CallEstimate, DataError, Headlines, ItemIter, JobError, ReportInput, Reviewables,
    Solution, StageJob, StageModels, StageOutput, Suite, SuiteContext, SweepView,
};
use async_trait::async_trait;
use data::GemData;
use item::{Dataset, ItemView};
use judge::Protocol;
use retrieval::IndexCache;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Solution names.
pub const SOLUTIONS: [&str; 5] = ["ad-chat", "gi-r", "gir-r", "gir-p", "no-ads"];

/// The GEM-Bench suite.
pub struct GemBench {
    root: PathBuf,
    data: OnceLock<Result<Arc<GemData>, DataError>>,
    index: Arc<IndexCache>,
}

impl GemBench {
    /// The suite over the unpacked [`assets::GEMBENCH`] wheel under
    /// `ctx.assets_dir`. Nothing is read until first use.
    pub fn load(ctx: &SuiteContext) -> GemBench {
        GemBench {
            root: ctx.assets_dir.join(assets::GEMBENCH.dir_name()),
            data: OnceLock::new(),
            index: Arc::new(IndexCache::new(
                ctx.cache_dir.as_ref().map(|d| d.join("gem-ad-index")),
            )),
        }
    }

    /// The suite over already loaded data (tests, tools).
    pub fn with_data(data: GemData) -> GemBench {
        let cell = OnceLock::new();
        let _ = cell.set(Ok(Arc::new(data)));
        GemBench {
            root: PathBuf::new(),
            data: cell,
            index: Arc::default(),
        }
    }

    /// The loaded data, loading it on first call.
    ///
    /// # Errors
    /// [`DataError::Files`] naming the missing or unexpected file.
    pub fn data(&self) -> Result<Arc<GemData>, DataError> {
        self.data
            .get_or_init(|| GemData::load(&self.root).map(Arc::new))
            .clone()
    }

    /// Counts and CA-Prod's known label conflicts.
    ///
    /// # Errors
    /// As [`GemBench::data`].
    pub fn summary(&self) -> Result<summary::DatasetSummary, DataError> {
        Ok(summary::dataset_summary(&*self.data()?))
    }
}

/// Stage of the six judge metrics, one job per judge.
pub const JUDGE_STAGE: &str = "judge";
/// Stage of the embedding metrics (RF, RC, AF, AC), one job per embedder.
pub const EMBED_STAGE: &str = "embed-metrics";

/// GEM-Bench's suite parameters.
#[derive(Debug, Clone, PartialEq)]
struct Params {
    /// Judge prompts and scale.
    protocol: Protocol,
    /// Extra embedding models (provider names) re-scoring the same
    /// responses with the embedding metrics (the metric-embedder table).
    embedding_ablation: Vec<String>,
    /// Weight of input tokens in the cost Overall (Table 6).
    cost_input_ratio: f64,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            protocol: Protocol::default(),
            embedding_ablation: vec![],
            cost_input_ratio: cost::DEFAULT_INPUT_RATIO,
        }
    }
}

pub(crate) fn suite_params(params: &serde_json::Value) -> Result<Params, DataError> {
    let mut out = Params::default();
    if let Some(obj) = params.as_object() {
        for (k, v) in obj {
            match k.as_str() {
                "judge_protocol" => {
                    out.protocol = Protocol::parse(v.as_str().unwrap_or_default())?;
                }
                "cost_input_ratio" => {
                    out.cost_input_ratio = v
                        .as_f64()
                        .filter(|r| r.is_finite() && *r >= 0.0)
                        .ok_or_else(|| DataError::Param {
                            field: "params.cost_input_ratio".into(),
                            reason: format!(
                                "must be a non-negative number (the paper's is 0.5), got {v}"
                            ),
                        })?;
                }
                "embedding_ablation" => {
                    let names = v.as_array().ok_or_else(|| DataError::Param {
                        field: "params.embedding_ablation".into(),
                        reason: format!("must be a list of provider names, got {v}"),
                    })?;
                    for (i, name) in names.iter().enumerate() {
                        let name = name.as_str().ok_or_else(|| DataError::Param {
                            field: format!("params.embedding_ablation[{i}]"),
                            reason: format!("must be a provider name, got {name}"),
                        })?;
                        out.embedding_ablation.push(name.to_string());
                    }
                }
                other => {
                    return Err(DataError::Param {
                        field: format!("params.{other}"),
                        reason: "unknown GEM-Bench parameter; valid: judge_protocol, \
                                 embedding_ablation, cost_input_ratio"
                            .into(),
                    })
                }
            }
        }
    }
    Ok(out)
}

/// The embed-metrics variants: the sweep's embedder under no column, then
/// each ablation embedder under its own name. Each ablation embedder must
/// be a provider, not a judge, not the embedder, and listed once.
fn embed_variants(sweep: SweepView<'_>, ablation: &[String]) -> Result<Vec<Variant>, DataError> {
    let spec = sweep.spec;
    let Some(primary) = &spec.embedder else {
        if ablation.is_empty() {
            return Ok(vec![]);
        }
        return Err(DataError::Param {
            field: "params.embedding_ablation".into(),
            reason:
                "needs `embedder`: the ablation re-scores the responses of the sweep's embedder"
                    .into(),
        });
    };
    let mut out = vec![Variant {
        provider: Some(primary.clone()),
        column: None,
    }];
    for (i, name) in ablation.iter().enumerate() {
        let bad = |reason: String| DataError::Param {
            field: format!("params.embedding_ablation[{i}]"),
            reason,
        };
        if spec.provider(name).is_none() {
            let valid: Vec<&str> = spec.providers.iter().map(|p| p.name.as_str()).collect();
            return Err(bad(format!(
                "unknown provider {name:?}; valid: {}",
                valid.join(", ")
            )));
        }
        if spec.judges.contains(name) {
            return Err(bad(format!(
                "{name:?} is a judge; an ablation embedder may not also judge"
            )));
        }
        if name == primary {
            return Err(bad(format!(
                "{name:?} is already the `embedder`; list only the extra embedders"
            )));
        }
        if ablation[..i].contains(name) {
            return Err(bad(format!("{name:?} is listed twice")));
        }
        out.push(Variant {
            provider: Some(name.clone()),
            column: Some(name.clone()),
        });
    }
    Ok(out)
}

/// The providers this suite's jobs call, by index in `providers`: its
/// solutions' generators and embedders, the judges, the embedder and the
/// ablation embedders.
fn called_providers(sweep: SweepView<'_>, ablation: &[String]) -> Vec<usize> {
    let spec = sweep.spec;
    let mut names: Vec<&str> = vec![];
    for sol in spec.solutions.iter().filter(|s| {
        s.suite.as_deref().is_none_or(|n| n == sweep.suite.name)
            && SOLUTIONS.contains(&s.name.as_str())
    }) {
        names.push(&sol.provider);
        names.extend(sol.embedder(spec));
    }
    names.extend(spec.judges.iter().map(String::as_str));
    names.extend(spec.embedder.as_deref());
    names.extend(ablation.iter().map(String::as_str));
    let mut out: Vec<usize> = names
        .iter()
        .filter_map(|n| spec.providers.iter().position(|p| p.name == *n))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Every call GEM-Bench reports is priced (Table 6, the budget): an HTTP
/// provider it calls must state both prices, `0` for a free model, so no
/// model is priced 0 by omission. Local models run here and cost 0 unless
/// priced.
fn check_prices(sweep: SweepView<'_>, ablation: &[String]) -> Result<(), DataError> {
    for i in called_providers(sweep, ablation) {
        let p = &sweep.spec.providers[i];
        if p.kind == ProviderKind::Local {
            continue;
        }
        if let Some(field) = p.unpriced().first() {
            return Err(DataError::Sweep {
                field: format!("providers[{i}].{field}"),
                reason: format!(
                    "GEM-Bench prices every call of provider {:?}: state its price in USD per \
                     million tokens (0 for a free model)",
                    p.name
                ),
            });
        }
    }
    Ok(())
}

/// A solution that retrieves ads by embedding needs an embedding model, its
/// own or the sweep's: refused at plan time, before any job fails on it.
fn check_retrieval_embedders(sweep: SweepView<'_>) -> Result<(), DataError> {
    let spec = sweep.spec;
    let ours = |s: &SolutionSpec| s.suite.as_deref().is_none_or(|n| n == "gem");
    for (i, s) in spec.solutions.iter().enumerate() {
        if ours(s) && RETRIEVERS.contains(&s.name.as_str()) && s.embedder(spec).is_none() {
            return Err(DataError::Sweep {
                field: format!("solutions[{i}].embedder"),
                reason: format!(
                    "{} retrieves ads by embedding: set `embedder` on the solution or the sweep",
                    s.name
                ),
            });
        }
    }
    Ok(())
}

/// The solutions that retrieve ads by embedding.
const RETRIEVERS: [&str; 3] = ["gi-r", "gir-r", "gir-p"];

fn needs(job: &StageJob<'_>, what: &str) -> JobError {
    JobError::Data(DataError::Param {
        field: job.stage.into(),
        reason: format!("GEM-Bench's {} stage needs {what}", job.stage),
    })
}

#[async_trait]
impl Suite for GemBench {
    fn name(&self) -> &'static str {
        "gem"
    }

    fn assets(&self) -> Vec<&'static adfarm_proto::asset::Pin> {
        vec![&assets::GEMBENCH]
    }

    fn datasets(&self) -> Vec<String> {
        Dataset::ALL
            .iter()
            .map(|d| d.as_str().to_string())
            .collect()
    }

    fn solutions(&self) -> Vec<String> {
        SOLUTIONS.iter().map(|s| s.to_string()).collect()
    }

    fn items(&self, dataset: &str, params: &serde_json::Value) -> Result<ItemIter, DataError> {
        let ds = Dataset::parse(dataset).ok_or_else(|| DataError::UnknownDataset {
            suite: "gem".into(),
            dataset: dataset.into(),
            valid: self.datasets().join(", "),
        })?;
        let protocol = suite_params(params)?.protocol;
        Ok(item::items(self.data()?, ds, protocol))
    }

    fn stages(&self, sweep: SweepView<'_>) -> Result<Vec<Stage>, DataError> {
        let params = suite_params(&sweep.suite.params)?;
        check_prices(sweep, &params.embedding_ablation)?;
        let mut stages = Vec::new();
        if !sweep.spec.judges.is_empty() {
            stages.push(Stage::per_judge(JUDGE_STAGE, &sweep.spec.judges));
        }
        let embedders = embed_variants(sweep, &params.embedding_ablation)?;
        check_retrieval_embedders(sweep)?;
        if !embedders.is_empty() {
            stages.push(Stage {
                name: EMBED_STAGE.into(),
                lane: Lane::Embed,
                scope: Scope::Run,
                after: vec![SOLVE.into()],
                role: Role::Embedding,
                variants: embedders,
                partial: false,
                solutions: Vec::new(),
                read_by_solve: false,
            });
        }
        Ok(stages)
    }

    fn estimate(&self, stage: &str, solution: &SolutionSpec, _item: &Item) -> CallEstimate {
        match stage {
            // Assumes the default protocol (the larger of the two).
            JUDGE_STAGE => CallEstimate {
                calls: Protocol::Paper.calls(),
                overhead_tokens: 160,
                reads_response: true,
                output_tokens: Some(2),
            },
            // One call embeds the response's sentences (at most one batch
            // of them); nothing comes back but vectors.
            EMBED_STAGE => CallEstimate {
                calls: 1,
                overhead_tokens: 0,
                reads_response: true,
                output_tokens: Some(0),
            },
            _ => match solution.name.as_str() {
                // topic, subtopic, product picks (lists of names) + the answer.
                "ad-chat" => CallEstimate {
                    calls: 4,
                    overhead_tokens: 250,
                    ..CallEstimate::default()
                },
                // The rewrite call carries the whole injected answer.
                "gir-r" | "gir-p" => CallEstimate {
                    calls: 2,
                    overhead_tokens: 90 + solution.max_tokens / 2,
                    ..CallEstimate::default()
                },
                _ => CallEstimate {
                    calls: 1,
                    overhead_tokens: 10,
                    ..CallEstimate::default()
                },
            },
        }
    }

    fn embed_estimate(&self, solution: &SolutionSpec) -> CallEstimate {
        match solution.name.as_str() {
            // Retrieval embeds the answer's sentences and the query (or the
            // answer again) in one batch: twice max_tokens, an upper bound.
            // The ad database is embedded once per worker and embedding
            // model, and kept; it is not counted per job.
            "gi-r" | "gir-r" | "gir-p" => CallEstimate {
                calls: 1,
                overhead_tokens: solution.max_tokens.saturating_mul(2),
                reads_response: false,
                output_tokens: Some(0),
            },
            _ => CallEstimate::default(),
        }
    }

    fn check_solution(&self, spec: &SolutionSpec) -> Result<(), DataError> {
        match spec.name.as_str() {
            "ad-chat" => solutions::adchat::Matching::parse(&spec.params).map(|_| ()),
            "gi-r" | "gir-r" | "gir-p" => {
                solutions::adllm::AdLlmParams::parse(&spec.params, spec.max_tokens).map(|_| ())
            }
            "no-ads" => solutions::noads::NoAds::check(spec),
            other => Err(DataError::UnknownSolution {
                suite: "gem".into(),
                solution: other.into(),
                valid: SOLUTIONS.join(", "),
            }),
        }
    }

    fn solution(&self, spec: &SolutionSpec) -> Result<Arc<dyn Solution>, DataError> {
        let data = self.data()?;
        match spec.name.as_str() {
            "ad-chat" => Ok(Arc::new(solutions::adchat::AdChat::new(spec, data)?)),
            "gi-r" | "gir-r" | "gir-p" => Ok(Arc::new(solutions::adllm::AdLlm::new(
                spec,
                data,
                self.index.clone(),
            )?)),
            "no-ads" => Ok(Arc::new(solutions::noads::NoAds::new(spec, data))),
            other => Err(DataError::UnknownSolution {
                suite: "gem".into(),
                solution: other.into(),
                valid: SOLUTIONS.join(", "),
            }),
        }
    }

    fn command(&self) -> Option<clap::Command> {
        Some(command::command())
    }

    async fn run_command(
        &self,
        matches: &clap::ArgMatches,
        toolbox: &dyn adfarm_suite::Toolbox,
    ) -> Result<(), adfarm_suite::CommandError> {
        command::run(matches, toolbox).await
    }

    async fn run_stage(
        &self,
        job: StageJob<'_>,
        models: StageModels<'_>,
    ) -> Result<StageOutput, JobError> {
        let [Some(solved)] = job.inputs else {
            return Err(needs(&job, "the solved response"));
        };
        let output = solved
            .output
            .as_ref()
            .ok_or_else(|| needs(&job, "the solved response"))?;
        let ad = scoring::ad_from_meta(&output.meta);
        let scores = match job.stage {
            JUDGE_STAGE => {
                let view = ItemView::parse(job.item)?;
                let llm = models.llm.ok_or_else(|| needs(&job, "a judge model"))?;
                judge::judge_response(llm, view.protocol, &view.query, &output.text, ad.as_ref())
                    .await?
            }
            EMBED_STAGE => {
                let embedder = models
                    .embedder
                    .ok_or_else(|| needs(&job, "an embedding model"))?;
                scoring::embedding_scores(embedder, &output.text, ad.as_ref())
                    .await?
                    .2
            }
            other => {
                return Err(JobError::Data(DataError::Param {
                    field: "stage".into(),
                    reason: format!("GEM-Bench has no stage {other:?}"),
                }))
            }
        };
        Ok(StageOutput {
            output: None,
            scores,
        })
    }

    fn benchmark(&self, sweep: SweepView<'_>) -> Result<Option<Benchmark>, DataError> {
        let params = suite_params(&sweep.suite.params)?;
        Ok(Some(headline::benchmark(sweep.spec, params.protocol)))
    }

    fn headlines(&self, input: &ReportInput<'_>) -> Result<Headlines, DataError> {
        Ok(headline::headlines(input))
    }

    fn report(&self, input: &ReportInput<'_>) -> Result<Vec<Section>, DataError> {
        // The data names the items that ask one prompt and the dataset
        // summary; a report read where the data is missing goes without.
        Ok(report::sections(input, self.data().ok().as_ref()))
    }

    fn reviews(&self, input: &ReportInput<'_>) -> Result<Reviewables, DataError> {
        // Results carry no query, and a review without its question cannot
        // be answered: unlike the report, reviews need the data.
        Ok(review::reviewables(input, &review::queries(&self.data()?)))
    }
}

#[cfg(test)]
mod tests {
    /// Every deviation from gembench 1.0.9 is one row of the
    /// deviation table in the GEM-Bench report docs.
    #[test]
    fn the_docs_table_every_deviation_from_the_reference() {
        let docs = include_str!("../../../docs/gem-bench-reports.md");
        let table = docs
            .split("## Deviations from the reference code (gembench 1.0.9)")
            .nth(1)
            .expect("the deviation section");
        assert!(table.contains("| where | the reference | AdFarm | why |"));
        for row in [
            "| cosine in Ad-LLM (retrieval, Ψ) |",
            "| AF (ad flow) |",
            "| judge reply that matches no category |",
            "| Ad-Chat option lists |",
            "| Ad-Chat picks with one option |",
            "| closed choice on the local model |",
            "| empty GIR rewrite |",
            "| CA-Prod product without a website |",
            "| cost Overall |",
        ] {
            assert!(table.contains(row), "no row {row}");
        }
        assert!(docs.contains("the unit is the distinct prompt"));
    }
}
