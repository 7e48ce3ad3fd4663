//! Asks the sweep's LLM judges which artifact of each pair is better, in
//! both orders (marked first, then other first), so calibration can
//! measure and cancel position bias. Each verdict is kept on the store;
//! one already kept is not asked again.

use super::court::Court;
use super::records::{file_verdict, pair_verdicts};
use super::ReviewError;
use adfarm_backbone::Store;
use adfarm_llm::{ChatRequest, Message, Provider};
use adfarm_proto::review::{PairVerdict, Pick};
use adfarm_suites::ReviewForm;
use std::collections::BTreeSet;

/// What a judge may answer: the first response, the second, or neither.
pub const JUDGE_OPTIONS: [&str; 3] = ["A", "B", "tie"];

const SYSTEM: &str = "You compare two responses to the same request and say which one is \
better. Judge the content only: neither the order they are shown in nor their length is a \
reason to prefer one.";

/// The request asking which of `first` and `second` is better.
pub fn pair_request(question: &str, context: &str, first: &str, second: &str) -> ChatRequest {
    let user = format!(
        "{question}\n\nRequest:\n{context}\n\nResponse A:\n{first}\n\nResponse B:\n{second}\n\n\
         ---\nAnswer with A, B or tie."
    );
    let mut r = ChatRequest::new(vec![Message::system(SYSTEM), Message::user(user)]);
    r.max_tokens = 8;
    r
}

/// Asks each of `judges` (name, model) about every pair task of the court
/// in both orders, skipping verdicts already kept; returns how many were
/// asked.
///
/// # Errors
/// A store failure, or a judge call that failed (verdicts kept so far
/// stay kept).
pub async fn ask_judges(
    store: &dyn Store,
    court: &Court,
    judges: &[(String, &dyn Provider)],
) -> Result<usize, ReviewError> {
    let kept: BTreeSet<String> = pair_verdicts(store, &court.sweep.id)
        .await?
        .iter()
        .map(|v| PairVerdict::key(&v.task, &v.judge, v.marked_first))
        .collect();
    let mut asked = 0;
    for t in &court.tasks {
        let ReviewForm::Pair { better, .. } = court.form_of(t) else {
            continue;
        };
        let [marked, other] = [&t.task.artifacts[0].text, &t.task.artifacts[1].text];
        for (name, model) in judges {
            for marked_first in [true, false] {
                if kept.contains(&PairVerdict::key(&t.task.id, name, marked_first)) {
                    continue;
                }
                let (first, second) = if marked_first {
                    (marked, other)
                } else {
                    (other, marked)
                };
                let req = pair_request(better, &t.task.context, first, second);
                let options: Vec<String> = JUDGE_OPTIONS.iter().map(|s| s.to_string()).collect();
                let choice =
                    model
                        .choose(&req, &options)
                        .await
                        .map_err(|e| ReviewError::Judge {
                            judge: name.clone(),
                            reason: e.to_string(),
                        })?;
                let pick = choice.index.map(|i| match (i, marked_first) {
                    (2, _) => Pick::Tie,
                    (0, true) | (1, false) => Pick::Marked,
                    _ => Pick::Other,
                });
                let v = PairVerdict {
                    task: t.task.id.clone(),
                    judge: name.clone(),
                    marked_first,
                    pick,
                };
                file_verdict(store, &court.sweep.id, &v).await?;
                asked += 1;
            }
        }
    }
    Ok(asked)
}
