//! The scripted agents re-expressed as Ads API clients: they see their
//! account only through GAQL `search` and change it only through `mutate`
//! (an [`AdsClient`]), once each simulated morning. The harness steps the
//! market tick by tick in between, so a run can stop between any two ticks,
//! and keeps every change the agent commits (its change set, with notes).
//!
//! - [`FixedBidAgent`]: on its first morning sets every keyword's max CPC
//!   to one bid, then never touches the account again;
//! - [`PacingAgent`]: each morning reads yesterday's spend and conversions
//!   and scales its keyword bids, the market's [`PacingRule`](crate::market::PacingRule)
//!   rule: × `step` under `low` × B, ÷ `step` over `high` × B, ÷ `step`
//!   again when yesterday's CPA ran above target.

use super::change_log::{Change, Recorder};
use crate::api::error::GoogleAdsFailure;
use crate::api::MutateOperation;
use crate::gaql::Value;
use crate::market::{AccountChange, SimTime, Status};
use crate::sandbox::{AdsClient, Sandbox};

/// An agent that manages its account through the Ads API.
pub trait ApiAgent {
    /// The morning decision: any number of searches and mutates.
    ///
    /// # Errors
    /// The API's answer to a request that failed; the harness counts it and
    /// the episode goes on, as a real account would.
    fn morning(&mut self, client: &mut dyn AdsClient) -> Result<(), GoogleAdsFailure>;
}

/// Counts and the change set of one episode.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiRun {
    /// Ticks run.
    pub ticks: u64,
    /// Mornings the agent was asked to act.
    pub decisions: u64,
    /// Mornings whose decision ended in an API error.
    pub failed_decisions: u64,
    /// Whether it ran to the end (not stopped by `keep_going`).
    pub finished: bool,
    /// Every operation of the mutate requests that committed, in order.
    pub changes: Vec<Change>,
}

/// Runs the sandbox's market to its end, asking `agent` to act before the
/// first tick of each day; `keep_going` is checked before every tick.
/// `budget_change` is the owner's `(day of the episode, new B)`: set on
/// every campaign before the agent's morning that day, outside the agent's
/// change set.
pub fn run_api_episode(
    sandbox: &mut Sandbox,
    agent: &mut dyn ApiAgent,
    budget_change: Option<(u32, i64)>,
    mut keep_going: impl FnMut() -> bool,
) -> ApiRun {
    let mut run = ApiRun::default();
    while !sandbox.market().is_finished() {
        if !keep_going() {
            return run;
        }
        let now = sandbox.market().now();
        if let Some((day, budget_micros)) = budget_change {
            if now == (SimTime { day, tick: 0 }) {
                set_every_budget(sandbox, budget_micros);
            }
        }
        if now.tick == 0 {
            run.decisions += 1;
            let mut client = Recorder::new(sandbox, &mut run.changes);
            if agent.morning(&mut client).is_err() {
                run.failed_decisions += 1;
            }
        }
        sandbox.market_mut().step_tick();
        run.ticks += 1;
    }
    run.finished = true;
    run
}

/// The owner sets every campaign's budget (the scenario checked the
/// amount; a campaign the market refuses keeps its budget).
fn set_every_budget(sandbox: &mut Sandbox, budget_micros: i64) {
    let market = sandbox.market_mut();
    let ids: Vec<u64> = market
        .account()
        .campaigns
        .iter()
        .filter(|c| c.status != Status::Removed)
        .map(|c| c.id)
        .collect();
    for id in ids {
        // Only an out-of-range amount fails, and the scenario rules it out.
        let _ = market.apply(AccountChange::set_campaign_budget(id, budget_micros));
    }
}

/// A keyword as the agents read it: its resource name and effective bid.
struct KeywordBid {
    resource_name: String,
    bid_micros: i64,
}

/// The enabled positive keywords with their effective max CPC (their own,
/// else their ad group's).
fn keyword_bids(client: &mut dyn AdsClient) -> Result<Vec<KeywordBid>, GoogleAdsFailure> {
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

fn set_bids(
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

/// Sets one bid on every keyword on its first morning, then holds.
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
    fn morning(&mut self, client: &mut dyn AdsClient) -> Result<(), GoogleAdsFailure> {
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

/// Scales bids each morning by yesterday's spend against the budget.
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

fn number(v: Option<&Value>) -> f64 {
    match v {
        Some(Value::Int64(n)) => *n as f64,
        Some(Value::Double(x)) => *x,
        _ => 0.0,
    }
}

impl ApiAgent for PacingAgent {
    fn morning(&mut self, client: &mut dyn AdsClient) -> Result<(), GoogleAdsFailure> {
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
