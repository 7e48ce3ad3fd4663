//! The agent's ad account as plain data, in Google Ads' shape: campaigns,
//! ad groups, their ads and keyword criteria with resource names and money
//! in micros, and the typed changes (the Ads API's mutate operations, and
//! the platform's ad reviews) that edit it.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::ad::{Ad, AdCopy, Approval};
use super::audience::{AgeRange, Gender};
use super::error::MarketError;
use super::vocabulary::MatchType;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Status {
    Enabled,
    Paused,
    /// Terminal: Google's remove operation sets this, and nothing undoes it.
    Removed,
}

impl Status {
    /// The enum name Google Ads uses (`ENABLED`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Enabled => "ENABLED",
            Status::Paused => "PAUSED",
            Status::Removed => "REMOVED",
        }
    }

    /// Parses Google's enum name; the error names `field`.
    pub fn parse(field: &str, s: &str) -> Result<Status, MarketError> {
        match s {
            "ENABLED" => Ok(Status::Enabled),
            "PAUSED" => Ok(Status::Paused),
            "REMOVED" => Ok(Status::Removed),
            _ => Err(MarketError::invalid(
                field,
                format!("{s:?} is not ENABLED, PAUSED or REMOVED"),
            )),
        }
    }
}

impl MatchType {
    /// The enum name Google Ads uses (`EXACT`, `PHRASE`, `BROAD`).
    pub fn as_str(self) -> &'static str {
        match self {
            MatchType::Exact => "EXACT",
            MatchType::Phrase => "PHRASE",
            MatchType::Broad => "BROAD",
        }
    }

    /// Parses Google's enum name; the error names `field`.
    pub fn parse(field: &str, s: &str) -> Result<MatchType, MarketError> {
        match s {
            "EXACT" => Ok(MatchType::Exact),
            "PHRASE" => Ok(MatchType::Phrase),
            "BROAD" => Ok(MatchType::Broad),
            _ => Err(MarketError::invalid(
                field,
                format!("{s:?} is not EXACT, PHRASE or BROAD"),
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BiddingStrategy {
    /// Keyword bid, else the ad group's default bid.
    ManualCpc,
    /// The platform bids target × predicted conversion rate per click.
    TargetCpa { target_cpa_micros: i64 },
}

impl BiddingStrategy {
    /// Google's `campaign.bidding_strategy_type` name.
    pub fn type_name(self) -> &'static str {
        match self {
            BiddingStrategy::ManualCpc => "MANUAL_CPC",
            BiddingStrategy::TargetCpa { .. } => "TARGET_CPA",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Campaign {
    pub id: u64,
    pub name: String,
    pub status: Status,
    /// Average daily budget (Google's `campaign_budget.amount_micros`).
    pub daily_budget_micros: i64,
    pub bidding_strategy: BiddingStrategy,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdGroup {
    pub id: u64,
    pub campaign_id: u64,
    pub name: String,
    pub status: Status,
    /// Default max CPC for keywords without their own.
    pub cpc_bid_micros: i64,
}

/// A keyword criterion of an ad group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Keyword {
    /// Criterion id (unique in the account here, as in Google).
    pub id: u64,
    pub ad_group_id: u64,
    pub text: String,
    pub match_type: MatchType,
    pub status: Status,
    pub cpc_bid_micros: Option<i64>,
    /// A negative keyword bids on nothing: it keeps its ad group's
    /// keywords off the queries it matches.
    pub negative: bool,
}

/// A resource name: `customers/{c}/campaigns/{id}`,
/// `customers/{c}/adGroups/{id}`, `customers/{c}/adGroupCriteria/{ag}~{id}`,
/// `customers/{c}/adGroupAds/{ag}~{ad}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ResourceName {
    Campaign {
        customer_id: u64,
        campaign_id: u64,
    },
    AdGroup {
        customer_id: u64,
        ad_group_id: u64,
    },
    Keyword {
        customer_id: u64,
        ad_group_id: u64,
        criterion_id: u64,
    },
    Ad {
        customer_id: u64,
        ad_group_id: u64,
        ad_id: u64,
    },
}

impl fmt::Display for ResourceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ResourceName::Campaign {
                customer_id,
                campaign_id,
            } => {
                write!(f, "customers/{customer_id}/campaigns/{campaign_id}")
            }
            ResourceName::AdGroup {
                customer_id,
                ad_group_id,
            } => {
                write!(f, "customers/{customer_id}/adGroups/{ad_group_id}")
            }
            ResourceName::Keyword {
                customer_id,
                ad_group_id,
                criterion_id,
            } => {
                write!(
                    f,
                    "customers/{customer_id}/adGroupCriteria/{ad_group_id}~{criterion_id}"
                )
            }
            ResourceName::Ad {
                customer_id,
                ad_group_id,
                ad_id,
            } => {
                write!(
                    f,
                    "customers/{customer_id}/adGroupAds/{ad_group_id}~{ad_id}"
                )
            }
        }
    }
}

impl ResourceName {
    /// Parses the four forms above; the error names `resource_name`.
    pub fn parse(s: &str) -> Result<ResourceName, MarketError> {
        let bad = || {
            MarketError::invalid(
                "resource_name",
                format!("{s:?} is not a campaign, ad group, criterion or ad"),
            )
        };
        let num = |x: &str| x.parse::<u64>().map_err(|_| bad());
        let parts: Vec<&str> = s.split('/').collect();
        let [c, customer, kind, id] = parts.as_slice() else {
            return Err(bad());
        };
        if *c != "customers" {
            return Err(bad());
        }
        let customer_id = num(customer)?;
        match *kind {
            "campaigns" => Ok(ResourceName::Campaign {
                customer_id,
                campaign_id: num(id)?,
            }),
            "adGroups" => Ok(ResourceName::AdGroup {
                customer_id,
                ad_group_id: num(id)?,
            }),
            "adGroupCriteria" => {
                let (ag, cr) = id.split_once('~').ok_or_else(bad)?;
                Ok(ResourceName::Keyword {
                    customer_id,
                    ad_group_id: num(ag)?,
                    criterion_id: num(cr)?,
                })
            }
            "adGroupAds" => {
                let (ag, ad) = id.split_once('~').ok_or_else(bad)?;
                Ok(ResourceName::Ad {
                    customer_id,
                    ad_group_id: num(ag)?,
                    ad_id: num(ad)?,
                })
            }
            _ => Err(bad()),
        }
    }
}

/// One mutate operation. Updates leave `None` fields unchanged; removal is
/// an update to `Status::Removed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AccountChange {
    CreateCampaign {
        name: String,
        daily_budget_micros: i64,
        status: Status,
        bidding_strategy: BiddingStrategy,
    },
    UpdateCampaign {
        campaign_id: u64,
        name: Option<String>,
        daily_budget_micros: Option<i64>,
        status: Option<Status>,
        bidding_strategy: Option<BiddingStrategy>,
    },
    CreateAdGroup {
        campaign_id: u64,
        name: String,
        status: Status,
        cpc_bid_micros: i64,
    },
    UpdateAdGroup {
        ad_group_id: u64,
        name: Option<String>,
        status: Option<Status>,
        cpc_bid_micros: Option<i64>,
    },
    CreateKeyword {
        ad_group_id: u64,
        text: String,
        match_type: MatchType,
        status: Status,
        cpc_bid_micros: Option<i64>,
    },
    /// Google's ad group criterion with `negative: true`.
    CreateNegativeKeyword {
        ad_group_id: u64,
        text: String,
        match_type: MatchType,
    },
    /// `cpc_bid_micros: Some(None)` clears the keyword's own bid.
    UpdateKeyword {
        criterion_id: u64,
        status: Option<Status>,
        cpc_bid_micros: Option<Option<i64>>,
    },
    /// Google's campaign criterion `gender { type }` with `negative: true`:
    /// `excluded` keeps the campaign out of every auction a searcher of
    /// `gender` starts; `false` lifts the exclusion. Setting what is
    /// already set is accepted and changes nothing.
    SetGenderExclusion {
        campaign_id: u64,
        gender: Gender,
        excluded: bool,
    },
    /// Google's ad group ad with a responsive search ad.
    CreateAd {
        ad_group_id: u64,
        copy: AdCopy,
        status: Status,
    },
    /// An ad's status (its text is immutable, as in Google's
    /// `ad_group_ad`: a new text is a new ad).
    UpdateAd { ad_id: u64, status: Status },
    /// Google's campaign criterion `age_range { type }` with `negative:
    /// true`, as [`AccountChange::SetGenderExclusion`] for an age range.
    SetAgeExclusion {
        campaign_id: u64,
        age: AgeRange,
        excluded: bool,
    },
    /// The platform's policy review of an ad (never an agent's operation):
    /// a disapproval stops the ad serving until a review approves it.
    ReviewAd { ad_id: u64, approval: Approval },
}

impl AccountChange {
    pub fn set_campaign_budget(campaign_id: u64, micros: i64) -> AccountChange {
        AccountChange::UpdateCampaign {
            campaign_id,
            name: None,
            daily_budget_micros: Some(micros),
            status: None,
            bidding_strategy: None,
        }
    }

    pub fn set_campaign_status(campaign_id: u64, status: Status) -> AccountChange {
        AccountChange::UpdateCampaign {
            campaign_id,
            name: None,
            daily_budget_micros: None,
            status: Some(status),
            bidding_strategy: None,
        }
    }

    pub fn set_keyword_bid(criterion_id: u64, micros: i64) -> AccountChange {
        AccountChange::UpdateKeyword {
            criterion_id,
            status: None,
            cpc_bid_micros: Some(Some(micros)),
        }
    }
}

/// A field-mask update: `Some` replaces the field, `None` leaves it.
fn update<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}

