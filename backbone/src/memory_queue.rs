//! The in-process queue of the embedded deployment, with RabbitMQ's
//! redelivery semantics: bounded prefetch, a delivery dropped unsettled is
//! delivered again, delayed retries, and a dead-letter queue fed both on
//! request and when a message exceeds the delivery limit.

use crate::queue::{Consumer, DeadLetter, Delivery, Queue, QueueError, Settle};
use adfarm_proto::{Envelope, Lane};
use async_trait::async_trait;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

struct Message {
    body: Vec<u8>,
    deliveries: u32,
}

#[derive(Default)]
struct Waiting {
    ready: VecDeque<Message>,
    consumers: u64,
}

struct Inner {
    lanes: Mutex<HashMap<Lane, Waiting>>,
    wake: HashMap<Lane, Notify>,
    dead: Mutex<Vec<DeadLetter>>,
    quarantine: Mutex<Vec<DeadLetter>>,
    delivery_limit: u32,
    closed: AtomicBool,
}

impl Inner {
    fn push(&self, kind: Lane, msg: Message, front: bool) {
        {
            let mut lanes = self.lanes.lock().expect("queue lock is never poisoned");
            let lane = lanes.entry(kind).or_default();
            if front {
                lane.ready.push_front(msg);
            } else {
                lane.ready.push_back(msg);
            }
        }
        self.wake[&kind].notify_one();
    }

    fn bury(&self, kind: Lane, body: Vec<u8>, code: &str, reason: &str) {
        self.dead
            .lock()
            .expect("queue lock is never poisoned")
            .push(DeadLetter {
                body,
                lane: Some(kind),
                code: code.to_string(),
                reason: reason.to_string(),
            });
    }
}

/// In-process job queues (one per kind) and a dead-letter queue.
#[derive(Clone)]
pub struct MemoryQueue {
    inner: Arc<Inner>,
}

impl MemoryQueue {
    /// A queue that dead-letters a message on its `delivery_limit`-th
    /// unsettled delivery, as a RabbitMQ quorum queue does.
    pub fn new(delivery_limit: u32) -> MemoryQueue {
        MemoryQueue {
            inner: Arc::new(Inner {
                lanes: Mutex::new(HashMap::new()),
                wake: Lane::ALL.into_iter().map(|k| (k, Notify::new())).collect(),
                dead: Mutex::new(Vec::new()),
                quarantine: Mutex::new(Vec::new()),
                delivery_limit,
                closed: AtomicBool::new(false),
            }),
        }
    }

    /// Ends every consumer's stream: `next` returns `None` from now on.
    pub fn close(&self) {
        self.inner.closed.store(true, Ordering::SeqCst);
        for n in self.inner.wake.values() {
            n.notify_waiters();
        }
    }
}

#[async_trait]
impl Queue for MemoryQueue {
    async fn publish(&self, env: &Envelope) -> Result<(), QueueError> {
        let body = serde_json::to_vec(env).expect("envelope serialises");
        self.publish_raw(env.lane(), &body).await
    }

    async fn publish_raw(&self, kind: Lane, body: &[u8]) -> Result<(), QueueError> {
        self.inner.push(
            kind,
            Message {
                body: body.to_vec(),
                deliveries: 0,
            },
            false,
        );
        Ok(())
    }

    async fn consume(&self, kind: Lane, prefetch: u16) -> Result<Box<dyn Consumer>, QueueError> {
        let mut lanes = self
            .inner
            .lanes
            .lock()
            .expect("queue lock is never poisoned");
        lanes.entry(kind).or_default().consumers += 1;
        Ok(Box::new(MemoryConsumer {
            inner: self.inner.clone(),
            kind,
            permits: Arc::new(Semaphore::new(prefetch.max(1) as usize)),
        }))
    }

    async fn depth(&self, kind: Lane) -> Result<u64, QueueError> {
        let lanes = self
            .inner
            .lanes
            .lock()
            .expect("queue lock is never poisoned");
        Ok(lanes.get(&kind).map_or(0, |l| l.ready.len() as u64))
    }

    async fn consumers(&self, kind: Lane) -> Result<u64, QueueError> {
        let lanes = self
            .inner
            .lanes
            .lock()
            .expect("queue lock is never poisoned");
        Ok(lanes.get(&kind).map_or(0, |l| l.consumers))
    }

    async fn take_dead_letters(&self, max: usize) -> Result<Vec<DeadLetter>, QueueError> {
        let mut dead = self
            .inner
            .dead
            .lock()
            .expect("queue lock is never poisoned");
        let n = dead.len().min(max);
        Ok(dead.drain(..n).collect())
    }

    async fn quarantine(&self, letter: &DeadLetter) -> Result<(), QueueError> {
        self.inner
            .quarantine
            .lock()
            .expect("queue lock is never poisoned")
            .push(letter.clone());
        Ok(())
    }

    async fn quarantined(&self, max: usize, purge: bool) -> Result<Vec<DeadLetter>, QueueError> {
        let mut held = self
            .inner
            .quarantine
            .lock()
            .expect("queue lock is never poisoned");
        let n = held.len().min(max);
        Ok(if purge {
            held.drain(..n).collect()
        } else {
            held[..n].to_vec()
        })
    }
}

