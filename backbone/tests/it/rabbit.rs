//! `RabbitQueue` against a real RabbitMQ (`ADFARM_AMQP_URL`, else the local
//! default), each test under a prefix of its own whose queues it deletes.

use adfarm_backbone::queue::Consumer;
use adfarm_backbone::{DeadLetter, Delivery, Queue, QueueError, RabbitQueue};
use adfarm_proto::{Cell, Envelope, Item, JobSpec, Lane, Scope, SweepId, Variant};
use backon::ExponentialBuilder;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

const DEFAULT_URL: &str = "amqp://guest:guest@127.0.0.1:5672/%2f";
/// Long enough for a loaded broker, short enough to fail a hung test fast.
const PATIENCE: Duration = Duration::from_secs(10);

fn url() -> String {
    std::env::var("ADFARM_AMQP_URL").unwrap_or_else(|_| DEFAULT_URL.to_string())
}

fn prefix(test: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .subsec_nanos();
    format!("adfarm-test-{}-{test}-{nanos}", std::process::id())
}

async fn queue(test: &str, delivery_limit: u32) -> Cleanup {
    let q = RabbitQueue::connect(&url(), &prefix(test), delivery_limit)
        .await
        .expect("RabbitMQ reachable at ADFARM_AMQP_URL or the local default");
    Cleanup(q)
}

/// Deletes the test's queues when it ends, passed or failed, so a failing
/// test leaves nothing on a shared broker. Needs the multi-thread runtime.
struct Cleanup(RabbitQueue);

impl std::ops::Deref for Cleanup {
    type Target = RabbitQueue;
    fn deref(&self) -> &RabbitQueue {
        &self.0
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let q = self.0.clone();
        let deleted = tokio::task::block_in_place(|| {
            tokio::runtime::Handle::current().block_on(q.delete_all())
        });
        if let Err(e) = deleted {
            eprintln!("could not delete the test's queues: {e}");
        }
    }
}

fn envelope(item: &str) -> Envelope {
    let job = JobSpec {
        stage: "solve".into(),
        lane: Lane::Solve,
        scope: Scope::Run,
        variant: Variant::none(),
        cell: Cell {
            suite: "synthetic".into(),
            dataset: "tiny".into(),
            solution: "echo".into(),
            seed: 7,
        },
        item: Item {
            id: item.into(),
            input: format!("query {item}"),
            meta: serde_json::Value::Null,
        },
    };
    Envelope::new(SweepId("sweep-1".into()), job, b"config")
}

async fn next(c: &mut Box<dyn Consumer>) -> Delivery {
    tokio::time::timeout(PATIENCE, c.next())
        .await
        .expect("a delivery in time")
        .expect("consumer healthy")
        .expect("stream open")
}

/// Asserts that nothing is delivered within `wait`.
async fn nothing_within(c: &mut Box<dyn Consumer>, wait: Duration) {
    if let Ok(got) = tokio::time::timeout(wait, c.next()).await {
        let body = got.ok().flatten().map(|d| d.body);
        panic!("expected no delivery within {wait:?}, got {body:?}");
    }
}

