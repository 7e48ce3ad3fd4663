//! Loading the Open Bandit Dataset's logs (the pinned [`super::pin::OBP`]
//! asset) into the estimators' inputs, the way obp's `OpenBanditDataset`
//! reads them: rows in timestamp order, `item_id` as the action, positions
//! 1..=3 densely ranked to 0..3, `click` as the reward, `propensity_score`
//! as the propensity.

use super::data::LoggedBandit;
use super::pin::{BTS_ALL, OBP, RANDOM_ALL};
use std::path::{Path, PathBuf};

/// The logging policy whose rounds to load (campaign `all`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoggingPolicy {
    /// Uniformly random recommendations.
    Random,
    /// Bernoulli Thompson sampling.
    Bts,
}

impl LoggingPolicy {
    /// The log's path inside the asset directory.
    pub fn csv(self) -> &'static str {
        match self {
            LoggingPolicy::Random => RANDOM_ALL,
            LoggingPolicy::Bts => BTS_ALL,
        }
    }
}

/// One logging policy's rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct ObdLog {
    /// Each round's row number in the CSV (its unnamed first column).
    pub row: Vec<usize>,
    /// The rounds, as the estimators take them.
    pub log: LoggedBandit,
    /// `max(item_id) + 1`, as obp counts actions.
    pub n_actions: usize,
    /// Number of distinct positions.
    pub len_list: usize,
}

/// Why the dataset could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ObdError {
    /// The asset is not on this machine.
    #[error(
        "{path} is missing: the Open Bandit Dataset comes from the pinned obp==0.5.7 sdist. \
         Fetch it with the asset machinery (`adfarm assets fetch obp` once a suite declares OBP) \
         or by hand:\n    {manual}"
    )]
    Missing {
        /// The missing file.
        path: PathBuf,
        /// Shell commands that put it in place.
        manual: String,
    },
    /// A file could not be read.
    #[error("read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file is not the pinned one.
    #[error("{path} has {actual} bytes, the pinned file has {expected}: fetch the asset again")]
    Size {
        /// The file.
        path: PathBuf,
        /// Pinned size.
        expected: u64,
        /// Size on disk.
        actual: u64,
    },
    /// A row does not parse.
    #[error("{path} line {line}, column `{column}`: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The column.
        column: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// `<assets>/obp-0.5.7`, where the asset machinery unpacks [`OBP`];
/// `assets` is the directory of all pinned assets (`<home>/assets`, a
/// suite's `SuiteContext::assets_dir`).
pub fn asset_dir(assets: &Path) -> PathBuf {
    assets.join(OBP.dir_name())
}

/// Shell commands that fetch and unpack the asset without the CLI.
pub fn manual_fetch(assets: &Path) -> String {
    let dir = asset_dir(assets);
    format!(
        "python3 -m pip download --no-deps --no-binary {pkg} --ignore-requires-python {req} -d /tmp/obp-sdist && \
         mkdir -p {dir} && tar -xzf /tmp/obp-sdist/{file} -C {dir} {RANDOM_ALL} {BTS_ALL}",
        pkg = OBP.package,
        req = OBP.requirement(),
        dir = dir.display(),
        file = OBP.wheel,
    )
}

/// Loads `policy`'s log from the asset under `assets` (see [`asset_dir`]),
/// checking the pinned size.
///
/// # Errors
/// [`ObdError::Missing`] (saying how to fetch it) when the asset is absent,
/// [`ObdError::Size`] for a file that is not the pinned one, else as
/// [`parse_csv`].
pub fn load(assets: &Path, policy: LoggingPolicy) -> Result<ObdLog, ObdError> {
    let rel = policy.csv();
    let path = asset_dir(assets).join(rel);
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(_) => {
            return Err(ObdError::Missing {
                path,
                manual: manual_fetch(assets),
            })
        }
    };
    if let Some(pinned) = OBP.files.iter().find(|f| f.path == rel) {
        if meta.len() != pinned.size {
            return Err(ObdError::Size {
                path,
                expected: pinned.size,
                actual: meta.len(),
            });
        }
    }
    let text = std::fs::read_to_string(&path).map_err(|source| ObdError::Io {
        path: path.clone(),
        source,
    })?;
    parse_csv(&path, &text)
}

