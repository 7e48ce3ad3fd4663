//! The `helm` CLI: lint and render a chart.

use crate::manifest::{split, Manifest};
use crate::tool::run;
use crate::ToolError;
use std::path::{Path, PathBuf};

/// A `helm` binary.
#[derive(Debug, Clone)]
pub struct Helm {
    program: PathBuf,
}

fn with_values<'a>(
    mut args: Vec<&'a str>,
    values: &'a [&'a Path],
) -> Result<Vec<&'a str>, ToolError> {
    for v in values {
        let v = v.to_str().ok_or_else(|| not_utf8(v))?;
        args.extend(["--values", v]);
    }
    Ok(args)
}

fn not_utf8(p: &Path) -> ToolError {
    ToolError::Spawn {
        program: p.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "path is not UTF-8"),
    }
}

impl Helm {
    /// Runs the `helm` at `program`.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Helm {
            program: program.into(),
        }
    }

    /// `helm lint --strict CHART --values V...`: Helm's checks, where a
    /// warning fails too; returns helm's report.
    ///
    /// # Errors
    /// [`ToolError::Failed`] with helm's report when the chart fails.
    pub fn lint(&self, chart: &Path, values: &[&Path]) -> Result<String, ToolError> {
        let chart = chart.to_str().ok_or_else(|| not_utf8(chart))?;
        run(
            &self.program,
            &with_values(vec!["lint", "--strict", chart], values)?,
            None,
        )
    }

    /// `helm template RELEASE CHART --namespace NAMESPACE --values V...`:
    /// the rendered text, exactly as helm prints it.
    ///
    /// # Errors
    /// [`ToolError::Failed`] with helm's message when a template fails to
    /// parse or execute, or the values break `values.schema.json`.
    pub fn template(
        &self,
        release: &str,
        namespace: &str,
        chart: &Path,
        values: &[&Path],
    ) -> Result<String, ToolError> {
        let chart = chart.to_str().ok_or_else(|| not_utf8(chart))?;
        let args = vec!["template", release, chart, "--namespace", namespace];
        run(&self.program, &with_values(args, values)?, None)
    }

    /// [`Helm::template`], split into documents.
    ///
    /// # Errors
    /// As [`Helm::template`], and [`ToolError::Yaml`] for a document that is
    /// not YAML.
    pub fn manifests(
        &self,
        release: &str,
        namespace: &str,
        chart: &Path,
        values: &[&Path],
    ) -> Result<Vec<Manifest>, ToolError> {
        split(&self.template(release, namespace, chart, values)?)
    }
}
