//! Account set-up the market tests share: create a campaign, an ad group
//! and keywords through the market's own changes, returning the new ids.

use adfarm_adsbench::market::{
    AccountChange, BiddingStrategy, Market, MatchType, ResourceName, Status,
};

/// An enabled campaign; its id.
pub fn create_campaign(
    market: &mut Market,
    name: &str,
    daily_budget_micros: i64,
    bidding_strategy: BiddingStrategy,
) -> u64 {
    let r = market
        .apply(AccountChange::CreateCampaign {
            name: name.into(),
            daily_budget_micros,
            status: Status::Enabled,
            bidding_strategy,
        })
        .expect("campaign");
    let ResourceName::Campaign { campaign_id, .. } = r else {
        panic!("{r:?}")
    };
    campaign_id
}

/// An enabled ad group in `campaign_id`; its id.
pub fn create_ad_group(
    market: &mut Market,
    campaign_id: u64,
    name: &str,
    cpc_bid_micros: i64,
) -> u64 {
    let r = market
        .apply(AccountChange::CreateAdGroup {
            campaign_id,
            name: name.into(),
            status: Status::Enabled,
            cpc_bid_micros,
        })
        .expect("ad group");
    let ResourceName::AdGroup { ad_group_id, .. } = r else {
        panic!("{r:?}")
    };
    ad_group_id
}

/// An enabled keyword on the ad group's bid; its criterion id.
pub fn create_keyword(
    market: &mut Market,
    ad_group_id: u64,
    text: &str,
    match_type: MatchType,
) -> u64 {
    let r = market
        .apply(AccountChange::CreateKeyword {
            ad_group_id,
            text: text.into(),
            match_type,
            status: Status::Enabled,
            cpc_bid_micros: None,
        })
        .expect("keyword");
    let ResourceName::Keyword { criterion_id, .. } = r else {
        panic!("{r:?}")
    };
    criterion_id
}
