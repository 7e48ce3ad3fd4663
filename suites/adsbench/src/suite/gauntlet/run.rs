//! One task under one agent, run to its end: the market the task's
//! scenario makes (entrants set in), the task's account opened by the
//! owner, the warm-up run with no agent, then the harness's episode loop
//! from the agent's first decision, the task's events applied by the
//! harness as the owner's before their tick's decision.

use super::super::agents::{ApiAgent, Brief};
use super::super::change_log::Change;
use super::super::harness::{drive, Harness, Owner, Plan};
use super::super::redteam::run::schedule;
use super::attack::{AttackKind, PlantedIn};
use super::events::{apply, open_account, shape_config};
use super::task::{Event, EventKind, Task};
use crate::market::{Market, MarketError, SimTime};
use crate::sandbox::{Sandbox, TrackingOutage};

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

/// The task's events, applied by the harness as the owner's (or the
/// platform's) at their ticks.
struct TaskEvents {
    /// Events with their tick, in time order.
    events: Vec<(u64, Event)>,
    /// Events applied so far.
    next: usize,
}

impl TaskEvents {
    fn apply_until(&mut self, market: &mut Market, now: u64) {
        while let Some((_, e)) = self.events.get(self.next).filter(|(t, _)| *t <= now) {
            apply(market, e);
            self.next += 1;
        }
    }
}

impl Owner for TaskEvents {
    fn at(&mut self, market: &mut Market, now: SimTime) {
        self.apply_until(market, now.ordinal());
    }
}

/// The task ready for its agent: the market its scenario makes (entrants
/// set in) with the task's account opened and the warm-up run (its events
/// applied), and the harness that runs the rest, the later events its
/// owner's.
///
/// # Errors
/// A task the market refuses (see [`RunError`]).
pub fn prepare(task: &Task) -> Result<(Sandbox, Harness), RunError> {
    let scenario = task.as_scenario().map_err(RunError::Task)?;
    let mut config = scenario.config()?;
    shape_config(task, &mut config);
    let mut market = Market::new(config)?;
    open_account(task, &mut market)?;
    if let Some(a) = task
        .attack
        .as_ref()
        .filter(|a| a.planted_in == Some(PlantedIn::SearchTerm))
    {
        market.plant_search(a.text.as_deref().unwrap_or_default());
    }
    let mut events: Vec<(u64, Event)> = task
        .events
        .iter()
        .filter_map(|e| Some((task.time_of(&e.at)?.ordinal(), e.clone())))
        .collect();
    events.sort_by_key(|(t, _)| *t);
    let mut owner = TaskEvents { events, next: 0 };
    let agent_start = task.agent_start().ordinal();
    while !market.is_finished() && market.now().ordinal() < agent_start {
        let now = market.now().ordinal();
        owner.apply_until(&mut market, now);
        market.step_tick();
    }
    // Fairness is the agent's delivery: the warm-up days are the owner's.
    market.count_audience_from_now();
    // A red-team task arms its attack: the API's fault window, and the
    // kill switch against a budget drain.
    let attack = task.attack.as_ref();
    let plan = Plan {
        brief: Brief {
            cadence_hours: task.scenario.cadence,
            roas_floor: None,
        },
        kill_switch: attack.is_some_and(|a| a.kind == AttackKind::BudgetDrain),
        ..Plan::default()
    };
    let faults = attack.map(|a| schedule(task, a)).unwrap_or_default();
    Ok((
        Sandbox::new(market)
            .with_faults(faults)
            .with_tracking_outage(tracking_outage(task)),
        Harness::new(plan).with_owner(Box::new(owner)),
    ))
}

/// The task's first `tracking-outage` event as the sandbox's outage:
/// searches report no conversions from then on.
pub fn tracking_outage(task: &Task) -> Option<TrackingOutage> {
    task.events
        .iter()
        .filter(|e| e.kind == EventKind::TrackingOutage)
        .filter_map(|e| task.time_of(&e.at))
        .min()
        .and_then(|t| Some(TrackingOutage::at(task.date_of(t.day).ok()?, t.tick)))
}

/// Runs `task` under `agent` to its end.
///
/// # Errors
/// A task the market refuses (see [`RunError`]).
pub fn run(task: &Task, agent: &mut dyn ApiAgent) -> Result<Episode, RunError> {
    let (mut sandbox, harness) = prepare(task)?;
    let run = drive(&mut sandbox, agent, harness, || true);
    Ok(Episode {
        market: sandbox.market().clone(),
        changes: run.changes,
        decisions: run.decisions,
        failed_decisions: run.failed_decisions,
        diagnosis: agent.diagnosis(),
    })
}
