//! Who reviews what: each task to two reviewers, to a third when the first
//! two disagree (the rotating third bench), a reviewer never twice on one
//! task, and queues balanced by handing each reviewer the next open task
//! in an order of their own.
//!
//! A task shown to a reviewer is claimed for [`CLAIM`], so two reviewers
//! asking at once are not both given the last open seat on it.

use super::court::{Court, CourtTask};
use adfarm_proto::review::{Answers, Review};
use adfarm_suites::ReviewForm;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How long a shown task stays reserved for its reviewer.
pub const CLAIM: Duration = Duration::from_secs(15 * 60);

/// Whether two reviews of one task agree: a pair's on which is better, a
/// rating's on every question to within one step of its scale.
pub fn agree(form: &ReviewForm, a: &Answers, b: &Answers) -> bool {
    match (form, a, b) {
        (
            ReviewForm::Pair { .. },
            Answers::Pair { better: x, .. },
            Answers::Pair { better: y, .. },
        ) => x == y,
        (
            ReviewForm::Rating { questions },
            Answers::Rating { values: x },
            Answers::Rating { values: y },
        ) => questions.iter().all(|q| {
            let step =
                |v: Option<&f64>| v.and_then(|v| q.options.iter().position(|o| o.value == *v));
            match (step(x.get(&q.metric)), step(y.get(&q.metric))) {
                (Some(i), Some(j)) => i.abs_diff(j) <= 1,
                _ => true,
            }
        }),
        _ => false,
    }
}

/// A task's reviews in the order they were filed.
pub fn in_order(mut reviews: Vec<&Review>) -> Vec<&Review> {
    reviews.sort_by(|a, b| (a.submitted_unix, &a.reviewer).cmp(&(b.submitted_unix, &b.reviewer)));
    reviews
}

/// Whether the first two reviews of a task disagree.
pub fn disputed(form: &ReviewForm, reviews: &[&Review]) -> bool {
    match reviews {
        [a, b, ..] => !agree(form, &a.answers, &b.answers),
        _ => false,
    }
}

/// Reviews the task needs in all: two, or three once the first two
/// disagree.
pub fn needed(form: &ReviewForm, reviews: &[&Review]) -> usize {
    if disputed(form, reviews) {
        3
    } else {
        2
    }
}

/// Tasks shown and not yet reviewed, per task: who holds it until when.
#[derive(Debug, Default)]
pub struct Claims(HashMap<String, Vec<(String, Instant)>>);

impl Claims {
    /// Reserves `task` for `reviewer` until `now + CLAIM`.
    pub fn claim(&mut self, task: &str, reviewer: &str, now: Instant) {
        let holders = self.0.entry(task.to_string()).or_default();
        holders.retain(|(r, until)| r != reviewer && *until > now);
        holders.push((reviewer.to_string(), now + CLAIM));
    }

    /// Ends `reviewer`'s claim on `task` (reviewed).
    pub fn release(&mut self, task: &str, reviewer: &str) {
        if let Some(holders) = self.0.get_mut(task) {
            holders.retain(|(r, _)| r != reviewer);
        }
    }

    fn held_by(&self, task: &str, reviewer: &str, now: Instant) -> bool {
        self.0
            .get(task)
            .is_some_and(|h| h.iter().any(|(r, until)| r == reviewer && *until > now))
    }

    fn others(&self, task: &str, reviewer: &str, now: Instant) -> usize {
        self.0.get(task).map_or(0, |h| {
            h.iter()
                .filter(|(r, until)| r != reviewer && *until > now)
                .count()
        })
    }
}

/// Every review of the court's tasks, grouped by task in filing order.
pub fn by_task(reviews: &[Review]) -> HashMap<&str, Vec<&Review>> {
    let mut out: HashMap<&str, Vec<&Review>> = HashMap::new();
    for r in reviews {
        out.entry(r.task.as_str()).or_default().push(r);
    }
    out.into_iter().map(|(k, v)| (k, in_order(v))).collect()
}

