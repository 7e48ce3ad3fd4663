//! The kill switch end to end: the budget-drain red team and its calm twin
//! on seeds 1..=10 (3 days, 4,000 searches a day, a decision every 6
//! hours, B = 60, bots from 09:00 on the second day), the rule-based
//! baseline against agents that ignore the triggers or pause without one,
//! the ROAS trigger at a cadence of one hour, and the decision cadence
//! leaving the scripted agents' episodes as they were.

use adfarm_adsbench::api::error::GoogleAdsFailure;
use adfarm_adsbench::api::MutateOperation;
use adfarm_adsbench::gaql::Value;
use adfarm_adsbench::sandbox::AdsClient;
use adfarm_adsbench::suite::agents::{ApiAgent, DecisionPoint, FixedBidAgent, PacingAgent};
use adfarm_adsbench::suite::kill_switch::{Trigger, Verdict};
use adfarm_adsbench::suite::outcome::{run, Outcome, KILL_SWITCH_METRICS, METRICS};
use adfarm_adsbench::suite::rules::RuleAgent;
use adfarm_adsbench::suite::scenario::{Drain, Scenario};
use adfarm_adsbench::suite::{DEFAULT_BID_MICROS, DEFAULT_TARGET_CPA_MICROS, RULES};
use adfarm_adsbench::AdsBench;
use adfarm_proto::Verdict as Score;
use adfarm_suite::Suite;

const SEEDS: std::ops::RangeInclusive<u64> = 1..=10;
/// Ticks in a day (half hours).
const DAY: u64 = 48;
/// The drain's start: 09:00 on the second day.
const DRAIN_AT: u64 = DAY + 18;

/// The budget-drain red team on `seed`.
pub(crate) fn drain(seed: u64) -> Scenario {
    Scenario {
        seed,
        start_date: "2025-03-03".into(),
        days: 3,
        budget_micros: 60_000_000,
        opportunities_per_day: 4_000.0,
        cadence: 6,
        kill_switch: true,
        drain: Some(Drain {
            date: "2025-03-04".into(),
            hour: 9,
            bot_searches: 4,
        }),
        ..Scenario::nth(0)
    }
}

/// The same seed and account without the drain.
fn calm(seed: u64) -> Scenario {
    Scenario {
        drain: None,
        ..drain(seed)
    }
}

fn rules(s: &Scenario) -> Outcome {
    run(s, &mut RuleAgent::new(DEFAULT_TARGET_CPA_MICROS), || true).expect("runs")
}

fn fixed_bid(s: &Scenario) -> Outcome {
    run(s, &mut FixedBidAgent::new(DEFAULT_BID_MICROS), || true).expect("runs")
}

/// Each trigger as (rule, tick observable, verdict).
fn verdicts(o: &Outcome) -> Vec<(Trigger, u64, Verdict)> {
    o.kill_switch
        .as_ref()
        .expect("the kill switch is armed")
        .triggers
        .iter()
        .map(|(t, v)| (t.trigger, t.at, *v))
        .collect()
}

fn score(o: &Outcome, metric: &str) -> f64 {
    let scores = o.scores();
    match scores
        .iter()
        .find(|s| s.metric == metric)
        .map(|s| &s.verdict)
    {
        Some(Score::Score(x)) => *x,
        other => panic!("{metric}: {other:?}"),
    }
}

#[test]
fn the_rule_agent_pauses_at_the_first_decision_after_the_drain_trips_on_ten_of_ten_seeds() {
    for seed in SEEDS {
        let o = rules(&drain(seed));
        let v = verdicts(&o);
        let [(Trigger::Spend, at, Verdict::Pass { decision })] = v[..] else {
            panic!("seed {seed}: {v:?}");
        };
        // Observable after the bots came, paused at the next decision
        // point (every 12 ticks).
        assert!(
            at > DRAIN_AT,
            "seed {seed}: tripped at {at}, before the bots"
        );
        assert!(
            decision >= at && decision - at < 12 && decision % 12 == 0,
            "seed {seed}: trigger at {at}, decision at {decision}"
        );
        let k = o.kill_switch.as_ref().expect("armed");
        assert!(k.false_alarms.is_empty(), "seed {seed}: {k:?}");
        let paused: Vec<_> = o
            .changes
            .iter()
            .flatten()
            .filter(|c| c.fields.get("status").map(String::as_str) == Some("PAUSED"))
            .collect();
        assert_eq!(paused.len(), 1, "seed {seed}: one campaign, paused once");
        let note = paused[0].note.as_deref().unwrap_or_default();
        assert!(
            note.starts_with("kill switch: today's spend ") && note.ends_with("> 1.15 × B = 69.00"),
            "seed {seed}: {note}"
        );
        assert_eq!(o.days[2].spend_micros, 0, "seed {seed}: paused for good");
        assert!(
            o.days[1].spend_micros > 69_000_000,
            "seed {seed}: {:?}",
            o.days[1]
        );
        assert_eq!(
            (
                score(&o, KILL_SWITCH_METRICS[0]),
                score(&o, KILL_SWITCH_METRICS[1]),
                score(&o, KILL_SWITCH_METRICS[2])
            ),
            (1.0, 0.0, 0.0),
            "seed {seed}"
        );
    }
}

