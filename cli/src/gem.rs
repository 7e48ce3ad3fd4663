//! `adfarm gem score`: GEM-Bench metrics of one response, outside a sweep,
//! for users checking a single answer and for debugging a metric.
//!
//! The embedder is always the local all-MiniLM-L6-v2 (fetched on first
//! use). `--judge` names either the local `smollm2-135m-instruct` or an
//! OpenAI-compatible endpoint as `BASE_URL#MODEL`
//! (e.g. `https://api.openai.com/v1#gpt-4o-mini`), whose key comes from
//! `--api-key` or `OPENAI_API_KEY`.

use crate::args::GemScore;
use crate::local::GENERATOR;
use adfarm_gem::judge::{AdView, Protocol};
use adfarm_gem::scoring::score_response;
use adfarm_llm::Provider;
use adfarm_models::assets::{self, AssetName};
use adfarm_models::{LocalEmbedder, LocalLlm};
use adfarm_proto::Role;
use adfarm_worker::openai::{OpenAiClient, Secret};
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::time::Duration;

/// A judge as `--judge` names it.
fn judge_provider(home: &Path, judge: &str, api_key: Option<&str>) -> Result<Box<dyn Provider>> {
    if judge.eq_ignore_ascii_case(GENERATOR) {
        assets::ensure(home, &[AssetName::SmolLm2])?;
        let llm = LocalLlm::load(&assets::generator_gguf(home))?;
        return Ok(Box::new(llm.with_role(Role::Judge)));
    }
    let Some((url, model)) = judge.rsplit_once('#') else {
        bail!("--judge {judge:?}: use {GENERATOR} or an OpenAI-compatible BASE_URL#MODEL")
    };
    if model.is_empty() {
        bail!("--judge {judge:?}: the model after '#' is empty");
    }
    let client = OpenAiClient::new(
        url,
        model,
        api_key.map(Secret::new),
        Duration::from_secs(120),
    )?;
    Ok(Box::new(client.with_role(Role::Judge)))
}

/// `adfarm gem score`.
///
/// # Errors
/// When the response file cannot be read, the assets cannot be fetched or
/// loaded, or a model call fails.
pub async fn score(home: &Path, a: GemScore) -> Result<()> {
    let response = std::fs::read_to_string(&a.response)
        .with_context(|| format!("cannot read {}", a.response.display()))?;
    let protocol = Protocol::parse(&a.protocol)?;
    let ad = match (&a.ad_name, &a.ad_url) {
        (None, None) => None,
        (name, url) => Some(AdView {
            name: name.clone().unwrap_or_default(),
            url: url.clone().unwrap_or_default(),
        }),
    };
    assets::ensure(home, &[AssetName::MiniLm])?;
    let embedder = LocalEmbedder::load(&assets::embedder_dir(home))?;
    let judge = match &a.judge {
        Some(j) => Some(judge_provider(home, j, a.api_key.as_deref())?),
        None => None,
    };
    let report = score_response(
        &a.query,
        &response,
        ad.as_ref(),
        Some(&embedder),
        judge.as_deref().map(|j| (j, protocol)),
    )
    .await?;
    // The inputs first, then the report's fields (sentences, ad_sentences,
    // metrics, judge), so the output is self-describing.
    let mut printed = serde_json::json!({
        "query": a.query,
        "ad": ad.as_ref().map(|ad| serde_json::json!({ "name": ad.name, "url": ad.url })),
        "embedder": crate::local::EMBEDDER,
        "judge_model": a.judge.as_deref().map(|j| j.rsplit('#').next().unwrap_or(j)),
        "judge_protocol": a.judge.as_ref().map(|_| protocol.as_str()),
    });
    if let (Some(obj), serde_json::Value::Object(rest)) =
        (printed.as_object_mut(), serde_json::to_value(&report)?)
    {
        obj.extend(rest);
    }
    println!("{}", serde_json::to_string_pretty(&printed)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judges_are_the_local_model_or_url_hash_model() {
        let home = Path::new("/nonexistent");
        let err = |j: &str| match judge_provider(home, j, None) {
            Ok(_) => panic!("{j} accepted"),
            Err(e) => e.to_string(),
        };
        assert!(err("gpt-4o").contains("BASE_URL#MODEL"));
        assert!(err("http://localhost:8000/v1#").contains("empty"));
        assert!(err("ftp://host/v1#m").contains("http or https"));
        // A remote judge is only a client until it is called.
        assert!(judge_provider(home, "http://127.0.0.1:1/v1#judge-1", Some("k")).is_ok());
    }
}
