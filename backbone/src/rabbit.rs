//! The RabbitMQ implementation of the [`Queue`] seam (lapin), for the
//! distributed deployment.
//!
//! Topology, per prefix: a durable quorum queue per [`Lane`]
//! (`<prefix>.<kind>`) whose delivery limit dead-letters poison messages
//! through the fanout exchange `<prefix>.dlx` into the quorum queue
//! `<prefix>.dead`; and a classic delay queue per kind
//! (`<prefix>.<kind>.delay`) whose expired messages fall back into the
//! kind's queue, so a retry waits in the broker, not in a worker.
//!
//! Design decision: lapin's own auto-recovery stays off. Every operation runs
//! under a `backon` retry around a lazily re-opened connection that
//! redeclares the topology first, so a broker restart costs a retry, not a
//! crash; deliveries left unsettled on a dead channel come back from the
//! broker, which is the at-least-once contract.

use crate::queue::{queue_name, Consumer, DeadLetter, Delivery, Queue, QueueError, Settle};
use crate::redact::redact_url;
use adfarm_proto::{Envelope, Lane};
use async_trait::async_trait;
use backon::{ExponentialBuilder, Retryable};
use futures::StreamExt;
use lapin::message::Delivery as AmqpDelivery;
use lapin::options::{
    BasicAckOptions, BasicConsumeOptions, BasicGetOptions, BasicPublishOptions, BasicQosOptions,
    BasicRejectOptions, ConfirmSelectOptions, ExchangeDeclareOptions, ExchangeDeleteOptions,
    QueueBindOptions, QueueDeclareOptions, QueueDeleteOptions, QueuePurgeOptions,
};
use lapin::protocol::{AMQPErrorKind, AMQPHardError, AMQPSoftError};
use lapin::types::{AMQPValue, FieldTable, LongString};
use lapin::{
    Acker, BasicProperties, Channel, Confirmation, Connection, ConnectionProperties, ErrorKind,
    ExchangeKind,
};
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;
use tracing::{debug, info, warn};

/// A TCP connect to an unreachable host can hang for minutes; a retry
/// with backoff is more useful than waiting on it.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// AMQP delivery mode 2: the broker writes the message to disk.
const PERSISTENT: u8 = 2;
const CODE_HEADER: &str = "x-adfarm-code";
const REASON_HEADER: &str = "x-adfarm-reason";
const KIND_HEADER: &str = "x-adfarm-lane";

/// Job queues on RabbitMQ: publisher confirms, bounded prefetch, manual
/// acks, delayed retries through per-kind delay queues and a dead-letter
/// queue fed both on request and by the broker's delivery limit.
#[derive(Clone)]
pub struct RabbitQueue {
    inner: Arc<Inner>,
}

impl fmt::Debug for RabbitQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RabbitQueue")
            .field("url", &self.inner.shown_url)
            .field("prefix", &self.inner.prefix)
            .field("delivery_limit", &self.inner.delivery_limit)
            .finish()
    }
}

impl RabbitQueue {
    /// Deliveries a message gets before the broker dead-letters it, unless
    /// configured otherwise.
    pub const DEFAULT_DELIVERY_LIMIT: u32 = 5;

    /// Connects to `url`, declares this `prefix`'s topology, and keeps
    /// reconnecting (with backoff, for up to a minute per operation) when
    /// the connection drops.
    ///
    /// `delivery_limit` counts deliveries, as [`crate::MemoryQueue::new`]
    /// does: a message dropped unsettled on its `delivery_limit`-th delivery
    /// is dead-lettered with code `delivery-limit` (so the queue's
    /// `x-delivery-limit`, which counts returns, is one less). At least 1.
    ///
    /// # Errors
    /// [`QueueError::Connection`] when the URL is invalid or the broker stays
    /// unreachable; [`QueueError::Broker`] when it refuses the credentials or
    /// the topology (say a queue exists with other arguments). The URL's
    /// password never appears in an error.
    pub async fn connect(
        url: &str,
        prefix: &str,
        delivery_limit: u32,
    ) -> Result<RabbitQueue, QueueError> {
        let retry = ExponentialBuilder::default()
            .with_min_delay(Duration::from_millis(100))
            .with_max_delay(Duration::from_secs(5))
            .without_max_times()
            .with_total_delay(Some(Duration::from_secs(60)))
            .with_jitter();
        RabbitQueue::connect_with_retry(url, prefix, delivery_limit, retry).await
    }

