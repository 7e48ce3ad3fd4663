//! The market as a [`RowSource`]: the agent's account (campaigns, their
//! budgets, ad groups, ads, keywords, gender and age exclusions) as entity rows, and
//! the market's hourly keyword metrics as stat cells, summed up the
//! hierarchy by the engine; its daily search-term rows as
//! `search_term_view`, one entity per (ad group, search) the ads showed
//! on. A gender or age exclusion is a negative campaign
//! criterion named by Google's gender or age range criterion id
//! (`customers/{c}/campaignCriteria/{campaign_id}~11` excludes women) and
//! has no stats of its own.
//!
//! The market has no budget entity: each campaign owns its daily budget,
//! so the API shows one `campaign_budget` per campaign with the campaign's
//! id (`customers/{c}/campaignBudgets/{campaign_id}`).

use crate::api::rows::{
    AdAttrs, AdGroupAttrs, BudgetAttrs, CampaignAttrs, CampaignCriterionAttrs, CustomerAttrs,
    Demographic, KeywordAttrs, RowBuilder, SearchTermAttrs,
};
use crate::gaql::{Counts, DateSpan, EntityRow, Resource, RowSource, StatCell, Value};
use crate::market::{
    Ad, AdGroup, AgeRange, Approval, BiddingStrategy, Campaign, Gender, Keyword, Market, MetricKey,
    MetricRow,
};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use std::collections::BTreeSet;

/// `customers/{c}/campaignBudgets/{id}`: a campaign's own budget.
pub fn budget_name(customer_id: u64, campaign_id: u64) -> String {
    format!("customers/{customer_id}/campaignBudgets/{campaign_id}")
}

/// `customers/{c}/campaignCriteria/{campaign_id}~{criterion_id}`: a
/// campaign's exclusion of `gender`, by Google's gender criterion id.
pub fn gender_criterion_name(customer_id: u64, campaign_id: u64, gender: Gender) -> String {
    format!(
        "customers/{customer_id}/campaignCriteria/{campaign_id}~{}",
        gender.criterion_id()
    )
}

/// `customers/{c}/campaignCriteria/{campaign_id}~{criterion_id}`: a
/// campaign's exclusion of `age`, by Google's age range criterion id.
pub fn age_criterion_name(customer_id: u64, campaign_id: u64, age: AgeRange) -> String {
    format!(
        "customers/{customer_id}/campaignCriteria/{campaign_id}~{}",
        age.criterion_id()
    )
}

fn customer_fields(m: &Market, b: &mut RowBuilder) {
    let c = m.account().customer_id;
    b.customer(&CustomerAttrs {
        resource_name: format!("customers/{c}"),
        id: c,
        descriptive_name: "Ads-Bench advertiser".into(),
        time_zone: "UTC",
    });
}

fn budget_fields(m: &Market, c: &Campaign, b: &mut RowBuilder) {
    b.budget(&BudgetAttrs {
        resource_name: budget_name(m.account().customer_id, c.id),
        id: c.id,
        name: format!("{} budget", c.name),
        amount_micros: c.daily_budget_micros,
        delivery_method: "STANDARD".into(),
        status: "ENABLED".into(),
    });
}

fn campaign_fields(m: &Market, c: &Campaign, b: &mut RowBuilder) {
    customer_fields(m, b);
    budget_fields(m, c, b);
    let account = m.account();
    b.campaign(&CampaignAttrs {
        resource_name: account.campaign_resource(c.id).to_string(),
        id: c.id,
        name: c.name.clone(),
        status: c.status.as_str().into(),
        channel: "SEARCH".into(),
        bidding: c.bidding_strategy.type_name().into(),
        budget: budget_name(account.customer_id, c.id),
        start_date: Some(m.config().start_date),
        end_date: None,
        target_cpa_micros: match c.bidding_strategy {
            BiddingStrategy::TargetCpa { target_cpa_micros } => Some(target_cpa_micros),
            BiddingStrategy::ManualCpc => None,
        },
        labels: Value::List(Vec::new()),
    });
}

fn ad_group_fields(m: &Market, g: &AdGroup, b: &mut RowBuilder) {
    let account = m.account();
    if let Some(c) = account.campaign(g.campaign_id) {
        campaign_fields(m, c, b);
    }
    b.ad_group(&AdGroupAttrs {
        resource_name: account.ad_group_resource(g.id).to_string(),
        id: g.id,
        campaign: account.campaign_resource(g.campaign_id).to_string(),
        name: g.name.clone(),
        status: g.status.as_str().into(),
        kind: "SEARCH_STANDARD".into(),
        cpc_bid_micros: g.cpc_bid_micros,
        labels: Value::List(Vec::new()),
    });
}

