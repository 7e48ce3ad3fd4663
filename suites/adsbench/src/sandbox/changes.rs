//! Mutate operations as market [`AccountChange`]s: [`PendingChanges`] is
//! the [`MutableAccount`] the API's mutate layer runs on. It holds a copy
//! of the market's account (cheap: entities only, no metrics) and the
//! changes accepted so far; the sandbox applies them to the market once
//! the request commits, so an atomic request that fails leaves the market
//! untouched, and the market's event log sees exactly the committed
//! changes, in order.
//!
//! What maps to what (anything else is `MutateError.MUTATE_NOT_ALLOWED`):
//! - campaign: update `name`, `status` (REMOVED too); remove;
//! - campaign_budget (one per campaign, same id): update `amount_micros`;
//! - ad group: create (`campaign`, `name`, `status`, `cpc_bid_micros`);
//!   update `name`, `status`, `cpc_bid_micros`; remove;
//! - keyword (ad_group_criterion): create (`ad_group`, `keyword.text`,
//!   `keyword.match_type`, optional `status`, `cpc_bid_micros`,
//!   `negative`); update `status`, `cpc_bid_micros` (null: the ad group's);
//!   remove;
//! - ad (ad_group_ad, a responsive search ad): create (`ad_group`,
//!   `ad.responsive_search_ad.headlines`, `.descriptions` and
//!   `ad.final_urls` as lists of strings, optional `status`); update
//!   `status`; remove. Google's text assets are plain strings here, and an
//!   ad's text cannot change (a new text is a new ad, as in Google);
//! - gender or age exclusion (campaign_criterion): create (`campaign`,
//!   `negative = true`, and `gender.type` FEMALE, MALE or UNDETERMINED or
//!   `age_range.type` AGE_RANGE_18_24 ... AGE_RANGE_65_UP), named
//!   `customers/{c}/campaignCriteria/{campaign}~{criterion id}` (Google's
//!   gender or age range criterion id); remove (lifts the exclusion). A positive criterion is refused: the
//!   account targets everyone its keywords match unless it excludes.
//!
//! Campaigns are not created through the API: the scenario hands the agent
//! its account, as an advertiser's account exists before its manager.

use super::rows::{age_criterion_name, budget_name, gender_criterion_name};
use crate::api::error::{ErrorCode, GoogleAdsError};
use crate::api::mutate::{
    check_mutable, field_required, resource_of, MutableAccount, MutateOperation, OperationKind,
};
use crate::gaql::{Resource, Value};
use crate::market::{
    Account, AccountChange, AdCopy, AgeRange, Gender, MarketError, MatchType, ResourceName, Status,
};
use std::collections::BTreeMap;

/// The account a mutate request changes, and the changes it accepted.
#[derive(Debug, Clone)]
pub struct PendingChanges {
    account: Account,
    changes: Vec<AccountChange>,
}

impl PendingChanges {
    /// Starts from the market's account as it stands between two ticks.
    pub fn new(account: Account) -> PendingChanges {
        PendingChanges {
            account,
            changes: Vec::new(),
        }
    }

    /// The accepted changes, in request order.
    pub fn into_changes(self) -> Vec<AccountChange> {
        self.changes
    }
}

fn refused(code: &'static str, trigger: &str, message: String) -> GoogleAdsError {
    GoogleAdsError::new(ErrorCode::Other(code), message).triggered_by(trigger)
}

/// A market refusal as Google's error shape; the trigger names the field.
fn market_error(e: MarketError) -> GoogleAdsError {
    let (code, field) = match &e {
        MarketError::Invalid { field, .. } => ("FieldError.INVALID_VALUE", field),
        MarketError::NotFound { field, .. } => ("MutateError.RESOURCE_NOT_FOUND", field),
        MarketError::Rejected { field, .. } => ("MutateError.MUTATE_NOT_ALLOWED", field),
    };
    refused(code, field, e.to_string())
}

fn not_allowed(what: &str) -> GoogleAdsError {
    refused(
        "MutateError.MUTATE_NOT_ALLOWED",
        what,
        format!("{what} is not supported by this account."),
    )
}

