//! The market as a [`RowSource`]: the agent's account (campaigns, their
//! budgets, ad groups, keywords) as entity rows, and the market's hourly
//! keyword metrics as stat cells, summed up the hierarchy by the engine.
//!
//! The market has no budget entity: each campaign owns its daily budget,
//! so the API shows one `campaign_budget` per campaign with the campaign's
//! id (`customers/{c}/campaignBudgets/{campaign_id}`).

use super::api_date;
use crate::gaql::{Counts, DateSpan, EntityRow, Resource, RowSource, StatCell, Value};
use crate::market::{AdGroup, Campaign, Keyword, Market, MetricKey, MetricRow};
use std::collections::BTreeMap;

/// Fills an entity row with the wanted attributes only.
struct RowBuilder<'f> {
    fields: &'f [&'static str],
    row: EntityRow,
}

impl RowBuilder<'_> {
    fn put(&mut self, name: &'static str, value: impl FnOnce() -> Value) {
        if self.fields.contains(&name) {
            self.row.attributes.insert(name, value());
        }
    }
}

/// `customers/{c}/campaignBudgets/{id}`: a campaign's own budget.
pub fn budget_name(customer_id: u64, campaign_id: u64) -> String {
    format!("customers/{customer_id}/campaignBudgets/{campaign_id}")
}

fn customer_fields(m: &Market, b: &mut RowBuilder) {
    let c = m.account().customer_id;
    b.put("customer.resource_name", || {
        Value::ResourceName(format!("customers/{c}"))
    });
    b.put("customer.id", || Value::Int64(c as i64));
    b.put("customer.descriptive_name", || {
        Value::String("Ads-Bench advertiser".into())
    });
    b.put("customer.currency_code", || Value::String("USD".into()));
    b.put("customer.time_zone", || Value::String("UTC".into()));
    b.put("customer.manager", || Value::Bool(false));
}

fn budget_fields(m: &Market, c: &Campaign, b: &mut RowBuilder) {
    let name = budget_name(m.account().customer_id, c.id);
    b.put("campaign_budget.resource_name", || {
        Value::ResourceName(name)
    });
    b.put("campaign_budget.id", || Value::Int64(c.id as i64));
    b.put("campaign_budget.name", || {
        Value::String(format!("{} budget", c.name))
    });
    b.put("campaign_budget.amount_micros", || {
        Value::Int64(c.daily_budget_micros)
    });
    b.put("campaign_budget.delivery_method", || {
        Value::Enum("STANDARD".into())
    });
    b.put("campaign_budget.status", || Value::Enum("ENABLED".into()));
}

fn campaign_fields(m: &Market, c: &Campaign, b: &mut RowBuilder) {
    customer_fields(m, b);
    budget_fields(m, c, b);
    let account = m.account();
    b.put("campaign.resource_name", || {
        Value::ResourceName(account.campaign_resource(c.id).to_string())
    });
    b.put("campaign.id", || Value::Int64(c.id as i64));
    b.put("campaign.name", || Value::String(c.name.clone()));
    b.put("campaign.status", || Value::Enum(c.status.as_str().into()));
    b.put("campaign.advertising_channel_type", || {
        Value::Enum("SEARCH".into())
    });
    b.put("campaign.bidding_strategy_type", || {
        Value::Enum(c.bidding_strategy.type_name().into())
    });
    b.put("campaign.campaign_budget", || {
        Value::ResourceName(budget_name(account.customer_id, c.id))
    });
    b.put("campaign.start_date", || {
        Value::Date(api_date(m.config().start_date))
    });
    b.put("campaign.end_date", || Value::Null);
    b.put("campaign.target_cpa.target_cpa_micros", || {
        match c.bidding_strategy {
            crate::market::BiddingStrategy::TargetCpa { target_cpa_micros } => {
                Value::Int64(target_cpa_micros)
            }
            crate::market::BiddingStrategy::ManualCpc => Value::Null,
        }
    });
    b.put("campaign.labels", || Value::List(Vec::new()));
}

fn ad_group_fields(m: &Market, g: &AdGroup, b: &mut RowBuilder) {
    let account = m.account();
    if let Some(c) = account.campaign(g.campaign_id) {
        campaign_fields(m, c, b);
    }
    b.put("ad_group.resource_name", || {
        Value::ResourceName(account.ad_group_resource(g.id).to_string())
    });
    b.put("ad_group.id", || Value::Int64(g.id as i64));
    b.put("ad_group.name", || Value::String(g.name.clone()));
    b.put("ad_group.status", || Value::Enum(g.status.as_str().into()));
    b.put("ad_group.type", || Value::Enum("SEARCH_STANDARD".into()));
    b.put("ad_group.campaign", || {
        Value::ResourceName(account.campaign_resource(g.campaign_id).to_string())
    });
    b.put("ad_group.cpc_bid_micros", || Value::Int64(g.cpc_bid_micros));
    b.put("ad_group.labels", || Value::List(Vec::new()));
}

fn keyword_fields(m: &Market, k: &Keyword, b: &mut RowBuilder) {
    let account = m.account();
    if let Some(g) = account.ad_group(k.ad_group_id) {
        ad_group_fields(m, g, b);
    }
    b.put("ad_group_criterion.resource_name", || {
        Value::ResourceName(account.keyword_resource(k).to_string())
    });
    b.put("ad_group_criterion.criterion_id", || {
        Value::Int64(k.id as i64)
    });
    b.put("ad_group_criterion.ad_group", || {
        Value::ResourceName(account.ad_group_resource(k.ad_group_id).to_string())
    });
    b.put("ad_group_criterion.status", || {
        Value::Enum(k.status.as_str().into())
    });
    b.put("ad_group_criterion.type", || Value::Enum("KEYWORD".into()));
    b.put("ad_group_criterion.negative", || Value::Bool(k.negative));
    b.put("ad_group_criterion.keyword.text", || {
        Value::String(k.text.clone())
    });
    b.put("ad_group_criterion.keyword.match_type", || {
        Value::Enum(k.match_type.as_str().into())
    });
    b.put("ad_group_criterion.cpc_bid_micros", || {
        k.cpc_bid_micros.map_or(Value::Null, Value::Int64)
    });
    // The market has no quality score the agent may read.
    b.put("ad_group_criterion.quality_info.quality_score", || {
        Value::Null
    });
    b.put("ad_group_criterion.labels", || Value::List(Vec::new()));
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
        let row = |name: String, fill: &dyn Fn(&mut RowBuilder)| {
            let mut b = RowBuilder {
                fields,
                row: EntityRow {
                    resource_name: name,
                    attributes: BTreeMap::new(),
                },
            };
            fill(&mut b);
            b.row
        };
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
        }
    }

    fn stats(&self, resource: Resource, resource_name: &str, dates: DateSpan) -> Vec<StatCell> {
        let id = id_of(resource_name);
        // Which keyword rows belong to the entity; a budget is its campaign's.
        let keep = |k: &MetricKey| match resource {
            Resource::Customer => true,
            Resource::CampaignBudget | Resource::Campaign => Some(k.campaign_id) == id,
            Resource::AdGroup => Some(k.ad_group_id) == id,
            Resource::AdGroupCriterion | Resource::KeywordView => Some(k.criterion_id) == id,
        };
        self.metrics()
            .rows()
            .filter(|(k, _)| keep(k))
            .filter_map(|(k, r)| {
                let date = api_date(k.date);
                dates.contains(date).then(|| StatCell {
                    date,
                    hour: k.hour,
                    counts: counts(r),
                })
            })
            .collect()
    }
}
