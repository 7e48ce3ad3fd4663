//! Where a field is in the sweep file: field paths, their text, and the
//! line of a path in the TOML document (for `file:line: field` errors).

use std::ops::Range;

/// One step of a field path.
#[derive(Debug, Clone)]
pub(super) enum Seg {
    Key(&'static str),
    /// A key named by a suite (a parameter path), not by this file.
    Name(String),
    Index(usize),
}

/// `base` followed by the segments of a suite's field path
/// (`params.embedding_ablation[1]`).
pub(super) fn extend(mut base: Vec<Seg>, field: &str) -> Vec<Seg> {
    for part in field.split('.').filter(|p| !p.is_empty()) {
        let (key, rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            base.push(Seg::Name(key.to_string()));
        }
        for index in rest.split('[') {
            if let Ok(i) = index.trim_end_matches(']').parse() {
                base.push(Seg::Index(i));
            }
        }
    }
    base
}

pub(super) fn path_text(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) if s.is_empty() => s.push_str(k),
            Seg::Name(k) if s.is_empty() => s.push_str(k),
            Seg::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Seg::Name(k) => {
                s.push('.');
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// A node of the parsed document, with items unwrapped.
#[derive(Clone, Copy)]
enum Node<'a> {
    Table(&'a toml_edit::Table),
    Tables(&'a toml_edit::ArrayOfTables),
    Value(&'a toml_edit::Value),
}

fn node(item: &toml_edit::Item) -> Option<Node<'_>> {
    match item {
        toml_edit::Item::Table(t) => Some(Node::Table(t)),
        toml_edit::Item::ArrayOfTables(a) => Some(Node::Tables(a)),
        toml_edit::Item::Value(v) => Some(Node::Value(v)),
        toml_edit::Item::None => None,
    }
}

/// The byte span of `path` in the document, or of its closest ancestor.
pub(super) fn locate(doc: &toml_edit::Document<String>, path: &[Seg]) -> Option<Range<usize>> {
    let mut at = Node::Table(doc.as_table());
    let mut best = None;
    for seg in path {
        let key = match seg {
            Seg::Key(k) => Some(*k),
            Seg::Name(k) => Some(k.as_str()),
            Seg::Index(_) => None,
        };
        let next = match (key, seg, at) {
            (Some(k), _, Node::Table(t)) => {
                best = t.key(k).and_then(|k| k.span()).or(best);
                t.get(k).and_then(node)
            }
            (Some(k), _, Node::Value(toml_edit::Value::InlineTable(t))) => {
                best = t.key(k).and_then(|k| k.span()).or(best);
                t.get(k).map(Node::Value)
            }
            (None, Seg::Index(i), Node::Tables(a)) => {
                let t = a.get(*i);
                best = t.and_then(|t| t.span()).or(best);
                t.map(Node::Table)
            }
            (None, Seg::Index(i), Node::Value(toml_edit::Value::Array(a))) => {
                let v = a.get(*i);
                best = v.and_then(|v| v.span()).or(best);
                v.map(Node::Value)
            }
            _ => None,
        };
        match next {
            Some(n) => at = n,
            None => return best,
        }
    }
    best
}

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The field that 1-based `line` assigns (`key = ...`), under the nearest
/// table header above it (`solutions[1].max_tokens`). Syntax and type errors
/// come before there is a document to walk, so the text is read line-wise.
pub(super) fn field_on_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let key = lines.get(line.checked_sub(1)?)?.split_once('=')?.0.trim();
    let bare = |k: &str| {
        !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    };
    if !bare(key) {
        return None;
    }
    let mut seen: std::collections::HashMap<&str, usize> = Default::default();
    let mut table = None;
    for l in &lines[..line - 1] {
        let l = l.split('#').next().unwrap_or_default().trim();
        if let Some(name) = l.strip_prefix("[[").and_then(|r| r.strip_suffix("]]")) {
            let n = seen.entry(name.trim()).or_insert(0);
            table = Some(format!("{}[{n}]", name.trim()));
            *n += 1;
        } else if let Some(name) = l.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            table = Some(name.trim().to_string());
        }
    }
    Some(table.map_or_else(|| key.to_string(), |t| format!("{t}.{key}")))
}
