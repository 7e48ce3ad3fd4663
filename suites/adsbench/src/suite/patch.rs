//! An episode's patch, as SWE-bench keeps a model's diff: the mutate
//! requests it committed, in order, each with the decision point it was
//! sent at and its operations in the `mutate` tool's form (notes kept).
//! Replaying a patch on the episode's start state (the same scenario or
//! task, with its owner events, faults and attacks) sends the same
//! requests at the same ticks and nothing else; since searches change
//! nothing, the replay's event log, change set and end state are the
//! episode's. [`replay`] runs it and [`Replayed::differences`] says where
//! they differ.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use super::agents::{ApiAgent, DecisionPoint};
use super::assignment::{Assignment, Graded};
use super::change_log::Change;
use super::harness::drive;
use super::model_agent::operation;
use crate::api::error::GoogleAdsFailure;
use crate::market::{SimTime, TICKS_PER_DAY};
use crate::sandbox::AdsClient;
use adfarm_proto::Item;
use adfarm_suite::DataError;

/// One committed mutate request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The tick of the decision point it was sent at, from the episode's
    /// start.
    pub tick: u64,
    /// That decision point as `YYYY-MM-DD HH:MM` of the simulated clock.
    pub at: String,
    /// Its operations, in order, as the `mutate` tool takes them.
    pub operations: Vec<Json>,
}

/// The requests of a change set, in order.
///
/// # Errors
/// A change that does not say how it was sent (stored by a version that
/// did not keep it): names its place in the change set.
pub fn requests(changes: &[Change]) -> Result<Vec<Request>, String> {
    let mut out: Vec<Request> = Vec::new();
    let mut last: Option<(u64, u32)> = None;
    for (i, c) in changes.iter().enumerate() {
        let sent = c.sent.as_ref().ok_or_else(|| {
            format!("change {i} of the episode does not record how it was sent; run the sweep again to replay it")
        })?;
        let key = (sent.tick, sent.request);
        if last != Some(key) {
            let t = SimTime::from_ordinal(sent.tick);
            let minute = t.tick * (24 * 60 / TICKS_PER_DAY);
            out.push(Request {
                tick: sent.tick,
                at: format!("{} {:02}:{:02}", c.date, minute / 60, minute % 60),
                operations: Vec::new(),
            });
            last = Some(key);
        }
        out.last_mut()
            .expect("a request was just pushed")
            .operations
            .push(sent.operation.clone());
    }
    Ok(out)
}

/// Plays a patch: at each decision point, the requests sent then.
struct Patched<'p> {
    requests: &'p [Request],
    next: usize,
}

impl ApiAgent for Patched<'_> {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        let now = at.now.ordinal();
        while let Some(r) = self.requests.get(self.next).filter(|r| r.tick == now) {
            self.next += 1;
            let ops = r
                .operations
                .iter()
                .enumerate()
                .map(|(i, op)| operation::read(i, op))
                .collect::<Result<Vec<_>, _>>()?;
            client.mutate(ops)?;
        }
        Ok(())
    }
}

/// A patch replayed on its episode's start state.
#[derive(Debug, Clone)]
pub struct Replayed {
    /// The replay's episode (a task's verdict with it; the diagnosis is
    /// not part of a patch, so none is graded).
    pub graded: Graded,
    /// Requests sent.
    pub requests: usize,
    /// Decision points at which the API refused a request (none when the
    /// patch is the episode's).
    pub refused: u64,
}

impl Replayed {
    /// Where the replay differs from the `stored` episode: its event-log
    /// digest, its change set (the notes' citation checks aside: those
    /// depend on the searches, which a patch does not carry), a task's
    /// predicates and collateral. Empty when it reproduced the episode.
    pub fn differences(&self, stored: &Graded) -> Vec<String> {
        let mut out = Vec::new();
        let (now, then) = (&self.graded.outcome, &stored.outcome);
        if now.digest != then.digest {
            out.push(format!(
                "event-log digest {} (the episode's {})",
                now.digest, then.digest
            ));
        }
        let strip = |c: &[Change]| -> Vec<Change> {
            c.iter()
                .map(|c| Change {
                    cites_observed: false,
                    ..c.clone()
                })
                .collect()
        };
        let (a, b) = (
            strip(now.changes.as_deref().unwrap_or_default()),
            strip(then.changes.as_deref().unwrap_or_default()),
        );
        if a != b {
            let first = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            out.push(format!(
                "change set of {} changes (the episode's {}), first differing at change {first}",
                a.len(),
                b.len()
            ));
        }
        if let (Some(v), Some(w)) = (&self.graded.verdict, &stored.verdict) {
            if v.predicates != w.predicates {
                out.push(format!(
                    "predicates {:?} (the episode's {:?})",
                    v.predicates, w.predicates
                ));
            }
            if strip(&v.collateral) != strip(&w.collateral) {
                out.push(format!(
                    "{} collateral changes (the episode's {})",
                    v.collateral.len(),
                    w.collateral.len()
                ));
            }
        }
        out
    }
}

/// Replays `requests` on `item`'s start state.
///
/// # Errors
/// The item's scenario or task cannot be built, or the run stopped.
pub fn replay(item: &Item, requests: &[Request]) -> Result<Replayed, DataError> {
    let assignment = Assignment::of(item)?;
    let (scenario, mut sandbox, harness) = assignment.prepare(&item.id)?;
    let plan = harness.plan().clone();
    let mut agent = Patched { requests, next: 0 };
    let run = drive(&mut sandbox, &mut agent, harness, || true);
    let refused = run.failed_decisions;
    let graded = assignment.finish(&item.id, &scenario, &plan, &sandbox, run, None)?;
    Ok(Replayed {
        graded,
        requests: agent.next,
        refused,
    })
}
