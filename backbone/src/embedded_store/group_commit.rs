//! Group commit of results: one thread writes every result that arrived
//! while the previous transaction was committing in one durable redb
//! transaction, then answers each. A result is acknowledged only after
//! the transaction holding it has committed (fsync), so a `kill -9` still
//! loses nothing that was reported recorded; the rate rises because one
//! fsync serves many results.
//!
//! Within a group, a result whose job is already stored, by an earlier
//! transaction or earlier in the same group, is a duplicate: the group
//! sees its own writes. A transaction that fails answers every result of
//! its group with the error (none of them was stored).

use super::{add, backend, FAILURES, RESULTS};
use crate::store::{Recorded, StoreError};
use adfarm_proto::tally::Tally;
use adfarm_proto::{Failure, SweepId};
use redb::{Database, ReadableTable};
use std::sync::mpsc;
use std::sync::{Arc, Weak};
use tokio::sync::oneshot;

/// Results one transaction holds at most: bounds a transaction's size and
/// the wait of the first result of a burst.
pub const MAX_GROUP: usize = 512;

/// One result waiting for a group.
struct Pending {
    sweep: SweepId,
    key: String,
    bytes: Vec<u8>,
    fields: Vec<(String, i64)>,
    reply: oneshot::Sender<Result<Recorded, StoreError>>,
}

/// The committer's door: cloned with the store, the thread ends when the
/// last clone is dropped.
#[derive(Clone)]
pub struct Committer {
    tx: mpsc::Sender<Pending>,
}

impl Committer {
    /// Starts the committing thread for `db`. It holds the database weakly,
    /// so dropping the store closes the file as before.
    ///
    /// # Errors
    /// When the thread cannot be started.
    pub fn start(db: &Arc<Database>) -> Result<Committer, StoreError> {
        let (tx, rx) = mpsc::channel::<Pending>();
        let db = Arc::downgrade(db);
        std::thread::Builder::new()
            .name("adfarm-store-commit".into())
            .spawn(move || run(&db, &rx))
            .map_err(|e| {
                StoreError::Unavailable(format!("cannot start the store's writer: {e}"))
            })?;
        Ok(Committer { tx })
    }

    /// Stores `bytes` under `key` unless a result is there, adding `fields`
    /// to the sweep's tally (and clearing a failure of the same job), once
    /// its group has committed.
    ///
    /// # Errors
    /// The group's transaction failed, or the writer is gone.
    pub async fn record(
        &self,
        sweep: SweepId,
        key: String,
        bytes: Vec<u8>,
        fields: Vec<(String, i64)>,
    ) -> Result<Recorded, StoreError> {
        let (reply, answer) = oneshot::channel();
        let gone = || StoreError::Unavailable("the store's writer stopped".into());
        self.tx
            .send(Pending {
                sweep,
                key,
                bytes,
                fields,
                reply,
            })
            .map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }
}

/// Takes what is waiting, up to [`MAX_GROUP`], commits it as one
/// transaction and answers each, until every sender is gone.
fn run(db: &Weak<Database>, rx: &mpsc::Receiver<Pending>) {
    while let Ok(first) = rx.recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(p) => group.push(p),
                Err(_) => break,
            }
        }
        let outcome = match db.upgrade() {
            Some(db) => commit(&db, &mut group).map_err(backend("record")),
            None => Err(StoreError::Unavailable("the store was closed".into())),
        };
        match outcome {
            Ok(each) => {
                for (p, r) in group.into_iter().zip(each) {
                    let _ = p.reply.send(Ok(r));
                }
            }
            Err(e) => {
                for p in group {
                    let _ = p.reply.send(Err(e.clone()));
                }
            }
        }
    }
}

/// Writes a group in one transaction; what each result came to.
fn commit(db: &Database, group: &mut [Pending]) -> Result<Vec<Recorded>, redb::Error> {
    let txn = db.begin_write()?;
    let mut each = Vec::with_capacity(group.len());
    for p in group.iter_mut() {
        {
            let mut results = txn.open_table(RESULTS)?;
            if results.get(p.key.as_str())?.is_some() {
                each.push(Recorded::Duplicate);
                continue;
            }
            results.insert(p.key.as_str(), p.bytes.as_slice())?;
            let mut failures = txn.open_table(FAILURES)?;
            let cleared = failures.remove(p.key.as_str())?.map(|g| g.value().to_vec());
            if let Some(old) = cleared {
                if let Ok(f) = serde_json::from_slice::<Failure>(&old) {
                    p.fields
                        .extend(Tally::failure_fields(&f).into_iter().map(|(f, v)| (f, -v)));
                }
            }
        }
        add(&txn, &p.sweep, &p.fields)?;
        each.push(Recorded::New);
    }
    txn.commit()?;
    Ok(each)
}
