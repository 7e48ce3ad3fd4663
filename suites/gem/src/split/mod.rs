//! Sentence splitting for the embedding metrics and the injector.
//!
//! Lines are hard boundaries (LLM answers are markdown: list items,
//! headings and table rows each stand alone). Within a line, a sentence ends
//! at `.`, `!`, `?` or `…` (plus closing quotes, brackets or emphasis)
//! followed by whitespace and a word that is not lower-case, unless the
//! period belongs to a list marker (`1.`), an abbreviation (`e.g.`, `Dr.`),
//! an initial (`J.`), a markdown link, inline code or a URL (whose dots are
//! never followed by whitespace). CJK terminators split without whitespace.
//!
//! No text is dropped: pieces are trimmed slices of the input, fenced code
//! blocks stay whole, and a piece with no letter or digit (`---`, a table
//! rule) is merged into its neighbour, so the pieces concatenated equal the
//! input modulo whitespace. (The reference splitter drops pieces of three
//! characters or fewer, which loses list numbers.)

use std::ops::Range;

#[cfg(test)]
mod tests;

/// Abbreviations after which a period never ends a sentence (lower-case,
/// without the final period). Dotted forms like `e.g`/`u.s` are caught by
/// [`is_initialism`].
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "ft", "gen", "col", "lt", "sgt",
    "capt", "rep", "sen", "gov", "rev", "hon", "pres", "vs", "v", "cf", "approx", "no", "nos",
    "vol", "vols", "fig", "figs", "eq", "ch", "sec", "p", "pp", "ed", "eds", "al", "dept", "est",
    "ca", "viz", "op", "cit", "min", "max", "avg", "mon", "tue", "wed", "thu", "fri", "sat", "sun",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// Sentences of `text`, trimmed, in order.
pub fn split_sentences(text: &str) -> Vec<String> {
    sentence_spans(text)
        .into_iter()
        .map(|r| text[r].to_string())
        .collect()
}

/// Byte ranges of the sentences of `text` (trimmed, in order, disjoint).
pub fn sentence_spans(text: &str) -> Vec<Range<usize>> {
    let mut raw: Vec<Range<usize>> = Vec::new();
    let mut fence: Option<(usize, String)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let t = body.trim_start();
        let marker = fence_marker(t);
        if let Some((fstart, open)) = &fence {
            if marker.is_some_and(|m| m == open.as_str()) {
                raw.push(*fstart..start + body.len());
                fence = None;
            }
            continue;
        }
        if let Some(m) = marker {
            fence = Some((start, m.to_string()));
            continue;
        }
        split_line(body, start, &mut raw);
    }
    if let Some((fstart, _)) = fence {
        // An unclosed fence runs to the end of the text.
        raw.push(fstart..text.len());
    }
    let raw: Vec<Range<usize>> = raw.into_iter().filter_map(|r| trim(text, r)).collect();
    merge_markup(text, raw)
}

fn fence_marker(t: &str) -> Option<&'static str> {
    if t.starts_with("```") {
        Some("```")
    } else if t.starts_with("~~~") {
        Some("~~~")
    } else {
        None
    }
}

fn trim(text: &str, r: Range<usize>) -> Option<Range<usize>> {
    let s = &text[r.clone()];
    let lead = s.len() - s.trim_start().len();
    let tail = s.len() - s.trim_end().len();
    (lead + tail < s.len()).then(|| r.start + lead..r.end - tail)
}

/// Merges pieces without a letter or digit into the previous piece (or the
/// next one at the start), so rules and table separators are kept.
fn merge_markup(text: &str, raw: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(raw.len());
    let mut pending: Option<usize> = None;
    for r in raw {
        let has_word = text[r.clone()].chars().any(char::is_alphanumeric);
        match (has_word, out.last_mut()) {
            (false, Some(prev)) => prev.end = r.end,
            (false, None) => {
                pending.get_or_insert(r.start);
            }
            (true, _) => out.push(pending.take().unwrap_or(r.start)..r.end),
        }
    }
    if let Some(start) = pending {
        // Nothing but markup: keep it as one piece rather than drop it.
        out.push(start..text.trim_end().len().max(start));
    }
    out
}

