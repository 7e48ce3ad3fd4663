//! A gauntlet task as its TOML file states it: what it is (modality,
//! difficulty, vertical, objective, start, dynamic factors), the market
//! (`[scenario]`), the account the agent is handed (`[account]`), the
//! owner's and the platform's events (`[[event]]`), what the agent may
//! change (`scope`), how it is graded (`[[predicate]]`, `[diagnosis]`) and
//! the reference steps the scripted oracle takes (`[[oracle]]`).
//!
//! Every struct refuses unknown keys. The types are plain structs with a
//! `kind` and optional fields rather than tagged enums, so `toml` keeps
//! the position of every key and a parse error names its line; what a
//! kind needs is checked afterwards (`check`).

pub use super::attack::{Attack, AttackKind, PlantedIn};
pub use super::labels::{
    Cause, Difficulty, Dynamic, Modality, Objective, ObjectiveKind, Start, Vertical,
};
pub use super::steps::{
    DiagnosisSpec, Event, EventKind, Metric, OracleOp, OracleStep, Predicate, PredicateKind,
    SetValue,
};
use crate::market::AdCopy;
use crate::score::SpecialCategory;
use serde::{Deserialize, Serialize};

/// The market of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskScenario {
    /// The market's seed.
    pub seed: u64,
    /// The day of the agent's first decision, `YYYY-MM-DD`.
    pub start_date: String,
    /// The agent's horizon, 1..=14 days from `start_date`.
    pub days: u32,
    /// Hours between the agent's decisions (dividing 24).
    #[serde(default = "default_cadence")]
    pub cadence: u32,
    /// The account's daily budget B, micros: the sum of its campaigns'
    /// budgets; the budget stratum is read from it.
    pub budget_micros: i64,
    /// Average searches a day in the whole market.
    pub opportunities_per_day: f64,
    /// `gsp`, `first-price` or `vcg`.
    #[serde(default = "default_mechanism")]
    pub mechanism: String,
    /// Days the account runs before `start_date` (a warm start's
    /// history; 0 for a cold start).
    #[serde(default)]
    pub warmup_days: u32,
    /// The special ad category the account advertises in (`housing`,
    /// `employment`, `credit`): delivery is measured per audience group
    /// and the fairness gate applies, as on a scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub special_category: Option<SpecialCategory>,
}

fn default_cadence() -> u32 {
    24
}

fn default_mechanism() -> String {
    "gsp".into()
}

/// The account the agent is handed (campaigns are not created through
/// the API: the owner made them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountSpec {
    /// Its campaigns, each with one ad group.
    pub campaigns: Vec<CampaignSpec>,
}

/// One campaign with its ad group and keywords.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CampaignSpec {
    /// Its name, unique in the account; predicates and scope use it.
    pub name: String,
    /// `ENABLED` or `PAUSED`.
    #[serde(default = "enabled")]
    pub status: String,
    /// Its daily budget, micros; with one campaign, B by default.
    #[serde(default)]
    pub budget_micros: Option<i64>,
    /// Its ad group's name; `{name} ad group` by default.
    #[serde(default)]
    pub ad_group: Option<String>,
    /// The ad group's default max CPC, micros.
    #[serde(default = "default_group_bid")]
    pub ad_group_bid_micros: i64,
    /// Its keywords (none for an account yet to be planned).
    #[serde(default)]
    pub keywords: Vec<KeywordSpec>,
    /// Its ad group's ads; one written from its keywords when none is
    /// listed ([`CampaignSpec::ads`]).
    #[serde(default, rename = "ads", skip_serializing_if = "Vec::is_empty")]
    pub ad_specs: Vec<AdSpec>,
}

/// One responsive search ad of a campaign's ad group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdSpec {
    /// 3 to 15 headlines of at most 30 characters.
    pub headlines: Vec<String>,
    /// 2 to 4 descriptions of at most 90 characters.
    pub descriptions: Vec<String>,
    /// The landing page, http or https.
    pub final_url: String,
    /// `ENABLED` or `PAUSED`.
    #[serde(default = "enabled")]
    pub status: String,
    /// A policy review that disapproved the ad before the episode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disapproved: Option<Disapproval>,
}

impl AdSpec {
    /// The ad's text as the market takes it.
    pub fn copy(&self) -> AdCopy {
        AdCopy {
            headlines: self.headlines.clone(),
            descriptions: self.descriptions.clone(),
            final_urls: vec![self.final_url.clone()],
        }
    }
}

