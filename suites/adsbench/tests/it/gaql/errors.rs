//! Bad queries: each is rejected with Google's error code at the character
//! where it goes wrong.

use super::search;
use adfarm_adsbench::api::{ErrorCode, QueryError};

/// `(query, code, offset of the trigger in characters)`.
const BAD: &[(&str, &str, usize)] = &[
    ("", "EXPECTED_SELECT", 0),
    ("SELEC campaign.id FROM campaign", "EXPECTED_SELECT", 0),
    ("SELECT campaign.id campaign FROM campaign", "EXPECTED_FROM", 19),
    ("SELECT campaign.id", "EXPECTED_FROM", 18),
    ("SELECT campaign.id, FROM campaign", "BAD_FIELD_NAME", 20),
    ("SELECT Campaign.id FROM campaign", "BAD_FIELD_NAME", 7),
    ("SELECT campaign..id FROM campaign", "BAD_FIELD_NAME", 7),
    ("SELECT campaign.nam FROM campaign", "UNRECOGNIZED_FIELD", 7),
    ("SELECT campaign.id FROM campaigns", "BAD_RESOURCE_TYPE_IN_FROM_CLAUSE", 24),
    ("SELECT campaign.id FROM", "UNEXPECTED_END_OF_QUERY", 23),
    ("SELECT ad_group.name FROM campaign", "PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE", 7),
    ("SELECT campaign_budget.amount_micros FROM ad_group", "PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE", 7),
    ("SELECT keyword_view.resource_name FROM ad_group_criterion", "PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE", 7),
    ("SELECT campaign.id FROM campaign WHERE ad_group.id = 1", "PROHIBITED_RESOURCE_TYPE_IN_WHERE_CLAUSE", 39),
    ("SELECT campaign.id FROM campaign WHERE campaign.id = 1 OR campaign.id = 2", "UNEXPECTED_INPUT", 55),
    ("SELECT campaign.id FROM campaign WHERE campaign.id == 1", "BAD_OPERATOR", 51),
    ("SELECT campaign.id FROM campaign WHERE campaign.status IS ENABLED", "BAD_OPERATOR", 55),
    ("SELECT campaign.id FROM campaign WHERE campaign.name REGEXP_MATCH '(a'", "BAD_VALUE", 66),
    ("SELECT campaign.id FROM campaign WHERE campaign.name REGEXP_MATCH a", "INVALID_STRING_VALUE", 66),
    ("SELECT campaign.id FROM campaign WHERE campaign.id NOT REGEXP_MATCH '1'", "OPERATOR_FIELD_MISMATCH", 51),
    ("SELECT campaign.id FROM campaign WHERE campaign.name NOT EQUALS 'a'", "BAD_OPERATOR", 53),
    ("SELECT campaign.id FROM campaign WHERE segments.date BETWEEN '2024-03-01' '2024-03-05'", "EXPECTED_AND", 74),
    ("SELECT campaign.id FROM campaign WHERE campaign.id BETWEEN 1", "EXPECTED_AND", 60),
    ("SELECT campaign.id FROM campaign WHERE campaign.id BETWEEN AND 5", "EXPECTED_VALUE_WITH_BETWEEN_OPERATOR", 59),
    ("SELECT campaign.id FROM campaign WHERE segments.date DURING LAST_8_DAYS", "INVALID_VALUE_WITH_DURING_OPERATOR", 60),
    ("SELECT campaign.id FROM campaign WHERE segments.date DURING '2024-03-01'", "INVALID_VALUE_WITH_DURING_OPERATOR", 60),
    ("SELECT campaign.id FROM campaign WHERE campaign.status =", "UNEXPECTED_END_OF_QUERY", 56),
    ("SELECT campaign.id FROM campaign WHERE campaign.id = 1 AND", "UNEXPECTED_END_OF_QUERY", 58),
    ("SELECT campaign.id FROM campaign LIMIT 0", "LIMIT_VALUE_TOO_LOW", 39),
    ("SELECT campaign.id FROM campaign LIMIT -3", "LIMIT_VALUE_TOO_LOW", 39),
    ("SELECT campaign.id FROM campaign LIMIT ten", "BAD_LIMIT_VALUE", 39),
    ("SELECT campaign.id FROM campaign LIMIT 2.5", "BAD_LIMIT_VALUE", 39),
    ("SELECT campaign.id FROM campaign ORDER campaign.id", "EXPECTED_BY", 39),
    ("SELECT campaign.id, segments.date FROM campaign", "EXPECTED_FILTERS_ON_DATE_RANGE", 20),
    ("SELECT campaign.id, segments.date FROM campaign WHERE segments.date >= '2024-03-01'", "EXPECTED_FILTERS_ON_DATE_RANGE", 20),
    ("SELECT campaign.id FROM campaign WHERE segments.hour = 9", "EXPECTED_REFERENCED_FIELD_IN_SELECT_CLAUSE", 39),
    ("SELECT campaign.id FROM campaign ORDER BY segments.hour", "EXPECTED_REFERENCED_FIELD_IN_SELECT_CLAUSE", 42),
    ("SELECT campaign.id FROM campaign WHERE campaign.status = RUNNING", "BAD_ENUM_CONSTANT", 57),
    ("SELECT campaign.id FROM campaign WHERE campaign.name = 5", "INVALID_STRING_VALUE", 55),
    ("SELECT campaign.id FROM campaign WHERE campaign.id = 'a'", "BAD_VALUE", 53),
    ("SELECT campaign.id FROM campaign WHERE campaign.status IN ENABLED", "EXPECTED_LIST", 58),
    ("SELECT campaign.id FROM campaign WHERE campaign.status IN ()", "PROHIBITED_EMPTY_LIST_IN_CONDITION", 58),
    ("SELECT campaign.id FROM campaign WHERE campaign.id IN (1, 'a')", "PROHIBITED_VALUE_COMBINATION_IN_LIST", 58),
    ("SELECT campaign.id FROM campaign WHERE campaign.id = (1, 2)", "EXPECTED_SINGLE_VALUE", 53),
    ("SELECT campaign.id FROM campaign WHERE campaign.name LIKE 5", "INVALID_VALUE_WITH_LIKE_OPERATOR", 58),
    ("SELECT campaign.id FROM campaign WHERE campaign.status LIKE 'E%'", "OPERATOR_FIELD_MISMATCH", 55),
    ("SELECT campaign.id FROM campaign WHERE campaign.id DURING LAST_7_DAYS", "OPERATOR_FIELD_MISMATCH", 51),
    ("SELECT campaign.id FROM campaign WHERE campaign.labels = 'x'", "OPERATOR_FIELD_MISMATCH", 55),
    ("SELECT campaign.id FROM campaign WHERE campaign.id CONTAINS ANY (1)", "OPERATOR_FIELD_MISMATCH", 51),
    ("SELECT campaign.id FROM campaign WHERE segments.date = '2024-3-1'", "INVALID_DATE_FORMAT", 55),
    ("SELECT campaign.id FROM campaign WHERE segments.month = '2024-03-05'", "MISALIGNED_DATE_FOR_FILTER", 56),
    ("SELECT segments.month, metrics.clicks FROM customer", "EXPECTED_FILTERS_ON_DATE_RANGE", 7),
    ("SELECT campaign.id FROM campaign WHERE segments.year = 2024 AND segments.date = '2023-05-01'", "DATE_RANGE_TOO_NARROW", 64),
    ("SELECT campaign.id FROM campaign WHERE segments.date BETWEEN '2024-03-10' AND 'soon'", "INVALID_VALUE_WITH_BETWEEN_OPERATOR", 78),
    ("SELECT campaign.id FROM campaign WHERE segments.date BETWEEN '2024-03-10' AND 5", "PROHIBITED_VALUE_COMBINATION_WITH_BETWEEN_OPERATOR", 78),
    ("SELECT campaign.id FROM campaign WHERE segments.date BETWEEN '2024-03-12' AND '2024-03-10'", "DATE_RANGE_TOO_NARROW", 39),
    ("SELECT campaign.id FROM campaign ORDER BY campaign.resource_name", "PROHIBITED_FIELD_IN_ORDER_BY_CLAUSE", 42),
    ("SELECT campaign.id FROM campaign ORDER BY campaign.labels", "PROHIBITED_FIELD_IN_ORDER_BY_CLAUSE", 42),
    ("SELECT campaign.id FROM campaign WHERE campaign.name = 'abc", "STRING_NOT_TERMINATED", 55),
    ("SELECT campaign.id FROM campaign WHERE campaign.id = 1.2.3", "BAD_NUMBER", 53),
    ("SELECT campaign.id FROM campaign LIMIT 5 WHERE campaign.id = 1", "UNEXPECTED_INPUT", 41),
    ("SELECT campaign.id FROM campaign;", "UNEXPECTED_INPUT", 32),
    ("SELECT campaign.id FROM campaign PARAMETERS foo = true", "BAD_PARAMETER_NAME", 44),
    ("SELECT campaign.id FROM campaign PARAMETERS foo = 'yes'", "BAD_PARAMETER_NAME", 44),
    ("SELECT campaign.id FROM campaign PARAMETERS include_drafts = 'yes'", "BAD_PARAMETER_VALUE", 61),
    ("SELECT campaign.id FROM campaign WHERE ad_group_criterion.negative = TRUE", "PROHIBITED_RESOURCE_TYPE_IN_WHERE_CLAUSE", 39),
    ("SELECT customer.manager FROM customer WHERE customer.manager = 1", "BAD_VALUE", 63),
];

