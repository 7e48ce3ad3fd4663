//! The report as CSV: the cells table, then (when suites added sections) a
//! blank line and every value of their tables in long form, one line per
//! value: `suite,section,dataset,solution,judge,column,value`.
//!
//! A value's dataset and solution are its row's key cells, its judge the
//! scorer the proto's `Column::scorer` rule gives (`-` for none), its
//! column the column's id. A section's tables may show one value twice (a
//! summary table repeats a figure of a detail table); the long form lists
//! each (dataset, solution, judge, column) of a section once.

use super::cell::raw;
use adfarm_proto::report::{Key, Report, Section, Table, Value};
use std::collections::HashSet;
use std::fmt::Write;

/// Quotes a CSV field when it needs it.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The whole report as CSV.
pub fn render(r: &Report) -> String {
    let mut out = String::from("suite,dataset,solution,judge,metric,n,unscored,mean,std,ci95\n");
    for c in &r.cells {
        let unscored: i64 = c.unscored.values().sum();
        let f = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{}",
            field(&c.suite),
            field(&c.dataset),
            field(&c.solution),
            field(&c.judge),
            field(&c.metric),
            c.n,
            unscored,
            f(c.mean),
            f(c.std),
            f(c.ci95)
        );
    }
    if !r.sections.is_empty() {
        out.push_str("\nsuite,section,dataset,solution,judge,column,value\n");
        for s in &r.sections {
            section(&mut out, s);
        }
    }
    out
}

/// The long-form lines of one section.
fn section(out: &mut String, s: &Section) {
    let mut seen: HashSet<[String; 4]> = HashSet::new();
    for t in &s.tables {
        for row in &t.rows {
            let cell = |i: usize| row.get(i).and_then(Option::as_ref);
            let keys = |k: Key| -> Vec<String> {
                t.columns
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.key == Some(k))
                    .filter_map(|(i, _)| cell(i).map(raw))
                    .collect()
            };
            let or_dash = |v: Vec<String>| v.into_iter().next().unwrap_or_else(|| "-".into());
            let dataset = or_dash(keys(Key::Dataset));
            let solution = or_dash(keys(Key::Solution));
            let pair = keys(Key::Scorer);
            let row_scorer = (!pair.is_empty()).then(|| pair.join("~"));
            for (i, c) in t.columns.iter().enumerate() {
                let (None, Some(v)) = (c.key, cell(i)) else {
                    continue;
                };
                let scorer = scorer_of(t, c.scorer.as_ref(), row_scorer.as_ref());
                let at = [dataset.clone(), solution.clone(), scorer, c.id.clone()];
                if seen.insert(at.clone()) {
                    line(out, s, &at, v);
                }
            }
        }
    }
}

/// A value's scorer: its column's, else its row's scorer keys, else its
/// table's, else `-`.
fn scorer_of(t: &Table, column: Option<&String>, row: Option<&String>) -> String {
    column
        .or(row)
        .or(t.scorer.as_ref())
        .cloned()
        .unwrap_or_else(|| "-".into())
}

fn line(out: &mut String, s: &Section, at: &[String; 4], v: &Value) {
    let _ = write!(out, "{},{}", field(&s.suite), field(&s.id));
    for f in at {
        let _ = write!(out, ",{}", field(f));
    }
    let _ = writeln!(out, ",{}", field(&raw(v)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::report;

    #[test]
    fn every_section_value_is_one_line_at_its_coordinates() {
        let csv = render(&report());
        let want = "\nsuite,section,dataset,solution,judge,column,value\n\
            demo,tiers,L1,agent<x>,s1,overall,75\n\
            demo,tiers,L1,\"b,c\",s1,overall,20.5\n\
            demo,tiers,L1,\"b,c\",s2,overall,1\n\
            demo,tiers,L1,agent<x>,s1,pass-at-1,60\n\
            demo,tiers,L1,agent<x>,s1,coverage,0.4567\n\
            demo,tiers,L1,agent<x>,s1,usd,0.0001234\n\
            demo,tiers,L1,agent<x>,s1,runs,10\n\
            demo,tiers,-,-,s1~s2,kappa,0.5\n";
        assert!(csv.ends_with(want), "{csv}");
        assert!(csv.starts_with(
            "suite,dataset,solution,judge,metric,n,unscored,mean,std,ci95\n\
             demo,L1,agent<x>,-,pass-at-1,10,2,60,1,0.5\n"
        ));
    }

    #[test]
    fn without_sections_there_is_only_the_cells_table() {
        let mut r = report();
        r.sections.clear();
        let csv = render(&r);
        assert_eq!(csv.lines().count(), 2, "{csv}");
        assert_eq!(field("a,\"b\""), "\"a,\"\"b\"\"\"");
    }
}
