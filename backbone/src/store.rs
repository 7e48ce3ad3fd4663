//! The `Store` seam: sweep state, job results with their aggregates, dead
//! letters, the LLM response cache with its usage ledger, and the shelves
//! of write-once records kept beside a sweep (reviews).

use adfarm_proto::expand::SuitePlan;
use adfarm_proto::leaderboard::BenchmarkVersion;
use adfarm_proto::tally::Tally;
use adfarm_proto::{Failure, JobId, JobResult, Lane, Pipeline, SweepId, SweepSpec, Usage, SOLVE};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Store failures.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The store could not be reached or opened.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// A stored value could not be decoded.
    #[error("stored value {key} is corrupt: {reason}")]
    Corrupt {
        /// Key of the value.
        key: String,
        /// Decoding error.
        reason: String,
    },
    /// The store lost the sweep's data since it was registered (restarted
    /// empty, flushed): nothing more is written for that registration.
    #[error(
        "the store lost sweep {sweep} (restarted without its data?); \
         run the coordinator again: it re-plans and republishes what is missing"
    )]
    Lost {
        /// The sweep.
        sweep: String,
    },
    /// Any other backend failure.
    #[error("store operation {op} failed: {reason}")]
    Backend {
        /// Operation.
        op: &'static str,
        /// What the backend said.
        reason: String,
    },
}

impl StoreError {
    /// Bounded error code, usable as a metric label.
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::Unavailable(_) => "store-unavailable",
            StoreError::Corrupt { .. } => "store-corrupt",
            StoreError::Backend { .. } => "store-backend",
            StoreError::Lost { .. } => "store-lost",
        }
    }
}

/// Whether a write was the first for its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// First write: aggregates were updated.
    New,
    /// Already present: nothing changed.
    Duplicate,
}

impl Recorded {
    /// [`Recorded::New`] when the write was the first, else
    /// [`Recorded::Duplicate`].
    pub fn first_if(first: bool) -> Recorded {
        if first {
            Recorded::New
        } else {
            Recorded::Duplicate
        }
    }
}

/// The counters a provider's bill adds for a call: its usage and cost when
/// it answered (`response` is present), nothing when it did not.
pub(crate) fn billed(response: Option<&[u8]>, usage: &Usage, cost_usd: f64) -> Vec<(String, i64)> {
    match response {
        Some(_) => Tally::bill_fields(usage, cost_usd),
        None => Vec::new(),
    }
}

/// A sweep as the coordinator registered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRecord {
    /// Id (hash of the spec).
    pub id: SweepId,
    /// The spec workers execute against.
    pub spec: SweepSpec,
    /// Jobs per stage the sweep expands to.
    pub planned: BTreeMap<String, i64>,
    /// What each suite runs: its solutions and declared stages.
    pub pipelines: BTreeMap<String, Pipeline>,
    /// Pre-run cost estimate in USD.
    pub estimated_cost_usd: f64,
    /// Unix seconds of the first registration.
    pub created_unix: u64,
    /// Which registration of the sweep in this store the data belongs to:
    /// drawn when a store first registers the sweep, kept when it is
    /// registered again. A store that lost its data (a Redis restarted
    /// empty) no longer has it, so writes for the old registration are
    /// refused instead of starting silently wrong totals.
    #[serde(default)]
    pub epoch: String,
    /// What each suite entry measures, per suite name (suites on
    /// leaderboards), as planned.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub benchmarks: BTreeMap<String, BenchmarkVersion>,
    /// Version of the `adfarm` binary that planned it (empty in records
    /// older than the field).
    #[serde(default)]
    pub adfarm: String,
}

/// Where results, aggregates, dead letters and the LLM cache live.
#[async_trait]
pub trait Store: Send + Sync {
    /// Registers or updates a sweep.
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn save_sweep(&self, rec: &SweepRecord) -> Result<(), StoreError>;

    /// The sweep with id `id`.
    ///
    /// # Errors
    /// When the store is unavailable or the record is corrupt.
    async fn sweep(&self, id: &SweepId) -> Result<Option<SweepRecord>, StoreError>;

    /// Every registered sweep.
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn sweeps(&self) -> Result<Vec<SweepRecord>, StoreError>;

    /// Stores `r` if no result for its job exists, and in the same atomic
    /// step adds its [`Tally::result_fields`] (and clears a failure of the
    /// same job, if one was recorded).
    ///
    /// # Errors
    /// When the store is unavailable; nothing was written then.
    async fn record(&self, sweep: &SweepId, r: &JobResult) -> Result<Recorded, StoreError>;

    /// The stored result of job `id`.
    ///
    /// # Errors
    /// When the store is unavailable or the result is corrupt.
    async fn result(&self, sweep: &SweepId, id: &JobId) -> Result<Option<JobResult>, StoreError>;

