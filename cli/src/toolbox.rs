//! What suite commands ask for (`adfarm <suite> <command>`): models by the
//! names a user types (the local models, fetched on first use, or an
//! OpenAI-compatible endpoint as `BASE_URL#MODEL`), and a sweep's stored
//! results from the store the command's `--store`, `--redis` and
//! `--prefix` name.

use crate::args::Backend;
use crate::local::{EMBEDDER, GENERATOR};
use adfarm_llm::{Embedder, LlmError, Provider};
use adfarm_models::assets;
use adfarm_models::{LocalEmbedder, LocalLlm};
use adfarm_proto::Role;
use adfarm_suites::{CommandError, StoredSweep, SuiteContext, Toolbox};
use adfarm_worker::openai::{OpenAiClient, Secret};
use async_trait::async_trait;
use std::path::PathBuf;
use std::time::Duration;

/// Local models under `home`, remote ones by URL; the store `backend`
/// names.
pub struct Models {
    /// AdFarm home (assets are fetched into `<home>/assets`).
    pub home: PathBuf,
    /// The suites' data, to read a sweep file named on the command line.
    pub ctx: SuiteContext,
    /// The store's flags as given to the command.
    pub backend: Backend,
}

fn config(e: impl std::fmt::Display) -> LlmError {
    LlmError::Config(e.to_string())
}

#[async_trait]
impl Toolbox for Models {
    async fn chat_model(
        &self,
        name: &str,
        api_key: Option<&str>,
        role: Role,
    ) -> Result<Box<dyn Provider>, LlmError> {
        if name.eq_ignore_ascii_case(GENERATOR) {
            crate::local::announce(
                assets::ensure(&self.home, &[&assets::SMOLLM2]).map_err(config)?,
            );
            let llm = LocalLlm::load(&assets::generator_gguf(&self.home)).map_err(config)?;
            return Ok(Box::new(llm.with_role(role)));
        }
        let Some((url, model)) = name.rsplit_once('#') else {
            return Err(config(format!(
                "{name:?}: use {GENERATOR} or an OpenAI-compatible BASE_URL#MODEL"
            )));
        };
        if model.is_empty() {
            return Err(config(format!("{name:?}: the model after '#' is empty")));
        }
        let client = OpenAiClient::new(
            url,
            model,
            api_key.map(Secret::new),
            Duration::from_secs(120),
        )?;
        Ok(Box::new(client.with_role(role)))
    }

    async fn embedder(&self) -> Result<(Box<dyn Embedder>, String), LlmError> {
        crate::local::announce(assets::ensure(&self.home, &[&assets::MINILM]).map_err(config)?);
        let e = LocalEmbedder::load(&assets::embedder_dir(&self.home)).map_err(config)?;
        Ok((Box::new(e), EMBEDDER.to_string()))
    }

    async fn stored(&self, sweep: Option<&str>) -> Result<Vec<StoredSweep>, CommandError> {
        let input = |e: anyhow::Error| CommandError::Input(format!("{e:#}"));
        let store = crate::inspect::open(&self.home, &self.backend)
            .await
            .map_err(input)?;
        let records = match sweep {
            Some(which) => vec![crate::inspect::find(store.as_ref(), &self.ctx, which)
                .await
                .map_err(input)?],
            None => {
                let mut all = store.sweeps().await.map_err(|e| input(e.into()))?;
                all.sort_by_key(|r| r.created_unix);
                all
            }
        };
        let mut out = Vec::with_capacity(records.len());
        for r in records {
            let results = store.results(&r.id).await.map_err(|e| input(e.into()))?;
            out.push(StoredSweep {
                id: r.id.0,
                spec: r.spec,
                results,
            });
        }
        Ok(out)
    }

    async fn sweep_ids(&self) -> Result<Vec<String>, CommandError> {
        let input = |e: anyhow::Error| CommandError::Input(format!("{e:#}"));
        let store = crate::inspect::open(&self.home, &self.backend)
            .await
            .map_err(input)?;
        let mut all = store.sweeps().await.map_err(|e| input(e.into()))?;
        all.sort_by_key(|r| std::cmp::Reverse(r.created_unix));
        Ok(all.into_iter().map(|r| r.id.0).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn chat_models_are_the_local_model_or_url_hash_model() {
        let models = Models {
            home: "/nonexistent".into(),
            ctx: SuiteContext::default(),
            backend: Backend {
                redis: None,
                store: None,
                prefix: "adfarm".into(),
            },
        };
        let err = |j: &'static str| {
            let models = &models;
            async move {
                match models.chat_model(j, None, Role::Judge).await {
                    Ok(_) => panic!("{j} accepted"),
                    Err(e) => e.to_string(),
                }
            }
        };
        assert!(err("gpt-4o").await.contains("BASE_URL#MODEL"));
        assert!(err("http://localhost:8000/v1#").await.contains("empty"));
        assert!(err("ftp://host/v1#m").await.contains("http or https"));
        // A remote model is only a client until it is called.
        assert!(models
            .chat_model("http://127.0.0.1:1/v1#judge-1", Some("k"), Role::Judge)
            .await
            .is_ok());
    }
}
