//! The embedded deployment's store: one redb file on disk. Every write is a
//! durable redb transaction, so a `kill -9` loses nothing that was recorded
//! and a restarted run resumes where it stopped. Results, the most frequent
//! write, are committed in groups ([`group_commit`]): one fsync for every
//! result that arrived while the previous group was committing.

mod group_commit;

use crate::store::{billed, Recorded, Store, StoreError, SweepRecord};
use adfarm_proto::tally::{Tally, SEP};
use adfarm_proto::{Failure, JobId, JobResult, SweepId, Usage};
use async_trait::async_trait;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};
use std::path::Path;
use std::sync::Arc;

const SWEEPS: TableDefinition<&str, &[u8]> = TableDefinition::new("sweeps");
const RESULTS: TableDefinition<&str, &[u8]> = TableDefinition::new("results");
const FAILURES: TableDefinition<&str, &[u8]> = TableDefinition::new("failures");
const COUNTERS: TableDefinition<&str, i64> = TableDefinition::new("counters");
const CACHE: TableDefinition<&str, &[u8]> = TableDefinition::new("cache");
const CHARGES: TableDefinition<&str, u8> = TableDefinition::new("charges");
const ITEMS: TableDefinition<&str, u8> = TableDefinition::new("items");
const SHELVES: TableDefinition<&str, &[u8]> = TableDefinition::new("shelves");

/// A store in one file.
#[derive(Clone)]
pub struct EmbeddedStore {
    db: Arc<Database>,
    results: group_commit::Committer,
}

fn backend(op: &'static str) -> impl Fn(redb::Error) -> StoreError {
    move |e| StoreError::Backend {
        op,
        reason: e.to_string(),
    }
}

fn key(sweep: &SweepId, id: &str) -> String {
    format!("{sweep}{SEP}{id}")
}

fn add(
    txn: &WriteTransaction,
    sweep: &SweepId,
    fields: &[(String, i64)],
) -> Result<(), redb::Error> {
    let mut t = txn.open_table(COUNTERS)?;
    for (f, v) in fields {
        let k = key(sweep, f);
        let old = t.get(k.as_str())?.map(|g| g.value()).unwrap_or(0);
        t.insert(k.as_str(), old.saturating_add(*v))?;
    }
    Ok(())
}

fn decode<T: serde::de::DeserializeOwned>(k: &str, bytes: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::Corrupt {
        key: k.to_string(),
        reason: e.to_string(),
    })
}

impl EmbeddedStore {
    /// Opens (or creates) the store file at `path`, creating its directory.
    ///
    /// # Errors
    /// When the file cannot be created, is locked by another process, or is
    /// not a redb database.
    pub fn open(path: &Path) -> Result<EmbeddedStore, StoreError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| {
                StoreError::Unavailable(format!("cannot create {}: {e}", dir.display()))
            })?;
        }
        let db = Database::create(path).map_err(|e| match e {
            redb::DatabaseError::DatabaseAlreadyOpen => StoreError::Unavailable(format!(
                "{} is in use by another adfarm process (a running `adfarm run`?); \
                 the embedded store opens in one process at a time",
                path.display()
            )),
            e => StoreError::Unavailable(format!("cannot open {}: {e}", path.display())),
        })?;
        let txn = db.begin_write().map_err(|e| backend("open")(e.into()))?;
        for t in [SWEEPS, RESULTS, FAILURES, CACHE, SHELVES] {
            txn.open_table(t).map_err(|e| backend("open")(e.into()))?;
        }
        txn.open_table(COUNTERS)
            .map_err(|e| backend("open")(e.into()))?;
        for t in [CHARGES, ITEMS] {
            txn.open_table(t).map_err(|e| backend("open")(e.into()))?;
        }
        txn.commit().map_err(|e| backend("open")(e.into()))?;
        let db = Arc::new(db);
        let results = group_commit::Committer::start(&db)?;
        Ok(EmbeddedStore { db, results })
    }

    /// Runs blocking redb work off the async runtime.
    async fn blocking<T: Send + 'static>(
        &self,
        op: &'static str,
        f: impl FnOnce(&Database) -> Result<T, redb::Error> + Send + 'static,
    ) -> Result<T, StoreError> {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || f(&db))
            .await
            .map_err(|e| StoreError::Backend {
                op,
                reason: e.to_string(),
            })?
            .map_err(backend(op))
    }

    async fn get(
        &self,
        table: TableDefinition<'static, &'static str, &'static [u8]>,
        k: String,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        self.blocking("get", move |db| {
            let txn = db.begin_read()?;
            let t = txn.open_table(table)?;
            Ok(t.get(k.as_str())?.map(|g| g.value().to_vec()))
        })
        .await
    }

    /// Every value whose key starts with `prefix`, decoded, in key order:
    /// one range read.
    async fn scan<T: serde::de::DeserializeOwned + Send + 'static>(
        &self,
        table: TableDefinition<'static, &'static str, &'static [u8]>,
        prefix: String,
    ) -> Result<Vec<T>, StoreError> {
        let rows = self
            .blocking("scan", move |db| {
                let txn = db.begin_read()?;
                let t = txn.open_table(table)?;
                let mut out = Vec::new();
                for row in t.range(prefix.as_str()..)? {
                    let (k, v) = row?;
                    if !k.value().starts_with(prefix.as_str()) {
                        break;
                    }
                    out.push((k.value().to_string(), v.value().to_vec()));
                }
                Ok(out)
            })
            .await?;
        rows.iter().map(|(k, v)| decode(k, v)).collect()
    }
}