/// Length in bytes of a list/heading/quote marker at the start of `line`.
fn marker_len(line: &str) -> usize {
    let b = line.as_bytes();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && (b[*i] == b' ' || b[*i] == b'\t') {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    while i < b.len() && (b[i] == b'#' || b[i] == b'>') {
        i += 1;
    }
    skip_ws(&mut i);
    if i + 1 < b.len() && matches!(b[i], b'-' | b'*' | b'+') && b[i + 1] == b' ' {
        i += 2;
        skip_ws(&mut i);
    }
    // Ordered markers: `12.`, `a)`, `iv.`, optionally bold-wrapped.
    let mut j = i;
    while j < b.len() && b[j] == b'*' {
        j += 1;
    }
    let k = j;
    while j < b.len() && b[j].is_ascii_alphanumeric() && j - k < 4 {
        j += 1;
    }
    let token = &line[k..j];
    let ordered = !token.is_empty()
        && (token.bytes().all(|c| c.is_ascii_digit())
            || token.len() == 1
            || token.bytes().all(|c| b"ivxlcIVXLC".contains(&c)));
    if ordered && j < b.len() && matches!(b[j], b'.' | b')') {
        let after = j + 1;
        if after == b.len() || b[after] == b' ' || b[after] == b'*' {
            return after;
        }
    }
    i
}

fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…')
}

fn is_cjk_terminator(c: char) -> bool {
    matches!(c, '。' | '！' | '？')
}

fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | '”' | '’' | ')' | ']' | '*' | '_' | '»' | '）' | '」'
    )
}

/// The word that ends right before byte `end` of `line`.
fn word_before(line: &str, end: usize) -> &str {
    let head = &line[..end];
    let start = head
        .rfind(|c: char| c.is_whitespace() || matches!(c, '(' | '[' | '"' | '“' | '*' | '_'))
        .map(|i| i + head[i..].chars().next().map_or(1, char::len_utf8))
        .unwrap_or(0);
    &head[start..]
}

/// Whether a single `.` at byte `dot` of `line` is part of a word rather
/// than the end of a sentence.
fn period_is_inside_word(line: &str, dot: usize) -> bool {
    let w = word_before(line, dot);
    if w.is_empty() {
        return false;
    }
    let lw = w.to_lowercase();
    if ABBREVIATIONS.contains(&lw.as_str()) || is_initialism(w) {
        return true;
    }
    let mut cs = w.chars();
    // An initial: "J. Smith".
    matches!((cs.next(), cs.next()), (Some(c), None) if c.is_uppercase())
}

/// Dotted initialisms like `e.g`, `U.S`, `a.m`, `Ph.D` (the final period
/// excluded): short letter groups joined by dots. URLs, decimals and
/// versions (`v2.1`) are not, so a period after them can end a sentence.
fn is_initialism(w: &str) -> bool {
    w.contains('.')
        && w.split('.').all(|seg| {
            let n = seg.chars().count();
            (1..=2).contains(&n) && seg.chars().all(char::is_alphabetic)
        })
}

fn split_line(line: &str, offset: usize, out: &mut Vec<Range<usize>>) {
    let mut start = 0;
    let scan_from = marker_len(line);
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let (mut in_code, mut brackets, mut link_parens) = (false, 0i32, 0i32);
    let mut i = 0;
    while i < chars.len() {
        let (pos, c) = chars[i];
        i += 1;
        if pos < scan_from {
            continue;
        }
        match c {
            '`' => in_code = !in_code,
            '[' if !in_code => brackets += 1,
            ']' if !in_code => {
                brackets = (brackets - 1).max(0);
                if brackets == 0 && chars.get(i).is_some_and(|&(_, n)| n == '(') {
                    link_parens += 1;
                    i += 1;
                }
            }
            '(' if link_parens > 0 => link_parens += 1,
            ')' if link_parens > 0 => link_parens -= 1,
            _ => {}
        }
        if in_code || brackets > 0 || link_parens > 0 {
            continue;
        }
        if is_cjk_terminator(c) {
            let mut end = i;
            while end < chars.len() && (is_cjk_terminator(chars[end].1) || is_closer(chars[end].1))
            {
                end += 1;
            }
            let cut = chars.get(end).map_or(line.len(), |&(p, _)| p);
            out.push(offset + start..offset + cut);
            start = cut;
            i = end;
            continue;
        }
        if !is_terminator(c) {
            continue;
        }
        let mut end = i;
        while end < chars.len() && is_terminator(chars[end].1) {
            end += 1;
        }
        let run_is_single_period = end == i && c == '.';
        while end < chars.len() && is_closer(chars[end].1) {
            end += 1;
        }
        // A boundary needs whitespace after it (this rules out URLs,
        // decimals and file names) and a next word that is not lower-case.
        let Some(&(ws_pos, ws)) = chars.get(end) else {
            break;
        };
        if !ws.is_whitespace() {
            i = end.max(i);
            continue;
        }
        let next = chars[end..].iter().find(|(_, ch)| !ch.is_whitespace());
        let Some(&(_, next_c)) = next else {
            break;
        };
        let lower_next = next_c.is_lowercase() || matches!(next_c, ',' | ';' | ':');
        if lower_next || (run_is_single_period && period_is_inside_word(line, pos)) {
            i = end;
            continue;
        }
        out.push(offset + start..offset + ws_pos);
        start = ws_pos;
        i = end;
    }
    if start < line.len() {
        out.push(offset + start..offset + line.len());
    }
}
