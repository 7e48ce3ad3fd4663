//! The distributed deployment's store and rate limiter, on Redis.
//!
//! - this file: [`RedisStore`], the [`Store`] with the same semantics as
//!   [`crate::EmbeddedStore`];
//! - [`connection`]: the auto-reconnecting connection and scrubbed errors;
//! - [`scripts`]: the Lua scripts behind every multi-key write;
//! - [`limiter`]: [`RedisLimiter`], GCRA on the server's clock.
//!
//! Design decision: every write that must be atomic (store a result and
//! count it, record a failure and count it, cache and charge a call) is one
//! Lua script, so a redelivered job is never counted twice however many
//! workers race on it. Counter names come from [`Tally`] in Rust; the
//! scripts only add the increments they are given.
//!
//! Key layout, all under `<prefix>:` (`{<id>}` is a Redis Cluster hash
//! tag: a sweep's keys share one slot, so its scripts run on a cluster):
//!
//! | key | type | holds |
//! |---|---|---|
//! | `sweeps` | hash | sweep id → `SweepRecord` JSON |
//! | `sweep:{<id>}:results` | hash | job id → `JobResult` JSON |
//! | `sweep:{<id>}:failures` | hash | job id → `Failure` JSON |
//! | `sweep:{<id>}:failure-undo` | hash | job id → negated failure counters |
//! | `sweep:{<id>}:counters` | hash | counter name → i64 |
//! | `sweep:{<id>}:charges` | set | calls charged to the sweep |
//! | `sweep:{<id>}:items` | set | keys of the sweep's planned items |
//! | `sweep:{<id>}:epoch` | string | the registration the data belongs to |
//! | `sweep:{<id>}:shelf:<name>` | hash | key → a write-once record (reviews) |
//! | `cache:<call>` | string | cached LLM response (no expiry) |
//! | `lease:<call>` | string | a worker is making this call (expires) |
//! | `limit:<key>` | string | a limiter bucket's TAT (expires when full) |

mod connection;
mod limiter;
mod scripts;

pub use connection::RedisConnection;
pub use limiter::RedisLimiter;

use crate::store::{billed, Recorded, Store, StoreError, SweepRecord};
use adfarm_proto::tally::Tally;
use adfarm_proto::{Failure, JobId, JobResult, SweepId, Usage};
use async_trait::async_trait;
use redis::{RedisError, Script, ScriptInvocation};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};

/// Keys or fields asked for per `SCAN`/`HSCAN` round trip.
const SCAN_BATCH: u64 = 1000;

/// A [`Store`] on Redis, shared by every process of a deployment. Cloning
/// shares the connection, which reconnects by itself after a broken link.
#[derive(Clone)]
pub struct RedisStore {
    con: RedisConnection,
    prefix: String,
    // The epoch each sweep was registered (or last read) with: every write
    // for the sweep must find it still in Redis.
    epochs: Arc<Mutex<HashMap<SweepId, String>>>,
    // Epochs this process found gone from Redis. When the sweep is read
    // back under another epoch, the loss goes on record in the new
    // registration's counters (`Tally::store_lost`): its billed figures
    // start there.
    lost_epochs: Arc<Mutex<HashMap<SweepId, String>>>,
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// Keys of one sweep.
struct SweepKeys {
    results: String,
    failures: String,
    failure_undo: String,
    counters: String,
    charges: String,
    items: String,
    epoch: String,
}

/// Maps a client error: connection-level failures mean the store is
/// unavailable (the caller retries later), anything else is a backend error.
fn backend(op: &'static str) -> impl Fn(RedisError) -> StoreError {
    move |e| {
        if e.is_io_error()
            || e.is_timeout()
            || e.is_connection_dropped()
            || e.is_connection_refusal()
        {
            StoreError::Unavailable(format!("{op}: {e}"))
        } else {
            StoreError::Backend {
                op,
                reason: e.to_string(),
            }
        }
    }
}

fn decode<T: serde::de::DeserializeOwned>(key: &str, bytes: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::Corrupt {
        key: key.to_string(),
        reason: e.to_string(),
    })
}

/// Flattens counter increments into script arguments: field, increment, ...
fn flat(fields: &[(String, i64)]) -> Vec<String> {
    fields
        .iter()
        .flat_map(|(f, v)| [f.clone(), v.to_string()])
        .collect()
}

