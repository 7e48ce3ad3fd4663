//! Connecting to Redis: one auto-reconnecting [`ConnectionManager`] that
//! every clone of a store or limiter shares, and error messages that never
//! show its password.

use crate::redact::{is_secret_param, redact_url};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::time::Duration;

/// How long one command may take. The redis-rs default (500 ms) is tight for
/// a pipeline of thousands of `HEXISTS` on a busy server; a command that
/// does time out is retried by the caller, and every write is idempotent.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one connection attempt may take.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(2);

/// Every secret text `url` holds, as written and percent-decoded, so error
/// messages of the client can be scrubbed of them.
fn secrets(url: &str) -> Vec<String> {
    let Ok(parsed) = url::Url::parse(url) else {
        return vec![url.to_string()];
    };
    let mut out = Vec::new();
    if let Some(p) = parsed.password() {
        out.push(p.to_string());
        if let Ok(decoded) = percent_encoding::percent_decode_str(p).decode_utf8() {
            out.push(decoded.into_owned());
        }
    }
    for (k, v) in parsed.query_pairs() {
        if is_secret_param(&k) {
            out.push(v.into_owned());
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// `message` with every secret of `url` replaced by `***`.
fn scrub(url: &str, message: String) -> String {
    secrets(url)
        .iter()
        .fold(message, |m, s| m.replace(s.as_str(), "***"))
}

/// Opens a connection manager on `url` and waits for the first connection.
/// Returns an error message that names the redacted URL.
pub(crate) async fn connect(url: &str) -> Result<ConnectionManager, String> {
    connect_with(url, ConnectionManagerConfig::new()).await
}

async fn connect_with(
    url: &str,
    config: ConnectionManagerConfig,
) -> Result<ConnectionManager, String> {
    let shown = redact_url(url);
    let client = redis::Client::open(url)
        .map_err(|e| scrub(url, format!("invalid Redis URL {shown}: {e}")))?;
    let config = config
        .set_response_timeout(Some(RESPONSE_TIMEOUT))
        .set_connection_timeout(Some(CONNECTION_TIMEOUT));
    let manager = ConnectionManager::new_with_config(client, config)
        .await
        .map_err(|e| scrub(url, format!("cannot connect to Redis at {shown}: {e}")))?;
    tracing::debug!(url = %shown, "Connected to Redis.");
    Ok(manager)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_are_scrubbed() {
        let url = "redis://u:p%40ss@cache";
        let m = scrub(url, "auth p@ss and p%40ss failed".to_string());
        assert_eq!(m, "auth *** and *** failed");
    }

    #[tokio::test]
    async fn a_failed_connection_names_the_redacted_url() {
        // Port 1 is reserved and closed: the connection is refused at once,
        // and without retries the test does not sit through the backoff.
        let no_retries = ConnectionManagerConfig::new().set_number_of_retries(0);
        let e = connect_with("redis://admin:s3cret@127.0.0.1:1", no_retries)
            .await
            .unwrap_err();
        assert!(e.contains("redis://***@127.0.0.1:1"), "{e}");
        assert!(!e.contains("s3cret"), "{e}");
        let e = connect("redis://admin:s3cret@[::1").await.unwrap_err();
        assert!(!e.contains("s3cret"), "{e}");
    }
}