    /// As [`RabbitQueue::connect`], with the backoff used for every
    /// reconnection and retried operation.
    ///
    /// # Errors
    /// As [`RabbitQueue::connect`].
    pub async fn connect_with_retry(
        url: &str,
        prefix: &str,
        delivery_limit: u32,
        retry: ExponentialBuilder,
    ) -> Result<RabbitQueue, QueueError> {
        let inner = Inner {
            url: url.to_string(),
            shown_url: redact_url(url),
            password: password_of(url),
            prefix: prefix.to_string(),
            delivery_limit: delivery_limit.max(1),
            retry,
            publisher: Link::new("publish", true),
            consumer: Link::new("consume", false),
        };
        if let Err(e) = url.parse::<lapin::uri::AMQPUri>() {
            return Err(QueueError::Connection(
                inner.scrub(format!("invalid AMQP URL {}: {e}", inner.shown_url)),
            ));
        }
        let inner = Arc::new(inner);
        inner
            .retrying("connect", || inner.wire(&inner.publisher))
            .await?;
        info!(url = %inner.shown_url, prefix, "Connected to RabbitMQ and declared the topology.");
        Ok(RabbitQueue { inner })
    }

    /// Empties every queue of this prefix (jobs, delays, dead letters).
    ///
    /// # Errors
    /// When the broker is unreachable or a queue is missing.
    pub async fn purge_all(&self) -> Result<(), QueueError> {
        let inner = &self.inner;
        inner
            .retrying("queue.purge", || async move {
                let ch = inner.scratch_channel().await?;
                for name in inner.queue_names() {
                    ch.queue_purge(name.as_str().into(), QueuePurgeOptions::default())
                        .await
                        .map_err(|e| inner.fail("queue.purge", &e))?;
                }
                Ok(())
            })
            .await
    }

    /// Deletes every queue and the dead-letter exchange of this prefix (for
    /// tests: production queues outlive processes).
    ///
    /// # Errors
    /// When the broker is unreachable.
    pub async fn delete_all(&self) -> Result<(), QueueError> {
        let inner = &self.inner;
        inner
            .retrying("queue.delete", || async move {
                let ch = inner.scratch_channel().await?;
                for name in inner.queue_names() {
                    ch.queue_delete(name.as_str().into(), QueueDeleteOptions::default())
                        .await
                        .map_err(|e| inner.fail("queue.delete", &e))?;
                }
                ch.exchange_delete(inner.dlx().into(), ExchangeDeleteOptions::default())
                    .await
                    .map_err(|e| inner.fail("exchange.delete", &e))
            })
            .await
    }

    async fn publish_body(
        &self,
        kind: Lane,
        body: &[u8],
        props: BasicProperties,
    ) -> Result<(), QueueError> {
        let queue = queue_name(&self.inner.prefix, kind);
        self.inner.publish(&queue, body, props).await
    }

    async fn declare_passive(&self, kind: Lane) -> Result<lapin::Queue, QueueError> {
        let inner = &self.inner;
        let name = queue_name(&inner.prefix, kind);
        let name = name.as_str();
        inner
            .retrying("queue.declare", || async move {
                // A passive declare of a missing queue closes its channel, so
                // it gets one of its own rather than the publisher's.
                let ch = inner.scratch_channel().await?;
                let opts = QueueDeclareOptions {
                    passive: true,
                    ..QueueDeclareOptions::default()
                };
                ch.queue_declare(name.into(), opts, FieldTable::default())
                    .await
                    .map_err(|e| inner.fail("queue.declare", &e))
            })
            .await
    }
}

#[async_trait]
impl Queue for RabbitQueue {
    async fn publish(&self, env: &Envelope) -> Result<(), QueueError> {
        let body = serde_json::to_vec(env).map_err(|e| QueueError::Broker {
            op: "encode",
            reason: e.to_string(),
        })?;
        let props = persistent()
            .with_content_type("application/json".into())
            .with_message_id(env.id.0.as_str().into());
        self.publish_body(env.lane(), &body, props).await
    }

    async fn publish_raw(&self, kind: Lane, body: &[u8]) -> Result<(), QueueError> {
        self.publish_body(kind, body, persistent()).await
    }