impl RedisStore {
    /// Connects to the Redis at `url` and keeps every key under `<prefix>:`.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the URL is invalid or Redis cannot
    /// be reached; the message shows the URL without its password.
    pub async fn connect(url: &str, prefix: &str) -> Result<RedisStore, StoreError> {
        let con = connection::connect(url)
            .await
            .map_err(StoreError::Unavailable)?;
        Ok(RedisStore {
            con,
            prefix: prefix.to_string(),
            epochs: Arc::default(),
            lost_epochs: Arc::default(),
        })
    }

    /// Deletes every key under this store's prefix (tests and benchmarks).
    ///
    /// # Errors
    /// When Redis is unavailable.
    pub async fn delete_all(&self) -> Result<u64, StoreError> {
        let mut con = self.con.clone();
        let pattern = format!("{}:*", self.prefix);
        let fail = |e: RedisError| StoreError::Backend {
            op: "delete_all",
            reason: e.to_string(),
        };
        if matches!(con, RedisConnection::Cluster(_)) {
            // SCAN walks one node; KEYS is sent to every primary and the
            // answers joined. Keys are deleted one by one: they live in
            // different slots.
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg(&pattern)
                .query_async(&mut con)
                .await
                .map_err(fail)?;
            let mut deleted = 0;
            for k in keys {
                deleted += redis::cmd("DEL")
                    .arg(&k)
                    .query_async::<u64>(&mut con)
                    .await
                    .map_err(fail)?;
            }
            return Ok(deleted);
        }
        let mut cursor = 0u64;
        let mut deleted = 0u64;
        loop {
            let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(SCAN_BATCH)
                .query_async(&mut con)
                .await
                .map_err(fail)?;
            if !keys.is_empty() {
                let n: u64 = redis::cmd("DEL")
                    .arg(&keys)
                    .query_async(&mut con)
                    .await
                    .map_err(fail)?;
                deleted += n;
            }
            if next == 0 {
                return Ok(deleted);
            }
            cursor = next;
        }
    }

    /// A limiter on the same connection and prefix.
    pub fn limiter(&self) -> RedisLimiter {
        RedisLimiter::with_connection(self.con.clone(), &self.prefix)
    }

    fn sweeps_key(&self) -> String {
        format!("{}:sweeps", self.prefix)
    }

    fn cache_key(&self, call: &str) -> String {
        format!("{}:cache:{call}", self.prefix)
    }

    fn keys(&self, sweep: &SweepId) -> SweepKeys {
        // One hash tag per sweep: on a Redis Cluster all its keys share a
        // slot, as the multi-key scripts require.
        let base = format!("{}:sweep:{{{sweep}}}", self.prefix);
        SweepKeys {
            results: format!("{base}:results"),
            failures: format!("{base}:failures"),
            failure_undo: format!("{base}:failure-undo"),
            counters: format!("{base}:counters"),
            charges: format!("{base}:charges"),
            items: format!("{base}:items"),
            epoch: format!("{base}:epoch"),
        }
    }

    fn shelf_key(&self, sweep: &SweepId, shelf: &str) -> String {
        format!("{}:sweep:{{{sweep}}}:shelf:{shelf}", self.prefix)
    }

    /// The epoch this process knows `sweep` by (reading its record once).
    async fn epoch(&self, sweep: &SweepId) -> Result<String, StoreError> {
        if let Some(e) = self.known_epoch(sweep) {
            return Ok(e);
        }
        match self.sweep(sweep).await? {
            Some(rec) => Ok(rec.epoch),
            None => Err(StoreError::Lost {
                sweep: sweep.0.clone(),
            }),
        }
    }

    fn known_epoch(&self, sweep: &SweepId) -> Option<String> {
        self.epochs
            .lock()
            .expect("epoch lock is never poisoned")
            .get(sweep)
            .cloned()
    }

    fn remember_epoch(&self, sweep: &SweepId, epoch: &str) {
        self.epochs
            .lock()
            .expect("epoch lock is never poisoned")
            .insert(sweep.clone(), epoch.to_string());
    }

    /// A script's -1: the sweep's epoch is gone. Forgets it (a later write
    /// reads the record again, which a coordinator may have re-registered).
    fn lost(&self, sweep: &SweepId) -> StoreError {
        self.forget_epoch(sweep);
        StoreError::Lost {
            sweep: sweep.0.clone(),
        }
    }

    /// Moves the epoch known for `sweep` (if any) to the lost ones.
    fn forget_epoch(&self, sweep: &SweepId) {
        let known = self
            .epochs
            .lock()
            .expect("epoch lock is never poisoned")
            .remove(sweep);
        if let Some(epoch) = known {
            self.lost_epochs
                .lock()
                .expect("lost-epoch lock is never poisoned")
                .insert(sweep.clone(), epoch);
        }
    }

