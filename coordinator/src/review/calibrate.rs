//! LLM judges against people. A judge is "calibrated" on a metric when
//! its figure over the reviewed tasks is within [`WITHIN_POINTS`] of the
//! people's figure on the same tasks, over at least [`MIN_TASKS`] tasks
//! with a human verdict:
//!
//! - a pair's figure is the marked artifact's win score (1 for a win, ½
//!   for a tie, 0 for a loss) in percentage points. The judge is asked in
//!   both orders; a pick that changes with the order is a position flip
//!   (its rate is the judge's position bias) and counts as a tie, which
//!   cancels the bias. People's verdict per task is the reviews' majority.
//! - a rating's figure is the question's mean value on its own scale (the
//!   values its answers carry): the judge's stored value against the mean
//!   of the reviewers' answers per task.
//!
//! Verbosity is reported beside it: for pairs, how often the longer
//! artifact was preferred (judge and people); for ratings, Kendall's τ-b
//! between artifact length and value (judge and people).

use super::assign::by_task;
use super::court::Court;
use super::reliability::{pair_majority, rating_means};
use adfarm_proto::review::{PairVerdict, Pick, Review};
use adfarm_suites::stats::{kendall_tau_b, mean};
use adfarm_suites::ReviewForm;
use std::collections::BTreeMap;

/// Largest gap between a judge's figure and the people's, in points, for
/// the judge to be calibrated.
pub const WITHIN_POINTS: f64 = 5.0;

/// Fewest tasks with both a human verdict and the judge's for a verdict
/// on the judge.
pub const MIN_TASKS: usize = 10;

/// A judge's standing on one metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Within [`WITHIN_POINTS`] of the people.
    Calibrated,
    /// Further off.
    NotCalibrated,
    /// Fewer than [`MIN_TASKS`] tasks to tell.
    TooFewReviews,
}

impl Standing {
    /// Words in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Standing::Calibrated => "calibrated",
            Standing::NotCalibrated => "not calibrated",
            Standing::TooFewReviews => "too few reviews",
        }
    }
}

/// One judge on one metric of one kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// Suite.
    pub suite: String,
    /// Kind id.
    pub kind: String,
    /// Judge.
    pub judge: String,
    /// Metric (`better` for a pair).
    pub metric: String,
    /// Tasks with both verdicts.
    pub tasks: usize,
    /// The judge's figure.
    pub judge_figure: Option<f64>,
    /// The people's figure on the same tasks.
    pub human_figure: Option<f64>,
    /// judge − people, in points.
    pub gap: Option<f64>,
    /// Share of tasks where the judge's verdict equals the people's (a
    /// pair's pick; a rating's value within half a step of the mean).
    pub agreement: Option<f64>,
    /// Pairs: share of tasks whose pick changed with the order.
    pub position_flips: Option<f64>,
    /// Pairs: share of decisive judge picks preferring the longer
    /// artifact; ratings: τ-b of length and the judge's value.
    pub judge_length: Option<f64>,
    /// The same for people.
    pub human_length: Option<f64>,
    /// The verdict.
    pub standing: Standing,
}

/// A judge's picks on one pair, marked first then other first: `None`
/// where not asked yet, `Some(None)` where its reply matched no option.
type Asked = [Option<Option<Pick>>; 2];

fn standing(tasks: usize, gap: Option<f64>) -> Standing {
    match gap {
        _ if tasks < MIN_TASKS => Standing::TooFewReviews,
        Some(g) if g.abs() <= WITHIN_POINTS => Standing::Calibrated,
        _ => Standing::NotCalibrated,
    }
}

/// The order-cancelled pick from a judge's two verdicts on one pair.
pub fn cancelled(marked_first: Option<Pick>, other_first: Option<Pick>) -> Option<Pick> {
    match (marked_first, other_first) {
        (Some(a), Some(b)) if a == b => Some(a),
        (Some(_), Some(_)) => Some(Pick::Tie),
        (Some(a), None) | (None, Some(a)) => Some(a),
        (None, None) => None,
    }
}

fn win_score(p: Pick) -> f64 {
    match p {
        Pick::Marked => 1.0,
        Pick::Tie => 0.5,
        Pick::Other => 0.0,
    }
}

