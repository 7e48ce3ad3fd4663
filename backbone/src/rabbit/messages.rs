//! Publishing with confirms, and reading our messages back: the headers
//! we write, dead letters and delivery counts.

use super::connection::Failure;
use super::*;

impl Inner {
    /// Publishes with the mandatory flag and waits for the broker's confirm,
    /// retrying on a fresh connection when the old one broke (a duplicate
    /// is harmless: job ids are content hashes and results are set-if-absent).
    pub(super) async fn publish(
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
    pub(super) async fn take_dead_letters_once(
        &self,
        max: usize,
    ) -> Result<Vec<DeadLetter>, Failure> {
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

    /// Reads up to `max` quarantined messages; acks them when `purge`, else
    /// closes the channel without acking, which puts them back in order.
    pub(super) async fn read_quarantine_once(
        &self,
        max: usize,
        purge: bool,
    ) -> Result<Vec<DeadLetter>, Failure> {
        let ch = self.scratch_channel().await?;
        let queue = self.quarantine_queue();
        let mut read = Vec::new();
        while read.len() < max {
            let msg = match ch
                .basic_get(queue.as_str().into(), BasicGetOptions::default())
                .await
            {
                Ok(Some(msg)) => msg,
                Ok(None) => break,
                Err(e) => return Err(self.fail("basic.get", &e)),
            };
            read.push(self.dead_letter_of(&msg.delivery));
            if purge {
                msg.delivery
                    .acker
                    .ack(BasicAckOptions::default())
                    .await
                    .map_err(|e| self.fail("basic.ack", &e))?;
            }
        }
        // Unacked messages return to the queue when their channel closes.
        if let Err(e) = ch.close(200, "done".into()).await {
            debug!(error = %self.scrub(e.to_string()), "Quarantine channel did not close cleanly.");
        }
        Ok(read)
    }

    /// Reads code and reason from our own headers, or from the broker's
    /// `x-death` record when the broker dead-lettered it itself.
    pub(super) fn dead_letter_of(&self, d: &AmqpDelivery) -> DeadLetter {
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

/// Our headers on a dead or quarantined message: code, reason, lane.
pub(super) fn letter_headers(letter: &DeadLetter) -> FieldTable {
    let mut headers = FieldTable::default();
    headers.insert(CODE_HEADER.into(), text(&letter.code));
    headers.insert(REASON_HEADER.into(), text(&letter.reason));
    if let Some(lane) = letter.lane {
        headers.insert(KIND_HEADER.into(), text(lane.as_str()));
    }
    headers
}

pub(super) fn persistent() -> BasicProperties {
    BasicProperties::default().with_delivery_mode(PERSISTENT)
}

pub(super) fn text(s: &str) -> AMQPValue {
    AMQPValue::LongString(LongString::from(s))
}

pub(super) fn value_text(v: &AMQPValue) -> Option<String> {
    match v {
        AMQPValue::LongString(s) => Some(String::from_utf8_lossy(s.as_bytes()).into_owned()),
        AMQPValue::ShortString(s) => Some(s.as_str().to_string()),
        _ => None,
    }
}

pub(super) fn value_count(v: &AMQPValue) -> Option<u64> {
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
pub(super) fn delivery_count(d: &AmqpDelivery) -> u32 {
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