    async fn consume(&self, kind: Lane, prefetch: u16) -> Result<Box<dyn Consumer>, QueueError> {
        let mut consumer = RabbitConsumer {
            inner: self.inner.clone(),
            kind,
            // basic.qos 0 means "unlimited" to the broker; the seam means a bound.
            prefetch: prefetch.max(1),
            sub: None,
        };
        // Subscribing now surfaces a dead broker here and makes the consumer
        // count right as soon as `consume` returns.
        match consumer.subscribe().await? {
            Some(sub) => consumer.sub = Some(sub),
            None => {
                return Err(QueueError::Broker {
                    op: "basic.consume",
                    reason: format!(
                        "queue {} does not exist",
                        queue_name(&self.inner.prefix, kind)
                    ),
                })
            }
        }
        Ok(Box::new(consumer))
    }

    async fn depth(&self, kind: Lane) -> Result<u64, QueueError> {
        Ok(self.declare_passive(kind).await?.message_count().into())
    }

    async fn consumers(&self, kind: Lane) -> Result<u64, QueueError> {
        Ok(self.declare_passive(kind).await?.consumer_count().into())
    }

    async fn take_dead_letters(&self, max: usize) -> Result<Vec<DeadLetter>, QueueError> {
        let inner = &self.inner;
        inner
            .retrying("basic.get", || inner.take_dead_letters_once(max))
            .await
    }
}

/// Why an attempt failed, and so whether another attempt may succeed.
enum Failure {
    /// The connection or channel broke: worth retrying on a fresh one.
    Transient(QueueError),
    /// The broker refused: retrying cannot help.
    Permanent(QueueError),
}