    /// `rec` was just read: when this process had found an earlier epoch
    /// of it lost, the new registration's counters record the loss (best
    /// effort: a failure is logged, and the next read tries again).
    async fn note_loss(&self, rec: &SweepRecord) {
        let lost = self
            .lost_epochs
            .lock()
            .expect("lost-epoch lock is never poisoned")
            .get(&rec.id)
            .cloned();
        if lost.is_none_or(|old| old == rec.epoch) {
            return;
        }
        match self.count(&rec.id, &Tally::loss_fields()).await {
            Ok(()) => {
                self.lost_epochs
                    .lock()
                    .expect("lost-epoch lock is never poisoned")
                    .remove(&rec.id);
            }
            Err(e) => {
                tracing::warn!(sweep = %rec.id, code = e.code(), "Could not record the store's loss of the sweep.");
            }
        }
    }

    /// Runs a write script for `sweep` with its epoch guard appended (the
    /// epoch key as the last KEY, the epoch as the last ARGV) and returns
    /// the script's answer; its -1 becomes [`StoreError::Lost`].
    async fn guarded(
        &self,
        op: &'static str,
        sweep: &SweepId,
        mut call: ScriptInvocation<'static>,
    ) -> Result<i64, StoreError> {
        let epoch = self.epoch(sweep).await?;
        call.key(self.keys(sweep).epoch).arg(epoch);
        let mut con = self.con.clone();
        let answer: i64 = call.invoke_async(&mut con).await.map_err(backend(op))?;
        if answer == -1 {
            return Err(self.lost(sweep));
        }
        Ok(answer)
    }

    /// A call of a result or failure script for job `id` of `sweep`, its
    /// job keys (results, failures, failure undo, counters) and the job id
    /// given; the caller adds the rest of its ARGV.
    fn job_script(
        &self,
        script: &'static Script,
        sweep: &SweepId,
        id: &JobId,
    ) -> ScriptInvocation<'static> {
        let k = self.keys(sweep);
        let mut call = script.key(&k.results);
        call.key(&k.failures)
            .key(&k.failure_undo)
            .key(&k.counters)
            .arg(&id.0);
        call
    }

    /// A result or failure script's answer for `sweep`: 1 when the job's
    /// entry is new.
    async fn settle(
        &self,
        op: &'static str,
        sweep: &SweepId,
        call: ScriptInvocation<'static>,
    ) -> Result<Recorded, StoreError> {
        let new = self.guarded(op, sweep, call).await?;
        Ok(Recorded::first_if(new == 1))
    }

    async fn hget(
        &self,
        op: &'static str,
        key: &str,
        field: &str,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let mut con = self.con.clone();
        redis::cmd("HGET")
            .arg(key)
            .arg(field)
            .query_async(&mut con)
            .await
            .map_err(backend(op))
    }

    /// Every entry of hash `key`, decoded, in field order (as the embedded
    /// store lists them).
    async fn hvals_sorted<T: serde::de::DeserializeOwned>(
        &self,
        op: &'static str,
        key: &str,
    ) -> Result<Vec<T>, StoreError> {
        let mut con = self.con.clone();
        let all: HashMap<String, Vec<u8>> = redis::cmd("HGETALL")
            .arg(key)
            .query_async(&mut con)
            .await
            .map_err(backend(op))?;
        let mut rows: Vec<(String, Vec<u8>)> = all.into_iter().collect();
        rows.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        rows.iter()
            .map(|(field, v)| decode(&format!("{key}/{field}"), v))
            .collect()
    }
}

