//! Semantic checks: a parsed [`Query`] against the [catalog](super::catalog),
//! giving a [`Plan`] the engine can run. Google's rules that matter here:
//!
//! - every field must exist (UNRECOGNIZED_FIELD) and, if it is a resource's
//!   attribute, belong to the FROM resource or one above it
//!   (PROHIBITED_RESOURCE_TYPE_IN_SELECT/WHERE_CLAUSE); metrics and
//!   segments go with any FROM resource of the subset;
//! - a segment in WHERE or ORDER BY must be selected
//!   (EXPECTED_REFERENCED_FIELD_IN_SELECT_CLAUSE), except a core date
//!   segment (`segments.date`, `.week`, `.month`, `.quarter`, `.year`) in
//!   WHERE: it may filter without being selected; but if one is selected,
//!   WHERE must bound the dates on both sides (EXPECTED_FILTERS_ON_DATE_RANGE);
//!   week, month and quarter filters name a period's first day
//!   (MISALIGNED_DATE_FOR_FILTER);
//! - each operator applies to some types only (OPERATOR_FIELD_MISMATCH), and
//!   each value must fit its field's type (BAD_ENUM_CONSTANT,
//!   INVALID_DATE_FORMAT, INVALID_STRING_VALUE ...);
//! - date conditions that leave no day are DATE_RANGE_TOO_NARROW.
//!
//! Checks run clause by clause (FROM, SELECT, WHERE, ORDER BY, PARAMETERS),
//! so the first error reported is the leftmost one of its clause.

use super::ast::{Literal, LiteralKind, Operand, Operator, Query, Spanned};
use super::catalog::{lookup, Category, FieldSpec, Resource};
use super::date_range::{during, DateSpan, Period};
use super::pattern::{LikePattern, RegexPattern};
use super::typing::{check_operator, literal_value};
use super::value::Value;
use crate::api::error::{GoogleAdsError, QueryError};
use crate::market::Date;

/// A validated query, ready to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The FROM resource.
    pub resource: Resource,
    /// The selected fields, in order.
    pub select: Vec<&'static FieldSpec>,
    /// The conditions.
    pub predicates: Vec<Predicate>,
    /// ORDER BY: field and whether descending.
    pub order_by: Vec<(&'static FieldSpec, bool)>,
    /// LIMIT.
    pub limit: Option<u64>,
    /// The days the date conditions leave (the stats to fetch).
    pub dates: DateSpan,
    /// PARAMETERS omit_unselected_resource_names.
    pub omit_unselected_resource_names: bool,
}

/// One condition, with its values typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Predicate {
    /// The filtered field.
    pub field: &'static FieldSpec,
    /// The test on its value.
    pub test: Test,
}

/// What a condition tests.
#[derive(Debug, Clone, PartialEq)]
pub enum Test {
    /// `=`, `!=`, `<`, `<=`, `>`, `>=` against a value.
    Compare(Operator, Value),
    /// `IN`.
    In(Vec<Value>),
    /// `NOT IN`.
    NotIn(Vec<Value>),
    /// `LIKE`.
    Like(LikePattern),
    /// `NOT LIKE`.
    NotLike(LikePattern),
    /// `REGEXP_MATCH`.
    Regexp(RegexPattern),
    /// `NOT REGEXP_MATCH`.
    NotRegexp(RegexPattern),
    /// `BETWEEN` (inclusive).
    Between(Value, Value),
    /// `IS NULL`.
    IsNull,
    /// `IS NOT NULL`.
    IsNotNull,
    /// `CONTAINS ANY`.
    ContainsAny(Vec<Value>),
    /// `CONTAINS ALL`.
    ContainsAll(Vec<Value>),
    /// `CONTAINS NONE`.
    ContainsNone(Vec<Value>),
    /// `DURING`, resolved to its days.
    During(DateSpan),
}

/// Which clause a field appears in, for the error codes that differ.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Clause {
    Select,
    Where,
    OrderBy,
}

