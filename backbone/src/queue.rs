//! The `Queue` seam: publish jobs with confirmation, consume them with
//! bounded prefetch, and settle every delivery exactly once (ack, retry
//! later, or dead-letter with a reason).

use adfarm_proto::{Envelope, Lane};
use async_trait::async_trait;
use std::time::Duration;

/// Queue failures.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    /// The broker connection failed or was lost.
    #[error("queue connection failed: {0}")]
    Connection(String),
    /// The broker refused or did not confirm a publish.
    #[error("publish to queue {queue} was not confirmed: {reason}")]
    NotConfirmed {
        /// Queue name.
        queue: String,
        /// What the broker said.
        reason: String,
    },
    /// Any other broker-side failure.
    #[error("queue operation {op} failed: {reason}")]
    Broker {
        /// Operation.
        op: &'static str,
        /// What the broker said.
        reason: String,
    },
}

impl QueueError {
    /// Bounded error code, usable as a metric label.
    pub fn code(&self) -> &'static str {
        match self {
            QueueError::Connection(_) => "queue-connection",
            QueueError::NotConfirmed { .. } => "queue-not-confirmed",
            QueueError::Broker { .. } => "queue-broker",
        }
    }
}

/// Name of the queue for `lane` (never a Rust type name).
pub fn queue_name(prefix: &str, lane: Lane) -> String {
    format!("{prefix}.{}", lane.as_str())
}

/// A message that ended in the dead-letter queue.
#[derive(Debug, Clone, PartialEq)]
pub struct DeadLetter {
    /// The message body as published.
    pub body: Vec<u8>,
    /// Lane of the queue it came from, when known.
    pub lane: Option<Lane>,
    /// Bounded code (`bad-message`, `delivery-limit`, a job error code).
    pub code: String,
    /// Why it was dead-lettered.
    pub reason: String,
}

/// Job queues, one per [`Lane`], plus a dead-letter queue.
#[async_trait]
pub trait Queue: Send + Sync {
    /// Publishes `env` to the queue of its lane; returns once confirmed.
    ///
    /// # Errors
    /// When the broker is unreachable or does not confirm.
    async fn publish(&self, env: &Envelope) -> Result<(), QueueError>;

    /// Publishes raw bytes to the queue of `lane` (used for retries of
    /// unparsed messages and by tests that inject bad messages).
    ///
    /// # Errors
    /// As [`Queue::publish`].
    async fn publish_raw(&self, lane: Lane, body: &[u8]) -> Result<(), QueueError>;

    /// Starts consuming `lane` with at most `prefetch` unsettled deliveries.
    ///
    /// # Errors
    /// When the broker is unreachable.
    async fn consume(&self, lane: Lane, prefetch: u16) -> Result<Box<dyn Consumer>, QueueError>;

    /// Messages ready in the queue of `lane` (not counting unacked ones).
    ///
    /// # Errors
    /// When the broker is unreachable.
    async fn depth(&self, lane: Lane) -> Result<u64, QueueError>;

    /// Consumers attached to the queue of `lane`.
    ///
    /// # Errors
    /// When the broker is unreachable.
    async fn consumers(&self, lane: Lane) -> Result<u64, QueueError>;

    /// Removes and returns up to `max` messages from the dead-letter queue.
    ///
    /// # Errors
    /// When the broker is unreachable.
    async fn take_dead_letters(&self, max: usize) -> Result<Vec<DeadLetter>, QueueError>;

    /// Sets `letter` aside in the quarantine: a message that belongs to no
    /// planned job (refused by a worker, unreadable, of no registered
    /// sweep). It never counts in a sweep, and stays until someone looks
    /// (`adfarm dead-letters`) and purges it.
    ///
    /// # Errors
    /// When the broker is unreachable or does not confirm.
    async fn quarantine(&self, letter: &DeadLetter) -> Result<(), QueueError>;

    /// Up to `max` quarantined messages, oldest first; removed from the
    /// quarantine when `purge`, left there otherwise.
    ///
    /// # Errors
    /// When the broker is unreachable.
    async fn quarantined(&self, max: usize, purge: bool) -> Result<Vec<DeadLetter>, QueueError>;
}

/// A stream of deliveries from one queue.
#[async_trait]
pub trait Consumer: Send {
    /// Waits for the next delivery; `None` once the queue is closed.
    ///
    /// # Errors
    /// When the connection is lost and cannot be re-established.
    async fn next(&mut self) -> Result<Option<Delivery>, QueueError>;
}

/// How a delivery is settled; implemented by each queue.
#[async_trait]
pub trait Settle: Send {
    /// Removes the message: its result is stored.
    async fn ack(self: Box<Self>) -> Result<(), QueueError>;
    /// Replaces the message with `body`, delivered again after `after`.
    async fn retry(self: Box<Self>, body: Vec<u8>, after: Duration) -> Result<(), QueueError>;
    /// Moves the message to the dead-letter queue with a reason.
    async fn dead_letter(self: Box<Self>, code: &str, reason: &str) -> Result<(), QueueError>;
}

/// One message taken from a queue. Settling consumes it, so each delivery
/// is settled exactly once; one dropped unsettled is delivered again.
pub struct Delivery {
    /// The message body.
    pub body: Vec<u8>,
    /// How many times this message was delivered, this time included.
    pub deliveries: u32,
    settle: Box<dyn Settle>,
}

impl Delivery {
    /// Wraps a body with the queue's way of settling it.
    pub fn new(body: Vec<u8>, deliveries: u32, settle: Box<dyn Settle>) -> Delivery {
        Delivery {
            body,
            deliveries,
            settle,
        }
    }

    /// Acknowledges: the job's result (or failure) is stored.
    ///
    /// # Errors
    /// When the broker connection is gone (the message will be redelivered).
    pub async fn ack(self) -> Result<(), QueueError> {
        self.settle.ack().await
    }

    /// Puts `env` (usually with `attempt` bumped) back on the queue after
    /// `after`, and removes this delivery.
    ///
    /// # Errors
    /// When the broker connection is gone.
    pub async fn retry(self, env: &Envelope, after: Duration) -> Result<(), QueueError> {
        let body = serde_json::to_vec(env).expect("envelope serialises");
        self.retry_body(body, after).await
    }

    /// As [`Delivery::retry`] with a raw body.
    ///
    /// # Errors
    /// When the broker connection is gone.
    pub async fn retry_body(self, body: Vec<u8>, after: Duration) -> Result<(), QueueError> {
        self.settle.retry(body, after).await
    }

    /// Moves the message to the dead-letter queue with `code` and `reason`.
    ///
    /// # Errors
    /// When the broker connection is gone.
    pub async fn dead_letter(self, code: &str, reason: &str) -> Result<(), QueueError> {
        self.settle.dead_letter(code, reason).await
    }
}
