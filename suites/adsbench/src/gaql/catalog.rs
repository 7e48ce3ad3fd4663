//! The field catalog: which resources exist, their fields, each field's
//! type and whether it can be selected, filtered and sorted, and which
//! resources' fields may appear with which FROM resource.
//!
//! It mirrors the part of Google's field reference the simulated account
//! has (customer, campaign_budget, campaign, ad_group, ad_group_ad (responsive
//! search ads and their policy summary; no metrics: ads share their ad
//! group's traffic here), ad_group_criterion and its
//! keyword_view, search_term_view (per day, not per hour: the market keeps
//! its search terms by day), campaign_criterion for gender and age exclusions, the count and
//! ratio metrics, the core date segments and the hour and weekday
//! segments). As in Google's reference, resource names
//! and repeated fields cannot be sorted.

use std::fmt;

/// A resource that can follow FROM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Resource {
    /// `customer`: the account.
    Customer,
    /// `campaign_budget`: a daily budget one or more campaigns spend.
    CampaignBudget,
    /// `campaign`.
    Campaign,
    /// `ad_group`.
    AdGroup,
    /// `ad_group_criterion`: keywords (and, in Google, other criteria).
    AdGroupCriterion,
    /// `keyword_view`: Google's usual resource for keyword performance; a
    /// view of the keyword criteria, so sources never serve it themselves.
    KeywordView,
    /// `campaign_criterion`: a campaign's targeting criteria; here only
    /// negative gender and age range criteria (a campaign's exclusions).
    CampaignCriterion,
    /// `ad_group_ad`: an ad in an ad group (a responsive search ad).
    AdGroupAd,
    /// `search_term_view`: the searches that showed an ad group's ads.
    SearchTermView,
}

impl Resource {
    /// Every resource, in the order of the hierarchy.
    pub const ALL: [Resource; 9] = [
        Resource::Customer,
        Resource::CampaignBudget,
        Resource::Campaign,
        Resource::AdGroup,
        Resource::AdGroupCriterion,
        Resource::KeywordView,
        Resource::CampaignCriterion,
        Resource::AdGroupAd,
        Resource::SearchTermView,
    ];

    /// GAQL's name (`ad_group_criterion`).
    pub fn name(self) -> &'static str {
        match self {
            Resource::Customer => "customer",
            Resource::CampaignBudget => "campaign_budget",
            Resource::Campaign => "campaign",
            Resource::AdGroup => "ad_group",
            Resource::AdGroupCriterion => "ad_group_criterion",
            Resource::KeywordView => "keyword_view",
            Resource::CampaignCriterion => "campaign_criterion",
            Resource::AdGroupAd => "ad_group_ad",
            Resource::SearchTermView => "search_term_view",
        }
    }

    /// Whether `segments.hour` may be queried with this resource in FROM:
    /// the market keeps search terms per day.
    pub fn has_hours(self) -> bool {
        self != Resource::SearchTermView
    }

    /// Whether metrics and segments may be queried with this resource in
    /// FROM. Ads have none: the market does not split an ad group's
    /// traffic between its ads, so their figures are the ad group's.
    pub fn has_metrics(self) -> bool {
        self != Resource::AdGroupAd
    }

    /// The resource whose rows and stats a source serves for this one:
    /// itself, except a view (`keyword_view` is served as `ad_group_criterion`).
    pub fn served_as(self) -> Resource {
        match self {
            Resource::KeywordView => Resource::AdGroupCriterion,
            r => r,
        }
    }

    /// The resource GAQL calls `name`.
    pub fn from_name(name: &str) -> Option<Resource> {
        Resource::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The resources whose fields may be selected with this one in FROM:
    /// itself and the resources above it ("attributed resources"), since
    /// each row belongs to exactly one of each.
    pub fn attributed(self) -> &'static [Resource] {
        match self {
            Resource::Customer => &[Resource::Customer],
            Resource::CampaignBudget => &[Resource::CampaignBudget, Resource::Customer],
            // A campaign's budget is attributed to it, as in Google's reference.
            Resource::Campaign => &[
                Resource::Campaign,
                Resource::CampaignBudget,
                Resource::Customer,
            ],
            Resource::AdGroup => &[Resource::AdGroup, Resource::Campaign, Resource::Customer],
            Resource::AdGroupCriterion => &[
                Resource::AdGroupCriterion,
                Resource::AdGroup,
                Resource::Campaign,
                Resource::Customer,
            ],
            Resource::KeywordView => &[
                Resource::KeywordView,
                Resource::AdGroupCriterion,
                Resource::AdGroup,
                Resource::Campaign,
                Resource::Customer,
            ],
            Resource::CampaignCriterion => &[
                Resource::CampaignCriterion,
                Resource::Campaign,
                Resource::Customer,
            ],
            Resource::AdGroupAd => &[
                Resource::AdGroupAd,
                Resource::AdGroup,
                Resource::Campaign,
                Resource::Customer,
            ],
            Resource::SearchTermView => &[
                Resource::SearchTermView,
                Resource::AdGroup,
                Resource::Campaign,
                Resource::Customer,
            ],
        }
    }

    /// The fields of this resource.
    pub fn fields(self) -> impl Iterator<Item = &'static FieldSpec> {
        FIELDS
            .iter()
            .filter(move |f| f.category == Category::Attribute(self))
    }
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a field describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// An attribute of a resource (`campaign.name`).
    Attribute(Resource),
    /// A metric (`metrics.clicks`), summed or derived over the row's stats.
    Metric,
    /// A segment (`segments.date`), which splits a resource's stats into rows.
    Segment,
}