/// Puts `item` in `set` when `on`, takes it out otherwise.
fn toggle<T: Ord>(set: &mut BTreeSet<T>, item: T, on: bool) {
    if on {
        set.insert(item);
    } else {
        set.remove(&item);
    }
}

/// Keyword text as stored: lower case, single spaces.
fn normalize_keyword(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Highest bid or budget accepted: 1e12 micros (a million currency units).
const MAX_MICROS: i64 = 1_000_000_000_000;

fn check_micros(field: &str, v: i64) -> Result<(), MarketError> {
    if v <= 0 || v > MAX_MICROS {
        return Err(MarketError::invalid(
            field,
            format!("{v} must be in 1..={MAX_MICROS}"),
        ));
    }
    Ok(())
}

fn check_name(field: &str, v: &str) -> Result<(), MarketError> {
    if v.trim().is_empty() || v.len() > 255 {
        return Err(MarketError::invalid(
            field,
            "must be 1..=255 bytes and not blank",
        ));
    }
    Ok(())
}

fn check_strategy(s: &BiddingStrategy) -> Result<(), MarketError> {
    match *s {
        BiddingStrategy::ManualCpc => Ok(()),
        BiddingStrategy::TargetCpa { target_cpa_micros } => check_micros(
            "campaign.bidding_strategy.target_cpa_micros",
            target_cpa_micros,
        ),
    }
}

/// Status moves allowed: anything to anything except out of REMOVED.
fn check_status(field: &str, from: Status, to: Status) -> Result<(), MarketError> {
    if from == Status::Removed && to != Status::Removed {
        return Err(MarketError::rejected(
            field,
            "a REMOVED resource cannot change status",
        ));
    }
    Ok(())
}

/// The account: plain data, read by the market every tick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    pub customer_id: u64,
    pub campaigns: Vec<Campaign>,
    pub ad_groups: Vec<AdGroup>,
    pub keywords: Vec<Keyword>,
    /// The ad groups' ads; left out of the serialised account when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ads: Vec<Ad>,
    /// (campaign id, gender) for each gender a campaign excludes; left out
    /// of the serialised account when empty.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub gender_exclusions: BTreeSet<(u64, Gender)>,
    /// (campaign id, age range) for each range a campaign excludes; left
    /// out of the serialised account when empty.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub age_exclusions: BTreeSet<(u64, AgeRange)>,
    next_id: u64,
}

