//! [`BanditAgent`]: a contextual bandit acting only through the Ads API.
//!
//! At each decision point it
//!
//! 1. reads, at its first decision, every enabled keyword's bid (its
//!    own, else its ad group's): the base bids the arms multiply;
//! 2. reads B (the enabled campaigns' budgets) and, once a tick has run,
//!    the account's hourly cost and conversion value of yesterday and
//!    today (`segments.date`, `segments.hour`);
//! 3. scores the previous decision: its reward is the conversion value −
//!    cost of the hours since it, over B × cadence / 24, and its arm's
//!    model learns it. Conversions land on the click's hour with a lag
//!    (four hours on average), so those not in yet when it is read are
//!    left out of the reward though they count in the episode;
//! 4. builds the context ([`FEATURES`](super::FEATURES)), asks its rule
//!    for the distribution over arms, draws the arm, and logs the round;
//! 5. when the arm differs from the one in force, sets every base keyword
//!    to base × multiplier (clamped to the pacing range), with a note
//!    citing what it read (`linucb: arm ×1.25; pace 0.82, last 6 h cost
//!    12.34, ROAS 2.10`).
//!
//! A decision whose search or mutate fails logs nothing: the bids in force
//! stay, and the next decision scores no round. It never watches the
//! kill-switch triggers: it is a pure bandit.

use super::policy::Rule;
use super::ridge::Ridge;
use super::{BanditLog, BanditRound, ARMS, BASE_ARM, FEATURES, RIDGE_LAMBDA};
use crate::api::error::GoogleAdsFailure;
use crate::api::MutateOperation;
use crate::gaql::Value;
use crate::sandbox::AdsClient;
use crate::suite::agents::{keyword_bids, number, ApiAgent, DecisionPoint, BID_RANGE_MICROS};
use crate::suite::kill_switch::hour_index;
use crate::suite::outcome::{self, Outcome, RunError};
use crate::suite::scenario::Scenario;
use adfarm_suite::stats::SplitMix64;
use std::collections::BTreeMap;

/// Posterior draws per Thompson decision.
pub const THOMPSON_DRAWS: u32 = 2_000;

/// The previous decision, waiting for its reward.
#[derive(Debug, Clone)]
struct Pending {
    /// Index of its round in the log.
    round: usize,
    /// The hour it was made at ([`hour_index`]).
    hour: i64,
}

/// A contextual bandit over bid multipliers; see the module's
/// documentation.
#[derive(Debug, Clone)]
pub struct BanditAgent {
    rule: Rule,
    rng: SplitMix64,
    models: Vec<Ridge>,
    /// Each keyword's resource name and base bid, micros.
    base: Option<Vec<(String, i64)>>,
    /// The arm whose bids are in force.
    in_force: usize,
    pending: Option<Pending>,
    log: BanditLog,
}

/// Cost and conversion value, micros.
#[derive(Debug, Clone, Copy, Default)]
struct Money {
    cost: f64,
    value: f64,
}

impl Money {
    fn roas(self) -> Option<f64> {
        (self.cost > 0.0).then(|| self.value / self.cost)
    }
}

impl BanditAgent {
    /// A bandit under `rule`, its draws from the scenario's `seed`.
    pub fn new(rule: Rule, seed: u64) -> BanditAgent {
        let (policy, stream) = match rule {
            Rule::LinUcb { .. } => ("linucb", 1),
            Rule::Thompson { .. } => ("thompson", 2),
        };
        BanditAgent {
            rule,
            rng: SplitMix64::stream(seed, stream),
            models: vec![Ridge::new(FEATURES.len(), RIDGE_LAMBDA); ARMS.len()],
            base: None,
            in_force: BASE_ARM,
            pending: None,
            log: BanditLog {
                policy: policy.into(),
                rule,
                arms: ARMS.to_vec(),
                features: FEATURES.iter().map(|f| f.to_string()).collect(),
                rounds: Vec::new(),
                weights: Vec::new(),
            },
        }
    }

    /// The log so far, with each arm's current θ̂ as its weights.
    pub fn log(&self) -> BanditLog {
        BanditLog {
            weights: self.models.iter().map(Ridge::theta).collect(),
            ..self.log.clone()
        }
    }

    fn name(&self) -> &str {
        &self.log.policy
    }
}

/// The account's cost and value per hour ([`hour_index`]) of yesterday
/// and today.
fn hourly(client: &mut dyn AdsClient) -> Result<BTreeMap<i64, Money>, GoogleAdsFailure> {
    let today = client.today();
    let rows = client.search(&format!(
        "SELECT segments.date, segments.hour, metrics.cost_micros, metrics.conversions_value \
         FROM customer WHERE segments.date BETWEEN '{}' AND '{today}'",
        today.plus_days(-1)
    ))?;
    let mut hours: BTreeMap<i64, Money> = BTreeMap::new();
    for r in &rows {
        let date = match r.values.first() {
            Some(Value::Date(d)) => *d,
            Some(Value::String(s)) => match crate::market::Date::parse(s) {
                Ok(d) => d,
                Err(_) => continue,
            },
            _ => continue,
        };
        let m = hours
            .entry(hour_index(date, number(r.values.get(1)) as u8))
            .or_default();
        m.cost += number(r.values.get(2));
        // The API serves conversion value in currency units.
        m.value += number(r.values.get(3)) * 1e6;
    }
    Ok(hours)
}