impl Failure {
    fn into_error(self) -> QueueError {
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
struct Link {
    role: &'static str,
    confirms: bool,
    wire: Mutex<Option<Wire>>,
}

impl Link {
    fn new(role: &'static str, confirms: bool) -> Link {
        Link {
            role,
            confirms,
            wire: Mutex::new(None),
        }
    }
}

#[derive(Clone)]
struct Wire {
    conn: Arc<Connection>,
    /// Publishes (in confirm mode) on the publishing link; declares only on
    /// the consuming one, whose consumers each get a channel of their own.
    channel: Channel,
}

struct Inner {
    url: String,
    shown_url: String,
    password: Option<String>,
    prefix: String,
    delivery_limit: u32,
    retry: ExponentialBuilder,
    publisher: Link,
    consumer: Link,
}

impl Inner {
    fn dead(&self) -> String {
        format!("{}.dead", self.prefix)
    }

    fn dlx(&self) -> String {
        format!("{}.dlx", self.prefix)
    }

    fn delay(&self, kind: Lane) -> String {
        format!("{}.delay", queue_name(&self.prefix, kind))
    }

    fn queue_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Lane::ALL
            .into_iter()
            .flat_map(|k| [queue_name(&self.prefix, k), self.delay(k)])
            .collect();
        names.push(self.dead());
        names
    }

    /// The kind whose queue (or delay queue) is called `queue`.
    fn kind_of(&self, queue: &str) -> Option<Lane> {
        let rest = queue.strip_prefix(&self.prefix)?.strip_prefix('.')?;
        Lane::parse(rest.strip_suffix(".delay").unwrap_or(rest))
    }

    /// Removes the URL's password from text that may quote it.
    fn scrub(&self, text: String) -> String {
        match &self.password {
            Some(p) if text.contains(p.as_str()) => text.replace(p.as_str(), "***"),
            _ => text,
        }
    }

    fn fail(&self, op: &'static str, e: &lapin::Error) -> Failure {
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
    async fn retrying<T, F, Fut>(&self, op: &'static str, attempt: F) -> Result<T, QueueError>
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
    async fn wire(&self, link: &Link) -> Result<Wire, Failure> {
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

    async fn open_channel(&self, conn: &Connection, confirms: bool) -> Result<Channel, Failure> {
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
    async fn scratch_channel(&self) -> Result<Channel, Failure> {
        let wire = self.wire(&self.publisher).await?;
        self.open_channel(&wire.conn, false).await
    }

    async fn declare_topology(&self, ch: &Channel) -> Result<(), Failure> {
        let fail = |e: lapin::Error| self.fail("declare", &e);
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

    /// Publishes with the mandatory flag and waits for the broker's confirm,
    /// retrying on a fresh connection when the old one broke (a duplicate
    /// is harmless: job ids are content hashes and results are set-if-absent).
    async fn publish(
        &self,
        queue: &str,
        body: &[u8],
        props: BasicProperties,
    ) -> Result<(), QueueError> {
        let props = &props;
        self.retrying("basic.publish", || async move {
            let wire = self.wire(&self.publisher).await?;
            let mandatory = BasicPublishOptions {
                mandatory: true,
                ..BasicPublishOptions::default()
            };
            let confirm = wire
                .channel
                .basic_publish("".into(), queue.into(), mandatory, body, props.clone())
                .await
                .map_err(|e| self.fail("basic.publish", &e))?
                .await
                .map_err(|e| self.fail("basic.publish", &e))?;
            let refused = |reason: String| {
                Failure::Permanent(QueueError::NotConfirmed {
                    queue: queue.to_string(),
                    reason,
                })
            };
            match confirm {
                Confirmation::Ack(None) => Ok(()),
                Confirmation::Ack(Some(returned)) => Err(refused(format!(
                    "unroutable: {} {}",
                    returned.reply_code, returned.reply_text
                ))),
                Confirmation::Nack(_) => Err(refused("the broker nacked it".to_string())),
                Confirmation::NotRequested => {
                    Err(refused("publisher confirms are off".to_string()))
                }
            }
        })
        .await
    }

    /// Takes up to `max` dead letters. Once one is taken (acked), a later
    /// failure returns what was taken rather than an error, so a retry never
    /// loses them; the one being read when it failed stays in the queue.
    async fn take_dead_letters_once(&self, max: usize) -> Result<Vec<DeadLetter>, Failure> {
        let mut taken = Vec::new();
        let ch = self.scratch_channel().await?;
        let dead = self.dead();
        while taken.len() < max {
            let got = ch
                .basic_get(dead.as_str().into(), BasicGetOptions::default())
                .await;
            let msg = match got {
                Ok(Some(msg)) => msg,
                Ok(None) => break,
                Err(e) if taken.is_empty() => return Err(self.fail("basic.get", &e)),
                Err(e) => {
                    warn!(error = %self.scrub(e.to_string()), "Dead-letter read interrupted; returning those taken.");
                    break;
                }
            };
            let letter = self.dead_letter_of(&msg.delivery);
            match msg.delivery.acker.ack(BasicAckOptions::default()).await {
                Ok(true) => taken.push(letter),
                Ok(false) | Err(_) if !taken.is_empty() => break,
                Ok(false) => {
                    return Err(Failure::Transient(QueueError::Connection(
                        "channel closed before the dead letter was acked".to_string(),
                    )))
                }
                Err(e) => return Err(self.fail("basic.ack", &e)),
            }
        }
        Ok(taken)
    }

    /// Reads code and reason from our own headers, or from the broker's
    /// `x-death` record when the broker dead-lettered it itself.
    fn dead_letter_of(&self, d: &AmqpDelivery) -> DeadLetter {
        let headers = d.properties.headers().as_ref();
        let header = |name: &str| headers.and_then(|h| h.inner().get(name));
        let header_text = |name: &str| header(name).and_then(value_text);
        // x-death lists the most recent death first; a retried message also
        // carries an older "expired" death from its delay queue.
        let death = header("x-death")
            .and_then(AMQPValue::as_array)
            .and_then(|a| a.as_slice().first())
            .and_then(AMQPValue::as_field_table);
        let death_field = |name: &str| death.and_then(|t| t.inner().get(name)).and_then(value_text);
        let broker_reason = death_field("reason").or_else(|| header_text("x-first-death-reason"));
        let death_queue = death_field("queue").or_else(|| header_text("x-first-death-queue"));
        let kind = header_text(KIND_HEADER)
            .and_then(|k| Lane::parse(&k))
            .or_else(|| death_queue.as_deref().and_then(|q| self.kind_of(q)))
            .or_else(|| self.kind_of(d.routing_key.as_str()));
        let (code, reason) = match (header_text(CODE_HEADER), broker_reason) {
            (Some(code), _) => (code, header_text(REASON_HEADER).unwrap_or_default()),
            (None, Some(why)) => {
                let reason = if why == "delivery_limit" {
                    format!(
                        "delivered {} times without being settled",
                        self.delivery_limit
                    )
                } else {
                    format!("dead-lettered by the broker ({why})")
                };
                (why.replace('_', "-"), reason)
            }
            (None, None) => ("unknown".to_string(), "no dead-letter headers".to_string()),
        };
        DeadLetter {
            body: d.data.clone(),
            lane: kind,
            code,
            reason,
        }
    }
}

/// Deliveries of one kind's queue on a channel of their own, re-subscribing
/// when that channel dies.
struct RabbitConsumer {
    inner: Arc<Inner>,
    kind: Lane,
    prefetch: u16,
    sub: Option<Subscription>,
}

struct Subscription {
    channel: Channel,
    /// Dropping it cancels the subscription (lapin sends basic.cancel).
    deliveries: lapin::Consumer,
}

impl RabbitConsumer {
    /// Subscribes on a fresh channel; `None` when the queue no longer exists
    /// (deleted under a live connection), which ends the stream.
    async fn subscribe(&self) -> Result<Option<Subscription>, QueueError> {
        let inner = &self.inner;
        let queue = queue_name(&inner.prefix, self.kind);
        let queue = queue.as_str();
        let prefetch = self.prefetch;
        inner
            .retrying("basic.consume", || async move {
                let wire = inner.wire(&inner.consumer).await?;
                let channel = inner.open_channel(&wire.conn, false).await?;
                channel
                    .basic_qos(prefetch, BasicQosOptions::default())
                    .await
                    .map_err(|e| inner.fail("basic.qos", &e))?;
                let consumed = channel
                    .basic_consume(
                        queue.into(),
                        "".into(),
                        BasicConsumeOptions::default(),
                        FieldTable::default(),
                    )
                    .await;
                match consumed {
                    Ok(deliveries) => Ok(Some(Subscription {
                        channel,
                        deliveries,
                    })),
                    Err(e) if is_soft(&e, AMQPSoftError::NOTFOUND) => Ok(None),
                    Err(e) => Err(inner.fail("basic.consume", &e)),
                }
            })
            .await
    }
}

#[async_trait]
impl Consumer for RabbitConsumer {
    async fn next(&mut self) -> Result<Option<Delivery>, QueueError> {
        loop {
            if self.sub.is_none() {
                match self.subscribe().await? {
                    Some(sub) => self.sub = Some(sub),
                    None => return Ok(None),
                }
            }
            let Some(sub) = self.sub.as_mut() else {
                continue;
            };
            match sub.deliveries.next().await {
                Some(Ok(d)) => {
                    let deliveries = delivery_count(&d);
                    let body = d.data.clone();
                    let settle = RabbitSettle {
                        inner: self.inner.clone(),
                        kind: self.kind,
                        channel: sub.channel.clone(),
                        acker: Some(d.acker),
                        body: d.data,
                    };
                    return Ok(Some(Delivery::new(body, deliveries, Box::new(settle))));
                }
                Some(Err(e)) => {
                    warn!(kind = %self.kind, error = %self.inner.scrub(e.to_string()), "RabbitMQ consumer channel failed; re-subscribing.");
                }
                None => {
                    warn!(kind = %self.kind, "RabbitMQ ended the subscription; re-subscribing.");
                }
            }
            self.sub = None;
            // Should the broker keep cancelling at once, this keeps the
            // loop from spinning; reconnecting has its own backoff.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Settles one delivery. It keeps the delivery's channel open until then,
/// even after its consumer is dropped, because closing a channel requeues
/// every unsettled delivery on it, not just this one.
struct RabbitSettle {
    inner: Arc<Inner>,
    kind: Lane,
    channel: Channel,
    acker: Option<Acker>,
    body: Vec<u8>,
}

impl RabbitSettle {
    async fn ack_original(&mut self) -> Result<(), QueueError> {
        let Some(acker) = self.acker.take() else {
            return Ok(());
        };
        match acker.ack(BasicAckOptions::default()).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(QueueError::Connection(
                "the delivery's channel closed before the ack; the broker delivers it again"
                    .to_string(),
            )),
            Err(e) => Err(self.inner.fail("basic.ack", &e).into_error()),
        }
    }
}

impl Drop for RabbitSettle {
    fn drop(&mut self) {
        let Some(acker) = self.acker.take() else {
            return;
        };
        // A reject with requeue returns exactly this message; closing the
        // channel would also return the consumer's other in-flight
        // deliveries. Reject rather than nack: RabbitMQ 4 counts only
        // rejects (and channel closes) toward the delivery limit.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            debug!(kind = %self.kind, "No runtime to reject a dropped delivery; it returns when its channel closes.");
            return;
        };
        let channel = self.channel.clone();
        let kind = self.kind;
        runtime.spawn(async move {
            let requeue = BasicRejectOptions { requeue: true };
            if let Err(e) = acker.reject(requeue).await {
                // The channel died, which returns the message anyway.
                debug!(%kind, error = %e, "Could not reject a dropped delivery.");
            }
            drop(channel);
        });
    }
}

#[async_trait]
impl Settle for RabbitSettle {
    async fn ack(mut self: Box<Self>) -> Result<(), QueueError> {
        self.ack_original().await
    }

    async fn retry(mut self: Box<Self>, body: Vec<u8>, after: Duration) -> Result<(), QueueError> {
        // An expiration of 0 would expire at once or not at all depending on
        // the broker; at least 1 ms keeps it a delay.
        let ms = after.as_millis().max(1);
        let props = persistent().with_expiration(ms.to_string().into());
        let delay = self.inner.delay(self.kind);
        // Publish first, ack second: a crash in between duplicates the job,
        // which is harmless, where the other order could lose it.
        self.inner.publish(&delay, &body, props).await?;
        self.ack_original().await
    }

    async fn dead_letter(mut self: Box<Self>, code: &str, reason: &str) -> Result<(), QueueError> {
        let mut headers = FieldTable::default();
        headers.insert(CODE_HEADER.into(), text(code));
        headers.insert(REASON_HEADER.into(), text(reason));
        headers.insert(KIND_HEADER.into(), text(self.kind.as_str()));
        let props = persistent().with_headers(headers);
        let body = std::mem::take(&mut self.body);
        self.inner.publish(&self.inner.dead(), &body, props).await?;
        self.ack_original().await
    }
}

fn persistent() -> BasicProperties {
    BasicProperties::default().with_delivery_mode(PERSISTENT)
}

fn text(s: &str) -> AMQPValue {
    AMQPValue::LongString(LongString::from(s))
}

fn value_text(v: &AMQPValue) -> Option<String> {
    match v {
        AMQPValue::LongString(s) => Some(String::from_utf8_lossy(s.as_bytes()).into_owned()),
        AMQPValue::ShortString(s) => Some(s.as_str().to_string()),
        _ => None,
    }
}

fn value_count(v: &AMQPValue) -> Option<u64> {
    match *v {
        AMQPValue::ShortShortInt(n) => u64::try_from(n).ok(),
        AMQPValue::ShortShortUInt(n) => Some(n.into()),
        AMQPValue::ShortInt(n) => u64::try_from(n).ok(),
        AMQPValue::ShortUInt(n) => Some(n.into()),
        AMQPValue::LongInt(n) => u64::try_from(n).ok(),
        AMQPValue::LongUInt(n) => Some(n.into()),
        AMQPValue::LongLongInt(n) => u64::try_from(n).ok(),
        AMQPValue::Timestamp(n) => Some(n),
        _ => None,
    }
}

/// Deliveries so far, this one included: quorum queues count earlier
/// failed deliveries in `x-delivery-count`; without it, the redelivered
/// flag says at least one came before.
fn delivery_count(d: &AmqpDelivery) -> u32 {
    let earlier = d
        .properties
        .headers()
        .as_ref()
        .and_then(|h| h.inner().get("x-delivery-count"))
        .and_then(value_count);
    match earlier {
        Some(n) => u32::try_from(n.saturating_add(1)).unwrap_or(u32::MAX),
        None if d.redelivered => 2,
        None => 1,
    }
}

fn is_soft(e: &lapin::Error, which: AMQPSoftError) -> bool {
    matches!(e.kind(), ErrorKind::ProtocolError(p) if *p.kind() == AMQPErrorKind::Soft(which))
}

/// Whether a fresh connection may succeed where this one failed.
fn is_transient(e: &lapin::Error) -> bool {
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
fn password_of(url: &str) -> Option<String> {
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
