//! Errors in the shape of Google's `GoogleAdsFailure`: a list of
//! `GoogleAdsError`s, each with an error code (family and name, e.g.
//! `QueryError.BAD_FIELD_NAME`), a message, the trigger (the offending text)
//! and a location. Agents are scored on how they react to errors, so the
//! codes follow Google's enums by name; where Google gives only a field path
//! we also give the position in the query, which Google's message text
//! carries loosely and an agent needs to fix its query.

use serde::Serialize;
use std::fmt;

/// Declares a Google error enum whose constants print as Google spells them.
macro_rules! google_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $text:literal,)+ }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $text)] $variant,)+
        }
        impl $name {
            /// The constant's name in Google's enum.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)+ }
            }
        }
    };
}

google_enum! {
    /// `QueryErrorEnum.QueryError`: what is wrong with a GAQL query.
    QueryError {
        /// A condition references an enum constant the field does not have.
        BadEnumConstant => "BAD_ENUM_CONSTANT",
        /// A string holds an escape sequence GAQL does not know.
        BadEscapeSequence => "BAD_ESCAPE_SEQUENCE",
        /// A field name is malformed.
        BadFieldName => "BAD_FIELD_NAME",
        /// LIMIT is not a positive integer.
        BadLimitValue => "BAD_LIMIT_VALUE",
        /// A number cannot be parsed.
        BadNumber => "BAD_NUMBER",
        /// An operator is not one of GAQL's.
        BadOperator => "BAD_OPERATOR",
        /// A PARAMETERS name is unknown.
        BadParameterName => "BAD_PARAMETER_NAME",
        /// A PARAMETERS value is invalid.
        BadParameterValue => "BAD_PARAMETER_VALUE",
        /// The FROM resource does not exist.
        BadResourceTypeInFromClause => "BAD_RESOURCE_TYPE_IN_FROM_CLAUSE",
        /// A non-ASCII symbol outside a string.
        BadSymbol => "BAD_SYMBOL",
        /// A value does not fit its field.
        BadValue => "BAD_VALUE",
        /// A date range's start is after its end.
        DateRangeTooNarrow => "DATE_RANGE_TOO_NARROW",
        /// BETWEEN without AND.
        ExpectedAnd => "EXPECTED_AND",
        /// ORDER without BY.
        ExpectedBy => "EXPECTED_BY",
        /// A core date segment is selected without a finite date range.
        ExpectedFiltersOnDateRange => "EXPECTED_FILTERS_ON_DATE_RANGE",
        /// The FROM clause is missing.
        ExpectedFrom => "EXPECTED_FROM",
        /// The operator needs a list.
        ExpectedList => "EXPECTED_LIST",
        /// A field in WHERE or ORDER BY must also be selected.
        ExpectedReferencedFieldInSelectClause => "EXPECTED_REFERENCED_FIELD_IN_SELECT_CLAUSE",
        /// The query does not start with SELECT.
        ExpectedSelect => "EXPECTED_SELECT",
        /// A list was given where one value is expected.
        ExpectedSingleValue => "EXPECTED_SINGLE_VALUE",
        /// BETWEEN lacks one or both values.
        ExpectedValueWithBetweenOperator => "EXPECTED_VALUE_WITH_BETWEEN_OPERATOR",
        /// A date is not `YYYY-MM-DD` (or `YYYYMMDD`).
        InvalidDateFormat => "INVALID_DATE_FORMAT",
        /// A week, month or quarter filter's date is not the period's first day.
        MisalignedDateForFilter => "MISALIGNED_DATE_FOR_FILTER",
        /// A string was expected (a number or bare literal was given).
        InvalidStringValue => "INVALID_STRING_VALUE",
        /// A BETWEEN value on a date does not parse as a date.
        InvalidValueWithBetweenOperator => "INVALID_VALUE_WITH_BETWEEN_OPERATOR",
        /// DURING's value is not a predefined date range.
        InvalidValueWithDuringOperator => "INVALID_VALUE_WITH_DURING_OPERATOR",
        /// LIKE's value is not a string.
        InvalidValueWithLikeOperator => "INVALID_VALUE_WITH_LIKE_OPERATOR",
        /// The operator does not apply to the field.
        OperatorFieldMismatch => "OPERATOR_FIELD_MISMATCH",
        /// A condition has an empty list.
        ProhibitedEmptyListInCondition => "PROHIBITED_EMPTY_LIST_IN_CONDITION",
        /// A metric or segment with a FROM resource that has none.
        ProhibitedMetricInSelectOrWhereClause => "PROHIBITED_METRIC_IN_SELECT_OR_WHERE_CLAUSE",
        /// A segment the FROM resource cannot be split by.
        ProhibitedSegmentInSelectOrWhereClause => "PROHIBITED_SEGMENT_IN_SELECT_OR_WHERE_CLAUSE",
        /// A field that cannot be sorted is in ORDER BY.
        ProhibitedFieldInOrderByClause => "PROHIBITED_FIELD_IN_ORDER_BY_CLAUSE",
        /// A field that cannot be selected is in SELECT.
        ProhibitedFieldInSelectClause => "PROHIBITED_FIELD_IN_SELECT_CLAUSE",
        /// A field that cannot be filtered is in WHERE.
        ProhibitedFieldInWhereClause => "PROHIBITED_FIELD_IN_WHERE_CLAUSE",
        /// A field of a resource not reachable from the FROM resource is selected.
        ProhibitedResourceTypeInSelectClause => "PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE",
        /// A field of a resource not reachable from the FROM resource is filtered.
        ProhibitedResourceTypeInWhereClause => "PROHIBITED_RESOURCE_TYPE_IN_WHERE_CLAUSE",
        /// LIMIT is zero.
        LimitValueTooLow => "LIMIT_VALUE_TOO_LOW",
        /// A string holds a newline.
        ProhibitedNewlineInString => "PROHIBITED_NEWLINE_IN_STRING",
        /// A list mixes value types.
        ProhibitedValueCombinationInList => "PROHIBITED_VALUE_COMBINATION_IN_LIST",
        /// BETWEEN's two values have different types.
        ProhibitedValueCombinationWithBetweenOperator => "PROHIBITED_VALUE_COMBINATION_WITH_BETWEEN_OPERATOR",
        /// A string is not closed.
        StringNotTerminated => "STRING_NOT_TERMINATED",
        /// The query ends where more is needed.
        UnexpectedEndOfQuery => "UNEXPECTED_END_OF_QUERY",
        /// A well-formed field name that does not exist.
        UnrecognizedField => "UNRECOGNIZED_FIELD",
        /// Text where none belongs.
        UnexpectedInput => "UNEXPECTED_INPUT",
    }
}

