//! Embedding calls and top-t ad retrieval. The worker caches embeddings by
//! text hash; on top of that the ad database's vectors are kept in memory
//! per embedding model, so a worker embeds (or fetches) the 6.5k ads once,
//! not once per job.

use super::metrics::cosine;
use crate::llm::{Embedder, LlmError};
use adfarm_proto::Usage;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::OnceCell;

/// Texts per embedding call.
pub const EMBED_BATCH: usize = 128;

/// Embeds `texts` in batches of [`EMBED_BATCH`], in order.
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
    for chunk in texts.chunks(EMBED_BATCH) {
        let e = embedder.embed(chunk).await?;
        if e.vectors.len() != chunk.len() {
            return Err(LlmError::Malformed(format!(
                "embedder returned {} vectors for {} texts",
                e.vectors.len(),
                chunk.len()
            )));
        }
        vectors.extend(e.vectors);
        usage.push(e.usage);
    }
    Ok((vectors, usage))
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

/// In-memory vectors of a fixed text list (the ad database), per model,
/// computed once per process: concurrent jobs that need the same index wait
/// for the one embedding it rather than each embedding it again.
///
/// The index is built once, like a vector store, so its tokens are not part
/// of any one response's cost; the gateway still meters the calls, and the
/// sweep's usage totals count them once (per distinct request), the same in
/// every deployment.
#[derive(Default)]
pub struct IndexCache {
    by_key: Mutex<HashMap<String, Arc<OnceCell<Arc<Vec<Vec<f32>>>>>>>,
}

impl IndexCache {
    /// Vectors of `texts` under `embedder`, from memory after the first call.
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
        let cell = self.lock().entry(key).or_default().clone();
        let v = cell
            .get_or_try_init(|| async {
                embed_all(embedder, texts)
                    .await
                    .map(|(vectors, _usage)| Arc::new(vectors))
            })
            .await?;
        Ok(v.clone())
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, Arc<OnceCell<Arc<Vec<Vec<f32>>>>>>> {
        self.by_key.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
