//! Checking assets in place, for commands that read them without fetching
//! (`adfarm plan`): a file missing or altered since it was unpacked is
//! named, with the command that fetches the asset again.

use super::{list, sha256_file, wheels_dir, AssetError, Pin};
use std::fmt;
use std::path::{Path, PathBuf};

/// An unpacked asset whose files differ from their pins, and how to get a
/// good copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corrupt {
    /// `package==version`.
    pub requirement: String,
    /// The asset directory.
    pub dir: PathBuf,
    /// The first file that differs, relative to `dir`.
    pub file: String,
    /// Its pinned sha256.
    pub expected: String,
    /// Its actual sha256; `None` when it is missing.
    pub actual: Option<String>,
    /// A wheel in `<home>/wheels` whose sha256 is not the pinned one:
    /// `adfarm assets fetch` passes over it, so it is worth deleting.
    pub bad_wheel: Option<PathBuf>,
}

impl fmt::Display for Corrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "asset {} in {} is corrupt: ",
            self.requirement,
            self.dir.display()
        )?;
        match &self.actual {
            Some(actual) => write!(
                f,
                "{} has sha256 {actual}, pinned {}",
                self.file, self.expected
            )?,
            None => write!(f, "{} is missing", self.file)?,
        }
        write!(
            f,
            "; run `adfarm assets fetch` to fetch it again (it replaces the whole directory)"
        )?;
        if let Some(wheel) = &self.bad_wheel {
            write!(
                f,
                ", and delete {}: its sha256 is not the pinned one either",
                wheel.display()
            )?;
        }
        Ok(())
    }
}

/// Checks each of `pins` unpacked under `home` (a missing directory is
/// left to whoever needs it) against its files' pinned sizes and sha256.
///
/// # Errors
/// [`AssetError::Corrupt`] for the first asset with a missing or altered
/// file, [`AssetError::Io`] when a file cannot be read.
pub fn check_present(home: &Path, pins: &[&'static Pin]) -> Result<(), AssetError> {
    for status in list(home, pins)? {
        let Some(file) = status.files.iter().find(|f| !f.ok) else {
            continue;
        };
        let pin = status.pin;
        let expected = pin
            .files
            .iter()
            .find(|p| p.path == file.path)
            .map_or_else(String::new, |p| p.sha256.to_string());
        let wheel = wheels_dir(home).join(pin.wheel);
        let bad_wheel = if wheel.is_file() && sha256_file(&wheel)? != pin.wheel_sha256 {
            Some(wheel)
        } else {
            None
        };
        return Err(AssetError::Corrupt(Box::new(Corrupt {
            requirement: status.requirement,
            dir: status.dir,
            file: file.path.clone(),
            expected,
            actual: file.sha256.clone(),
            bad_wheel,
        })));
    }
    Ok(())
}
