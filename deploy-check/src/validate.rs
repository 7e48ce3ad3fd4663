//! `kubernetes-validate`: rendered manifests against the Kubernetes OpenAPI schemas.

use crate::tool::run;
use crate::ToolError;
use std::path::PathBuf;

/// A `kubernetes-validate` binary and the Kubernetes version it checks against.
#[derive(Debug, Clone)]
pub struct KubernetesValidate {
    program: PathBuf,
    version: String,
}

impl KubernetesValidate {
    /// Runs the `kubernetes-validate` at `program` against Kubernetes
    /// `version` (e.g. `1.35.0`).
    pub fn new(program: impl Into<PathBuf>, version: impl Into<String>) -> Self {
        KubernetesValidate {
            program: program.into(),
            version: version.into(),
        }
    }

    /// Validates every document of `manifests` (multi-document YAML) with
    /// `--strict`, so a field the schema does not know fails too. Kinds
    /// without a built-in schema (custom resources) pass with a warning;
    /// returns the tool's report.
    ///
    /// # Errors
    /// [`ToolError::Failed`] naming each document that does not validate
    /// and why.
    pub fn validate(&self, manifests: &str) -> Result<String, ToolError> {
        let args = [
            "--kubernetes-version",
            &self.version,
            "--strict",
            "--quiet",
            "-",
        ];
        run(&self.program, &args, Some(manifests))
    }
}