/// Parses an OBD log (`,timestamp,item_id,position,click,propensity_score,…`).
///
/// # Errors
/// [`ObdError::Parse`] naming the line and column of the first bad value.
pub fn parse_csv(path: &Path, text: &str) -> Result<ObdLog, ObdError> {
    let err = |line: usize, column: &'static str, message: String| ObdError::Parse {
        path: path.to_path_buf(),
        line,
        column,
        message,
    };
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let col = |name: &'static str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| err(1, name, "no such column in the header".into()))
    };
    let (c_row, c_time, c_item, c_pos, c_click, c_ps) = (
        col("")?,
        col("timestamp")?,
        col("item_id")?,
        col("position")?,
        col("click")?,
        col("propensity_score")?,
    );
    struct Row<'t> {
        row: usize,
        time: &'t str,
        item: usize,
        slot: usize,
        click: f64,
        pscore: f64,
    }
    let mut rows = Vec::new();
    for (k, line) in lines.enumerate() {
        let no = k + 2;
        if line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != header.len() {
            return Err(err(
                no,
                "",
                format!("{} fields, the header has {}", f.len(), header.len()),
            ));
        }
        let int = |c: usize, name: &'static str| {
            f[c].parse::<usize>()
                .map_err(|e| err(no, name, format!("{:?}: {e}", f[c])))
        };
        let float = |c: usize, name: &'static str| {
            f[c].parse::<f64>()
                .map_err(|e| err(no, name, format!("{:?}: {e}", f[c])))
        };
        rows.push(Row {
            row: int(c_row, "")?,
            time: f[c_time],
            item: int(c_item, "item_id")?,
            slot: int(c_pos, "position")?,
            click: float(c_click, "click")?,
            pscore: float(c_ps, "propensity_score")?,
        });
    }
    if rows.is_empty() {
        return Err(err(2, "", "no rounds".into()));
    }
    // Timestamps share one fixed-width ISO format, so text order is time
    // order; anything else would need real parsing, so refuse it.
    let width = rows[0].time.len();
    if let Some(i) = rows.iter().position(|r| r.time.len() != width) {
        return Err(err(
            i + 2,
            "timestamp",
            format!("{:?} is not in the file's fixed-width format", rows[i].time),
        ));
    }
    rows.sort_by(|a, b| a.time.cmp(b.time));
    // obp ranks positions densely (`rankdata(..., "dense") - 1`).
    let mut slots: Vec<usize> = rows.iter().map(|r| r.slot).collect();
    slots.sort_unstable();
    slots.dedup();
    let n_actions = rows.iter().map(|r| r.item).max().unwrap_or(0) + 1;
    let log = LoggedBandit {
        action: rows.iter().map(|r| r.item).collect(),
        position: rows
            .iter()
            .map(|r| slots.binary_search(&r.slot).unwrap_or(0))
            .collect(),
        reward: rows.iter().map(|r| r.click).collect(),
        pscore: rows.iter().map(|r| r.pscore).collect(),
    };
    Ok(ObdLog {
        row: rows.iter().map(|r| r.row).collect(),
        log,
        n_actions,
        len_list: slots.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = ",timestamp,item_id,position,click,propensity_score,user_feature_0\n\
        0,2019-11-24 00:00:53.965051+00:00,14,3,0,0.0125,a\n\
        1,2019-11-24 00:00:34.762830+00:00,2,1,1,0.0125,b\n\
        2,2019-11-24 00:01:00.000000+00:00,79,2,0,0.5,c\n";

    #[test]
    fn rows_are_time_ordered_and_positions_ranked() {
        let got = parse_csv(Path::new("s.csv"), SAMPLE).unwrap();
        assert_eq!(got.row, vec![1, 0, 2]);
        assert_eq!(got.log.action, vec![2, 14, 79]);
        assert_eq!(got.log.position, vec![0, 2, 1]);
        assert_eq!(got.log.reward, vec![1.0, 0.0, 0.0]);
        assert_eq!(got.log.pscore, vec![0.0125, 0.0125, 0.5]);
        assert_eq!((got.n_actions, got.len_list), (80, 3));
    }

    #[test]
    fn bad_rows_name_line_and_column() {
        let bad = SAMPLE.replace("0,0.5,c", "0,high,c");
        let err = parse_csv(Path::new("s.csv"), &bad).unwrap_err().to_string();
        assert!(err.contains("line 4, column `propensity_score`"), "{err}");
        let err = parse_csv(Path::new("s.csv"), "timestamp,click\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("column ``: no such column"), "{err}");
    }

    #[test]
    fn a_missing_asset_says_how_to_fetch_it() {
        let assets = Path::new("/nonexistent-adfarm-home/assets");
        let err = load(assets, LoggingPolicy::Bts).unwrap_err().to_string();
        assert!(err.contains("adfarm assets fetch obp"), "{err}");
        assert!(
            err.contains("pip download --no-deps --no-binary obp"),
            "{err}"
        );
        assert!(
            err.contains("/nonexistent-adfarm-home/assets/obp-0.5.7"),
            "{err}"
        );
    }
}
