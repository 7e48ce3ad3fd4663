//! One board: each entry's per-item values of each metric, means with
//! intervals, rank intervals and tiers from a paired bootstrap, the row
//! order, and the change of each cell since the previous release.

use super::assemble::{cost_per_run, recipe, Pending, Sweep, LEVEL};
use super::config::ReleaseConfig;
use adfarm_proto::leaderboard::{
    hidden_item_key, BenchmarkVersion, Board, Change, Release, Row, Standing,
};
use adfarm_suites::stats::{
    mean, mean_interval, rank_intervals, resample_means, share_above, summarise, tiers,
};
use adfarm_suites::HeadlineValue;
use std::collections::BTreeMap;

/// The seed of one set of resamples (`what`: a metric, a change, a pair)
/// on one board: a pure function of the release seed.
pub(super) fn resample_seed(seed: u64, board: &str, what: &str) -> u64 {
    let h = adfarm_proto::content_hash(&[b"ranks", board.as_bytes(), what.as_bytes()]);
    seed ^ u64::from_str_radix(&h[..16], 16).expect("a hex hash")
}

/// One entry's per-item values of a metric: item key → mean over seeds,
/// and the per-seed means.
fn per_item(
    values: &[HeadlineValue],
    version: &BenchmarkVersion,
) -> (BTreeMap<String, f64>, Option<f64>) {
    let mut items: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut seeds: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for v in values {
        let key = if version.hidden {
            hidden_item_key(&version.data, &v.item)
        } else {
            v.item.clone()
        };
        items.entry(key).or_default().push(v.value);
        if let Some(s) = v.seed {
            seeds.entry(s).or_default().push(v.value);
        }
    }
    let items = items
        .into_iter()
        .map(|(k, v)| (k, mean(v).expect("an item has a value")))
        .collect();
    let seed_means: Vec<f64> = seeds.into_values().filter_map(mean).collect();
    let spread = (seed_means.len() >= 2).then(|| {
        let m = mean(seed_means.iter().copied()).expect("two means");
        let ss: f64 = seed_means.iter().map(|x| (x - m).powi(2)).sum();
        (ss / (seed_means.len() - 1) as f64).sqrt()
    });
    (items, spread)
}