#[test]
fn every_bad_query_names_its_code_and_position() {
    let mut seen = std::collections::BTreeSet::new();
    for (query, code, offset) in BAD {
        let failure = match search(query) {
            Ok(r) => panic!("{query:?} was accepted: {r:?}"),
            Err(f) => f,
        };
        assert_eq!(failure.errors.len(), 1, "{query:?}");
        let e = &failure.errors[0];
        assert!(
            matches!(e.error_code, ErrorCode::QueryError(_)),
            "{query:?}: {}",
            e.error_code
        );
        assert_eq!(e.error_code.name(), *code, "{query:?}: {e}");
        assert_eq!(e.offset(), Some(*offset), "{query:?}: {e}");
        assert!(!e.message.is_empty());
        seen.insert(*code);
    }
    assert!(
        BAD.len() >= 50 && seen.len() >= 30,
        "{} queries, {} codes",
        BAD.len(),
        seen.len()
    );
}

#[test]
fn positions_give_line_and_column_and_the_trigger() {
    let q = "SELECT\n  campaign.id,\n  campaign.nme\nFROM campaign";
    let e = &search(q).unwrap_err().errors[0];
    assert_eq!(e.query_error(), Some(QueryError::UnrecognizedField));
    let p = e
        .location
        .query_position
        .expect("a query error has a position");
    assert_eq!((p.offset, p.line, p.column), (24, 3, 3));
    assert_eq!(e.trigger.as_deref(), Some("campaign.nme"));
    assert_eq!(e.location.field_path_elements[0].field_name, "query");
    let json = serde_json::to_value(e).unwrap();
    assert_eq!(json["error_code"]["query_error"], "UNRECOGNIZED_FIELD");
    assert_eq!(json["location"]["query_position"]["line"], 3);
}

