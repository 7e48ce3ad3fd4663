//! Embedding calls and top-t ad retrieval. The worker caches embeddings by
//! text hash; on top of that the ad database's vectors are kept in memory
//! per embedding model, so a worker embeds (or fetches) the 6.5k ads once,
//! not once per job.

use super::metrics::cosine;
use adfarm_llm::{Embedder, LlmError};
use adfarm_proto::Usage;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::OnceCell;

/// Texts per embedding call.
pub const EMBED_BATCH: usize = 128;

/// Embedding calls in flight at once while embedding a long list (the ad
/// index: 52 batches). The worker's gateway still holds every call to the
/// model's rate limits; this only stops one list from waiting on each
/// round trip in turn.
pub const EMBED_CONCURRENCY: usize = 8;

/// Embeds `texts` in batches of [`EMBED_BATCH`], [`EMBED_CONCURRENCY`]
/// batches at once, the results in order (the batches are the same
/// whatever the concurrency, so the vectors are too).
///
/// # Errors
/// The embedder's failures, or [`LlmError::Malformed`] when it returns a
/// different number of vectors than texts.
pub async fn embed_all(
    embedder: &dyn Embedder,
    texts: &[String],
) -> Result<(Vec<Vec<f32>>, Vec<Usage>), LlmError> {
    let mut vectors = Vec::with_capacity(texts.len());
    let mut usage = Vec::new();
    for window in texts.chunks(EMBED_BATCH * EMBED_CONCURRENCY) {
        let chunks: Vec<&[String]> = window.chunks(EMBED_BATCH).collect();
        let answers =
            futures::future::try_join_all(chunks.iter().map(|chunk| embedder.embed(chunk))).await?;
        for (chunk, e) in chunks.iter().zip(answers) {
            check_count(chunk.len(), &e)?;
            vectors.extend(e.vectors);
            usage.push(e.usage);
        }
    }
    Ok((vectors, usage))
}

/// [`LlmError::Malformed`] unless `e` holds one vector per text asked.
fn check_count(asked: usize, e: &adfarm_llm::Embeddings) -> Result<(), LlmError> {
    if e.vectors.len() != asked {
        return Err(LlmError::Malformed(format!(
            "embedder returned {} vectors for {} texts",
            e.vectors.len(),
            asked
        )));
    }
    Ok(())
}

/// Indices and similarities of the `t` pool vectors most similar to
/// `query`, best first; ties keep pool order (deterministic).
pub fn top_t(query: &[f32], pool: &[Vec<f32>], t: usize) -> Vec<(usize, f64)> {
    let mut scored: Vec<(usize, f64)> = pool
        .iter()
        .enumerate()
        .map(|(i, v)| (i, cosine(query, v)))
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(t);
    scored
}

/// Vectors of a fixed text list (the ad database) per embedding model,
/// computed once per process: concurrent jobs that need the same index wait
/// for the one embedding it rather than each embedding it again. With a
/// directory the vectors are also kept on disk, so later runs, sweeps and
/// worker processes on the machine load them instead of re-embedding 6.5k
/// ads (about 168k tokens for the local MiniLM).
///
/// The index is built once, like a vector store, so its tokens are not part
/// of any one response's cost; the calls that build it are metered as usual.
#[derive(Default)]
pub struct IndexCache {
    by_key: Mutex<HashMap<String, IndexSlot>>,
    dir: Option<PathBuf>,
}

/// One index, filled by the first caller while the others wait.
type IndexSlot = Arc<OnceCell<Arc<Vec<Vec<f32>>>>>;

/// First bytes of an index file: format name and version.
const INDEX_MAGIC: &[u8; 8] = b"ADFIDX1\n";

impl IndexCache {
    /// A cache that also keeps indexes as files in `dir` when given.
    pub fn new(dir: Option<PathBuf>) -> IndexCache {
        IndexCache {
            by_key: Mutex::default(),
            dir,
        }
    }