fn required<'v>(
    fields: &'v BTreeMap<String, Value>,
    key: &str,
) -> Result<&'v Value, GoogleAdsError> {
    match fields.get(key) {
        Some(v) if *v != Value::Null => Ok(v),
        _ => Err(field_required(key)),
    }
}

fn text(fields: &BTreeMap<String, Value>, key: &str) -> Result<String, GoogleAdsError> {
    required(fields, key)?
        .as_text()
        .map(str::to_string)
        .ok_or_else(|| {
            refused(
                "FieldError.INVALID_VALUE",
                key,
                format!("{key} must be text."),
            )
        })
}

fn micros(fields: &BTreeMap<String, Value>, key: &str) -> Result<i64, GoogleAdsError> {
    match required(fields, key)? {
        Value::Int64(n) => Ok(*n),
        v => Err(refused(
            "FieldError.INVALID_VALUE",
            key,
            format!("{key} must be micros, got {v}."),
        )),
    }
}

fn status(fields: &BTreeMap<String, Value>, key: &str) -> Result<Status, GoogleAdsError> {
    Status::parse(key, &text(fields, key)?).map_err(market_error)
}

/// A create's `status`, ENABLED when absent.
fn status_or_enabled(fields: &BTreeMap<String, Value>) -> Result<Status, GoogleAdsError> {
    match fields.get("status") {
        None | Some(Value::Null) => Ok(Status::Enabled),
        Some(_) => status(fields, "status"),
    }
}

/// A list of strings (the catalog's shape check has typed its items).
fn texts(fields: &BTreeMap<String, Value>, key: &str) -> Result<Vec<String>, GoogleAdsError> {
    match required(fields, key)? {
        Value::List(items) => Ok(items
            .iter()
            .filter_map(|v| v.as_text().map(str::to_string))
            .collect()),
        v => Err(refused(
            "FieldError.INVALID_VALUE",
            key,
            format!("{key} must be a list of strings, got {v}."),
        )),
    }
}

/// The id of `resource_name` within its kind (the criterion id after `~`).
fn ids(resource_name: &str) -> Result<ResourceName, GoogleAdsError> {
    ResourceName::parse(resource_name).map_err(market_error)
}

fn parent_id(fields: &BTreeMap<String, Value>, key: &str) -> Result<u64, GoogleAdsError> {
    let name = text(fields, key)?;
    name.rsplit('/')
        .next()
        .and_then(|id| id.parse().ok())
        .ok_or_else(|| {
            refused(
                "RequestError.RESOURCE_NAME_MALFORMED",
                &name,
                format!("{key} is not a resource name."),
            )
        })
}

/// The exclusion a campaign criterion's resource name,
/// `customers/{c}/campaignCriteria/{campaign}~{criterion}`, lifts: its
/// change with `excluded: false`.
fn lifted_exclusion(resource_name: &str) -> Result<AccountChange, GoogleAdsError> {
    resource_name
        .rsplit('/')
        .next()
        .and_then(|ids| ids.split_once('~'))
        .and_then(|(c, id)| {
            let campaign_id = c.parse().ok()?;
            let id = id.parse().ok()?;
            if let Some(gender) = Gender::of_criterion_id(id) {
                return Some(AccountChange::SetGenderExclusion {
                    campaign_id,
                    gender,
                    excluded: false,
                });
            }
            AgeRange::of_criterion_id(id).map(|age| AccountChange::SetAgeExclusion {
                campaign_id,
                age,
                excluded: false,
            })
        })
        .ok_or_else(|| {
            refused(
                "MutateError.RESOURCE_NOT_FOUND",
                resource_name,
                format!("{resource_name} is not a gender or age criterion of this account."),
            )
        })
}

