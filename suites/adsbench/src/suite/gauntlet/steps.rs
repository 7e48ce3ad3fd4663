//! A task's timed and graded parts: the events outside the agent, the
//! success predicates, the graded diagnosis and the oracle's steps.

use super::labels::Cause;
use super::labels::Dynamic;
use serde::{Deserialize, Serialize};

/// What happens to the market or the account outside the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// `bot_searches` bots follow each matched search and click (click
    /// fraud; the market's drain).
    InvalidTraffic,
    /// The owner sets every campaign's budget to `budget_micros`.
    BudgetChange,
    /// The platform stops `ad_group` serving (its ad disapproved).
    DisapprovedAd,
    /// A bidder enters bidding `bid_micros` with a daily budget of
    /// `budget_micros`, from the event's day (at midnight).
    CompetitorEntering,
    /// The product `keyword` advertises sells out: from the event on,
    /// that keyword's clicks never convert (they are still charged).
    StockChange,
    /// Conversions stop being reported: the API's searches show none from
    /// the event on, while the market still records them.
    TrackingOutage,
    /// The market's promotion window of the vertical starts that day
    /// (at midnight): checked against the market, which runs it.
    Promotion,
}

impl EventKind {
    /// The dynamic factor the event is.
    pub fn dynamic(self) -> Dynamic {
        match self {
            EventKind::InvalidTraffic => Dynamic::InvalidTraffic,
            EventKind::BudgetChange => Dynamic::BudgetChange,
            EventKind::DisapprovedAd => Dynamic::DisapprovedAd,
            EventKind::CompetitorEntering => Dynamic::CompetitorEntering,
            EventKind::StockChange => Dynamic::StockChange,
            EventKind::TrackingOutage => Dynamic::TrackingOutage,
            EventKind::Promotion => Dynamic::Promotion,
        }
    }

    /// Whether the market feels it (a tracking outage changes only what
    /// the API's searches report; the market records every conversion).
    pub fn modelled(self) -> bool {
        !matches!(self, EventKind::TrackingOutage)
    }
}

/// One event at a time of the episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// What happens.
    pub kind: EventKind,
    /// When: `YYYY-MM-DDTHH:MM`, on a half hour, within the market's days
    /// (warm-up included).
    pub at: String,
    /// Bots per matched search (`invalid-traffic`, 1..=100).
    #[serde(default)]
    pub bot_searches: Option<u32>,
    /// The new budget (`budget-change`) or the entrant's daily budget
    /// (`competitor-entering`), micros.
    #[serde(default)]
    pub budget_micros: Option<i64>,
    /// The entrant's bid, micros (`competitor-entering`).
    #[serde(default)]
    pub bid_micros: Option<i64>,
    /// The ad group that stops serving (`disapproved-ad`).
    #[serde(default)]
    pub ad_group: Option<String>,
    /// The keyword of the product (`stock-change`).
    #[serde(default)]
    pub keyword: Option<String>,
}

/// What a predicate checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PredicateKind {
    /// Every campaign `campaign` names (`*`: all) has `status` at the end.
    CampaignStatus,
    /// Every keyword with text `keyword` (`*`: all positive) has `status`.
    KeywordStatus,
    /// Every ad group `ad_group` names has `status`.
    AdGroupStatus,
    /// Every enabled positive keyword `keyword` names bids (its own, else
    /// its ad group's) within `min_micros..=max_micros`.
    KeywordBid,
    /// The budget of `campaign` (`*`: the enabled campaigns' sum) within
    /// `min_micros..=max_micros`.
    Budget,
    /// At least `min` enabled positive keywords (in `campaign`, if set).
    Keywords,
    /// An enabled negative keyword with text `keyword` exists.
    NegativeKeyword,
    /// A KPI over dates `from..=to` (the agent's days by default), of
    /// `campaign` or `keyword` if set, within `min..=max`.
    Kpi,
    /// The task's objective against its target over the agent's days.
    Objective,
}