#[async_trait]
impl Store for RedisStore {
    async fn save_sweep(&self, rec: &SweepRecord) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(rec).expect("sweep record serialises");
        let mut con = self.con.clone();
        // The epoch first: a record without its epoch key would refuse writes.
        let _: () = redis::cmd("SET")
            .arg(self.keys(&rec.id).epoch)
            .arg(&rec.epoch)
            .query_async(&mut con)
            .await
            .map_err(backend("save_sweep"))?;
        self.remember_epoch(&rec.id, &rec.epoch);
        let _: i64 = redis::cmd("HSET")
            .arg(self.sweeps_key())
            .arg(&rec.id.0)
            .arg(bytes)
            .query_async(&mut con)
            .await
            .map_err(backend("save_sweep"))?;
        Ok(())
    }

    async fn sweep(&self, id: &SweepId) -> Result<Option<SweepRecord>, StoreError> {
        let key = self.sweeps_key();
        match self.hget("sweep", &key, &id.0).await? {
            Some(b) => {
                let rec: SweepRecord = decode(&format!("{key}/{id}"), &b)?;
                self.remember_epoch(id, &rec.epoch);
                self.note_loss(&rec).await;
                Ok(Some(rec))
            }
            None => {
                // A sweep this process knew is gone: the store lost it.
                self.forget_epoch(id);
                Ok(None)
            }
        }
    }

    async fn sweeps(&self) -> Result<Vec<SweepRecord>, StoreError> {
        self.hvals_sorted("sweeps", &self.sweeps_key()).await
    }

    async fn record(&self, sweep: &SweepId, r: &JobResult) -> Result<Recorded, StoreError> {
        let bytes = serde_json::to_vec(r).expect("result serialises");
        let mut call = self.job_script(&scripts::RECORD, sweep, &r.id);
        call.arg(bytes).arg(flat(&Tally::result_fields(r)));
        self.settle("record", sweep, call).await
    }

    async fn result(&self, sweep: &SweepId, id: &JobId) -> Result<Option<JobResult>, StoreError> {
        let key = self.keys(sweep).results;
        match self.hget("result", &key, &id.0).await? {
            Some(b) => Ok(Some(decode(&format!("{key}/{id}"), &b)?)),
            None => Ok(None),
        }
    }

    async fn results(&self, sweep: &SweepId) -> Result<Vec<JobResult>, StoreError> {
        let key = self.keys(sweep).results;
        let mut con = self.con.clone();
        // HSCAN in batches rather than one HGETALL: a large sweep's results
        // are hundreds of megabytes, which one reply would build in Redis's
        // memory while blocking every worker. A field may come back twice
        // (the hash can be rehashed between batches); the map keeps one.
        let mut rows: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        let mut cursor = 0u64;
        loop {
            let (next, batch): (u64, HashMap<String, Vec<u8>>) = redis::cmd("HSCAN")
                .arg(&key)
                .arg(cursor)
                .arg("COUNT")
                .arg(SCAN_BATCH)
                .query_async(&mut con)
                .await
                .map_err(backend("results"))?;
            rows.extend(batch);
            if next == 0 {
                break;
            }
            cursor = next;
        }
        rows.iter()
            .map(|(id, v)| decode(&format!("{key}/{id}"), v))
            .collect()
    }

    async fn plan_items(&self, sweep: &SweepId, keys: &[String]) -> Result<(), StoreError> {
        if keys.is_empty() {
            return Ok(());
        }
        let mut con = self.con.clone();
        redis::cmd("SADD")
            .arg(self.keys(sweep).items)
            .arg(keys)
            .query_async::<i64>(&mut con)
            .await
            .map_err(backend("plan_items"))?;
        Ok(())
    }

    async fn item_planned(&self, sweep: &SweepId, key: &str) -> Result<bool, StoreError> {
        let mut con = self.con.clone();
        redis::cmd("SISMEMBER")
            .arg(self.keys(sweep).items)
            .arg(key)
            .query_async(&mut con)
            .await
            .map_err(backend("item_planned"))
    }

    async fn settled(&self, sweep: &SweepId, ids: &[JobId]) -> Result<Vec<bool>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        // Planning asks about ~1000 ids at a time: one pipelined round trip,
        // two answers per id.
        let k = self.keys(sweep);
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.cmd("HEXISTS").arg(&k.results).arg(&id.0);
            pipe.cmd("HEXISTS").arg(&k.failures).arg(&id.0);
        }
        let mut con = self.con.clone();
        let found: Vec<bool> = pipe
            .query_async(&mut con)
            .await
            .map_err(backend("settled"))?;
        Ok(found.chunks(2).map(|p| p.iter().any(|b| *b)).collect())
    }

    async fn fail(&self, sweep: &SweepId, f: &Failure) -> Result<Recorded, StoreError> {
        let bytes = serde_json::to_vec(f).expect("failure serialises");
        let fields = Tally::failure_fields(f);
        // What a later result must subtract, kept as strings so the script
        // passes them to HINCRBY without a trip through Lua numbers.
        let negated: Vec<(String, i64)> = fields.iter().map(|(f, v)| (f.clone(), -v)).collect();
        let undo = serde_json::to_vec(&flat(&negated)).expect("strings serialise");
        let mut call = self.job_script(&scripts::FAIL, sweep, &f.id);
        call.arg(bytes).arg(undo).arg(flat(&fields));
        self.settle("fail", sweep, call).await
    }

    async fn failures(&self, sweep: &SweepId) -> Result<Vec<Failure>, StoreError> {
        self.hvals_sorted("failures", &self.keys(sweep).failures)
            .await
    }

    async fn tally(&self, sweep: &SweepId) -> Result<Tally, StoreError> {
        let mut con = self.con.clone();
        let counters: HashMap<String, i64> = redis::cmd("HGETALL")
            .arg(self.keys(sweep).counters)
            .query_async(&mut con)
            .await
            .map_err(backend("tally"))?;
        Ok(Tally::from_fields(
            counters.iter().map(|(k, v)| (k.as_str(), *v)),
        ))
    }

    async fn spend_nano_usd(&self, sweep: &SweepId) -> Result<i64, StoreError> {
        let mut con = self.con.clone();
        let spend: Option<i64> = redis::cmd("HGET")
            .arg(self.keys(sweep).counters)
            .arg("spend")
            .query_async(&mut con)
            .await
            .map_err(backend("spend"))?;
        Ok(spend.unwrap_or(0))
    }

    async fn cached(&self, call: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let mut con = self.con.clone();
        redis::cmd("GET")
            .arg(self.cache_key(call))
            .query_async(&mut con)
            .await
            .map_err(backend("cached"))
    }

    async fn count(&self, sweep: &SweepId, fields: &[(String, i64)]) -> Result<(), StoreError> {
        let mut call = scripts::COUNT.key(self.keys(sweep).counters);
        call.arg(flat(fields));
        self.guarded("count", sweep, call).await?;
        Ok(())
    }

    async fn lease(&self, call: &str, ttl: std::time::Duration) -> Result<bool, StoreError> {
        let mut con = self.con.clone();
        let taken: Option<String> = redis::cmd("SET")
            .arg(format!("{}:lease:{call}", self.prefix))
            .arg(1)
            .arg("NX")
            .arg("PX")
            .arg(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1))
            .query_async(&mut con)
            .await
            .map_err(backend("lease"))?;
        Ok(taken.is_some())
    }

    async fn end_lease(&self, call: &str) -> Result<(), StoreError> {
        let mut con = self.con.clone();
        redis::cmd("DEL")
            .arg(format!("{}:lease:{call}", self.prefix))
            .query_async::<i64>(&mut con)
            .await
            .map_err(backend("end_lease"))?;
        Ok(())
    }

    async fn charge(
        &self,
        sweep: &SweepId,
        call: &str,
        response: Option<&[u8]>,
        usage: &Usage,
        cost_usd: f64,
    ) -> Result<Recorded, StoreError> {
        // A response means the provider answered (and billed) this call.
        let billed = billed(response, usage, cost_usd);
        let k = self.keys(sweep);
        let mut script = scripts::CHARGE.key(&k.charges);
        script
            .key(&k.counters)
            .arg(call)
            .arg(billed.len())
            .arg(flat(&billed))
            .arg(flat(&Tally::charge_fields(usage, cost_usd)));
        let new = self.guarded("charge", sweep, script).await?;
        // Charged before cached: a crash in between makes a redelivered
        // job call again (billed, not charged twice), never lose the charge.
        if let Some(bytes) = response {
            let mut con = self.con.clone();
            redis::cmd("SET")
                .arg(self.cache_key(call))
                .arg(bytes)
                .arg("NX")
                .query_async::<Option<String>>(&mut con)
                .await
                .map_err(backend("cache"))?;
        }
        Ok(Recorded::first_if(new == 1))
    }

    async fn shelve(
        &self,
        sweep: &SweepId,
        shelf: &str,
        key: &str,
        value: &[u8],
    ) -> Result<Recorded, StoreError> {
        let mut con = self.con.clone();
        let first: bool = redis::cmd("HSETNX")
            .arg(self.shelf_key(sweep, shelf))
            .arg(key)
            .arg(value)
            .query_async(&mut con)
            .await
            .map_err(backend("shelve"))?;
        Ok(Recorded::first_if(first))
    }

    async fn shelf(
        &self,
        sweep: &SweepId,
        shelf: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let mut con = self.con.clone();
        let all: HashMap<String, Vec<u8>> = redis::cmd("HGETALL")
            .arg(self.shelf_key(sweep, shelf))
            .query_async(&mut con)
            .await
            .map_err(backend("shelf"))?;
        let mut rows: Vec<(String, Vec<u8>)> = all.into_iter().collect();
        rows.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(rows)
    }
}
