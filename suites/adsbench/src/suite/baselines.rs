//! The `baselines` stage: per scenario, what the account earns if nobody
//! touches it and what the best constant bid multiplier would have earned
//! in hindsight. The business component of the composite score places an
//! agent between the two (do-nothing = 0, hindsight-best = 1).
//!
//! The multipliers are ranked by the item's [`Utility`]: a gauntlet task's
//! objective, profit on a plain scenario. Doing nothing's profit is kept
//! per day too, in micros, for the worst-day loss (money lost, whatever
//! the objective). The multipliers scale every keyword's starting bid
//! once, through the API, at the first decision (×1 is doing nothing, so
//! the best is never below it). One job per item (`Scope::Item`), shared
//! by every agent and seed: the episodes are a pure function of the
//! scenario, or of the gauntlet task (its account and events included).

use super::agents::{keyword_bids, set_bids, ApiAgent, DecisionPoint};
use super::assignment::Assignment;
use super::harness::drive;
use super::outcome::{run, Outcome, RunError};
use super::scenario::Scenario;
use super::utility::Utility;
use crate::api::error::GoogleAdsFailure;
use crate::sandbox::AdsClient;
use adfarm_proto::{Lane, Output, Role, Scope, Stage, Variant};
use adfarm_suite::{DataError, StageOutput};
use serde::{Deserialize, Serialize};

/// Name of the stage.
pub const BASELINES: &str = "baselines";

/// The constant bid multipliers tried in hindsight.
pub const MULTIPLIERS: [f64; 7] = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0];

/// The stage as the suite declares it.
pub fn stage() -> Stage {
    Stage {
        name: BASELINES.into(),
        lane: Lane::Cpu,
        scope: Scope::Item,
        after: Vec::new(),
        // It calls no model; the role only says what kind of step it is.
        role: Role::Judge,
        variants: vec![Variant::none()],
        partial: false,
        solutions: Vec::new(),
        read_by_solve: false,
    }
}

/// Scales every keyword's bid by `factor` at its first decision, then holds.
#[derive(Debug, Clone)]
pub struct ConstantMultiplier {
    /// The factor.
    pub factor: f64,
    done: bool,
}

impl ConstantMultiplier {
    /// An agent scaling bids by `factor` once.
    pub fn new(factor: f64) -> ConstantMultiplier {
        ConstantMultiplier {
            factor,
            done: false,
        }
    }
}

impl ApiAgent for ConstantMultiplier {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        _point: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        if std::mem::replace(&mut self.done, true) || self.factor == 1.0 {
            return Ok(());
        }
        let factor = self.factor;
        let keywords = keyword_bids(client)?;
        set_bids(
            client,
            keywords.into_iter().map(|k| {
                let bid = ((k.bid_micros as f64 * factor).round() as i64).max(10_000);
                (k.resource_name, bid)
            }),
            &format!("constant bid multiplier x{factor}"),
        )
    }
}

/// Profit over an episode and per day, micros.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profit {
    /// Conversion value − cost over the episode.
    pub total_micros: i64,
    /// The same per day, in order.
    pub days_micros: Vec<i64>,
}

impl Profit {
    /// An outcome's profit.
    pub fn of(o: &Outcome) -> Profit {
        let days_micros: Vec<i64> = o
            .days
            .iter()
            .map(|d| d.value_micros - d.spend_micros)
            .collect();
        Profit {
            total_micros: days_micros.iter().sum(),
            days_micros,
        }
    }
}

/// What the stage stores for a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baselines {
    /// What the multipliers are ranked by (profit where a stored record
    /// names none).
    #[serde(default)]
    pub utility: Utility,
    /// Nobody touches the account: its profit.
    pub do_nothing: Profit,
    /// Each multiplier's utility over the episode, in [`MULTIPLIERS`]
    /// order (×1 is doing nothing).
    pub multipliers: Vec<(f64, f64)>,
    /// The best of them, in hindsight.
    pub best: (f64, f64),
}

impl Baselines {
    /// Runs the scenario under every multiplier (×1 being doing nothing).
    ///
    /// # Errors
    /// The scenario's market could not be built.
    pub fn of(scenario: &Scenario) -> Result<Baselines, RunError> {
        Baselines::with(Utility::Profit, |m| {
            run(scenario, &mut ConstantMultiplier::new(m), || true)
        })
    }

    /// Runs what `assignment` asks (a scenario, or a task with its account
    /// and events) under every multiplier.
    ///
    /// # Errors
    /// The market refused the assignment.
    pub fn of_assignment(assignment: &Assignment, item: &str) -> Result<Baselines, DataError> {
        if let Assignment::Scenario(s) = assignment {
            return Baselines::of(s).map_err(|e| DataError::Param {
                field: format!("item {item}: meta"),
                reason: e.to_string(),
            });
        }
        let utility = match assignment {
            Assignment::Task(task) => Utility::of_objective(&task.objective),
            Assignment::Scenario(_) => Utility::Profit,
        };
        Baselines::with(utility, |m| {
            let (scenario, mut sandbox, harness) = assignment.prepare(item)?;
            let plan = harness.plan().clone();
            let run = drive(
                &mut sandbox,
                &mut ConstantMultiplier::new(m),
                harness,
                || true,
            );
            Ok(assignment
                .finish(item, &scenario, &plan, &sandbox, run, None)?
                .outcome)
        })
    }

    /// The baselines from the outcome of each multiplier, ranked by
    /// `utility`.
    fn with<E>(
        utility: Utility,
        mut episode: impl FnMut(f64) -> Result<Outcome, E>,
    ) -> Result<Baselines, E> {
        let mut do_nothing = None;
        let mut multipliers = Vec::with_capacity(MULTIPLIERS.len());
        for m in MULTIPLIERS {
            let o = episode(m)?;
            multipliers.push((m, utility.of(&o)));
            if m == 1.0 {
                do_nothing = Some(Profit::of(&o));
            }
        }
        let best = multipliers
            .iter()
            .copied()
            // The first of equals: the order is fixed, so is the choice.
            .fold(multipliers[0], |b, x| if x.1 > b.1 { x } else { b });
        Ok(Baselines {
            utility,
            do_nothing: do_nothing.expect("×1 is among the multipliers"),
            multipliers,
            best,
        })
    }

    /// Doing nothing's utility: the ×1 multiplier's (a record without it,
    /// made by hand, counts its profit).
    pub fn do_nothing_utility(&self) -> f64 {
        self.multipliers
            .iter()
            .find(|(m, _)| *m == 1.0)
            .map_or(self.do_nothing.total_micros as f64, |(_, u)| *u)
    }

    /// The stage's output.
    pub fn output(&self) -> StageOutput {
        StageOutput {
            output: Some(Output {
                text: format!(
                    "{}: do nothing {}; best constant multiplier x{} {}",
                    self.utility.describe(),
                    self.utility.show(self.do_nothing_utility()),
                    self.best.0,
                    self.utility.show(self.best.1)
                ),
                meta: serde_json::to_value(self).expect("baselines serialise"),
            }),
            scores: Vec::new(),
        }
    }
}
