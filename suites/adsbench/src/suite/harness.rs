//! The episode harness: steps the sandbox's market tick by tick, asks the
//! agent to decide every `cadence` simulated hours, applies the scenario's
//! owner events (a budget change, the budget-drain red team), and, when
//! the scenario arms the kill switch, logs each trigger the tick it becomes
//! observable and what each decision did to the campaigns.
//!
//! Order within one tick's step: owner events due now, then the agent's
//! decision when now is a decision point, then the tick runs, then the
//! triggers are checked on the metrics as the API now serves them. A run
//! can stop between any two ticks (`keep_going`).

use super::agents::{ApiAgent, Brief, DecisionPoint};
use super::change_log::{Change, Recorder};
use super::kill_switch::{
    hour_index, roas_fires, spend_fires, spend_threshold, DecisionRecord, HourlyMoney, Money,
    Trigger, Tripped, ROAS_WINDOW_HOURS,
};
use crate::market::{AccountChange, Market, SimTime, Status};
use crate::sandbox::Sandbox;

/// How an episode runs, beside its market.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// What the agent is told at each decision (its cadence among it).
    pub brief: Brief,
    /// Whether the harness watches the kill-switch triggers.
    pub kill_switch: bool,
    /// The owner's `(day of the episode, new B)`: set on every campaign
    /// before the decision at that day's first tick, outside the agent's
    /// change set.
    pub budget_change: Option<(u32, i64)>,
    /// The budget drain: from this time on, this many bot searches follow
    /// each real search the agent's keywords match (click fraud).
    pub drain: Option<(SimTime, u32)>,
}

impl Default for Plan {
    /// A decision each morning, no owner events, no kill switch.
    fn default() -> Plan {
        Plan {
            brief: Brief::default(),
            kill_switch: false,
            budget_change: None,
            drain: None,
        }
    }
}

/// Counts, the change set and the kill-switch timeline of one episode.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ApiRun {
    /// Ticks run.
    pub ticks: u64,
    /// Decision points the agent was asked to act at.
    pub decisions: u64,
    /// Decisions that ended in an API error.
    pub failed_decisions: u64,
    /// Whether it ran to the end (not stopped by `keep_going`).
    pub finished: bool,
    /// Every operation of the mutate requests that committed, in order.
    pub changes: Vec<Change>,
    /// What each decision did to the campaigns' status, in order (only
    /// when the plan arms the kill switch).
    pub decision_log: Vec<DecisionRecord>,
    /// The first time each trigger became observable (only when the plan
    /// arms the kill switch).
    pub triggers: Vec<Tripped>,
}

/// Changes the account's owner or the platform makes, not the agent: a
/// task's events (a promotion, a competitor entering, invalid traffic),
/// applied before the tick at `now` like the plan's own budget change.
pub trait Owner: Send {
    /// What happens at `now`, before its decision and its tick.
    fn at(&mut self, market: &mut Market, now: SimTime);
}

/// The harness of one episode, stepped from decision point to decision
/// point: a scripted agent's loop ([`run_api_episode`]) and a model
/// agent's (which awaits its model between two points) share it.
pub struct Harness {
    plan: Plan,
    step: u32,
    run: ApiRun,
    owner: Option<Box<dyn Owner>>,
    /// The tick at `now` has not run yet: the decision there came first.
    tick_due: bool,
    /// The decision point being decided and the campaigns' statuses then.
    deciding: Option<(SimTime, Vec<(u64, Status)>)>,
}

impl Harness {
    /// A harness at the start of an episode under `plan`.
    pub fn new(plan: Plan) -> Harness {
        let step = plan.brief.ticks_between_decisions();
        Harness {
            plan,
            step,
            run: ApiRun::default(),
            owner: None,
            tick_due: false,
            deciding: None,
        }
    }

    /// The same harness, `owner` acting at every tick.
    pub fn with_owner(mut self, owner: Box<dyn Owner>) -> Harness {
        self.owner = Some(owner);
        self
    }

    /// The plan it runs.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Decision points left in `market`'s episode from its next tick on
    /// (a warm-up already run is not counted).
    pub fn decision_points(&self, market: &Market) -> u32 {
        let end = u64::from(market.config().days) * u64::from(crate::market::TICKS_PER_DAY);
        let now = market.now().ordinal();
        let step = u64::from(self.step);
        // The ticks in [now, end) that are multiples of the step (which
        // divides a day, so a tick's place in its day does not matter).
        (end.div_ceil(step).saturating_sub(now.div_ceil(step))) as u32
    }