    /// Every stored result of the sweep, in job-id order, read in one pass
    /// (reports read per-item results this way, not one job at a time).
    ///
    /// # Errors
    /// When the store is unavailable or a result is corrupt.
    async fn results(&self, sweep: &SweepId) -> Result<Vec<JobResult>, StoreError>;

    /// Adds item keys ([`adfarm_proto::JobSpec::item_key`]) to the sweep's
    /// planned items; the coordinator does so before publishing their jobs.
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn plan_items(&self, sweep: &SweepId, keys: &[String]) -> Result<(), StoreError>;

    /// Whether `key` is one of the sweep's planned items: a worker runs
    /// no job of an item the sweep never planned.
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn item_planned(&self, sweep: &SweepId, key: &str) -> Result<bool, StoreError>;

    /// For each id, whether a result or a failure is stored (settled jobs are
    /// not published again on resume).
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn settled(&self, sweep: &SweepId, ids: &[JobId]) -> Result<Vec<bool>, StoreError>;

    /// Records a dead letter if neither a result nor a failure of the job is
    /// stored, adding [`Tally::failure_fields`] in the same step.
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn fail(&self, sweep: &SweepId, f: &Failure) -> Result<Recorded, StoreError>;

    /// Dead letters of the sweep.
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn failures(&self, sweep: &SweepId) -> Result<Vec<Failure>, StoreError>;

    /// The sweep's aggregates.
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn tally(&self, sweep: &SweepId) -> Result<Tally, StoreError>;

    /// Money spent by the sweep so far, nano-USD (checked before each call).
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn spend_nano_usd(&self, sweep: &SweepId) -> Result<i64, StoreError>;

    /// The cached response for request hash `call`.
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn cached(&self, call: &str) -> Result<Option<Vec<u8>>, StoreError>;

    /// Adds counter increments to the sweep's aggregates (no result, no
    /// dedup: the provider's bill, which counts every request sent).
    ///
    /// # Errors
    /// When the store is unavailable or lost the sweep.
    async fn count(&self, sweep: &SweepId, fields: &[(String, i64)]) -> Result<(), StoreError>;

    /// Takes the lease on making call `call` for `ttl`, unless another
    /// process holds it: identical requests in flight at once across
    /// workers are made once, the others wait for the cache.
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn lease(&self, call: &str, ttl: std::time::Duration) -> Result<bool, StoreError>;

    /// Gives the lease on `call` back (its response is cached, or it failed).
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn end_lease(&self, call: &str) -> Result<(), StoreError>;

    /// Caches `response` under `call` (if given and absent) and charges
    /// `usage` to the sweep once per (sweep, call), in one atomic step.
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn charge(
        &self,
        sweep: &SweepId,
        call: &str,
        response: Option<&[u8]>,
        usage: &Usage,
        cost_usd: f64,
    ) -> Result<Recorded, StoreError>;

    /// Keeps `value` under `key` on the sweep's shelf `shelf` unless a
    /// value is there already: records the farm keeps beside a sweep's
    /// results and outside its tally (reviewers, reviews, judges' pair
    /// verdicts). Written once, never changed, so a repeated write (a form
    /// sent twice) is a [`Recorded::Duplicate`].
    ///
    /// # Errors
    /// When the store is unavailable; nothing was written then.
    async fn shelve(
        &self,
        sweep: &SweepId,
        shelf: &str,
        key: &str,
        value: &[u8],
    ) -> Result<Recorded, StoreError>;

    /// Every value on the sweep's shelf `shelf`, with its key, in key order.
    ///
    /// # Errors
    /// When the store is unavailable.
    async fn shelf(
        &self,
        sweep: &SweepId,
        shelf: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, StoreError>;
}

impl SweepRecord {
    /// The lane jobs of `stage` queue on ([`Lane::Solve`] for solving).
    pub fn lane_of(&self, stage: &str) -> Option<Lane> {
        if stage == SOLVE {
            return Some(Lane::Solve);
        }
        self.pipelines
            .values()
            .find_map(|p| p.stage(stage))
            .map(|s| s.lane)
    }

    /// The providers jobs on `lane` call: the solutions' for solving, the
    /// variants' of the stages on that lane otherwise; each once, sorted.
    pub fn providers_on(&self, lane: Lane) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for p in self.pipelines.values() {
            if lane == Lane::Solve {
                names.extend(
                    p.solutions
                        .iter()
                        .filter_map(|&i| self.spec.solutions.get(i))
                        .map(|s| s.provider.as_str()),
                );
            }
            for stage in p.stages.iter().filter(|s| s.lane == lane) {
                names.extend(stage.variants.iter().filter_map(|v| v.provider.as_deref()));
            }
        }
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The expansion of suite `name`'s jobs in this sweep.
    pub fn plan_of(&self, name: &str) -> Option<SuitePlan<'_>> {
        let suite = self.spec.suites.iter().find(|s| s.name == name)?;
        Some(SuitePlan {
            sweep: &self.id,
            spec: &self.spec,
            suite,
            pipeline: self.pipelines.get(name)?,
        })
    }
}
