//! How far reviewers agree, and what they found: per review kind, Cohen's
//! κ for every pair of reviewers on their shared tasks, Krippendorff's α
//! over all reviews, the disputes, how often reviewers identified the
//! marked artifact, and the marked artifact's win and tie rates.
//!
//! The statistics themselves live in `adfarm_suite::stats`; this module
//! only lays reviews out for them. A pair's κ and α are over "which is
//! better" (marked, other, tie; nominal). A rating's α is per question
//! (ordinal over the answer values) and its κ pools every question's
//! answer steps.

use super::assign::{by_task, disputed};
use super::court::{Court, CourtKind, CourtTask};
use adfarm_proto::review::{Answers, Pick, Review};
use adfarm_suites::stats::{
    cohen_kappa_of_pairs, krippendorff_alpha, wilson_interval, Level, Proportion,
};
use adfarm_suites::ReviewForm;
use std::collections::{BTreeMap, BTreeSet};

/// A reviewer identified the marked artifact when they picked it and said
/// they were more than this sure (%).
pub const IDENTIFIED_ABOVE: u8 = 55;

/// One kind's reliability and findings.
#[derive(Debug, Clone, PartialEq)]
pub struct Reliability {
    /// Suite.
    pub suite: String,
    /// Kind id.
    pub kind: String,
    /// Whether the kind is a pair.
    pub pair: bool,
    /// Tasks with at least one review.
    pub tasks: usize,
    /// Reviews.
    pub reviews: usize,
    /// Tasks with two reviews or more.
    pub double: usize,
    /// Share of reviewer pairs on a task that agree (as disputes count
    /// agreement: a rating's answers within one step).
    pub agreement: Option<f64>,
    /// Krippendorff's α: a pair's over "which is better", a rating's per
    /// question metric.
    pub alpha: Vec<(String, Option<f64>)>,
    /// κ per pair of reviewers.
    pub kappas: Vec<Kappa>,
    /// Tasks whose first two reviews disagree.
    pub disputes: Vec<Dispute>,
    /// Pairs: share of reviews that picked the marked artifact as marked
    /// with more than [`IDENTIFIED_ABOVE`]% confidence.
    pub identified: Option<Proportion>,
    /// Pairs: share of reviews whose guess was right, whatever the
    /// confidence.
    pub guessed: Option<Proportion>,
    /// Pairs: share of reviews (with the question asked) that found the
    /// marked artifact's rationale sound.
    pub rationale_sound: Option<Proportion>,
    /// Pairs: the marked artifact's results per solution.
    pub wins: Vec<WinRate>,
}

/// Cohen's κ of two reviewers.
#[derive(Debug, Clone, PartialEq)]
pub struct Kappa {
    /// First reviewer's id.
    pub a: String,
    /// Second reviewer's id.
    pub b: String,
    /// Answers both gave (tasks for a pair; task × question for a rating).
    pub shared: usize,
    /// κ; `None` when undefined (no shared answers, one category only).
    pub kappa: Option<f64>,
}

/// A task whose first two reviews disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct Dispute {
    /// Task id.
    pub task: String,
    /// Item.
    pub item: String,
    /// Solution.
    pub solution: String,
    /// Whether a third review is in.
    pub resolved: bool,
}

/// How the marked artifact of one solution fared against the other one.
#[derive(Debug, Clone, PartialEq)]
pub struct WinRate {
    /// Solution.
    pub solution: String,
    /// Share of reviews preferring the marked artifact.
    pub won: Proportion,
    /// Share of ties.
    pub tied: Proportion,
    /// Share preferring the other artifact.
    pub lost: Proportion,
}

/// The pick most reviews of a pair chose as better; `None` without
/// reviews or when two picks share the most votes.
pub fn pair_majority(reviews: &[&Review]) -> Option<Pick> {
    let mut votes: BTreeMap<Pick, usize> = BTreeMap::new();
    for r in reviews {
        if let Answers::Pair { better, .. } = r.answers {
            *votes.entry(better).or_default() += 1;
        }
    }
    let top = votes.values().copied().max()?;
    let mut leaders = votes.iter().filter(|(_, n)| **n == top);
    let first = leaders.next()?;
    leaders.next().is_none().then_some(*first.0)
}

/// The reviewers' mean value per rating question.
pub fn rating_means(reviews: &[&Review]) -> BTreeMap<String, f64> {
    let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for r in reviews {
        if let Answers::Rating { values } = &r.answers {
            for (m, v) in values {
                let s = sums.entry(m.clone()).or_default();
                s.0 += v;
                s.1 += 1;
            }
        }
    }
    sums.into_iter()
        .map(|(m, (s, n))| (m, s / n as f64))
        .collect()
}

/// Each kind's reliability, in court order; kinds without reviews are
/// left out.
pub fn reliability(court: &Court, reviews: &[Review]) -> Vec<Reliability> {
    let grouped = by_task(reviews);
    court
        .kinds
        .iter()
        .filter_map(|k| {
            let tasks: Vec<(&CourtTask, &[&Review])> = court
                .tasks
                .iter()
                .filter(|t| t.suite == k.suite && t.task.kind == k.kind.id)
                .filter_map(|t| grouped.get(t.task.id.as_str()).map(|r| (t, r.as_slice())))
                .collect();
            (!tasks.is_empty()).then(|| of_kind(k, &tasks))
        })
        .collect()
}

