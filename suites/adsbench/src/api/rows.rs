//! Entity rows of Google's resources, written once for every account model.
//!
//! An account describes each entity as plain attributes ([`CustomerAttrs`],
//! [`BudgetAttrs`], [`CampaignAttrs`], [`AdGroupAttrs`], [`KeywordAttrs`],
//! [`CampaignCriterionAttrs`], [`AdAttrs`], [`SearchTermAttrs`]);
//! a [`RowBuilder`] writes the GAQL fields a query wants from them. A child
//! row also carries the attributes of the resources above it, so an account
//! fills a keyword's row with its ad group's, campaign's, budget's and
//! customer's attributes too.

use std::collections::BTreeMap;

use crate::gaql::{EntityRow, Value};
use crate::market::Date;

/// A customer's attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomerAttrs {
    /// `customers/{id}`.
    pub resource_name: String,
    /// The customer id.
    pub id: u64,
    /// The account's name.
    pub descriptive_name: String,
    /// The account's time zone (an IANA name).
    pub time_zone: &'static str,
}

/// A campaign budget's attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetAttrs {
    /// `customers/{c}/campaignBudgets/{id}`.
    pub resource_name: String,
    /// Its id.
    pub id: u64,
    /// Its name.
    pub name: String,
    /// The daily amount, micros.
    pub amount_micros: i64,
    /// STANDARD or ACCELERATED.
    pub delivery_method: String,
    /// ENABLED or REMOVED.
    pub status: String,
}

/// A campaign's attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct CampaignAttrs {
    /// `customers/{c}/campaigns/{id}`.
    pub resource_name: String,
    /// Its id.
    pub id: u64,
    /// Its name.
    pub name: String,
    /// ENABLED, PAUSED or REMOVED.
    pub status: String,
    /// SEARCH, DISPLAY ...
    pub channel: String,
    /// MANUAL_CPC, TARGET_CPA ...
    pub bidding: String,
    /// Its budget's resource name.
    pub budget: String,
    /// First day, if set.
    pub start_date: Option<Date>,
    /// Last day, if set.
    pub end_date: Option<Date>,
    /// Target CPA, micros, for TARGET_CPA bidding.
    pub target_cpa_micros: Option<i64>,
    /// Its labels' resource names, as a list value.
    pub labels: Value,
}

/// An ad group's attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct AdGroupAttrs {
    /// `customers/{c}/adGroups/{id}`.
    pub resource_name: String,
    /// Its id.
    pub id: u64,
    /// Its campaign's resource name.
    pub campaign: String,
    /// Its name.
    pub name: String,
    /// ENABLED, PAUSED or REMOVED.
    pub status: String,
    /// SEARCH_STANDARD or DISPLAY_STANDARD.
    pub kind: String,
    /// Default max CPC, micros.
    pub cpc_bid_micros: i64,
    /// Its labels' resource names, as a list value.
    pub labels: Value,
}

/// A keyword's (a KEYWORD ad group criterion's) attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct KeywordAttrs {
    /// `customers/{c}/adGroupCriteria/{ad_group_id}~{criterion_id}`.
    pub resource_name: String,
    /// The criterion id.
    pub criterion_id: u64,
    /// Its ad group's resource name.
    pub ad_group: String,
    /// ENABLED, PAUSED or REMOVED.
    pub status: String,
    /// A negative keyword.
    pub negative: bool,
    /// The keyword text.
    pub text: String,
    /// EXACT, PHRASE or BROAD.
    pub match_type: String,
    /// Its own max CPC, micros; none to use the ad group's.
    pub cpc_bid_micros: Option<i64>,
    /// Quality score 1–10, when the account shows one.
    pub quality_score: Option<i64>,
    /// Its labels' resource names, as a list value.
    pub labels: Value,
}

/// What a campaign criterion targets: the two kinds the simulated
/// accounts have.
#[derive(Debug, Clone, PartialEq)]
pub enum Demographic {
    /// `GENDER`: FEMALE, MALE or UNDETERMINED.
    Gender(String),
    /// `AGE_RANGE`: AGE_RANGE_18_24 ... AGE_RANGE_65_UP.
    AgeRange(String),
}

/// A campaign criterion's attributes: a gender or an age range.
#[derive(Debug, Clone, PartialEq)]
pub struct CampaignCriterionAttrs {
    /// `customers/{c}/campaignCriteria/{campaign_id}~{criterion_id}`.
    pub resource_name: String,
    /// Its campaign's resource name.
    pub campaign: String,
    /// The criterion id (Google's gender or age range criterion id).
    pub criterion_id: u64,
    /// An exclusion.
    pub negative: bool,
    /// What it targets.
    pub demographic: Demographic,
}