fn keyword_fields(m: &Market, k: &Keyword, b: &mut RowBuilder) {
    let account = m.account();
    if let Some(g) = account.ad_group(k.ad_group_id) {
        ad_group_fields(m, g, b);
    }
    b.keyword(&KeywordAttrs {
        resource_name: account.keyword_resource(k).to_string(),
        criterion_id: k.id,
        ad_group: account.ad_group_resource(k.ad_group_id).to_string(),
        status: k.status.as_str().into(),
        negative: k.negative,
        text: k.text.clone(),
        match_type: k.match_type.as_str().into(),
        cpc_bid_micros: k.cpc_bid_micros,
        // The market has no quality score the agent may read.
        quality_score: None,
        labels: Value::List(Vec::new()),
    });
}

fn ad_fields(m: &Market, a: &Ad, b: &mut RowBuilder) {
    let account = m.account();
    if let Some(g) = account.ad_group(a.ad_group_id) {
        ad_group_fields(m, g, b);
    }
    b.ad(&AdAttrs {
        resource_name: account.ad_resource(a).to_string(),
        ad_group: account.ad_group_resource(a.ad_group_id).to_string(),
        ad_id: a.id,
        status: a.status.as_str().into(),
        headlines: a.headlines.clone(),
        descriptions: a.descriptions.clone(),
        final_urls: a.final_urls.clone(),
        approval_status: a.approval.as_str().into(),
        policy_topic_entries: match &a.approval {
            Approval::Approved => Vec::new(),
            Approval::Disapproved { topic, message } => vec![format!("{topic}: {message}")],
        },
    });
}

/// `customers/{c}/searchTermViews/{campaign}~{ad_group}~{term}`.
fn search_term_name(customer_id: u64, campaign_id: u64, ad_group_id: u64, term: &str) -> String {
    format!(
        "customers/{customer_id}/searchTermViews/{campaign_id}~{ad_group_id}~{}",
        URL_SAFE_NO_PAD.encode(term)
    )
}

/// (ad group id, term) of a search term's resource name.
fn search_term_of(resource_name: &str) -> Option<(u64, String)> {
    let ids = resource_name.rsplit('/').next()?;
    let mut parts = ids.splitn(3, '~');
    let _campaign = parts.next()?;
    let ad_group = parts.next()?.parse().ok()?;
    let term = String::from_utf8(URL_SAFE_NO_PAD.decode(parts.next()?).ok()?).ok()?;
    Some((ad_group, term))
}

fn search_term_fields(
    m: &Market,
    (campaign_id, ad_group_id, term): &(u64, u64, String),
    b: &mut RowBuilder,
) {
    let account = m.account();
    if let Some(g) = account.ad_group(*ad_group_id) {
        ad_group_fields(m, g, b);
    }
    let keyed = |negative: bool| {
        account.keywords.iter().any(|k| {
            k.ad_group_id == *ad_group_id
                && k.negative == negative
                && k.status != crate::market::Status::Removed
                && k.text == *term
        })
    };
    let status = match (keyed(false), keyed(true)) {
        (true, true) => "ADDED_EXCLUDED",
        (true, false) => "ADDED",
        (false, true) => "EXCLUDED",
        (false, false) => "NONE",
    };
    b.search_term(&SearchTermAttrs {
        resource_name: search_term_name(account.customer_id, *campaign_id, *ad_group_id, term),
        ad_group: account.ad_group_resource(*ad_group_id).to_string(),
        search_term: term.clone(),
        status: status.into(),
    });
}

fn counts(r: &MetricRow) -> Counts {
    Counts {
        impressions: r.impressions as i64,
        clicks: r.clicks as i64,
        cost_micros: r.cost_micros,
        conversions: r.conversions,
        conversions_value: r.conversions_value(),
    }
}

/// The id at the end of a resource name (the criterion id after `~`).
fn id_of(resource_name: &str) -> Option<u64> {
    resource_name.rsplit(['/', '~']).next()?.parse().ok()
}

impl RowSource for Market {
    fn customer_id(&self) -> u64 {
        self.account().customer_id
    }

