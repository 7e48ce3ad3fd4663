//! Results longer than a page come back in pages of 10,000 with tokens.

use super::now;
use adfarm_adsbench::api::{
    ErrorCode, InMemoryAccount, RequestError, SearchRequest, SearchService, PAGE_SIZE,
};
use adfarm_adsbench::gaql::Value;

/// The sample account plus `extra` keywords in ad group 201.
fn big_account(extra: usize) -> InMemoryAccount {
    let mut a = InMemoryAccount::sample();
    for i in 0..extra {
        a.add_keyword(201, &format!("kw {i:05}"), "BROAD");
    }
    a
}

#[test]
fn pages_with_tokens_in_a_consistent_order() {
    let mut account = big_account(20_500);
    let total = 20_505;
    let query = "SELECT ad_group_criterion.criterion_id, ad_group_criterion.keyword.text \
                 FROM ad_group_criterion ORDER BY ad_group_criterion.keyword.text DESC";
    let mut service = SearchService::new();
    let first = SearchRequest::new(account.customer_id, query);
    let mut pages = vec![service.search(&account, &first, now()).unwrap()];
    // The account changes between pages; the pages do not.
    account.add_keyword(201, "zzz added after the first page", "EXACT");
    while let Some(token) = pages.last().unwrap().next_page_token.clone() {
        let page = service
            .search(&account, &first.page(&token), now())
            .unwrap();
        pages.push(page);
    }
    let sizes: Vec<usize> = pages.iter().map(|p| p.results.len()).collect();
    assert_eq!(sizes, vec![PAGE_SIZE, PAGE_SIZE, total - 2 * PAGE_SIZE]);
    assert!(pages.iter().all(|p| p.total_results_count == total));
    let texts: Vec<String> = pages
        .iter()
        .flat_map(|p| p.column("ad_group_criterion.keyword.text"))
        .map(|v| v.to_string())
        .collect();
    let mut sorted = texts.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(
        texts, sorted,
        "pages follow ORDER BY across page boundaries"
    );
    assert_eq!(texts[0], "winter boots");
    assert!(!texts.iter().any(|t| t.starts_with("zzz")));
    let mut ids: Vec<Value> = pages
        .iter()
        .flat_map(|p| p.column("ad_group_criterion.criterion_id"))
        .collect();
    ids.sort_by(Value::total_cmp);
    ids.dedup();
    assert_eq!(ids.len(), total, "no row repeated or lost");

    // Asking for a page again (a retry) gives the same rows.
    let token = pages[0].next_page_token.clone().unwrap();
    let again = service
        .search(&account, &first.page(&token), now())
        .unwrap();
    assert_eq!(again, pages[1]);
    // A fresh run sees the new keyword first.
    let fresh = service.search(&account, &first, now()).unwrap();
    assert_eq!(fresh.total_results_count, total + 1);
    assert_eq!(
        fresh.results[0].values[1].to_string(),
        "zzz added after the first page"
    );
}

#[test]
fn tokens_are_bound_to_their_query_and_expire() {
    let account = big_account(10_000);
    let mut service = SearchService::new();
    let query = "SELECT ad_group_criterion.criterion_id FROM ad_group_criterion";
    let first = SearchRequest::new(account.customer_id, query);
    let page = service.search(&account, &first, now()).unwrap();
    assert_eq!(page.results.len(), PAGE_SIZE);
    let token = page.next_page_token.expect("10,005 rows need two pages");
    let code =
        |r: Result<_, adfarm_adsbench::api::GoogleAdsFailure>| r.unwrap_err().errors[0].error_code;
    let other =
        SearchRequest::new(account.customer_id, "SELECT campaign.id FROM campaign").page(&token);
    assert_eq!(
        code(service.search(&account, &other, now())),
        ErrorCode::RequestError(RequestError::InvalidPageToken)
    );
    assert_eq!(
        code(service.search(&account, &first.page("not-a-token"), now())),
        ErrorCode::RequestError(RequestError::InvalidPageToken)
    );
    let foreign = SearchRequest::new(42, query);
    assert_eq!(
        code(service.search(&account, &foreign, now())).to_string(),
        "AuthorizationError.USER_PERMISSION_DENIED"
    );
    let last = service
        .search(&account, &first.page(&token), now())
        .unwrap();
    assert_eq!((last.results.len(), last.next_page_token), (5, None));
    let later = now().plus_millis(3 * 3_600_000);
    assert_eq!(
        code(service.search(&account, &first.page(&token), later)),
        ErrorCode::RequestError(RequestError::ExpiredPageToken)
    );
}
