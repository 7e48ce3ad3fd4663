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
//! - [`agreement`], [`cost`]: judge agreement and token cost helpers.
//! - [`report`]: the paper's tables and plots as report sections.
//!
//! Design decision: data loads lazily on first use and is shared by every
//! solution through an `Arc`; the ad database's embeddings are kept in
//! memory per embedding model, so retrieval costs one embedding pass per
//! worker, not per job.

pub mod agreement;
pub mod caprod;
pub mod cost;
pub mod data;
pub mod inject;
pub mod item;
pub mod judge;
pub mod judge_prompts;
pub mod metrics;
pub mod report;
pub mod retrieval;
pub mod scoring;
pub mod solutions;
pub mod split;
pub mod summary;

use adfarm_proto::report::Section;
use adfarm_proto::{Item, JobKind, Output, Score, SolutionSpec};
use adfarm_suite::SuiteContext;
use adfarm_suite::{
    CallEstimate, DataError, ItemIter, JobError, Models, ReportInput, Solution, Suite,
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
    /// The suite over the unpacked wheel at `ctx.data_dir` (the folder
    /// that contains `GemBench/`). Nothing is read until first use.
    pub fn load(ctx: &SuiteContext) -> GemBench {
        GemBench {
            root: ctx.data_dir.clone(),
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

fn suite_params(params: &serde_json::Value) -> Result<Protocol, DataError> {
    let mut protocol = Protocol::default();
    if let Some(obj) = params.as_object() {
        for (k, v) in obj {
            match k.as_str() {
                "judge_protocol" => {
                    protocol = Protocol::parse(v.as_str().unwrap_or_default())?;
                }
                other => {
                    return Err(DataError::Param {
                        field: format!("params.{other}"),
                        reason: "unknown GEM-Bench parameter; valid: judge_protocol".into(),
                    })
                }
            }
        }
    }
    Ok(protocol)
}

#[async_trait]
impl Suite for GemBench {
    fn name(&self) -> &'static str {
        "gem"
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
        let protocol = suite_params(params)?;
        Ok(item::items(self.data()?, ds, protocol))
    }

    fn follow_ups(&self) -> Vec<JobKind> {
        vec![JobKind::Judge, JobKind::EmbedMetrics]
    }

    fn calls_per_item(&self, solution: &SolutionSpec) -> CallEstimate {
        // Judge calls assume the default protocol (the larger of the two).
        let judge = CallEstimate {
            generation_calls: 1,
            generation_overhead_tokens: 10,
            judge_calls: Protocol::Paper.calls(),
            judge_overhead_tokens: 160,
            judge_output_tokens: 2,
        };
        match solution.name.as_str() {
            // topic, subtopic, product picks (lists of names) + the answer.
            "ad-chat" => CallEstimate {
                generation_calls: 4,
                generation_overhead_tokens: 250,
                ..judge
            },
            "gi-r" => judge,
            // The rewrite call carries the whole injected answer.
            "gir-r" | "gir-p" => CallEstimate {
                generation_calls: 2,
                generation_overhead_tokens: 90 + solution.max_tokens / 2,
                ..judge
            },
            _ => judge,
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

    async fn judge(
        &self,
        item: &Item,
        output: &Output,
        models: Models<'_>,
    ) -> Result<Vec<Score>, JobError> {
        let view = ItemView::parse(item)?;
        let ad = scoring::ad_from_meta(&output.meta);
        Ok(judge::judge_response(
            models.llm,
            view.protocol,
            &view.query,
            &output.text,
            ad.as_ref(),
        )
        .await?)
    }

    async fn embed_metrics(
        &self,
        _item: &Item,
        output: &Output,
        models: Models<'_>,
    ) -> Result<Vec<Score>, JobError> {
        let embedder = models.embedder.ok_or_else(|| {
            JobError::Data(DataError::Param {
                field: "embedder".into(),
                reason: "GEM-Bench embedding metrics need an embedding model".into(),
            })
        })?;
        let ad = scoring::ad_from_meta(&output.meta);
        let (_, _, scores) = scoring::embedding_scores(embedder, &output.text, ad.as_ref()).await?;
        Ok(scores)
    }

    fn report(&self, input: &ReportInput<'_>) -> Result<Vec<Section>, DataError> {
        Ok(report::sections(input))
    }
}
