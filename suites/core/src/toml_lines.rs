//! Where a field of a TOML file is: the line a problem is reported at.
//! Checks run on parsed values, which keep no positions, so the line is
//! found again in the text by the file's shape (headers, keys, inline
//! tables). Task files of every suite report `file:line: field` this way.

/// True when `line` assigns `key` (bare or quoted).
pub fn assigns(line: &str, key: &str) -> bool {
    let t = line.trim_start();
    let rest = t
        .strip_prefix('"')
        .and_then(|r| r.strip_prefix(key))
        .and_then(|r| r.strip_prefix('"'))
        .or_else(|| t.strip_prefix(key));
    rest.is_some_and(|r| r.trim_start().starts_with('='))
}

fn is_header(line: &str) -> bool {
    line.trim_start().starts_with('[')
}

/// 1-based line of a field path in `text`: the deepest table or
/// array-of-tables block the path names (its n-th occurrence for `[n]`),
/// then the first key left in that block (its n-th inline table for a
/// `keywords[n]`); the block's header when the key is not there; a
/// top-level key before the first header; else line 1.
pub fn line_of(text: &str, field: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let segs: Vec<(&str, Option<usize>)> = field
        .split('.')
        .map(|s| match s.split_once('[') {
            Some((name, rest)) => (name, rest.trim_end_matches(']').parse().ok()),
            None => (s, None),
        })
        .collect();
    for n in (1..=segs.len()).rev() {
        let path: Vec<&str> = segs[..n].iter().map(|s| s.0).collect();
        let path = path.join(".");
        let (header, nth) = match segs[n - 1].1 {
            Some(i) => (format!("[[{path}]]"), i),
            None => (format!("[{path}]"), 0),
        };
        let Some(h) = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.trim() == header)
            .map(|(i, _)| i)
            .nth(nth)
        else {
            continue;
        };
        let end = lines[h + 1..]
            .iter()
            .position(|l| is_header(l))
            .map_or(lines.len(), |i| h + 1 + i);
        let Some(&(key, index)) = segs.get(n) else {
            return h + 1;
        };
        let Some(k) = (h + 1..end).find(|&i| assigns(lines[i], key)) else {
            return h + 1;
        };
        let Some(j) = index else {
            return k + 1;
        };
        return (k..end)
            .filter(|&i| lines[i].contains('{'))
            .nth(j)
            .map_or(k + 1, |i| i + 1);
    }
    let first_header = lines
        .iter()
        .position(|l| is_header(l))
        .unwrap_or(lines.len());
    lines[..first_header]
        .iter()
        .position(|l| assigns(l, segs[0].0))
        .map_or(1, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"id = "t"
brief = "b"

[scenario]
seed = 1
days = 3

[[account.campaigns]]
name = "A"

[[account.campaigns]]
name = "B"
keywords = [
  { text = "flights" },
  { text = "hotels" },
]

[[predicate]]
kind = "kpi"

[[predicate]]
kind = "budget"
max_micros = 3
"#;

    #[test]
    fn fields_are_found_at_their_own_lines() {
        assert_eq!(line_of(TEXT, "brief"), 2);
        assert_eq!(line_of(TEXT, "scenario.days"), 6);
        assert_eq!(line_of(TEXT, "scenario.cadence"), 4);
        assert_eq!(line_of(TEXT, "account.campaigns[1].name"), 12);
        assert_eq!(line_of(TEXT, "account.campaigns[1].keywords[1].text"), 15);
        assert_eq!(line_of(TEXT, "predicate[1].max_micros"), 23);
        assert_eq!(line_of(TEXT, "predicate[1].min_micros"), 21);
        assert_eq!(line_of(TEXT, "predicate[5].max"), 1);
        assert_eq!(line_of(TEXT, "oracle[0].at"), 1);
    }
}
