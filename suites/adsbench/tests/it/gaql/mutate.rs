//! Mutate: atomic by default, partial failure, validate only, limits, notes.

use super::now;
use adfarm_adsbench::api::mutate::mutate;
use adfarm_adsbench::api::{
    ErrorCode, InMemoryAccount, MutateOperation, MutateRequest, RequestError, SearchRequest,
    SearchService,
};
use adfarm_adsbench::gaql::{Resource, Value};

const C: &str = "customers/1234567890";

/// Ten operations; 1, 3 and 7 are bad.
fn ten_operations() -> Vec<MutateOperation> {
    let s = |t: &str| Value::String(t.into());
    let e = |t: &str| Value::Enum(t.into());
    vec![
        MutateOperation::create(
            Resource::Campaign,
            [
                ("name", s("Spring sale")),
                (
                    "campaign_budget",
                    Value::ResourceName(format!("{C}/campaignBudgets/501")),
                ),
            ],
        )
        .with_note("Seasonal push"),
        MutateOperation::create(
            Resource::Campaign,
            [
                ("name", s("Shoes - Search")),
                (
                    "campaign_budget",
                    Value::ResourceName(format!("{C}/campaignBudgets/502")),
                ),
            ],
        ),
        MutateOperation::update(format!("{C}/campaigns/101"), [("status", e("PAUSED"))])
            .with_note("CPA above target for a week"),
        MutateOperation::update(
            format!("{C}/adGroups/201"),
            [("cpc_bid_micros", Value::Int64(-5))],
        ),
        MutateOperation::create(
            Resource::AdGroup,
            [
                (
                    "campaign",
                    Value::ResourceName(format!("{C}/campaigns/102")),
                ),
                ("name", s("New group")),
            ],
        ),
        MutateOperation::create(
            Resource::AdGroupCriterion,
            [
                ("ad_group", Value::ResourceName(format!("{C}/adGroups/203"))),
                ("keyword.text", s("snow boots")),
                ("keyword.match_type", e("EXACT")),
            ],
        ),
        MutateOperation::remove(format!("{C}/adGroupCriteria/201~302")),
        MutateOperation::update(format!("{C}/campaigns/999"), [("name", s("Ghost"))]),
        MutateOperation::update(
            format!("{C}/adGroupCriteria/201~301"),
            [("cpc_bid_micros", Value::Int64(2_000_000))],
        ),
        MutateOperation::update(format!("{C}/adGroups/202"), [("status", e("ENABLED"))]),
    ]
}

fn request(partial_failure: bool, validate_only: bool) -> MutateRequest {
    MutateRequest {
        customer_id: 1_234_567_890,
        operations: ten_operations(),
        partial_failure,
        validate_only,
    }
}

fn failing(errors: &[adfarm_adsbench::api::GoogleAdsError]) -> Vec<(usize, String)> {
    errors
        .iter()
        .map(|e| {
            let step = &e.location.field_path_elements[0];
            assert_eq!(step.field_name, "operations");
            (
                step.index.expect("an operation index"),
                e.error_code.to_string(),
            )
        })
        .collect()
}

fn expected_failures() -> Vec<(usize, String)> {
    vec![
        (1, "CampaignError.DUPLICATE_CAMPAIGN_NAME".to_string()),
        (3, "RangeError.TOO_LOW".to_string()),
        (7, "MutateError.RESOURCE_NOT_FOUND".to_string()),
    ]
}

#[test]
fn atomic_commits_nothing_and_reports_every_bad_operation() {
    let mut account = InMemoryAccount::sample();
    let failure = mutate(&mut account, &request(false, false)).unwrap_err();
    assert_eq!(failing(&failure.errors), expected_failures());
    assert_eq!(account, InMemoryAccount::sample());
}