    /// Vectors of `texts` under `embedder`: from memory, else from disk,
    /// else embedded (and then kept).
    ///
    /// # Errors
    /// The embedder's failures (a failed build is retried by the next call).
    pub async fn vectors(
        &self,
        embedder: &dyn Embedder,
        texts: &[String],
    ) -> Result<Arc<Vec<Vec<f32>>>, LlmError> {
        let mut h = blake3::Hasher::new();
        h.update(embedder.model().as_bytes());
        for t in texts {
            h.update(&(t.len() as u64).to_le_bytes());
            h.update(t.as_bytes());
        }
        let key = h.finalize().to_hex().to_string();
        let cell = self.lock().entry(key.clone()).or_default().clone();
        let v = cell
            .get_or_try_init(|| async {
                let file = self.dir.as_ref().map(|d| d.join(format!("{key}.f32")));
                if let Some(v) = file.as_deref().and_then(|f| read_index(f, texts.len())) {
                    return Ok(Arc::new(v));
                }
                let (vectors, _usage) = embed_all(embedder, texts).await?;
                if let Some(f) = &file {
                    // Best effort: without the file the next run embeds again.
                    if let Err(e) = write_index(f, &vectors) {
                        unwritable_cache(f, &e);
                    }
                }
                Ok(Arc::new(vectors))
            })
            .await?;
        Ok(v.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, IndexSlot>> {
        self.by_key.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Says once per process that the index cache cannot be written (a
/// read-only or full disk), then carries on without it. True when it spoke.
fn unwritable_cache(path: &Path, e: &std::io::Error) -> bool {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return false;
    }
    tracing::warn!(
        path = %path.display(),
        error = %e,
        "Cannot write the ad index cache; carrying on without it (each run embeds the ads again)."
    );
    true
}

/// The vectors in `path` if it is a whole index of `n` vectors.
fn read_index(path: &Path, n: usize) -> Option<Vec<Vec<f32>>> {
    let bytes = std::fs::read(path).ok()?;
    let body = bytes.strip_prefix(INDEX_MAGIC.as_slice())?;
    let (count, body) = body.split_first_chunk::<8>()?;
    let (dim, body) = body.split_first_chunk::<8>()?;
    let (count, dim) = (
        u64::from_le_bytes(*count) as usize,
        u64::from_le_bytes(*dim) as usize,
    );
    if count != n || dim == 0 || body.len() != count.checked_mul(dim)?.checked_mul(4)? {
        return None;
    }
    let floats: Vec<f32> = body
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Some(floats.chunks_exact(dim).map(<[f32]>::to_vec).collect())
}

/// Writes `vectors` to `path` whole or not at all (temporary file, rename).
fn write_index(path: &Path, vectors: &[Vec<f32>]) -> std::io::Result<()> {
    let dim = vectors.first().map_or(0, Vec::len);
    if dim == 0 || vectors.iter().any(|v| v.len() != dim) {
        return Ok(());
    }
    let mut bytes = Vec::with_capacity(24 + vectors.len() * dim * 4);
    bytes.extend_from_slice(INDEX_MAGIC);
    bytes.extend_from_slice(&(vectors.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&(dim as u64).to_le_bytes());
    for x in vectors.iter().flatten() {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, &bytes)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unwritable_cache_is_reported_once() {
        // Under a file, so the directory cannot exist (even for root).
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("a-file");
        std::fs::write(&blocker, "x").unwrap();
        let path = blocker.join("index.f32");
        let e = write_index(&path, &[vec![1.0, 2.0]]).expect_err("cannot be written");
        assert!(unwritable_cache(&path, &e), "the first failure is reported");
        assert!(!unwritable_cache(&path, &e), "and only the first");
    }

    #[test]
    fn top_t_orders_by_similarity_then_pool_order() {
        let pool = vec![
            vec![0.0, 1.0],
            vec![1.0, 0.0],
            vec![1.0, 1.0],
            vec![1.0, 0.0],
        ];
        let got: Vec<usize> = top_t(&[1.0, 0.0], &pool, 3)
            .into_iter()
            .map(|x| x.0)
            .collect();
        assert_eq!(got, [1, 3, 2]);
        assert!(top_t(&[1.0, 0.0], &[], 5).is_empty());
    }

    struct Counting(Mutex<usize>);

    #[async_trait::async_trait]
    impl Embedder for Counting {
        fn model(&self) -> &str {
            "counting"
        }

        async fn embed(&self, texts: &[String]) -> Result<adfarm_llm::Embeddings, LlmError> {
            *self.0.lock().unwrap() += 1;
            Ok(adfarm_llm::Embeddings {
                vectors: texts
                    .iter()
                    .map(|t| vec![t.len() as f32, 0.1, -1.0 / 3.0])
                    .collect(),
                usage: Usage {
                    model: "counting".into(),
                    role: adfarm_proto::Role::Embedding,
                    input: texts.len() as u64,
                    output: 0,
                    cached: false,
                    source: adfarm_proto::UsageSource::Counted,
                    latency_ms: 0,
                },
            })
        }
    }

    #[tokio::test]
    async fn an_index_on_disk_is_loaded_by_the_next_process_bit_for_bit() {
        let dir = std::env::temp_dir().join(format!("adfarm-index-test-{}", std::process::id()));
        let texts: Vec<String> = (0..300).map(|i| format!("ad {i}")).collect();
        let e = Counting(Mutex::new(0));
        let built = IndexCache::new(Some(dir.clone()))
            .vectors(&e, &texts)
            .await
            .unwrap();
        assert_eq!(*e.0.lock().unwrap(), 3, "300 texts in batches of 128");
        let loaded = IndexCache::new(Some(dir.clone()))
            .vectors(&e, &texts)
            .await
            .unwrap();
        assert_eq!(*e.0.lock().unwrap(), 3, "read from disk, not embedded");
        assert_eq!(built, loaded);
        // A damaged or foreign file is ignored and rewritten.
        let file = std::fs::read_dir(&dir)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let whole = std::fs::read(&file).unwrap();
        std::fs::write(&file, &whole[..whole.len() - 4]).unwrap();
        assert!(read_index(&file, 300).is_none());
        let again = IndexCache::new(Some(dir.clone()))
            .vectors(&e, &texts)
            .await
            .unwrap();
        assert_eq!(*e.0.lock().unwrap(), 6);
        assert_eq!(again, built);
        assert!(read_index(&file, 300).is_some());
        assert!(read_index(&file, 299).is_none(), "count must match");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Counts calls in flight; each call yields to the scheduler several
    /// times before answering, so overlapping calls overlap.
    struct Overlapping {
        in_flight: Mutex<(usize, usize)>,
    }

    #[async_trait::async_trait]
    impl Embedder for Overlapping {
        fn model(&self) -> &str {
            "overlapping"
        }

        async fn embed(&self, texts: &[String]) -> Result<adfarm_llm::Embeddings, LlmError> {
            {
                let mut f = self.in_flight.lock().unwrap();
                f.0 += 1;
                f.1 = f.1.max(f.0);
            }
            for _ in 0..4 {
                tokio::task::yield_now().await;
            }
            self.in_flight.lock().unwrap().0 -= 1;
            Counting(Mutex::new(0)).embed(texts).await
        }
    }

    #[tokio::test]
    async fn a_long_list_is_embedded_in_concurrent_batches_and_comes_back_in_order() {
        let texts: Vec<String> = (0..EMBED_BATCH * 20 + 5)
            .map(|i| "x".repeat(i % 97))
            .collect();
        let e = Overlapping {
            in_flight: Mutex::new((0, 0)),
        };
        let (vectors, usage) = embed_all(&e, &texts).await.unwrap();
        let most = e.in_flight.lock().unwrap().1;
        assert_eq!(most, EMBED_CONCURRENCY, "batches overlap up to the bound");
        assert_eq!(usage.len(), 21);
        let (without_overlap, _) = embed_all(&Counting(Mutex::new(0)), &texts).await.unwrap();
        assert_eq!(vectors, without_overlap);
        assert!(vectors
            .iter()
            .zip(&texts)
            .all(|(v, t)| v[0] == t.len() as f32));
    }
}
