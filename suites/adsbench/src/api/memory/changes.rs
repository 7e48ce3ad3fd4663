//! The in-memory account as a [`MutableAccount`]: the domain checks
//! (required fields, parents that exist, unique names, positive bids,
//! mutable fields) and the changes, each logged with its note.

use super::{AdGroup, Budget, Campaign, ChangeRecord, InMemoryAccount, Keyword};
use crate::api::error::{ErrorCode, GoogleAdsError};
use crate::api::mutate::{
    check_mutable, field_required, resource_of, MutableAccount, MutateOperation, OperationKind,
};
use crate::gaql::{Resource, Value};
use std::collections::BTreeMap;

fn resource_error(code: &'static str, message: String) -> GoogleAdsError {
    GoogleAdsError::new(ErrorCode::Other(code), message)
}

fn text(fields: &BTreeMap<String, Value>, key: &str) -> Option<String> {
    fields
        .get(key)
        .and_then(|v| v.as_text())
        .map(str::to_string)
}

fn int(fields: &BTreeMap<String, Value>, key: &str) -> Option<i64> {
    match fields.get(key) {
        Some(Value::Int64(n)) => Some(*n),
        _ => None,
    }
}

impl MutableAccount for InMemoryAccount {
    fn customer_id(&self) -> u64 {
        self.customer_id
    }

    fn validate(&self, op: &MutateOperation) -> Result<(), GoogleAdsError> {
        let required = |fields: &BTreeMap<String, Value>, key: &str| match text(fields, key) {
            Some(t) if !t.trim().is_empty() => Ok(t),
            _ => Err(field_required(key)),
        };
        // Bids and budgets are positive amounts of money.
        let bid_ok = |fields: &BTreeMap<String, Value>| {
            for key in ["cpc_bid_micros", "amount_micros"] {
                if let Some(n) = int(fields, key).filter(|n| *n <= 0) {
                    return Err(resource_error(
                        "RangeError.TOO_LOW",
                        format!("{key} must be positive."),
                    )
                    .triggered_by(n.to_string()));
                }
            }
            Ok(())
        };
        let live_budget = |fields: &BTreeMap<String, Value>| {
            let budget = required(fields, "campaign_budget")?;
            let id = InMemoryAccount::id_of(&budget);
            if self
                .budgets
                .iter()
                .any(|b| Some(b.id) == id && b.status != "REMOVED")
            {
                Ok(())
            } else {
                Err(not_found(&budget))
            }
        };
        match &op.kind {
            OperationKind::Create { resource, fields } => {
                bid_ok(fields)?;
                match resource {
                    Resource::CampaignBudget => {
                        required(fields, "name")?;
                        if int(fields, "amount_micros").is_none() {
                            return Err(resource_error(
                                "FieldError.REQUIRED",
                                "amount_micros is required.".into(),
                            ));
                        }
                    }
                    Resource::Campaign => {
                        live_budget(fields)?;
                        let name = required(fields, "name")?;
                        if self
                            .campaigns
                            .iter()
                            .any(|c| c.name == name && c.status != "REMOVED")
                        {
                            return Err(resource_error(
                                "CampaignError.DUPLICATE_CAMPAIGN_NAME",
                                format!("A campaign is already named '{name}'."),
                            ));
                        }
                    }
                    Resource::AdGroup => {
                        let campaign = required(fields, "campaign")?;
                        let id = InMemoryAccount::id_of(&campaign);
                        if !self
                            .campaigns
                            .iter()
                            .any(|c| Some(c.id) == id && c.status != "REMOVED")
                        {
                            return Err(not_found(&campaign));
                        }
                        let name = required(fields, "name")?;
                        let taken = self.ad_groups.iter().any(|g| {
                            Some(g.campaign_id) == id && g.name == name && g.status != "REMOVED"
                        });
                        if taken {
                            return Err(resource_error(
                                "AdGroupError.DUPLICATE_ADGROUP_NAME",
                                format!("The campaign already has an ad group named '{name}'."),
                            ));
                        }
                    }
                    Resource::AdGroupCriterion => {
                        let group = required(fields, "ad_group")?;
                        let id = InMemoryAccount::id_of(&group);
                        if !self
                            .ad_groups
                            .iter()
                            .any(|g| Some(g.id) == id && g.status != "REMOVED")
                        {
                            return Err(not_found(&group));
                        }
                        let text = required(fields, "keyword.text")?;
                        if text.chars().count() > 80 {
                            return Err(resource_error(
                                "CriterionError.KEYWORD_TEXT_TOO_LONG",
                                "Keyword text is at most 80 characters.".into(),
                            ));
                        }
                        required(fields, "keyword.match_type")?;
                    }
                    Resource::Customer
                    | Resource::KeywordView
                    | Resource::CampaignCriterion
                    | Resource::AdGroupAd
                    | Resource::SearchTermView => {
                        return Err(resource_error(
                            "MutateError.MUTATE_NOT_ALLOWED",
                            format!("A {resource} cannot be created here."),
                        ))
                    }
                }
                Ok(())
            }
            OperationKind::Update {
                resource_name,
                fields,
                update_mask,
            } => {
                let resource = resource_of(resource_name)?;
                self.find(resource, resource_name)?;
                let mutable: &[&str] = match resource {
                    Resource::CampaignBudget => &["name", "amount_micros", "delivery_method"],
                    Resource::Campaign => &[
                        "name",
                        "status",
                        "campaign_budget",
                        "bidding_strategy_type",
                        "target_cpa.target_cpa_micros",
                        "end_date",
                    ],
                    Resource::AdGroup => &["name", "status", "cpc_bid_micros"],
                    _ => &["status", "cpc_bid_micros"],
                };
                check_mutable(resource, update_mask, mutable)?;
                // Only these can be unset; every other masked field needs a value.
                let clearable = ["target_cpa.target_cpa_micros", "end_date"];
                let keyword_bid = resource == Resource::AdGroupCriterion;
                for path in update_mask {
                    let unset = matches!(fields.get(path), None | Some(Value::Null));
                    let may_clear = clearable.contains(&path.as_str())
                        || (keyword_bid && path == "cpc_bid_micros");
                    if unset && !may_clear {
                        return Err(field_required(path));
                    }
                }
                if update_mask.iter().any(|p| p == "campaign_budget") {
                    live_budget(fields)?;
                }
                if update_mask.iter().any(|p| p == "name") {
                    let name = required(fields, "name")?;
                    let id = InMemoryAccount::id_of(resource_name);
                    if resource == Resource::Campaign
                        && self
                            .campaigns
                            .iter()
                            .any(|c| c.name == name && Some(c.id) != id && c.status != "REMOVED")
                    {
                        return Err(resource_error(
                            "CampaignError.DUPLICATE_CAMPAIGN_NAME",
                            format!("A campaign is already named '{name}'."),
                        ));
                    }
                }
                bid_ok(fields)
            }
            OperationKind::Remove { resource_name } => {
                let resource = resource_of(resource_name)?;
                self.find(resource, resource_name)
            }
        }
    }