/// A reviewer's category for a task: a pair's better pick; a rating's
/// answer step per question.
fn categories(form: &ReviewForm, r: &Review) -> Vec<(String, usize)> {
    match (form, &r.answers) {
        (ReviewForm::Pair { .. }, Answers::Pair { better, .. }) => {
            vec![("better".into(), *better as usize)]
        }
        (ReviewForm::Rating { questions }, Answers::Rating { values }) => questions
            .iter()
            .filter_map(|q| {
                let v = values.get(&q.metric)?;
                let step = q.options.iter().position(|o| o.value == *v)?;
                Some((q.metric.clone(), step))
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn of_kind(k: &CourtKind, tasks: &[(&CourtTask, &[&Review])]) -> Reliability {
    let form = &k.kind.form;
    let reviews: usize = tasks.iter().map(|(_, r)| r.len()).sum();
    let double = tasks.iter().filter(|(_, r)| r.len() >= 2).count();

    // Pairwise agreement over every two reviews of one task.
    let (mut agreeing, mut pairs) = (0usize, 0usize);
    for (_, rs) in tasks {
        for (i, a) in rs.iter().enumerate() {
            for b in &rs[i + 1..] {
                pairs += 1;
                if super::assign::agree(form, &a.answers, &b.answers) {
                    agreeing += 1;
                }
            }
        }
    }

    // κ per reviewer pair, over what both answered.
    let reviewers: BTreeSet<&str> = tasks
        .iter()
        .flat_map(|(_, rs)| rs.iter().map(|r| r.reviewer.as_str()))
        .collect();
    let reviewers: Vec<&str> = reviewers.into_iter().collect();
    let mut kappas = Vec::new();
    for (i, a) in reviewers.iter().enumerate() {
        for b in &reviewers[i + 1..] {
            let mut shared = Vec::new();
            for (_, rs) in tasks {
                let of = |who: &str| rs.iter().find(|r| r.reviewer == who);
                if let (Some(x), Some(y)) = (of(a), of(b)) {
                    let cx = categories(form, x);
                    let cy: BTreeMap<String, usize> = categories(form, y).into_iter().collect();
                    for (q, c) in cx {
                        if let Some(d) = cy.get(&q) {
                            shared.push((c, *d));
                        }
                    }
                }
            }
            if !shared.is_empty() {
                kappas.push(Kappa {
                    a: a.to_string(),
                    b: b.to_string(),
                    shared: shared.len(),
                    kappa: cohen_kappa_of_pairs(shared),
                });
            }
        }
    }

    // α: units are tasks, raters the reviewers.
    let questions: Vec<String> = match form {
        ReviewForm::Pair { .. } => vec!["better".into()],
        ReviewForm::Rating { questions } => questions.iter().map(|q| q.metric.clone()).collect(),
    };
    let alpha = questions
        .iter()
        .map(|q| {
            let units: Vec<Vec<Option<f64>>> = tasks
                .iter()
                .map(|(_, rs)| {
                    reviewers
                        .iter()
                        .map(|who| {
                            let r = rs.iter().find(|r| r.reviewer == *who)?;
                            categories(form, r)
                                .into_iter()
                                .find(|(m, _)| m == q)
                                .map(|(_, c)| c as f64)
                        })
                        .collect()
                })
                .collect();
            let level = if form.is_pair() {
                Level::Nominal
            } else {
                Level::Ordinal
            };
            (q.clone(), krippendorff_alpha(&units, level))
        })
        .collect();

    let disputes = tasks
        .iter()
        .filter(|(_, rs)| disputed(form, rs))
        .map(|(t, rs)| Dispute {
            task: t.task.id.clone(),
            item: t.task.item.clone(),
            solution: t.task.solution.clone(),
            resolved: rs.len() >= 3,
        })
        .collect();

    let pair_answers: Vec<(&CourtTask, &Answers)> = tasks
        .iter()
        .flat_map(|(t, rs)| rs.iter().map(move |r| (*t, &r.answers)))
        .filter(|(_, a)| matches!(a, Answers::Pair { .. }))
        .collect();
    let share = |hits: usize, n: usize| wilson_interval(hits as u64, n as u64, 0.95);
    let (mut identified, mut guessed, mut sound, mut asked) = (0, 0, 0, 0);
    let mut by_solution: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
    for (t, a) in &pair_answers {
        if let Answers::Pair {
            better,
            guess,
            confidence,
            rationale_sound,
        } = a
        {
            if *guess == Pick::Marked {
                guessed += 1;
                if *confidence > IDENTIFIED_ABOVE {
                    identified += 1;
                }
            }
            if let Some(s) = rationale_sound {
                asked += 1;
                sound += usize::from(*s);
            }
            by_solution.entry(t.task.solution.as_str()).or_default()[*better as usize] += 1;
        }
    }
    let n = pair_answers.len();
    let wins = by_solution
        .into_iter()
        .filter_map(|(s, c)| {
            let total = c.iter().sum();
            Some(WinRate {
                solution: s.to_string(),
                won: share(c[Pick::Marked as usize], total)?,
                tied: share(c[Pick::Tie as usize], total)?,
                lost: share(c[Pick::Other as usize], total)?,
            })
        })
        .collect();

    Reliability {
        suite: k.suite.clone(),
        kind: k.kind.id.clone(),
        pair: form.is_pair(),
        tasks: tasks.len(),
        reviews,
        double,
        agreement: (pairs > 0).then(|| agreeing as f64 / pairs as f64),
        alpha,
        kappas,
        disputes,
        identified: share(identified, n),
        guessed: share(guessed, n),
        rationale_sound: share(sound, asked),
        wins,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::tests::{court_of_pairs, pair_review, pair_review_guess};

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    /// Cohen's (1960) layout in miniature: two reviewers on ten pairs,
    /// agreeing on 7 (4 marked, 3 other), and the κ worked by hand:
    /// p_o = 0.7; marginals a = (6 marked, 4 other), b = (5, 5);
    /// p_e = 0.6·0.5 + 0.4·0.5 = 0.5; κ = (0.7 − 0.5)/0.5 = 0.4.
    #[test]
    fn kappa_of_two_reviewers_matches_the_hand_computation() {
        let court = court_of_pairs(10);
        let a = [
            Pick::Marked,
            Pick::Marked,
            Pick::Marked,
            Pick::Marked,
            Pick::Marked,
            Pick::Marked,
            Pick::Other,
            Pick::Other,
            Pick::Other,
            Pick::Other,
        ];
        let b = [
            Pick::Marked,
            Pick::Marked,
            Pick::Marked,
            Pick::Marked,
            Pick::Other,
            Pick::Other,
            Pick::Marked,
            Pick::Other,
            Pick::Other,
            Pick::Other,
        ];
        let mut reviews = Vec::new();
        for (i, t) in court.tasks.iter().enumerate() {
            reviews.push(pair_review(&t.task.id, "a", a[i], 1));
            reviews.push(pair_review(&t.task.id, "b", b[i], 2));
        }
        let r = &reliability(&court, &reviews)[0];
        assert_eq!(r.kappas.len(), 1);
        assert_eq!(r.kappas[0].shared, 10);
        assert!(close(r.kappas[0].kappa, 0.4), "{:?}", r.kappas);
        assert!(close(r.agreement, 0.7));
        assert_eq!(r.disputes.len(), 3);
        assert!(r.disputes.iter().all(|d| !d.resolved));
        // α (nominal, two raters, no missing values) = 1 − (n−1)·D_o/D_e
        // over the coincidence matrix: n = 20, o(m,o) = o(o,m) = 3,
        // n_m = 11, n_o = 9: α = 1 − 19·6/(2·11·9) = 1 − 114/198.
        assert!(close(r.alpha[0].1, 1.0 - 114.0 / 198.0), "{:?}", r.alpha);
    }

    #[test]
    fn identification_counts_right_guesses_above_fifty_five_percent() {
        let court = court_of_pairs(4);
        let ids: Vec<&str> = court.tasks.iter().map(|t| t.task.id.as_str()).collect();
        let reviews = vec![
            pair_review_guess(ids[0], "a", Pick::Marked, 90),
            pair_review_guess(ids[1], "a", Pick::Marked, 55),
            pair_review_guess(ids[2], "a", Pick::Other, 100),
            pair_review_guess(ids[3], "a", Pick::Marked, 56),
        ];
        let r = &reliability(&court, &reviews)[0];
        assert_eq!(r.identified.unwrap().successes, 2);
        assert_eq!(r.guessed.unwrap().successes, 3);
        assert_eq!(r.identified.unwrap().n, 4);
    }

    #[test]
    fn win_rates_are_per_solution_with_wilson_intervals() {
        let court = court_of_pairs(4);
        let ids: Vec<&str> = court.tasks.iter().map(|t| t.task.id.as_str()).collect();
        let reviews = vec![
            pair_review(ids[0], "a", Pick::Marked, 1),
            pair_review(ids[1], "a", Pick::Marked, 1),
            pair_review(ids[2], "a", Pick::Tie, 1),
            pair_review(ids[3], "a", Pick::Other, 1),
        ];
        let w = &reliability(&court, &reviews)[0].wins[0];
        assert_eq!(
            (w.won.successes, w.tied.successes, w.lost.successes),
            (2, 1, 1)
        );
        assert_eq!(w.won.n, 4);
        assert!(w.won.lower < 0.5 && w.won.upper > 0.5);
    }

    #[test]
    fn the_majority_of_a_pair_needs_a_single_leader() {
        let a = pair_review("t", "a", Pick::Marked, 1);
        let b = pair_review("t", "b", Pick::Other, 1);
        let c = pair_review("t", "c", Pick::Other, 1);
        assert_eq!(pair_majority(&[&a, &b]), None);
        assert_eq!(pair_majority(&[&a, &b, &c]), Some(Pick::Other));
        assert_eq!(pair_majority(&[]), None);
    }
}