/// The market change an operation stands for.
fn change_of(op: &MutateOperation) -> Result<AccountChange, GoogleAdsError> {
    match &op.kind {
        OperationKind::Create { resource, fields } => match resource {
            Resource::CampaignCriterion => {
                let campaign_id = parent_id(fields, "campaign")?;
                if fields.get("negative") != Some(&Value::Bool(true)) {
                    return Err(not_allowed("a campaign criterion that is not negative"));
                }
                match (fields.get("gender.type"), fields.get("age_range.type")) {
                    (Some(_), None) => Ok(AccountChange::SetGenderExclusion {
                        campaign_id,
                        gender: Gender::parse("gender.type", &text(fields, "gender.type")?)
                            .map_err(market_error)?,
                        excluded: true,
                    }),
                    (None, Some(_)) => Ok(AccountChange::SetAgeExclusion {
                        campaign_id,
                        age: AgeRange::parse("age_range.type", &text(fields, "age_range.type")?)
                            .map_err(market_error)?,
                        excluded: true,
                    }),
                    _ => Err(refused(
                        "FieldError.REQUIRED",
                        "gender.type",
                        "A campaign criterion here sets one of gender.type and age_range.type."
                            .into(),
                    )),
                }
            }
            Resource::AdGroup => Ok(AccountChange::CreateAdGroup {
                campaign_id: parent_id(fields, "campaign")?,
                name: text(fields, "name")?,
                status: status_or_enabled(fields)?,
                cpc_bid_micros: micros(fields, "cpc_bid_micros")?,
            }),
            Resource::AdGroupAd => Ok(AccountChange::CreateAd {
                ad_group_id: parent_id(fields, "ad_group")?,
                copy: AdCopy {
                    headlines: texts(fields, "ad.responsive_search_ad.headlines")?,
                    descriptions: texts(fields, "ad.responsive_search_ad.descriptions")?,
                    final_urls: texts(fields, "ad.final_urls")?,
                },
                status: status_or_enabled(fields)?,
            }),
            Resource::AdGroupCriterion => {
                let ad_group_id = parent_id(fields, "ad_group")?;
                let text_ = text(fields, "keyword.text")?;
                let match_type =
                    MatchType::parse("keyword.match_type", &text(fields, "keyword.match_type")?)
                        .map_err(market_error)?;
                if fields.get("negative") == Some(&Value::Bool(true)) {
                    return Ok(AccountChange::CreateNegativeKeyword {
                        ad_group_id,
                        text: text_,
                        match_type,
                    });
                }
                Ok(AccountChange::CreateKeyword {
                    ad_group_id,
                    text: text_,
                    match_type,
                    status: status_or_enabled(fields)?,
                    cpc_bid_micros: match fields.get("cpc_bid_micros") {
                        None | Some(Value::Null) => None,
                        Some(_) => Some(micros(fields, "cpc_bid_micros")?),
                    },
                })
            }
            other => Err(not_allowed(&format!("creating a {other}"))),
        },
        OperationKind::Update {
            resource_name,
            fields,
            update_mask,
        } => {
            let resource = resource_of(resource_name)?;
            let masked = |p: &str| update_mask.iter().any(|m| m == p);
            let allowed: &[&str] = match resource {
                Resource::Campaign => &["name", "status"],
                Resource::CampaignBudget => &["amount_micros"],
                Resource::AdGroup => &["name", "status", "cpc_bid_micros"],
                Resource::AdGroupAd => &["status"],
                // An exclusion is created or removed, never edited.
                Resource::CampaignCriterion => &[],
                _ => &["status", "cpc_bid_micros"],
            };
            check_mutable(resource, update_mask, allowed)?;
            let name = |p: &str| masked(p).then(|| text(fields, p)).transpose();
            let state = |p: &str| masked(p).then(|| status(fields, p)).transpose();
            let bid = |p: &str| masked(p).then(|| micros(fields, p)).transpose();
            match (resource, ids(resource_name).ok()) {
                (Resource::CampaignBudget, _) => {
                    // A budget's id is its campaign's (see `rows`).
                    let campaign_id = resource_name
                        .rsplit('/')
                        .next()
                        .and_then(|id| id.parse().ok())
                        .ok_or_else(|| not_allowed(resource_name))?;
                    Ok(AccountChange::set_campaign_budget(
                        campaign_id,
                        micros(fields, "amount_micros")?,
                    ))
                }
                (_, Some(ResourceName::Campaign { campaign_id, .. })) => {
                    Ok(AccountChange::UpdateCampaign {
                        campaign_id,
                        name: name("name")?,
                        daily_budget_micros: None,
                        status: state("status")?,
                        bidding_strategy: None,
                    })
                }
                (_, Some(ResourceName::AdGroup { ad_group_id, .. })) => {
                    Ok(AccountChange::UpdateAdGroup {
                        ad_group_id,
                        name: name("name")?,
                        status: state("status")?,
                        cpc_bid_micros: bid("cpc_bid_micros")?,
                    })
                }
                (_, Some(ResourceName::Ad { ad_id, .. })) => Ok(AccountChange::UpdateAd {
                    ad_id,
                    status: status(fields, "status")?,
                }),
                (_, Some(ResourceName::Keyword { criterion_id, .. })) => {
                    let cpc = if masked("cpc_bid_micros") {
                        // Null clears the keyword's own bid: the ad group's applies.
                        match fields.get("cpc_bid_micros") {
                            None | Some(Value::Null) => Some(None),
                            Some(_) => Some(Some(micros(fields, "cpc_bid_micros")?)),
                        }
                    } else {
                        None
                    };
                    Ok(AccountChange::UpdateKeyword {
                        criterion_id,
                        status: state("status")?,
                        cpc_bid_micros: cpc,
                    })
                }
                _ => Err(not_allowed(resource_name)),
            }
        }
        OperationKind::Remove { resource_name } => {
            if resource_of(resource_name)? == Resource::CampaignCriterion {
                return lifted_exclusion(resource_name);
            }
            let removed = Some(Status::Removed);
            match ids(resource_name)? {
                ResourceName::Campaign { campaign_id, .. } => Ok(AccountChange::UpdateCampaign {
                    campaign_id,
                    name: None,
                    daily_budget_micros: None,
                    status: removed,
                    bidding_strategy: None,
                }),
                ResourceName::AdGroup { ad_group_id, .. } => Ok(AccountChange::UpdateAdGroup {
                    ad_group_id,
                    name: None,
                    status: removed,
                    cpc_bid_micros: None,
                }),
                ResourceName::Keyword { criterion_id, .. } => Ok(AccountChange::UpdateKeyword {
                    criterion_id,
                    status: removed,
                    cpc_bid_micros: None,
                }),
                ResourceName::Ad { ad_id, .. } => Ok(AccountChange::UpdateAd {
                    ad_id,
                    status: Status::Removed,
                }),
            }
        }
    }
}

