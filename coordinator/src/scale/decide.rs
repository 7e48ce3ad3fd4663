//! How many workers a pool should run: a pure function of its backlog, the
//! rate limits of the provider models its jobs call, and its current size.
//! The Kubernetes side (reading and patching the Deployment's scale) is in
//! [`super::deployment`], the loop in [`super::control`].
//!
//! The formula, by Little's law (requests in flight = rate × latency):
//!
//! - **Rate cap.** Saturating provider `p` (`rpm_p` requests/min, calls of
//!   `lat_p` seconds) takes `L_p = rpm_p / 60 × lat_p` calls in flight. A
//!   worker holds `slots` jobs in flight, and at most `max_concurrency_p`
//!   calls to `p`. So the pool can feed at most
//!   `cap = max(⌈Σ L_p / slots⌉, max_p ⌈L_p / min(slots, max_concurrency_p)⌉)`
//!   workers (at least 1); a 60 rpm key with 2 s calls needs 2 calls in
//!   flight: one worker, never 50.
//! - **Demand.** Draining `backlog` jobs within `drain_target` takes
//!   `backlog / drain_target × lat` jobs in flight, on top of the jobs in
//!   flight now; `demand = ⌈(that) / slots⌉`, at least 1 while there is work.
//! - **Bounds.** `upper = min(max_replicas, cap)` is never exceeded (it wins
//!   over step limits and over `min_replicas`); `lower = min(min_replicas, upper)`.
//! - **Idle.** With no backlog and nothing in flight the pool keeps its size
//!   for `idle_before_zero`, then drops to `lower` (zero by default).
//! - **Flapping.** Each decision moves at most `max_step_up` up and
//!   `max_step_down` down, except to honour `upper` or the idle drop.

use adfarm_backbone::SweepRecord;
use adfarm_proto::{Lane, ProviderSpec};
use std::time::Duration;

/// The rate limits of one provider model that a pool's jobs call.
#[derive(Debug, Clone, PartialEq)]
pub struct RateLimit {
    /// Requests per minute for the whole deployment.
    pub requests_per_minute: f64,
    /// Tokens per minute for the whole deployment, if limited.
    pub tokens_per_minute: Option<f64>,
    /// Average tokens (input + output) per request, when known: turns the
    /// token limit into a request limit.
    pub tokens_per_request: Option<f64>,
    /// Calls in flight to this provider per worker process.
    pub max_concurrency: u32,
    /// Average call latency, when measured.
    pub latency: Option<Duration>,
}

impl RateLimit {
    /// The limits a sweep file declares for `p` (latency not yet known).
    pub fn from_provider(p: &ProviderSpec) -> RateLimit {
        RateLimit {
            requests_per_minute: p.requests_per_minute,
            tokens_per_minute: p.tokens_per_minute,
            tokens_per_request: None,
            max_concurrency: p.max_concurrency,
            latency: None,
        }
    }

    /// Requests per minute the provider accepts, token limit included.
    pub fn effective_rpm(&self) -> f64 {
        let by_tokens = match (self.tokens_per_minute, self.tokens_per_request) {
            (Some(tpm), Some(tpr)) if tpr > 0.0 => tpm / tpr,
            _ => f64::INFINITY,
        };
        self.requests_per_minute.min(by_tokens).max(0.0)
    }
}

/// Rate limits of the providers that jobs on `lanes` call in the sweep
/// (solutions' providers for solving, the declared stages' providers on
/// the other lanes), each limit once: providers of one limit group share
/// theirs.
pub fn limits_for(rec: &SweepRecord, lanes: &[Lane]) -> Vec<RateLimit> {
    let mut names: Vec<&str> = lanes.iter().flat_map(|l| rec.providers_on(*l)).collect();
    names.sort_unstable();
    names.dedup();
    let mut seen = std::collections::BTreeSet::new();
    names
        .into_iter()
        .filter_map(|n| rec.spec.provider(n))
        .filter(|p| seen.insert(p.limit_key()))
        .map(RateLimit::from_provider)
        .collect()
}

