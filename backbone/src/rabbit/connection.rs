//! The two connections (publishing, consuming), opened lazily, re-opened
//! with the topology redeclared when they break, and the retry around
//! every broker operation.

use super::messages::text;
use super::*;

/// Why an attempt failed, and so whether another attempt may succeed.
pub(super) enum Failure {
    /// The connection or channel broke: worth retrying on a fresh one.
    Transient(QueueError),
    /// The broker refused: retrying cannot help.
    Permanent(QueueError),
}

impl Failure {
    pub(super) fn into_error(self) -> QueueError {
        match self {
            Failure::Transient(e) | Failure::Permanent(e) => e,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Transient(e) | Failure::Permanent(e) => e.fmt(f),
        }
    }
}

/// One of the two connections: publishing and consuming are kept apart
/// because RabbitMQ blocks a publishing connection under memory pressure,
/// which must not also stall the acks that would relieve it.
pub(super) struct Link {
    pub(super) role: &'static str,
    pub(super) confirms: bool,
    pub(super) wire: Mutex<Option<Wire>>,
}

impl Link {
    pub(super) fn new(role: &'static str, confirms: bool) -> Link {
        Link {
            role,
            confirms,
            wire: Mutex::new(None),
        }
    }
}

#[derive(Clone)]
pub(super) struct Wire {
    pub(super) conn: Arc<Connection>,
    /// Publishes (in confirm mode) on the publishing link; declares only on
    /// the consuming one, whose consumers each get a channel of their own.
    pub(super) channel: Channel,
}

pub(super) struct Inner {
    pub(super) url: String,
    pub(super) shown_url: String,
    pub(super) password: Option<String>,
    pub(super) prefix: String,
    pub(super) delivery_limit: u32,
    pub(super) retry: ExponentialBuilder,
    pub(super) publisher: Link,
    pub(super) consumer: Link,
}

impl Inner {
    pub(super) fn dead(&self) -> String {
        format!("{}.dead", self.prefix)
    }

    pub(super) fn dlx(&self) -> String {
        format!("{}.dlx", self.prefix)
    }

    pub(super) fn delay(&self, kind: Lane) -> String {
        format!("{}.delay", queue_name(&self.prefix, kind))
    }