    fn entities(&self, resource: Resource, fields: &[&'static str]) -> Vec<EntityRow> {
        let row =
            |name: String, fill: &dyn Fn(&mut RowBuilder)| RowBuilder::build(name, fields, fill);
        let account = self.account();
        match resource {
            Resource::Customer => vec![row(format!("customers/{}", account.customer_id), &|b| {
                customer_fields(self, b)
            })],
            Resource::CampaignBudget => account
                .campaigns
                .iter()
                .map(|c| {
                    row(budget_name(account.customer_id, c.id), &|b| {
                        customer_fields(self, b);
                        budget_fields(self, c, b);
                    })
                })
                .collect(),
            Resource::Campaign => account
                .campaigns
                .iter()
                .map(|c| {
                    row(account.campaign_resource(c.id).to_string(), &|b| {
                        campaign_fields(self, c, b)
                    })
                })
                .collect(),
            Resource::AdGroup => account
                .ad_groups
                .iter()
                .map(|g| {
                    row(account.ad_group_resource(g.id).to_string(), &|b| {
                        ad_group_fields(self, g, b)
                    })
                })
                .collect(),
            Resource::AdGroupCriterion | Resource::KeywordView => account
                .keywords
                .iter()
                .map(|k| {
                    row(account.keyword_resource(k).to_string(), &|b| {
                        keyword_fields(self, k, b)
                    })
                })
                .collect(),
            Resource::AdGroupAd => account
                .ads
                .iter()
                .map(|a| {
                    row(account.ad_resource(a).to_string(), &|b| {
                        ad_fields(self, a, b)
                    })
                })
                .collect(),
            Resource::SearchTermView => {
                let terms: BTreeSet<(u64, u64, u32)> = self
                    .metrics()
                    .search_terms()
                    .map(|(k, _)| (k.campaign_id, k.ad_group_id, k.query))
                    .collect();
                terms
                    .into_iter()
                    .map(|(c, g, q)| {
                        let key = (c, g, self.query_text(q));
                        let name = search_term_name(account.customer_id, c, g, &key.2);
                        row(name, &|b| search_term_fields(self, &key, b))
                    })
                    .collect()
            }
            Resource::CampaignCriterion => account
                .gender_exclusions
                .iter()
                .map(|&(campaign_id, gender)| {
                    (
                        campaign_id,
                        gender_criterion_name(account.customer_id, campaign_id, gender),
                        gender.criterion_id(),
                        Demographic::Gender(gender.as_str().into()),
                    )
                })
                .chain(account.age_exclusions.iter().map(|&(campaign_id, age)| {
                    (
                        campaign_id,
                        age_criterion_name(account.customer_id, campaign_id, age),
                        age.criterion_id(),
                        Demographic::AgeRange(age.as_str().into()),
                    )
                }))
                .filter_map(|(campaign_id, name, criterion_id, demographic)| {
                    let c = account.campaign(campaign_id)?;
                    Some(row(name.clone(), &|b| {
                        campaign_fields(self, c, b);
                        b.campaign_criterion(&CampaignCriterionAttrs {
                            resource_name: name.clone(),
                            campaign: account.campaign_resource(campaign_id).to_string(),
                            criterion_id,
                            negative: true,
                            demographic: demographic.clone(),
                        });
                    }))
                })
                .collect(),
        }
    }

    fn stats(&self, resource: Resource, resource_name: &str, dates: DateSpan) -> Vec<StatCell> {
        if resource == Resource::SearchTermView {
            // Daily rows: the catalog keeps `segments.hour` away from
            // them; each stands as the day's last hour, so a tracking
            // outage starting that day hides its conversions.
            let Some((ad_group_id, term)) = search_term_of(resource_name) else {
                return Vec::new();
            };
            return self
                .metrics()
                .search_terms()
                .filter(|(k, _)| {
                    k.ad_group_id == ad_group_id
                        && dates.contains(k.date)
                        && self.query_text(k.query) == term
                })
                .map(|(k, r)| StatCell {
                    date: k.date,
                    hour: 23,
                    counts: counts(r),
                })
                .collect();
        }
        let id = id_of(resource_name);
        // Which keyword rows belong to the entity; a budget is its campaign's.
        let keep = |k: &MetricKey| match resource {
            Resource::Customer => true,
            Resource::CampaignBudget | Resource::Campaign => Some(k.campaign_id) == id,
            Resource::AdGroup => Some(k.ad_group_id) == id,
            Resource::AdGroupCriterion | Resource::KeywordView => Some(k.criterion_id) == id,
            // An ad has no stats of its own (the catalog refuses them).
            Resource::CampaignCriterion | Resource::AdGroupAd | Resource::SearchTermView => false,
        };
        self.metrics()
            .rows()
            .filter(|(k, _)| keep(k))
            .filter_map(|(k, r)| {
                let date = k.date;
                dates.contains(date).then(|| StatCell {
                    date,
                    hour: k.hour,
                    counts: counts(r),
                })
            })
            .collect()
    }
}