#[async_trait]
impl Store for EmbeddedStore {
    async fn save_sweep(&self, rec: &SweepRecord) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(rec).expect("sweep record serialises");
        let id = rec.id.0.clone();
        self.blocking("save_sweep", move |db| {
            let txn = db.begin_write()?;
            txn.open_table(SWEEPS)?
                .insert(id.as_str(), bytes.as_slice())?;
            txn.commit()?;
            Ok(())
        })
        .await
    }

    async fn sweep(&self, id: &SweepId) -> Result<Option<SweepRecord>, StoreError> {
        match self.get(SWEEPS, id.0.clone()).await? {
            Some(b) => Ok(Some(decode(&id.0, &b)?)),
            None => Ok(None),
        }
    }

    async fn sweeps(&self) -> Result<Vec<SweepRecord>, StoreError> {
        self.scan(SWEEPS, String::new()).await
    }

    async fn record(&self, sweep: &SweepId, r: &JobResult) -> Result<Recorded, StoreError> {
        let bytes = serde_json::to_vec(r).expect("result serialises");
        let k = key(sweep, &r.id.0);
        self.results
            .record(sweep.clone(), k, bytes, Tally::result_fields(r))
            .await
    }

    async fn result(&self, sweep: &SweepId, id: &JobId) -> Result<Option<JobResult>, StoreError> {
        let k = key(sweep, &id.0);
        match self.get(RESULTS, k.clone()).await? {
            Some(b) => Ok(Some(decode(&k, &b)?)),
            None => Ok(None),
        }
    }

    async fn results(&self, sweep: &SweepId) -> Result<Vec<JobResult>, StoreError> {
        // Keys are `<sweep>|<job id>`, so a sweep's results are one range.
        self.scan(RESULTS, key(sweep, "")).await
    }

    async fn plan_items(&self, sweep: &SweepId, keys: &[String]) -> Result<(), StoreError> {
        let keys: Vec<String> = keys.iter().map(|k| key(sweep, k)).collect();
        self.blocking("plan_items", move |db| {
            let txn = db.begin_write()?;
            {
                let mut t = txn.open_table(ITEMS)?;
                for k in &keys {
                    t.insert(k.as_str(), 1)?;
                }
            }
            txn.commit()?;
            Ok(())
        })
        .await
    }

    async fn item_planned(&self, sweep: &SweepId, k: &str) -> Result<bool, StoreError> {
        let k = key(sweep, k);
        self.blocking("item_planned", move |db| {
            let txn = db.begin_read()?;
            let t = txn.open_table(ITEMS)?;
            Ok(t.get(k.as_str())?.is_some())
        })
        .await
    }

    async fn settled(&self, sweep: &SweepId, ids: &[JobId]) -> Result<Vec<bool>, StoreError> {
        let keys: Vec<String> = ids.iter().map(|id| key(sweep, &id.0)).collect();
        self.blocking("settled", move |db| {
            let txn = db.begin_read()?;
            let results = txn.open_table(RESULTS)?;
            let failures = txn.open_table(FAILURES)?;
            keys.iter()
                .map(|k| {
                    Ok(results.get(k.as_str())?.is_some() || failures.get(k.as_str())?.is_some())
                })
                .collect()
        })
        .await
    }

    async fn fail(&self, sweep: &SweepId, f: &Failure) -> Result<Recorded, StoreError> {
        let bytes = serde_json::to_vec(f).expect("failure serialises");
        let k = key(sweep, &f.id.0);
        let sweep = sweep.clone();
        let fields = Tally::failure_fields(f);
        self.blocking("fail", move |db| {
            let txn = db.begin_write()?;
            {
                let results = txn.open_table(RESULTS)?;
                let mut failures = txn.open_table(FAILURES)?;
                if results.get(k.as_str())?.is_some() || failures.get(k.as_str())?.is_some() {
                    return Ok(Recorded::Duplicate);
                }
                failures.insert(k.as_str(), bytes.as_slice())?;
            }
            add(&txn, &sweep, &fields)?;
            txn.commit()?;
            Ok(Recorded::New)
        })
        .await
    }

    async fn failures(&self, sweep: &SweepId) -> Result<Vec<Failure>, StoreError> {
        self.scan(FAILURES, key(sweep, "")).await
    }

    async fn tally(&self, sweep: &SweepId) -> Result<Tally, StoreError> {
        let prefix = key(sweep, "");
        let rows = self
            .blocking("tally", move |db| {
                let txn = db.begin_read()?;
                let t = txn.open_table(COUNTERS)?;
                let mut out = Vec::new();
                for row in t.range(prefix.as_str()..)? {
                    let (k, v) = row?;
                    let Some(field) = k.value().strip_prefix(prefix.as_str()) else {
                        break;
                    };
                    out.push((field.to_string(), v.value()));
                }
                Ok(out)
            })
            .await?;
        Ok(Tally::from_fields(
            rows.iter().map(|(k, v)| (k.as_str(), *v)),
        ))
    }

    async fn spend_nano_usd(&self, sweep: &SweepId) -> Result<i64, StoreError> {
        let k = key(sweep, "spend");
        self.blocking("spend", move |db| {
            let txn = db.begin_read()?;
            let t = txn.open_table(COUNTERS)?;
            Ok(t.get(k.as_str())?.map(|g| g.value()).unwrap_or(0))
        })
        .await
    }

    async fn cached(&self, call: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.get(CACHE, call.to_string()).await
    }

    async fn count(&self, sweep: &SweepId, fields: &[(String, i64)]) -> Result<(), StoreError> {
        let sweep = sweep.clone();
        let fields = fields.to_vec();
        self.blocking("count", move |db| {
            let txn = db.begin_write()?;
            add(&txn, &sweep, &fields)?;
            txn.commit()?;
            Ok(())
        })
        .await
    }

    // One process owns the file: its gateway's single flight is the lease.
    async fn lease(&self, _call: &str, _ttl: std::time::Duration) -> Result<bool, StoreError> {
        Ok(true)
    }

    async fn end_lease(&self, _call: &str) -> Result<(), StoreError> {
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
        let call = call.to_string();
        let charge_key = key(sweep, &call);
        let sweep = sweep.clone();
        let fields = Tally::charge_fields(usage, cost_usd);
        // A response means the provider answered (and billed) this call.
        let billed = billed(response, usage, cost_usd);
        let response = response.map(<[u8]>::to_vec);
        self.blocking("charge", move |db| {
            let txn = db.begin_write()?;
            if let Some(resp) = &response {
                let mut cache = txn.open_table(CACHE)?;
                if cache.get(call.as_str())?.is_none() {
                    cache.insert(call.as_str(), resp.as_slice())?;
                }
            }
            add(&txn, &sweep, &billed)?;
            let first = {
                let mut charges = txn.open_table(CHARGES)?;
                let previous = charges.insert(charge_key.as_str(), 1)?;
                previous.is_none()
            };
            if first {
                add(&txn, &sweep, &fields)?;
            }
            txn.commit()?;
            Ok(Recorded::first_if(first))
        })
        .await
    }

    async fn shelve(
        &self,
        sweep: &SweepId,
        shelf: &str,
        k: &str,
        value: &[u8],
    ) -> Result<Recorded, StoreError> {
        let k = key(sweep, &format!("{shelf}{SEP}{k}"));
        let value = value.to_vec();
        self.blocking("shelve", move |db| {
            let txn = db.begin_write()?;
            let first = {
                let mut t = txn.open_table(SHELVES)?;
                let first = t.get(k.as_str())?.is_none();
                if first {
                    t.insert(k.as_str(), value.as_slice())?;
                }
                first
            };
            txn.commit()?;
            Ok(Recorded::first_if(first))
        })
        .await
    }

    async fn shelf(
        &self,
        sweep: &SweepId,
        shelf: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let prefix = key(sweep, &format!("{shelf}{SEP}"));
        self.blocking("shelf", move |db| {
            let txn = db.begin_read()?;
            let t = txn.open_table(SHELVES)?;
            let mut out = Vec::new();
            for row in t.range(prefix.as_str()..)? {
                let (k, v) = row?;
                let Some(field) = k.value().strip_prefix(prefix.as_str()) else {
                    break;
                };
                out.push((field.to_string(), v.value().to_vec()));
            }
            Ok(out)
        })
        .await
    }
}
