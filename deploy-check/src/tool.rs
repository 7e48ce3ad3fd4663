//! Finding and running an external tool.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What can go wrong finding or running a tool.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The tool is neither at its explicit path, nor installed, nor on `PATH`.
    #[error(
        "{tool} not found (set {env}, or install it into {installed}): run scripts/ensure-helm"
    )]
    Missing {
        /// The tool's name.
        tool: &'static str,
        /// The variable that names it explicitly.
        env: &'static str,
        /// Where `scripts/ensure-helm` installs it.
        installed: String,
    },
    /// The tool could not be started.
    #[error("cannot run {program}: {source}")]
    Spawn {
        /// The program.
        program: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The tool ran and refused its input.
    #[error("`{command}` failed ({status}):\n{output}")]
    Failed {
        /// The command line.
        command: String,
        /// Its exit status.
        status: std::process::ExitStatus,
        /// What it wrote to stdout and stderr.
        output: String,
    },
    /// A rendered document is not YAML.
    #[error("{template}: {source}")]
    Yaml {
        /// The template it came from.
        template: String,
        /// Why.
        source: serde_yaml::Error,
    },
}

impl ToolError {
    /// A stable code for the error's kind.
    pub fn code(&self) -> &'static str {
        match self {
            ToolError::Missing { .. } => "missing",
            ToolError::Spawn { .. } => "spawn",
            ToolError::Failed { .. } => "failed",
            ToolError::Yaml { .. } => "yaml",
        }
    }
}

/// An external tool the check runs, and where `scripts/ensure-helm` puts it.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    /// The program's name on `PATH`.
    pub name: &'static str,
    /// The environment variable that gives its path explicitly.
    pub env: &'static str,
    /// Its path under `$ADFARM_HOME`.
    pub installed: &'static str,
}

impl Tool {
    /// Helm v4.
    pub const HELM: Tool = Tool {
        name: "helm",
        env: "ADFARM_HELM",
        installed: "tools/bin/helm",
    };

    /// `kubernetes-validate` (PyPI), in its own virtual environment.
    pub const KUBERNETES_VALIDATE: Tool = Tool {
        name: "kubernetes-validate",
        env: "ADFARM_KUBERNETES_VALIDATE",
        installed: "tools/venv/bin/kubernetes-validate",
    };

    /// The tool's path: `explicit` (the value of [`Tool::env`]) when given,
    /// else the copy installed under `adfarm_home`, else the first match on
    /// `path` (a `PATH`-style list).
    ///
    /// # Errors
    /// [`ToolError::Missing`] when none of these holds the tool.
    pub fn locate(
        &self,
        explicit: Option<OsString>,
        adfarm_home: &Path,
        path: Option<OsString>,
    ) -> Result<PathBuf, ToolError> {
        if let Some(p) = explicit.filter(|p| !p.is_empty()) {
            return Ok(PathBuf::from(p));
        }
        let installed = adfarm_home.join(self.installed);
        if installed.is_file() {
            return Ok(installed);
        }
        path.iter()
            .flat_map(std::env::split_paths)
            .map(|dir| dir.join(self.name))
            .find(|p| p.is_file())
            .ok_or_else(|| ToolError::Missing {
                tool: self.name,
                env: self.env,
                installed: installed.display().to_string(),
            })
    }
}

/// Runs `program` with `args`, feeding it `stdin`; returns its stdout.
///
/// # Errors
/// [`ToolError::Spawn`] when it cannot start, [`ToolError::Failed`] (with
/// stdout and stderr) when it exits unsuccessfully.
pub(crate) fn run(program: &Path, args: &[&str], stdin: Option<&str>) -> Result<String, ToolError> {
    let spawn_error = |source| ToolError::Spawn {
        program: program.to_path_buf(),
        source,
    };
    let mut child = Command::new(program)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(spawn_error)?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes()).map_err(spawn_error)?;
    }
    let out = child.wait_with_output().map_err(spawn_error)?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        return Ok(stdout);
    }
    Err(ToolError::Failed {
        command: std::iter::once(program.display().to_string())
            .chain(args.iter().map(|a| a.to_string()))
            .collect::<Vec<_>>()
            .join(" "),
        status: out.status,
        output: format!("{stdout}{}", String::from_utf8_lossy(&out.stderr)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executable(dir: &Path, rel: &str) -> PathBuf {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "").unwrap();
        p
    }

    #[test]
    fn an_explicit_path_wins_over_the_installed_copy() {
        let home = tempfile::tempdir().unwrap();
        executable(home.path(), Tool::HELM.installed);
        let got = Tool::HELM
            .locate(Some("/opt/helm".into()), home.path(), None)
            .unwrap();
        assert_eq!(got, PathBuf::from("/opt/helm"));
    }

    #[test]
    fn the_installed_copy_wins_over_path() {
        let home = tempfile::tempdir().unwrap();
        let installed = executable(home.path(), Tool::KUBERNETES_VALIDATE.installed);
        let on_path = executable(home.path(), "bin/kubernetes-validate");
        let path = std::env::join_paths([on_path.parent().unwrap()]).unwrap();
        let got = Tool::KUBERNETES_VALIDATE
            .locate(None, home.path(), Some(path))
            .unwrap();
        assert_eq!(got, installed);
    }

    #[test]
    fn a_tool_on_path_is_found_when_not_installed() {
        let home = tempfile::tempdir().unwrap();
        let on_path = executable(home.path(), "b/helm");
        let path =
            std::env::join_paths(["/nonexistent", "", home.path().join("b").to_str().unwrap()])
                .unwrap();
        let got = Tool::HELM.locate(None, home.path(), Some(path)).unwrap();
        assert_eq!(got, on_path);
    }

    #[test]
    fn a_missing_tool_says_to_run_ensure_helm() {
        let home = tempfile::tempdir().unwrap();
        let err = Tool::HELM.locate(None, home.path(), None).unwrap_err();
        assert_eq!(err.code(), "missing");
        let msg = err.to_string();
        assert!(msg.contains("scripts/ensure-helm"), "{msg}");
        assert!(msg.contains("ADFARM_HELM"), "{msg}");
    }

    #[test]
    fn a_failing_tool_reports_its_output() {
        let err = run(
            Path::new("sh"),
            &["-c", "echo out; echo err >&2; exit 3"],
            None,
        )
        .unwrap_err();
        assert_eq!(err.code(), "failed");
        let msg = err.to_string();
        assert!(msg.contains("out\nerr"), "{msg}");
        assert!(msg.contains("sh -c"), "{msg}");
    }

    #[test]
    fn a_tool_reads_its_stdin() {
        assert_eq!(
            run(Path::new("cat"), &[], Some("a: 1\n")).unwrap(),
            "a: 1\n"
        );
    }
}
