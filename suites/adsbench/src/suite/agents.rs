//! The scripted agents re-expressed as Ads API clients: they see their
//! account only through GAQL `search` and change it only through `mutate`
//! (an [`AdsClient`]), at the decision points the harness
//! ([`run_api_episode`](super::harness::run_api_episode)) gives them: every
//! `cadence` simulated hours, a [`DecisionPoint`] telling the time and the
//! scenario's [`Brief`].
//!
//! - [`FixedBidAgent`]: at its first decision sets every keyword's max CPC
//!   to one bid, then never touches the account again;
//! - [`PacingAgent`]: at each day's first decision reads yesterday's spend
//!   and conversions and scales its keyword bids, the market's
//!   [`PacingRule`](crate::market::PacingRule) rule: × `step` under `low` ×
//!   B, ÷ `step` over `high` × B, ÷ `step` again when yesterday's CPA ran
//!   above target; its other decisions do nothing.
//!
//! Neither watches the kill-switch triggers; the rule-based baseline
//! ([`RuleAgent`](super::rules::RuleAgent)) does.

use crate::api::error::GoogleAdsFailure;
use crate::api::MutateOperation;
use crate::gaql::Value;
use crate::market::{SimTime, TICKS_PER_DAY};
use crate::sandbox::AdsClient;

/// Decision cadences a scenario may ask for, hours: those dividing a day,
/// so every day has the same decision points and one at midnight.
pub const CADENCES: [u32; 8] = [1, 2, 3, 4, 6, 8, 12, 24];

/// What the agent is told of its task at every decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Brief {
    /// Hours between two decisions (one of [`CADENCES`]).
    pub cadence_hours: u32,
    /// The scenario's ROAS floor for the kill switch, if it sets one.
    pub roas_floor: Option<f64>,
}

impl Default for Brief {
    /// One decision each morning, no ROAS floor.
    fn default() -> Brief {
        Brief {
            cadence_hours: 24,
            roas_floor: None,
        }
    }
}

impl Brief {
    /// Ticks from one decision to the next.
    pub fn ticks_between_decisions(&self) -> u32 {
        (TICKS_PER_DAY / 24 * self.cadence_hours).clamp(1, TICKS_PER_DAY)
    }
}

/// One decision point: the simulated time and the brief.
#[derive(Debug, Clone, Copy)]
pub struct DecisionPoint<'a> {
    /// The market's next tick: the decision is made before it runs
    /// (`tick == 0`: midnight, the day's first decision).
    pub now: SimTime,
    /// The task.
    pub brief: &'a Brief,
}

impl DecisionPoint<'_> {
    /// Whether this is the day's first decision.
    pub fn first_of_day(&self) -> bool {
        self.now.tick == 0
    }
}

/// An agent that manages its account through the Ads API.
pub trait ApiAgent {
    /// One decision: any number of searches and mutates.
    ///
    /// # Errors
    /// The API's answer to a request that failed; the harness counts it and
    /// the episode goes on, as a real account would.
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure>;

    /// The agent's diagnosis after its last decision, when its task asks
    /// for one (a gauntlet analysis task's cause); none by default.
    fn diagnosis(&self) -> Option<String> {
        None
    }
}

/// A keyword as the agents read it: its resource name and effective bid.
pub(super) struct KeywordBid {
    pub(super) resource_name: String,
    pub(super) bid_micros: i64,
}

/// The enabled positive keywords with their effective max CPC (their own,
/// else their ad group's).
pub(super) fn keyword_bids(
    client: &mut dyn AdsClient,
) -> Result<Vec<KeywordBid>, GoogleAdsFailure> {
    let rows = client.search(
        "SELECT ad_group_criterion.resource_name, ad_group_criterion.cpc_bid_micros, \
         ad_group.cpc_bid_micros FROM ad_group_criterion \
         WHERE ad_group_criterion.status = 'ENABLED' AND ad_group_criterion.negative = FALSE",
    )?;
    Ok(rows
        .into_iter()
        .filter_map(|r| {
            let name = match r.values.first()? {
                Value::ResourceName(n) | Value::String(n) => n.clone(),
                _ => return None,
            };
            let bid = match (&r.values[1], &r.values[2]) {
                (Value::Int64(own), _) => *own,
                (_, Value::Int64(group)) => *group,
                _ => return None,
            };
            Some(KeywordBid {
                resource_name: name,
                bid_micros: bid,
            })
        })
        .collect())
}