/// A disapproval: the policy topic and the review's message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Disapproval {
    /// Google's policy topic, e.g. `MISREPRESENTATION`.
    pub topic: String,
    /// What the review says to the advertiser.
    pub message: String,
}

fn enabled() -> String {
    "ENABLED".into()
}

fn default_group_bid() -> i64 {
    800_000
}

impl CampaignSpec {
    /// The ad group's name.
    pub fn ad_group_name(&self) -> String {
        self.ad_group
            .clone()
            .unwrap_or_else(|| format!("{} ad group", self.name))
    }

    /// The ad group's ads: those listed, else one the owner wrote from the
    /// positive keywords (each a headline, title-cased and cut to 30
    /// characters, padded with stock ones to three) linking to a page
    /// named after the campaign.
    pub fn ads(&self) -> Vec<AdSpec> {
        if !self.ad_specs.is_empty() {
            return self.ad_specs.clone();
        }
        let title = |t: &str| -> String {
            let words: Vec<String> = t
                .split_whitespace()
                .map(|w| {
                    let mut c = w.chars();
                    c.next()
                        .map(|f| f.to_uppercase().chain(c).collect())
                        .unwrap_or_default()
                })
                .collect();
            words.join(" ").chars().take(30).collect()
        };
        let mut headlines: Vec<String> = self
            .keywords
            .iter()
            .filter(|k| !k.negative)
            .map(|k| title(&k.text))
            .take(12)
            .collect();
        for stock in [
            "Official Site",
            "Order Online Today",
            "Fast, Friendly Service",
        ] {
            if headlines.len() >= 3 {
                break;
            }
            headlines.push(stock.into());
        }
        let slug: String = self
            .name
            .to_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .take(60)
            .collect();
        vec![AdSpec {
            headlines,
            descriptions: vec![
                "Compare options and prices, then order online in minutes.".into(),
                "Friendly support every day of the week.".into(),
            ],
            final_url: format!("https://www.example.com/{}", slug.trim_matches('-')),
            status: enabled(),
            disapproved: None,
        }]
    }
}

/// One keyword of an ad group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeywordSpec {
    /// The keyword's text (the market's vocabulary decides what it matches).
    pub text: String,
    /// `broad`, `phrase` or `exact`.
    #[serde(default = "broad", rename = "match")]
    pub match_type: String,
    /// Its own max CPC, micros; the ad group's when left out.
    #[serde(default)]
    pub bid_micros: Option<i64>,
    /// `ENABLED` or `PAUSED`.
    #[serde(default = "enabled")]
    pub status: String,
    /// A negative keyword: keeps the ad group off the queries it matches.
    #[serde(default)]
    pub negative: bool,
}

fn broad() -> String {
    "broad".into()
}

/// A gauntlet task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// Stable id, the file's stem.
    pub id: String,
    /// Planning, control or analysis.
    pub modality: Modality,
    /// Easy, medium or hard.
    pub difficulty: Difficulty,
    /// The advertiser's vertical.
    pub vertical: Vertical,
    /// The advertiser's objective and target.
    pub objective: Objective,
    /// Cold or warm.
    pub start: Start,
    /// The dynamic factors at play.
    #[serde(default)]
    pub dynamics: Vec<Dynamic>,
    /// Whether doing nothing fails the task (a calm account's right answer
    /// may be to leave it be).
    pub needs_action: bool,
    /// The advertiser's words to the agent.
    pub brief: String,
    /// The market.
    pub scenario: TaskScenario,
    /// The account handed over.
    pub account: AccountSpec,
    /// What the agent may change, `kind:name.field` (`*` for any name or
    /// field; kinds `campaign`, `budget`, `ad_group`, `keyword`; field
    /// `create` for a new keyword or ad group, `remove` for a removal).
    #[serde(default)]
    pub scope: Vec<String>,
    /// Events outside the agent, in any order.
    #[serde(default, rename = "event")]
    pub events: Vec<Event>,
    /// Success predicates, all of which must hold.
    #[serde(default, rename = "predicate")]
    pub predicates: Vec<Predicate>,
    /// The diagnosis graded (analysis tasks).
    #[serde(default)]
    pub diagnosis: Option<DiagnosisSpec>,
    /// The oracle's reference steps.
    #[serde(default, rename = "oracle")]
    pub oracle: Vec<OracleStep>,
    /// What the red team plants (red-team tasks only; see `attack`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack: Option<Attack>,
}