/// Every judge's calibration on every reviewed kind, in court order, then
/// by judge and metric.
pub fn calibrate(court: &Court, reviews: &[Review], verdicts: &[PairVerdict]) -> Vec<Calibration> {
    let grouped = by_task(reviews);
    let mut out = Vec::new();
    for k in &court.kinds {
        let tasks: Vec<_> = court
            .tasks
            .iter()
            .filter(|t| t.suite == k.suite && t.task.kind == k.kind.id)
            .filter_map(|t| Some((t, grouped.get(t.task.id.as_str())?)))
            .collect();
        match &k.kind.form {
            ReviewForm::Pair { .. } => {
                let mut asked: BTreeMap<&str, BTreeMap<&str, Asked>> = BTreeMap::new();
                for v in verdicts {
                    let slot = usize::from(!v.marked_first);
                    asked
                        .entry(v.judge.as_str())
                        .or_default()
                        .entry(v.task.as_str())
                        .or_default()[slot] = Some(v.pick);
                }
                for (judge, by_task) in asked {
                    let (mut j, mut h, mut agree, mut flips, mut both) =
                        (Vec::new(), Vec::new(), 0usize, 0usize, 0usize);
                    let (mut j_long, mut j_decisive, mut h_long, mut h_decisive) = (0, 0, 0, 0);
                    for (t, rs) in &tasks {
                        let Some([Some(a), Some(b)]) = by_task.get(t.task.id.as_str()) else {
                            continue;
                        };
                        let (Some(judged), Some(human)) = (cancelled(*a, *b), pair_majority(rs))
                        else {
                            continue;
                        };
                        if let (Some(a), Some(b)) = (a, b) {
                            both += 1;
                            flips += usize::from(a != b);
                        }
                        j.push(win_score(judged));
                        h.push(win_score(human));
                        agree += usize::from(judged == human);
                        let longer = if t.task.artifacts[0].text.chars().count()
                            >= t.task.artifacts[1].text.chars().count()
                        {
                            Pick::Marked
                        } else {
                            Pick::Other
                        };
                        if judged != Pick::Tie {
                            j_decisive += 1;
                            j_long += usize::from(judged == longer);
                        }
                        if human != Pick::Tie {
                            h_decisive += 1;
                            h_long += usize::from(human == longer);
                        }
                    }
                    let n = j.len();
                    let jf = mean(j).map(|m| m * 100.0);
                    let hf = mean(h).map(|m| m * 100.0);
                    let gap = jf.zip(hf).map(|(a, b)| a - b);
                    let ratio = |a: usize, b: usize| (b > 0).then(|| a as f64 / b as f64);
                    out.push(Calibration {
                        suite: k.suite.clone(),
                        kind: k.kind.id.clone(),
                        judge: judge.to_string(),
                        metric: "better".into(),
                        tasks: n,
                        judge_figure: jf,
                        human_figure: hf,
                        gap,
                        agreement: ratio(agree, n),
                        position_flips: ratio(flips, both),
                        judge_length: ratio(j_long, j_decisive),
                        human_length: ratio(h_long, h_decisive),
                        standing: standing(n, gap),
                    });
                }
            }
            ReviewForm::Rating { questions } => {
                let mut judges: Vec<&str> = tasks
                    .iter()
                    .flat_map(|(t, _)| t.task.judged.iter().map(|j| j.judge.as_str()))
                    .collect();
                judges.sort_unstable();
                judges.dedup();
                // The reviewers' mean answers per task, once.
                let means: Vec<BTreeMap<String, f64>> =
                    tasks.iter().map(|(_, rs)| rating_means(rs)).collect();
                for judge in judges {
                    for q in questions {
                        let half_step = q
                            .options
                            .windows(2)
                            .map(|w| (w[0].value - w[1].value).abs() / 2.0)
                            .fold(f64::INFINITY, f64::min);
                        let (mut j, mut h, mut len) = (Vec::new(), Vec::new(), Vec::new());
                        for ((t, _), means) in tasks.iter().zip(&means) {
                            let Some(jv) = t
                                .task
                                .judged
                                .iter()
                                .find(|v| v.judge == judge && v.metric == q.metric)
                            else {
                                continue;
                            };
                            let Some(hv) = means.get(&q.metric).copied() else {
                                continue;
                            };
                            j.push(jv.value);
                            h.push(hv);
                            len.push(t.task.artifacts[0].text.chars().count() as f64);
                        }
                        let n = j.len();
                        let agree = j
                            .iter()
                            .zip(&h)
                            .filter(|(a, b)| (*a - *b).abs() <= half_step)
                            .count();
                        let jf = mean(j.iter().copied());
                        let hf = mean(h.iter().copied());
                        let gap = jf.zip(hf).map(|(a, b)| a - b);
                        out.push(Calibration {
                            suite: k.suite.clone(),
                            kind: k.kind.id.clone(),
                            judge: judge.to_string(),
                            metric: q.metric.clone(),
                            tasks: n,
                            judge_figure: jf,
                            human_figure: hf,
                            gap,
                            agreement: (n > 0).then(|| agree as f64 / n as f64),
                            position_flips: None,
                            judge_length: kendall_tau_b(&len, &j),
                            human_length: kendall_tau_b(&len, &h),
                            standing: standing(n, gap),
                        });
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::tests::{court_of_pairs, court_of_ratings, pair_review, rating_review};

    fn verdicts(task: &str, judge: &str, first: Pick, second: Pick) -> [PairVerdict; 2] {
        [
            PairVerdict {
                task: task.into(),
                judge: judge.into(),
                marked_first: true,
                pick: Some(first),
            },
            PairVerdict {
                task: task.into(),
                judge: judge.into(),
                marked_first: false,
                pick: Some(second),
            },
        ]
    }

    #[test]
    fn a_pick_that_changes_with_the_order_is_a_tie() {
        assert_eq!(
            cancelled(Some(Pick::Marked), Some(Pick::Marked)),
            Some(Pick::Marked)
        );
        assert_eq!(
            cancelled(Some(Pick::Marked), Some(Pick::Other)),
            Some(Pick::Tie)
        );
        assert_eq!(cancelled(None, Some(Pick::Other)), Some(Pick::Other));
        assert_eq!(cancelled(None, None), None);
    }

    /// Twelve pairs; people prefer the marked artifact on 6 (both
    /// reviewers agree everywhere). Judge "steady" agrees on every task in
    /// both orders: gap 0, calibrated. Judge "first" always picks the
    /// artifact shown first: every pick flips, all ties, figure 50 vs 50
    /// — the cancelled figure matches although agreement is 0. Judge
    /// "marked" always prefers the marked artifact in both orders: 100 vs
    /// 50, not calibrated.
    #[test]
    fn judges_are_calibrated_within_five_points_of_people_after_cancelling_position() {
        let court = court_of_pairs(12);
        let mut reviews = Vec::new();
        let mut vs = Vec::new();
        for (i, t) in court.tasks.iter().enumerate() {
            let id = &t.task.id;
            let human = if i < 6 { Pick::Marked } else { Pick::Other };
            reviews.push(pair_review(id, "a", human, 1));
            reviews.push(pair_review(id, "b", human, 2));
            vs.extend(verdicts(id, "steady", human, human));
            vs.extend(verdicts(id, "first", Pick::Marked, Pick::Other));
            vs.extend(verdicts(id, "marked", Pick::Marked, Pick::Marked));
        }
        let c = calibrate(&court, &reviews, &vs);
        let of = |j: &str| c.iter().find(|c| c.judge == j).unwrap();
        assert_eq!(of("steady").standing, Standing::Calibrated);
        assert_eq!(of("steady").gap, Some(0.0));
        assert_eq!(of("steady").agreement, Some(1.0));
        assert_eq!(of("steady").position_flips, Some(0.0));
        assert_eq!(of("first").position_flips, Some(1.0));
        assert_eq!(of("first").judge_figure, Some(50.0));
        assert_eq!(of("first").agreement, Some(0.0));
        assert_eq!(of("first").standing, Standing::Calibrated);
        assert_eq!(of("marked").gap, Some(50.0));
        assert_eq!(of("marked").standing, Standing::NotCalibrated);
        assert!(c.iter().all(|c| c.tasks == 12));
    }

    #[test]
    fn fewer_than_ten_tasks_give_no_verdict() {
        let court = court_of_pairs(9);
        let mut reviews = Vec::new();
        let mut vs = Vec::new();
        for t in &court.tasks {
            reviews.push(pair_review(&t.task.id, "a", Pick::Marked, 1));
            vs.extend(verdicts(&t.task.id, "j", Pick::Marked, Pick::Marked));
        }
        let c = calibrate(&court, &reviews, &vs);
        assert_eq!(c[0].standing, Standing::TooFewReviews);
        assert_eq!(c[0].gap, Some(0.0));
    }

    /// Ratings on a 0/30/60/90 scale: the judge says 60 where the two
    /// reviewers say 60 and 90 (mean 75) on ten tasks: gap −15, not
    /// calibrated; agreement counts values within half a step (15) of the
    /// people's mean: all ten.
    #[test]
    fn rating_judges_are_compared_on_the_questions_scale() {
        let court = court_of_ratings(10, "j", 60.0);
        let mut reviews = Vec::new();
        for t in &court.tasks {
            reviews.push(rating_review(&t.task.id, "a", 60.0));
            reviews.push(rating_review(&t.task.id, "b", 90.0));
        }
        let c = calibrate(&court, &reviews, &[]);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].judge_figure, Some(60.0));
        assert_eq!(c[0].human_figure, Some(75.0));
        assert_eq!(c[0].gap, Some(-15.0));
        assert_eq!(c[0].agreement, Some(1.0));
        assert_eq!(c[0].standing, Standing::NotCalibrated);
    }
}