google_enum! {
    /// `RequestErrorEnum.RequestError`: what is wrong with a request as a whole.
    RequestError {
        /// The page token is not one this service issued for this query.
        InvalidPageToken => "INVALID_PAGE_TOKEN",
        /// The page token has expired.
        ExpiredPageToken => "EXPIRED_PAGE_TOKEN",
        /// More than 10,000 operations in one mutate request.
        TooManyMutateOperations => "TOO_MANY_MUTATE_OPERATIONS",
        /// A mutate request without operations.
        OperationRequired => "OPERATION_REQUIRED",
        /// The resource named does not exist.
        ResourceNotFound => "RESOURCE_NOT_FOUND",
        /// A resource name is malformed.
        ResourceNameMalformed => "RESOURCE_NAME_MALFORMED",
        /// A required field is missing.
        RequiredFieldMissing => "REQUIRED_FIELD_MISSING",
        /// The field cannot be changed once set.
        ImmutableField => "IMMUTABLE_FIELD",
        /// An enum field was given a constant it does not have.
        InvalidEnumValue => "INVALID_ENUM_VALUE",
    }
}

google_enum! {
    /// `QuotaErrorEnum.QuotaError`: the request limits.
    QuotaError {
        /// The daily operation quota is spent; wait for midnight.
        ResourceExhausted => "RESOURCE_EXHAUSTED",
        /// Too many requests in a short time; retry after the delay.
        ResourceTemporarilyExhausted => "RESOURCE_TEMPORARILY_EXHAUSTED",
    }
}

/// An error code: Google's error family and constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `query_error`.
    QueryError(QueryError),
    /// `request_error`.
    RequestError(RequestError),
    /// `quota_error`.
    QuotaError(QuotaError),
    /// Any other family's error, written `Family.CONSTANT`: those the
    /// account model reports for one operation (for example
    /// `CampaignError.DUPLICATE_CAMPAIGN_NAME`, `RangeError.TOO_LOW`), which
    /// the model owns, and `AuthorizationError.USER_PERMISSION_DENIED`.
    Other(&'static str),
}

