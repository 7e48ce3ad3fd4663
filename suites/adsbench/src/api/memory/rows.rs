//! The in-memory account as a [`RowSource`]: entity rows with the
//! attributes of the resources above them, and keyword stats summed up the
//! hierarchy by the engine.

use super::{AdGroup, Budget, Campaign, InMemoryAccount, Keyword};
use crate::api::rows::{
    AdGroupAttrs, BudgetAttrs, CampaignAttrs, CustomerAttrs, KeywordAttrs, RowBuilder,
};
use crate::gaql::{DateSpan, EntityRow, Resource, RowSource, StatCell};

impl InMemoryAccount {
    fn customer_row(&self, b: &mut RowBuilder) {
        b.customer(&CustomerAttrs {
            resource_name: self.customer_name(),
            id: self.customer_id,
            descriptive_name: self.descriptive_name.clone(),
            time_zone: "America/New_York",
        });
    }

    fn budget_fields(&self, budget: &Budget, b: &mut RowBuilder) {
        b.budget(&BudgetAttrs {
            resource_name: self.budget_name(budget.id),
            id: budget.id,
            name: budget.name.clone(),
            amount_micros: budget.amount_micros,
            delivery_method: budget.delivery_method.clone(),
            status: budget.status.clone(),
        });
    }

    fn campaign_row(&self, c: &Campaign, b: &mut RowBuilder) {
        self.customer_row(b);
        if let Some(budget) = self.budgets.iter().find(|x| x.id == c.budget_id) {
            self.budget_fields(budget, b);
        }
        b.campaign(&CampaignAttrs {
            resource_name: self.campaign_name(c.id),
            id: c.id,
            name: c.name.clone(),
            status: c.status.clone(),
            channel: c.channel.clone(),
            bidding: c.bidding.clone(),
            budget: self.budget_name(c.budget_id),
            start_date: c.start_date,
            end_date: c.end_date,
            target_cpa_micros: c.target_cpa_micros,
            labels: self.labels(&c.labels),
        });
    }

    fn ad_group_row(&self, g: &AdGroup, b: &mut RowBuilder) {
        if let Some(c) = self.campaigns.iter().find(|c| c.id == g.campaign_id) {
            self.campaign_row(c, b);
        }
        b.ad_group(&AdGroupAttrs {
            resource_name: self.ad_group_name(g.id),
            id: g.id,
            campaign: self.campaign_name(g.campaign_id),
            name: g.name.clone(),
            status: g.status.clone(),
            kind: g.kind.clone(),
            cpc_bid_micros: g.cpc_bid_micros,
            labels: self.labels(&g.labels),
        });
    }

    fn keyword_row(&self, k: &Keyword, b: &mut RowBuilder) {
        if let Some(g) = self.ad_groups.iter().find(|g| g.id == k.ad_group_id) {
            self.ad_group_row(g, b);
        }
        b.keyword(&KeywordAttrs {
            resource_name: self.keyword_name(k),
            criterion_id: k.id,
            ad_group: self.ad_group_name(k.ad_group_id),
            status: k.status.clone(),
            negative: k.negative,
            text: k.text.clone(),
            match_type: k.match_type.clone(),
            cpc_bid_micros: k.cpc_bid_micros,
            quality_score: k.quality_score,
            labels: self.labels(&k.labels),
        });
    }
}

impl RowSource for InMemoryAccount {
    fn customer_id(&self) -> u64 {
        self.customer_id
    }

    fn entities(&self, resource: Resource, fields: &[&'static str]) -> Vec<EntityRow> {
        let row =
            |name: String, fill: &dyn Fn(&mut RowBuilder)| RowBuilder::build(name, fields, fill);
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
            // This account targets no audience, shows no ads and keeps no
            // search terms.
            Resource::CampaignCriterion | Resource::AdGroupAd | Resource::SearchTermView => {
                Vec::new()
            }
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
            Resource::CampaignCriterion | Resource::AdGroupAd | Resource::SearchTermView => {
                Vec::new()
            }
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
