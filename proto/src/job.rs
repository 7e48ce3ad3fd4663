//! Jobs: coordinates, content-hash ids, and the envelope that travels on a
//! queue.

use crate::stage::{Lane, Scope, Variant};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Id of a sweep: a hash of its spec (budget aside).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SweepId(pub String);

/// Id of a job: a hash of everything that determines its result.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JobId(pub String);

impl fmt::Display for SweepId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One dataset item as a suite yields it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// Stable id within its dataset (index or the dataset's own key).
    pub id: String,
    /// The query/prompt text.
    pub input: String,
    /// Suite-specific fields (category, candidate products, ...).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub meta: serde_json::Value,
}

/// Where a job's item comes from and which run it belongs to: the part of
/// a job every stage shares.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cell {
    /// Suite name.
    pub suite: String,
    /// Dataset name.
    pub dataset: String,
    /// Solution name; empty for [`Scope::Item`] jobs, which every solution
    /// shares.
    pub solution: String,
    /// Seed; 0 for [`Scope::Item`] and [`Scope::Runs`] jobs, which span
    /// every seed.
    pub seed: u64,
}

/// The work itself: a stage at some coordinates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    /// [`crate::stage::SOLVE`] or a stage the suite declared.
    pub stage: String,
    /// Queue it waits on.
    pub lane: Lane,
    /// Which of `cell`'s coordinates are meaningful.
    pub scope: Scope,
    /// Suite, dataset, solution, seed.
    pub cell: Cell,
    /// The item.
    pub item: Item,
    /// Provider and scorer column of this job of the stage.
    #[serde(default, skip_serializing_if = "Variant::is_none")]
    pub variant: Variant,
}

impl JobSpec {
    /// True for the job that runs a solution.
    pub fn is_solve(&self) -> bool {
        self.stage == crate::stage::SOLVE
    }

    /// Key of this job's item among the sweep's planned items: a hash of
    /// suite, dataset and the item's whole content, so an item the sweep
    /// never planned (or a planned id with other content) has no key there.
    pub fn item_key(&self) -> String {
        let item = serde_json::to_vec(&self.item).expect("items serialise");
        crate::content_hash(&[
            b"item",
            self.cell.suite.as_bytes(),
            self.cell.dataset.as_bytes(),
            &item,
        ])
    }
}

/// Dead-letter codes of messages a worker refuses to run: unreadable,
/// oversized, of another format version, or not a job of its registered
/// sweep's plan. No plan will ever admit them, so they never count in a
/// sweep; the coordinator sets them aside in the quarantine. A job whose
/// sweep is not registered is no refusal: it waits for the registration
/// (a store that lost it, a coordinator still planning), and only past
/// that wait is dead-lettered as [`SWEEP_NOT_REGISTERED`].
pub mod refusal {
    /// Not a job envelope.
    pub const BAD_MESSAGE: &str = "bad-message";
    /// Larger than [`super::MAX_ENVELOPE_BYTES`].
    pub const OVERSIZE: &str = "oversize";
    /// Another [`crate::FORMAT_VERSION`].
    pub const BAD_VERSION: &str = "bad-version";
    /// Not a job of its sweep's plan (forged id, unplanned item...).
    pub const UNPLANNED: &str = "unplanned";

    /// Whether `code` is one of these.
    pub fn is_refusal(code: &str) -> bool {
        [BAD_MESSAGE, OVERSIZE, BAD_VERSION, UNPLANNED].contains(&code)
    }
}

/// Dead-letter code of a job whose sweep stayed unregistered for as long as
/// a worker waits for it (see [`refusal`]).
pub const SWEEP_NOT_REGISTERED: &str = "sweep-not-registered";

/// Largest envelope a worker reads: items are bounded at plan time
/// (1 MiB), so anything much larger was never planned, and is refused by
/// size before it is parsed (or becomes a prompt).
pub const MAX_ENVELOPE_BYTES: usize = 2 * 1024 * 1024;

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A job on the wire: versioned, keyed by its content hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// [`crate::FORMAT_VERSION`] of the sender.
    pub v: u32,
    /// Sweep the job belongs to.
    pub sweep: SweepId,
    /// Content-hash id of `job` within the sweep's config.
    pub id: JobId,
    /// How many times this job was already retried through the queue.
    #[serde(default)]
    pub attempt: u32,
    /// How many times a worker put this job back to wait for its sweep's
    /// registration (not an attempt: nothing ran).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub waited: u32,
    /// The work.
    pub job: JobSpec,
}

impl Envelope {
    /// Wraps `job`, deriving its id from the job and `config`: everything
    /// else that determines the result (solution, provider and judge
    /// settings), serialised by the caller.
    pub fn new(sweep: SweepId, job: JobSpec, config: &[u8]) -> Envelope {
        let body = serde_json::to_vec(&job).expect("job spec serialises");
        let id = JobId(crate::content_hash(&[b"job", &body, config]));
        Envelope {
            v: crate::FORMAT_VERSION,
            sweep,
            id,
            attempt: 0,
            waited: 0,
            job,
        }
    }

    /// The queue this envelope goes to.
    pub fn lane(&self) -> Lane {
        self.job.lane
    }

    /// The stage of its job.
    pub fn stage(&self) -> &str {
        &self.job.stage
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(stage: &str) -> JobSpec {
        JobSpec {
            stage: stage.into(),
            lane: Lane::Solve,
            scope: Scope::Run,
            cell: Cell {
                suite: "synthetic".into(),
                dataset: "default".into(),
                solution: "echo".into(),
                seed: 1,
            },
            item: Item {
                id: "3".into(),
                input: "hello".into(),
                meta: serde_json::Value::Null,
            },
            variant: Variant::none(),
        }
    }

    #[test]
    fn ids_are_deterministic_and_depend_on_config() {
        let a = Envelope::new(SweepId("s".into()), job("solve"), b"cfg-a");
        let b = Envelope::new(SweepId("s".into()), job("solve"), b"cfg-a");
        let c = Envelope::new(SweepId("s".into()), job("solve"), b"cfg-b");
        let d = Envelope::new(SweepId("s".into()), job("judge"), b"cfg-a");
        assert_eq!(a.id, b.id);
        assert_ne!(a.id, c.id);
        assert_ne!(a.id, d.id);
        assert_eq!(a.id.0.len(), 32);
    }

    #[test]
    fn envelope_round_trips_as_json() {
        let mut j = job("judge");
        j.lane = Lane::Model;
        j.variant = Variant {
            provider: Some("j".into()),
            column: Some("j".into()),
        };
        let env = Envelope::new(SweepId("s".into()), j, b"");
        let json = serde_json::to_string(&env).unwrap();
        assert!(json.contains("\"lane\":\"model\""), "{json}");
        assert_eq!(serde_json::from_str::<Envelope>(&json).unwrap(), env);
        let plain = serde_json::to_string(&job("solve")).unwrap();
        assert!(!plain.contains("variant"), "{plain}");
    }
}
