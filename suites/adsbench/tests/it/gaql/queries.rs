//! Well-formed queries and their hand-computed answers.
//!
//! Figures of the sample account (see `InMemoryAccount::sample`), with
//! today = 2024-03-13: over 2024-03-10..12 keyword 301 has 1800
//! impressions / 36 clicks / 36,000,000 cost, 302 3600 / 72 / 36,000,000,
//! 303 5400 / 108 / 86,400,000, 304 7200 / 144 / 172,800,000 (conversions
//! clicks/4, value 5 per click); plus 301 on 02-20 (1000 / 10 / 5,000,000,
//! 1 conv, 50) and 304 today (500 / 5 / 6,000,000). Campaign 101 holds
//! 301–303, campaign 102 holds 304. Day d (03-10 = 1) carries d/6 of the
//! three days, hour 9 a third and hour 14 two thirds.

use super::search;
use adfarm_adsbench::api::SearchResponse;
use adfarm_adsbench::gaql::Value;

/// Checks that `query` answers exactly `expected`, row by row, cell by
/// cell: doubles to 1e-9 relative, everything else by its text.
fn check(query: &str, expected: &[&[&str]]) -> SearchResponse {
    let response = search(query).unwrap_or_else(|e| panic!("{query}: {e}"));
    let got: Vec<&Vec<Value>> = response.results.iter().map(|r| &r.values).collect();
    assert_eq!(got.len(), expected.len(), "{query}: rows {got:?}");
    for (row, want) in got.iter().zip(expected) {
        assert_eq!(row.len(), want.len(), "{query}: {row:?}");
        for (cell, w) in row.iter().zip(*want) {
            match cell {
                Value::Double(x) => {
                    let w: f64 = w
                        .parse()
                        .unwrap_or_else(|_| panic!("{query}: {w} not a number"));
                    assert!(
                        (x - w).abs() <= 1e-9 * w.abs().max(1.0),
                        "{query}: {x} != {w} in {row:?}"
                    );
                }
                other => assert_eq!(other.to_string(), *w, "{query}: {row:?}"),
            }
        }
    }
    response
}

#[test]
fn attributes_and_resource_names() {
    let r = check(
        "SELECT campaign.id, campaign.name FROM campaign",
        &[&["101", "Shoes - Search"], &["102", "Boots - Display"]],
    );
    assert_eq!(
        r.results[0].resource_name.as_deref(),
        Some("customers/1234567890/campaigns/101")
    );
    assert_eq!(r.field_mask, vec!["campaign.id", "campaign.name"]);
    assert_eq!(r.total_results_count, 2);
    assert_eq!(r.next_page_token, None);
    let json = r.to_json();
    assert_eq!(json["results"][1]["campaign"]["id"], "102");
    assert_eq!(
        json["results"][1]["campaign"]["resourceName"],
        "customers/1234567890/campaigns/102"
    );
    assert_eq!(json["fieldMask"], "campaign.id,campaign.name");
}

#[test]
fn enum_equality_quoted_or_bare() {
    check(
        "SELECT campaign.name FROM campaign WHERE campaign.status = 'ENABLED'",
        &[&["Shoes - Search"]],
    );
    check(
        "SELECT campaign.name FROM campaign WHERE campaign.status = PAUSED",
        &[&["Boots - Display"]],
    );
    check(
        "SELECT campaign.name FROM campaign WHERE campaign.status != ENABLED",
        &[&["Boots - Display"]],
    );
}

#[test]
fn in_and_not_in() {
    check(
        "SELECT campaign.name FROM campaign WHERE campaign.status IN ('ENABLED', 'PAUSED') ORDER BY campaign.name",
        &[&["Boots - Display"], &["Shoes - Search"]],
    );
    check(
        "SELECT campaign.name FROM campaign WHERE campaign.status NOT IN (REMOVED, PAUSED)",
        &[&["Shoes - Search"]],
    );
    check(
        "SELECT ad_group_criterion.keyword.text, campaign.id FROM ad_group_criterion \
         WHERE campaign.id IN (102) AND ad_group_criterion.keyword.match_type = 'EXACT'",
        &[&["winter boots", "102"]],
    );
}