/// A field's data type, as Google's field reference names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    /// `BOOLEAN`.
    Bool,
    /// `INT64`.
    Int64,
    /// `DOUBLE`.
    Double,
    /// `STRING`.
    String,
    /// `ENUM`, with its constants.
    Enum(&'static [&'static str]),
    /// `DATE`.
    Date,
    /// `RESOURCE_NAME`.
    ResourceName,
}

/// One field of the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FieldSpec {
    /// The full name, e.g. `ad_group_criterion.keyword.text`.
    pub name: &'static str,
    /// What it describes.
    pub category: Category,
    /// Its type.
    pub data_type: DataType,
    /// Whether it holds a list (filtered with CONTAINS ANY/ALL/NONE).
    pub repeated: bool,
    /// May appear in SELECT.
    pub selectable: bool,
    /// May appear in WHERE.
    pub filterable: bool,
    /// May appear in ORDER BY.
    pub sortable: bool,
}

impl FieldSpec {
    /// Whether this is one of Google's core date segments (date, week,
    /// month, quarter, year), which may be filtered without being selected.
    pub fn is_core_date_segment(&self) -> bool {
        super::date_range::Period::of_segment(self.name).is_some()
    }
}

const STATUS: &[&str] = &["ENABLED", "PAUSED", "REMOVED"];
const GENDER: &[&str] = &["FEMALE", "MALE", "UNDETERMINED"];
const CAMPAIGN_CRITERION_TYPE: &[&str] = &["GENDER", "AGE_RANGE"];
/// Google's `AgeRangeType`, of the ranges users are drawn in.
const AGE_RANGE: &[&str] = &[
    "AGE_RANGE_18_24",
    "AGE_RANGE_25_34",
    "AGE_RANGE_35_44",
    "AGE_RANGE_45_54",
    "AGE_RANGE_55_64",
    "AGE_RANGE_65_UP",
];
const BUDGET_STATUS: &[&str] = &["ENABLED", "REMOVED"];
const DELIVERY: &[&str] = &["STANDARD", "ACCELERATED"];
const CHANNEL: &[&str] = &["SEARCH", "DISPLAY", "SHOPPING", "VIDEO", "PERFORMANCE_MAX"];
const BIDDING: &[&str] = &[
    "MANUAL_CPC",
    "MAXIMIZE_CLICKS",
    "MAXIMIZE_CONVERSIONS",
    "MAXIMIZE_CONVERSION_VALUE",
    "TARGET_CPA",
    "TARGET_ROAS",
];
const AD_GROUP_TYPE: &[&str] = &["SEARCH_STANDARD", "DISPLAY_STANDARD"];
const CRITERION_TYPE: &[&str] = &["KEYWORD"];
const MATCH_TYPE: &[&str] = &["EXACT", "PHRASE", "BROAD"];
const AD_TYPE: &[&str] = &["RESPONSIVE_SEARCH_AD"];
/// Google's `SearchTermTargetingStatus`.
const SEARCH_TERM_STATUS: &[&str] = &["ADDED", "EXCLUDED", "ADDED_EXCLUDED", "NONE", "UNKNOWN"];
/// Google's `PolicyApprovalStatus`.
const APPROVAL: &[&str] = &[
    "APPROVED",
    "APPROVED_LIMITED",
    "AREA_OF_INTEREST_ONLY",
    "DISAPPROVED",
    "UNKNOWN",
];
/// Google's `PolicyReviewStatus`.
const REVIEW: &[&str] = &[
    "REVIEW_IN_PROGRESS",
    "REVIEWED",
    "UNDER_APPEAL",
    "ELIGIBLE_MAY_SERVE",
    "UNKNOWN",
];
/// Google's `DayOfWeek`, in its order.
pub const DAY_OF_WEEK: &[&str] = &[
    "MONDAY",
    "TUESDAY",
    "WEDNESDAY",
    "THURSDAY",
    "FRIDAY",
    "SATURDAY",
    "SUNDAY",
];

