//! Generating the entities from the seed: users, accounts, ad-group slots
//! with successive ad groups, creatives, and the seeded event schedule
//! (launches, pauses, bid and budget changes, creative additions, audit
//! holds and rejections). Schedules are absolute-dated, so moving the
//! world's date reveals later events without rewriting history.

use super::calendar::Day;
use super::catalog::{Audit, CreativeType, Industry, Objective, SiteSet};
use super::entities::{epoch, Account, AdGroup, Creative, User, HISTORY_DAYS, USERS};
use super::rng::{hash, range, uniform};

/// Maps a structured id onto a scrambled one of the same width: a bijection,
/// so ids stay unique, but they look like a platform's opaque ids.
pub fn scramble(x: u64, bits: u32, seed: u64) -> u64 {
    let m = (1u64 << bits) - 1;
    let mut y = (x.wrapping_mul(0x9E37_79B9_7F4A_7C15 | 1).wrapping_add(seed)) & m;
    y ^= y >> (bits / 2);
    y.wrapping_mul(0xD6E8_FEB8_6659_FD93 | 1) & m
}

/// Which product names an industry's assets use.
fn asset_names(i: Industry) -> &'static [&'static str] {
    match i {
        Industry::Game => &[
            "Star Legends",
            "Dragon Realm",
            "Pixel Farm",
            "Speed Kart",
            "Mystic Cards",
            "Ocean Tycoon",
        ],
        Industry::Ecommerce => &[
            "Summer Dresses",
            "Smart Kettle",
            "Running Shoes",
            "Skin Serum",
            "Baby Formula",
            "Tea Gift Box",
        ],
        Industry::Education => &[
            "IELTS Sprint",
            "Kids Coding",
            "Piano Basics",
            "CPA Exam Prep",
            "Math Olympiad",
            "Design Bootcamp",
        ],
        Industry::Finance => &[
            "Credit Card Plus",
            "Term Life Cover",
            "Wealth Fund A",
            "Car Insurance",
            "Micro Loan",
            "Pension Plan",
        ],
        Industry::LocalServices => &[
            "Hotpot House",
            "City Hotel",
            "Fitness Club",
            "Car Wash Pro",
            "Dental Care",
            "Wedding Photo",
        ],
        Industry::Automotive => &[
            "EV Sedan X",
            "Family SUV 7",
            "Pickup Pro",
            "Hybrid Compact",
            "Luxury Coupe",
            "Test Drive Day",
        ],
    }
}

/// Company names by industry.
fn company_names(i: Industry) -> &'static [&'static str] {
    match i {
        Industry::Game => &["Blue Whale Games", "Red Maple Interactive"],
        Industry::Ecommerce => &["Everbright Mall", "Jade Harbor Retail"],
        Industry::Education => &["Lumen Learning", "Bright Path Academy"],
        Industry::Finance => &["Harbor Trust Bank", "Pine Mutual Insurance"],
        Industry::LocalServices => &["Urban Table Group", "Riverside Services"],
        Industry::Automotive => &["Northstar Motors", "Silver Road Auto"],
    }
}

/// Typical bid range in fen by industry (CPC-like bids).
fn bid_range(i: Industry) -> (f64, f64) {
    match i {
        Industry::Game => (150.0, 400.0),
        Industry::Ecommerce => (80.0, 250.0),
        Industry::Education => (300.0, 900.0),
        Industry::Finance => (600.0, 2000.0),
        Industry::LocalServices => (100.0, 300.0),
        Industry::Automotive => (400.0, 1200.0),
    }
}

/// Everything generated for one world date: the entities visible from it.
pub struct Entities {
    /// Users in id order of generation.
    pub users: Vec<User>,
    /// Accounts.
    pub accounts: Vec<Account>,
    /// Ad groups whose lifetime meets the history window.
    pub groups: Vec<AdGroup>,
    /// Creatives of those groups added by the world's date.
    pub creatives: Vec<Creative>,
}

