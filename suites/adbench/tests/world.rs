//! The world's invariants: determinism, sums, time cut-offs.

use adfarm_adbench::world::{Counts, DailyGrouping, Day, HourlyGrouping, Scope, World};

fn day(s: &str) -> Day {
    Day::parse(s).expect("valid date")
}

#[test]
fn smoke_print() {
    let w = World::new(7, day("2026-11-20"), 12).expect("world");
    let u = w.largest_user();
    let accs = w.users()[u].accounts.clone();
    let scope = Scope { accounts: accs.clone(), adgroup: None };
    eprintln!("users {} accounts {} groups {} creatives {} largest user accounts {} groups {}", w.users().len(), w.accounts().len(), w.groups().len(), w.creatives().len(), accs.len(), w.scoped_groups(&scope).len());
    let rows = w.daily(&scope, day("2026-08-22"), day("2026-11-19"), DailyGrouping::Sum);
    eprintln!("{rows:?}");
    let rows = w.daily(&scope, day("2026-11-10"), day("2026-11-20"), DailyGrouping::Date);
    for r in rows { eprintln!("{r:?}"); }
    let rows = w.hourly(&scope, day("2026-11-19"), HourlyGrouping::Hour);
    for r in rows { eprintln!("{r:?}"); }
    let _ = Counts::default();
}