    /// Runs the market to the next decision point: the tick left from the
    /// last point, then for each tick the owner's events due, the decision
    /// point if it is one (returned, before its tick runs), else the tick
    /// and the trigger checks. `None` once the episode is over, or when
    /// `keep_going` (checked before every tick) says stop.
    pub fn to_next_decision(
        &mut self,
        sandbox: &mut Sandbox,
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Option<SimTime> {
        loop {
            if std::mem::take(&mut self.tick_due) {
                self.tick(sandbox);
            }
            if sandbox.market().is_finished() {
                self.run.finished = true;
                return None;
            }
            if !keep_going() {
                return None;
            }
            let now = sandbox.market().now();
            if let Some((day, budget_micros)) = self.plan.budget_change {
                if now == (SimTime { day, tick: 0 }) {
                    set_every_budget(sandbox.market_mut(), budget_micros);
                }
            }
            if let Some((at, bots)) = self.plan.drain {
                if now == at {
                    sandbox.market_mut().set_bot_searches(bots);
                }
            }
            if let Some(owner) = &mut self.owner {
                owner.at(sandbox.market_mut(), now);
            }
            self.tick_due = true;
            if now.tick.is_multiple_of(self.step) {
                self.run.decisions += 1;
                self.deciding = Some((now, statuses(sandbox.market())));
                return Some(now);
            }
        }
    }

    /// The agent has decided at the point [`Harness::to_next_decision`]
    /// returned: `changes` is what it committed, `failed` whether its
    /// decision ended in an API error.
    pub fn decided(&mut self, sandbox: &Sandbox, changes: Vec<Change>, failed: bool) {
        self.run.changes.extend(changes);
        if failed {
            self.run.failed_decisions += 1;
        }
        if let Some((now, before)) = self.deciding.take() {
            if self.plan.kill_switch {
                self.run
                    .decision_log
                    .push(record(now, &before, &statuses(sandbox.market())));
            }
        }
    }

    /// What the episode recorded.
    pub fn finish(self) -> ApiRun {
        self.run
    }

    fn tick(&mut self, sandbox: &mut Sandbox) {
        sandbox.market_mut().step_tick();
        self.run.ticks += 1;
        if self.plan.kill_switch {
            check_triggers(sandbox.market(), &self.plan.brief, &mut self.run.triggers);
        }
    }
}

/// Runs the sandbox's market to its end under `plan`, asking `agent` to
/// decide before each tick that starts a `plan.brief.cadence_hours` step
/// of the day; `keep_going` is checked before every tick.
pub fn run_api_episode(
    sandbox: &mut Sandbox,
    agent: &mut dyn ApiAgent,
    plan: &Plan,
    keep_going: impl FnMut() -> bool,
) -> ApiRun {
    drive(sandbox, agent, Harness::new(plan.clone()), keep_going)
}

/// Runs `harness`'s episode on `sandbox` with a scripted `agent`.
pub fn drive(
    sandbox: &mut Sandbox,
    agent: &mut dyn ApiAgent,
    mut harness: Harness,
    mut keep_going: impl FnMut() -> bool,
) -> ApiRun {
    let plan = harness.plan().clone();
    while let Some(now) = harness.to_next_decision(sandbox, &mut keep_going) {
        let mut changes = Vec::new();
        let mut client = Recorder::new(sandbox, &mut changes);
        let point = DecisionPoint {
            now,
            brief: &plan.brief,
        };
        let failed = agent.decide(&mut client, &point).is_err();
        harness.decided(sandbox, changes, failed);
    }
    harness.finish()
}

/// Each campaign's id and status, in account order.
fn statuses(market: &Market) -> Vec<(u64, Status)> {
    market
        .account()
        .campaigns
        .iter()
        .map(|c| (c.id, c.status))
        .collect()
}

fn record(now: SimTime, before: &[(u64, Status)], after: &[(u64, Status)]) -> DecisionRecord {
    let paused = after
        .iter()
        .filter(|(id, s)| {
            *s == Status::Paused
                && before
                    .iter()
                    .any(|(b, was)| b == id && *was == Status::Enabled)
        })
        .count() as u32;
    let enabled_after = after.iter().filter(|(_, s)| *s == Status::Enabled).count() as u32;
    DecisionRecord {
        at: now.ordinal(),
        paused,
        enabled_after,
    }
}

/// Logs each trigger the first time it holds, checked on the market as
/// the API serves it right after a tick: "today" is the day of the tick
/// just run (at midnight, the day that just ended), B the budgets of the
/// campaigns enabled now, and the ROAS window the three whole hours before
/// the hour of the next tick. The window is read at whole hours only: its
/// cost is fixed once its hours are past and late conversions only add
/// value, so a window first reads under the floor at its hour's end.
fn check_triggers(market: &Market, brief: &Brief, triggers: &mut Vec<Tripped>) {
    let now = market.now();
    let Some(last) = now.ordinal().checked_sub(1).map(SimTime::from_ordinal) else {
        return;
    };
    let start = market.config().start_date;
    let day = start.plus_days(i64::from(last.day));
    let seen = |t: Trigger, triggers: &[Tripped]| triggers.iter().any(|x| x.trigger == t);
    if !seen(Trigger::Spend, triggers) {
        let budget: i64 = market
            .account()
            .campaigns
            .iter()
            .filter(|c| c.status == Status::Enabled)
            .map(|c| c.daily_budget_micros)
            .sum();
        let spend = market.metrics().account_day(day).cost_micros;
        if spend_fires(spend, budget) {
            triggers.push(Tripped {
                trigger: Trigger::Spend,
                at: now.ordinal(),
                observed: spend as f64 / 1e6,
                threshold: spend_threshold(budget),
            });
        }
    }
    let Some(floor) = brief.roas_floor else {
        return;
    };
    if seen(Trigger::Roas, triggers) || !now.tick.is_multiple_of(2) {
        return;
    }
    let end = hour_index(start.plus_days(i64::from(now.day)), now.hour());
    let mut hours = HourlyMoney::default();
    for (k, r) in market.metrics().rows() {
        let h = hour_index(k.date, k.hour);
        if (end - ROAS_WINDOW_HOURS..end).contains(&h) {
            hours.add(
                k.date,
                k.hour,
                Money {
                    cost_micros: r.cost_micros,
                    value_micros: r.conversions_value_micros,
                },
            );
        }
    }
    if let Some(roas) = roas_fires(hours.window(end), floor) {
        triggers.push(Tripped {
            trigger: Trigger::Roas,
            at: now.ordinal(),
            observed: roas,
            threshold: floor,
        });
    }
}

/// The owner sets every campaign's budget (the scenario checked the
/// amount; a campaign the market refuses keeps its budget).
pub(super) fn set_every_budget(market: &mut Market, budget_micros: i64) {
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