/// Purposes of hashes, so two draws about the same entity never collide.
mod tag {
    pub const USER: u64 = 1;
    pub const ACCOUNT: u64 = 2;
    pub const BUDGET: u64 = 3;
    pub const HOLD: u64 = 4;
    pub const SLOT: u64 = 5;
    pub const GEN: u64 = 6;
    pub const PAUSE: u64 = 7;
    pub const BID: u64 = 8;
    pub const TARGET: u64 = 9;
    pub const CREATIVE: u64 = 10;
    pub const ASSET: u64 = 11;
}

/// Generates the entities visible on `today` for `seed`.
pub fn generate(seed: u64, today: Day) -> Entities {
    let mut out = Entities {
        users: Vec::new(),
        accounts: Vec::new(),
        groups: Vec::new(),
        creatives: Vec::new(),
    };
    let window_start = today.plus(-HISTORY_DAYS);
    for u in 0..USERS as u64 {
        let h = |k: u64| hash(&[seed, tag::USER, u, k]);
        let industry = Industry::ALL[(h(0) % 6) as usize];
        let names = company_names(industry);
        let user = User {
            id: 100_000 + scramble(u, 16, seed),
            name: format!("{} {}", names[(h(1) % names.len() as u64) as usize], u + 1),
            accounts: Vec::new(),
        };
        out.users.push(user);
        // Skewed so a few users are large (the latency target is about the largest).
        let n_accounts = match h(2) % 10 {
            0..=3 => 1,
            4..=5 => 2,
            6 => 3,
            7 => 4,
            8 => 5,
            _ => 6,
        };
        for a in 0..n_accounts {
            let serial = u * 8 + a;
            let acc = generate_account(
                seed,
                u as usize,
                serial,
                industry,
                today,
                window_start,
                &mut out,
            );
            out.users[u as usize].accounts.push(acc);
        }
    }
    out
}

fn generate_account(
    seed: u64,
    user: usize,
    serial: u64,
    main: Industry,
    today: Day,
    window_start: Day,
    out: &mut Entities,
) -> usize {
    let h = |k: u64| hash(&[seed, tag::ACCOUNT, serial, k]);
    let industry = if h(0).is_multiple_of(5) {
        Industry::ALL[(h(1) % 6) as usize]
    } else {
        main
    };
    let created = epoch().plus(-(range(h(2), 0, 400) as i32));
    // Budgets are log-uniform between 2k and 200k CNY a day.
    let base = libm::pow(10.0, uniform(h(3), 3.3, 5.3)) * 100.0;
    let mut budgets = vec![(created, base.round() as u64)];
    let mut holds = Vec::new();
    let mut block = 0i32;
    loop {
        let start = epoch().plus(block * 30);
        if start > today {
            break;
        }
        let hb = hash(&[seed, tag::BUDGET, serial, block as u64]);
        if hb % 100 < 30 {
            let at = start.plus(range(hb >> 8, 0, 29) as i32);
            let factor = uniform(hash(&[hb, 1]), 0.6, 1.6);
            budgets.push((at, ((base * factor) / 100.0).round() as u64 * 100));
        }
        let hh = hash(&[seed, tag::HOLD, serial, block as u64]);
        if hh % 100 < 4 {
            let at = start.plus(range(hh >> 8, 0, 29) as i32);
            let kind = if hash(&[hh, 1]).is_multiple_of(3) {
                Audit::Rejected
            } else {
                Audit::Pending
            };
            holds.push((at, at.plus(range(hash(&[hh, 2]), 1, 4) as i32), kind));
        }
        block += 1;
    }
    let names = asset_names(industry);
    let n_assets = range(h(4), 1, 4) as usize;
    let first = (h(5) % names.len() as u64) as usize;
    let assets = (0..n_assets)
        .map(|i| {
            (
                800_000 + scramble(serial << 3 | i as u64, 17, seed ^ tag::ASSET),
                names[(first + i) % names.len()].to_string(),
            )
        })
        .collect();
    let index = out.accounts.len();
    out.accounts.push(Account {
        id: 10_000_000 + scramble(serial, 24, seed),
        user,
        serial,
        name: format!("{} {:02}", industry.name(), serial % 100),
        industry,
        created,
        budgets,
        holds,
        assets,
        trend: uniform(h(6), -0.35, 0.45),
        groups: Vec::new(),
    });
    // 4–25 slots, each hosting ad groups one after another.
    let slots = range(h(7), 4, 25) as u64;
    let share_weights: Vec<f64> = (0..slots)
        .map(|s| uniform(hash(&[seed, tag::SLOT, serial, s]), 0.2, 1.0))
        .collect();
    let share_total: f64 = share_weights.iter().sum();
    for s in 0..slots {
        let hs = hash(&[seed, tag::SLOT, serial, s, 1]);
        let mut launch = created.max(epoch()).plus(range(hs, 0, 240) as i32);
        let mut gen = 0u64;
        while launch <= today {
            let hg = hash(&[seed, tag::GEN, serial, s, gen]);
            let life = range(hg, 60, 420) as i32;
            let end = launch.plus(life);
            if end > window_start {
                let share =
                    share_weights[s as usize] / share_total * uniform(hash(&[hg, 1]), 1.2, 2.2);
                generate_group(seed, index, serial, s, gen, launch, end, share, today, out);
            }
            launch = end.plus(range(hash(&[hg, 2]), 0, 21) as i32);
            gen += 1;
        }
    }
    index
}

