//! The commands the README and the docs tell a reader to type, checked
//! against the binary's own argument tree and the workspace's targets, so a
//! renamed flag, subcommand, bench or sweep file fails a test instead of a
//! newcomer.
//!
//! Every code span and code block of the project's Markdown is read. An
//! `adfarm ...` command (also as `cargo run ... -p adfarm -- ...`) must name
//! subcommands that exist and only flags that its `--help` lists; a
//! `cargo bench|test|nextest ... -p PKG` command must name a workspace
//! package and, with `--bench`/`--test`, one of its targets; every
//! `sweeps/*.toml` and `scripts/*` path named must exist. Placeholders
//! (`<sweep>`, `FILE`, `[--out FILE]`, `md|csv`) are values, so they pass.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A command found in a document, with where it was found.
#[derive(Debug)]
struct Mention {
    place: String,
    text: String,
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the cli crate sits in the workspace")
        .to_path_buf()
}

/// The Markdown a reader meets: the README, `docs/` and every crate's README.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md")];
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    stack.push(path);
                }
            } else if name.ends_with(".md") && path != root.join("README.md") {
                let in_docs = path.starts_with(root.join("docs"));
                if in_docs || name == "README.md" {
                    out.push(path);
                }
            }
        }
    }
    out.sort();
    out
}

/// Code spans and code-block lines of one Markdown text, with line numbers.
fn code_of(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    // An indented block starts after a blank line and runs while indented.
    let mut indented = false;
    let mut blank_before = true;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        indented = line.starts_with("    ") && (indented || blank_before);
        blank_before = trimmed.is_empty();
        if fenced || indented {
            out.push((i + 1, line.trim().to_string()));
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let Some(span) = parts.next() {
            out.push((i + 1, span.to_string()));
            parts.next();
        }
    }
    out
}

