//! The world's invariants: every grouping sums to SUM, daily = Σ hourly,
//! counters nest (deep ≤ conversions ≤ clicks ≤ views), data stops at
//! hour H of D, and the world is a pure function of (seed, D, H).

use adfarm_adbench::world::delivery::account_cap;
use adfarm_adbench::world::{Counts, DailyGrouping, Day, HourlyGrouping, Key, Scope, World};
use proptest::prelude::*;

fn day(s: &str) -> Day {
    Day::parse(s).expect("valid date")
}

fn total(rows: &[(Key, Counts)]) -> Counts {
    rows.iter().map(|r| r.1).sum()
}

fn nested(c: &Counts) -> bool {
    c.clicks <= c.views
        && c.conversions <= c.clicks
        && c.deep <= c.conversions
        && (c.clicks > 0 || c.cost == 0)
}

/// The scope of a user's accounts (or the first `take` of them).
fn user_scope(w: &World, user: usize, take: usize) -> Scope {
    let accs = &w.users()[user].accounts;
    Scope {
        accounts: accs[..take.clamp(1, accs.len())].to_vec(),
        adgroup: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn every_daily_grouping_sums_to_sum(seed in 0u64..1000, offset in 0i32..900, user in 0usize..12, take in 1usize..4, back in 1i32..380, len in 0i32..12, pick in 0usize..1000) {
        let w = World::new(seed, day("2024-06-01").plus(offset), 12).expect("world");
        let scope = user_scope(&w, user, take);
        let groups = w.scoped_groups(&scope);
        // The same checks on the accounts and on one of their ad groups (adgroup_id).
        let one = Scope { adgroup: Some(groups[pick % groups.len()]), ..scope.clone() };
        let end = w.today().plus(-back + len.min(back));
        let begin = end.plus(-len);
        for scope in [scope, one] {
            let sum = w.daily(&scope, begin, end, DailyGrouping::Sum);
            prop_assert_eq!(sum.len(), 1);
            let sum = sum[0].1;
            prop_assert!(nested(&sum));
            let mut video = Counts::default();
            for (g, name) in DailyGrouping::ALL {
                let rows = w.daily(&scope, begin, end, g);
                for r in &rows {
                    prop_assert!(nested(&r.1), "{} row {:?}", name, r);
                }
                match g {
                    DailyGrouping::MaterialVideo => video = total(&rows),
                    DailyGrouping::MaterialImage => {
                        let mut both = video;
                        both += total(&rows);
                        prop_assert_eq!(both, sum, "materials");
                    }
                    _ => prop_assert_eq!(total(&rows), sum, "grouping {}", name),
                }
            }
        }
    }

    #[test]
    fn every_hourly_grouping_sums_to_sum_and_to_the_daily_report(seed in 0u64..1000, offset in 0i32..900, user in 0usize..12, back in 0i32..30, hour in 0u8..24) {
        let w = World::new(seed, day("2024-06-01").plus(offset), hour).expect("world");
        let scope = user_scope(&w, user, 6);
        let d = w.today().plus(-back);
        let sum = w.hourly(&scope, d, HourlyGrouping::Sum)[0].1;
        for (g, name) in HourlyGrouping::ALL {
            prop_assert_eq!(total(&w.hourly(&scope, d, g)), sum, "grouping {}", name);
        }
        prop_assert_eq!(total(&w.daily(&scope, d, d, DailyGrouping::Date)), sum);
        // Per ad group and per creative too, not just in total.
        let by_group_daily = w.daily(&scope, d, d, DailyGrouping::AdGroup);
        let by_group_hourly = w.hourly(&scope, d, HourlyGrouping::AdGroup);
        prop_assert_eq!(by_group_daily, by_group_hourly);
        let by_creative_daily = w.daily(&scope, d, d, DailyGrouping::Creative);
        let by_creative_hourly = w.hourly(&scope, d, HourlyGrouping::Creative);
        prop_assert_eq!(by_creative_daily, by_creative_hourly);
        if d == w.today() {
            for (k, _) in w.hourly(&scope, d, HourlyGrouping::Hour) {
                prop_assert!(matches!(k, Key::Hour(h) if h < hour), "hour {:?} at H={}", k, hour);
            }
        }
    }
}

#[test]
fn the_same_inputs_give_the_same_world() {
    let a = World::new(11, day("2026-11-20"), 12).expect("world");
    let b = World::new(11, day("2026-11-20"), 12).expect("world");
    let scope = user_scope(&a, a.largest_user(), 6);
    for (g, _) in DailyGrouping::ALL {
        assert_eq!(
            a.daily(&scope, day("2026-10-01"), day("2026-11-20"), g),
            b.daily(&scope, day("2026-10-01"), day("2026-11-20"), g)
        );
    }
    let c = World::new(12, day("2026-11-20"), 12).expect("world");
    let other = user_scope(&c, 0, 6);
    assert_ne!(
        a.daily(
            &scope,
            day("2026-10-01"),
            day("2026-11-19"),
            DailyGrouping::Sum
        ),
        c.daily(
            &other,
            day("2026-10-01"),
            day("2026-11-19"),
            DailyGrouping::Sum
        )
    );
}

#[test]
fn history_does_not_depend_on_the_date_it_is_seen_from() {
    // A past day reads the same from D and from D + 30: the world moves on,
    // it does not rewrite the past.
    let a = World::new(5, day("2026-06-01"), 12).expect("world");
    let b = World::new(5, day("2026-07-01"), 12).expect("world");
    let user = a.largest_user();
    let sa = user_scope(&a, user, 6);
    let sb = user_scope(&b, user, 6);
    let past = day("2026-05-20");
    assert_eq!(
        a.daily(&sa, past, past, DailyGrouping::Sum),
        b.daily(&sb, past, past, DailyGrouping::Sum)
    );
    assert!(!a.daily(&sa, past, past, DailyGrouping::Sum)[0].1.is_zero());
}

#[test]
fn data_stops_at_hour_h_of_today() {
    let d = day("2026-11-20");
    let noon = World::new(3, d, 12).expect("world");
    let midnight = World::new(3, d, 0).expect("world");
    let late = World::new(3, d, 23).expect("world");
    let user = noon.largest_user();
    let s = user_scope(&noon, user, 6);
    assert!(midnight.daily(&s, d, d, DailyGrouping::Sum)[0].1.is_zero());
    let at_noon = noon.daily(&s, d, d, DailyGrouping::Sum)[0].1;
    let at_23 = late.daily(&s, d, d, DailyGrouping::Sum)[0].1;
    assert!(
        at_noon.views > 0 && at_noon.views < at_23.views,
        "{at_noon:?} vs {at_23:?}"
    );
    // Yesterday is complete whatever the hour, and nothing after today exists.
    let y = d.plus(-1);
    assert_eq!(
        noon.daily(&s, y, y, DailyGrouping::Sum),
        midnight.daily(&s, y, y, DailyGrouping::Sum)
    );
    assert!(noon
        .daily(&s, d.plus(1), d.plus(5), DailyGrouping::Date)
        .is_empty());
    assert!(noon.hourly(&s, d.plus(1), HourlyGrouping::Hour).is_empty());
}

#[test]
fn worlds_have_the_specified_shape() {
    let w = World::new(1, day("2026-11-20"), 12).expect("world");
    assert_eq!(w.users().len(), 12);
    for u in w.users() {
        assert!((1..=6).contains(&u.accounts.len()));
    }
    for g in w.groups() {
        assert!(
            (1..=6).contains(&g.creatives.len()) || g.creatives.is_empty(),
            "{}",
            g.id
        );
        assert!(g.launch <= w.today() && g.end > w.history_start());
    }
    let mut ids: Vec<u64> = w
        .groups()
        .iter()
        .map(|g| g.id)
        .chain(w.creatives().iter().map(|c| c.id))
        .chain(w.accounts().iter().map(|a| a.id))
        .collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "ids are unique");
    // The event schedule is visible: some groups paused, ended, rejected, and bids changed.
    let statuses: Vec<&str> = w
        .groups()
        .iter()
        .map(|g| g.status_on(w.today()).name())
        .collect();
    for s in ["ACTIVE", "PAUSED", "ENDED", "REJECTED"] {
        assert!(statuses.contains(&s), "no {s} group");
    }
    assert!(w.groups().iter().any(|g| g.bids.len() > 3));
    assert!(World::new(1, day("2019-01-01"), 12).is_err());
    assert!(World::new(1, day("2026-01-01"), 24).is_err());
}