impl Account {
    pub fn new(customer_id: u64) -> Account {
        Account {
            customer_id,
            campaigns: Vec::new(),
            ad_groups: Vec::new(),
            keywords: Vec::new(),
            ads: Vec::new(),
            gender_exclusions: BTreeSet::new(),
            age_exclusions: BTreeSet::new(),
            next_id: 1,
        }
    }

    /// Whether campaign `campaign_id` excludes searchers of `gender`.
    pub fn excludes(&self, campaign_id: u64, gender: Gender) -> bool {
        self.gender_exclusions.contains(&(campaign_id, gender))
    }

    /// Whether campaign `campaign_id` excludes searchers aged `age`.
    pub fn excludes_age(&self, campaign_id: u64, age: AgeRange) -> bool {
        self.age_exclusions.contains(&(campaign_id, age))
    }

    pub fn campaign(&self, id: u64) -> Option<&Campaign> {
        self.campaigns.iter().find(|c| c.id == id)
    }

    pub fn ad_group(&self, id: u64) -> Option<&AdGroup> {
        self.ad_groups.iter().find(|g| g.id == id)
    }

    pub fn keyword(&self, id: u64) -> Option<&Keyword> {
        self.keywords.iter().find(|k| k.id == id)
    }

    pub fn ad(&self, id: u64) -> Option<&Ad> {
        self.ads.iter().find(|a| a.id == id)
    }

