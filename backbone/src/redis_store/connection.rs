//! Connecting to Redis: one auto-reconnecting [`ConnectionManager`] that
//! every clone of a store or limiter shares, and error messages that never
//! show its password.

use crate::redact::{is_secret_param, redact_url};
use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;
use redis::{RedisFuture, Value};
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

/// A connection to one Redis (auto-reconnecting) or to a Redis Cluster
/// (routing each command to its slot's node); clones share it.
#[derive(Clone)]
pub enum RedisConnection {
    /// One server.
    Single(ConnectionManager),
    /// A cluster: every multi-key script touches keys of one hash tag.
    Cluster(ClusterConnection),
}

impl std::fmt::Debug for RedisConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RedisConnection::Single(_) => "RedisConnection::Single",
            RedisConnection::Cluster(_) => "RedisConnection::Cluster",
        })
    }
}

impl ConnectionLike for RedisConnection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a redis::Cmd) -> RedisFuture<'a, Value> {
        match self {
            RedisConnection::Single(c) => c.req_packed_command(cmd),
            RedisConnection::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            RedisConnection::Single(c) => c.req_packed_commands(pipeline, offset, count),
            RedisConnection::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            RedisConnection::Single(c) => c.get_db(),
            RedisConnection::Cluster(c) => c.get_db(),
        }
    }
}

/// The seed nodes of a cluster URL: `redis+cluster://host:port[,host:port...]`
/// (or `rediss+cluster://`), each as a plain Redis URL; `None` for a
/// single-server URL.
fn cluster_nodes(url: &str) -> Option<Vec<String>> {
    let (scheme, rest) = url.split_once("+cluster://")?;
    let (auth, hosts) = match rest.rsplit_once('@') {
        Some((auth, hosts)) => (format!("{auth}@"), hosts),
        None => (String::new(), rest),
    };
    Some(
        hosts
            .split(',')
            .map(|h| format!("{scheme}://{auth}{h}"))
            .collect(),
    )
}

/// Connects to `url`: a Redis (`redis://`, `rediss://`) or a Redis Cluster
/// (`redis+cluster://node[,node...]`), waiting for the first connection.
/// Returns an error message that names the redacted URL.
pub(crate) async fn connect(url: &str) -> Result<RedisConnection, String> {
    match cluster_nodes(url) {
        Some(nodes) => {
            let shown = redact_url(url);
            let client = ClusterClientBuilder::new(nodes)
                .response_timeout(RESPONSE_TIMEOUT)
                .connection_timeout(CONNECTION_TIMEOUT)
                .build()
                .map_err(|e| scrub(url, format!("invalid Redis Cluster URL {shown}: {e}")))?;
            let con = client.get_async_connection().await.map_err(|e| {
                scrub(
                    url,
                    format!("cannot connect to the Redis Cluster at {shown}: {e}"),
                )
            })?;
            tracing::debug!(url = %shown, "Connected to a Redis Cluster.");
            Ok(RedisConnection::Cluster(con))
        }
        None => Ok(RedisConnection::Single(
            connect_with(url, ConnectionManagerConfig::new()).await?,
        )),
    }
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
    fn cluster_urls_name_their_seed_nodes() {
        assert_eq!(cluster_nodes("redis://cache:6379"), None);
        assert_eq!(
            cluster_nodes("redis+cluster://:pw@a:7000,b:7001").unwrap(),
            vec!["redis://:pw@a:7000", "redis://:pw@b:7001"]
        );
        assert_eq!(
            cluster_nodes("rediss+cluster://a:7000").unwrap(),
            vec!["rediss://a:7000"]
        );
    }

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
