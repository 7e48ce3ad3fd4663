//! What one episode measured, as plain numbers: the harness fills these
//! in from the market, the API log and the red-team plan, and
//! [`Components`](super::Components) and the gates read nothing else.
//! Money is in micros of the account's currency, taken as USD.

use serde::{Deserialize, Serialize};

/// What the business component is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Business {
    /// An account-management episode: utilities in the scenario's
    /// objective (say conversion value − spend), over the same seeds.
    Management {
        /// The agent's utility u.
        utility: f64,
        /// The do-nothing agent's utility u₀.
        do_nothing: f64,
        /// The hindsight-best constant bid multiplier's utility u*.
        hindsight_best: f64,
    },
    /// An analysis task: the share of the answer that is correct, in
    /// [0, 1].
    Analysis {
        /// Answer correctness.
        correctness: f64,
    },
}

impl Default for Business {
    /// An analysis task answered wholly wrong.
    fn default() -> Business {
        Business::Analysis { correctness: 0.0 }
    }
}

/// One day's spend against its budget.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayPacing {
    /// Spend that day, micros.
    pub spend_micros: i64,
    /// The day's budget (the average daily budget in force), micros.
    pub budget_micros: i64,
}

/// How the agent met the scenario's kill-switch triggers (moments it
/// should have paused spending: a tracking outage, a runaway bid).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KillSwitch {
    /// Triggers the scenario planted.
    pub triggers: u64,
    /// Triggers the agent did not act on in time.
    pub missed: u64,
    /// Pauses the agent made with no trigger.
    pub false_alarms: u64,
}

/// A red-team prompt injection planted in what the agent reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Injection {
    /// None was planted: not a red-team episode.
    #[default]
    None,
    /// One was planted and the agent did not follow it.
    Resisted,
    /// One was planted and the agent followed it.
    Obeyed,
}

/// Google's special ad categories, where audience targeting is restricted
/// and the fairness gate applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpecialCategory {
    /// Housing.
    Housing,
    /// Employment (jobs).
    Employment,
    /// Credit.
    Credit,
}

/// What one episode measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EpisodeFacts {
    /// The business outcome's inputs.
    pub business: Business,
    /// Each day's spend against its budget (analysis tasks: none).
    pub days: Vec<DayPacing>,
    /// Operations the agent committed.
    pub operations: u64,
    /// Operations the reference solution needs; `None` where the task has
    /// no reference (the operations sub-score is then left out).
    pub reference_operations: Option<u64>,
    /// Requests the API refused with a retry delay (quota, rate limit).
    pub retries: u64,
    /// Of those, the retries that waited at least the delay asked.
    pub retries_honoured: u64,
    /// Decisions the agent made (mornings acted on, answers given).
    pub decisions: u64,
    /// Of those, the decisions made within the latency budget.
    pub decisions_within_latency: u64,
    /// The kill switch's record.
    pub kill_switch: KillSwitch,
    /// The worst day's loss against the do-nothing agent on the same
    /// seed (do-nothing's utility that day − the agent's), micros; zero or
    /// less when the agent lost no day.
    pub worst_day_loss_micros: i64,
    /// The daily budget the loss is measured against, micros.
    pub daily_budget_micros: i64,
    /// Times spend passed a hard cap (Google's daily or monthly charging
    /// limit, or a limit the owner set).
    pub hard_cap_breaches: u64,
    /// Changes that broke an advertising policy; `None` where no policy
    /// was checked (the sub-score is then left out).
    pub policy_violations: Option<u64>,
    /// The red-team injection, if one was planted.
    pub injection: Injection,
    /// The scenario's special ad category, if any.
    pub special_category: Option<SpecialCategory>,
    /// Disparate impact over the audience groups (min rate / max rate),
    /// when measured (see [`disparate_impact`](super::disparate_impact)).
    pub disparate_impact: Option<f64>,
    /// Changes the agent committed (the change set's length).
    pub changes: u64,
    /// Of those, the changes whose note cites an observed metric at its
    /// observed value (see [`cites_observed`](super::cites_observed)).
    pub changes_citing_observed: u64,
    /// An LLM judge's score of the notes, in [0, 1], when one was run.
    pub judge: Option<f64>,
    /// What the agent's model calls cost, USD.
    pub compute_usd: f64,
    /// The spend the agent managed over the episode, micros.
    pub managed_spend_micros: i64,
}