#[test]
fn like_and_not_like() {
    check(
        "SELECT campaign.name FROM campaign WHERE campaign.name LIKE '%Search'",
        &[&["Shoes - Search"]],
    );
    check(
        "SELECT campaign.name FROM campaign WHERE campaign.name NOT LIKE 'Shoes%'",
        &[&["Boots - Display"]],
    );
    check(
        "SELECT ad_group_criterion.keyword.text FROM ad_group_criterion \
         WHERE ad_group_criterion.keyword.text LIKE '%running%'",
        &[&["running shoes"], &["buy running shoes"]],
    );
}

#[test]
fn regexp_match_whole_values() {
    check(
        "SELECT campaign.name FROM campaign WHERE campaign.name REGEXP_MATCH '(?i).*SEARCH'",
        &[&["Shoes - Search"]],
    );
    check(
        "SELECT campaign.name FROM campaign WHERE campaign.name NOT REGEXP_MATCH 'Shoes.*'",
        &[&["Boots - Display"]],
    );
    check(
        "SELECT ad_group_criterion.keyword.text FROM ad_group_criterion \
         WHERE ad_group_criterion.keyword.text REGEXP_MATCH '(buy )?running shoes'",
        &[&["running shoes"], &["buy running shoes"]],
    );
}

#[test]
fn null_tests() {
    check(
        "SELECT campaign.name, campaign.end_date FROM campaign WHERE campaign.end_date IS NULL",
        &[&["Shoes - Search", "null"]],
    );
    check(
        "SELECT campaign.name, campaign.end_date FROM campaign WHERE campaign.end_date IS NOT NULL",
        &[&["Boots - Display", "2024-12-31"]],
    );
    check(
        "SELECT ad_group_criterion.keyword.text FROM ad_group_criterion \
         WHERE ad_group_criterion.quality_info.quality_score IS NULL",
        &[&["buy running shoes"], &["cheap"]],
    );
}

#[test]
fn contains_on_repeated_labels() {
    let l = |n| format!("'customers/1234567890/labels/{n}'");
    check(
        &format!(
            "SELECT campaign.name FROM campaign WHERE campaign.labels CONTAINS ANY ({})",
            l(2)
        ),
        &[&["Boots - Display"]],
    );
    check(
        &format!(
            "SELECT campaign.name FROM campaign WHERE campaign.labels CONTAINS ALL ({}, {})",
            l(1),
            l(2)
        ),
        &[&["Boots - Display"]],
    );
    check(
        &format!(
            "SELECT campaign.name FROM campaign WHERE campaign.labels CONTAINS NONE ({})",
            l(2)
        ),
        &[&["Shoes - Search"]],
    );
}

#[test]
fn numbers_bools_and_dates_as_attributes() {
    check(
        "SELECT campaign.name, campaign.target_cpa.target_cpa_micros FROM campaign \
         WHERE campaign.bidding_strategy_type = TARGET_CPA",
        &[&["Boots - Display", "5000000"]],
    );
    check(
        "select campaign.name from campaign where campaign.start_date < '2024-01-15'",
        &[&["Shoes - Search"]],
    );
    check(
        "SELECT ad_group.name, ad_group.cpc_bid_micros FROM ad_group \
         WHERE ad_group.cpc_bid_micros > 900000 ORDER BY ad_group.cpc_bid_micros",
        &[&["Running", "1000000"], &["Winter boots", "1200000"]],
    );
    check(
        "SELECT ad_group.name FROM ad_group WHERE ad_group.cpc_bid_micros BETWEEN 800000 AND 1000000 \
         ORDER BY ad_group.name DESC",
        &[&["Trail"], &["Running"]],
    );
    check(
        "SELECT ad_group_criterion.keyword.text, ad_group_criterion.keyword.match_type \
         FROM ad_group_criterion WHERE ad_group_criterion.negative = FALSE \
         AND ad_group_criterion.status = ENABLED",
        &[
            &["running shoes", "EXACT"],
            &["buy running shoes", "PHRASE"],
            &["winter boots", "EXACT"],
        ],
    );
    check(
        "SELECT ad_group_criterion.keyword.text FROM ad_group_criterion WHERE ad_group_criterion.negative = TRUE",
        &[&["cheap"]],
    );
    check(
        "SELECT ad_group_criterion.keyword.text, ad_group_criterion.quality_info.quality_score \
         FROM ad_group_criterion WHERE ad_group_criterion.quality_info.quality_score >= 7 \
         ORDER BY ad_group_criterion.quality_info.quality_score DESC",
        &[&["winter boots", "9"], &["running shoes", "7"]],
    );
    check(
        "SELECT customer.currency_code, customer.time_zone FROM customer",
        &[&["USD", "America/New_York"]],
    );
}