/// What `reviewer` may review now, best first: a task they hold, then
/// tasks nearest to done (a dispute's third seat before a second review,
/// a second review before a first), then in an order drawn for this
/// reviewer, so reviewers starting together spread over different tasks.
pub fn open_tasks<'c>(
    court: &'c Court,
    reviews: &[Review],
    reviewer: &str,
    claims: &Claims,
    now: Instant,
) -> Vec<&'c CourtTask> {
    let grouped = by_task(reviews);
    let mut open: Vec<(bool, usize, String, &CourtTask)> = court
        .tasks
        .iter()
        .filter_map(|t| {
            let id = t.task.id.as_str();
            let done = grouped.get(id).map_or(&[][..], Vec::as_slice);
            if done.iter().any(|r| r.reviewer == reviewer) {
                return None;
            }
            let held = claims.held_by(id, reviewer, now);
            let seats = needed(court.form_of(t), done);
            if !held && done.len() + claims.others(id, reviewer, now) >= seats {
                return None;
            }
            let order = blake3::hash(format!("{reviewer}|{id}").as_bytes())
                .to_hex()
                .to_string();
            Some((!held, usize::MAX - done.len(), order, t))
        })
        .collect();
    open.sort_by(|a, b| (a.0, a.1, &a.2).cmp(&(b.0, b.1, &b.2)));
    open.into_iter().map(|(_, _, _, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::tests::{court_of_pairs, pair_review};
    use adfarm_proto::review::Pick;

    #[test]
    fn two_reviewers_get_every_task_and_a_third_only_the_disputed_ones() {
        let court = court_of_pairs(3);
        let now = Instant::now();
        let claims = Claims::default();
        let ids: Vec<String> = court.tasks.iter().map(|t| t.task.id.clone()).collect();
        assert_eq!(open_tasks(&court, &[], "a", &claims, now).len(), 3);
        let mut reviews = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            reviews.push(pair_review(id, "a", Pick::Marked, 1));
            // The second reviewer disagrees on the last task only.
            let b = if i == 2 { Pick::Other } else { Pick::Marked };
            reviews.push(pair_review(id, "b", b, 2));
        }
        assert!(open_tasks(&court, &reviews, "a", &claims, now).is_empty());
        assert!(open_tasks(&court, &reviews, "b", &claims, now).is_empty());
        let third: Vec<&str> = open_tasks(&court, &reviews, "c", &claims, now)
            .iter()
            .map(|t| t.task.id.as_str())
            .collect();
        assert_eq!(third, vec![ids[2].as_str()]);
        reviews.push(pair_review(&ids[2], "c", Pick::Other, 3));
        assert!(open_tasks(&court, &reviews, "d", &claims, now).is_empty());
    }

    #[test]
    fn a_claimed_last_seat_is_not_given_to_another_reviewer_until_it_expires() {
        let court = court_of_pairs(1);
        let id = court.tasks[0].task.id.clone();
        let reviews = vec![pair_review(&id, "a", Pick::Marked, 1)];
        let now = Instant::now();
        let mut claims = Claims::default();
        claims.claim(&id, "b", now);
        assert_eq!(open_tasks(&court, &reviews, "b", &claims, now).len(), 1);
        assert!(open_tasks(&court, &reviews, "c", &claims, now).is_empty());
        assert_eq!(
            open_tasks(
                &court,
                &reviews,
                "c",
                &claims,
                now + CLAIM + Duration::from_secs(1)
            )
            .len(),
            1
        );
        claims.release(&id, "b");
        assert_eq!(open_tasks(&court, &reviews, "c", &claims, now).len(), 1);
    }

    #[test]
    fn reviewers_starting_together_begin_on_different_tasks() {
        let court = court_of_pairs(40);
        let now = Instant::now();
        let claims = Claims::default();
        let firsts: std::collections::BTreeSet<String> = (0..8)
            .map(|r| {
                open_tasks(&court, &[], &format!("rv-{r}"), &claims, now)[0]
                    .task
                    .id
                    .clone()
            })
            .collect();
        assert!(firsts.len() >= 6, "{firsts:?}");
    }
}