/// Splits shell text into the commands it runs (`a && b`, `a | b`, `a &`,
/// `a; b`), dropping comments.
fn commands_in(code: &str) -> Vec<String> {
    let code = match code.find(" #") {
        Some(i) => &code[..i],
        None if code.starts_with('#') => "",
        None => code,
    };
    code.split("&&")
        .flat_map(|c| c.split(" | "))
        .flat_map(|c| c.split(';'))
        .map(|c| c.trim().trim_end_matches('&').trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

fn mentions(root: &Path) -> Vec<Mention> {
    let mut out = Vec::new();
    for doc in documents(root) {
        let text = std::fs::read_to_string(&doc).expect("a document reads");
        let rel = doc.strip_prefix(root).unwrap_or(&doc).display().to_string();
        for (line, code) in code_of(&text) {
            for text in commands_in(&code) {
                out.push(Mention {
                    place: format!("{rel}:{line}"),
                    text,
                });
            }
        }
    }
    out
}

/// The words after `adfarm` when `text` runs the binary, else `None`.
fn adfarm_args(text: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let start = if words.first() == Some(&"adfarm") {
        1
    } else if words.first() == Some(&"cargo")
        && words.get(1) == Some(&"run")
        && words.windows(2).any(|w| w == ["-p", "adfarm"])
    {
        words.iter().position(|w| *w == "--")? + 1
    } else {
        return None;
    };
    Some(words[start..].iter().map(|w| w.to_string()).collect())
}

/// A placeholder or optional group's punctuation stripped from a word.
fn bare(word: &str) -> &str {
    word.trim_matches(|c| matches!(c, '[' | ']' | '(' | ')' | ',' | '.' | '"' | '\''))
}

/// Checks `args` against the command tree; returns what is wrong.
fn check_adfarm(root: &clap::Command, args: &[String]) -> Option<String> {
    let mut path = vec![root];
    let mut descending = true;
    for word in args {
        let word = bare(word);
        if let Some(flag) = word.strip_prefix("--") {
            descending = false;
            let name = flag.split('=').next().unwrap_or(flag);
            if name.is_empty() || name == "help" || name == "version" {
                continue;
            }
            let known = path.iter().any(|c| {
                c.get_arguments().any(|a| {
                    a.get_long() == Some(name)
                        || a.get_all_aliases().is_some_and(|al| al.contains(&name))
                })
            });
            if !known {
                let cmd = path
                    .iter()
                    .map(|c| c.get_name())
                    .collect::<Vec<_>>()
                    .join(" ");
                return Some(format!("`{cmd} --help` lists no --{name}"));
            }
        } else if descending && !word.starts_with('-') {
            let here = path.last().expect("the root is on the path");
            if here.has_subcommands() {
                match here.find_subcommand(word) {
                    Some(sub) => path.push(sub),
                    None => {
                        let cmd = path
                            .iter()
                            .map(|c| c.get_name())
                            .collect::<Vec<_>>()
                            .join(" ");
                        return Some(format!("`{cmd}` has no subcommand {word:?}"));
                    }
                }
            } else {
                descending = false;
            }
        }
    }
    if path.len() == 1 && args.iter().any(|w| !w.starts_with('-')) {
        return Some("names no subcommand".into());
    }
    None
}

/// Workspace packages and their bench and test targets, from `cargo metadata`.
fn targets(root: &Path) -> BTreeMap<String, BTreeSet<(String, String)>> {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let mut map = BTreeMap::new();
    for pkg in meta["packages"].as_array().expect("packages") {
        let mut set = BTreeSet::new();
        for t in pkg["targets"].as_array().expect("targets") {
            for kind in t["kind"].as_array().expect("kinds") {
                set.insert((
                    kind.as_str().unwrap_or_default().to_string(),
                    t["name"].as_str().unwrap_or_default().to_string(),
                ));
            }
        }
        map.insert(pkg["name"].as_str().expect("name").to_string(), set);
    }
    map
}

/// Checks a `cargo bench|test|nextest|run|build ... -p PKG` command.
fn check_cargo(
    words: &[&str],
    packages: &BTreeMap<String, BTreeSet<(String, String)>>,
) -> Option<String> {
    let mut package = None;
    for pair in words.windows(2) {
        match pair[0] {
            "-p" | "--package" => {
                let name = bare(pair[1]);
                if !packages.contains_key(name) {
                    return Some(format!("no workspace package {name:?}"));
                }
                package = Some(name);
            }
            "--bench" | "--test" => {
                let kind = &pair[0][2..];
                let name = bare(pair[1]);
                let found = packages
                    .iter()
                    .filter(|(p, _)| package.is_none_or(|want| want == p.as_str()))
                    .any(|(_, t)| t.contains(&(kind.to_string(), name.to_string())));
                if !found {
                    return Some(format!("no {kind} target {name:?} in {package:?}"));
                }
            }
            _ => {}
        }
    }
    None
}

/// Repository paths a command names (`sweeps/x.toml`, `scripts/test`) that
/// do not exist.
fn missing_paths(root: &Path, text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(bare)
        .filter(|w| (w.starts_with("sweeps/") && w.ends_with(".toml")) || w.starts_with("scripts/"))
        .filter(|w| !w.contains('<') && !root.join(w).exists())
        .map(str::to_string)
        .collect()
}

/// The binary's whole command tree: its own commands, each suite's commands
/// and the child-process entries a suite runs as `adfarm <suite> <name>`.
fn command_tree() -> clap::Command {
    let mut tree = <crate::args::Args as clap::CommandFactory>::command();
    let ctx = adfarm_suites::SuiteContext::default();
    for name in adfarm_suites::SUITES {
        let suite = adfarm_suites::suite(name, &ctx).expect("a listed suite builds");
        let entries = suite.child_entries();
        if suite.command().is_none() && entries.is_empty() {
            continue;
        }
        let mut command = suite.command().unwrap_or_else(|| clap::Command::new(*name));
        for entry in entries {
            command = command.subcommand(clap::Command::new(entry.name));
        }
        tree = tree.subcommand(command);
    }
    tree
}

#[test]
fn every_command_in_the_docs_runs_on_this_binary() {
    let root = repo_root();
    let tree = command_tree();
    let packages = targets(&root);
    let found = mentions(&root);
    let mut problems = Vec::new();
    let mut adfarm_seen = 0;
    for m in &found {
        if let Some(args) = adfarm_args(&m.text) {
            adfarm_seen += 1;
            if let Some(p) = check_adfarm(&tree, &args) {
                problems.push(format!("{}: `{}`: {p}", m.place, m.text));
            }
        }
        let words: Vec<&str> = m.text.split_whitespace().collect();
        if words.first() == Some(&"cargo") {
            if let Some(p) = check_cargo(&words, &packages) {
                problems.push(format!("{}: `{}`: {p}", m.place, m.text));
            }
        }
        for path in missing_paths(&root, &m.text) {
            problems.push(format!("{}: `{}`: {path} does not exist", m.place, m.text));
        }
    }
    assert!(
        adfarm_seen >= 20,
        "only {adfarm_seen} adfarm commands found in the docs"
    );
    assert!(
        problems.is_empty(),
        "commands in the docs that drifted from the CLI:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_readme_gives_both_commands_on_its_first_screen() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README reads");
    let first_screen: String = readme.lines().take(40).collect::<Vec<_>>().join("\n");
    assert!(
        first_screen.contains("cargo run --release -p adfarm -- run sweeps/quickstart.toml"),
        "the README's first 40 lines lack the quickstart command"
    );
    assert!(
        first_screen.contains("\nscripts/test"),
        "the README's first 40 lines lack the test command"
    );
    assert!(
        readme.lines().count() <= 250,
        "the README is a front door: at most 250 lines"
    );
    let ci = std::fs::read_to_string(repo_root().join(".ci/run")).expect(".ci/run reads");
    assert!(
        ci.contains("scripts/test"),
        ".ci/run does not call the README's test command"
    );
}

#[test]
fn a_renamed_flag_or_subcommand_is_caught() {
    let tree = <crate::args::Args as clap::CommandFactory>::command();
    let args = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        check_adfarm(&tree, &args("run sweeps/x.toml --report FILE")),
        None
    );
    assert_eq!(
        check_adfarm(&tree, &args("report <sweep> --format md|csv [--out FILE]")),
        None
    );
    assert!(check_adfarm(&tree, &args("run sweeps/x.toml --reprot FILE")).is_some());
    assert!(check_adfarm(&tree, &args("leaderboard publish")).is_some());
    assert_eq!(
        adfarm_args("cargo run --release -p adfarm -- run a.toml"),
        Some(args("run a.toml"))
    );
    assert_eq!(
        commands_in("adfarm worker --lanes model &   # a pool"),
        vec!["adfarm worker --lanes model"]
    );
}
