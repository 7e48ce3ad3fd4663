//! An in-memory account: a customer's campaigns, ad groups and keywords
//! with hourly stats per keyword. It implements both seams
//! ([`RowSource`] and [`MutableAccount`]) with the same semantics the
//! market's account model must have, so the API is tested end to end
//! without the market. [`InMemoryAccount::sample`] is the small hand-built
//! account the tests compute expected answers from.

use super::clock::SimDate;
use super::error::{ErrorCode, GoogleAdsError};
use super::mutate::{resource_of, MutableAccount, MutateOperation, OperationKind};
use crate::gaql::{Counts, DateSpan, EntityRow, Resource, RowSource, StatCell, Value};
use std::collections::BTreeMap;

/// A campaign.
#[derive(Debug, Clone, PartialEq)]
pub struct Campaign {
    /// Its id.
    pub id: u64,
    /// Its name, unique in the account.
    pub name: String,
    /// ENABLED, PAUSED or REMOVED.
    pub status: String,
    /// SEARCH, DISPLAY ...
    pub channel: String,
    /// MANUAL_CPC, TARGET_CPA ...
    pub bidding: String,
    /// The budget's id.
    pub budget_id: u64,
    /// First day, if set.
    pub start_date: Option<SimDate>,
    /// Last day, if set.
    pub end_date: Option<SimDate>,
    /// Target CPA, micros, for TARGET_CPA bidding.
    pub target_cpa_micros: Option<i64>,
    /// Label ids.
    pub labels: Vec<u64>,
}

/// An ad group.
#[derive(Debug, Clone, PartialEq)]
pub struct AdGroup {
    /// Its id.
    pub id: u64,
    /// Its campaign's id.
    pub campaign_id: u64,
    /// Its name, unique in its campaign.
    pub name: String,
    /// ENABLED, PAUSED or REMOVED.
    pub status: String,
    /// SEARCH_STANDARD or DISPLAY_STANDARD.
    pub kind: String,
    /// Default max CPC, micros.
    pub cpc_bid_micros: i64,
    /// Label ids.
    pub labels: Vec<u64>,
}

/// A keyword (an ad group criterion of type KEYWORD).
#[derive(Debug, Clone, PartialEq)]
pub struct Keyword {
    /// The criterion id.
    pub id: u64,
    /// Its ad group's id.
    pub ad_group_id: u64,
    /// The keyword text.
    pub text: String,
    /// EXACT, PHRASE or BROAD.
    pub match_type: String,
    /// ENABLED, PAUSED or REMOVED.
    pub status: String,
    /// A negative keyword (blocks traffic, has no stats).
    pub negative: bool,
    /// Its own max CPC, micros; none to use the ad group's.
    pub cpc_bid_micros: Option<i64>,
    /// Quality score 1–10, once known.
    pub quality_score: Option<i64>,
    /// Label ids.
    pub labels: Vec<u64>,
}

/// One committed change, with the agent's note.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeRecord {
    /// The resource created, changed or removed.
    pub resource_name: String,
    /// CREATE, UPDATE or REMOVE.
    pub operation: &'static str,
    /// The agent's reason, if given.
    pub change_note: Option<String>,
}

/// A whole account in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct InMemoryAccount {
    /// The customer id.
    pub customer_id: u64,
    /// The account's name.
    pub descriptive_name: String,
    campaigns: Vec<Campaign>,
    ad_groups: Vec<AdGroup>,
    keywords: Vec<Keyword>,
    /// Hourly stats by criterion id.
    pub stats: BTreeMap<u64, Vec<StatCell>>,
    changes: Vec<ChangeRecord>,
    next_id: u64,
}

fn counts(impressions: i64, clicks: i64, cost_micros: i64, conversions: f64, value: f64) -> Counts {
    Counts {
        impressions,
        clicks,
        cost_micros,
        conversions,
        conversions_value: value,
    }
}

impl InMemoryAccount {
    /// An empty account.
    pub fn new(customer_id: u64, descriptive_name: &str) -> InMemoryAccount {
        InMemoryAccount {
            customer_id,
            descriptive_name: descriptive_name.to_string(),
            campaigns: Vec::new(),
            ad_groups: Vec::new(),
            keywords: Vec::new(),
            stats: BTreeMap::new(),
            changes: Vec::new(),
            next_id: 1000,
        }
    }