/// Polls `probe` until it returns `want` or PATIENCE runs out.
async fn eventually<F, Fut>(want: u64, mut probe: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<u64, QueueError>>,
{
    let start = Instant::now();
    loop {
        let got = probe().await.expect("probe");
        if got == want {
            return;
        }
        assert!(start.elapsed() < PATIENCE, "still {got}, wanted {want}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The dead letters the broker has routed, polling until there are some or
/// PATIENCE runs out.
async fn dead_letters(q: &RabbitQueue) -> Vec<DeadLetter> {
    let start = Instant::now();
    loop {
        let dead = q.take_dead_letters(10).await.unwrap();
        if !dead.is_empty() || start.elapsed() > PATIENCE {
            return dead;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publish_consume_ack_round_trip() {
    let q = queue("round-trip", 5).await;
    let env = envelope("a");
    q.publish(&env).await.unwrap();
    let mut c = q.consume(Lane::Solve, 4).await.unwrap();
    let d = next(&mut c).await;
    assert_eq!(d.deliveries, 1);
    let got: Envelope = serde_json::from_slice(&d.body).unwrap();
    assert_eq!(got, env);
    d.ack().await.unwrap();
    nothing_within(&mut c, Duration::from_millis(300)).await;
    drop(c);
    assert_eq!(q.depth(Lane::Solve).await.unwrap(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefetch_bounds_unsettled_deliveries() {
    let q = queue("prefetch", 5).await;
    for i in 0..5u8 {
        q.publish_raw(Lane::Model, &[b'0' + i]).await.unwrap();
    }
    let mut c = q.consume(Lane::Model, 2).await.unwrap();
    let first = next(&mut c).await;
    let second = next(&mut c).await;
    nothing_within(&mut c, Duration::from_millis(400)).await;
    eventually(3, || q.depth(Lane::Model)).await;
    first.ack().await.unwrap();
    let third = next(&mut c).await;
    nothing_within(&mut c, Duration::from_millis(300)).await;
    second.ack().await.unwrap();
    third.ack().await.unwrap();
    let mut bodies = vec![first_body(&mut c).await, first_body(&mut c).await];
    bodies.sort();
    assert_eq!(bodies, vec![b"3".to_vec(), b"4".to_vec()]);
    drop(c);
}

async fn first_body(c: &mut Box<dyn Consumer>) -> Vec<u8> {
    let d = next(c).await;
    let body = d.body.clone();
    d.ack().await.unwrap();
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_delivery_is_delivered_again() {
    let q = queue("dropped", 5).await;
    q.publish_raw(Lane::Solve, b"job").await.unwrap();
    let mut c = q.consume(Lane::Solve, 1).await.unwrap();
    let d = next(&mut c).await;
    assert_eq!(d.deliveries, 1);
    drop(d);
    let d = next(&mut c).await;
    assert_eq!((d.body.as_slice(), d.deliveries), (&b"job"[..], 2));
    d.ack().await.unwrap();
    drop(c);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_can_be_settled_after_its_consumer_is_gone() {
    // A worker shutting down stops consuming first, then lets its
    // in-flight jobs finish and settle.
    let q = queue("outlives", 5).await;
    q.publish_raw(Lane::Solve, b"in-flight").await.unwrap();
    q.publish_raw(Lane::Solve, b"waiting").await.unwrap();
    let mut c = q.consume(Lane::Solve, 1).await.unwrap();
    let d = next(&mut c).await;
    drop(c);
    d.ack().await.unwrap();
    // A quorum queue counts a cancelled consumer until its deliveries are
    // settled, so the count drops only now.
    eventually(0, || q.consumers(Lane::Solve)).await;
    eventually(1, || q.depth(Lane::Solve)).await;
    let mut c = q.consume(Lane::Solve, 1).await.unwrap();
    assert_eq!(first_body(&mut c).await, b"waiting");
    nothing_within(&mut c, Duration::from_millis(300)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_comes_back_after_its_delay_and_not_before() {
    let q = queue("retry", 5).await;
    q.publish_raw(Lane::Model, b"attempt-0").await.unwrap();
    let mut c = q.consume(Lane::Model, 1).await.unwrap();
    let d = next(&mut c).await;
    let start = Instant::now();
    d.retry_body(b"attempt-1".to_vec(), Duration::from_millis(200))
        .await
        .unwrap();
    nothing_within(&mut c, Duration::from_millis(150)).await;
    let d = next(&mut c).await;
    assert!(
        start.elapsed() >= Duration::from_millis(200),
        "came back after {:?}",
        start.elapsed()
    );
    assert_eq!((d.body.as_slice(), d.deliveries), (&b"attempt-1"[..], 1));
    d.ack().await.unwrap();
    drop(c);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dead_letter_carries_code_and_reason() {
    let q = queue("dead-letter", 5).await;
    q.publish_raw(Lane::Embed, b"{oops").await.unwrap();
    let mut c = q.consume(Lane::Embed, 1).await.unwrap();
    let d = next(&mut c).await;
    d.dead_letter("bad-message", "not JSON: key must be a string")
        .await
        .unwrap();
    let dead = q.take_dead_letters(10).await.unwrap();
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].body, b"{oops");
    assert_eq!(dead[0].lane, Some(Lane::Embed));
    assert_eq!(dead[0].code, "bad-message");
    assert_eq!(dead[0].reason, "not JSON: key must be a string");
    assert!(q.take_dead_letters(10).await.unwrap().is_empty());
    nothing_within(&mut c, Duration::from_millis(300)).await;
    drop(c);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_delivery_limit_the_broker_dead_letters_it() {
    let q = queue("limit", 2).await;
    q.publish_raw(Lane::Solve, b"poison").await.unwrap();
    let mut c = q.consume(Lane::Solve, 1).await.unwrap();
    for n in 1..=2 {
        let d = next(&mut c).await;
        assert_eq!(d.deliveries, n);
        drop(d);
    }
    nothing_within(&mut c, Duration::from_millis(500)).await;
    let dead = dead_letters(&q).await;
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].body, b"poison");
    assert_eq!(dead[0].code, "delivery-limit");
    assert_eq!(dead[0].lane, Some(Lane::Solve));
    drop(c);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queues_made_with_another_delivery_limit_are_refused_naming_the_flag() {
    let prefix = prefix("limit-mismatch");
    let _q = Cleanup(
        RabbitQueue::connect(&url(), &prefix, 5)
            .await
            .expect("RabbitMQ reachable"),
    );
    let e = RabbitQueue::connect(&url(), &prefix, 20)
        .await
        .expect_err("the broker refuses another x-delivery-limit");
    let text = e.to_string();
    assert!(matches!(e, QueueError::Broker { .. }), "{text}");
    assert!(
        text.contains("another delivery limit") && text.contains("--delivery-limit"),
        "{text}"
    );
    // The same limit is accepted.
    RabbitQueue::connect(&url(), &prefix, 5)
        .await
        .expect("the same limit declares again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_message_past_the_limit_still_reads_delivery_limit() {
    // A retry leaves an "expired" death from the delay queue on the message;
    // the code must come from the latest death, not the first.
    let q = queue("retry-limit", 1).await;
    q.publish_raw(Lane::Model, b"first").await.unwrap();
    let mut c = q.consume(Lane::Model, 1).await.unwrap();
    next(&mut c)
        .await
        .retry_body(b"second".to_vec(), Duration::from_millis(1))
        .await
        .unwrap();
    drop(next(&mut c).await);
    let dead = dead_letters(&q).await;
    assert_eq!(dead.len(), 1);
    assert_eq!(
        (dead[0].body.as_slice(), dead[0].code.as_str()),
        (&b"second"[..], "delivery-limit")
    );
    drop(c);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raw_non_json_body_is_delivered_as_is() {
    let q = queue("raw", 5).await;
    let body = b"\xff\x00 not json at all";
    q.publish_raw(Lane::Model, body).await.unwrap();
    let mut c = q.consume(Lane::Model, 1).await.unwrap();
    let d = next(&mut c).await;
    assert_eq!(d.body, body);
    d.ack().await.unwrap();
    drop(c);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn depth_and_consumers_report_the_queue() {
    let q = queue("depth", 5).await;
    for item in ["a", "b", "c"] {
        q.publish(&envelope(item)).await.unwrap();
    }
    assert_eq!(q.depth(Lane::Solve).await.unwrap(), 3);
    assert_eq!(q.depth(Lane::Model).await.unwrap(), 0);
    assert_eq!(q.consumers(Lane::Solve).await.unwrap(), 0);
    let c = q.consume(Lane::Solve, 1).await.unwrap();
    let other = q.consume(Lane::Solve, 1).await.unwrap();
    assert_eq!(q.consumers(Lane::Solve).await.unwrap(), 2);
    // Each holds one message in its prefetch window: unacked, not ready.
    eventually(1, || q.depth(Lane::Solve)).await;
    drop(other);
    eventually(1, || q.consumers(Lane::Solve)).await;
    eventually(2, || q.depth(Lane::Solve)).await;
    drop(c);
    eventually(0, || q.consumers(Lane::Solve)).await;
    eventually(3, || q.depth(Lane::Solve)).await;
    q.purge_all().await.unwrap();
    assert_eq!(q.depth(Lane::Solve).await.unwrap(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publishing_to_a_deleted_queue_is_not_confirmed_and_ends_its_consumer() {
    let q = queue("deleted", 5).await;
    let mut c = q.consume(Lane::Model, 1).await.unwrap();
    q.delete_all().await.unwrap();
    let err = q.publish_raw(Lane::Model, b"x").await.unwrap_err();
    assert!(matches!(err, QueueError::NotConfirmed { .. }), "{err}");
    let end = tokio::time::timeout(PATIENCE, c.next()).await.unwrap();
    assert!(
        matches!(end, Ok(None)),
        "a consumer of a deleted queue ends"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_never_show_the_password() {
    let quick = ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(10))
        .with_max_times(1);
    let unreachable = "amqp://adfarm:hunter2-secret@127.0.0.1:1/%2f";
    let err = RabbitQueue::connect_with_retry(unreachable, "p", 5, quick)
        .await
        .unwrap_err()
        .to_string();
    assert!(!err.contains("hunter2"), "{err}");
    assert!(err.contains("amqp://***@127.0.0.1:1"), "{err}");
    let wrong = with_password(&url(), "wrong-pw-4711");
    let err = RabbitQueue::connect_with_retry(&wrong, "p", 5, quick)
        .await
        .unwrap_err()
        .to_string();
    assert!(!err.contains("wrong-pw-4711"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_connection_is_reestablished_and_nothing_is_lost() {
    let proxy = Proxy::start(broker_addr(&url())).await;
    let q = RabbitQueue::connect(&proxy.url(&url()), &prefix("reconnect"), 5)
        .await
        .map(Cleanup)
        .unwrap();
    q.publish_raw(Lane::Solve, b"one").await.unwrap();
    q.publish_raw(Lane::Solve, b"two").await.unwrap();
    let mut c = q.consume(Lane::Solve, 1).await.unwrap();
    let held = next(&mut c).await;
    assert_eq!(held.body, b"one");

    // As in a broker restart: connections drop, then new ones are refused
    // for a while, then accepted again.
    proxy.sever();
    proxy.refuse_for(Duration::from_millis(1200));
    // Once the client has seen the connection close, the delivery's channel
    // is known dead and acking it says so; the broker delivers it again.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let ack = held.ack().await;
    assert!(matches!(ack, Err(QueueError::Connection(_))), "{ack:?}");
    let outage = Instant::now();
    q.publish_raw(Lane::Solve, b"three").await.unwrap();
    assert!(
        outage.elapsed() >= Duration::from_millis(400),
        "publish waited out the outage: {:?}",
        outage.elapsed()
    );
    let mut seen = Vec::new();
    while seen.len() < 3 {
        let d = next(&mut c).await;
        if d.body == b"one" {
            assert!(d.deliveries >= 2, "redelivered: {}", d.deliveries);
        }
        seen.push(d.body.clone());
        d.ack().await.unwrap();
    }
    seen.sort();
    assert_eq!(
        seen,
        vec![b"one".to_vec(), b"three".to_vec(), b"two".to_vec()]
    );
    nothing_within(&mut c, Duration::from_millis(300)).await;
    drop(c);
    assert_eq!(q.depth(Lane::Solve).await.unwrap(), 0);
}

fn broker_addr(url: &str) -> SocketAddr {
    let uri: lapin::uri::AMQPUri = url.parse().expect("valid AMQP URL");
    let host = if uri.authority.host == "localhost" {
        "127.0.0.1".to_string()
    } else {
        uri.authority.host
    };
    format!("{host}:{}", uri.authority.port)
        .parse()
        .expect("broker host is an IP address")
}

fn with_password(url: &str, password: &str) -> String {
    let uri: lapin::uri::AMQPUri = url.parse().expect("valid AMQP URL");
    let user = uri.authority.userinfo.username;
    let (scheme, rest) = url.split_once("://").expect("URL has a scheme");
    let host = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    format!("{scheme}://{user}:{password}@{host}")
}

/// A TCP relay to the broker whose connections the test can cut, which
/// looks to the client like a broker restart.
struct Proxy {
    addr: SocketAddr,
    relays: Arc<Mutex<Vec<AbortHandle>>>,
    refusing: Arc<AtomicBool>,
    accept: AbortHandle,
}

impl Proxy {
    async fn start(broker: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let relays: Arc<Mutex<Vec<AbortHandle>>> = Arc::default();
        let registry = relays.clone();
        let refusing = Arc::new(AtomicBool::new(false));
        let refuse = refusing.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if refuse.load(Ordering::SeqCst) {
                    // Closing at once fails the client's handshake.
                    continue;
                }
                let relay = tokio::spawn(async move {
                    if let Ok(mut upstream) = TcpStream::connect(broker).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                    }
                });
                registry.lock().unwrap().push(relay.abort_handle());
            }
        });
        Proxy {
            addr,
            relays,
            refusing,
            accept: accept.abort_handle(),
        }
    }

    /// `url` pointed at this proxy.
    fn url(&self, url: &str) -> String {
        let (scheme, rest) = url.split_once("://").expect("URL has a scheme");
        let (userinfo, hostpath) = match rest.rsplit_once('@') {
            Some((userinfo, hostpath)) => (format!("{userinfo}@"), hostpath),
            None => (String::new(), rest),
        };
        let path = hostpath.find('/').map_or("", |i| &hostpath[i..]);
        format!("{scheme}://{userinfo}{}{path}", self.addr)
    }

    /// Drops new connections at once for `outage`.
    fn refuse_for(&self, outage: Duration) {
        self.refusing.store(true, Ordering::SeqCst);
        let refusing = self.refusing.clone();
        tokio::spawn(async move {
            tokio::time::sleep(outage).await;
            refusing.store(false, Ordering::SeqCst);
        });
    }

    /// Cuts every relayed connection.
    fn sever(&self) {
        for relay in self.relays.lock().unwrap().drain(..) {
            relay.abort();
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.sever();
    }
}

/// Workers that start together declare the same new queues at once; the
/// broker may answer one of them NOT_FOUND while another creates a queue.
/// Every one of them must still connect, onto one working topology.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_starting_together_all_connect_to_one_new_topology() {
    for round in 0..6 {
        let prefix = prefix(&format!("together-{round}"));
        let url = url();
        let connects = (0..6).map(|_| RabbitQueue::connect(&url, &prefix, 5));
        let queues: Vec<RabbitQueue> = futures::future::join_all(connects)
            .await
            .into_iter()
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("round {round}: a connect failed: {e}"));
        let _cleanup = Cleanup(queues[0].clone());
        let env = envelope(&format!("round-{round}"));
        queues[0].publish(&env).await.unwrap();
        let mut c = queues[5].consume(Lane::Solve, 1).await.unwrap();
        let d = next(&mut c).await;
        assert_eq!(serde_json::from_slice::<Envelope>(&d.body).unwrap(), env);
        d.ack().await.unwrap();
    }
}
