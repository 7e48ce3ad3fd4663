//! The in-memory account as a [`RowSource`]: entity rows with the
//! attributes of the resources above them, and keyword stats summed up the
//! hierarchy by the engine.

use super::{AdGroup, Budget, Campaign, InMemoryAccount, Keyword};
use crate::api::clock::SimDate;
use crate::gaql::{DateSpan, EntityRow, Resource, RowSource, StatCell, Value};
use std::collections::BTreeMap;

impl InMemoryAccount {
    fn customer_row(&self, b: &mut RowBuilder) {
        b.put("customer.resource_name", || {
            Value::ResourceName(self.customer_name())
        });
        b.put("customer.id", || Value::Int64(self.customer_id as i64));
        b.put("customer.descriptive_name", || {
            Value::String(self.descriptive_name.clone())
        });
        b.put("customer.currency_code", || Value::String("USD".into()));
        b.put("customer.time_zone", || {
            Value::String("America/New_York".into())
        });
        b.put("customer.manager", || Value::Bool(false));
    }

    fn budget_fields(&self, budget: &Budget, b: &mut RowBuilder) {
        b.put("campaign_budget.resource_name", || {
            Value::ResourceName(self.budget_name(budget.id))
        });
        b.put("campaign_budget.id", || Value::Int64(budget.id as i64));
        b.put("campaign_budget.name", || {
            Value::String(budget.name.clone())
        });
        b.put("campaign_budget.amount_micros", || {
            Value::Int64(budget.amount_micros)
        });
        b.put("campaign_budget.delivery_method", || {
            Value::Enum(budget.delivery_method.clone())
        });
        b.put("campaign_budget.status", || {
            Value::Enum(budget.status.clone())
        });
    }

    fn campaign_row(&self, c: &Campaign, b: &mut RowBuilder) {
        self.customer_row(b);
        if let Some(budget) = self.budgets.iter().find(|x| x.id == c.budget_id) {
            self.budget_fields(budget, b);
        }
        let date = |d: Option<SimDate>| d.map_or(Value::Null, Value::Date);
        b.put("campaign.resource_name", || {
            Value::ResourceName(self.campaign_name(c.id))
        });
        b.put("campaign.id", || Value::Int64(c.id as i64));
        b.put("campaign.name", || Value::String(c.name.clone()));
        b.put("campaign.status", || Value::Enum(c.status.clone()));
        b.put("campaign.advertising_channel_type", || {
            Value::Enum(c.channel.clone())
        });
        b.put("campaign.bidding_strategy_type", || {
            Value::Enum(c.bidding.clone())
        });
        b.put("campaign.campaign_budget", || {
            Value::ResourceName(self.budget_name(c.budget_id))
        });
        b.put("campaign.start_date", || date(c.start_date));
        b.put("campaign.end_date", || date(c.end_date));
        b.put("campaign.target_cpa.target_cpa_micros", || {
            c.target_cpa_micros.map_or(Value::Null, Value::Int64)
        });
        b.put("campaign.labels", || self.labels(&c.labels));
    }

    fn ad_group_row(&self, g: &AdGroup, b: &mut RowBuilder) {
        if let Some(c) = self.campaigns.iter().find(|c| c.id == g.campaign_id) {
            self.campaign_row(c, b);
        }
        b.put("ad_group.resource_name", || {
            Value::ResourceName(self.ad_group_name(g.id))
        });
        b.put("ad_group.id", || Value::Int64(g.id as i64));
        b.put("ad_group.name", || Value::String(g.name.clone()));
        b.put("ad_group.status", || Value::Enum(g.status.clone()));
        b.put("ad_group.type", || Value::Enum(g.kind.clone()));
        b.put("ad_group.campaign", || {
            Value::ResourceName(self.campaign_name(g.campaign_id))
        });
        b.put("ad_group.cpc_bid_micros", || Value::Int64(g.cpc_bid_micros));
        b.put("ad_group.labels", || self.labels(&g.labels));
    }