    /// The hand-built test account ("today" is Wednesday 2024-03-13).
    ///
    /// Customer 1234567890 "Acme Shoes" (USD); campaigns 101 "Shoes - Search"
    /// (ENABLED, SEARCH, MANUAL_CPC, label 1) and 102 "Boots - Display"
    /// (PAUSED, DISPLAY, TARGET_CPA 5,000,000, labels 1 and 2, ends
    /// 2024-12-31); ad groups 201 "Running" and 202 "Trail" (PAUSED, label 2)
    /// in 101, 203 "Winter boots" in 102; keywords 301 "running shoes" and
    /// 302 "buy running shoes" in 201, 303 "trail shoes" (PAUSED) in 202, 304
    /// "winter boots" and the negative 305 "cheap" in 203.
    ///
    /// Stats: keyword k with multiplier m (301→1, 302→2, 303→3, 304→4) and
    /// cost per click p (1,000,000 / 500,000 / 800,000 / 1,200,000) has, on
    /// day d of 2024-03-10..12 (d = 1, 2, 3) at hour h (9 → f = 1, 14 → f = 2):
    /// impressions 100·m·d·f, clicks 2·m·d·f, cost clicks·p, conversions
    /// clicks/4, conversion value 20 per conversion. Plus 301 on 2024-02-20
    /// at 10:00 (1000 impressions, 10 clicks, 5,000,000 cost, 1 conversion
    /// worth 50) and 304 today at 08:00 (500, 5, 6,000,000, 0, 0).
    pub fn sample() -> InMemoryAccount {
        let mut a = InMemoryAccount::new(1_234_567_890, "Acme Shoes");
        let day = |s: &str| SimDate::parse(s).expect("a valid literal date");
        let campaign = |id, name: &str, status: &str, channel: &str, bidding: &str| Campaign {
            id,
            name: name.into(),
            status: status.into(),
            channel: channel.into(),
            bidding: bidding.into(),
            budget_id: id + 400,
            start_date: None,
            end_date: None,
            target_cpa_micros: None,
            labels: vec![1],
        };
        a.campaigns.push(Campaign {
            start_date: Some(day("2024-01-01")),
            ..campaign(101, "Shoes - Search", "ENABLED", "SEARCH", "MANUAL_CPC")
        });
        a.campaigns.push(Campaign {
            start_date: Some(day("2024-02-01")),
            end_date: Some(day("2024-12-31")),
            target_cpa_micros: Some(5_000_000),
            labels: vec![1, 2],
            ..campaign(102, "Boots - Display", "PAUSED", "DISPLAY", "TARGET_CPA")
        });
        let group = |id, campaign_id, name: &str, status: &str, kind: &str, bid, labels| AdGroup {
            id,
            campaign_id,
            name: name.into(),
            status: status.into(),
            kind: kind.into(),
            cpc_bid_micros: bid,
            labels,
        };
        a.ad_groups = vec![
            group(
                201,
                101,
                "Running",
                "ENABLED",
                "SEARCH_STANDARD",
                1_000_000,
                vec![],
            ),
            group(
                202,
                101,
                "Trail",
                "PAUSED",
                "SEARCH_STANDARD",
                800_000,
                vec![2],
            ),
            group(
                203,
                102,
                "Winter boots",
                "ENABLED",
                "DISPLAY_STANDARD",
                1_200_000,
                vec![],
            ),
        ];
        let kw = |id, ad_group_id, text: &str, m: &str, status: &str, bid, qs| Keyword {
            id,
            ad_group_id,
            text: text.into(),
            match_type: m.into(),
            status: status.into(),
            negative: false,
            cpc_bid_micros: bid,
            quality_score: qs,
            labels: vec![],
        };
        a.keywords = vec![
            kw(
                301,
                201,
                "running shoes",
                "EXACT",
                "ENABLED",
                Some(1_500_000),
                Some(7),
            ),
            kw(
                302,
                201,
                "buy running shoes",
                "PHRASE",
                "ENABLED",
                None,
                None,
            ),
            kw(
                303,
                202,
                "trail shoes",
                "BROAD",
                "PAUSED",
                Some(900_000),
                Some(5),
            ),
            kw(
                304,
                203,
                "winter boots",
                "EXACT",
                "ENABLED",
                Some(1_100_000),
                Some(9),
            ),
            Keyword {
                negative: true,
                ..kw(305, 203, "cheap", "BROAD", "ENABLED", None, None)
            },
        ];
        for (id, m, cpc) in [
            (301, 1, 1_000_000),
            (302, 2, 500_000),
            (303, 3, 800_000),
            (304, 4, 1_200_000),
        ] {
            let cells = a.stats.entry(id).or_default();
            for d in 1..=3 {
                for (hour, f) in [(9u8, 1), (14u8, 2)] {
                    let clicks = 2 * m * d * f;
                    cells.push(StatCell {
                        date: day("2024-03-09").add_days(d as i32),
                        hour,
                        counts: counts(
                            100 * m * d * f,
                            clicks,
                            clicks * cpc,
                            clicks as f64 / 4.0,
                            clicks as f64 / 4.0 * 20.0,
                        ),
                    });
                }
            }
        }
        a.stats.entry(301).or_default().push(StatCell {
            date: day("2024-02-20"),
            hour: 10,
            counts: counts(1000, 10, 5_000_000, 1.0, 50.0),
        });
        a.stats.entry(304).or_default().push(StatCell {
            date: day("2024-03-13"),
            hour: 8,
            counts: counts(500, 5, 6_000_000, 0.0, 0.0),
        });
        a
    }

