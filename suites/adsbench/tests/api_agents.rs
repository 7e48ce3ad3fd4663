//! The scripted agents through the API: 14-day episodes on each auction
//! mechanism stay within Google's caps, and replay to the same event log.

use adfarm_adsbench::agents::{FixedBidAgent, PacingAgent};
use adfarm_adsbench::market::Mechanism;
use adfarm_adsbench::outcome::{run, Outcome};
use adfarm_adsbench::scenario::{mechanism_name, Scenario};
use adfarm_adsbench::suite::{DEFAULT_BID_MICROS, DEFAULT_TARGET_CPA_MICROS};

fn scenario(mechanism: Mechanism) -> Scenario {
    Scenario {
        mechanism: mechanism_name(mechanism).into(),
        // Crosses a month end, so the monthly cap is checked on two months.
        start_date: "2025-03-22".into(),
        ..Scenario::nth(0)
    }
}

fn check(o: &Outcome) {
    assert_eq!(o.days.len(), 14);
    assert_eq!(o.months.len(), 2, "{:?}", o.months);
    for d in &o.days {
        assert!(
            d.spend_micros <= o.day_cap_micros(),
            "{} spent {}",
            d.date,
            d.spend_micros
        );
    }
    for (month, spend) in &o.months {
        assert!(*spend <= o.month_cap_micros(), "{month} spent {spend}");
    }
    assert!(o.totals().clicks > 0, "the account got traffic");
    assert_eq!(o.failed_decisions, 0, "every API call was valid");
}

#[test]
fn fourteen_days_per_mechanism_within_caps_and_reproducible() {
    for mechanism in Mechanism::ALL {
        let s = scenario(mechanism);
        let fixed = || run(&s, &mut FixedBidAgent::new(DEFAULT_BID_MICROS), || true).expect("runs");
        let pacing = || {
            run(&s, &mut PacingAgent::new(DEFAULT_TARGET_CPA_MICROS), || {
                true
            })
            .expect("runs")
        };
        let (a, b) = (fixed(), fixed());
        check(&a);
        assert_eq!(a.digest, b.digest, "{mechanism:?} fixed-bid replays");
        assert_eq!(a, b);
        let (c, d) = (pacing(), pacing());
        check(&c);
        assert_eq!(c.digest, d.digest, "{mechanism:?} pacing replays");
        // The agents act differently, so the logs differ.
        assert_ne!(a.digest, c.digest, "{mechanism:?}");
        assert_eq!(c.decisions, 14);
    }
}

#[test]
fn an_episode_stops_between_ticks_when_told() {
    let s = scenario(Mechanism::Gsp);
    let mut ticks = 0;
    let r = run(&s, &mut FixedBidAgent::new(DEFAULT_BID_MICROS), || {
        ticks += 1;
        ticks <= 50
    });
    assert_eq!(
        r.expect_err("cancelled").to_string(),
        "cancelled after 50 ticks"
    );
}
