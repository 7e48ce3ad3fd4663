//! The report's review section, one per suite with reviews: reliability,
//! κ per reviewer pair, win rates, disputes, and each judge's calibration
//! with its verdict. Tables as data, so md, csv, json and html draw it.

use super::calibrate::{calibrate, Calibration};
use super::court::Court;
use super::reliability::{reliability, Reliability};
use adfarm_proto::report::{Column, ColumnKind, Key, Section, Table, Value};
use adfarm_proto::review::PairVerdict;
use adfarm_proto::review::Review;
use adfarm_suites::stats::Proportion;

const PCT: ColumnKind = ColumnKind::Percent { decimals: 1 };
const NUM: ColumnKind = ColumnKind::Number { decimals: 2 };

fn text(s: impl Into<String>) -> Option<Value> {
    Some(Value::Text(s.into()))
}

fn int(n: usize) -> Option<Value> {
    Some(Value::Integer(i64::try_from(n).unwrap_or(i64::MAX)))
}

fn num(v: Option<f64>) -> Option<Value> {
    v.map(Value::Number)
}

fn share(p: Option<Proportion>) -> Option<Value> {
    num(p.map(|p| p.share))
}

fn interval(p: Option<Proportion>) -> Option<Value> {
    p.map(|p| Value::Text(format!("{:.1}–{:.1}%", p.lower * 100.0, p.upper * 100.0)))
}

/// The review sections of a court: one per suite with reviews, in court
/// order; none when nobody has reviewed yet.
pub fn sections(court: &Court, reviews: &[Review], verdicts: &[PairVerdict]) -> Vec<Section> {
    let rel = reliability(court, reviews);
    let cal = calibrate(court, reviews, verdicts);
    let mut suites: Vec<&str> = court.kinds.iter().map(|k| k.suite.as_str()).collect();
    suites.dedup();
    suites
        .into_iter()
        .filter_map(|s| section(s, &rel, &cal))
        .collect()
}

/// Suite `suite`'s review section from the court's reliability and
/// calibration, or `None` when none of its tasks has a review.
fn section(suite: &str, rel: &[Reliability], cal: &[Calibration]) -> Option<Section> {
    let rel: Vec<Reliability> = rel.iter().filter(|r| r.suite == suite).cloned().collect();
    if rel.is_empty() {
        return None;
    }
    let cal: Vec<Calibration> = cal.iter().filter(|c| c.suite == suite).cloned().collect();
    let mut tables = vec![summary(&rel), alphas(&rel), kappas(&rel)];
    if rel.iter().any(|r| !r.wins.is_empty()) {
        tables.push(wins(&rel));
    }
    tables.push(calibration(&cal));
    if rel.iter().any(|r| !r.disputes.is_empty()) {
        tables.push(disputes(&rel));
    }
    Some(Section {
        suite: suite.to_string(),
        id: "review".into(),
        title: "Review court".into(),
        intro: Some(format!(
            "Blind human review of this sweep's artifacts: each task to two reviewers, to a \
             third when they disagree. A judge is calibrated on a metric when its figure is \
             within {} points of the reviewers' on the same tasks, over at least {} tasks; a \
             pair's judge is asked in both orders and a pick that changes with the order \
             counts as a tie.",
            super::WITHIN_POINTS,
            super::MIN_TASKS
        )),
        tables,
        notes: vec![
            "Identified: reviews that picked the marked artifact with more than 55% \
             confidence; indistinguishable = 1 − identified. Intervals are Wilson 95% \
             intervals over reviews."
                .into(),
        ],
        plots: Vec::new(),
    })
}

fn summary(rel: &[Reliability]) -> Table {
    Table {
        id: "review-reliability".into(),
        title: Some("Reliability".into()),
        scorer: None,
        columns: vec![
            Column::new("kind", "Kind", ColumnKind::Text),
            Column::new("tasks", "Tasks reviewed", ColumnKind::Integer),
            Column::new("reviews", "Reviews", ColumnKind::Integer),
            Column::new("double", "Tasks with ≥ 2", ColumnKind::Integer),
            Column::new("agreement", "Agreement", PCT),
            Column::new("disputes", "Disputes", ColumnKind::Integer),
            Column::new("identified", "Identified", PCT),
            Column::new("indistinguishable", "Indistinguishable", PCT),
            Column::new("guessed", "Guessed right", PCT),
            Column::new("rationale-sound", "Rationale sound", PCT),
        ],
        rows: rel
            .iter()
            .map(|r| {
                vec![
                    text(&r.kind),
                    int(r.tasks),
                    int(r.reviews),
                    int(r.double),
                    num(r.agreement),
                    int(r.disputes.len()),
                    share(r.identified),
                    num(r.identified.map(|p| 1.0 - p.share)),
                    share(r.guessed),
                    share(r.rationale_sound),
                ]
            })
            .collect(),
        notes: Vec::new(),
    }
}

fn alphas(rel: &[Reliability]) -> Table {
    Table {
        id: "review-alpha".into(),
        title: Some("Krippendorff's α".into()),
        scorer: None,
        columns: vec![
            Column::new("kind", "Kind", ColumnKind::Text),
            Column::new("question", "Question", ColumnKind::Text),
            Column::new("alpha", "α", NUM),
        ],
        rows: rel
            .iter()
            .flat_map(|r| {
                r.alpha
                    .iter()
                    .map(|(q, a)| vec![text(&r.kind), text(q), num(*a)])
            })
            .collect(),
        notes: vec![
            "Nominal over which is better for a pair; ordinal per question for a rating.".into(),
        ],
    }
}

