//! Runs the real `helm` and `kubernetes-validate` on the AdFarm chart, so
//! tests can lint it, render it and check every manifest.
//!
//! - `tool`: finds a tool (explicit path, `$ADFARM_HOME/tools`, `PATH`) and
//!   runs it, turning a failure into an error that carries its output.
//! - `helm`: `helm lint --strict` and `helm template` with values files.
//! - `manifest`: splits `helm template` output into documents, each with the
//!   template it came from.
//! - `validate`: `kubernetes-validate --strict` against one Kubernetes version.
//!
//! Design decision: the crate reads no environment variables; callers pass
//! the explicit path, `ADFARM_HOME` and `PATH` to [`Tool::locate`], and a
//! missing tool is an error that says to run `scripts/ensure-helm`.

mod helm;
mod manifest;
mod tool;
mod validate;

pub use helm::Helm;
pub use manifest::{split, Manifest};
pub use tool::{Tool, ToolError};
pub use validate::KubernetesValidate;