#[test]
fn the_event_schedule_moves_the_platform_on() {
    let d = day("2026-06-01");
    let now = World::new(9, d, 12).expect("world");
    let later = World::new(9, d.plus(45), 12).expect("world");
    let mut changed_status = 0;
    let mut changed_bid = 0;
    let mut changed_budget = 0;
    for g in now.groups() {
        if let Some(i) = later.group_by_id(g.id) {
            let h = &later.groups()[i];
            changed_status += usize::from(g.status_on(d) != h.status_on(d.plus(45)));
            changed_bid += usize::from(g.bid_on(d) != h.bid_on(d.plus(45)));
        }
    }
    for (a, b) in now.accounts().iter().zip(later.accounts()) {
        assert_eq!(a.id, b.id, "accounts are stable across dates");
        changed_budget += usize::from(a.budget_on(d) != b.budget_on(d.plus(45)));
    }
    assert!(changed_status > 10, "{changed_status} statuses changed");
    assert!(changed_bid > 10, "{changed_bid} bids changed");
    assert!(changed_budget > 3, "{changed_budget} budgets changed");
    // New groups launched and new creatives were added in between.
    assert!(later.groups().iter().any(|g| g.launch > d));
    assert!(later
        .creatives()
        .iter()
        .any(|c| c.added > d && c.added > later.groups()[c.group].launch));
}

