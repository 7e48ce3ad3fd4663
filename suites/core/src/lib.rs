//! The traits every benchmark implements (Inspect's dataset + solver +
//! scorer, typed): a [`Suite`] yields items, scores outputs and adds its
//! own sections to the report; a [`Solution`] turns an item into an output.
//!
//! - this file: the traits, the context and the errors they share;
//! - [`report`]: [`ReportInput`], what a suite's report sections are built
//!   from (tables and plots are data, `adfarm_proto::report::Section`).

mod report;

pub use report::ReportInput;

use adfarm_llm::{Embedder, ErrorClass, LlmError, Provider};
use adfarm_proto::report::Section;
use adfarm_proto::{Item, JobKind, Output, Score, SolutionSpec};
use async_trait::async_trait;
use std::path::PathBuf;
use std::sync::Arc;

/// What suites need from their host: where fetched datasets live, and
/// where derived data may be kept between runs.
#[derive(Debug, Clone, Default)]
pub struct SuiteContext {
    /// Directory holding unpacked dataset assets (e.g. the gembench wheel).
    pub data_dir: PathBuf,
    /// Directory for data derived from the assets (GEM-Bench's ad-index
    /// vectors per embedding model); `None` keeps it in memory only.
    pub cache_dir: Option<PathBuf>,
}

/// Lazily yielded dataset items.
pub type ItemIter = Box<dyn Iterator<Item = Result<Item, DataError>> + Send>;

/// Dataset or configuration problems, found before or while planning.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DataError {
    /// The dataset is not one of the suite's.
    #[error("suite {suite} has no dataset {dataset:?}; valid: {valid}")]
    UnknownDataset {
        /// Suite.
        suite: String,
        /// Requested dataset.
        dataset: String,
        /// Valid names, comma separated.
        valid: String,
    },
    /// The solution is not one of the suite's.
    #[error("suite {suite} has no solution {solution:?}; valid: {valid}")]
    UnknownSolution {
        /// Suite.
        suite: String,
        /// Requested solution.
        solution: String,
        /// Valid names, comma separated.
        valid: String,
    },
    /// A parameter is invalid.
    #[error("invalid parameter {field}: {reason}")]
    Param {
        /// Parameter path.
        field: String,
        /// What is wrong.
        reason: String,
    },
    /// Dataset files are missing or differ from what the suite expects.
    #[error("dataset {path}: {reason}")]
    Files {
        /// File.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// Why a job failed, classified for the worker's retry policy.
#[derive(Debug, Clone, thiserror::Error)]
pub enum JobError {
    /// A model call failed.
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The job's data is invalid (retrying will not help).
    #[error(transparent)]
    Data(#[from] DataError),
    /// The job needs an input that is not stored (follow-up before parent).
    #[error("input {0} is not available yet")]
    MissingInput(String),
}

impl JobError {
    /// Retry policy class.
    pub fn class(&self) -> ErrorClass {
        match self {
            JobError::Llm(e) => e.class(),
            JobError::Data(_) => ErrorClass::Permanent,
            JobError::MissingInput(_) => ErrorClass::Transient { retry_after: None },
        }
    }

    /// Bounded code.
    pub fn code(&self) -> &'static str {
        match self {
            JobError::Llm(e) => e.code(),
            JobError::Data(_) => "data",
            JobError::MissingInput(_) => "missing-input",
        }
    }
}

/// The models a job may use.
#[derive(Clone, Copy)]
pub struct Models<'a> {
    /// The chat model (generator for solutions, the judge for judging).
    pub llm: &'a dyn Provider,
    /// The embedding model, when the suite needs one.
    pub embedder: Option<&'a dyn Embedder>,
}

/// What a solution produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Solved {
    /// The response (and solution data).
    pub output: Output,
    /// Metrics known at generation time (injection rate, selection accuracy...).
    pub scores: Vec<Score>,
}

/// A benchmark: datasets, solutions, follow-up scoring.
#[async_trait]
pub trait Suite: Send + Sync {
    /// Suite name as written in sweep files.
    fn name(&self) -> &'static str;

    /// Valid dataset names.
    fn datasets(&self) -> Vec<String>;

    /// Valid solution names.
    fn solutions(&self) -> Vec<String>;

    /// Items of `dataset`, lazily, in dataset order.
    ///
    /// # Errors
    /// Unknown dataset, missing or inconsistent files, bad parameters.
    fn items(&self, dataset: &str, params: &serde_json::Value) -> Result<ItemIter, DataError>;

    /// Job kinds that follow each generation (judging once per judge).
    fn follow_ups(&self) -> Vec<JobKind>;

    /// Model calls per item a solution makes, and judge calls per judge,
    /// for the pre-run cost estimate.
    fn calls_per_item(&self, solution: &SolutionSpec) -> CallEstimate;

    /// Builds a solution from its spec.
    ///
    /// # Errors
    /// Unknown solution name or invalid parameters.
    fn solution(&self, spec: &SolutionSpec) -> Result<Arc<dyn Solution>, DataError>;

    /// Scores `output` with a judge model.
    ///
    /// # Errors
    /// Model call failures (an unparsable verdict is an `Unscored` score).
    async fn judge(
        &self,
        item: &Item,
        output: &Output,
        models: Models<'_>,
    ) -> Result<Vec<Score>, JobError>;

    /// Embedding metrics of `output`.
    ///
    /// # Errors
    /// Model call failures.
    async fn embed_metrics(
        &self,
        item: &Item,
        output: &Output,
        models: Models<'_>,
    ) -> Result<Vec<Score>, JobError>;

    /// The suite's own report sections (its paper's tables and plots),
    /// after the farm's jobs, scores and usage. None by default.
    ///
    /// # Errors
    /// Suite parameters the sections cannot be built with.
    fn report(&self, _input: &ReportInput<'_>) -> Result<Vec<Section>, DataError> {
        Ok(Vec::new())
    }
}

/// Expected model traffic per item, for cost estimates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallEstimate {
    /// Generation calls per item.
    pub generation_calls: u32,
    /// Extra prompt tokens per generation call beyond the item text.
    pub generation_overhead_tokens: u32,
    /// Judge calls per item per judge.
    pub judge_calls: u32,
    /// Prompt tokens per judge call beyond item and response.
    pub judge_overhead_tokens: u32,
    /// Output tokens per judge call.
    pub judge_output_tokens: u32,
}

/// A system under test: item in, response out.
#[async_trait]
pub trait Solution: Send + Sync {
    /// Solution name.
    fn name(&self) -> &str;

    /// Runs on `item` with `seed`.
    ///
    /// # Errors
    /// Model call failures and data errors.
    async fn solve(&self, item: &Item, models: Models<'_>, seed: u64) -> Result<Solved, JobError>;
}