/// Checks `query` (whose text is `text`) and plans it; DURING resolves
/// against `today`.
///
/// # Errors
/// The first rule the query breaks, as a `QueryError` at the offending
/// field, operator or value.
pub fn plan(query: &Query, text: &str, today: Date) -> Result<Plan, GoogleAdsError> {
    let v = Validator { text };
    let resource = Resource::from_name(&query.from.text).ok_or_else(|| {
        v.error(
            QueryError::BadResourceTypeInFromClause,
            &query.from,
            format!("'{}' is not a resource this API serves.", query.from.text),
        )
    })?;
    let select = query
        .select
        .iter()
        .map(|f| v.resolve(f, resource, Clause::Select))
        .collect::<Result<Vec<_>, _>>()?;
    let selected = |spec: &FieldSpec| select.iter().any(|s| s.name == spec.name);

    let mut predicates = Vec::new();
    let mut dates = DateSpan::ALL;
    for c in &query.conditions {
        let field = v.resolve(&c.field, resource, Clause::Where)?;
        if field.category == Category::Segment && !field.is_core_date_segment() && !selected(field)
        {
            return Err(v.error(
                QueryError::ExpectedReferencedFieldInSelectClause,
                &c.field,
                format!("{} is filtered, so it must also be selected.", field.name),
            ));
        }
        check_operator(text, field, c.operator, c.operator_offset)?;
        let test = v.test(field, c.operator, &c.operand, today)?;
        if let Some(period) = Period::of_segment(field.name) {
            let span = condition_span(&test, period);
            let narrowed = dates.intersect(&span);
            if narrowed.is_empty() {
                return Err(v.error(
                    QueryError::DateRangeTooNarrow,
                    &c.field,
                    "The date conditions leave no day: the start is after the end.",
                ));
            }
            dates = narrowed;
        }
        predicates.push(Predicate { field, test });
    }

    let mut order_by = Vec::new();
    for o in &query.order_by {
        let field = v.resolve(&o.field, resource, Clause::OrderBy)?;
        if field.category == Category::Segment && !selected(field) {
            return Err(v.error(
                QueryError::ExpectedReferencedFieldInSelectClause,
                &o.field,
                format!(
                    "{} is in ORDER BY, so it must also be selected.",
                    field.name
                ),
            ));
        }
        order_by.push((field, o.descending));
    }

    if let Some((spec, at)) = select
        .iter()
        .zip(&query.select)
        .find(|(s, _)| s.is_core_date_segment())
    {
        if !dates.is_finite() {
            return Err(v.error(
                QueryError::ExpectedFiltersOnDateRange,
                at,
                format!(
                    "{} is selected, so WHERE must give it a finite date range \
                     (DURING, BETWEEN, or both a lower and an upper bound).",
                    spec.name
                ),
            ));
        }
    }

    let mut omit_unselected_resource_names = false;
    for p in &query.parameters {
        let name = p.name.text.as_str();
        if name != "omit_unselected_resource_names" && name != "include_drafts" {
            return Err(v.error(
                QueryError::BadParameterName,
                &p.name,
                format!("'{name}' is not a query parameter."),
            ));
        }
        let flag = match p.value.text.to_ascii_lowercase().as_str() {
            "true" if p.value.kind == LiteralKind::Word => true,
            "false" if p.value.kind == LiteralKind::Word => false,
            _ => {
                return Err(v.error_at_literal(
                    QueryError::BadParameterValue,
                    &p.value,
                    "PARAMETERS values are true or false.",
                ))
            }
        };
        // The simulated account has no drafts, so include_drafts changes nothing.
        if name == "omit_unselected_resource_names" {
            omit_unselected_resource_names = flag;
        }
    }

    Ok(Plan {
        resource,
        select,
        predicates,
        order_by,
        limit: query.limit,
        dates,
        omit_unselected_resource_names,
    })
}

/// The days a condition on a core date segment can keep: the span of the
/// period names it allows (a year as its January 1st), stretched to the
/// end of the last period.
fn condition_span(test: &Test, period: Period) -> DateSpan {
    let day = |v: &Value| match v {
        Value::Date(d) => Some(*d),
        Value::Int64(year) => i32::try_from(*year)
            .ok()
            .and_then(|y| Date::new(y, 1, 1).ok()),
        _ => None,
    };
    let names = match test {
        Test::During(span) => *span,
        Test::Between(a, b) => DateSpan {
            start: day(a),
            end: day(b),
        },
        Test::Compare(op, v) => {
            let d = day(v);
            match op {
                Operator::Eq => DateSpan { start: d, end: d },
                Operator::Ge => DateSpan {
                    start: d,
                    end: None,
                },
                Operator::Gt => DateSpan {
                    start: d.map(|d| d.plus_days(1)),
                    end: None,
                },
                Operator::Le => DateSpan {
                    start: None,
                    end: d,
                },
                Operator::Lt => DateSpan {
                    start: None,
                    end: d.map(|d| d.plus_days(-1)),
                },
                _ => DateSpan::ALL,
            }
        }
        Test::In(values) => DateSpan {
            start: values.iter().filter_map(day).min(),
            end: values.iter().filter_map(day).max(),
        },
        _ => DateSpan::ALL,
    };
    DateSpan {
        start: names.start,
        end: names.end.map(|e| period.end(e)),
    }
}

struct Validator<'q> {
    text: &'q str,
}