/// An ad group ad's attributes: a responsive search ad and its policy
/// summary.
#[derive(Debug, Clone, PartialEq)]
pub struct AdAttrs {
    /// `customers/{c}/adGroupAds/{ad_group_id}~{ad_id}`.
    pub resource_name: String,
    /// Its ad group's resource name.
    pub ad_group: String,
    /// The ad's id.
    pub ad_id: u64,
    /// ENABLED, PAUSED or REMOVED.
    pub status: String,
    /// The headlines.
    pub headlines: Vec<String>,
    /// The descriptions.
    pub descriptions: Vec<String>,
    /// The landing pages.
    pub final_urls: Vec<String>,
    /// APPROVED, DISAPPROVED ...
    pub approval_status: String,
    /// One `TOPIC: message` per policy finding.
    pub policy_topic_entries: Vec<String>,
}

/// A search term's attributes: a search that showed an ad group's ads.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchTermAttrs {
    /// `customers/{c}/searchTermViews/{campaign}~{ad_group}~{term}`, the
    /// term in URL-safe base64 as Google writes it.
    pub resource_name: String,
    /// Its ad group's resource name.
    pub ad_group: String,
    /// The search.
    pub search_term: String,
    /// ADDED, EXCLUDED, ADDED_EXCLUDED or NONE: whether the ad group has a
    /// keyword (positive, negative, both) with exactly the term's text.
    pub status: String,
}

/// Fills one entity row with the wanted attributes only; each value is
/// computed only when a query selects or filters on its field.
pub struct RowBuilder<'f> {
    fields: &'f [&'static str],
    row: EntityRow,
}

impl<'f> RowBuilder<'f> {
    /// The row of `resource_name` with the attributes `fill` writes, of
    /// those in `fields`.
    pub fn build(
        resource_name: String,
        fields: &'f [&'static str],
        fill: impl FnOnce(&mut RowBuilder<'f>),
    ) -> EntityRow {
        let mut b = RowBuilder {
            fields,
            row: EntityRow {
                resource_name,
                attributes: BTreeMap::new(),
            },
        };
        fill(&mut b);
        b.row
    }

    fn put(&mut self, name: &'static str, value: impl FnOnce() -> Value) {
        if self.fields.contains(&name) {
            self.row.attributes.insert(name, value());
        }
    }

    /// Writes the `customer.*` fields.
    pub fn customer(&mut self, c: &CustomerAttrs) {
        self.put("customer.resource_name", || {
            Value::ResourceName(c.resource_name.clone())
        });
        self.put("customer.id", || Value::Int64(c.id as i64));
        self.put("customer.descriptive_name", || {
            Value::String(c.descriptive_name.clone())
        });
        self.put("customer.currency_code", || Value::String("USD".into()));
        self.put("customer.time_zone", || Value::String(c.time_zone.into()));
        self.put("customer.manager", || Value::Bool(false));
    }

    /// Writes the `campaign_budget.*` fields.
    pub fn budget(&mut self, b: &BudgetAttrs) {
        self.put("campaign_budget.resource_name", || {
            Value::ResourceName(b.resource_name.clone())
        });
        self.put("campaign_budget.id", || Value::Int64(b.id as i64));
        self.put("campaign_budget.name", || Value::String(b.name.clone()));
        self.put("campaign_budget.amount_micros", || {
            Value::Int64(b.amount_micros)
        });
        self.put("campaign_budget.delivery_method", || {
            Value::Enum(b.delivery_method.clone())
        });
        self.put("campaign_budget.status", || Value::Enum(b.status.clone()));
    }

    /// Writes the `campaign.*` fields.
    pub fn campaign(&mut self, c: &CampaignAttrs) {
        let date = |d: Option<Date>| d.map_or(Value::Null, Value::Date);
        self.put("campaign.resource_name", || {
            Value::ResourceName(c.resource_name.clone())
        });
        self.put("campaign.id", || Value::Int64(c.id as i64));
        self.put("campaign.name", || Value::String(c.name.clone()));
        self.put("campaign.status", || Value::Enum(c.status.clone()));
        self.put("campaign.advertising_channel_type", || {
            Value::Enum(c.channel.clone())
        });
        self.put("campaign.bidding_strategy_type", || {
            Value::Enum(c.bidding.clone())
        });
        self.put("campaign.campaign_budget", || {
            Value::ResourceName(c.budget.clone())
        });
        self.put("campaign.start_date", || date(c.start_date));
        self.put("campaign.end_date", || date(c.end_date));
        self.put("campaign.target_cpa.target_cpa_micros", || {
            c.target_cpa_micros.map_or(Value::Null, Value::Int64)
        });
        self.put("campaign.labels", || c.labels.clone());
    }

