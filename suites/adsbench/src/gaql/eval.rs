//! The engine: runs a [`Plan`] over a [`RowSource`].
//!
//! For each entity of the FROM resource that passes the attribute
//! conditions, its hourly stats on the planned days are filtered by the
//! segment conditions, grouped by the selected segments and summed; ratios
//! are derived from each group's sums, then metric conditions, ORDER BY and
//! LIMIT apply. Without a selected segment each entity gives exactly one row
//! (zero metrics included); with one, only groups that have stats do.
//! Rows are first in the source's entity order and ascending segment order;
//! ORDER BY sorts stably on top, so ties keep that order and a query gives
//! the same rows in the same order every time.

use super::ast::Operator;
use super::catalog::{Category, FieldSpec, Resource, DAY_OF_WEEK};
use super::date_range::Period;
use super::source::{Counts, RowSource, StatCell};
use super::validate::{Plan, Predicate, Test};
use super::value::Value;
use crate::market::Date;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// One result row: the selected values in SELECT order.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRow {
    /// The FROM resource's resource name, which Google returns even when it
    /// is not selected (unless PARAMETERS omit_unselected_resource_names = true).
    pub resource_name: Option<String>,
    /// The values, one per selected field.
    pub values: Vec<Value>,
}

/// Runs `plan` over `source`.
pub fn execute(plan: &Plan, source: &dyn RowSource) -> Vec<ResultRow> {
    let (mut attribute_tests, mut segment_tests, mut metric_tests) = (vec![], vec![], vec![]);
    for p in &plan.predicates {
        match p.field.category {
            Category::Attribute(_) => attribute_tests.push(p),
            Category::Segment => segment_tests.push(p),
            Category::Metric => metric_tests.push(p),
        }
    }
    let segments: Vec<&FieldSpec> = dedup(
        plan.select
            .iter()
            .copied()
            .filter(|f| f.category == Category::Segment),
    );
    let needs_stats = !segments.is_empty()
        || plan
            .select
            .iter()
            .chain(plan.order_by.iter().map(|(f, _)| f))
            .any(|f| f.category == Category::Metric)
        || !metric_tests.is_empty();

    let attributes: Vec<&'static str> = dedup(
        plan.select
            .iter()
            .copied()
            .chain(plan.predicates.iter().map(|p| p.field))
            .chain(plan.order_by.iter().map(|(f, _)| *f))
            .filter(|f| matches!(f.category, Category::Attribute(_))),
    )
    .iter()
    .map(|f| f.name)
    .collect();

    let mut rows: Vec<(ResultRow, Vec<Value>)> = Vec::new();
    let served_as = plan.resource.served_as();
    for mut entity in source.entities(served_as, &attributes) {
        // Stats are the served resource's; a view only renames its rows.
        let stats_name = entity.resource_name.clone();
        if plan.resource == Resource::KeywordView {
            entity.resource_name = stats_name.replacen("/adGroupCriteria/", "/keywordViews/", 1);
            let name = Value::ResourceName(entity.resource_name.clone());
            entity.attributes.insert("keyword_view.resource_name", name);
        }
        if !attribute_tests
            .iter()
            .all(|p| p.matches(&entity.get(p.field.name)))
        {
            continue;
        }
        // Group keys are segment values in SELECT order; a BTreeMap keeps
        // the groups in ascending segment order.
        let mut groups: BTreeMap<Vec<i64>, Counts> = BTreeMap::new();
        if segments.is_empty() {
            groups.insert(Vec::new(), Counts::default());
        }
        if needs_stats {
            for cell in source.stats(served_as, &stats_name, plan.dates) {
                if !plan.dates.contains(cell.date)
                    || !segment_tests
                        .iter()
                        .all(|p| p.matches(&segment_value(p.field, &cell)))
                {
                    continue;
                }
                let key = segments.iter().map(|f| segment_key(f, &cell)).collect();
                *groups.entry(key).or_default() += cell.counts;
            }
        }
        for (key, counts) in groups {
            let value_of = |f: &FieldSpec| match f.category {
                Category::Attribute(_) => entity.get(f.name),
                Category::Metric => counts.metric(f.name).unwrap_or(Value::Null),
                Category::Segment => segments
                    .iter()
                    .position(|s| s.name == f.name)
                    .map_or(Value::Null, |i| key_value(f, key[i])),
            };
            if !metric_tests.iter().all(|p| p.matches(&value_of(p.field))) {
                continue;
            }
            let sort_keys = plan.order_by.iter().map(|(f, _)| value_of(f)).collect();
            let row = ResultRow {
                resource_name: (!plan.omit_unselected_resource_names)
                    .then(|| entity.resource_name.clone()),
                values: plan.select.iter().map(|f| value_of(f)).collect(),
            };
            rows.push((row, sort_keys));
        }
    }
    rows.sort_by(|(_, a), (_, b)| {
        for (i, (_, descending)) in plan.order_by.iter().enumerate() {
            let o = a[i].total_cmp(&b[i]);
            let o = if *descending { o.reverse() } else { o };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
    let limit = plan
        .limit
        .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
    rows.into_iter().take(limit).map(|(row, _)| row).collect()
}

fn dedup(fields: impl Iterator<Item = &'static FieldSpec>) -> Vec<&'static FieldSpec> {
    let mut out: Vec<&'static FieldSpec> = Vec::new();
    for f in fields {
        if !out.iter().any(|g| g.name == f.name) {
            out.push(f);
        }
    }
    out
}

/// A segment of a stat cell as an orderable integer.
fn segment_key(field: &FieldSpec, cell: &StatCell) -> i64 {
    match (field.name, Period::of_segment(field.name)) {
        (_, Some(Period::Year)) => i64::from(cell.date.year),
        (_, Some(period)) => period.start(cell.date).days_since_epoch(),
        ("segments.hour", None) => i64::from(cell.hour),
        _ => cell.date.weekday().index() as i64,
    }
}

fn key_value(field: &FieldSpec, key: i64) -> Value {
    match (field.name, Period::of_segment(field.name)) {
        (_, Some(Period::Year)) | ("segments.hour", None) => Value::Int64(key),
        (_, Some(_)) => Value::Date(Date::from_days_since_epoch(key)),
        _ => Value::Enum(DAY_OF_WEEK[key as usize].to_string()),
    }
}

fn segment_value(field: &FieldSpec, cell: &StatCell) -> Value {
    key_value(field, segment_key(field, cell))
}

impl Predicate {
    /// Whether a field holding `v` passes. A comparison with null is false
    /// (only IS NULL holds), as in SQL.
    pub fn matches(&self, v: &Value) -> bool {
        let eq = |a: &Value, b: &Value| a.total_cmp(b) == Ordering::Equal;
        let items = |v: &Value| match v {
            Value::List(items) => items.clone(),
            Value::Null => Vec::new(),
            other => vec![other.clone()],
        };
        match &self.test {
            Test::IsNull => matches!(v, Value::Null),
            Test::IsNotNull => !matches!(v, Value::Null),
            Test::ContainsAny(want) => items(v).iter().any(|x| want.iter().any(|w| eq(x, w))),
            Test::ContainsAll(want) => want.iter().all(|w| items(v).iter().any(|x| eq(x, w))),
            Test::ContainsNone(want) => !items(v).iter().any(|x| want.iter().any(|w| eq(x, w))),
            _ if matches!(v, Value::Null) => false,
            Test::Compare(op, w) => {
                let o = v.total_cmp(w);
                match op {
                    Operator::Eq => o == Ordering::Equal,
                    Operator::Ne => o != Ordering::Equal,
                    Operator::Lt => o == Ordering::Less,
                    Operator::Le => o != Ordering::Greater,
                    Operator::Gt => o == Ordering::Greater,
                    Operator::Ge => o != Ordering::Less,
                    _ => false,
                }
            }
            Test::In(list) => list.iter().any(|w| eq(v, w)),
            Test::NotIn(list) => !list.iter().any(|w| eq(v, w)),
            Test::Like(p) => v.as_text().is_some_and(|t| p.matches(t)),
            Test::NotLike(p) => v.as_text().is_some_and(|t| !p.matches(t)),
            Test::Regexp(p) => v.as_text().is_some_and(|t| p.matches(t)),
            Test::NotRegexp(p) => v.as_text().is_some_and(|t| !p.matches(t)),
            Test::Between(lo, hi) => {
                v.total_cmp(lo) != Ordering::Less && v.total_cmp(hi) != Ordering::Greater
            }
            Test::During(span) => matches!(v, Value::Date(d) if span.contains(*d)),
        }
    }
}