const fn field(name: &'static str, category: Category, data_type: DataType) -> FieldSpec {
    let sortable = !matches!(data_type, DataType::ResourceName);
    FieldSpec {
        name,
        category,
        data_type,
        repeated: false,
        selectable: true,
        filterable: true,
        sortable,
    }
}

const fn repeated(name: &'static str, category: Category, data_type: DataType) -> FieldSpec {
    FieldSpec {
        repeated: true,
        sortable: false,
        ..field(name, category, data_type)
    }
}

use Category::{Attribute as A, Metric as M, Segment as S};
use DataType::{Bool, Date, Double, Enum, Int64, ResourceName as Rn, String as Str};
use Resource::{
    AdGroup as Ag, AdGroupAd as Aga, AdGroupCriterion as Agc, Campaign as Cp, CampaignBudget as Cb,
    CampaignCriterion as Cc, Customer as Cu, KeywordView as Kv, SearchTermView as Stv,
};

/// Every field of the simulated API.
pub static FIELDS: &[FieldSpec] = &[
    field("customer.resource_name", A(Cu), Rn),
    field("customer.id", A(Cu), Int64),
    field("customer.descriptive_name", A(Cu), Str),
    field("customer.currency_code", A(Cu), Str),
    field("customer.time_zone", A(Cu), Str),
    field("customer.manager", A(Cu), Bool),
    field("campaign_budget.resource_name", A(Cb), Rn),
    field("campaign_budget.id", A(Cb), Int64),
    field("campaign_budget.name", A(Cb), Str),
    field("campaign_budget.amount_micros", A(Cb), Int64),
    field("campaign_budget.delivery_method", A(Cb), Enum(DELIVERY)),
    field("campaign_budget.status", A(Cb), Enum(BUDGET_STATUS)),
    field("campaign.resource_name", A(Cp), Rn),
    field("campaign.id", A(Cp), Int64),
    field("campaign.name", A(Cp), Str),
    field("campaign.status", A(Cp), Enum(STATUS)),
    field("campaign.advertising_channel_type", A(Cp), Enum(CHANNEL)),
    field("campaign.bidding_strategy_type", A(Cp), Enum(BIDDING)),
    field("campaign.campaign_budget", A(Cp), Rn),
    field("campaign.start_date", A(Cp), Date),
    field("campaign.end_date", A(Cp), Date),
    field("campaign.target_cpa.target_cpa_micros", A(Cp), Int64),
    repeated("campaign.labels", A(Cp), Rn),
    field("ad_group.resource_name", A(Ag), Rn),
    field("ad_group.id", A(Ag), Int64),
    field("ad_group.name", A(Ag), Str),
    field("ad_group.status", A(Ag), Enum(STATUS)),
    field("ad_group.type", A(Ag), Enum(AD_GROUP_TYPE)),
    field("ad_group.campaign", A(Ag), Rn),
    field("ad_group.cpc_bid_micros", A(Ag), Int64),
    repeated("ad_group.labels", A(Ag), Rn),
    field("ad_group_criterion.resource_name", A(Agc), Rn),
    field("ad_group_criterion.criterion_id", A(Agc), Int64),
    field("ad_group_criterion.ad_group", A(Agc), Rn),
    field("ad_group_criterion.status", A(Agc), Enum(STATUS)),
    field("ad_group_criterion.type", A(Agc), Enum(CRITERION_TYPE)),
    field("ad_group_criterion.negative", A(Agc), Bool),
    field("ad_group_criterion.keyword.text", A(Agc), Str),
    field(
        "ad_group_criterion.keyword.match_type",
        A(Agc),
        Enum(MATCH_TYPE),
    ),
    field("ad_group_criterion.cpc_bid_micros", A(Agc), Int64),
    field(
        "ad_group_criterion.quality_info.quality_score",
        A(Agc),
        Int64,
    ),
    repeated("ad_group_criterion.labels", A(Agc), Rn),
    field("keyword_view.resource_name", A(Kv), Rn),
    field("campaign_criterion.resource_name", A(Cc), Rn),
    field("campaign_criterion.campaign", A(Cc), Rn),
    field("campaign_criterion.criterion_id", A(Cc), Int64),
    field("campaign_criterion.negative", A(Cc), Bool),
    field(
        "campaign_criterion.type",
        A(Cc),
        Enum(CAMPAIGN_CRITERION_TYPE),
    ),
    field("campaign_criterion.gender.type", A(Cc), Enum(GENDER)),
    field("campaign_criterion.age_range.type", A(Cc), Enum(AGE_RANGE)),
    field("ad_group_ad.resource_name", A(Aga), Rn),
    field("ad_group_ad.ad_group", A(Aga), Rn),
    field("ad_group_ad.status", A(Aga), Enum(STATUS)),
    field("ad_group_ad.ad.id", A(Aga), Int64),
    field("ad_group_ad.ad.type", A(Aga), Enum(AD_TYPE)),
    repeated("ad_group_ad.ad.responsive_search_ad.headlines", A(Aga), Str),
    repeated(
        "ad_group_ad.ad.responsive_search_ad.descriptions",
        A(Aga),
        Str,
    ),
    repeated("ad_group_ad.ad.final_urls", A(Aga), Str),
    field(
        "ad_group_ad.policy_summary.approval_status",
        A(Aga),
        Enum(APPROVAL),
    ),
    field(
        "ad_group_ad.policy_summary.review_status",
        A(Aga),
        Enum(REVIEW),
    ),
    // Google's entries are messages (topic, type, evidences); here each
    // is one string, `TOPIC: the review's message`.
    repeated(
        "ad_group_ad.policy_summary.policy_topic_entries",
        A(Aga),
        Str,
    ),
    field("search_term_view.resource_name", A(Stv), Rn),
    field("search_term_view.search_term", A(Stv), Str),
    field("search_term_view.ad_group", A(Stv), Rn),
    field("search_term_view.status", A(Stv), Enum(SEARCH_TERM_STATUS)),
    field("metrics.impressions", M, Int64),
    field("metrics.clicks", M, Int64),
    field("metrics.cost_micros", M, Int64),
    field("metrics.conversions", M, Double),
    field("metrics.conversions_value", M, Double),
    field("metrics.ctr", M, Double),
    field("metrics.average_cpc", M, Double),
    field("metrics.average_cpm", M, Double),
    field("metrics.cost_per_conversion", M, Double),
    field("metrics.conversions_from_interactions_rate", M, Double),
    field("metrics.value_per_conversion", M, Double),
    field("segments.date", S, Date),
    field("segments.week", S, Date),
    field("segments.month", S, Date),
    field("segments.quarter", S, Date),
    field("segments.year", S, Int64),
    field("segments.hour", S, Int64),
    field("segments.day_of_week", S, Enum(DAY_OF_WEEK)),
];

/// The field called `name`, if the catalog has it.
pub fn lookup(name: &str) -> Option<&'static FieldSpec> {
    FIELDS.iter().find(|f| f.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_prefixed_by_their_category() {
        for (i, f) in FIELDS.iter().enumerate() {
            assert!(
                FIELDS[i + 1..].iter().all(|g| g.name != f.name),
                "{} twice",
                f.name
            );
            let prefix = match f.category {
                Category::Attribute(r) => r.name(),
                Category::Metric => "metrics",
                Category::Segment => "segments",
            };
            assert!(f.name.starts_with(&format!("{prefix}.")), "{}", f.name);
        }
        assert_eq!(Resource::AdGroup.fields().count(), 8);
        assert!(!lookup("campaign.labels").unwrap().sortable);
        assert!(!lookup("campaign.resource_name").unwrap().sortable);
        assert_eq!(Resource::from_name("ad_group"), Some(Resource::AdGroup));
        assert_eq!(Resource::from_name("metrics"), None);
    }
}