    /// Writes the `ad_group.*` fields.
    pub fn ad_group(&mut self, g: &AdGroupAttrs) {
        self.put("ad_group.resource_name", || {
            Value::ResourceName(g.resource_name.clone())
        });
        self.put("ad_group.id", || Value::Int64(g.id as i64));
        self.put("ad_group.name", || Value::String(g.name.clone()));
        self.put("ad_group.status", || Value::Enum(g.status.clone()));
        self.put("ad_group.type", || Value::Enum(g.kind.clone()));
        self.put("ad_group.campaign", || {
            Value::ResourceName(g.campaign.clone())
        });
        self.put("ad_group.cpc_bid_micros", || Value::Int64(g.cpc_bid_micros));
        self.put("ad_group.labels", || g.labels.clone());
    }

    /// Writes the `ad_group_criterion.*` fields.
    pub fn keyword(&mut self, k: &KeywordAttrs) {
        self.put("ad_group_criterion.resource_name", || {
            Value::ResourceName(k.resource_name.clone())
        });
        self.put("ad_group_criterion.criterion_id", || {
            Value::Int64(k.criterion_id as i64)
        });
        self.put("ad_group_criterion.ad_group", || {
            Value::ResourceName(k.ad_group.clone())
        });
        self.put("ad_group_criterion.status", || {
            Value::Enum(k.status.clone())
        });
        self.put("ad_group_criterion.type", || Value::Enum("KEYWORD".into()));
        self.put("ad_group_criterion.negative", || Value::Bool(k.negative));
        self.put("ad_group_criterion.keyword.text", || {
            Value::String(k.text.clone())
        });
        self.put("ad_group_criterion.keyword.match_type", || {
            Value::Enum(k.match_type.clone())
        });
        self.put("ad_group_criterion.cpc_bid_micros", || {
            k.cpc_bid_micros.map_or(Value::Null, Value::Int64)
        });
        self.put("ad_group_criterion.quality_info.quality_score", || {
            k.quality_score.map_or(Value::Null, Value::Int64)
        });
        self.put("ad_group_criterion.labels", || k.labels.clone());
    }

    /// Writes the `ad_group_ad.*` fields.
    pub fn ad(&mut self, a: &AdAttrs) {
        let list = |texts: &[String]| {
            Value::List(texts.iter().map(|t| Value::String(t.clone())).collect())
        };
        self.put("ad_group_ad.resource_name", || {
            Value::ResourceName(a.resource_name.clone())
        });
        self.put("ad_group_ad.ad_group", || {
            Value::ResourceName(a.ad_group.clone())
        });
        self.put("ad_group_ad.status", || Value::Enum(a.status.clone()));
        self.put("ad_group_ad.ad.id", || Value::Int64(a.ad_id as i64));
        self.put("ad_group_ad.ad.type", || {
            Value::Enum("RESPONSIVE_SEARCH_AD".into())
        });
        self.put("ad_group_ad.ad.responsive_search_ad.headlines", || {
            list(&a.headlines)
        });
        self.put("ad_group_ad.ad.responsive_search_ad.descriptions", || {
            list(&a.descriptions)
        });
        self.put("ad_group_ad.ad.final_urls", || list(&a.final_urls));
        self.put("ad_group_ad.policy_summary.approval_status", || {
            Value::Enum(a.approval_status.clone())
        });
        self.put("ad_group_ad.policy_summary.review_status", || {
            Value::Enum("REVIEWED".into())
        });
        self.put("ad_group_ad.policy_summary.policy_topic_entries", || {
            list(&a.policy_topic_entries)
        });
    }

    /// Writes the `search_term_view.*` fields.
    pub fn search_term(&mut self, t: &SearchTermAttrs) {
        self.put("search_term_view.resource_name", || {
            Value::ResourceName(t.resource_name.clone())
        });
        self.put("search_term_view.ad_group", || {
            Value::ResourceName(t.ad_group.clone())
        });
        self.put("search_term_view.search_term", || {
            Value::String(t.search_term.clone())
        });
        self.put("search_term_view.status", || Value::Enum(t.status.clone()));
    }

    /// Writes the `campaign_criterion.*` fields.
    pub fn campaign_criterion(&mut self, c: &CampaignCriterionAttrs) {
        self.put("campaign_criterion.resource_name", || {
            Value::ResourceName(c.resource_name.clone())
        });
        self.put("campaign_criterion.campaign", || {
            Value::ResourceName(c.campaign.clone())
        });
        self.put("campaign_criterion.criterion_id", || {
            Value::Int64(c.criterion_id as i64)
        });
        self.put("campaign_criterion.negative", || Value::Bool(c.negative));
        let (kind, gender, age) = match &c.demographic {
            Demographic::Gender(g) => ("GENDER", Some(g), None),
            Demographic::AgeRange(a) => ("AGE_RANGE", None, Some(a)),
        };
        let enum_or_null = |v: Option<&String>| v.map_or(Value::Null, |v| Value::Enum(v.clone()));
        self.put("campaign_criterion.type", || Value::Enum(kind.into()));
        self.put("campaign_criterion.gender.type", || enum_or_null(gender));
        self.put("campaign_criterion.age_range.type", || enum_or_null(age));
    }
}