pub(super) fn set_bids(
    client: &mut dyn AdsClient,
    bids: impl IntoIterator<Item = (String, i64)>,
    note: &str,
) -> Result<(), GoogleAdsFailure> {
    let ops: Vec<MutateOperation> = bids
        .into_iter()
        .map(|(name, micros)| {
            MutateOperation::update(name, [("cpc_bid_micros", Value::Int64(micros))])
                .with_note(note)
        })
        .collect();
    if ops.is_empty() {
        return Ok(());
    }
    client.mutate(ops).map(|_| ())
}

/// Sets one bid on every keyword at its first decision, then holds.
#[derive(Debug, Clone)]
pub struct FixedBidAgent {
    /// The max CPC every keyword gets, micros.
    pub bid_micros: i64,
    done: bool,
}

impl FixedBidAgent {
    /// An agent that bids `bid_micros` everywhere.
    pub fn new(bid_micros: i64) -> FixedBidAgent {
        FixedBidAgent {
            bid_micros,
            done: false,
        }
    }
}

impl ApiAgent for FixedBidAgent {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        _at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        if self.done {
            return Ok(());
        }
        let keywords = keyword_bids(client)?;
        let bid = self.bid_micros;
        set_bids(
            client,
            keywords
                .into_iter()
                .filter(|k| k.bid_micros != bid)
                .map(|k| (k.resource_name, bid)),
            "fixed bid",
        )?;
        self.done = true;
        Ok(())
    }
}

/// The lowest and highest bid the pacing rule sets, micros.
pub const BID_RANGE_MICROS: (i64, i64) = (50_000, 20_000_000);

/// Scales bids each morning (the day's first decision) by yesterday's spend against the budget.
#[derive(Debug, Clone)]
pub struct PacingAgent {
    /// CPA above which bids come down, micros.
    pub target_cpa_micros: i64,
    /// Under `low` × B yesterday: bids go up.
    pub low: f64,
    /// Over `high` × B yesterday: bids come down.
    pub high: f64,
    /// The factor of one move.
    pub step: f64,
    /// Whether a morning has passed: the first has no yesterday to read.
    started: bool,
}

impl PacingAgent {
    /// The market rule's defaults with this CPA target.
    pub fn new(target_cpa_micros: i64) -> PacingAgent {
        PacingAgent {
            target_cpa_micros,
            low: 0.8,
            high: 1.05,
            step: 1.15,
            started: false,
        }
    }

    /// The bid factor for a day that spent `spend` of `budget` micros with
    /// `conversions`.
    pub fn factor(&self, spend: f64, budget: f64, conversions: f64) -> f64 {
        let mut factor = 1.0;
        if spend < self.low * budget {
            factor *= self.step;
        } else if spend > self.high * budget {
            factor /= self.step;
        }
        if conversions > 0.0 && spend / conversions > self.target_cpa_micros as f64 {
            factor /= self.step;
        }
        factor
    }
}

pub(super) fn number(v: Option<&Value>) -> f64 {
    match v {
        Some(Value::Int64(n)) => *n as f64,
        Some(Value::Double(x)) => *x,
        _ => 0.0,
    }
}

impl ApiAgent for PacingAgent {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        if !at.first_of_day() {
            return Ok(());
        }
        if !std::mem::replace(&mut self.started, true) {
            return Ok(());
        }
        let yesterday = client.today().plus_days(-1);
        // Budgets of the enabled campaigns, then yesterday's metrics (a
        // campaign with no activity yesterday has no metrics row).
        let budgets = client.search(
            "SELECT campaign.id, campaign_budget.amount_micros FROM campaign \
             WHERE campaign.status = 'ENABLED'",
        )?;
        let budget: f64 = budgets.iter().map(|r| number(r.values.get(1))).sum();
        let metrics = client.search(&format!(
            "SELECT campaign.id, metrics.cost_micros, metrics.conversions FROM campaign \
             WHERE campaign.status = 'ENABLED' AND segments.date = '{yesterday}'"
        ))?;
        if budget <= 0.0 {
            return Ok(());
        }
        let spend: f64 = metrics.iter().map(|r| number(r.values.get(1))).sum();
        let conversions: f64 = metrics.iter().map(|r| number(r.values.get(2))).sum();
        let factor = self.factor(spend, budget, conversions);
        if factor == 1.0 {
            return Ok(());
        }
        let (lo, hi) = BID_RANGE_MICROS;
        let keywords = keyword_bids(client)?;
        set_bids(
            client,
            keywords.into_iter().filter_map(|k| {
                let bid = ((k.bid_micros as f64 * factor).round() as i64).clamp(lo, hi);
                (bid != k.bid_micros).then_some((k.resource_name, bid))
            }),
            &format!(
                "pacing: yesterday spent {:.2} of {:.2}",
                spend / 1e6,
                budget / 1e6
            ),
        )
    }
}