#[test]
fn the_day_memos_return_what_the_generator_computes() {
    let w = World::new(21, day("2026-11-20"), 12).expect("world");
    let mut checked = 0;
    for (g, group) in w.groups().iter().enumerate().step_by(7) {
        for back in [0, 1, 31, 32, 33, 200, 399, 400, 401] {
            let d = w.today().plus(-back);
            // Twice: the second read comes from the memo.
            assert_eq!(
                w.group_day_full(g, d),
                w.compute_group_day(g, d),
                "{} {d}",
                group.id
            );
            assert_eq!(
                w.group_day_full(g, d),
                w.compute_group_day(g, d),
                "{} {d}",
                group.id
            );
            checked += usize::from(!w.compute_group_day(g, d).is_zero());
            let (mut memo, mut fresh) = (Vec::new(), Vec::new());
            w.day_cells_full(g, d, &mut memo);
            w.compute_day_cells(g, d, &mut fresh);
            assert_eq!(memo, fresh, "cells of {} on {d}", group.id);
        }
    }
    assert!(checked > 50, "only {checked} non-empty days checked");
}

#[test]
fn no_account_spends_past_its_daily_budget_and_overspend_allowance() {
    // Both task worlds and another seed, on dates with full history.
    for (seed, on) in [
        (2026, "2026-07-25"),
        (7331, "2026-09-08"),
        (21, "2026-11-20"),
    ] {
        let w = World::new(seed, day(on), 12).expect("world");
        let (mut days, mut at_cap) = (0, 0);
        for (a, account) in w.accounts().iter().enumerate() {
            let scope = Scope {
                accounts: vec![a],
                adgroup: None,
            };
            for (key, c) in w.daily(&scope, w.history_start(), w.today(), DailyGrouping::Date) {
                let Key::Date(d) = key else {
                    panic!("a DATE row keyed {key:?}")
                };
                let cap = account_cap(account, d);
                assert!(
                    c.cost <= cap,
                    "seed {seed}: account {} spent {} fen on {d}, cap {cap}",
                    account.id,
                    c.cost
                );
                assert!(
                    nested(&c),
                    "seed {seed}: account {} on {d}: {c:?}",
                    account.id
                );
                days += 1;
                // Within 1% of the cap: the cap, not demand, set the day.
                at_cap += usize::from(c.cost * 100 >= cap * 99);
            }
        }
        eprintln!("seed {seed}: {at_cap} of {days} account-days at the cap");
        assert!(
            at_cap > 0,
            "seed {seed}: the cap never binds, so it is untested"
        );
    }
}