/// How a pool scales.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Fewest replicas (0 allows scale to zero).
    pub min_replicas: u32,
    /// Most replicas.
    pub max_replicas: u32,
    /// Jobs in flight per worker (the worker's `--concurrency` times the
    /// lanes it consumes).
    pub worker_slots: u32,
    /// Enough workers to drain the backlog within this time.
    pub drain_target: Duration,
    /// Time without work before scaling to `min_replicas`.
    pub idle_before_zero: Duration,
    /// Call latency assumed for providers not measured yet.
    pub default_latency: Duration,
    /// Most replicas added by one decision.
    pub max_step_up: u32,
    /// Most replicas removed by one decision while there is work.
    pub max_step_down: u32,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            min_replicas: 0,
            max_replicas: 10,
            worker_slots: 16,
            drain_target: Duration::from_secs(300),
            idle_before_zero: Duration::from_secs(300),
            default_latency: Duration::from_secs(2),
            max_step_up: 4,
            max_step_down: 2,
        }
    }
}

/// What the autoscaler sees of a pool at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observation {
    /// Messages ready in the pool's queues.
    pub backlog: u64,
    /// Jobs taken by workers and not settled yet.
    pub in_flight: u64,
    /// Replicas the Deployment has now.
    pub current: u32,
    /// Time since the pool last had work (zero while it has some).
    pub idle_for: Duration,
}

/// Why a decision came out as it did (a bounded log field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// Sized to drain the backlog in time.
    Backlog,
    /// Capped by what the providers' rate limits can feed.
    RateLimited,
    /// Capped by `max_replicas`.
    MaxReplicas,
    /// Held at `min_replicas`.
    MinReplicas,
    /// Moved by at most a step to avoid flapping.
    Step,
    /// No work, but not idle long enough to scale down.
    IdleHold,
    /// Idle past the idle period: scaled to `min_replicas`.
    Idle,
}

impl Reason {
    /// Bounded label.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Backlog => "backlog",
            Reason::RateLimited => "rate-limited",
            Reason::MaxReplicas => "max-replicas",
            Reason::MinReplicas => "min-replicas",
            Reason::Step => "step",
            Reason::IdleHold => "idle-hold",
            Reason::Idle => "idle",
        }
    }
}

/// The autoscaler's answer for one pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Replicas the pool should have.
    pub desired: u32,
    /// Workers the backlog asks for, before any bound.
    pub demand: u32,
    /// Most workers the rate limits can feed (`None`: no provider known).
    pub rate_cap: Option<u32>,
    /// Why.
    pub reason: Reason,
}

fn latency_secs(l: &RateLimit, policy: &Policy) -> f64 {
    l.latency
        .unwrap_or(policy.default_latency)
        .as_secs_f64()
        .max(1e-3)
}

fn ceil_u32(x: f64) -> u32 {
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        x.ceil() as u32
    }
}

/// Most workers that `limits` can keep busy (see the module docs); `None`
/// when the pool calls no known provider.
pub fn rate_cap(limits: &[RateLimit], policy: &Policy) -> Option<u32> {
    if limits.is_empty() {
        return None;
    }
    let slots = f64::from(policy.worker_slots.max(1));
    let mut total = 0.0;
    let mut per_provider = 0;
    for l in limits {
        let in_flight = l.effective_rpm() / 60.0 * latency_secs(l, policy);
        total += in_flight;
        let per_worker = f64::from(l.max_concurrency.max(1)).min(slots);
        per_provider = per_provider.max(ceil_u32(in_flight / per_worker));
    }
    Some(ceil_u32(total / slots).max(per_provider).max(1))
}

/// Workers needed to drain the backlog within the drain target and hold
/// the jobs in flight (at least 1 while there is work).
pub fn demand(obs: &Observation, limits: &[RateLimit], policy: &Policy) -> u32 {
    if obs.backlog == 0 && obs.in_flight == 0 {
        return 0;
    }
    let latency = if limits.is_empty() {
        policy.default_latency.as_secs_f64()
    } else {
        limits.iter().map(|l| latency_secs(l, policy)).sum::<f64>() / limits.len() as f64
    };
    let slots = match limits.iter().map(|l| l.max_concurrency.max(1)).sum::<u32>() {
        0 => policy.worker_slots,
        calls => policy.worker_slots.min(calls),
    };
    let drain = policy.drain_target.as_secs_f64().max(1.0);
    let needed = obs.backlog as f64 / drain * latency + obs.in_flight as f64;
    ceil_u32(needed / f64::from(slots.max(1))).max(1)
}