    fn apply(&mut self, op: &MutateOperation) -> String {
        let (name, kind) = match &op.kind {
            OperationKind::Create { resource, fields } => {
                (self.create(*resource, fields), "CREATE")
            }
            OperationKind::Update {
                resource_name,
                fields,
                update_mask,
            } => {
                for path in update_mask {
                    self.set(
                        resource_name,
                        path,
                        fields.get(path).cloned().unwrap_or(Value::Null),
                    );
                }
                (resource_name.clone(), "UPDATE")
            }
            OperationKind::Remove { resource_name } => {
                self.set(resource_name, "status", Value::Enum("REMOVED".into()));
                (resource_name.clone(), "REMOVE")
            }
        };
        self.changes.push(ChangeRecord {
            resource_name: name.clone(),
            operation: kind,
            change_note: op.change_note.clone(),
        });
        name
    }
}

fn not_found(resource_name: &str) -> GoogleAdsError {
    resource_error(
        "MutateError.RESOURCE_NOT_FOUND",
        format!("{resource_name} does not exist."),
    )
    .triggered_by(resource_name)
}

impl InMemoryAccount {
    fn find(&self, resource: Resource, resource_name: &str) -> Result<(), GoogleAdsError> {
        let id = InMemoryAccount::id_of(resource_name);
        let exists = resource_name.starts_with(&format!("{}/", self.customer_name()))
            && match resource {
                Resource::CampaignBudget => self.budgets.iter().any(|b| Some(b.id) == id),
                Resource::Campaign => self.campaigns.iter().any(|c| Some(c.id) == id),
                Resource::AdGroup => self.ad_groups.iter().any(|g| Some(g.id) == id),
                Resource::AdGroupCriterion => self
                    .keywords
                    .iter()
                    .any(|k| Some(k.id) == id && self.keyword_name(k) == resource_name),
                Resource::Customer
                | Resource::KeywordView
                | Resource::CampaignCriterion
                | Resource::AdGroupAd
                | Resource::SearchTermView => false,
            };
        if exists {
            Ok(())
        } else {
            Err(not_found(resource_name))
        }
    }

