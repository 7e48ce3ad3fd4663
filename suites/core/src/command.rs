//! Commands a suite adds to the binary (`adfarm <suite> <command>`): the
//! suite builds its clap command and runs it; the binary supplies models
//! by the names a user types, and a sweep's stored results from the store
//! the command line names, so a suite's tool never loads a model or opens
//! a store itself.

use adfarm_llm::{Embedder, LlmError, Provider};
use adfarm_proto::{JobResult, Role, SweepSpec};
use async_trait::async_trait;

/// One sweep as a store holds it.
#[derive(Debug, Clone)]
pub struct StoredSweep {
    /// Its id.
    pub id: String,
    /// The sweep as it was run.
    pub spec: SweepSpec,
    /// Its stored job results, in job-id order.
    pub results: Vec<JobResult>,
}

/// The models and stored results a suite command may ask the binary for.
#[async_trait]
pub trait Toolbox: Send + Sync {
    /// A chat model named as on the command line: a local model's name, or
    /// an OpenAI-compatible endpoint as `BASE_URL#MODEL` whose key is
    /// `api_key`; its calls are charged as `role`.
    ///
    /// # Errors
    /// An unknown name, or a local model that cannot be fetched or loaded.
    async fn chat_model(
        &self,
        name: &str,
        api_key: Option<&str>,
        role: Role,
    ) -> Result<Box<dyn Provider>, LlmError>;

    /// The local sentence embedder and its model name.
    ///
    /// # Errors
    /// When it cannot be fetched or loaded.
    async fn embedder(&self) -> Result<(Box<dyn Embedder>, String), LlmError>;

    /// Sweeps stored in the store the command line names (the binary adds
    /// its store flags to every suite command): the one `sweep` names by
    /// file, id or name (the latest of that name), or every one, oldest
    /// first. The store is opened only when this is called.
    ///
    /// # Errors
    /// [`CommandError::Input`] when the store cannot be opened or read, or
    /// names no such sweep.
    async fn stored(&self, sweep: Option<&str>) -> Result<Vec<StoredSweep>, CommandError>;

    /// Ids of the sweeps in that store, newest first, read without their
    /// results: a command looking for one thing reads sweeps one at a time
    /// ([`Toolbox::stored`] with an id) and stops where it finds it.
    ///
    /// # Errors
    /// [`CommandError::Input`] when the store cannot be opened or read.
    async fn sweep_ids(&self) -> Result<Vec<String>, CommandError>;
}

/// A suite command that failed.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// An argument or input file is unusable.
    #[error("{0}")]
    Input(String),
    /// A model could not be had or called.
    #[error(transparent)]
    Llm(#[from] LlmError),
}

impl CommandError {
    /// Bounded code.
    pub fn code(&self) -> &'static str {
        match self {
            CommandError::Input(_) => "command-input",
            CommandError::Llm(e) => e.code(),
        }
    }
}
