//! Type rules: which operators apply to which field types, and how a
//! literal becomes a typed [`Value`] of its field (or which error it is).
//!
//! Operators: `=`, `!=`, IN and NOT IN fit every single-valued type; `<`,
//! `<=`, `>`, `>=` numbers, dates and strings; LIKE and REGEXP_MATCH
//! strings; BETWEEN numbers
//! and dates; DURING dates; CONTAINS ANY/ALL/NONE repeated fields only;
//! IS NULL and IS NOT NULL anything.

use super::ast::{Literal, LiteralKind, Operator};
use super::catalog::{DataType, FieldSpec};
use super::date_range::Period;
use super::value::Value;
use crate::api::error::{GoogleAdsError, QueryError};
use crate::market::Date;

/// Checks that `op` (at character `offset` of `text`) applies to `field`.
///
/// # Errors
/// OPERATOR_FIELD_MISMATCH at the operator.
pub fn check_operator(
    text: &str,
    field: &FieldSpec,
    op: Operator,
    offset: usize,
) -> Result<(), GoogleAdsError> {
    use DataType as T;
    use Operator as O;
    let t = field.data_type;
    let fits = match op {
        O::IsNull | O::IsNotNull => true,
        O::ContainsAny | O::ContainsAll | O::ContainsNone => field.repeated,
        _ if field.repeated => false,
        O::Eq | O::Ne | O::In | O::NotIn => true,
        O::Lt | O::Le | O::Gt | O::Ge => {
            matches!(t, T::Int64 | T::Double | T::Date | T::String)
        }
        O::Like | O::NotLike | O::RegexpMatch | O::NotRegexpMatch => t == T::String,
        O::Between => matches!(t, T::Int64 | T::Double | T::Date),
        O::During => t == T::Date,
    };
    if fits {
        return Ok(());
    }
    Err(GoogleAdsError::query(
        QueryError::OperatorFieldMismatch,
        text,
        offset,
        op.text(),
        format!("{} cannot be applied to {}.", op.text(), field.name),
    ))
}

/// The literal `lit` of query `text` as a value of `field`'s type, for
/// operator `op` (BETWEEN on dates has its own error code).
///
/// # Errors
/// BAD_VALUE, BAD_NUMBER, INVALID_STRING_VALUE, BAD_ENUM_CONSTANT,
/// INVALID_DATE_FORMAT or INVALID_VALUE_WITH_BETWEEN_OPERATOR, at the literal.
pub fn literal_value(
    text: &str,
    field: &FieldSpec,
    lit: &Literal,
    op: Operator,
) -> Result<Value, GoogleAdsError> {
    let fail = |code: QueryError, why: String| {
        Err(GoogleAdsError::query(
            code,
            text,
            lit.offset,
            lit.text.clone(),
            why,
        ))
    };
    match (field.data_type, &lit.kind) {
        (DataType::Int64, LiteralKind::Number) => match lit.text.parse::<i64>() {
            Ok(n) => Ok(Value::Int64(n)),
            Err(_) if lit.text.contains('.') => fail(
                QueryError::BadValue,
                format!("{} is an integer field.", field.name),
            ),
            Err(_) => fail(
                QueryError::BadNumber,
                format!("{} does not fit INT64.", lit.text),
            ),
        },
        (DataType::Double, LiteralKind::Number) => match lit.text.parse::<f64>() {
            Ok(x) => Ok(Value::Double(x)),
            Err(_) => fail(
                QueryError::BadNumber,
                format!("{} is not a number.", lit.text),
            ),
        },
        (DataType::Int64 | DataType::Double, _) => fail(
            QueryError::BadValue,
            format!("{} is numeric: compare it with a number.", field.name),
        ),
        (DataType::String, LiteralKind::Str(s)) => Ok(Value::String(s.clone())),
        (DataType::ResourceName, LiteralKind::Str(s)) => Ok(Value::ResourceName(s.clone())),
        (DataType::String | DataType::ResourceName, _) => fail(
            QueryError::InvalidStringValue,
            format!("{} takes a quoted string.", field.name),
        ),
        (DataType::Enum(constants), LiteralKind::Word | LiteralKind::Str(_)) => {
            let name = match &lit.kind {
                LiteralKind::Str(s) => s.as_str(),
                _ => lit.text.as_str(),
            };
            if constants.contains(&name) {
                Ok(Value::Enum(name.to_string()))
            } else {
                fail(
                    QueryError::BadEnumConstant,
                    format!(
                        "'{name}' is not one of {}: {}.",
                        field.name,
                        constants.join(", ")
                    ),
                )
            }
        }
        (DataType::Enum(_), LiteralKind::Number) => fail(
            QueryError::BadEnumConstant,
            format!("{} takes an enum constant.", field.name),
        ),
        (DataType::Bool, LiteralKind::Word) if lit.text.eq_ignore_ascii_case("true") => {
            Ok(Value::Bool(true))
        }
        (DataType::Bool, LiteralKind::Word) if lit.text.eq_ignore_ascii_case("false") => {
            Ok(Value::Bool(false))
        }
        (DataType::Bool, _) => fail(
            QueryError::BadValue,
            format!("{} takes TRUE or FALSE.", field.name),
        ),
        (DataType::Date, kind) => {
            let parsed = match kind {
                LiteralKind::Str(s) => Date::parse_google(s),
                _ => None,
            };
            let period = Period::of_segment(field.name);
            match parsed {
                Some(d) if period.is_some_and(|p| p.start(d) != d) => fail(
                    QueryError::MisalignedDateForFilter,
                    format!("{} takes the first day of a period.", field.name),
                ),
                Some(d) => Ok(Value::Date(d)),
                None if op == Operator::Between => fail(
                    QueryError::InvalidValueWithBetweenOperator,
                    format!(
                        "BETWEEN on {} takes dates such as '2024-01-31'.",
                        field.name
                    ),
                ),
                None => fail(
                    QueryError::InvalidDateFormat,
                    "Dates are written 'YYYY-MM-DD'.".to_string(),
                ),
            }
        }
    }
}