    fn create(&mut self, resource: Resource, fields: &BTreeMap<String, Value>) -> String {
        let id = self.fresh_id();
        let status = text(fields, "status").unwrap_or_else(|| "ENABLED".into());
        let parent = |key: &str| {
            text(fields, key)
                .and_then(|t| InMemoryAccount::id_of(&t))
                .unwrap_or(0)
        };
        match resource {
            Resource::CampaignBudget => {
                self.budgets.push(Budget {
                    id,
                    name: text(fields, "name").unwrap_or_default(),
                    amount_micros: int(fields, "amount_micros").unwrap_or_default(),
                    delivery_method: text(fields, "delivery_method")
                        .unwrap_or_else(|| "STANDARD".into()),
                    status,
                });
                self.budget_name(id)
            }
            Resource::Campaign => {
                self.campaigns.push(Campaign {
                    id,
                    name: text(fields, "name").unwrap_or_default(),
                    status,
                    channel: text(fields, "advertising_channel_type")
                        .unwrap_or_else(|| "SEARCH".into()),
                    bidding: text(fields, "bidding_strategy_type")
                        .unwrap_or_else(|| "MANUAL_CPC".into()),
                    budget_id: parent("campaign_budget"),
                    start_date: None,
                    end_date: None,
                    target_cpa_micros: int(fields, "target_cpa.target_cpa_micros"),
                    labels: vec![],
                });
                self.campaign_name(id)
            }
            Resource::AdGroup => {
                self.ad_groups.push(AdGroup {
                    id,
                    campaign_id: parent("campaign"),
                    name: text(fields, "name").unwrap_or_default(),
                    status,
                    kind: text(fields, "type").unwrap_or_else(|| "SEARCH_STANDARD".into()),
                    cpc_bid_micros: int(fields, "cpc_bid_micros").unwrap_or(1_000_000),
                    labels: vec![],
                });
                self.ad_group_name(id)
            }
            _ => {
                let k = Keyword {
                    id,
                    ad_group_id: parent("ad_group"),
                    text: text(fields, "keyword.text").unwrap_or_default(),
                    match_type: text(fields, "keyword.match_type").unwrap_or_default(),
                    status,
                    negative: matches!(fields.get("negative"), Some(Value::Bool(true))),
                    cpc_bid_micros: int(fields, "cpc_bid_micros"),
                    quality_score: None,
                    labels: vec![],
                };
                let name = self.keyword_name(&k);
                self.keywords.push(k);
                name
            }
        }
    }

    fn set(&mut self, resource_name: &str, path: &str, value: Value) {
        let id = InMemoryAccount::id_of(resource_name);
        let t = value.as_text().map(str::to_string);
        let n = match value {
            Value::Int64(n) => Some(n),
            _ => None,
        };
        let date = match value {
            Value::Date(d) => Some(d),
            _ => None,
        };
        match resource_of(resource_name) {
            Ok(Resource::CampaignBudget) => {
                if let Some(b) = self.budgets.iter_mut().find(|b| Some(b.id) == id) {
                    match path {
                        "name" => b.name = t.unwrap_or_default(),
                        "amount_micros" => b.amount_micros = n.unwrap_or(b.amount_micros),
                        "delivery_method" => b.delivery_method = t.unwrap_or_default(),
                        "status" => b.status = t.unwrap_or_default(),
                        _ => {}
                    }
                }
            }
            Ok(Resource::Campaign) => {
                if let Some(c) = self.campaigns.iter_mut().find(|c| Some(c.id) == id) {
                    match path {
                        "name" => c.name = t.unwrap_or_default(),
                        "status" => c.status = t.unwrap_or_default(),
                        "bidding_strategy_type" => c.bidding = t.unwrap_or_default(),
                        "campaign_budget" => {
                            c.budget_id = t
                                .and_then(|t| InMemoryAccount::id_of(&t))
                                .unwrap_or(c.budget_id)
                        }
                        "target_cpa.target_cpa_micros" => c.target_cpa_micros = n,
                        "end_date" => c.end_date = date,
                        _ => {}
                    }
                }
            }
            Ok(Resource::AdGroup) => {
                if let Some(g) = self.ad_groups.iter_mut().find(|g| Some(g.id) == id) {
                    match path {
                        "name" => g.name = t.unwrap_or_default(),
                        "status" => g.status = t.unwrap_or_default(),
                        "cpc_bid_micros" => g.cpc_bid_micros = n.unwrap_or(g.cpc_bid_micros),
                        _ => {}
                    }
                }
            }
            Ok(Resource::AdGroupCriterion) => {
                if let Some(k) = self.keywords.iter_mut().find(|k| Some(k.id) == id) {
                    match path {
                        "status" => k.status = t.unwrap_or_default(),
                        "cpc_bid_micros" => k.cpc_bid_micros = n,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}
