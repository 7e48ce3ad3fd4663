//! Jobs: kinds (one queue each), content-hash ids, and the envelope that
//! travels on a queue.

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

/// What a job does; each kind has its own queue so each scales on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JobKind {
    /// Run a solution on an item: LLM generation (and retrieval, injection).
    Generate,
    /// Ask a judge model to score a generated output.
    Judge,
    /// Embedding-based metrics of a generated output.
    EmbedMetrics,
}

impl JobKind {
    /// Every kind, in pipeline order.
    pub const ALL: [JobKind; 3] = [JobKind::Generate, JobKind::Judge, JobKind::EmbedMetrics];

    /// Stable name used in queue names, metric labels and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Generate => "generate",
            JobKind::Judge => "judge",
            JobKind::EmbedMetrics => "embed-metrics",
        }
    }

    /// Parses [`JobKind::as_str`] output.
    pub fn parse(s: &str) -> Option<JobKind> {
        JobKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

impl fmt::Display for JobKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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

/// Where a job's item comes from and which solution runs on it: the part of
/// a job every kind shares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Suite name.
    pub suite: String,
    /// Dataset name.
    pub dataset: String,
    /// Solution name.
    pub solution: String,
    /// Seed.
    pub seed: u64,
}

/// The work itself, by kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum JobSpec {
    /// Run `cell.solution` on `item`.
    Generate {
        /// Suite, dataset, solution, seed.
        cell: Cell,
        /// The item.
        item: Item,
    },
    /// Score the output of job `parent` with judge `judge`.
    Judge {
        /// Suite, dataset, solution, seed.
        cell: Cell,
        /// The item (judges see the query).
        item: Item,
        /// The generate job whose output is judged.
        parent: JobId,
        /// Judge (provider) name.
        judge: String,
    },
    /// Compute embedding metrics of the output of job `parent`.
    EmbedMetrics {
        /// Suite, dataset, solution, seed.
        cell: Cell,
        /// The item.
        item: Item,
        /// The generate job whose output is measured.
        parent: JobId,
        /// `None`: the sweep's `embedder`; a provider name: an ablation
        /// embedder of `embedding_ablation` re-scoring the same output.
        /// Left out when `None`, so the primary job keeps its id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        embedder: Option<String>,
    },
}

impl JobSpec {
    /// The queue this job goes to.
    pub fn kind(&self) -> JobKind {
        match self {
            JobSpec::Generate { .. } => JobKind::Generate,
            JobSpec::Judge { .. } => JobKind::Judge,
            JobSpec::EmbedMetrics { .. } => JobKind::EmbedMetrics,
        }
    }

    /// Suite, dataset, solution and seed of this job.
    pub fn cell(&self) -> &Cell {
        match self {
            JobSpec::Generate { cell, .. }
            | JobSpec::Judge { cell, .. }
            | JobSpec::EmbedMetrics { cell, .. } => cell,
        }
    }

    /// The item this job is about.
    pub fn item(&self) -> &Item {
        match self {
            JobSpec::Generate { item, .. }
            | JobSpec::Judge { item, .. }
            | JobSpec::EmbedMetrics { item, .. } => item,
        }
    }
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
            job,
        }
    }

    /// The queue this envelope goes to.
    pub fn kind(&self) -> JobKind {
        self.job.kind()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell() -> Cell {
        Cell {
            suite: "synthetic".into(),
            dataset: "default".into(),
            solution: "echo".into(),
            seed: 1,
        }
    }

    fn item() -> Item {
        Item {
            id: "3".into(),
            input: "hello".into(),
            meta: serde_json::Value::Null,
        }
    }

    #[test]
    fn ids_are_deterministic_and_depend_on_config() {
        let job = JobSpec::Generate {
            cell: cell(),
            item: item(),
        };
        let a = Envelope::new(SweepId("s".into()), job.clone(), b"cfg-a");
        let b = Envelope::new(SweepId("s".into()), job.clone(), b"cfg-a");
        let c = Envelope::new(SweepId("s".into()), job, b"cfg-b");
        assert_eq!(a.id, b.id);
        assert_ne!(a.id, c.id);
        assert_eq!(a.id.0.len(), 32);
    }

    #[test]
    fn kinds_round_trip_through_their_names() {
        for k in JobKind::ALL {
            assert_eq!(JobKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(JobKind::parse("nope"), None);
    }

    #[test]
    fn envelope_round_trips_as_json() {
        let env = Envelope::new(
            SweepId("s".into()),
            JobSpec::Judge {
                cell: cell(),
                item: item(),
                parent: JobId("p".into()),
                judge: "j".into(),
            },
            b"",
        );
        let json = serde_json::to_string(&env).unwrap();
        assert!(json.contains("\"kind\":\"judge\""));
        assert_eq!(serde_json::from_str::<Envelope>(&json).unwrap(), env);
    }
}