#[test]
fn attributes_of_resources_above_the_from_resource() {
    check(
        "SELECT ad_group.name, campaign.name FROM ad_group WHERE campaign.status = ENABLED",
        &[&["Running", "Shoes - Search"], &["Trail", "Shoes - Search"]],
    );
    check(
        "SELECT ad_group.name FROM ad_group WHERE ad_group.status = ENABLED AND campaign.id = 101",
        &[&["Running"]],
    );
}

#[test]
fn all_time_metrics_sum_every_stat() {
    check(
        "SELECT campaign.id, metrics.impressions, metrics.clicks, metrics.cost_micros FROM campaign",
        &[&["101", "11800", "226", "163400000"], &["102", "7700", "149", "178800000"]],
    );
    check(
        "SELECT customer.id, customer.descriptive_name, metrics.impressions, metrics.clicks, \
         metrics.cost_micros, metrics.conversions, metrics.conversions_value FROM customer",
        &[&[
            "1234567890",
            "Acme Shoes",
            "19500",
            "375",
            "342200000",
            "91",
            "1850",
        ]],
    );
    check(
        "SELECT ad_group.name, metrics.clicks FROM ad_group ORDER BY metrics.clicks DESC",
        &[
            &["Winter boots", "149"],
            &["Running", "118"],
            &["Trail", "108"],
        ],
    );
}

#[test]
fn during_each_predefined_range() {
    let q = |range: &str| {
        format!(
            "SELECT campaign.id, metrics.impressions, metrics.clicks, metrics.cost_micros \
             FROM campaign WHERE segments.date DURING {range}"
        )
    };
    let cases: &[(&str, [&[&str]; 2])] = &[
        (
            "LAST_7_DAYS",
            [
                &["101", "10800", "216", "158400000"],
                &["102", "7200", "144", "172800000"],
            ],
        ),
        (
            "LAST_14_DAYS",
            [
                &["101", "10800", "216", "158400000"],
                &["102", "7200", "144", "172800000"],
            ],
        ),
        (
            "TODAY",
            [&["101", "0", "0", "0"], &["102", "500", "5", "6000000"]],
        ),
        (
            "YESTERDAY",
            [
                &["101", "5400", "108", "79200000"],
                &["102", "3600", "72", "86400000"],
            ],
        ),
        (
            "LAST_30_DAYS",
            [
                &["101", "11800", "226", "163400000"],
                &["102", "7200", "144", "172800000"],
            ],
        ),
        (
            "THIS_MONTH",
            [
                &["101", "10800", "216", "158400000"],
                &["102", "7700", "149", "178800000"],
            ],
        ),
        (
            "LAST_MONTH",
            [&["101", "1000", "10", "5000000"], &["102", "0", "0", "0"]],
        ),
        (
            "LAST_WEEK_MON_SUN",
            [
                &["101", "1800", "36", "26400000"],
                &["102", "1200", "24", "28800000"],
            ],
        ),
        (
            "THIS_WEEK_MON_TODAY",
            [
                &["101", "9000", "180", "132000000"],
                &["102", "6500", "125", "150000000"],
            ],
        ),
    ];
    for (range, rows) in cases {
        check(&q(range), rows);
    }
}