    /// Whether ad group `ad_group_id` can serve by its ads: it has none
    /// (see [`super::ad`]), or one of them is eligible.
    pub fn ads_serve(&self, ad_group_id: u64) -> bool {
        let mut ads = self
            .ads
            .iter()
            .filter(|a| a.ad_group_id == ad_group_id)
            .peekable();
        ads.peek().is_none() || ads.any(Ad::eligible)
    }

    pub fn ad_resource(&self, ad: &Ad) -> ResourceName {
        ResourceName::Ad {
            customer_id: self.customer_id,
            ad_group_id: ad.ad_group_id,
            ad_id: ad.id,
        }
    }

    fn ad_not_found(&self, ad_id: u64) -> MarketError {
        MarketError::not_found(
            "ad_group_ad.resource_name",
            format!("customers/{}/adGroupAds/*~{ad_id}", self.customer_id),
        )
    }

    pub fn campaign_resource(&self, campaign_id: u64) -> ResourceName {
        ResourceName::Campaign {
            customer_id: self.customer_id,
            campaign_id,
        }
    }

    pub fn ad_group_resource(&self, ad_group_id: u64) -> ResourceName {
        ResourceName::AdGroup {
            customer_id: self.customer_id,
            ad_group_id,
        }
    }

    pub fn keyword_resource(&self, k: &Keyword) -> ResourceName {
        ResourceName::Keyword {
            customer_id: self.customer_id,
            ad_group_id: k.ad_group_id,
            criterion_id: k.id,
        }
    }

    /// The keyword's effective max CPC: its own, else its ad group's.
    pub fn effective_cpc_micros(&self, k: &Keyword) -> i64 {
        k.cpc_bid_micros
            .or_else(|| self.ad_group(k.ad_group_id).map(|g| g.cpc_bid_micros))
            .unwrap_or(0)
    }

    fn not_found(&self, field: &str, r: ResourceName) -> MarketError {
        MarketError::not_found(field, r.to_string())
    }

    /// The ad group a new keyword goes in exists and is not removed, and
    /// the text is 1 to 10 words.
    fn check_keyword_target(&self, ad_group_id: u64, text: &str) -> Result<(), MarketError> {
        let g = self.ad_group(ad_group_id).ok_or_else(|| {
            self.not_found(
                "ad_group_criterion.ad_group",
                self.ad_group_resource(ad_group_id),
            )
        })?;
        if g.status == Status::Removed {
            return Err(MarketError::rejected(
                "ad_group_criterion.ad_group",
                "the ad group is REMOVED",
            ));
        }
        let words = text.split_whitespace().count();
        if words == 0 || words > 10 || text.len() > 80 {
            return Err(MarketError::invalid(
                "ad_group_criterion.keyword.text",
                "must be 1..=10 words, at most 80 bytes",
            ));
        }
        Ok(())
    }

