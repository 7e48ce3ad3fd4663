//! Suite sections in tests: a report of just cells and sections, and
//! reading tables out of a JSON report (a table by suite and id, a column by
//! id and scorer, a cell as text, number or estimate).

use adfarm_proto::report::{CellRow, Estimate, Report, Section, Table, Value};
use std::collections::BTreeMap;

/// A report of sweep `name` with `cells` and `sections` and nothing else.
pub fn report_of(name: &str, cells: Vec<CellRow>, sections: Vec<Section>) -> Report {
    Report {
        format_version: adfarm_proto::FORMAT_VERSION,
        sweep: name.into(),
        sweep_id: "0123".into(),
        jobs: BTreeMap::new(),
        cells,
        usage: vec![],
        cost_by_role: BTreeMap::new(),
        cost_usd: 0.0,
        budget_usd: None,
        stopped_by_budget: false,
        estimated_cost_usd: 0.0,
        billed: vec![],
        billed_since_unix: None,
        dead_letters: vec![],
        sections,
    }
}

/// Table `id` of suite `suite`'s sections.
pub fn table<'a>(r: &'a Report, suite: &str, id: &str) -> &'a Table {
    r.sections
        .iter()
        .filter(|s| s.suite == suite)
        .flat_map(|s| &s.tables)
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("no {suite} table {id} in {:?}", r.sections))
}

/// The column of `t` with id `id` (and scorer `scorer`, when given).
pub fn col(t: &Table, id: &str, scorer: Option<&str>) -> usize {
    t.columns
        .iter()
        .position(|c| c.id == id && (scorer.is_none() || c.scorer.as_deref() == scorer))
        .unwrap_or_else(|| panic!("no column {id} {scorer:?} in {}", t.id))
}

/// The scorers of `t`'s columns, in order, each once.
pub fn scorers(t: &Table) -> Vec<&str> {
    let mut out: Vec<&str> = t
        .columns
        .iter()
        .filter_map(|c| c.scorer.as_deref())
        .collect();
    out.dedup();
    out
}

/// A text cell.
pub fn text(v: &Option<Value>) -> String {
    match v {
        Some(Value::Text(s)) => s.clone(),
        other => panic!("not text: {other:?}"),
    }
}

/// A number or count cell; `None` when missing.
pub fn number(v: &Option<Value>) -> Option<f64> {
    match v {
        Some(Value::Number(x)) => Some(*x),
        Some(Value::Integer(i)) => Some(*i as f64),
        _ => None,
    }
}

/// An estimate cell.
pub fn estimate(v: &Option<Value>) -> &Estimate {
    match v {
        Some(Value::Estimate(e)) => e,
        other => panic!("not an estimate: {other:?}"),
    }
}

/// An estimate cell's mean; `None` when the cell or its mean is missing.
pub fn mean(v: &Option<Value>) -> Option<f64> {
    match v {
        Some(Value::Estimate(e)) => e.mean,
        _ => None,
    }
}
