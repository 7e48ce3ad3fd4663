//! The court's records on the store's shelves: invitations, reviews and
//! judges' pair verdicts, each written once.

use super::ReviewError;
use adfarm_backbone::{Recorded, Store};
use adfarm_proto::review::{PairVerdict, Review, Reviewer, PAIR_VERDICTS, REVIEWERS, REVIEWS};
use adfarm_proto::SweepId;

/// A new reviewer and the token that lets them in (shown once, never
/// stored).
#[derive(Debug, Clone)]
pub struct Invitation {
    /// The stored reviewer.
    pub reviewer: Reviewer,
    /// The access token (64 hex digits).
    pub token: String,
}

/// The hash a token is stored and looked up by.
pub fn token_hash(token: &str) -> String {
    blake3::hash(token.as_bytes()).to_hex().to_string()
}

fn random_hex(bytes: usize) -> Result<String, ReviewError> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| ReviewError::Random(e.to_string()))?;
    Ok(hex::encode(buf))
}

/// Unix seconds now (invitation and review timestamps).
pub(crate) fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Invites `name` to review sweep `sweep` (to its dashboard when `admin`):
/// stores the reviewer with a fresh random id and the hash of a fresh
/// random token.
///
/// # Errors
/// An empty name, no randomness, or a store failure.
pub async fn invite(
    store: &dyn Store,
    sweep: &SweepId,
    name: &str,
    admin: bool,
) -> Result<Invitation, ReviewError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ReviewError::Input("a reviewer needs a name".into()));
    }
    loop {
        let token = random_hex(32)?;
        let reviewer = Reviewer {
            id: format!("rv-{}", random_hex(4)?),
            name: name.to_string(),
            token_hash: token_hash(&token),
            admin,
            invited_unix: now_unix(),
        };
        let bytes = serde_json::to_vec(&reviewer).expect("reviewer serialises");
        // A drawn id that is taken (one in four billion) draws again.
        if store.shelve(sweep, REVIEWERS, &reviewer.id, &bytes).await? == Recorded::New {
            return Ok(Invitation { reviewer, token });
        }
    }
}

fn decode<T: serde::de::DeserializeOwned>(
    shelf: &str,
    rows: Vec<(String, Vec<u8>)>,
) -> Result<Vec<T>, ReviewError> {
    rows.into_iter()
        .map(|(k, v)| {
            serde_json::from_slice(&v).map_err(|e| ReviewError::Corrupt {
                key: format!("{shelf}/{k}"),
                reason: e.to_string(),
            })
        })
        .collect()
}

/// Every reviewer of the sweep, by id.
///
/// # Errors
/// A store failure or a corrupt record.
pub async fn reviewers(store: &dyn Store, sweep: &SweepId) -> Result<Vec<Reviewer>, ReviewError> {
    decode(REVIEWERS, store.shelf(sweep, REVIEWERS).await?)
}

/// The reviewer holding `token`, if any.
///
/// # Errors
/// A store failure or a corrupt record.
pub async fn holder(
    store: &dyn Store,
    sweep: &SweepId,
    token: &str,
) -> Result<Option<Reviewer>, ReviewError> {
    let hash = token_hash(token);
    Ok(reviewers(store, sweep)
        .await?
        .into_iter()
        .find(|r| r.token_hash == hash))
}

/// Every review of the sweep, by task then reviewer.
///
/// # Errors
/// A store failure or a corrupt record.
pub async fn reviews(store: &dyn Store, sweep: &SweepId) -> Result<Vec<Review>, ReviewError> {
    decode(REVIEWS, store.shelf(sweep, REVIEWS).await?)
}

/// Stores `review` unless its reviewer already reviewed its task.
///
/// # Errors
/// A store failure.
pub async fn file(
    store: &dyn Store,
    sweep: &SweepId,
    review: &Review,
) -> Result<Recorded, ReviewError> {
    let bytes = serde_json::to_vec(review).expect("review serialises");
    Ok(store
        .shelve(
            sweep,
            REVIEWS,
            &Review::key(&review.task, &review.reviewer),
            &bytes,
        )
        .await?)
}

/// Every judge verdict on the sweep's pairs.
///
/// # Errors
/// A store failure or a corrupt record.
pub async fn pair_verdicts(
    store: &dyn Store,
    sweep: &SweepId,
) -> Result<Vec<PairVerdict>, ReviewError> {
    decode(PAIR_VERDICTS, store.shelf(sweep, PAIR_VERDICTS).await?)
}

/// Stores a judge's verdict on a pair in one order.
///
/// # Errors
/// A store failure.
pub async fn file_verdict(
    store: &dyn Store,
    sweep: &SweepId,
    v: &PairVerdict,
) -> Result<Recorded, ReviewError> {
    let bytes = serde_json::to_vec(v).expect("verdict serialises");
    Ok(store
        .shelve(
            sweep,
            PAIR_VERDICTS,
            &PairVerdict::key(&v.task, &v.judge, v.marked_first),
            &bytes,
        )
        .await?)
}
