//! An in-memory account: a customer's campaigns, ad groups and keywords
//! with hourly stats per keyword. It implements both seams
//! ([`RowSource`](crate::gaql::RowSource) and
//! [`MutableAccount`](super::mutate::MutableAccount)) with the same semantics the
//! market's account model must have, so the API is tested end to end
//! without the market. [`InMemoryAccount::sample`] is the small hand-built
//! account the tests compute expected answers from.
//!
//! - this file: the model and the sample;
//! - `rows`: reading it as a [`RowSource`](crate::gaql::RowSource);
//! - `changes`: changing it as a [`MutableAccount`](super::mutate::MutableAccount).

mod changes;
mod rows;

use crate::gaql::{Counts, StatCell, Value};
use crate::market::Date;
use std::collections::BTreeMap;

/// A campaign budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
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
    pub start_date: Option<Date>,
    /// Last day, if set.
    pub end_date: Option<Date>,
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
    budgets: Vec<Budget>,
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
            budgets: Vec::new(),
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
    /// Customer 1234567890 "Acme Shoes" (USD); budgets 501 "Shoes budget"
    /// (50,000,000 a day) and 502 "Boots budget" (30,000,000); campaigns 101
    /// "Shoes - Search" (ENABLED, SEARCH, MANUAL_CPC, label 1, budget 501)
    /// and 102 "Boots - Display" (PAUSED, DISPLAY, TARGET_CPA 5,000,000,
    /// labels 1 and 2, ends 2024-12-31, budget 502); ad groups 201 "Running" and 202 "Trail" (PAUSED, label 2)
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
        let day = |s: &str| Date::parse_google(s).expect("a valid literal date");
        let budget = |id, name: &str, amount_micros| Budget {
            id,
            name: name.into(),
            amount_micros,
            delivery_method: "STANDARD".into(),
            status: "ENABLED".into(),
        };
        a.budgets = vec![
            budget(501, "Shoes budget", 50_000_000),
            budget(502, "Boots budget", 30_000_000),
        ];
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
                        date: day("2024-03-09").plus_days(d),
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

    /// Budgets, in creation order.
    pub fn budgets(&self) -> &[Budget] {
        &self.budgets
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

    fn budget_name(&self, id: u64) -> String {
        format!("customers/{}/campaignBudgets/{id}", self.customer_id)
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

    /// The id at the end of a resource name (the criterion id after `~`).
    fn id_of(resource_name: &str) -> Option<u64> {
        resource_name.rsplit(['/', '~']).next()?.parse().ok()
    }
}
