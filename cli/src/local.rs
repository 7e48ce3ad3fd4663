//! Local models for providers of kind `local`: the pinned assets are fetched
//! on first use, and each model is loaded once per process and shared by
//! every provider and job that names it.

use adfarm_llm::LlmError;
use adfarm_models::assets::{self, AssetName};
use adfarm_models::{LocalEmbedder, LocalLlm};
use adfarm_proto::ProviderSpec;
use adfarm_worker::backends::{LocalLoader, Models};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Model names a `local` provider may use.
pub const GENERATOR: &str = "smollm2-135m-instruct";
/// The local embedder's name.
pub const EMBEDDER: &str = "all-minilm-l6-v2";

#[derive(Default)]
struct Loaded {
    llm: Option<Arc<LocalLlm>>,
    embedder: Option<Arc<LocalEmbedder>>,
}

/// A loader for the worker's backends, fetching assets into `home`.
pub fn loader(home: PathBuf) -> LocalLoader {
    let loaded = Arc::new(Mutex::new(Loaded::default()));
    Arc::new(move |spec: &ProviderSpec| {
        let mut loaded = loaded.lock().expect("model lock is never poisoned");
        let config = |e: &dyn std::fmt::Display| LlmError::Config(e.to_string());
        match spec.model.to_ascii_lowercase().as_str() {
            GENERATOR => {
                if loaded.llm.is_none() {
                    announce(assets::ensure(&home, &[AssetName::SmolLm2]).map_err(|e| config(&e))?);
                    let llm =
                        LocalLlm::load(&assets::generator_gguf(&home)).map_err(|e| config(&e))?;
                    loaded.llm = Some(Arc::new(llm));
                }
                let llm = loaded.llm.clone().expect("loaded above");
                Ok(Models {
                    chat: Some(llm),
                    embed: None,
                })
            }
            EMBEDDER => {
                if loaded.embedder.is_none() {
                    announce(assets::ensure(&home, &[AssetName::MiniLm]).map_err(|e| config(&e))?);
                    let e = LocalEmbedder::load(&assets::embedder_dir(&home))
                        .map_err(|e| config(&e))?;
                    loaded.embedder = Some(Arc::new(e));
                }
                let e = loaded.embedder.clone().expect("loaded above");
                Ok(Models {
                    chat: None,
                    embed: Some(e),
                })
            }
            other => Err(LlmError::Config(format!(
                "no local model named {other:?}; valid: {GENERATOR}, {EMBEDDER}"
            ))),
        }
    })
}

/// Tells the user when a first use downloaded an asset.
fn announce(fetched: Vec<assets::FetchedAsset>) {
    for a in fetched.iter().filter(|a| a.downloaded) {
        eprintln!(
            "fetched {} ({} bytes) into {}",
            a.name.pin().requirement(),
            a.bytes,
            a.dir.display()
        );
    }
}

/// `adfarm assets fetch`.
///
/// # Errors
/// When pip or the registry is unavailable (the error says what to run).
pub fn fetch(home: &std::path::Path, names: &[String]) -> anyhow::Result<()> {
    let which = parse(names)?;
    for a in assets::fetch(home, &which)? {
        let what = if a.downloaded { "fetched" } else { "present" };
        println!(
            "{what:<8} {:<10} {:>10} bytes  {}",
            a.name.as_str(),
            a.bytes,
            a.dir.display()
        );
    }
    Ok(())
}

/// `adfarm assets list`.
///
/// # Errors
/// When the asset directory cannot be read.
pub fn list(home: &std::path::Path) -> anyhow::Result<()> {
    for a in assets::list(home)? {
        println!(
            "{} ({}) in {}",
            a.requirement,
            if a.ok() { "ok" } else { "incomplete" },
            a.dir.display()
        );
        for f in &a.files {
            let size = f
                .size
                .map_or("missing".to_string(), |s| format!("{s} bytes"));
            let sha = f.sha256.as_deref().unwrap_or("-");
            println!(
                "  {} {:<60} {size:>16}  sha256 {sha}",
                if f.ok { "ok " } else { "BAD" },
                f.path
            );
        }
    }
    Ok(())
}

fn parse(names: &[String]) -> anyhow::Result<Vec<AssetName>> {
    if names.is_empty() {
        return Ok(AssetName::ALL.to_vec());
    }
    names
        .iter()
        .map(|n| {
            AssetName::parse(n).ok_or_else(|| {
                let valid: Vec<&str> = AssetName::ALL.iter().map(|a| a.as_str()).collect();
                anyhow::anyhow!("unknown asset {n:?}; valid: {}", valid.join(", "))
            })
        })
        .collect()
}