    fn keyword_row(&self, k: &Keyword, b: &mut RowBuilder) {
        if let Some(g) = self.ad_groups.iter().find(|g| g.id == k.ad_group_id) {
            self.ad_group_row(g, b);
        }
        b.put("ad_group_criterion.resource_name", || {
            Value::ResourceName(self.keyword_name(k))
        });
        b.put("ad_group_criterion.criterion_id", || {
            Value::Int64(k.id as i64)
        });
        b.put("ad_group_criterion.ad_group", || {
            Value::ResourceName(self.ad_group_name(k.ad_group_id))
        });
        b.put("ad_group_criterion.status", || {
            Value::Enum(k.status.clone())
        });
        b.put("ad_group_criterion.type", || Value::Enum("KEYWORD".into()));
        b.put("ad_group_criterion.negative", || Value::Bool(k.negative));
        b.put("ad_group_criterion.keyword.text", || {
            Value::String(k.text.clone())
        });
        b.put("ad_group_criterion.keyword.match_type", || {
            Value::Enum(k.match_type.clone())
        });
        b.put("ad_group_criterion.cpc_bid_micros", || {
            k.cpc_bid_micros.map_or(Value::Null, Value::Int64)
        });
        b.put("ad_group_criterion.quality_info.quality_score", || {
            k.quality_score.map_or(Value::Null, Value::Int64)
        });
        b.put("ad_group_criterion.labels", || self.labels(&k.labels));
    }
}

/// Fills an entity row with the wanted attributes only; values are
/// computed lazily, so unwanted ones cost nothing.
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

impl RowSource for InMemoryAccount {
    fn customer_id(&self) -> u64 {
        self.customer_id
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
        match resource {
            Resource::Customer => vec![row(self.customer_name(), &|r| self.customer_row(r))],
            Resource::CampaignBudget => self
                .budgets
                .iter()
                .map(|x| {
                    row(self.budget_name(x.id), &|r| {
                        self.customer_row(r);
                        self.budget_fields(x, r);
                    })
                })
                .collect(),
            Resource::Campaign => self
                .campaigns
                .iter()
                .map(|c| row(self.campaign_name(c.id), &|r| self.campaign_row(c, r)))
                .collect(),
            Resource::AdGroup => self
                .ad_groups
                .iter()
                .map(|g| row(self.ad_group_name(g.id), &|r| self.ad_group_row(g, r)))
                .collect(),
            // The engine serves keyword_view from the criteria; answering
            // it the same way keeps a direct caller right too.
            Resource::AdGroupCriterion | Resource::KeywordView => self
                .keywords
                .iter()
                .map(|k| row(self.keyword_name(k), &|r| self.keyword_row(k, r)))
                .collect(),
        }
    }

    fn stats(&self, resource: Resource, resource_name: &str, dates: DateSpan) -> Vec<StatCell> {
        let id = InMemoryAccount::id_of(resource_name);
        let group_campaign = |g: u64| {
            self.ad_groups
                .iter()
                .find(|a| a.id == g)
                .map(|a| a.campaign_id)
        };
        let campaign_budget = |c: Option<u64>| {
            self.campaigns
                .iter()
                .find(|x| Some(x.id) == c)
                .map(|x| x.budget_id)
        };
        let keywords: Vec<u64> = match resource {
            Resource::Customer => self.stats.keys().copied().collect(),
            // A shared budget's stats are those of every campaign on it.
            Resource::CampaignBudget => self
                .keywords
                .iter()
                .filter(|k| id.is_some() && campaign_budget(group_campaign(k.ad_group_id)) == id)
                .map(|k| k.id)
                .collect(),
            Resource::AdGroupCriterion | Resource::KeywordView => id.into_iter().collect(),
            Resource::AdGroup => self
                .keywords
                .iter()
                .filter(|k| Some(k.ad_group_id) == id)
                .map(|k| k.id)
                .collect(),
            Resource::Campaign => self
                .keywords
                .iter()
                .filter(|k| id.is_some() && group_campaign(k.ad_group_id) == id)
                .map(|k| k.id)
                .collect(),
        };
        keywords
            .iter()
            .filter_map(|k| self.stats.get(k))
            .flatten()
            .filter(|c| dates.contains(c.date))
            .copied()
            .collect()
    }
}