struct MemoryConsumer {
    inner: Arc<Inner>,
    kind: Lane,
    permits: Arc<Semaphore>,
}

impl Drop for MemoryConsumer {
    fn drop(&mut self) {
        let mut lanes = self
            .inner
            .lanes
            .lock()
            .expect("queue lock is never poisoned");
        if let Some(lane) = lanes.get_mut(&self.kind) {
            lane.consumers = lane.consumers.saturating_sub(1);
        }
    }
}

#[async_trait]
impl Consumer for MemoryConsumer {
    async fn next(&mut self) -> Result<Option<Delivery>, QueueError> {
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .expect("semaphore never closed");
        loop {
            if self.inner.closed.load(Ordering::SeqCst) {
                return Ok(None);
            }
            let notified = self.inner.wake[&self.kind].notified();
            let popped = {
                let mut lanes = self
                    .inner
                    .lanes
                    .lock()
                    .expect("queue lock is never poisoned");
                lanes.get_mut(&self.kind).and_then(|l| l.ready.pop_front())
            };
            match popped {
                Some(mut msg) => {
                    msg.deliveries += 1;
                    if msg.deliveries > self.inner.delivery_limit {
                        self.inner.bury(
                            self.kind,
                            msg.body,
                            "delivery-limit",
                            "delivered too many times without being settled",
                        );
                        continue;
                    }
                    let body = msg.body.clone();
                    let deliveries = msg.deliveries;
                    let settle = MemorySettle {
                        inner: self.inner.clone(),
                        kind: self.kind,
                        msg: Some(msg),
                        _permit: permit,
                    };
                    return Ok(Some(Delivery::new(body, deliveries, Box::new(settle))));
                }
                // A bounded wait also covers a wake-up lost to a racing consumer.
                None => {
                    let _ = tokio::time::timeout(Duration::from_millis(200), notified).await;
                }
            }
        }
    }
}

struct MemorySettle {
    inner: Arc<Inner>,
    kind: Lane,
    msg: Option<Message>,
    _permit: OwnedSemaphorePermit,
}

impl Drop for MemorySettle {
    fn drop(&mut self) {
        // Unsettled: deliver again, as a broker does when a consumer dies.
        if let Some(msg) = self.msg.take() {
            self.inner.push(self.kind, msg, true);
        }
    }
}

#[async_trait]
impl Settle for MemorySettle {
    async fn ack(mut self: Box<Self>) -> Result<(), QueueError> {
        self.msg = None;
        Ok(())
    }

    async fn retry(mut self: Box<Self>, body: Vec<u8>, after: Duration) -> Result<(), QueueError> {
        self.msg = None;
        let inner = self.inner.clone();
        let kind = self.kind;
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            inner.push(
                kind,
                Message {
                    body,
                    deliveries: 0,
                },
                false,
            );
        });
        Ok(())
    }

    async fn dead_letter(mut self: Box<Self>, code: &str, reason: &str) -> Result<(), QueueError> {
        if let Some(msg) = self.msg.take() {
            self.inner.bury(self.kind, msg.body, code, reason);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn dropped_deliveries_come_back_until_the_limit() {
        let q = MemoryQueue::new(2);
        q.publish_raw(Lane::Model, b"x").await.unwrap();
        let mut c = q.consume(Lane::Model, 1).await.unwrap();
        let d = c.next().await.unwrap().unwrap();
        assert_eq!(d.deliveries, 1);
        drop(d);
        let d = c.next().await.unwrap().unwrap();
        assert_eq!((d.body.as_slice(), d.deliveries), (&b"x"[..], 2));
        drop(d);
        assert_eq!(q.depth(Lane::Model).await.unwrap(), 1);
        let next = tokio::time::timeout(Duration::from_millis(300), c.next()).await;
        assert!(next.is_err(), "third delivery exceeds the limit");
        let dead = q.take_dead_letters(10).await.unwrap();
        assert_eq!(dead.len(), 1);
        assert_eq!(dead[0].code, "delivery-limit");
    }

    #[tokio::test]
    async fn prefetch_bounds_unsettled_deliveries_and_retry_redelivers() {
        let q = MemoryQueue::new(5);
        for b in [b"a", b"b"] {
            q.publish_raw(Lane::Solve, b).await.unwrap();
        }
        let mut c = q.consume(Lane::Solve, 1).await.unwrap();
        let first = c.next().await.unwrap().unwrap();
        let blocked = tokio::time::timeout(Duration::from_millis(100), c.next()).await;
        assert!(blocked.is_err(), "prefetch 1 holds the second message back");
        first
            .retry_body(b"a2".to_vec(), Duration::from_millis(10))
            .await
            .unwrap();
        let second = c.next().await.unwrap().unwrap();
        assert_eq!(second.body, b"b");
        second.ack().await.unwrap();
        let third = c.next().await.unwrap().unwrap();
        assert_eq!(third.body, b"a2");
        third.dead_letter("bad-message", "not JSON").await.unwrap();
        assert_eq!(q.take_dead_letters(10).await.unwrap()[0].reason, "not JSON");
        assert_eq!(q.consumers(Lane::Solve).await.unwrap(), 1);
    }
}