impl ErrorCode {
    /// The family as Google names it (`QueryError`, `QuotaError` ...).
    pub fn family(&self) -> &'static str {
        match self {
            ErrorCode::QueryError(_) => "QueryError",
            ErrorCode::RequestError(_) => "RequestError",
            ErrorCode::QuotaError(_) => "QuotaError",
            ErrorCode::Other(code) => code.split_once('.').map_or("", |(family, _)| family),
        }
    }

    /// The constant (`BAD_FIELD_NAME` ...): a bounded set, usable as a label.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorCode::QueryError(c) => c.name(),
            ErrorCode::RequestError(c) => c.name(),
            ErrorCode::QuotaError(c) => c.name(),
            ErrorCode::Other(code) => code.split_once('.').map_or(*code, |(_, name)| name),
        }
    }
}

/// Serialized as Google's JSON does: `{"query_error": "BAD_FIELD_NAME"}`,
/// the family in snake case.
impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut key = String::new();
        for (i, c) in self.family().chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                key.push('_');
            }
            key.push(c.to_ascii_lowercase());
        }
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(&key, self.name())?;
        map.end()
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.family(), self.name())
    }
}

/// Where in a GAQL query an error was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct QueryPosition {
    /// Characters (Unicode scalar values) before the trigger, from 0.
    pub offset: u32,
    /// Line of the trigger, from 1.
    pub line: u32,
    /// Column of the trigger on its line, in characters, from 1.
    pub column: u32,
}

impl QueryPosition {
    /// The position of the character `offset` of `query`.
    pub fn in_query(query: &str, offset: usize) -> QueryPosition {
        let mut line = 1;
        let mut column = 1;
        for c in query.chars().take(offset) {
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
        }
        // u32 keeps errors small; a query is far shorter than 4 G characters.
        let narrow = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        QueryPosition {
            offset: narrow(offset),
            line: narrow(line),
            column: narrow(column),
        }
    }
}

/// One step of the path to the offending request field, e.g.
/// `operations[3]` or `query`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldPathElement {
    /// The request field's name.
    pub field_name: String,
    /// The index, where the field is repeated.
    pub index: Option<usize>,
}

/// Where an error applies.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct ErrorLocation {
    /// The path to the request field (`query`, `operations[2].update.name`).
    pub field_path_elements: Vec<FieldPathElement>,
    /// The position in the query, for query errors.
    pub query_position: Option<QueryPosition>,
}

/// Which limit a quota error hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RateScope {
    /// Per customer account (the per-second token bucket).
    Account,
    /// Per developer token (the daily operations quota).
    Developer,
}

/// Google's `QuotaErrorDetails`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuotaErrorDetails {
    /// Which limit was hit.
    pub rate_scope: RateScope,
    /// A human description of the bucket.
    pub rate_name: String,
    /// How long to wait before the next request, in simulated milliseconds.
    pub retry_delay_millis: i64,
}

/// One error, as in Google's `GoogleAdsError`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GoogleAdsError {
    /// The code.
    pub error_code: ErrorCode,
    /// A sentence for a human (or an agent).
    pub message: String,
    /// The offending text or value, where there is one.
    pub trigger: Option<String>,
    /// Where it applies.
    pub location: ErrorLocation,
    /// Quota details, for quota errors (boxed: most errors have none, and
    /// a small error keeps every `Result` small).
    pub quota_details: Option<Box<QuotaErrorDetails>>,
}

impl GoogleAdsError {
    /// An error with a code and message and nothing else.
    pub fn new(error_code: ErrorCode, message: impl Into<String>) -> GoogleAdsError {
        GoogleAdsError {
            error_code,
            message: message.into(),
            trigger: None,
            location: ErrorLocation::default(),
            quota_details: None,
        }
    }

    /// A query error at character `offset` of `query`, triggered by `trigger`.
    pub fn query(
        code: QueryError,
        query: &str,
        offset: usize,
        trigger: impl Into<String>,
        message: impl Into<String>,
    ) -> GoogleAdsError {
        GoogleAdsError {
            error_code: ErrorCode::QueryError(code),
            message: message.into(),
            trigger: Some(trigger.into()),
            location: ErrorLocation {
                field_path_elements: vec![FieldPathElement {
                    field_name: "query".into(),
                    index: None,
                }],
                query_position: Some(QueryPosition::in_query(query, offset)),
            },
            quota_details: None,
        }
    }