#[allow(clippy::too_many_arguments)]
fn generate_group(
    seed: u64,
    account: usize,
    serial: u64,
    slot: u64,
    gen: u64,
    launch: Day,
    end: Day,
    budget_share: f64,
    today: Day,
    out: &mut Entities,
) {
    let structured = serial << 16 | slot << 11 | gen.min(2047);
    let id = 1_000_000_000 + scramble(structured, 30, seed);
    let h = |k: u64| hash(&[seed, tag::GEN, structured, k]);
    let industry = out.accounts[account].industry;
    let objectives = Objective::for_industry(industry);
    let objective = objectives[(h(10) % objectives.len() as u64) as usize];
    let asset = (h(11) % out.accounts[account].assets.len() as u64) as usize;
    // Site sets: 1–3 distinct, with traffic weights.
    let n_sites = range(h(12), 1, 3) as usize;
    let first = (h(13) % 6) as usize;
    let step = 1 + (h(14) % 5) as usize;
    let mut site_sets: Vec<(SiteSet, f64)> = Vec::new();
    for i in 0..n_sites {
        let s = SiteSet::ALL[(first + i * step) % 6];
        if !site_sets.iter().any(|(x, _)| *x == s) {
            site_sets.push((s, uniform(hash(&[h(15), i as u64]), 0.3, 1.0)));
        }
    }
    site_sets.sort_by_key(|(s, _)| *s);
    // Delivery hours: all day, daytime, or evenings-plus.
    let hours = match h(16) % 4 {
        0 => 0x00FF_FF00, // 08:00-23:59
        1 => 0x00FF_FFC0, // 06:00-23:59
        _ => 0x00FF_FFFF,
    };
    let ht = hash(&[seed, tag::TARGET, structured]);
    let genders = match ht % 5 {
        0 => 0b101,
        1 => 0b110,
        _ => 0b111,
    };
    let ages = if (ht >> 8).is_multiple_of(3) {
        0b10_0000 | (0b1111 << ((ht >> 12) % 2)) as u8
    } else {
        0b11_1111
    };
    let regions = if (ht >> 16).is_multiple_of(3) {
        ((ht >> 20) as u8) | 1
    } else {
        0xFF
    };
    let (lo, hi) = bid_range(industry);
    let bid0 = uniform(h(17), lo, hi).round() as u64;
    let mut bids = vec![(launch, bid0)];
    let mut pauses = Vec::new();
    let last = end.min(today.plus(1));
    let mut block = 0i32;
    while launch.plus(block * 14) < last {
        let start = launch.plus(block * 14);
        let hb = hash(&[seed, tag::BID, structured, block as u64]);
        if block > 0 && hb % 100 < 35 {
            let prev = bids.last().map_or(bid0, |b| b.1) as f64;
            let v = (prev * uniform(hash(&[hb, 1]), 0.8, 1.25)).clamp(lo * 0.5, hi * 2.0);
            bids.push((start.plus(range(hb >> 8, 0, 13) as i32), v.round() as u64));
        }
        if block % 3 == 1 {
            let hp = hash(&[seed, tag::PAUSE, structured, block as u64]);
            if hp % 100 < 30 {
                let at = start.plus(range(hp >> 8, 0, 13) as i32);
                pauses.push((at, at.plus(range(hash(&[hp, 1]), 1, 12) as i32)));
            }
        }
        block += 1;
    }
    let rejected = h(18) % 100 < 3;
    let audit_until = if h(19) % 100 < 12 {
        launch.plus(range(h(20), 1, 5) as i32)
    } else {
        launch
    };
    let acc_serial = out.accounts[account].serial;
    let asset_name = out.accounts[account].assets[asset].1.clone();
    let index = out.groups.len();
    let mut group = AdGroup {
        id,
        account,
        name: format!("{} | {} | {}", asset_name, objective.name(), launch),
        launch,
        end,
        pauses,
        bid_lifts: bids
            .iter()
            .map(|b| libm::pow(b.1 as f64 / bid0 as f64, 0.6))
            .collect(),
        bids,
        audit_until,
        rejected,
        hours,
        genders,
        ages,
        regions,
        site_mix: site_sets.iter().fold([0.0; 4], |m, &(s, w)| {
            [
                m[0] + w,
                m[1] + w * s.ctr_factor(),
                m[2] + w * s.ctr_factor() * s.cpc_factor(),
                m[3] + w * s.ctr_factor() * s.cvr_factor(),
            ]
        }),
        site_sets,
        objective,
        asset,
        budget_share,
        creatives: Vec::new(),
    };
    // 1–6 creatives: one or two at launch, the rest added later as refreshes.
    let n = range(h(21), 1, 6) as u64;
    let video_bias = uniform(h(22), 0.1, 0.9);
    for k in 0..n {
        let hc = hash(&[seed, tag::CREATIVE, structured, k]);
        let added = if k < 2 {
            launch
        } else {
            launch.plus(range(hc, 7, end.since(launch).max(8) as i64 - 1) as i32)
        };
        if added > today {
            continue;
        }
        let kind = if uniform(hash(&[hc, 1]), 0.0, 1.0) < video_bias {
            CreativeType::Video
        } else {
            CreativeType::Image
        };
        let pool = if kind == CreativeType::Video { 10 } else { 16 };
        let m = hash(&[hc, 2]) % pool;
        let material = 700_000_000
            + scramble(
                acc_serial << 6 | m << 1 | (kind == CreativeType::Video) as u64,
                24,
                seed ^ 0x5eed,
            );
        let ci = out.creatives.len();
        out.creatives.push(Creative {
            id: 5_000_000_000 + scramble(structured << 3 | k, 32, seed),
            group: index,
            name: format!("{} {} #{}", asset_name, kind.name().to_lowercase(), k + 1),
            kind,
            material,
            added,
            rejected: hash(&[hc, 3]) % 100 < 7,
            quality: libm::pow(10.0, uniform(hash(&[hc, 4]), -0.25, 0.25)),
            fatigue_days: uniform(hash(&[hc, 5]), 15.0, 60.0),
        });
        group.creatives.push(ci);
    }
    out.accounts[account].groups.push(index);
    out.groups.push(group);
}