#[test]
fn mangled_queries_never_panic_and_always_name_a_position() {
    let valid = "SELECT campaign.id, segments.date, metrics.clicks FROM campaign \
                 WHERE segments.date BETWEEN '2024-03-10' AND '2024-03-12' \
                 AND campaign.status IN (ENABLED, PAUSED) AND campaign.name LIKE '%S%' \
                 ORDER BY metrics.clicks DESC LIMIT 5";
    let chars: Vec<char> = valid.chars().collect();
    let mut variants: Vec<String> = Vec::new();
    for i in 0..chars.len() {
        // Every prefix, every one-character deletion, and a stray symbol at every place.
        variants.push(chars[..i].iter().collect());
        variants.push(chars[..i].iter().chain(&chars[i + 1..]).collect());
        variants.push(
            chars[..i]
                .iter()
                .chain(['('].iter())
                .chain(&chars[i..])
                .collect(),
        );
    }
    let (mut accepted, mut rejected) = (0, 0);
    for q in &variants {
        match search(q) {
            Ok(_) => accepted += 1,
            Err(f) => {
                rejected += 1;
                let e = &f.errors[0];
                assert!(e.query_error().is_some(), "{q:?}: {e}");
                let at = e.offset().expect("query errors have a position");
                assert!(at <= q.chars().count(), "{q:?}: offset {at}");
            }
        }
    }
    assert!(
        accepted > 0 && rejected > 0,
        "{accepted} accepted, {rejected} rejected"
    );
}