impl Validator<'_> {
    fn error(&self, code: QueryError, at: &Spanned, message: impl Into<String>) -> GoogleAdsError {
        GoogleAdsError::query(code, self.text, at.offset, at.text.clone(), message)
    }

    fn error_at_literal(
        &self,
        code: QueryError,
        at: &Literal,
        message: impl Into<String>,
    ) -> GoogleAdsError {
        GoogleAdsError::query(code, self.text, at.offset, at.text.clone(), message)
    }

    fn resolve(
        &self,
        name: &Spanned,
        from: Resource,
        clause: Clause,
    ) -> Result<&'static FieldSpec, GoogleAdsError> {
        let spec = lookup(&name.text).ok_or_else(|| {
            self.error(
                QueryError::UnrecognizedField,
                name,
                format!("Unrecognized field in the query: '{}'.", name.text),
            )
        })?;
        if matches!(spec.category, Category::Metric | Category::Segment) && !from.has_metrics() {
            return Err(self.error(
                QueryError::ProhibitedMetricInSelectOrWhereClause,
                name,
                format!(
                    "{} cannot be used with FROM {from}, which has no metrics or \
                     segments here; query them FROM ad_group.",
                    spec.name
                ),
            ));
        }
        if spec.name == "segments.hour" && !from.has_hours() {
            return Err(self.error(
                QueryError::ProhibitedSegmentInSelectOrWhereClause,
                name,
                format!("segments.hour cannot be used with FROM {from}: it is kept per day."),
            ));
        }
        if let Category::Attribute(owner) = spec.category {
            if !from.attributed().contains(&owner) {
                let code = match clause {
                    Clause::Select => QueryError::ProhibitedResourceTypeInSelectClause,
                    Clause::Where => QueryError::ProhibitedResourceTypeInWhereClause,
                    Clause::OrderBy => QueryError::ProhibitedFieldInOrderByClause,
                };
                return Err(self.error(
                    code,
                    name,
                    format!(
                        "{} belongs to {owner}, which cannot be used with FROM {from}.",
                        spec.name
                    ),
                ));
            }
        }
        let (allowed, code, verb) = match clause {
            Clause::Select => (
                spec.selectable,
                QueryError::ProhibitedFieldInSelectClause,
                "selected",
            ),
            Clause::Where => (
                spec.filterable,
                QueryError::ProhibitedFieldInWhereClause,
                "filtered",
            ),
            Clause::OrderBy => (
                spec.sortable,
                QueryError::ProhibitedFieldInOrderByClause,
                "sorted",
            ),
        };
        if !allowed {
            return Err(self.error(code, name, format!("{} cannot be {verb}.", spec.name)));
        }
        Ok(spec)
    }

    fn test(
        &self,
        field: &FieldSpec,
        op: Operator,
        operand: &Operand,
        today: Date,
    ) -> Result<Test, GoogleAdsError> {
        let list = |items: &[Literal]| {
            items
                .iter()
                .map(|l| literal_value(self.text, field, l, op))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(match (op, operand) {
            (Operator::IsNull, _) => Test::IsNull,
            (Operator::IsNotNull, _) => Test::IsNotNull,
            (Operator::In, Operand::List(items)) => Test::In(list(items)?),
            (Operator::NotIn, Operand::List(items)) => Test::NotIn(list(items)?),
            (Operator::ContainsAny, Operand::List(items)) => Test::ContainsAny(list(items)?),
            (Operator::ContainsAll, Operand::List(items)) => Test::ContainsAll(list(items)?),
            (Operator::ContainsNone, Operand::List(items)) => Test::ContainsNone(list(items)?),
            (Operator::Between, Operand::Range(low, high)) => Test::Between(
                literal_value(self.text, field, low, op)?,
                literal_value(self.text, field, high, op)?,
            ),
            (Operator::During, Operand::Single(lit)) => {
                Test::During(during(&lit.text, today).ok_or_else(|| {
                    self.error_at_literal(
                        QueryError::InvalidValueWithDuringOperator,
                        lit,
                        format!("'{}' is not a predefined date range.", lit.text),
                    )
                })?)
            }
            (Operator::Like | Operator::NotLike, Operand::Single(lit)) => {
                let LiteralKind::Str(pattern) = &lit.kind else {
                    return Err(self.error_at_literal(
                        QueryError::InvalidValueWithLikeOperator,
                        lit,
                        "LIKE takes a quoted pattern.",
                    ));
                };
                let pattern = LikePattern::new(pattern);
                if op == Operator::Like {
                    Test::Like(pattern)
                } else {
                    Test::NotLike(pattern)
                }
            }
            (Operator::RegexpMatch | Operator::NotRegexpMatch, Operand::Single(lit)) => {
                let LiteralKind::Str(source) = &lit.kind else {
                    return Err(self.error_at_literal(
                        QueryError::InvalidStringValue,
                        lit,
                        "REGEXP_MATCH takes a quoted expression.",
                    ));
                };
                let pattern = RegexPattern::new(source).map_err(|why| {
                    self.error_at_literal(
                        QueryError::BadValue,
                        lit,
                        format!("Not a valid RE2 expression: {why}"),
                    )
                })?;
                if op == Operator::RegexpMatch {
                    Test::Regexp(pattern)
                } else {
                    Test::NotRegexp(pattern)
                }
            }
            (_, Operand::Single(lit)) => {
                Test::Compare(op, literal_value(self.text, field, lit, op)?)
            }
            // The parser pairs each operator with its operand shape.
            (_, other) => unreachable!("operator {op:?} parsed with operand {other:?}"),
        })
    }
}