/// Replicas a pool should have now (see the module docs for the formula).
pub fn decide(obs: &Observation, limits: &[RateLimit], policy: &Policy) -> Decision {
    let cap = rate_cap(limits, policy);
    let upper = policy.max_replicas.min(cap.unwrap_or(u32::MAX));
    let lower = policy.min_replicas.min(upper);
    let demand = demand(obs, limits, policy);
    let decision = |desired, reason| Decision {
        desired,
        demand,
        rate_cap: cap,
        reason,
    };
    if demand == 0 {
        if obs.idle_for >= policy.idle_before_zero {
            return decision(lower, Reason::Idle);
        }
        let held = obs.current.clamp(lower, upper);
        return decision(held, Reason::IdleHold);
    }
    let (target, mut reason) = if demand > upper {
        let why = if cap.is_some_and(|c| c <= policy.max_replicas) {
            Reason::RateLimited
        } else {
            Reason::MaxReplicas
        };
        (upper, why)
    } else if demand < lower {
        (lower, Reason::MinReplicas)
    } else {
        (demand, Reason::Backlog)
    };
    let stepped = if target > obs.current {
        target.min(obs.current.saturating_add(policy.max_step_up.max(1)))
    } else {
        target.max(obs.current.saturating_sub(policy.max_step_down.max(1)))
    };
    if stepped != target {
        reason = Reason::Step;
    }
    // The upper bound is hard: a step never keeps more workers than the
    // limits can feed. `lower` is a floor the operator asked for.
    let desired = stepped.min(upper).max(lower);
    if desired != stepped {
        reason = if desired == upper && cap.is_some_and(|c| c == upper) {
            Reason::RateLimited
        } else if desired == upper {
            Reason::MaxReplicas
        } else {
            Reason::MinReplicas
        };
    }
    decision(desired, reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit(rpm: f64, conc: u32, latency_s: Option<f64>) -> RateLimit {
        RateLimit {
            requests_per_minute: rpm,
            tokens_per_minute: None,
            tokens_per_request: None,
            max_concurrency: conc,
            latency: latency_s.map(Duration::from_secs_f64),
        }
    }

    fn busy(backlog: u64, in_flight: u64, current: u32) -> Observation {
        Observation {
            backlog,
            in_flight,
            current,
            idle_for: Duration::ZERO,
        }
    }

    fn wide() -> Policy {
        Policy {
            max_replicas: 100,
            max_step_up: 100,
            max_step_down: 100,
            ..Policy::default()
        }
    }

    #[test]
    fn sixty_rpm_key_gets_one_worker_not_fifty() {
        let limits = [limit(60.0, 8, Some(2.0))];
        let d = decide(&busy(100_000, 0, 1), &limits, &wide());
        assert_eq!(d.rate_cap, Some(1));
        assert_eq!(d.desired, 1);
        assert_eq!(d.reason, Reason::RateLimited);
        // Fifty running workers are cut straight down, past the step limit.
        let d = decide(&busy(100_000, 0, 50), &limits, &Policy::default());
        assert_eq!(d.desired, 1);
    }

    #[test]
    fn never_more_workers_than_the_rate_limits_can_feed() {
        let rpms = [1.0, 10.0, 60.0, 600.0, 3_000.0, 10_000.0, 100_000.0];
        let latencies = [None, Some(0.05), Some(0.5), Some(2.0), Some(30.0)];
        let concurrencies = [1, 4, 8, 64];
        let slots = [1, 4, 16, 64];
        let backlogs = [0, 1, 10, 1_000, 1_000_000];
        let currents = [0, 1, 3, 10, 50, 400];
        let idles = [Duration::ZERO, Duration::from_secs(3_600)];
        let mut checked = 0;
        for &rpm in &rpms {
            for &lat in &latencies {
                for &conc in &concurrencies {
                    for &worker_slots in &slots {
                        let policy = Policy {
                            min_replicas: 0,
                            max_replicas: 1_000,
                            worker_slots,
                            ..Policy::default()
                        };
                        // One provider, and two providers sharing the pool.
                        for limits in [
                            vec![limit(rpm, conc, lat)],
                            vec![limit(rpm, conc, lat), limit(rpm / 3.0, 1, Some(1.0))],
                        ] {
                            // What the limits can feed, computed independently:
                            // calls in flight needed to saturate every key.
                            let needed: f64 = limits
                                .iter()
                                .map(|l| {
                                    let lat =
                                        l.latency.unwrap_or(policy.default_latency).as_secs_f64();
                                    l.requests_per_minute / 60.0 * lat
                                })
                                .sum();
                            let per_worker_floor = limits
                                .iter()
                                .map(|l| l.max_concurrency.min(worker_slots))
                                .min()
                                .unwrap_or(worker_slots)
                                .max(1);
                            let feedable =
                                (needed / f64::from(per_worker_floor)).ceil().max(1.0) as u32;
                            for &backlog in &backlogs {
                                for &current in &currents {
                                    for &idle_for in &idles {
                                        let obs = Observation {
                                            backlog,
                                            in_flight: backlog / 2,
                                            current,
                                            idle_for,
                                        };
                                        let d = decide(&obs, &limits, &policy);
                                        assert!(
                                            d.desired <= feedable,
                                            "{d:?} > {feedable} for {obs:?} {limits:?}"
                                        );
                                        assert!(d.desired <= d.rate_cap.unwrap());
                                        assert!(d.desired <= policy.max_replicas);
                                        checked += 1;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(checked, 7 * 5 * 4 * 4 * 2 * 5 * 6 * 2);
    }

    #[test]
    fn saturating_a_large_key_takes_many_workers() {
        // 6000 rpm at 2 s per call is 200 calls in flight: 25 workers of 8.
        let limits = [limit(6_000.0, 8, Some(2.0))];
        assert_eq!(rate_cap(&limits, &wide()), Some(25));
        let d = decide(&busy(1_000_000, 0, 25), &limits, &wide());
        assert_eq!(d.desired, 25);
    }

    #[test]
    fn token_limit_caps_like_a_request_limit() {
        let mut l = limit(6_000.0, 8, Some(2.0));
        l.tokens_per_minute = Some(60_000.0);
        l.tokens_per_request = Some(1_000.0);
        // 60 effective rpm: one worker.
        assert_eq!(rate_cap(&[l], &wide()), Some(1));
    }

    #[test]
    fn follows_backlog() {
        // Generous key: the backlog decides.
        let limits = [limit(1_000_000.0, 16, Some(1.0))];
        let policy = wide();
        // 4800 jobs in 300 s at 1 s each = 16 in flight = 1 worker of 16.
        assert_eq!(decide(&busy(4_800, 0, 0), &limits, &policy).desired, 1);
        let d = decide(&busy(48_000, 0, 1), &limits, &policy);
        assert_eq!((d.desired, d.reason), (10, Reason::Backlog));
        let more = decide(&busy(96_000, 0, 10), &limits, &policy);
        assert_eq!(more.desired, 20);
        // A shrinking backlog shrinks the pool; one job still needs a worker.
        assert_eq!(decide(&busy(9_600, 0, 20), &limits, &policy).desired, 2);
        assert_eq!(decide(&busy(1, 0, 2), &limits, &policy).desired, 1);
        // Jobs in flight alone keep workers.
        assert_eq!(decide(&busy(0, 40, 3), &limits, &policy).desired, 3);
    }

    #[test]
    fn steps_limit_flapping() {
        let limits = [limit(1_000_000.0, 16, Some(1.0))];
        let policy = Policy {
            max_replicas: 100,
            max_step_up: 4,
            max_step_down: 2,
            ..Policy::default()
        };
        let d = decide(&busy(1_000_000, 0, 1), &limits, &policy);
        assert_eq!((d.desired, d.reason), (5, Reason::Step));
        let d = decide(&busy(1, 0, 10), &limits, &policy);
        assert_eq!((d.desired, d.reason), (8, Reason::Step));
    }

    #[test]
    fn scales_to_zero_after_the_idle_period() {
        let limits = [limit(600.0, 8, Some(2.0))];
        let policy = Policy::default();
        let mut obs = Observation {
            backlog: 0,
            in_flight: 0,
            current: 4,
            idle_for: Duration::from_secs(10),
        };
        let d = decide(&obs, &limits, &policy);
        assert_eq!((d.desired, d.reason), (3, Reason::IdleHold)); // 4 is above the cap of 3
        obs.current = 2;
        assert_eq!(decide(&obs, &limits, &policy).desired, 2);
        obs.idle_for = policy.idle_before_zero;
        let d = decide(&obs, &limits, &policy);
        assert_eq!((d.desired, d.reason), (0, Reason::Idle));
        // Work arriving at zero starts a worker at once.
        let d = decide(&busy(1, 0, 0), &limits, &policy);
        assert_eq!(d.desired, 1);
    }

    #[test]
    fn respects_min_and_max() {
        let limits = [limit(1_000_000.0, 16, Some(1.0))];
        let policy = Policy {
            min_replicas: 2,
            max_replicas: 6,
            max_step_up: 100,
            max_step_down: 100,
            ..Policy::default()
        };
        let d = decide(&busy(10_000_000, 0, 2), &limits, &policy);
        assert_eq!((d.desired, d.reason), (6, Reason::MaxReplicas));
        let d = decide(&busy(1, 0, 6), &limits, &policy);
        assert_eq!((d.desired, d.reason), (2, Reason::MinReplicas));
        let idle = Observation {
            backlog: 0,
            in_flight: 0,
            current: 6,
            idle_for: Duration::from_secs(86_400),
        };
        assert_eq!(decide(&idle, &limits, &policy).desired, 2);
        // A current size above max is brought down to max, steps or not.
        let stepped = Policy {
            max_step_down: 1,
            ..policy.clone()
        };
        assert_eq!(decide(&busy(10, 0, 40), &limits, &stepped).desired, 6);
    }

    #[test]
    fn unknown_providers_leave_only_max() {
        let d = decide(&busy(10_000_000, 0, 10), &[], &wide());
        assert_eq!(d.rate_cap, None);
        assert_eq!(d.desired, 100);
    }

    /// A sweep record whose one suite runs two solutions on `gen`, a
    /// judge stage (model lane) with `j` and an embedding stage (embed
    /// lane) with `e` and `e2`.
    fn record() -> SweepRecord {
        serde_json::from_value(serde_json::json!({
            "id": "s",
            "spec": {
                "name": "s",
                "suites": [{"name": "tiny", "datasets": ["d"]}],
                "solutions": [
                    {"name": "a", "provider": "gen"},
                    {"name": "b", "provider": "gen"}
                ],
                "providers": [
                    {"name": "gen", "kind": "openai-compatible", "model": "m1", "requests_per_minute": 60.0},
                    {"name": "j", "kind": "openai-compatible", "model": "m2", "requests_per_minute": 30.0},
                    {"name": "e", "kind": "openai-compatible", "model": "m3", "requests_per_minute": 10.0},
                    {"name": "e2", "kind": "openai-compatible", "model": "m4", "requests_per_minute": 20.0}
                ]
            },
            "planned": {},
            "pipelines": {"tiny": {"solutions": [0, 1], "stages": [
                {"name": "judge", "lane": "model", "scope": "run", "after": ["solve"], "role": "judge",
                 "variants": [{"provider": "j", "column": "j"}]},
                {"name": "embed", "lane": "embed", "scope": "run", "after": ["solve"], "role": "embedding",
                 "variants": [{"provider": "e"}, {"provider": "e2", "column": "e2"}]}
            ]}},
            "estimated_cost_usd": 0.0,
            "created_unix": 0
        }))
        .unwrap()
    }

    #[test]
    fn limits_come_from_the_providers_each_lane_calls() {
        let rec = record();
        let rpm = |lanes: &[Lane]| {
            limits_for(&rec, lanes)
                .iter()
                .map(|l| l.requests_per_minute)
                .collect::<Vec<_>>()
        };
        assert_eq!(rpm(&[Lane::Solve]), vec![60.0]);
        assert_eq!(rpm(&[Lane::Model]), vec![30.0]);
        assert_eq!(rpm(&[Lane::Embed]), vec![10.0, 20.0]);
        assert_eq!(rpm(&[Lane::Cpu]), Vec::<f64>::new());
        assert_eq!(rpm(&[Lane::Solve, Lane::Model]).len(), 2);
    }
}
