//! Ranks with their uncertainty, from a paired bootstrap over items: every
//! entry's mean is taken on the same resamples of the items
//! ([`super::resample_means`]), each resample ranks the entries, and an
//! entry's rank interval is the central `level` share of its ranks. An
//! entry's tier is one plus the number of entries whose whole interval
//! lies above its own (LMArena's "rank (UB)" over rank intervals): entries
//! with overlapping intervals share a tier, and a tier changes only where
//! intervals separate.

/// Ranks of entries on one resample: `1 + ` the number of entries with a
/// strictly higher mean (ties share the better rank).
fn ranks_of(means: &[f64]) -> Vec<u32> {
    means
        .iter()
        .map(|m| 1 + means.iter().filter(|o| *o > m).count() as u32)
        .collect()
}

/// Each entry's rank interval `(best, worst)` at `level` (0.95) over the
/// resamples: `means[e][b]` is entry `e`'s mean on resample `b`, every
/// entry over the same resamples. Ranks count from 1 (highest mean).
/// Without resamples every interval is `(1, entries)`.
pub fn rank_intervals(means: &[Vec<f64>], level: f64) -> Vec<(u32, u32)> {
    let entries = means.len();
    let count = means.first().map_or(0, Vec::len);
    if count == 0 {
        return vec![(1, entries as u32); entries];
    }
    let mut ranks = vec![Vec::with_capacity(count); entries];
    let mut at = vec![0.0; entries];
    for b in 0..count {
        for (m, e) in at.iter_mut().zip(means) {
            *m = e[b];
        }
        for (r, rank) in ranks.iter_mut().zip(ranks_of(&at)) {
            r.push(rank);
        }
    }
    let tail = (1.0 - level) / 2.0;
    let last = (count - 1) as f64;
    ranks
        .into_iter()
        .map(|mut r| {
            r.sort_unstable();
            // numpy's `lower` and `higher` quantiles: ranks stay integers.
            let best = r[(tail * last).floor() as usize];
            let worst = r[((1.0 - tail) * last).ceil() as usize];
            (best, worst)
        })
        .collect()
}

/// Tiers of entries with rank intervals `intervals`: one plus the number
/// of entries whose worst rank is better than the entry's best.
pub fn tiers(intervals: &[(u32, u32)]) -> Vec<u32> {
    intervals
        .iter()
        .map(|&(best, _)| 1 + intervals.iter().filter(|&&(_, w)| w < best).count() as u32)
        .collect()
}

/// Share of resamples on which `a`'s mean exceeds `b`'s (ties count
/// half); both over the same resamples. `None` without resamples.
pub fn share_above(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.is_empty() {
        return None;
    }
    let wins: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| match x.partial_cmp(y) {
            Some(std::cmp::Ordering::Greater) => 1.0,
            Some(std::cmp::Ordering::Equal) => 0.5,
            _ => 0.0,
        })
        .sum();
    Some(wins / a.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::super::resample_means;
    use super::*;

    /// Per-item values around `mean`: `n` items with a fixed spread.
    fn around(mean: f64, spread: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| mean + spread * (((i * 7919) % 13) as f64 / 6.0 - 1.0))
            .collect()
    }

    fn ranked(sets: &[Vec<f64>]) -> (Vec<(u32, u32)>, Vec<u32>) {
        let refs: Vec<&[f64]> = sets.iter().map(Vec::as_slice).collect();
        let means = resample_means(&refs, 1000, 7);
        let intervals = rank_intervals(&means, 0.95);
        let t = tiers(&intervals);
        (intervals, t)
    }

    #[test]
    fn separated_entries_get_their_own_tiers() {
        let sets = [
            around(90.0, 5.0, 60),
            around(50.0, 5.0, 60),
            around(10.0, 5.0, 60),
        ];
        let (intervals, t) = ranked(&sets);
        assert_eq!(intervals, vec![(1, 1), (2, 2), (3, 3)]);
        assert_eq!(t, vec![1, 2, 3]);
    }

    #[test]
    fn overlapping_entries_share_a_tier_and_a_separated_one_does_not() {
        // a and b differ by far less than their noise; c is far below.
        let noisy = |shift: f64| -> Vec<f64> {
            (0..40)
                .map(|i| if (i * 31 + 7) % 5 < 2 { 100.0 } else { 0.0 } + shift)
                .collect()
        };
        let sets = [noisy(1.0), noisy(0.0), around(-200.0, 1.0, 40)];
        // Break the pairing between a and b so their order varies.
        let mut b = sets[1].clone();
        b.rotate_left(3);
        let (intervals, t) = ranked(&[sets[0].clone(), b, sets[2].clone()]);
        assert_eq!(intervals[0].0, 1, "{intervals:?}");
        assert_eq!(intervals[1].1, 2, "{intervals:?}");
        assert!(intervals[0].1 >= 2 && intervals[1].0 == 1, "{intervals:?}");
        assert_eq!(intervals[2], (3, 3));
        assert_eq!(t, vec![1, 1, 3]);
    }

    #[test]
    fn tiers_follow_interval_overlap_on_constructed_intervals() {
        assert_eq!(tiers(&[(1, 2), (1, 2), (3, 4), (3, 4)]), vec![1, 1, 3, 3]);
        assert_eq!(tiers(&[(1, 1), (2, 3), (2, 3)]), vec![1, 2, 2]);
        // A chain: b overlaps both, a and c are separated.
        assert_eq!(tiers(&[(1, 2), (1, 3), (3, 3)]), vec![1, 1, 2]);
    }

    #[test]
    fn the_bootstrap_is_seeded_and_its_ranks_are_stable() {
        // Paired, a constant +2 would always win: shift b's items so the
        // per-item differences vary.
        let mut b = around(50.0, 30.0, 25);
        b.rotate_left(5);
        let sets = [around(52.0, 30.0, 25), b];
        let refs: Vec<&[f64]> = sets.iter().map(Vec::as_slice).collect();
        let first = rank_intervals(&resample_means(&refs, 500, 3), 0.95);
        let again = rank_intervals(&resample_means(&refs, 500, 3), 0.95);
        assert_eq!(first, again);
        assert_eq!(first, vec![(1, 2), (1, 2)]);
        let m = resample_means(&refs, 500, 3);
        let p = share_above(&m[0], &m[1]).expect("resamples");
        assert!(p > 0.5 && p < 1.0, "{p}");
        assert_eq!(share_above(&[], &[]), None);
        assert_eq!(share_above(&[1.0, 2.0], &[1.0, 3.0]), Some(0.25));
    }

    #[test]
    fn ties_share_the_better_rank() {
        assert_eq!(ranks_of(&[3.0, 5.0, 3.0, 1.0]), vec![2, 1, 2, 4]);
        assert_eq!(
            rank_intervals(&[vec![], vec![]], 0.95),
            vec![(1, 2), (1, 2)]
        );
    }
}
