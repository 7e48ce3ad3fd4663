//! Local models for providers of kind `local`: the pinned assets are fetched
//! on first use, and each model is loaded once per process and shared by
//! every provider and job that names it.

use adfarm_llm::LlmError;
use adfarm_models::assets::{self, Pin};
use adfarm_models::{LocalEmbedder, LocalLlm};
use adfarm_proto::ProviderSpec;
use adfarm_suites::SuiteContext;
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

/// A loader for the worker's backends, fetching assets into `home`; the
/// generator's keys and values stay within `kv_memory` bytes, which it
/// says when it loads.
pub fn loader(home: PathBuf, kv_memory: usize) -> LocalLoader {
    let loaded = Arc::new(Mutex::new(Loaded::default()));
    Arc::new(move |spec: &ProviderSpec| {
        let mut loaded = loaded.lock().expect("model lock is never poisoned");
        let config = |e: &dyn std::fmt::Display| LlmError::Config(e.to_string());
        match spec.model.to_ascii_lowercase().as_str() {
            GENERATOR => {
                if loaded.llm.is_none() {
                    announce(assets::ensure(&home, &[&assets::SMOLLM2]).map_err(|e| config(&e))?);
                    let llm = LocalLlm::load_within(&assets::generator_gguf(&home), kv_memory)
                        .map_err(|e| config(&e))?;
                    let m = llm.kv_memory();
                    let mib = kv_memory >> 20;
                    eprintln!(
                        "local generator: keys and values within {mib} MiB ({} tokens at {} \
                         KiB; --kv-memory-mib)",
                        m.budget / m.per_token,
                        m.per_token >> 10
                    );
                    tracing::info!(
                        budget_mib = mib,
                        "Local generator loaded; keys and values stay within the budget."
                    );
                    loaded.llm = Some(Arc::new(llm));
                }
                let llm = loaded.llm.clone().expect("loaded above");
                if let Some(tokens) = spec.prefix_cache_tokens {
                    llm.reserve_prefix_cache(tokens as usize);
                }
                Ok(Models {
                    chat: Some(llm),
                    embed: None,
                })
            }
            EMBEDDER => {
                if loaded.embedder.is_none() {
                    announce(assets::ensure(&home, &[&assets::MINILM]).map_err(|e| config(&e))?);
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
pub fn announce(fetched: Vec<assets::FetchedAsset>) {
    for a in fetched.iter().filter(|a| a.downloaded) {
        eprintln!(
            "fetched {} ({} bytes) into {}",
            a.pin.requirement(),
            a.bytes,
            a.dir.display()
        );
    }
}

/// Every pinned asset this binary knows: the local models', then each
/// suite's, each once.
fn known(ctx: &SuiteContext) -> Vec<&'static Pin> {
    let mut pins: Vec<&'static Pin> = assets::MODELS.to_vec();
    for name in adfarm_suites::SUITES {
        if let Some(suite) = adfarm_suites::suite(name, ctx) {
            for pin in suite.assets() {
                if !pins.iter().any(|p| p.name == pin.name) {
                    pins.push(pin);
                }
            }
        }
    }
    pins
}

/// `adfarm assets fetch`.
///
/// # Errors
/// When pip or the registry is unavailable (the error says what to run).
pub fn fetch(home: &std::path::Path, ctx: &SuiteContext, names: &[String]) -> anyhow::Result<()> {
    let which = parse(ctx, names)?;
    for a in assets::fetch(home, &which)? {
        let what = if a.downloaded { "fetched" } else { "present" };
        println!(
            "{what:<8} {:<10} {:>10} bytes  {}",
            a.pin.name,
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
pub fn list(home: &std::path::Path, ctx: &SuiteContext) -> anyhow::Result<()> {
    for a in assets::list(home, &known(ctx))? {
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

/// The pins `names` (short or PyPI names) name; all known ones when empty.
fn parse(ctx: &SuiteContext, names: &[String]) -> anyhow::Result<Vec<&'static Pin>> {
    let all = known(ctx);
    if names.is_empty() {
        return Ok(all);
    }
    names
        .iter()
        .map(|n| {
            all.iter()
                .find(|p| p.name == n || p.package == n)
                .copied()
                .ok_or_else(|| {
                    let valid: Vec<&str> = all.iter().map(|p| p.name).collect();
                    anyhow::anyhow!("unknown asset {n:?}; valid: {}", valid.join(", "))
                })
        })
        .collect()
}
