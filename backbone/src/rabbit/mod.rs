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

mod connection;
mod consumer;
mod messages;

use connection::{password_of, Inner, Link};
use consumer::RabbitConsumer;
use messages::{letter_headers, persistent};

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
    /// configured otherwise. RabbitMQ before 4.3 counts every return as a
    /// delivery, a connection lost to a killed worker or a restarted broker
    /// included, so the limit has to ride out infrastructure failures: 20,
    /// RabbitMQ 4's own default. A failing job is bounded by the worker's
    /// attempts instead; this limit only stops a message that kills every
    /// worker that takes it.
    pub const DEFAULT_DELIVERY_LIMIT: u32 = 20;

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

    async fn quarantine(&self, letter: &DeadLetter) -> Result<(), QueueError> {
        let props = persistent().with_headers(letter_headers(letter));
        self.inner
            .publish(&self.inner.quarantine_queue(), &letter.body, props)
            .await
    }

    async fn quarantined(&self, max: usize, purge: bool) -> Result<Vec<DeadLetter>, QueueError> {
        let inner = &self.inner;
        inner
            .retrying("basic.get", || inner.read_quarantine_once(max, purge))
            .await
    }
}