    /// `AuthorizationError.USER_PERMISSION_DENIED`: the request names a
    /// customer other than the account behind the API.
    pub fn permission_denied(customer_id: u64) -> GoogleAdsError {
        GoogleAdsError::new(
            ErrorCode::Other("AuthorizationError.USER_PERMISSION_DENIED"),
            format!("This agent cannot access customer {customer_id}."),
        )
        .triggered_by(customer_id.to_string())
    }

    /// The same error, triggered by `trigger` (the offending text or value).
    pub fn triggered_by(mut self, trigger: impl Into<String>) -> GoogleAdsError {
        self.trigger = Some(trigger.into());
        self
    }

    /// The same error, located at `operations[index]` of a mutate request.
    pub fn at_operation(mut self, index: usize) -> GoogleAdsError {
        self.location.field_path_elements.insert(
            0,
            FieldPathElement {
                field_name: "operations".into(),
                index: Some(index),
            },
        );
        self
    }

    /// The query error code, if this is a query error.
    pub fn query_error(&self) -> Option<QueryError> {
        match self.error_code {
            ErrorCode::QueryError(c) => Some(c),
            _ => None,
        }
    }

    /// The constant (`BAD_FIELD_NAME` ...): a bounded set, usable as a label.
    pub fn code(&self) -> &'static str {
        self.error_code.name()
    }

    /// The character offset in the query, for query errors.
    pub fn offset(&self) -> Option<usize> {
        self.location.query_position.map(|p| p.offset as usize)
    }
}

impl fmt::Display for GoogleAdsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.error_code, self.message)?;
        if let Some(p) = self.location.query_position {
            write!(f, " (line {}, column {})", p.line, p.column)?;
        }
        Ok(())
    }
}

impl std::error::Error for GoogleAdsError {}

/// A failed request, as in Google's `GoogleAdsFailure`: one or more errors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GoogleAdsFailure {
    /// The errors, in operation order for mutates.
    pub errors: Vec<GoogleAdsError>,
}

impl GoogleAdsFailure {
    /// The error codes, in order.
    pub fn codes(&self) -> Vec<ErrorCode> {
        self.errors.iter().map(|e| e.error_code).collect()
    }
}

impl From<GoogleAdsError> for GoogleAdsFailure {
    fn from(e: GoogleAdsError) -> Self {
        GoogleAdsFailure { errors: vec![e] }
    }
}

impl fmt::Display for GoogleAdsFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let texts: Vec<String> = self.errors.iter().map(ToString::to_string).collect();
        f.write_str(&texts.join("; "))
    }
}

impl std::error::Error for GoogleAdsFailure {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_columns_in_characters() {
        let q = "SELECT\n  campaign.nme\nFROM campaign";
        let e = GoogleAdsError::query(QueryError::UnrecognizedField, q, 9, "campaign.nme", "x");
        let p = e.location.query_position.unwrap();
        assert_eq!((p.offset, p.line, p.column), (9, 2, 3));
        assert_eq!(
            e.to_string(),
            "QueryError.UNRECOGNIZED_FIELD: x (line 2, column 3)"
        );
    }

    #[test]
    fn errors_stay_small_and_codes_split() {
        // Every Result in the parser carries one; clippy's limit is 128 bytes.
        assert!(size_of::<GoogleAdsError>() <= 128);
        let code = ErrorCode::Other("CampaignError.DUPLICATE_CAMPAIGN_NAME");
        assert_eq!(
            (code.family(), code.name()),
            ("CampaignError", "DUPLICATE_CAMPAIGN_NAME")
        );
        assert_eq!(
            serde_json::to_string(&code).unwrap(),
            r#"{"campaign_error":"DUPLICATE_CAMPAIGN_NAME"}"#
        );
    }

    #[test]
    fn codes_serialize_as_google_spells_them() {
        let e = GoogleAdsError::new(ErrorCode::QuotaError(QuotaError::ResourceExhausted), "m");
        let json = serde_json::to_string(&e).unwrap();
        assert!(
            json.contains(r#""error_code":{"quota_error":"RESOURCE_EXHAUSTED"}"#),
            "{json}"
        );
        let op = e.at_operation(4);
        assert_eq!(op.location.field_path_elements[0].index, Some(4));
    }
}
