//! Consuming a lane's queue and settling each delivery (ack, retry later,
//! dead-letter).

use super::connection::is_soft;
use super::messages::delivery_count;
use super::*;

/// Deliveries of one kind's queue on a channel of their own, re-subscribing
/// when that channel dies.
pub(super) struct RabbitConsumer {
    pub(super) inner: Arc<Inner>,
    pub(super) kind: Lane,
    pub(super) prefetch: u16,
    pub(super) sub: Option<Subscription>,
}

pub(super) struct Subscription {
    pub(super) channel: Channel,
    /// Dropping it cancels the subscription (lapin sends basic.cancel).
    pub(super) deliveries: lapin::Consumer,
}

impl RabbitConsumer {
    /// Subscribes on a fresh channel; `None` when the queue no longer exists
    /// (deleted under a live connection), which ends the stream.
    pub(super) async fn subscribe(&self) -> Result<Option<Subscription>, QueueError> {
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
pub(super) struct RabbitSettle {
    pub(super) inner: Arc<Inner>,
    pub(super) kind: Lane,
    pub(super) channel: Channel,
    pub(super) acker: Option<Acker>,
    pub(super) body: Vec<u8>,
}

impl RabbitSettle {
    pub(super) async fn ack_original(&mut self) -> Result<(), QueueError> {
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
        let body = std::mem::take(&mut self.body);
        let letter = DeadLetter {
            body,
            lane: Some(self.kind),
            code: code.to_string(),
            reason: reason.to_string(),
        };
        let props = persistent().with_headers(letter_headers(&letter));
        let body = letter.body;
        self.inner.publish(&self.inner.dead(), &body, props).await?;
        self.ack_original().await
    }
}