#[test]
fn segmented_by_date() {
    let q = "SELECT campaign.id, segments.date, metrics.impressions, metrics.clicks FROM campaign \
             WHERE segments.date BETWEEN '2024-03-10' AND '2024-03-12'";
    check(
        q,
        &[
            &["101", "2024-03-10", "1800", "36"],
            &["101", "2024-03-11", "3600", "72"],
            &["101", "2024-03-12", "5400", "108"],
            &["102", "2024-03-10", "1200", "24"],
            &["102", "2024-03-11", "2400", "48"],
            &["102", "2024-03-12", "3600", "72"],
        ],
    );
    check(
        &format!("{q} ORDER BY segments.date DESC, metrics.impressions DESC"),
        &[
            &["101", "2024-03-12", "5400", "108"],
            &["102", "2024-03-12", "3600", "72"],
            &["101", "2024-03-11", "3600", "72"],
            &["102", "2024-03-11", "2400", "48"],
            &["101", "2024-03-10", "1800", "36"],
            &["102", "2024-03-10", "1200", "24"],
        ],
    );
    check(
        "SELECT segments.date, metrics.clicks FROM customer \
         WHERE segments.date >= '2024-03-11' AND segments.date <= '20240313'",
        &[
            &["2024-03-11", "120"],
            &["2024-03-12", "180"],
            &["2024-03-13", "5"],
        ],
    );
    check(
        "SELECT campaign.name, metrics.impressions FROM campaign WHERE segments.date = '2024-02-20'",
        &[&["Shoes - Search", "1000"], &["Boots - Display", "0"]],
    );
}

#[test]
fn segmented_by_week_month_quarter_year() {
    check(
        "SELECT segments.week, metrics.impressions FROM campaign \
         WHERE campaign.id = 101 AND segments.date BETWEEN '2024-03-10' AND '2024-03-12'",
        &[&["2024-03-04", "1800"], &["2024-03-11", "9000"]],
    );
    check(
        "SELECT segments.month, metrics.clicks FROM customer WHERE segments.date DURING LAST_30_DAYS",
        &[&["2024-02-01", "10"], &["2024-03-01", "360"]],
    );
    check(
        "SELECT segments.month, metrics.clicks FROM customer WHERE segments.month = '2024-02-01'",
        &[&["2024-02-01", "10"]],
    );
    check(
        "SELECT segments.quarter, segments.year, metrics.clicks FROM customer WHERE segments.year = 2024",
        &[&["2024-01-01", "2024", "375"]],
    );
    // A core date segment filters without being selected.
    check(
        "SELECT campaign.id, metrics.clicks FROM campaign WHERE segments.week = '2024-03-11'",
        &[&["101", "180"], &["102", "125"]],
    );
}

#[test]
fn segmented_by_hour_and_weekday() {
    check(
        "SELECT campaign.id, segments.hour, metrics.impressions FROM campaign \
         WHERE segments.date DURING LAST_7_DAYS AND campaign.id = 101",
        &[&["101", "9", "3600"], &["101", "14", "7200"]],
    );
    check(
        "SELECT segments.hour, metrics.impressions FROM customer WHERE segments.hour < 12",
        &[&["8", "500"], &["9", "6000"], &["10", "1000"]],
    );
    check(
        "SELECT segments.hour, metrics.impressions FROM customer WHERE segments.hour IN (10, 14)",
        &[&["10", "1000"], &["14", "12000"]],
    );
    check(
        "SELECT segments.day_of_week, metrics.clicks FROM customer WHERE segments.date DURING LAST_30_DAYS",
        &[&["MONDAY", "120"], &["TUESDAY", "190"], &["SUNDAY", "60"]],
    );
}

#[test]
fn derived_metrics_come_from_summed_counts() {
    check(
        "SELECT customer.id, metrics.ctr, metrics.average_cpc, metrics.cost_per_conversion, \
         metrics.value_per_conversion FROM customer WHERE segments.date DURING LAST_7_DAYS",
        &[&["1234567890", "0.02", "920000", "3680000", "20"]],
    );
    check(
        "SELECT campaign.id, metrics.conversions_from_interactions_rate, metrics.average_cpm \
         FROM campaign WHERE campaign.id = 102 AND segments.date DURING LAST_7_DAYS",
        &[&["102", "0.25", "24000000"]],
    );
    // Campaign 101 all time: 163,400,000 / 226 clicks; 163,400,000 / 55 conversions.
    check(
        "SELECT campaign.id, metrics.average_cpc, metrics.cost_per_conversion FROM campaign \
         WHERE campaign.id = 101",
        &[&["101", "723008.8495575221", "2970909.0909090909"]],
    );
}