    /// Checks a change against the account without applying it.
    pub fn validate(&self, change: &AccountChange) -> Result<(), MarketError> {
        match change {
            AccountChange::CreateCampaign {
                name,
                daily_budget_micros,
                bidding_strategy,
                ..
            } => {
                check_name("campaign.name", name)?;
                check_micros("campaign.daily_budget_micros", *daily_budget_micros)?;
                check_strategy(bidding_strategy)
            }
            AccountChange::UpdateCampaign {
                campaign_id,
                name,
                daily_budget_micros,
                status,
                bidding_strategy,
            } => {
                let c = self.campaign(*campaign_id).ok_or_else(|| {
                    self.not_found(
                        "campaign.resource_name",
                        self.campaign_resource(*campaign_id),
                    )
                })?;
                if let Some(n) = name {
                    check_name("campaign.name", n)?;
                }
                if let Some(b) = daily_budget_micros {
                    check_micros("campaign.daily_budget_micros", *b)?;
                }
                if let Some(s) = bidding_strategy {
                    check_strategy(s)?;
                }
                if c.status == Status::Removed
                    && (name.is_some()
                        || daily_budget_micros.is_some()
                        || bidding_strategy.is_some())
                {
                    return Err(MarketError::rejected(
                        "campaign.resource_name",
                        "a REMOVED campaign cannot be edited",
                    ));
                }
                check_status("campaign.status", c.status, status.unwrap_or(c.status))
            }
            AccountChange::CreateAdGroup {
                campaign_id,
                name,
                cpc_bid_micros,
                ..
            } => {
                let c = self.campaign(*campaign_id).ok_or_else(|| {
                    self.not_found("ad_group.campaign", self.campaign_resource(*campaign_id))
                })?;
                if c.status == Status::Removed {
                    return Err(MarketError::rejected(
                        "ad_group.campaign",
                        "the campaign is REMOVED",
                    ));
                }
                check_name("ad_group.name", name)?;
                check_micros("ad_group.cpc_bid_micros", *cpc_bid_micros)
            }
            AccountChange::UpdateAdGroup {
                ad_group_id,
                name,
                status,
                cpc_bid_micros,
            } => {
                let g = self.ad_group(*ad_group_id).ok_or_else(|| {
                    self.not_found(
                        "ad_group.resource_name",
                        self.ad_group_resource(*ad_group_id),
                    )
                })?;
                if let Some(n) = name {
                    check_name("ad_group.name", n)?;
                }
                if let Some(b) = cpc_bid_micros {
                    check_micros("ad_group.cpc_bid_micros", *b)?;
                }
                check_status("ad_group.status", g.status, status.unwrap_or(g.status))
            }
            AccountChange::CreateKeyword {
                ad_group_id,
                text,
                cpc_bid_micros,
                ..
            } => {
                self.check_keyword_target(*ad_group_id, text)?;
                if let Some(b) = cpc_bid_micros {
                    check_micros("ad_group_criterion.cpc_bid_micros", *b)?;
                }
                Ok(())
            }
            AccountChange::CreateNegativeKeyword {
                ad_group_id, text, ..
            } => self.check_keyword_target(*ad_group_id, text),
            AccountChange::UpdateKeyword {
                criterion_id,
                status,
                cpc_bid_micros,
            } => {
                let k = self.keyword(*criterion_id).ok_or_else(|| {
                    MarketError::not_found(
                        "ad_group_criterion.resource_name",
                        format!(
                            "customers/{}/adGroupCriteria/*~{criterion_id}",
                            self.customer_id
                        ),
                    )
                })?;
                if k.negative && cpc_bid_micros.is_some() {
                    return Err(MarketError::rejected(
                        "ad_group_criterion.cpc_bid_micros",
                        "a negative keyword has no bid",
                    ));
                }
                if let Some(Some(b)) = cpc_bid_micros {
                    check_micros("ad_group_criterion.cpc_bid_micros", *b)?;
                }
                check_status(
                    "ad_group_criterion.status",
                    k.status,
                    status.unwrap_or(k.status),
                )
            }
            AccountChange::CreateAd {
                ad_group_id, copy, ..
            } => {
                let g = self.ad_group(*ad_group_id).ok_or_else(|| {
                    self.not_found("ad_group_ad.ad_group", self.ad_group_resource(*ad_group_id))
                })?;
                if g.status == Status::Removed {
                    return Err(MarketError::rejected(
                        "ad_group_ad.ad_group",
                        "the ad group is REMOVED",
                    ));
                }
                copy.check()
            }
            AccountChange::UpdateAd { ad_id, status } => {
                let a = self.ad(*ad_id).ok_or_else(|| self.ad_not_found(*ad_id))?;
                check_status("ad_group_ad.status", a.status, *status)
            }
            AccountChange::ReviewAd { ad_id, .. } => {
                self.ad(*ad_id).ok_or_else(|| self.ad_not_found(*ad_id))?;
                Ok(())
            }
            AccountChange::SetGenderExclusion { campaign_id, .. }
            | AccountChange::SetAgeExclusion { campaign_id, .. } => {
                let c = self.campaign(*campaign_id).ok_or_else(|| {
                    self.not_found(
                        "campaign_criterion.campaign",
                        self.campaign_resource(*campaign_id),
                    )
                })?;
                if c.status == Status::Removed {
                    return Err(MarketError::rejected(
                        "campaign_criterion.campaign",
                        "the campaign is REMOVED",
                    ));
                }
                Ok(())
            }
        }
    }

    /// Adds a keyword under the next fresh id; returns its resource.
    fn push_keyword(
        &mut self,
        ad_group_id: u64,
        text: &str,
        match_type: MatchType,
        status: Status,
        cpc_bid_micros: Option<i64>,
        negative: bool,
    ) -> ResourceName {
        let k = Keyword {
            id: self.next_id,
            ad_group_id,
            text: normalize_keyword(text),
            match_type,
            status,
            cpc_bid_micros,
            negative,
        };
        self.next_id += 1;
        let name = self.keyword_resource(&k);
        self.keywords.push(k);
        name
    }