fn kappas(rel: &[Reliability]) -> Table {
    Table {
        id: "review-kappa".into(),
        title: Some("Cohen's κ per reviewer pair".into()),
        scorer: None,
        columns: vec![
            Column::new("kind", "Kind", ColumnKind::Text),
            Column::new("reviewer-a", "Reviewer", ColumnKind::Text),
            Column::new("reviewer-b", "Reviewer", ColumnKind::Text),
            Column::new("shared", "Shared answers", ColumnKind::Integer),
            Column::new("kappa", "κ", NUM),
        ],
        rows: rel
            .iter()
            .flat_map(|r| {
                r.kappas.iter().map(|k| {
                    vec![
                        text(&r.kind),
                        text(&k.a),
                        text(&k.b),
                        int(k.shared),
                        num(k.kappa),
                    ]
                })
            })
            .collect(),
        notes: Vec::new(),
    }
}

fn wins(rel: &[Reliability]) -> Table {
    Table {
        id: "review-wins".into(),
        title: Some("The marked artifact against the other".into()),
        scorer: None,
        columns: vec![
            Column::new("kind", "Kind", ColumnKind::Text),
            Column::key("solution", "Solution", Key::Solution),
            Column::new("reviews", "Reviews", ColumnKind::Integer),
            Column::new("won", "Preferred", PCT),
            Column::new("won-ci", "95% CI", ColumnKind::Text),
            Column::new("tied", "Tie", PCT),
            Column::new("tied-ci", "95% CI", ColumnKind::Text),
            Column::new("lost", "Other preferred", PCT),
            Column::new("lost-ci", "95% CI", ColumnKind::Text),
        ],
        rows: rel
            .iter()
            .flat_map(|r| {
                r.wins.iter().map(|w| {
                    vec![
                        text(&r.kind),
                        text(&w.solution),
                        Some(Value::Integer(w.won.n as i64)),
                        share(Some(w.won)),
                        interval(Some(w.won)),
                        share(Some(w.tied)),
                        interval(Some(w.tied)),
                        share(Some(w.lost)),
                        interval(Some(w.lost)),
                    ]
                })
            })
            .collect(),
        notes: Vec::new(),
    }
}

fn calibration(cal: &[Calibration]) -> Table {
    Table {
        id: "review-calibration".into(),
        title: Some("Judges against reviewers".into()),
        scorer: None,
        columns: vec![
            Column::new("kind", "Kind", ColumnKind::Text),
            Column::key("judge", "Judge", Key::Scorer),
            Column::new("metric", "Metric", ColumnKind::Text),
            Column::new("tasks", "Tasks", ColumnKind::Integer),
            Column::new("judge-figure", "Judge", NUM),
            Column::new("human-figure", "Reviewers", NUM),
            Column::new("gap", "Gap (points)", NUM),
            Column::new("agreement", "Agreement", PCT),
            Column::new("position-flips", "Position flips", PCT),
            Column::new("judge-length", "Length (judge)", NUM),
            Column::new("human-length", "Length (reviewers)", NUM),
            Column::new("verdict", "Verdict", ColumnKind::Text),
        ],
        rows: cal
            .iter()
            .map(|c| {
                vec![
                    text(&c.kind),
                    text(&c.judge),
                    text(&c.metric),
                    int(c.tasks),
                    num(c.judge_figure),
                    num(c.human_figure),
                    num(c.gap),
                    num(c.agreement),
                    num(c.position_flips),
                    num(c.judge_length),
                    num(c.human_length),
                    text(c.standing.as_str()),
                ]
            })
            .collect(),
        notes: vec![
            "Pairs: figures are the marked artifact's win score (win 100, tie 50, loss 0); \
             length is the share of decisive picks preferring the longer artifact. Ratings: \
             figures are means on the question's scale; length is Kendall's τ-b of artifact \
             length and value."
                .into(),
        ],
    }
}

fn disputes(rel: &[Reliability]) -> Table {
    Table {
        id: "review-disputes".into(),
        title: Some("Disputes".into()),
        scorer: None,
        columns: vec![
            Column::new("kind", "Kind", ColumnKind::Text),
            Column::new("task", "Task", ColumnKind::Text),
            Column::new("item", "Item", ColumnKind::Text),
            Column::key("solution", "Solution", Key::Solution),
            Column::new("status", "Third review", ColumnKind::Text),
        ],
        rows: rel
            .iter()
            .flat_map(|r| {
                r.disputes.iter().map(|d| {
                    vec![
                        text(&r.kind),
                        text(&d.task),
                        text(&d.item),
                        text(&d.solution),
                        text(if d.resolved { "in" } else { "awaited" }),
                    ]
                })
            })
            .collect(),
        notes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::tests::{court_of_pairs, pair_review};
    use adfarm_proto::review::Pick;

    #[test]
    fn a_suite_without_reviews_has_no_section() {
        let court = court_of_pairs(2);
        assert!(sections(&court, &[], &[]).is_empty());
        let id = &court.tasks[0].task.id;
        let reviews = [pair_review(id, "a", Pick::Marked, 1)];
        let all = sections(&court, &reviews, &[]);
        assert_eq!(all.len(), 1);
        let s = &all[0];
        assert_eq!((s.suite.as_str(), s.id.as_str()), ("suite", "review"));
        let ids: Vec<&str> = s.tables.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "review-reliability",
                "review-alpha",
                "review-kappa",
                "review-wins",
                "review-calibration"
            ]
        );
        let rel = reliability(&court, &reviews);
        assert!(section("other-suite", &rel, &[]).is_none());
    }
}