/// Ranks `p`'s entries into a board.
pub(super) fn rank(
    id: &str,
    cfg: &ReleaseConfig,
    p: Pending,
    sweeps: &[Sweep],
    previous: Option<&Release>,
) -> Board {
    let count = p.entries.len();
    // standings[e][m], and each metric's resampled means per entry.
    let mut standings: Vec<Vec<Standing>> = vec![Vec::new(); count];
    let mut resampled: Vec<Vec<Vec<f64>>> = Vec::new();
    for m in &p.metrics {
        let per: Vec<(BTreeMap<String, f64>, Option<f64>)> = p
            .entries
            .iter()
            .map(|c| {
                per_item(
                    c.values.get(&m.id).map_or(&[][..], Vec::as_slice),
                    &p.version,
                )
            })
            .collect();
        let ranked: Vec<usize> = (0..count).filter(|&e| !per[e].0.is_empty()).collect();
        let common: Vec<&String> = match ranked.first() {
            Some(&first) => per[first]
                .0
                .keys()
                .filter(|k| ranked.iter().all(|&e| per[e].0.contains_key(*k)))
                .collect(),
            None => Vec::new(),
        };
        let sets: Vec<Vec<f64>> = ranked
            .iter()
            .map(|&e| common.iter().map(|k| per[e].0[*k]).collect())
            .collect();
        let refs: Vec<&[f64]> = sets.iter().map(Vec::as_slice).collect();
        let means = resample_means(
            &refs,
            cfg.resamples as usize,
            resample_seed(cfg.seed, id, &m.id),
        );
        let intervals = rank_intervals(&means, LEVEL);
        let mut by_entry = vec![Vec::new(); count];
        for (e, (items, spread)) in per.into_iter().enumerate() {
            let slot = ranked.iter().position(|&r| r == e);
            let values: Vec<f64> = items.values().copied().collect();
            let interval = mean_interval(&values, LEVEL);
            if let Some(i) = slot {
                by_entry[e] = means[i].clone();
            }
            standings[e].push(Standing {
                metric: m.id.clone(),
                mean: interval.as_ref().map(|i| i.mean),
                ci95: interval.and_then(|i| i.half_width),
                n: items.len() as u64,
                seed_spread: spread,
                rank_best: slot.map(|i| intervals[i].0),
                rank_worst: slot.map(|i| intervals[i].1),
                beats_next: None,
                change: None,
                items,
            });
        }
        resampled.push(by_entry);
    }
    // Tiers on the first metric; rows in tier, then mean, then name order.
    let primary: Vec<(u32, u32)> = standings
        .iter()
        .map(|s| match s.first() {
            Some(Standing {
                rank_best: Some(b),
                rank_worst: Some(w),
                ..
            }) => (*b, *w),
            _ => (count as u32, count as u32),
        })
        .collect();
    let tier = tiers(&primary);
    let mut order: Vec<usize> = (0..count).collect();
    let key = |e: usize| {
        standings[e]
            .first()
            .and_then(|s| s.mean)
            .unwrap_or(f64::NEG_INFINITY)
    };
    order.sort_by(|&a, &b| {
        tier[a]
            .cmp(&tier[b])
            .then(key(b).total_cmp(&key(a)))
            .then(p.entries[a].name.cmp(&p.entries[b].name))
    });
    for (m, by_entry) in resampled.iter().enumerate() {
        for w in order.windows(2) {
            standings[w[0]][m].beats_next = share_above(&by_entry[w[0]], &by_entry[w[1]]);
        }
    }
    let prev_boards: Vec<&Board> = previous
        .map(|r| {
            r.boards
                .iter()
                .filter(|b| b.version.suite == p.version.suite)
                .collect()
        })
        .unwrap_or_default();
    let mut rows = Vec::with_capacity(count);
    let mut standings: Vec<Option<Vec<Standing>>> = standings.into_iter().map(Some).collect();
    for e in order {
        let c = &p.entries[e];
        let mut cells = standings[e].take().expect("each entry once");
        let mut new = previous.is_some();
        for b in &prev_boards {
            let Some(before) = b.rows.iter().find(|r| r.entry == c.name) else {
                continue;
            };
            new = false;
            if !b.version.scores_like(&p.version) {
                continue;
            }
            for s in cells.iter_mut() {
                if let Some(old) = before.cells.iter().find(|o| o.metric == s.metric) {
                    s.change = change(s, old, b.version.data != p.version.data, cfg, id);
                }
            }
        }
        let sweep = &sweeps[c.sweep];
        let cost = cost_per_run(sweep, &p.version.suite, &c.label);
        let first_mean = cells.first().and_then(|s| s.mean);
        rows.push(Row {
            entry: c.name.clone(),
            tier: tier[e],
            new,
            cost_per_run_usd: cost,
            cost_per_point_usd: first_mean.filter(|m| *m > 0.0).map(|m| cost / m),
            cells,
            recipe: recipe(sweep, &c.label, &c.protocols),
        });
    }
    Board {
        id: id.into(),
        version: p.version,
        stale: p.stale,
        metrics: p.metrics,
        rows,
    }
}

/// The change of `now` since `old` on the items both scored.
fn change(
    now: &Standing,
    old: &Standing,
    tasks_changed: bool,
    cfg: &ReleaseConfig,
    board: &str,
) -> Option<Change> {
    let diffs: Vec<f64> = now
        .items
        .iter()
        .filter_map(|(k, v)| old.items.get(k).map(|o| v - o))
        .collect();
    let delta = mean(diffs.iter().copied())?;
    let seed = resample_seed(cfg.seed, board, &format!("change:{}", now.metric));
    let means = resample_means(&[&diffs], cfg.resamples as usize, seed);
    let ci = summarise(means.into_iter().next().expect("one set"), 1.0 - LEVEL);
    Some(Change {
        delta,
        lower: ci.lower,
        upper: ci.upper,
        shared_items: diffs.len() as u64,
        significant: ci.lower > 0.0 || ci.upper < 0.0,
        tasks_changed,
    })
}