    pub(super) fn queue_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Lane::ALL
            .into_iter()
            .flat_map(|k| [queue_name(&self.prefix, k), self.delay(k)])
            .collect();
        names.push(self.dead());
        names.push(self.quarantine_queue());
        names
    }

    /// Messages that belong to no planned job, kept for inspection.
    pub(super) fn quarantine_queue(&self) -> String {
        format!("{}.quarantine", self.prefix)
    }

    /// The kind whose queue (or delay queue) is called `queue`.
    pub(super) fn kind_of(&self, queue: &str) -> Option<Lane> {
        let rest = queue.strip_prefix(&self.prefix)?.strip_prefix('.')?;
        Lane::parse(rest.strip_suffix(".delay").unwrap_or(rest))
    }

    /// Removes the URL's password from text that may quote it.
    pub(super) fn scrub(&self, text: String) -> String {
        match &self.password {
            Some(p) if text.contains(p.as_str()) => text.replace(p.as_str(), "***"),
            _ => text,
        }
    }

    pub(super) fn fail(&self, op: &'static str, e: &lapin::Error) -> Failure {
        let text = self.scrub(e.to_string());
        if is_transient(e) {
            Failure::Transient(QueueError::Connection(format!(
                "{op} on {}: {text}",
                self.shown_url
            )))
        } else {
            Failure::Permanent(QueueError::Broker { op, reason: text })
        }
    }

    /// Runs `attempt` until it succeeds, fails for good, or the backoff
    /// runs out; each attempt finds a live connection or opens one.
    pub(super) async fn retrying<T, F, Fut>(
        &self,
        op: &'static str,
        attempt: F,
    ) -> Result<T, QueueError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        attempt
            .retry(self.retry)
            .sleep(tokio::time::sleep)
            .when(|e| matches!(e, Failure::Transient(_)))
            .notify(|e, after| {
                warn!(
                    op,
                    url = %self.shown_url,
                    error = %e,
                    retry_in_ms = after.as_millis() as u64,
                    "RabbitMQ operation failed; retrying."
                );
            })
            .await
            .map_err(Failure::into_error)
    }

    /// The link's live connection and channel, reconnecting (and
    /// redeclaring the topology) when the connection is gone.
    pub(super) async fn wire(&self, link: &Link) -> Result<Wire, Failure> {
        let mut slot = link.wire.lock().await;
        if let Some(wire) = slot.as_ref() {
            if wire.conn.status().connected() {
                if wire.channel.status().connected() {
                    return Ok(wire.clone());
                }
                // A channel error (a refused publish, say) closes only the
                // channel; the connection is still good.
                let channel = self.open_channel(&wire.conn, link.confirms).await?;
                let wire = Wire {
                    conn: wire.conn.clone(),
                    channel,
                };
                *slot = Some(wire.clone());
                return Ok(wire);
            }
            warn!(role = link.role, url = %self.shown_url, "RabbitMQ connection lost; reconnecting.");
            *slot = None;
        }
        let props = ConnectionProperties::default()
            .with_connection_name(format!("adfarm-{}-{}", self.prefix, link.role).into());
        let conn = match tokio::time::timeout(
            CONNECT_TIMEOUT,
            Connection::connect(&self.url, props),
        )
        .await
        {
            Ok(Ok(conn)) => Arc::new(conn),
            Ok(Err(e)) => return Err(self.fail("connect", &e)),
            Err(_) => {
                return Err(Failure::Transient(QueueError::Connection(format!(
                    "connecting to {} timed out after {CONNECT_TIMEOUT:?}",
                    self.shown_url
                ))))
            }
        };
        let channel = self.open_channel(&conn, link.confirms).await?;
        // After a broker restart without its data the queues are gone;
        // declaring is idempotent, so every new connection does it.
        self.declare_topology(&channel).await?;
        info!(role = link.role, url = %self.shown_url, "Opened a RabbitMQ connection.");
        let wire = Wire { conn, channel };
        *slot = Some(wire.clone());
        Ok(wire)
    }

    pub(super) async fn open_channel(
        &self,
        conn: &Connection,
        confirms: bool,
    ) -> Result<Channel, Failure> {
        let channel = conn
            .create_channel()
            .await
            .map_err(|e| self.fail("channel.open", &e))?;
        if confirms {
            channel
                .confirm_select(ConfirmSelectOptions::default())
                .await
                .map_err(|e| self.fail("confirm.select", &e))?;
        }
        Ok(channel)
    }

    /// A short-lived channel for operations whose refusal closes their
    /// channel (passive declares, deletes, gets).
    pub(super) async fn scratch_channel(&self) -> Result<Channel, Failure> {
        let wire = self.wire(&self.publisher).await?;
        self.open_channel(&wire.conn, false).await
    }

    pub(super) async fn declare_topology(&self, ch: &Channel) -> Result<(), Failure> {
        // Workers that start together declare the same new queue at once,
        // and RabbitMQ may answer one of them NOT_FOUND ("home node ... is
        // down or inaccessible") while the other's queue is being created:
        // a race, not a refusal, so a fresh connection declares again.
        let fail = |e: lapin::Error| {
            if is_soft(&e, AMQPSoftError::NOTFOUND) {
                Failure::Transient(QueueError::Connection(format!(
                    "declare on {}: {}",
                    self.shown_url,
                    self.scrub(e.to_string())
                )))
            } else if is_soft(&e, AMQPSoftError::PRECONDITIONFAILED)
                && e.to_string().contains("x-delivery-limit")
            {
                // The broker names the limit in returns (deliveries − 1).
                Failure::Permanent(QueueError::Broker {
                    op: "declare",
                    reason: format!(
                        "the queues of prefix {:?} were declared with another delivery limit \
                         (this process asks {}); pass their --delivery-limit, or delete the \
                         queues: {}",
                        self.prefix,
                        self.delivery_limit,
                        self.scrub(e.to_string())
                    ),
                })
            } else {
                self.fail("declare", &e)
            }
        };
        let durable = QueueDeclareOptions::durable();
        let dlx = self.dlx();
        let exchange_opts = ExchangeDeclareOptions {
            durable: true,
            ..ExchangeDeclareOptions::default()
        };
        ch.exchange_declare(
            dlx.as_str().into(),
            ExchangeKind::Fanout,
            exchange_opts,
            FieldTable::default(),
        )
        .await
        .map_err(fail)?;
        let dead = self.dead();
        let mut args = FieldTable::default();
        args.insert("x-queue-type".into(), text("quorum"));
        ch.queue_declare(dead.as_str().into(), durable, args)
            .await
            .map_err(fail)?;
        ch.queue_bind(
            dead.as_str().into(),
            dlx.as_str().into(),
            "".into(),
            QueueBindOptions::default(),
            FieldTable::default(),
        )
        .await
        .map_err(fail)?;
        // Classic: listing returns messages unacked, and quorum queues (from
        // RabbitMQ 4) would drop a message after 20 such returns.
        let mut args = FieldTable::default();
        args.insert("x-queue-type".into(), text("classic"));
        ch.queue_declare(self.quarantine_queue().as_str().into(), durable, args)
            .await
            .map_err(fail)?;
        // x-delivery-limit counts returns, so limit - 1 returns means at
        // most `delivery_limit` deliveries, as MemoryQueue counts them.
        let returns = i64::from(self.delivery_limit - 1);
        for kind in Lane::ALL {
            let queue = queue_name(&self.prefix, kind);
            let mut args = FieldTable::default();
            args.insert("x-queue-type".into(), text("quorum"));
            args.insert("x-delivery-limit".into(), AMQPValue::LongLongInt(returns));
            args.insert("x-dead-letter-exchange".into(), text(&dlx));
            // At-least-once keeps a poison message in its queue until the
            // dead-letter queue confirms it; it requires reject-publish.
            args.insert("x-dead-letter-strategy".into(), text("at-least-once"));
            args.insert("x-overflow".into(), text("reject-publish"));
            ch.queue_declare(queue.as_str().into(), durable, args)
                .await
                .map_err(fail)?;
            // Classic: it holds messages briefly and needs per-message TTL,
            // which quorum queues lack before RabbitMQ 3.10. Expired messages
            // go back to the kind's queue through the default exchange. TTL
            // expires only at the head, so a long delay holds back shorter
            // ones queued behind it: retries come back late, never early.
            let mut args = FieldTable::default();
            args.insert("x-queue-type".into(), text("classic"));
            args.insert("x-dead-letter-exchange".into(), text(""));
            args.insert("x-dead-letter-routing-key".into(), text(&queue));
            ch.queue_declare(self.delay(kind).as_str().into(), durable, args)
                .await
                .map_err(fail)?;
        }
        Ok(())
    }
}