#[test]
fn partial_failure_commits_the_seven_good_ones() {
    let mut account = InMemoryAccount::sample();
    let response = mutate(&mut account, &request(true, false)).unwrap();
    let committed: Vec<usize> = (0..10).filter(|i| response.results[*i].is_some()).collect();
    assert_eq!(committed, vec![0, 2, 4, 5, 6, 8, 9]);
    let errors = response.partial_failure_error.expect("three failed");
    assert_eq!(failing(&errors.errors), expected_failures());
    assert_eq!(
        response.results[0].as_deref(),
        Some("customers/1234567890/campaigns/1000")
    );
    assert_eq!(account.changes().len(), 7);
    assert_eq!(
        account.changes()[0].change_note.as_deref(),
        Some("Seasonal push")
    );
    assert_eq!(account.changes()[1].operation, "UPDATE");
    assert_eq!(
        account.changes()[1].change_note.as_deref(),
        Some("CPA above target for a week")
    );

    // The account, read back through GAQL, shows the seven changes.
    let mut search = SearchService::new();
    let mut ask = |q: &str| {
        let r = search
            .search(&account, &SearchRequest::new(account.customer_id, q), now())
            .unwrap();
        r.results
            .iter()
            .map(|row| {
                row.values
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" | ")
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ask("SELECT campaign.name, campaign.status FROM campaign"),
        vec![
            "Shoes - Search | PAUSED",
            "Boots - Display | PAUSED",
            "Spring sale | ENABLED"
        ]
    );
    assert_eq!(
        ask("SELECT ad_group.name, ad_group.status, campaign.id FROM ad_group WHERE campaign.id = 102"),
        vec!["Winter boots | ENABLED | 102", "New group | ENABLED | 102"]
    );
    assert_eq!(
        ask("SELECT ad_group_criterion.keyword.text, ad_group_criterion.status, ad_group_criterion.cpc_bid_micros \
             FROM ad_group_criterion WHERE ad_group.id IN (201, 203) AND ad_group_criterion.negative = FALSE"),
        vec![
            "running shoes | ENABLED | 2000000",
            "buy running shoes | REMOVED | null",
            "winter boots | ENABLED | 1100000",
            "snow boots | ENABLED | null",
        ]
    );
    assert_eq!(
        ask("SELECT ad_group.status FROM ad_group WHERE ad_group.id = 202"),
        vec!["ENABLED"]
    );
}

#[test]
fn validate_only_checks_in_order_and_commits_nothing() {
    let mut account = InMemoryAccount::sample();
    let failure = mutate(&mut account, &request(false, true)).unwrap_err();
    assert_eq!(failing(&failure.errors), expected_failures());
    // A valid request whose operations each need the one before: a
    // budget, a campaign on it, an ad group in that campaign.
    let dependent = MutateRequest {
        customer_id: account.customer_id,
        operations: vec![
            MutateOperation::create(
                Resource::CampaignBudget,
                [
                    ("name", Value::String("Fresh budget".into())),
                    ("amount_micros", Value::Int64(10_000_000)),
                ],
            ),
            MutateOperation::create(
                Resource::Campaign,
                [
                    ("name", Value::String("Fresh".into())),
                    (
                        "campaign_budget",
                        Value::ResourceName(format!("{C}/campaignBudgets/1000")),
                    ),
                ],
            ),
            MutateOperation::create(
                Resource::AdGroup,
                [
                    (
                        "campaign",
                        Value::ResourceName(format!("{C}/campaigns/1001")),
                    ),
                    ("name", Value::String("First group".into())),
                ],
            ),
        ],
        partial_failure: false,
        validate_only: true,
    };
    let response = mutate(&mut account, &dependent).unwrap();
    assert_eq!(response.results, vec![None, None, None]);
    assert_eq!(account, InMemoryAccount::sample());
    let committed = mutate(
        &mut account,
        &MutateRequest {
            validate_only: false,
            ..dependent
        },
    )
    .unwrap();
    assert_eq!(
        committed.results[2].as_deref(),
        Some("customers/1234567890/adGroups/1002")
    );
    assert_eq!(account.ad_groups().len(), 4);
}

#[test]
fn request_and_field_errors() {
    let mut account = InMemoryAccount::sample();
    let code = |r: Result<_, adfarm_adsbench::api::GoogleAdsFailure>| {
        r.unwrap_err().errors[0].error_code.to_string()
    };
    let ops = |n: usize| MutateRequest {
        customer_id: account.customer_id,
        operations: vec![MutateOperation::remove(format!("{C}/campaigns/101")); n],
        ..MutateRequest::default()
    };
    let (too_many, none) = (ops(10_001), ops(0));
    assert_eq!(
        code(mutate(&mut account, &too_many)),
        "RequestError.TOO_MANY_MUTATE_OPERATIONS"
    );
    assert_eq!(
        code(mutate(&mut account, &none)),
        "RequestError.OPERATION_REQUIRED"
    );
    let one = |op: MutateOperation| MutateRequest {
        customer_id: 1_234_567_890,
        operations: vec![op],
        ..MutateRequest::default()
    };
    let camp = format!("{C}/campaigns/101");
    let cases = [
        (
            MutateOperation::update(&camp, [("colour", Value::String("red".into()))]),
            "FieldMaskError.FIELD_NOT_FOUND",
        ),
        (
            MutateOperation::update(&camp, [("id", Value::Int64(5))]),
            "RequestError.IMMUTABLE_FIELD",
        ),
        (
            MutateOperation::update(&camp, [("status", Value::Enum("ON".into()))]),
            "RequestError.INVALID_ENUM_VALUE",
        ),
        (
            MutateOperation::update(&camp, [("name", Value::Int64(5))]),
            "FieldError.INVALID_VALUE",
        ),
        (
            MutateOperation::update(&camp, [("name", Value::String(" ".into()))]),
            "FieldError.REQUIRED",
        ),
        (
            MutateOperation::update("campaigns/101", [("name", Value::String("x".into()))]),
            "RequestError.RESOURCE_NAME_MALFORMED",
        ),
        (
            MutateOperation::update(&camp, Vec::<(&str, Value)>::new()),
            "FieldMaskError.FIELD_MASK_MISSING",
        ),
        (
            MutateOperation::create(Resource::AdGroup, [("name", Value::String("x".into()))]),
            "FieldError.REQUIRED",
        ),
        (
            MutateOperation::update(&camp, [("status", Value::Null)]),
            "FieldError.REQUIRED",
        ),
        (
            MutateOperation::update(&camp, [("name", Value::String("Boots - Display".into()))]),
            "CampaignError.DUPLICATE_CAMPAIGN_NAME",
        ),
        (
            MutateOperation::remove(format!("{C}/adGroupCriteria/202~301")),
            "MutateError.RESOURCE_NOT_FOUND",
        ),
        (
            MutateOperation::update(
                format!("{C}/campaignBudgets/501"),
                [("amount_micros", Value::Int64(0))],
            ),
            "RangeError.TOO_LOW",
        ),
        (
            MutateOperation::update(
                &camp,
                [(
                    "campaign_budget",
                    Value::ResourceName(format!("{C}/campaignBudgets/9")),
                )],
            ),
            "MutateError.RESOURCE_NOT_FOUND",
        ),
        (
            MutateOperation::create(
                Resource::Campaign,
                [("name", Value::String("No budget".into()))],
            ),
            "FieldError.REQUIRED",
        ),
    ];
    for (op, want) in cases {
        let what = format!("{op:?}");
        assert_eq!(code(mutate(&mut account, &one(op))), want, "{what}");
    }
    assert_eq!(account, InMemoryAccount::sample());
    let foreign = MutateRequest {
        customer_id: 42,
        ..one(MutateOperation::remove(format!("{C}/campaigns/101")))
    };
    assert_eq!(
        code(mutate(&mut account, &foreign)),
        "AuthorizationError.USER_PERMISSION_DENIED"
    );
    assert_eq!(
        ErrorCode::RequestError(RequestError::TooManyMutateOperations).name(),
        "TOO_MANY_MUTATE_OPERATIONS"
    );
}

#[test]
fn renames_clears_and_budget_changes_commit() {
    let mut account = InMemoryAccount::sample();
    let one = |op: MutateOperation| MutateRequest {
        customer_id: 1_234_567_890,
        operations: vec![op],
        ..MutateRequest::default()
    };
    // Renaming a campaign to its own name is no duplicate.
    let same_name = one(MutateOperation::update(
        format!("{C}/campaigns/101"),
        [("name", Value::String("Shoes - Search".into()))],
    ));
    mutate(&mut account, &same_name).unwrap();
    // An optional field may be cleared.
    let clear = one(MutateOperation::update(
        format!("{C}/campaigns/102"),
        [("end_date", Value::Null)],
    ));
    mutate(&mut account, &clear).unwrap();
    assert_eq!(account.campaigns()[1].end_date, None);
    // A budget change shows in its campaign's row.
    let raise = one(MutateOperation::update(
        format!("{C}/campaignBudgets/502"),
        [("amount_micros", Value::Int64(45_000_000))],
    )
    .with_note("Boots CPA is under target; give it room"));
    let response = mutate(&mut account, &raise).unwrap();
    assert_eq!(
        response.results,
        vec![Some(format!("{C}/campaignBudgets/502"))]
    );
    let r = SearchService::new()
        .search(
            &account,
            &SearchRequest::new(
                account.customer_id,
                "SELECT campaign_budget.amount_micros, campaign.end_date FROM campaign \
                 WHERE campaign.id = 102",
            ),
            now(),
        )
        .unwrap();
    assert_eq!(
        r.results[0].values,
        vec![Value::Int64(45_000_000), Value::Null]
    );
    assert_eq!(account.changes().len(), 3);
    assert_eq!(
        account.changes()[2].change_note.as_deref(),
        Some("Boots CPA is under target; give it room")
    );
}
