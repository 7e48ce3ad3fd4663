//! Renders the AdFarm Helm chart without the `helm` binary, so tests can
//! check every manifest against the Kubernetes API types.
//!
//! - `chart`: loads a chart folder, merges values and renders each template
//!   into YAML documents.
//! - `sprig`: the handful of Sprig/Helm functions the chart uses (`include`,
//!   `toYaml`, `nindent`, ...), on top of the Go-template engine `gtmpl`.
//! - `values`: YAML values to template values, and Helm's deep merge.
//!
//! Design decision: the renderer supports exactly the functions the chart
//! uses; a template calling anything else fails to parse, so a chart change
//! that needs a new function is caught here rather than silently mis-rendered.

mod chart;
mod sprig;
mod values;

pub use chart::{Chart, ChartError, Rendered};
pub use values::merge;