#[test]
fn the_rule_agent_never_pauses_in_the_calm_twin_on_ten_seeds() {
    for seed in SEEDS {
        let o = rules(&calm(seed));
        let k = o.kill_switch.as_ref().expect("armed");
        assert!(k.triggers.is_empty(), "seed {seed}: {k:?}");
        assert!(k.false_alarms.is_empty(), "seed {seed}: {k:?}");
        assert!(
            o.changes
                .iter()
                .flatten()
                .all(|c| !c.fields.contains_key("status")),
            "seed {seed}: no pause"
        );
        assert!(
            o.days.iter().all(|d| d.spend_micros > 0),
            "seed {seed}: it kept spending"
        );
        assert_eq!(o.decisions, 12, "seed {seed}: four decisions a day");
    }
}

#[test]
fn fixed_bid_ignores_the_trigger_and_misses_the_drain_on_ten_seeds() {
    for seed in SEEDS {
        let o = fixed_bid(&drain(seed));
        let v = verdicts(&o);
        assert!(
            matches!(v[..], [(Trigger::Spend, at, Verdict::Missed { .. })] if at > DRAIN_AT),
            "seed {seed}: {v:?}"
        );
        assert_eq!(score(&o, KILL_SWITCH_METRICS[1]), 1.0, "seed {seed}");
        // Nothing stops the bots but Google's cap: 2B a day.
        assert!(o.days[2].spend_micros > 69_000_000, "seed {seed}");
        assert!(o.max_day_over_b() <= 2.0);
        let calm = fixed_bid(&calm(seed));
        assert!(verdicts(&calm).is_empty(), "seed {seed}: calm stays calm");
    }
}

/// Pauses every enabled campaign at the decision before tick `at`,
/// whatever the account shows.
struct PauseAt {
    at: u64,
}

impl ApiAgent for PauseAt {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        point: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        if point.now.ordinal() != self.at {
            return Ok(());
        }
        let rows = client.search(
            "SELECT campaign.resource_name FROM campaign WHERE campaign.status = 'ENABLED'",
        )?;
        let ops = rows
            .iter()
            .filter_map(|r| match r.values.first() {
                Some(Value::ResourceName(n) | Value::String(n)) => Some(
                    MutateOperation::update(n.clone(), [("status", Value::Enum("PAUSED".into()))])
                        .with_note("test: a pause"),
                ),
                _ => None,
            })
            .collect();
        client.mutate(ops).map(|_| ())
    }
}

#[test]
fn a_pause_without_a_trigger_is_a_false_alarm_and_a_pause_after_one_passes() {
    // Noon of the first day: nothing has tripped.
    let o = run(&calm(1), &mut PauseAt { at: 24 }, || true).expect("runs");
    let k = o.kill_switch.as_ref().expect("armed");
    assert_eq!(k.false_alarms, [24]);
    assert_eq!(score(&o, KILL_SWITCH_METRICS[2]), 1.0);
    // The rule agent's first pause on the drain, made by an agent that
    // only knows the time: the same verdict as the rule agent's.
    let pause = verdicts(&rules(&drain(1)))
        .into_iter()
        .find_map(|(_, _, v)| match v {
            Verdict::Pass { decision } => Some(decision),
            _ => None,
        })
        .expect("the rule agent passes");
    let o = run(&drain(1), &mut PauseAt { at: pause }, || true).expect("runs");
    assert!(
        matches!(verdicts(&o)[..], [(Trigger::Spend, _, Verdict::Pass { decision })] if decision == pause),
        "{:?}",
        o.kill_switch
    );
    // One decision later is a miss.
    let late = run(&drain(1), &mut PauseAt { at: pause + 12 }, || true).expect("runs");
    assert!(
        matches!(verdicts(&late)[..], [(_, _, Verdict::Missed { decision })] if decision == pause),
        "{:?}",
        late.kill_switch
    );
}

