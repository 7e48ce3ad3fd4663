//! The request limits in front of the API, on the simulated clock.

use super::now;
use adfarm_adsbench::api::{
    AdsApi, ErrorCode, InMemoryAccount, LimitsConfig, MutateOperation, MutateRequest, QuotaError,
    SearchRequest,
};
use adfarm_adsbench::gaql::{Resource, Value};

fn retry_delay(failure: &adfarm_adsbench::api::GoogleAdsFailure) -> i64 {
    failure.errors[0]
        .quota_details
        .as_ref()
        .expect("quota errors carry details")
        .retry_delay_millis
}

#[test]
fn a_burst_is_refused_until_the_retry_delay_has_passed() {
    let account = InMemoryAccount::sample();
    let mut api = AdsApi::new(LimitsConfig::default());
    let request = SearchRequest::new(account.customer_id, "SELECT campaign.id FROM campaign");
    for _ in 0..20 {
        api.search(&account, &request, now()).unwrap();
    }
    let refused = api.search(&account, &request, now()).unwrap_err();
    assert_eq!(
        refused.errors[0].error_code,
        ErrorCode::QuotaError(QuotaError::ResourceTemporarilyExhausted)
    );
    let wait = retry_delay(&refused);
    assert_eq!(wait, 100);
    let answer = api
        .search(&account, &request, now().plus_millis(wait))
        .unwrap();
    assert_eq!(answer.results.len(), 2);
    // Each answered page is one operation; the refused request cost none.
    assert_eq!(api.limits().used_today(now()), 21);
}

#[test]
fn operation_15001_of_a_day_fails_and_the_next_day_works() {
    let mut account = InMemoryAccount::sample();
    let mut api = AdsApi::new(LimitsConfig::default());
    let mut t = now();
    // 15 mutates of 1,000 operations (bid changes) use the whole day's quota.
    let keyword = "customers/1234567890/adGroupCriteria/201~301";
    for round in 0..15 {
        let operations = (0..1000)
            .map(|i| {
                MutateOperation::update(keyword, [("cpc_bid_micros", Value::Int64(1_000_000 + i))])
            })
            .collect();
        let request = MutateRequest {
            customer_id: account.customer_id,
            operations,
            ..MutateRequest::default()
        };
        api.mutate(&mut account, &request, t)
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        t = t.plus_millis(1000);
    }
    assert_eq!(api.limits().used_today(t), 15_000);
    let search = SearchRequest::new(account.customer_id, "SELECT campaign.id FROM campaign");
    let refused = api.search(&account, &search, t).unwrap_err();
    assert_eq!(
        refused.errors[0].error_code,
        ErrorCode::QuotaError(QuotaError::ResourceExhausted)
    );
    let tomorrow = t.plus_millis(retry_delay(&refused));
    assert_eq!(tomorrow.date(), t.date().plus_days(1));
    assert_eq!(
        tomorrow.millis() % 86_400_000,
        0,
        "the quota resets at midnight"
    );
    api.search(&account, &search, tomorrow).unwrap();
    let create = MutateRequest {
        customer_id: account.customer_id,
        operations: vec![MutateOperation::create(
            Resource::Campaign,
            [
                ("name", Value::String("Next day".into())),
                (
                    "campaign_budget",
                    Value::ResourceName("customers/1234567890/campaignBudgets/501".into()),
                ),
            ],
        )],
        ..MutateRequest::default()
    };
    api.mutate(&mut account, &create, tomorrow).unwrap();
    assert_eq!(api.limits().used_today(tomorrow), 2);
}
