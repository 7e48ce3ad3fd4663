//! The field checks the sections share: names, numbers, URLs, parameter
//! sizes, references to providers and repeated entries. Each returns the
//! field's path with the message, which [`super::parse`] turns into a
//! `file:line: field: message` error.

use super::locate::{extend, Seg};
use adfarm_proto::tally::SEP;
use adfarm_suites::DataError;
use std::fmt;

/// A field's path and what is wrong with it.
pub(super) type Invalid = (Vec<Seg>, String);

/// Largest `params` table, serialised as JSON. Parameters travel in every
/// job's config and hash; real ones are a few hundred bytes, and a 50 MB
/// table would be copied into every job (gigabytes of memory, no end).
pub const MAX_PARAMS_BYTES: usize = 64 * 1024;

/// Largest `limit` (items per dataset): above every suite's own item
/// maximum, so a limit never lets more items through than the suite would.
pub const MAX_LIMIT: u64 = 1_000_000;

/// Most `seeds`: pass@k papers draw up to a few hundred samples per task.
pub const MAX_SEEDS: usize = 1_000;

/// Most `[[solutions]]` entries.
pub const MAX_SOLUTIONS: usize = 100;

/// Most `judges`.
pub const MAX_JUDGES: usize = 32;

/// Most jobs one dataset item may expand to (solutions × seeds × stage
/// variants): a planner builds one item's jobs at once, so this bounds
/// its memory whatever the rest of the file says.
pub const MAX_JOBS_PER_ITEM: i64 = 100_000;

/// Highest price per million tokens: far above any real model's, low
/// enough that the sweep's nano-USD counters cannot overflow.
const MAX_USD_PER_MTOK: f64 = 10_000.0;

pub(super) fn check_name(path: Vec<Seg>, name: &str) -> Result<(), Invalid> {
    if name.is_empty() || name.contains(SEP) {
        return Err((
            path,
            format!("must be non-empty and may not contain '{SEP}'"),
        ));
    }
    Ok(())
}

/// An HTTP(S) URL with a host: a typo such as `htp://` fails here, at
/// plan time, not as 400 failed jobs. Quotes nothing of the URL but its
/// scheme, since a URL may carry credentials.
pub(super) fn check_base_url(base: &str) -> Result<(), String> {
    let url = url::Url::parse(base).map_err(|e| format!("is not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("scheme {:?} is not http or https", url.scheme()));
    }
    if url.host_str().is_none_or(str::is_empty) || written_host(base).is_none_or(str::is_empty) {
        return Err("has no host".into());
    }
    Ok(())
}

/// The host as written between `//` and the path, without user info or
/// port. The URL parser reads `http:///v1` as host `v1` (it skips extra
/// slashes after a special scheme), so the text itself must name one.
fn written_host(base: &str) -> Option<&str> {
    let (_, rest) = base.trim().split_once("://")?;
    let authority = rest.split(['/', '?', '#', '\\']).next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    Some(match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    })
}

pub(super) fn bounded_params(path: Vec<Seg>, params: &serde_json::Value) -> Result<(), Invalid> {
    let size = serde_json::to_vec(params).map_or(usize::MAX, |b| b.len());
    if size > MAX_PARAMS_BYTES {
        return Err((
            path,
            format!(
                "is {size} bytes as JSON; at most {MAX_PARAMS_BYTES} are allowed (put large data in a dataset)"
            ),
        ));
    }
    Ok(())
}

pub(super) fn price(path: Vec<Seg>, v: Option<f64>) -> Result<(), Invalid> {
    let Some(v) = v else { return Ok(()) };
    non_negative(path.clone(), v)?;
    if v > MAX_USD_PER_MTOK {
        return Err((
            path,
            format!("must be at most {MAX_USD_PER_MTOK} USD per million tokens"),
        ));
    }
    Ok(())
}

pub(super) fn positive(path: Vec<Seg>, v: f64) -> Result<(), Invalid> {
    if !(v.is_finite() && v > 0.0) {
        return Err((path, format!("must be a positive number, got {v}")));
    }
    Ok(())
}

pub(super) fn non_negative(path: Vec<Seg>, v: f64) -> Result<(), Invalid> {
    if !(v.is_finite() && v >= 0.0) {
        return Err((path, format!("must be zero or positive, got {v}")));
    }
    Ok(())
}

/// A list of at most `max` entries.
pub(super) fn at_most<T>(path: Vec<Seg>, entries: &[T], max: usize) -> Result<(), Invalid> {
    if entries.len() > max {
        return Err((
            path,
            format!("lists {} entries; at most {max} are allowed", entries.len()),
        ));
    }
    Ok(())
}

/// A count that may not be zero.
pub(super) fn at_least_one<T: PartialEq + Default>(path: Vec<Seg>, v: T) -> Result<(), Invalid> {
    if v == T::default() {
        return Err((path, "must be at least 1".into()));
    }
    Ok(())
}

/// The top-level array of tables `key` (`[[providers]]`) has an entry.
pub(super) fn required<T>(key: &'static str, entries: &[T]) -> Result<(), Invalid> {
    if entries.is_empty() {
        return Err((
            vec![Seg::Key(key)],
            format!("at least one [[{key}]] entry is required"),
        ));
    }
    Ok(())
}

/// `name` is one of the sweep's `providers`.
pub(super) fn known_provider(
    path: Vec<Seg>,
    providers: &[&str],
    name: &str,
) -> Result<(), Invalid> {
    if !providers.contains(&name) {
        return Err((
            path,
            format!("unknown provider {name:?}; valid: {}", providers.join(", ")),
        ));
    }
    Ok(())
}

/// `value` is not among the `earlier` entries of its list: "duplicate
/// <what> <value>" otherwise.
pub(super) fn first_time<T: PartialEq + fmt::Debug>(
    path: Vec<Seg>,
    what: &str,
    earlier: &[T],
    value: &T,
) -> Result<(), Invalid> {
    if earlier.contains(value) {
        return Err((path, format!("duplicate {what} {value:?}")));
    }
    Ok(())
}

/// A suite's complaint about its part of the file, at `base` plus the
/// field the suite names.
pub(super) fn data_error(base: Vec<Seg>, e: DataError) -> Invalid {
    match e {
        DataError::Param { field, reason } => (extend(base, &field), reason),
        DataError::Sweep { field, reason } => (extend(vec![], &field), reason),
        other => (base, other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_url_must_name_a_host_in_its_text() {
        for good in [
            "http://127.0.0.1:8089/v1",
            "https://api.openai.com/v1",
            "http://user@host:80/v1",
            "http://[::1]:8000/v1",
            "http://localhost",
        ] {
            assert_eq!(check_base_url(good), Ok(()), "{good}");
        }
        for bad in [
            "http:///v1",
            "http:////v1",
            "https:///",
            "http:v1",
            "http://@/v1",
            "http://:80/v1",
        ] {
            let e = check_base_url(bad).expect_err(bad);
            assert!(e.contains("host"), "{bad}: {e}");
        }
        assert_eq!(check_base_url("http:///v1"), Err("has no host".into()));
        assert!(check_base_url("htp://x").unwrap_err().contains("scheme"));
    }
}