/// The KPIs a predicate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Cost, currency.
    Spend,
    /// Impressions.
    Impressions,
    /// Clicks.
    Clicks,
    /// Conversions.
    Conversions,
    /// Conversion value, currency.
    Value,
    /// Cost per conversion, currency (none without conversions: fails).
    Cpa,
    /// Value over cost (none without cost: fails).
    Roas,
}

/// One success predicate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Predicate {
    /// What it checks.
    pub kind: PredicateKind,
    /// Its name in the verdict; generated from the fields when left out.
    #[serde(default)]
    pub name: Option<String>,
    /// A campaign's name, or `*`.
    #[serde(default)]
    pub campaign: Option<String>,
    /// An ad group's name.
    #[serde(default)]
    pub ad_group: Option<String>,
    /// A keyword's text, or `*`.
    #[serde(default)]
    pub keyword: Option<String>,
    /// `ENABLED` or `PAUSED` (`REMOVED` for a status predicate too).
    #[serde(default)]
    pub status: Option<String>,
    /// The KPI (`kpi`).
    #[serde(default)]
    pub metric: Option<Metric>,
    /// Lower bound, the KPI's unit (`kpi`) or a count (`keywords`).
    #[serde(default)]
    pub min: Option<f64>,
    /// Upper bound, the KPI's unit.
    #[serde(default)]
    pub max: Option<f64>,
    /// Lower bound, micros (`keyword-bid`, `budget`).
    #[serde(default)]
    pub min_micros: Option<i64>,
    /// Upper bound, micros.
    #[serde(default)]
    pub max_micros: Option<i64>,
    /// First date the KPI covers, `YYYY-MM-DD`.
    #[serde(default)]
    pub from: Option<String>,
    /// Last date the KPI covers.
    #[serde(default)]
    pub to: Option<String>,
}

/// The diagnosis an analysis task grades.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiagnosisSpec {
    /// The cause the task injects.
    pub cause: Cause,
    /// The diagnoses accepted; `[cause]` when left out.
    #[serde(default)]
    pub accepted: Vec<Cause>,
}

impl DiagnosisSpec {
    /// The accepted causes (the injected one at least).
    pub fn accepted(&self) -> Vec<Cause> {
        if self.accepted.is_empty() {
            vec![self.cause]
        } else {
            self.accepted.clone()
        }
    }
}

/// What one oracle step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OracleOp {
    /// Sets `target` (`kind:name.field`) to `value`.
    Set,
    /// Creates keyword `text` (`match`, `bid_micros`) in `ad_group`.
    CreateKeyword,
    /// Creates negative keyword `text` (`match`) in `ad_group`.
    CreateNegative,
}

/// One reference step: the oracle takes it at the first decision point at
/// or after `at`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OracleStep {
    /// `YYYY-MM-DDTHH:MM`, within the agent's days.
    pub at: String,
    /// What it does.
    pub op: OracleOp,
    /// `set`: what, in the scope's grammar (`keyword:winter jacket.status`).
    #[serde(default)]
    pub target: Option<String>,
    /// `set`: a status (`PAUSED`) or micros.
    #[serde(default)]
    pub value: Option<SetValue>,
    /// `create-*`: the ad group's name.
    #[serde(default)]
    pub ad_group: Option<String>,
    /// `create-*`: the keyword's text.
    #[serde(default)]
    pub text: Option<String>,
    /// `create-*`: `broad`, `phrase` or `exact`.
    #[serde(default, rename = "match")]
    pub match_type: Option<String>,
    /// `create-keyword`: its max CPC, micros.
    #[serde(default)]
    pub bid_micros: Option<i64>,
}

/// A value an oracle step sets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SetValue {
    /// Money, micros.
    Micros(i64),
    /// An enum value (`PAUSED`, `ENABLED`).
    Text(String),
}