impl MutableAccount for PendingChanges {
    fn customer_id(&self) -> u64 {
        self.account.customer_id
    }

    fn validate(&self, op: &MutateOperation) -> Result<(), GoogleAdsError> {
        let change = change_of(op)?;
        self.account.validate(&change).map_err(market_error)?;
        if let OperationKind::Remove { resource_name } = &op.kind {
            let exists = match change {
                AccountChange::SetGenderExclusion {
                    campaign_id,
                    gender,
                    ..
                } => self.account.excludes(campaign_id, gender),
                AccountChange::SetAgeExclusion {
                    campaign_id, age, ..
                } => self.account.excludes_age(campaign_id, age),
                _ => true,
            };
            if !exists {
                return Err(refused(
                    "MutateError.RESOURCE_NOT_FOUND",
                    resource_name,
                    format!("{resource_name} does not exist."),
                ));
            }
        }
        Ok(())
    }

    fn apply(&mut self, op: &MutateOperation) -> String {
        let change = change_of(op).expect("validated on this state");
        let resource = self
            .account
            .apply(&change)
            .expect("validated on this state");
        // A budget update answers with the budget's name, as Google does.
        let name = match (&op.kind, &change) {
            (
                OperationKind::Update { resource_name, .. },
                AccountChange::UpdateCampaign { campaign_id, .. },
            ) if resource_name.contains("/campaignBudgets/") => {
                budget_name(self.account.customer_id, *campaign_id)
            }
            (
                _,
                AccountChange::SetGenderExclusion {
                    campaign_id,
                    gender,
                    ..
                },
            ) => gender_criterion_name(self.account.customer_id, *campaign_id, *gender),
            (
                _,
                AccountChange::SetAgeExclusion {
                    campaign_id, age, ..
                },
            ) => age_criterion_name(self.account.customer_id, *campaign_id, *age),
            _ => resource.to_string(),
        };
        self.changes.push(change);
        name
    }
}