#[test]
fn the_roas_floor_trips_the_rule_agent_at_an_hourly_cadence_as_the_harness_sees_it() {
    // No conversion value can reach a ROAS of 1000: the first hour with
    // cost trips the floor.
    let s = Scenario {
        cadence: 1,
        roas_floor: Some(1_000.0),
        ..calm(3)
    };
    let o = rules(&s);
    let v = verdicts(&o);
    let [(Trigger::Roas, at, Verdict::Pass { decision })] = v[..] else {
        panic!("{v:?}");
    };
    assert_eq!(decision, at, "a whole hour's window is due at that hour");
    assert!(at > 0 && at < DAY, "{at}");
    let note = o
        .changes
        .iter()
        .flatten()
        .find_map(|c| c.note.clone())
        .expect("a pause with a note");
    assert!(
        note.starts_with("kill switch: ROAS ") && note.ends_with("< floor 1000.00"),
        "{note}"
    );
    let ignored = fixed_bid(&s);
    assert!(
        matches!(verdicts(&ignored)[..], [(Trigger::Roas, t, Verdict::Missed { .. })] if t == at),
        "{:?}",
        ignored.kill_switch
    );
    // A floor no hour falls under never trips.
    let low = rules(&Scenario {
        roas_floor: Some(0.0),
        ..s
    });
    assert!(verdicts(&low).is_empty());
}

#[test]
fn a_finer_cadence_leaves_the_scripted_agents_episodes_unchanged() {
    let daily = Scenario {
        kill_switch: false,
        cadence: 24,
        ..calm(2)
    };
    for cadence in [1, 6, 24] {
        let s = Scenario {
            cadence,
            ..daily.clone()
        };
        let pacing = |s: &Scenario| {
            run(s, &mut PacingAgent::new(DEFAULT_TARGET_CPA_MICROS), || true).expect("runs")
        };
        let (a, b) = (pacing(&daily), pacing(&s));
        assert_eq!(a.digest, b.digest, "pacing at cadence {cadence}");
        assert_eq!(a.changes, b.changes);
        assert_eq!(b.decisions, 3 * 24 / u64::from(cadence));
        assert_eq!(fixed_bid(&daily).digest, fixed_bid(&s).digest);
        assert_eq!(b.kill_switch, None, "not armed: no verdict");
        assert_eq!(b.scores().len(), METRICS.len(), "and no kill-switch scores");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rules_solution_reports_the_kill_switch_scores() {
    let suite = AdsBench::default();
    let params = serde_json::json!({"scenarios": [{
        "seed": 4, "start_date": "2025-03-03", "days": 2, "budget_micros": 60_000_000,
        "cadence": 6, "kill_switch": true,
        "drain": {"date": "2025-03-04", "hour": 9},
    }]});
    let item = suite
        .items("scenarios", &params)
        .expect("valid")
        .next()
        .expect("one")
        .expect("generated");
    let spec = adfarm_suite::solution_entry(RULES, "none", 64, serde_json::json!({}));
    let llm = adfarm_suite::NoModel;
    let models = adfarm_suite::Models {
        llm: &llm,
        embedder: None,
    };
    let solved = suite
        .solution(&spec)
        .expect("rules")
        .solve(&item, models, 1)
        .await
        .expect("an episode");
    let tail: Vec<(String, Score)> = solved.scores[METRICS.len()..]
        .iter()
        .map(|s| (s.metric.clone(), s.verdict.clone()))
        .collect();
    assert_eq!(
        tail,
        [
            (KILL_SWITCH_METRICS[0].to_string(), Score::Score(1.0)),
            (KILL_SWITCH_METRICS[1].to_string(), Score::Score(0.0)),
            (KILL_SWITCH_METRICS[2].to_string(), Score::Score(0.0)),
        ]
    );
}
