//! How a task is labelled: its modality, difficulty, vertical, objective,
//! start, dynamic factors and, for an analysis task, the causes a
//! diagnosis may name. The coverage test counts the gauntlet by these.

use super::steps::{EventKind, Metric};
use crate::market::Vertical as MarketVertical;
use serde::{Deserialize, Serialize};

/// What the agent is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Modality {
    /// Set an account up or re-plan it (keywords, budgets, negatives).
    Planning,
    /// Act on the running account (pause, bid, budget) as things happen.
    Control,
    /// Find why the account behaves as it does; graded on the diagnosis.
    Analysis,
}

/// How hard the task is meant to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Difficulty {
    /// One step, the brief says which.
    Easy,
    /// A few steps, or one the agent must find in the data.
    Medium,
    /// Several steps, a distractor, or timing that matters.
    Hard,
}

/// The proposal's verticals, each played on one of the market's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Vertical {
    /// Online shops: the market's retail searches.
    ECommerce,
    /// Leads for loans and insurance: the market's finance searches.
    LeadGen,
    /// App installs (courses, language lessons): the market's education
    /// searches.
    Apps,
    /// Local services (dentist, gym, "near me"): the market's health
    /// searches.
    Local,
    /// Flights, hotels, packages: the market's travel searches.
    Travel,
}

impl Vertical {
    /// Every vertical, in file order.
    pub const ALL: [Vertical; 5] = [
        Vertical::ECommerce,
        Vertical::LeadGen,
        Vertical::Apps,
        Vertical::Local,
        Vertical::Travel,
    ];

    /// The market vertical whose searches this one's keywords match.
    pub fn market(self) -> MarketVertical {
        match self {
            Vertical::ECommerce => MarketVertical::Retail,
            Vertical::LeadGen => MarketVertical::Finance,
            Vertical::Apps => MarketVertical::Education,
            Vertical::Local => MarketVertical::Health,
            Vertical::Travel => MarketVertical::Travel,
        }
    }
}

/// The advertiser's objective and its target.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Objective {
    /// Which KPI the advertiser judges the account by.
    pub kind: ObjectiveKind,
    /// Its target over the agent's days, in the KPI's unit: currency for
    /// CPA (at most) and revenue (at least), a ratio for ROAS (at least),
    /// a count for leads, installs (conversions) and awareness
    /// (impressions), at least.
    pub target: f64,
}

/// The objectives of the proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ObjectiveKind {
    /// Cost per conversion, at most the target.
    Cpa,
    /// Conversion value over cost, at least the target.
    Roas,
    /// Conversion value, at least the target.
    Revenue,
    /// Conversions counted as leads, at least the target.
    Leads,
    /// Conversions counted as app installs, at least the target.
    Installs,
    /// Impressions, at least the target.
    Awareness,
}

impl ObjectiveKind {
    /// Every objective, in file order.
    pub const ALL: [ObjectiveKind; 6] = [
        ObjectiveKind::Cpa,
        ObjectiveKind::Roas,
        ObjectiveKind::Revenue,
        ObjectiveKind::Leads,
        ObjectiveKind::Installs,
        ObjectiveKind::Awareness,
    ];

    /// The KPI the objective reads, and whether the target is a ceiling.
    pub fn metric(self) -> (Metric, bool) {
        match self {
            ObjectiveKind::Cpa => (Metric::Cpa, true),
            ObjectiveKind::Roas => (Metric::Roas, false),
            ObjectiveKind::Revenue => (Metric::Value, false),
            ObjectiveKind::Leads | ObjectiveKind::Installs => (Metric::Conversions, false),
            ObjectiveKind::Awareness => (Metric::Impressions, false),
        }
    }
}

/// Whether the account has history when the agent takes it over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Start {
    /// A new account: no history (`warmup_days = 0`).
    Cold,
    /// The account ran `warmup_days` before the agent's first decision.
    Warm,
}

/// A dynamic factor of the episode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dynamic {
    /// The vertical's seasonal curve is off 1 on a day of the episode.
    Seasonality,
    /// The market's promotion window of the vertical (3 days a month,
    /// traffic × 1.3, conversion rate × 1.5) starts on a `promotion`
    /// event's day.
    Promotion,
    /// A product sells out or comes back (`stock-change` event).
    StockChange,
    /// A strong bidder enters the auctions (`competitor-entering` event).
    CompetitorEntering,
    /// The owner sets a new budget (`budget-change` event).
    BudgetChange,
    /// Bots click the account's ads (`invalid-traffic` event).
    InvalidTraffic,
    /// Conversions stop being recorded (`tracking-outage` event).
    TrackingOutage,
    /// An ad group stops serving on a policy disapproval
    /// (`disapproved-ad` event).
    DisapprovedAd,
}

impl Dynamic {
    /// The factors the gauntlet must cover.
    pub const REQUIRED: [Dynamic; 4] = [
        Dynamic::Seasonality,
        Dynamic::Promotion,
        Dynamic::StockChange,
        Dynamic::CompetitorEntering,
    ];
}

/// The causes an analysis task may inject and a diagnosis may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// The daily budget caps delivery.
    BudgetLimited,
    /// Bids too low to win the auctions.
    BidTooLow,
    /// Conversions stopped being recorded.
    TrackingOutage,
    /// An ad was disapproved and its ad group stopped serving.
    DisapprovedAd,
    /// A click spike from invalid (bot) traffic.
    InvalidTraffic,
}

impl Cause {
    /// Every cause, in file order.
    pub const ALL: [Cause; 5] = [
        Cause::BudgetLimited,
        Cause::BidTooLow,
        Cause::TrackingOutage,
        Cause::DisapprovedAd,
        Cause::InvalidTraffic,
    ];

    /// The cause's name in files and diagnoses.
    pub fn name(self) -> &'static str {
        match self {
            Cause::BudgetLimited => "budget-limited",
            Cause::BidTooLow => "bid-too-low",
            Cause::TrackingOutage => "tracking-outage",
            Cause::DisapprovedAd => "disapproved-ad",
            Cause::InvalidTraffic => "invalid-traffic",
        }
    }

    /// The cause a diagnosis names: its name, case and spaces or
    /// underscores for hyphens aside; anything else names none.
    pub fn parse(diagnosis: &str) -> Option<Cause> {
        let norm: String = diagnosis
            .trim()
            .to_lowercase()
            .chars()
            .map(|c| if c == ' ' || c == '_' { '-' } else { c })
            .collect();
        Cause::ALL.into_iter().find(|c| c.name() == norm)
    }

    /// The event that injects this cause, if one does (the budget and
    /// bid causes are the account's own settings).
    pub fn event(self) -> Option<EventKind> {
        match self {
            Cause::BudgetLimited | Cause::BidTooLow => None,
            Cause::TrackingOutage => Some(EventKind::TrackingOutage),
            Cause::DisapprovedAd => Some(EventKind::DisapprovedAd),
            Cause::InvalidTraffic => Some(EventKind::InvalidTraffic),
        }
    }
}
