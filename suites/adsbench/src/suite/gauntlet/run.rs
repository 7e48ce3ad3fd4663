//! One task under one agent, run to its end: the market the task's
//! scenario makes (entrants set in), the task's account opened by the
//! owner, the warm-up run with no agent, then the harness's episode loop
//! from the agent's first decision, stopped just before each event's tick
//! so the event applies between ticks and the loop resumes (the harness
//! checks `keep_going` before a tick's events and decision, so nothing
//! runs twice and no decision is skipped).

use super::super::agents::{ApiAgent, Brief};
use super::super::change_log::Change;
use super::super::harness::{run_api_episode, Plan};
use super::events::{apply, shape_config};
use super::task::{Event, Task};
use crate::market::{
    AccountChange, BiddingStrategy, Market, MarketError, MatchType, ResourceName, Status,
};
use crate::sandbox::Sandbox;

/// What one task's episode left behind, for grading.
#[derive(Debug, Clone)]
pub struct Episode {
    /// The market at the end: the account's end state and its metrics.
    pub market: Market,
    /// Every operation the agent committed, in order.
    pub changes: Vec<Change>,
    /// Decision points the agent was asked to act at.
    pub decisions: u64,
    /// Decisions that ended in an API error.
    pub failed_decisions: u64,
    /// The agent's diagnosis at the end, if it gave one.
    pub diagnosis: Option<String>,
}

/// Why a task's episode did not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    /// The market refused the task's market or account.
    #[error(transparent)]
    Market(#[from] MarketError),
    /// The task is not valid (a loaded task always is).
    #[error("invalid task: {0}")]
    Task(String),
}

/// Runs `task` under `agent` to its end.
///
/// # Errors
/// A task the market refuses (see [`RunError`]).
pub fn run(task: &Task, agent: &mut dyn ApiAgent) -> Result<Episode, RunError> {
    let scenario = task.as_scenario().map_err(RunError::Task)?;
    let mut config = scenario.config()?;
    shape_config(task, &mut config);
    let mut market = Market::new(config)?;
    open(task, &mut market)?;
    let mut sandbox = Sandbox::new(market);
    let mut events: Vec<(u64, &Event)> = task
        .events
        .iter()
        .filter_map(|e| Some((task.time_of(&e.at)?.ordinal(), e)))
        .collect();
    events.sort_by_key(|(t, _)| *t);
    let plan = Plan {
        brief: Brief {
            cadence_hours: task.scenario.cadence,
            roas_floor: None,
        },
        ..Plan::default()
    };
    let agent_start = task.agent_start().ordinal();
    let (mut changes, mut decisions, mut failed) = (Vec::new(), 0, 0);
    let mut next = 0;
    while !sandbox.market().is_finished() {
        let now = sandbox.market().now().ordinal();
        while let Some((_, e)) = events.get(next).filter(|(t, _)| *t <= now) {
            apply(sandbox.market_mut(), e);
            next += 1;
        }
        if now < agent_start {
            sandbox.market_mut().step_tick();
            continue;
        }
        let stop = events.get(next).map_or(u64::MAX, |(t, _)| *t);
        let mut tick = now;
        let part = run_api_episode(&mut sandbox, agent, &plan, || {
            let go = tick < stop;
            tick += 1;
            go
        });
        changes.extend(part.changes);
        decisions += part.decisions;
        failed += part.failed_decisions;
    }
    let market = sandbox.market().clone();
    Ok(Episode {
        market,
        changes,
        decisions,
        failed_decisions: failed,
        diagnosis: agent.diagnosis(),
    })
}

/// The owner opens the task's account: each campaign, its ad group, its
/// keywords, before the first tick.
fn open(task: &Task, market: &mut Market) -> Result<(), MarketError> {
    let single = task.account.campaigns.len() == 1;
    for c in &task.account.campaigns {
        let budget = match c.budget_micros {
            Some(b) => b,
            None if single => task.scenario.budget_micros,
            None => return Err(MarketError::invalid("budget_micros", "required")),
        };
        let status = Status::parse("status", &c.status)?;
        let ResourceName::Campaign { campaign_id, .. } =
            market.apply(AccountChange::CreateCampaign {
                name: c.name.clone(),
                daily_budget_micros: budget,
                status,
                bidding_strategy: BiddingStrategy::ManualCpc,
            })?
        else {
            return Err(MarketError::invalid("campaign", "not created"));
        };
        let ResourceName::AdGroup { ad_group_id, .. } =
            market.apply(AccountChange::CreateAdGroup {
                campaign_id,
                name: c.ad_group_name(),
                status: Status::Enabled,
                cpc_bid_micros: c.ad_group_bid_micros,
            })?
        else {
            return Err(MarketError::invalid("ad_group", "not created"));
        };
        for k in &c.keywords {
            let match_type = MatchType::parse("match", &k.match_type.to_uppercase())?;
            let change = if k.negative {
                AccountChange::CreateNegativeKeyword {
                    ad_group_id,
                    text: k.text.clone(),
                    match_type,
                }
            } else {
                AccountChange::CreateKeyword {
                    ad_group_id,
                    text: k.text.clone(),
                    match_type,
                    status: Status::parse("status", &k.status)?,
                    cpc_bid_micros: k.bid_micros,
                }
            };
            market.apply(change)?;
        }
    }
    Ok(())
}