    /// Adds a keyword to ad group `ad_group_id` directly (for building big
    /// accounts in tests); returns its criterion id.
    pub fn add_keyword(&mut self, ad_group_id: u64, text: &str, match_type: &str) -> u64 {
        let id = self.fresh_id();
        self.keywords.push(Keyword {
            id,
            ad_group_id,
            text: text.to_string(),
            match_type: match_type.to_string(),
            status: "ENABLED".into(),
            negative: false,
            cpc_bid_micros: None,
            quality_score: None,
            labels: vec![],
        });
        id
    }

    /// Campaigns, in creation order.
    pub fn campaigns(&self) -> &[Campaign] {
        &self.campaigns
    }

    /// Ad groups, in creation order.
    pub fn ad_groups(&self) -> &[AdGroup] {
        &self.ad_groups
    }

    /// Keywords, in creation order.
    pub fn keywords(&self) -> &[Keyword] {
        &self.keywords
    }

    /// Committed changes, oldest first.
    pub fn changes(&self) -> &[ChangeRecord] {
        &self.changes
    }

    /// A new id. Entities are only added through this counter (the sample's
    /// hand-picked ids are all below its start), so ids never collide.
    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id - 1
    }

    fn customer_name(&self) -> String {
        format!("customers/{}", self.customer_id)
    }

    fn campaign_name(&self, id: u64) -> String {
        format!("customers/{}/campaigns/{id}", self.customer_id)
    }

    fn ad_group_name(&self, id: u64) -> String {
        format!("customers/{}/adGroups/{id}", self.customer_id)
    }

    fn keyword_name(&self, k: &Keyword) -> String {
        format!(
            "customers/{}/adGroupCriteria/{}~{}",
            self.customer_id, k.ad_group_id, k.id
        )
    }

    fn labels(&self, ids: &[u64]) -> Value {
        Value::List(
            ids.iter()
                .map(|l| Value::ResourceName(format!("customers/{}/labels/{l}", self.customer_id)))
                .collect(),
        )
    }

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

    fn campaign_row(&self, c: &Campaign, b: &mut RowBuilder) {
        self.customer_row(b);
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
            Value::ResourceName(format!(
                "customers/{}/campaignBudgets/{}",
                self.customer_id, c.budget_id
            ))
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

    /// The id at the end of a resource name (the criterion id after `~`).
    fn id_of(resource_name: &str) -> Option<u64> {
        resource_name.rsplit(['/', '~']).next()?.parse().ok()
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
            Resource::AdGroupCriterion => self
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
        let keywords: Vec<u64> = match resource {
            Resource::Customer => self.stats.keys().copied().collect(),
            Resource::AdGroupCriterion => id.into_iter().collect(),
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
            _ => Err(GoogleAdsError {
                trigger: Some(key.to_string()),
                ..resource_error("FieldError.REQUIRED", format!("{key} is required."))
            }),
        };
        let bid_ok = |fields: &BTreeMap<String, Value>| match int(fields, "cpc_bid_micros") {
            Some(b) if b <= 0 => Err(GoogleAdsError {
                trigger: Some(b.to_string()),
                ..resource_error("RangeError.TOO_LOW", "A bid must be positive.".into())
            }),
            _ => Ok(()),
        };
        match &op.kind {
            OperationKind::Create { resource, fields } => {
                bid_ok(fields)?;
                match resource {
                    Resource::Campaign => {
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
                    Resource::Customer => {
                        return Err(resource_error(
                            "MutateError.MUTATE_NOT_ALLOWED",
                            "Customers cannot be created here.".into(),
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
                    Resource::Campaign => &[
                        "name",
                        "status",
                        "bidding_strategy_type",
                        "target_cpa.target_cpa_micros",
                        "end_date",
                    ],
                    Resource::AdGroup => &["name", "status", "cpc_bid_micros"],
                    _ => &["status", "cpc_bid_micros"],
                };
                if let Some(path) = update_mask.iter().find(|p| !mutable.contains(&p.as_str())) {
                    return Err(GoogleAdsError {
                        trigger: Some(path.clone()),
                        ..GoogleAdsError::new(
                            ErrorCode::RequestError(super::error::RequestError::ImmutableField),
                            format!("{resource}.{path} cannot be changed."),
                        )
                    });
                }
                // Only these can be unset; every other masked field needs a value.
                let clearable = ["target_cpa.target_cpa_micros", "end_date"];
                let keyword_bid = resource == Resource::AdGroupCriterion;
                for path in update_mask {
                    let unset = matches!(fields.get(path), None | Some(Value::Null));
                    let may_clear = clearable.contains(&path.as_str())
                        || (keyword_bid && path == "cpc_bid_micros");
                    if unset && !may_clear {
                        return Err(GoogleAdsError {
                            trigger: Some(path.clone()),
                            ..resource_error("FieldError.REQUIRED", format!("{path} is required."))
                        });
                    }
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
    GoogleAdsError {
        trigger: Some(resource_name.to_string()),
        ..resource_error(
            "MutateError.RESOURCE_NOT_FOUND",
            format!("{resource_name} does not exist."),
        )
    }
}

impl InMemoryAccount {
    fn find(&self, resource: Resource, resource_name: &str) -> Result<(), GoogleAdsError> {
        let id = InMemoryAccount::id_of(resource_name);
        let exists = resource_name.starts_with(&format!("{}/", self.customer_name()))
            && match resource {
                Resource::Campaign => self.campaigns.iter().any(|c| Some(c.id) == id),
                Resource::AdGroup => self.ad_groups.iter().any(|g| Some(g.id) == id),
                Resource::AdGroupCriterion => self
                    .keywords
                    .iter()
                    .any(|k| Some(k.id) == id && self.keyword_name(k) == resource_name),
                Resource::Customer => false,
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
            Resource::Campaign => {
                self.campaigns.push(Campaign {
                    id,
                    name: text(fields, "name").unwrap_or_default(),
                    status,
                    channel: text(fields, "advertising_channel_type")
                        .unwrap_or_else(|| "SEARCH".into()),
                    bidding: text(fields, "bidding_strategy_type")
                        .unwrap_or_else(|| "MANUAL_CPC".into()),
                    budget_id: id,
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
            Ok(Resource::Campaign) => {
                if let Some(c) = self.campaigns.iter_mut().find(|c| Some(c.id) == id) {
                    match path {
                        "name" => c.name = t.unwrap_or_default(),
                        "status" => c.status = t.unwrap_or_default(),
                        "bidding_strategy_type" => c.bidding = t.unwrap_or_default(),
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