    /// Edits validated ad `ad_id`; returns its resource.
    fn edit_ad(&mut self, ad_id: u64, edit: impl FnOnce(&mut Ad)) -> ResourceName {
        let a = self
            .ads
            .iter_mut()
            .find(|a| a.id == ad_id)
            .expect("validated");
        edit(a);
        ResourceName::Ad {
            customer_id: self.customer_id,
            ad_group_id: a.ad_group_id,
            ad_id,
        }
    }

    /// Validates and applies a change; returns the resource it touched.
    pub fn apply(&mut self, change: &AccountChange) -> Result<ResourceName, MarketError> {
        self.validate(change)?;
        let fresh = self.next_id;
        Ok(match change.clone() {
            AccountChange::CreateCampaign {
                name,
                daily_budget_micros,
                status,
                bidding_strategy,
            } => {
                self.next_id += 1;
                self.campaigns.push(Campaign {
                    id: fresh,
                    name,
                    status,
                    daily_budget_micros,
                    bidding_strategy,
                });
                self.campaign_resource(fresh)
            }
            AccountChange::UpdateCampaign {
                campaign_id,
                name,
                daily_budget_micros,
                status,
                bidding_strategy,
            } => {
                let c = self
                    .campaigns
                    .iter_mut()
                    .find(|c| c.id == campaign_id)
                    .expect("validated");
                update(&mut c.name, name);
                update(&mut c.daily_budget_micros, daily_budget_micros);
                update(&mut c.status, status);
                update(&mut c.bidding_strategy, bidding_strategy);
                self.campaign_resource(campaign_id)
            }
            AccountChange::CreateAdGroup {
                campaign_id,
                name,
                status,
                cpc_bid_micros,
            } => {
                self.next_id += 1;
                self.ad_groups.push(AdGroup {
                    id: fresh,
                    campaign_id,
                    name,
                    status,
                    cpc_bid_micros,
                });
                self.ad_group_resource(fresh)
            }
            AccountChange::UpdateAdGroup {
                ad_group_id,
                name,
                status,
                cpc_bid_micros,
            } => {
                let g = self
                    .ad_groups
                    .iter_mut()
                    .find(|g| g.id == ad_group_id)
                    .expect("validated");
                update(&mut g.name, name);
                update(&mut g.status, status);
                update(&mut g.cpc_bid_micros, cpc_bid_micros);
                self.ad_group_resource(ad_group_id)
            }
            AccountChange::CreateKeyword {
                ad_group_id,
                text,
                match_type,
                status,
                cpc_bid_micros,
            } => self.push_keyword(
                ad_group_id,
                &text,
                match_type,
                status,
                cpc_bid_micros,
                false,
            ),
            AccountChange::CreateNegativeKeyword {
                ad_group_id,
                text,
                match_type,
            } => self.push_keyword(ad_group_id, &text, match_type, Status::Enabled, None, true),
            AccountChange::UpdateKeyword {
                criterion_id,
                status,
                cpc_bid_micros,
            } => {
                let k = self
                    .keywords
                    .iter_mut()
                    .find(|k| k.id == criterion_id)
                    .expect("validated");
                update(&mut k.status, status);
                update(&mut k.cpc_bid_micros, cpc_bid_micros);
                let k = self.keyword(criterion_id).expect("validated");
                self.keyword_resource(k)
            }
            AccountChange::SetGenderExclusion {
                campaign_id,
                gender,
                excluded,
            } => {
                toggle(&mut self.gender_exclusions, (campaign_id, gender), excluded);
                self.campaign_resource(campaign_id)
            }
            AccountChange::SetAgeExclusion {
                campaign_id,
                age,
                excluded,
            } => {
                toggle(&mut self.age_exclusions, (campaign_id, age), excluded);
                self.campaign_resource(campaign_id)
            }
            AccountChange::CreateAd {
                ad_group_id,
                copy,
                status,
            } => {
                let ad = Ad {
                    id: self.ads.iter().map(|a| a.id).max().unwrap_or(0) + 1,
                    ad_group_id,
                    headlines: copy.headlines,
                    descriptions: copy.descriptions,
                    final_urls: copy.final_urls,
                    status,
                    approval: Approval::Approved,
                };
                let name = self.ad_resource(&ad);
                self.ads.push(ad);
                name
            }
            AccountChange::UpdateAd { ad_id, status } => self.edit_ad(ad_id, |a| a.status = status),
            AccountChange::ReviewAd { ad_id, approval } => {
                self.edit_ad(ad_id, |a| a.approval = approval)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account_with_keyword() -> (Account, u64, u64, u64) {
        let mut a = Account::new(123);
        let c = a
            .apply(&AccountChange::CreateCampaign {
                name: "Shoes".into(),
                daily_budget_micros: 50_000_000,
                status: Status::Enabled,
                bidding_strategy: BiddingStrategy::ManualCpc,
            })
            .unwrap();
        let ResourceName::Campaign { campaign_id, .. } = c else {
            panic!("{c:?}")
        };
        let g = a
            .apply(&AccountChange::CreateAdGroup {
                campaign_id,
                name: "Run".into(),
                status: Status::Enabled,
                cpc_bid_micros: 700_000,
            })
            .unwrap();
        let ResourceName::AdGroup { ad_group_id, .. } = g else {
            panic!("{g:?}")
        };
        let k = a
            .apply(&AccountChange::CreateKeyword {
                ad_group_id,
                text: "Running  Shoes".into(),
                match_type: MatchType::Phrase,
                status: Status::Enabled,
                cpc_bid_micros: None,
            })
            .unwrap();
        assert_eq!(
            k.to_string(),
            format!("customers/123/adGroupCriteria/{ad_group_id}~3")
        );
        (a, campaign_id, ad_group_id, 3)
    }

    #[test]
    fn resource_names_round_trip() {
        let (a, c, g, k) = account_with_keyword();
        for r in [
            a.campaign_resource(c),
            a.ad_group_resource(g),
            a.keyword_resource(a.keyword(k).unwrap()),
        ] {
            assert_eq!(ResourceName::parse(&r.to_string()).unwrap(), r);
        }
        assert_eq!(
            a.campaign_resource(c).to_string(),
            "customers/123/campaigns/1"
        );
        assert!(ResourceName::parse("customers/x/campaigns/1").is_err());
        assert!(ResourceName::parse("customers/1/budgets/1")
            .unwrap_err()
            .to_string()
            .contains("resource_name"));
    }

    #[test]
    fn negative_keywords_take_no_bid() {
        let (mut a, _, g, _) = account_with_keyword();
        let r = a
            .apply(&AccountChange::CreateNegativeKeyword {
                ad_group_id: g,
                text: "Cheap".into(),
                match_type: MatchType::Broad,
            })
            .unwrap();
        let ResourceName::Keyword { criterion_id, .. } = r else {
            panic!("{r:?}")
        };
        let k = a.keyword(criterion_id).unwrap();
        assert!(k.negative && k.text == "cheap" && k.cpc_bid_micros.is_none());
        let e = a
            .apply(&AccountChange::set_keyword_bid(criterion_id, 1_000))
            .unwrap_err();
        assert!(
            e.to_string().contains("ad_group_criterion.cpc_bid_micros"),
            "{e}"
        );
        let e = a
            .apply(&AccountChange::CreateNegativeKeyword {
                ad_group_id: 99,
                text: "x".into(),
                match_type: MatchType::Exact,
            })
            .unwrap_err();
        assert!(e.to_string().contains("ad_group_criterion.ad_group"), "{e}");
    }

    #[test]
    fn enum_names_round_trip_as_google_spells_them() {
        for s in [Status::Enabled, Status::Paused, Status::Removed] {
            assert_eq!(Status::parse("campaign.status", s.as_str()), Ok(s));
        }
        for m in [MatchType::Exact, MatchType::Phrase, MatchType::Broad] {
            assert_eq!(
                MatchType::parse("ad_group_criterion.keyword.match_type", m.as_str()),
                Ok(m)
            );
        }
        let e = MatchType::parse("ad_group_criterion.keyword.match_type", "Broad").unwrap_err();
        assert!(
            e.to_string()
                .contains("ad_group_criterion.keyword.match_type"),
            "{e}"
        );
        assert!(Status::parse("campaign.status", "ON").is_err());
        assert_eq!(
            BiddingStrategy::TargetCpa {
                target_cpa_micros: 1
            }
            .type_name(),
            "TARGET_CPA"
        );
    }

    #[test]
    fn a_campaign_excludes_a_gender_until_the_exclusion_is_lifted() {
        let (mut a, c, _, _) = account_with_keyword();
        let set = |excluded| AccountChange::SetGenderExclusion {
            campaign_id: c,
            gender: Gender::Female,
            excluded,
        };
        assert_eq!(a.apply(&set(true)), Ok(a.campaign_resource(c)));
        assert!(a.excludes(c, Gender::Female) && !a.excludes(c, Gender::Male));
        a.apply(&set(false)).unwrap();
        assert!(!a.excludes(c, Gender::Female));
        let e = a
            .apply(&AccountChange::SetGenderExclusion {
                campaign_id: 99,
                gender: Gender::Male,
                excluded: true,
            })
            .unwrap_err();
        assert!(e.to_string().contains("campaign_criterion.campaign"), "{e}");
        a.apply(&AccountChange::set_campaign_status(c, Status::Removed))
            .unwrap();
        assert!(a.apply(&set(true)).is_err());
    }

    #[test]
    fn an_ad_group_serves_through_an_eligible_ad_or_without_ads() {
        let (mut a, _, g, _) = account_with_keyword();
        assert!(a.ads_serve(g), "no ads: the ad group serves");
        let copy = AdCopy {
            headlines: vec!["Running Shoes".into(), "Free Returns".into(), "Shop".into()],
            descriptions: vec!["Light shoes.".into(), "Order today.".into()],
            final_urls: vec!["https://shop.example/run".into()],
        };
        let r = a
            .apply(&AccountChange::CreateAd {
                ad_group_id: g,
                copy: copy.clone(),
                status: Status::Paused,
            })
            .unwrap();
        assert_eq!(r.to_string(), format!("customers/123/adGroupAds/{g}~1"));
        assert_eq!(ResourceName::parse(&r.to_string()), Ok(r));
        assert!(!a.ads_serve(g), "only a paused ad: nothing serves");
        a.apply(&AccountChange::UpdateAd {
            ad_id: 1,
            status: Status::Enabled,
        })
        .unwrap();
        assert!(a.ads_serve(g));
        a.apply(&AccountChange::ReviewAd {
            ad_id: 1,
            approval: Approval::Disapproved {
                topic: "MISREPRESENTATION".into(),
                message: "Unclear business".into(),
            },
        })
        .unwrap();
        assert!(!a.ads_serve(g), "its only ad disapproved");
        a.apply(&AccountChange::CreateAd {
            ad_group_id: g,
            copy,
            status: Status::Enabled,
        })
        .unwrap();
        assert!(a.ads_serve(g), "a second, approved ad");
        assert_eq!(a.ad(2).map(|ad| ad.id), Some(2));
        let e = a
            .apply(&AccountChange::UpdateAd {
                ad_id: 9,
                status: Status::Paused,
            })
            .unwrap_err();
        assert!(e.to_string().contains("ad_group_ad.resource_name"), "{e}");
    }

    #[test]
    fn keyword_inherits_the_ad_group_bid_until_it_has_its_own() {
        let (mut a, _, _, k) = account_with_keyword();
        assert_eq!(a.keyword(k).unwrap().text, "running shoes");
        assert_eq!(a.effective_cpc_micros(a.keyword(k).unwrap()), 700_000);
        a.apply(&AccountChange::set_keyword_bid(k, 900_000))
            .unwrap();
        assert_eq!(a.effective_cpc_micros(a.keyword(k).unwrap()), 900_000);
    }

    #[test]
    fn bad_changes_name_the_field_and_leave_the_account_alone() {
        let (mut a, c, _, k) = account_with_keyword();
        let before = a.clone();
        let e = a
            .apply(&AccountChange::set_campaign_budget(c, 0))
            .unwrap_err();
        assert!(
            e.to_string().contains("campaign.daily_budget_micros"),
            "{e}"
        );
        let e = a.apply(&AccountChange::set_keyword_bid(k, -5)).unwrap_err();
        assert!(
            e.to_string().contains("ad_group_criterion.cpc_bid_micros"),
            "{e}"
        );
        let e = a
            .apply(&AccountChange::set_campaign_status(99, Status::Paused))
            .unwrap_err();
        assert!(e.to_string().contains("customers/123/campaigns/99"), "{e}");
        assert_eq!(a, before);
        a.apply(&AccountChange::set_campaign_status(c, Status::Removed))
            .unwrap();
        let e = a
            .apply(&AccountChange::set_campaign_status(c, Status::Enabled))
            .unwrap_err();
        assert!(e.to_string().contains("campaign.status"), "{e}");
    }
}