pub(super) fn is_soft(e: &lapin::Error, which: AMQPSoftError) -> bool {
    matches!(e.kind(), ErrorKind::ProtocolError(p) if *p.kind() == AMQPErrorKind::Soft(which))
}

/// Whether a fresh connection may succeed where this one failed.
pub(super) fn is_transient(e: &lapin::Error) -> bool {
    match e.kind() {
        ErrorKind::IOError(_)
        | ErrorKind::InvalidChannel(_)
        | ErrorKind::InvalidChannelState(..)
        | ErrorKind::InvalidConnectionState(_)
        | ErrorKind::MissingHeartbeatError
        | ErrorKind::ChannelsLimitReached => true,
        ErrorKind::ProtocolError(p) => matches!(
            p.kind(),
            AMQPErrorKind::Hard(
                AMQPHardError::CONNECTIONFORCED
                    | AMQPHardError::INTERNALERROR
                    | AMQPHardError::RESOURCEERROR
            )
        ),
        _ => false,
    }
}

/// The password in `url`, to scrub from error texts that might quote it.
pub(super) fn password_of(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let userinfo = &rest[..rest[..authority_end].rfind('@')?];
    let (_, password) = userinfo.split_once(':')?;
    (!password.is_empty()).then(|| password.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_found_for_scrubbing() {
        assert_eq!(
            password_of("amqp://guest:s3cret@rabbit/%2f").as_deref(),
            Some("s3cret")
        );
        assert_eq!(password_of("amqp://rabbit/%2f"), None);
    }

    #[test]
    fn connection_errors_are_transient_and_refusals_are_not() {
        let io = lapin::Error::from(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert!(is_transient(&io));
        let refused: lapin::Error = ErrorKind::ProtocolError(lapin::protocol::AMQPError::new(
            AMQPErrorKind::Soft(AMQPSoftError::NOTFOUND),
            "NOT_FOUND".into(),
        ))
        .into();
        assert!(!is_transient(&refused));
        assert!(is_soft(&refused, AMQPSoftError::NOTFOUND));
    }
}