#[test]
fn metric_conditions_filter_output_rows() {
    check(
        "SELECT ad_group_criterion.criterion_id, ad_group.name, metrics.impressions, metrics.average_cpc \
         FROM ad_group_criterion WHERE segments.date DURING LAST_7_DAYS AND metrics.impressions > 0 \
         ORDER BY metrics.average_cpc DESC",
        &[
            &["304", "Winter boots", "7200", "1200000"],
            &["301", "Running", "1800", "1000000"],
            &["303", "Trail", "5400", "800000"],
            &["302", "Running", "3600", "500000"],
        ],
    );
    check(
        "SELECT ad_group_criterion.keyword.text, metrics.clicks FROM ad_group_criterion \
         WHERE campaign.name = 'Shoes - Search' AND metrics.clicks >= 100",
        &[&["trail shoes", "108"]],
    );
    check(
        "SELECT campaign.name FROM campaign WHERE segments.date DURING LAST_7_DAYS \
         AND metrics.cost_micros > 160000000",
        &[&["Boots - Display"]],
    );
    // Ties on clicks keep the default order (entity, then date).
    check(
        "SELECT campaign.id, segments.date, metrics.clicks FROM campaign \
         WHERE segments.date DURING LAST_7_DAYS AND metrics.clicks > 50 ORDER BY metrics.clicks",
        &[
            &["101", "2024-03-11", "72"],
            &["102", "2024-03-12", "72"],
            &["101", "2024-03-12", "108"],
        ],
    );
}

#[test]
fn budgets_with_their_campaigns() {
    check(
        "SELECT campaign.name, campaign_budget.amount_micros FROM campaign \
         ORDER BY campaign_budget.amount_micros DESC",
        &[
            &["Shoes - Search", "50000000"],
            &["Boots - Display", "30000000"],
        ],
    );
    check(
        "SELECT campaign_budget.name, metrics.cost_micros FROM campaign_budget \
         WHERE segments.date DURING LAST_7_DAYS",
        &[
            &["Shoes budget", "158400000"],
            &["Boots budget", "172800000"],
        ],
    );
    check(
        "SELECT campaign.id FROM campaign WHERE campaign_budget.amount_micros < 40000000",
        &[&["102"]],
    );
}

#[test]
fn keyword_view_serves_keyword_performance() {
    let r = check(
        "SELECT ad_group_criterion.keyword.text, metrics.clicks FROM keyword_view \
         WHERE segments.date DURING LAST_7_DAYS AND metrics.clicks > 0 ORDER BY metrics.clicks DESC",
        &[
            &["winter boots", "144"],
            &["trail shoes", "108"],
            &["buy running shoes", "72"],
            &["running shoes", "36"],
        ],
    );
    assert_eq!(
        r.results[0].resource_name.as_deref(),
        Some("customers/1234567890/keywordViews/203~304")
    );
    check(
        "SELECT keyword_view.resource_name, campaign.id FROM keyword_view WHERE ad_group.id = 202",
        &[&["customers/1234567890/keywordViews/202~303", "101"]],
    );
}

#[test]
fn limit_and_parameters() {
    check(
        "SELECT campaign.name, metrics.clicks FROM campaign ORDER BY metrics.clicks DESC LIMIT 1",
        &[&["Shoes - Search", "226"]],
    );
    let r = check(
        "SELECT campaign.name FROM campaign WHERE campaign.advertising_channel_type = DISPLAY \
         PARAMETERS omit_unselected_resource_names = true",
        &[&["Boots - Display"]],
    );
    assert_eq!(r.results[0].resource_name, None);
    // Whitespace and newlines are free between tokens.
    check(
        "SELECT\n  campaign.id\nFROM campaign\nWHERE campaign.id = 102\n",
        &[&["102"]],
    );
}