/// The money of the hours `from..to`.
fn between(hours: &BTreeMap<i64, Money>, from: i64, to: i64) -> Money {
    hours
        .range(from..to)
        .fold(Money::default(), |acc, (_, m)| Money {
            cost: acc.cost + m.cost,
            value: acc.value + m.value,
        })
}

impl ApiAgent for BanditAgent {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        let base = match &self.base {
            Some(b) => b.clone(),
            None => {
                let b: Vec<(String, i64)> = keyword_bids(client)?
                    .into_iter()
                    .map(|k| (k.resource_name, k.bid_micros))
                    .collect();
                self.base = Some(b.clone());
                b
            }
        };
        let budget: f64 = client
            .search(
                "SELECT campaign.id, campaign_budget.amount_micros FROM campaign \
                 WHERE campaign.status = 'ENABLED'",
            )?
            .iter()
            .map(|r| number(r.values.get(1)))
            .sum();
        let today = client.today();
        let now = hour_index(today, at.now.hour());
        let started = at.now.ordinal() > 0;
        let hours = if started {
            hourly(client)?
        } else {
            BTreeMap::new()
        };
        let cadence = i64::from(at.brief.cadence_hours);
        let interval_budget = budget * at.brief.cadence_hours as f64 / 24.0;

        // The previous decision's interval, scored.
        let last = between(&hours, now - cadence, now);
        if let Some(p) = self.pending.take() {
            if interval_budget > 0.0 {
                let since = between(&hours, p.hour, now);
                let reward = (since.value - since.cost) / interval_budget;
                let round = &mut self.log.rounds[p.round];
                round.reward = Some(reward);
                self.models[round.arm].update(&round.context, reward);
            }
        }

        // The context now.
        let (hour_sin, hour_cos) =
            (std::f64::consts::TAU * f64::from(at.now.hour()) / 24.0).sin_cos();
        let midnight = hour_index(today, 0);
        let pace = if !started || budget <= 0.0 {
            1.0
        } else if at.now.tick == 0 {
            between(&hours, midnight - 24, midnight).cost / budget
        } else {
            let share = f64::from(at.now.tick) / f64::from(crate::market::TICKS_PER_DAY);
            between(&hours, midnight, now).cost / (budget * share)
        }
        .clamp(0.0, 3.0);
        let day_roas = between(&hours, now - 24, now).roas();
        let roas_vs_day = match (last.roas(), day_roas) {
            (Some(r), Some(d)) if d > 0.0 => (r / d - 1.0).clamp(-1.0, 1.0),
            _ => 0.0,
        };
        let context = vec![1.0, hour_sin, hour_cos, pace - 1.0, roas_vs_day];

        let (distribution, greedy) = self
            .rule
            .distribution(&self.models, &context, &mut self.rng);
        let arm = self.rng.categorical(&distribution);
        if arm != self.in_force {
            let (lo, hi) = BID_RANGE_MICROS;
            let roas = last
                .roas()
                .map_or_else(|| "n/a".to_string(), |r| format!("{r:.2}"));
            let note = format!(
                "{}: arm ×{}; pace {pace:.2}, last {cadence} h cost {:.2}, ROAS {roas}",
                self.name(),
                ARMS[arm],
                last.cost / 1e6
            );
            let ops: Vec<MutateOperation> = base
                .iter()
                .map(|(name, bid)| {
                    let micros = ((*bid as f64 * ARMS[arm]).round() as i64).clamp(lo, hi);
                    MutateOperation::update(
                        name.clone(),
                        [("cpc_bid_micros", Value::Int64(micros))],
                    )
                    .with_note(&note)
                })
                .collect();
            if !ops.is_empty() {
                client.mutate(ops)?;
            }
            self.in_force = arm;
        }
        self.pending = Some(Pending {
            round: self.log.rounds.len(),
            hour: now,
        });
        self.log.rounds.push(BanditRound {
            at: at.now.ordinal(),
            context,
            arm,
            propensity: distribution[arm],
            distribution,
            greedy,
            reward: None,
        });
        Ok(())
    }
}

/// Runs `scenario` under a bandit with `rule` seeded from the scenario's
/// seed; the outcome carries the bandit's log.
///
/// # Errors
/// As [`outcome::run`].
pub fn run(
    scenario: &Scenario,
    rule: Rule,
    keep_going: impl FnMut() -> bool,
) -> Result<Outcome, RunError> {
    let mut agent = BanditAgent::new(rule, scenario.seed);
    let mut o = outcome::run(scenario, &mut agent, keep_going)?;
    o.bandit = Some(agent.log());
    Ok(o)
}
