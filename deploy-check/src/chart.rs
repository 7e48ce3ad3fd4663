//! A chart folder: `Chart.yaml`, `values.yaml`, `templates/`.

use crate::sprig::{template, with_helpers};
use crate::values::{merge, to_template};
use gtmpl::Context;
use gtmpl_value::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What can go wrong loading or rendering a chart.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A YAML file (chart metadata, values, a rendered document) is invalid.
    #[error("{what}: {source}")]
    Yaml {
        /// Which file or template.
        what: String,
        /// Why.
        source: serde_yaml::Error,
    },
    /// A template failed to parse or execute.
    #[error("template {template}: {reason}")]
    Template {
        /// The template's file name.
        template: String,
        /// The engine's message.
        reason: String,
    },
}

impl ChartError {
    /// A stable code for the error's kind.
    pub fn code(&self) -> &'static str {
        match self {
            ChartError::Read { .. } => "read",
            ChartError::Yaml { .. } => "yaml",
            ChartError::Template { .. } => "template",
        }
    }
}

/// A loaded chart.
#[derive(Debug)]
pub struct Chart {
    meta: serde_yaml::Value,
    values: serde_yaml::Value,
    helpers: String,
    templates: Vec<(String, String)>,
}

/// One template's output: the YAML documents it produced (empty ones dropped).
#[derive(Debug)]
pub struct Rendered {
    /// The template's file name, e.g. `worker-deployment.yaml`.
    pub template: String,
    /// Its documents, in order.
    pub documents: Vec<serde_yaml::Value>,
}

fn read(path: &Path) -> Result<String, ChartError> {
    std::fs::read_to_string(path).map_err(|source| ChartError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn yaml(what: &str, text: &str) -> Result<serde_yaml::Value, ChartError> {
    serde_yaml::from_str(text).map_err(|source| ChartError::Yaml {
        what: what.to_string(),
        source,
    })
}

impl Chart {
    /// Loads the chart in `dir`.
    ///
    /// # Errors
    /// When a file is unreadable or `Chart.yaml`/`values.yaml` is invalid.
    pub fn load(dir: &Path) -> Result<Chart, ChartError> {
        let meta = yaml("Chart.yaml", &read(&dir.join("Chart.yaml"))?)?;
        let values = yaml("values.yaml", &read(&dir.join("values.yaml"))?)?;
        let tdir = dir.join("templates");
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&tdir)
            .map_err(|source| ChartError::Read {
                path: tdir.clone(),
                source,
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        let mut helpers = String::new();
        let mut templates = Vec::new();
        for path in entries {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.starts_with('_') {
                helpers.push_str(&read(&path)?);
                helpers.push('\n');
            } else if name.ends_with(".yaml") || name.ends_with(".yml") {
                templates.push((name, read(&path)?));
            }
        }
        Ok(Chart {
            meta,
            values,
            helpers,
            templates,
        })
    }

    /// The names of the chart's templates (helpers excluded).
    pub fn template_names(&self) -> Vec<&str> {
        self.templates.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// Renders every template with the chart's values merged with the files
    /// in `overrides`, as release `release` in `namespace`.
    ///
    /// # Errors
    /// When an override file is invalid, a template fails, or a rendered
    /// document is not YAML.
    pub fn render(
        &self,
        overrides: &[&Path],
        release: &str,
        namespace: &str,
    ) -> Result<Vec<Rendered>, ChartError> {
        let mut values = self.values.clone();
        for path in overrides {
            let over = yaml(&path.display().to_string(), &read(path)?)?;
            merge(&mut values, over);
        }
        let field = |k: &str| self.meta.get(k).map(to_template).unwrap_or(Value::Nil);
        let chart = HashMap::from([
            ("Name".to_string(), field("name")),
            ("Version".to_string(), field("version")),
            ("AppVersion".to_string(), field("appVersion")),
        ]);
        let release = HashMap::from([
            ("Name".to_string(), Value::from(release)),
            ("Namespace".to_string(), Value::from(namespace)),
            ("Service".to_string(), Value::from("Helm")),
        ]);
        let root = Value::Map(HashMap::from([
            ("Values".to_string(), to_template(&values)),
            ("Chart".to_string(), Value::Map(chart)),
            ("Release".to_string(), Value::Map(release)),
        ]));
        with_helpers(&self.helpers, || {
            self.templates
                .iter()
                .map(|(name, text)| self.render_one(name, text, &root))
                .collect()
        })
    }

    fn render_one(&self, name: &str, text: &str, root: &Value) -> Result<Rendered, ChartError> {
        let fail = |reason: String| ChartError::Template {
            template: name.to_string(),
            reason,
        };
        let mut t = template(name, &self.helpers).map_err(&fail)?;
        t.parse(text.to_string()).map_err(|e| fail(e.to_string()))?;
        let out = t
            .render(&Context::from(root.clone()))
            .map_err(|e| fail(e.to_string()))?;
        let mut documents = Vec::new();
        for (i, doc) in split_documents(&out).into_iter().enumerate() {
            let v = yaml(&format!("{name} document {i}"), doc)?;
            if !v.is_null() {
                documents.push(v);
            }
        }
        Ok(Rendered {
            template: name.to_string(),
            documents,
        })
    }
}

/// Splits a multi-document YAML stream on `---` lines.
fn split_documents(s: &str) -> Vec<&str> {
    let mut docs = Vec::new();
    let mut start = 0;
    let mut pos = 0;
    for line in s.split_inclusive('\n') {
        if line.trim_end() == "---" {
            docs.push(&s[start..pos]);
            start = pos + line.len();
        }
        pos += line.len();
    }
    docs.push(&s[start..]);
    docs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_split_on_separator_lines_only() {
        assert_eq!(
            split_documents("a: 1\n---\nb: '---'\n---\n"),
            vec!["a: 1\n", "b: '---'\n", ""]
        );
    }
}
