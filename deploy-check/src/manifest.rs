//! `helm template` output as documents.

use crate::ToolError;

/// One rendered document and the template that produced it.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The template's path inside the chart, e.g. `templates/worker-deployment.yaml`.
    pub template: String,
    /// The document.
    pub document: serde_yaml::Value,
}

impl Manifest {
    /// The document's `kind`, or `""`.
    pub fn kind(&self) -> &str {
        self.document["kind"].as_str().unwrap_or("")
    }

    /// The document's `metadata.name`, or `""`.
    pub fn name(&self) -> &str {
        self.document["metadata"]["name"].as_str().unwrap_or("")
    }
}

/// Splits `helm template` output at its `---` lines; each document names
/// its template in a `# Source: CHART/PATH` comment. Empty documents are
/// dropped.
///
/// # Errors
/// [`ToolError::Yaml`] when a document is not YAML.
pub fn split(rendered: &str) -> Result<Vec<Manifest>, ToolError> {
    let mut chunks = vec![String::new()];
    for line in rendered.lines() {
        if line == "---" {
            chunks.push(String::new());
        } else if let Some(chunk) = chunks.last_mut() {
            chunk.push_str(line);
            chunk.push('\n');
        }
    }
    let mut manifests = Vec::new();
    for chunk in chunks {
        let template = chunk
            .lines()
            .find_map(|l| l.strip_prefix("# Source: "))
            .map(|s| s.split_once('/').map_or(s, |(_chart, path)| path))
            .unwrap_or("")
            .to_string();
        let document: serde_yaml::Value =
            serde_yaml::from_str(&chunk).map_err(|source| ToolError::Yaml {
                template: template.clone(),
                source,
            })?;
        if !document.is_null() {
            manifests.push(Manifest { template, document });
        }
    }
    Ok(manifests)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_document_keeps_its_template() {
        let text = "---\n# Source: adfarm/templates/a.yaml\nkind: A\nmetadata:\n  name: x\n\
                    ---\n# Source: adfarm/templates/b.yaml\nkind: B\ndata:\n  f: |\n    ---\n";
        let got = split(text).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got[0].template.as_str(), got[0].kind(), got[0].name()),
            ("templates/a.yaml", "A", "x")
        );
        assert_eq!(
            (got[1].template.as_str(), got[1].kind()),
            ("templates/b.yaml", "B")
        );
        assert_eq!(got[1].document["data"]["f"], "---\n");
    }

    #[test]
    fn empty_documents_are_dropped() {
        let got = split("---\n# Source: c/templates/off.yaml\n---\nkind: A\n").unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].kind(), "A");
    }

    #[test]
    fn a_document_that_is_not_yaml_names_its_template() {
        let err = split("---\n# Source: c/templates/bad.yaml\na: [1\n").unwrap_err();
        assert_eq!(err.code(), "yaml");
        assert!(err.to_string().starts_with("templates/bad.yaml"), "{err}");
    }
}
