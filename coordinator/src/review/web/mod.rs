//! The review pages: a small server-rendered app. A reviewer opens their
//! personal link (`/r/<token>`), which sets a session cookie, and is shown
//! one task at a time; the admin's link opens the dashboard.
//!
//! - this file: [`Round`] (a court, its store and the claims on shown
//!   tasks), the routes and the handlers;
//! - `guard`: the session cookie, form tokens, cross-site checks and the
//!   headers every page carries;
//! - `pages`: the templates.
//!
//! Design decision: the order a pair is shown in is drawn from the sweep,
//! task and reviewer, so a reload shows the same order, and the server
//! computes it again when the form comes back rather than trusting the
//! page; answers are stored in terms of the marked artifact.

mod guard;
mod pages;

pub use guard::{form_token, POLICY};

use super::assign::{open_tasks, Claims};
use super::calibrate::calibrate;
use super::court::{Court, CourtTask};
use super::records::{self, holder};
use super::reliability::reliability;
use super::ReviewError;
use adfarm_backbone::{Recorded, Store};
use adfarm_proto::review::{Answers, Pick, Review, Reviewer};
use adfarm_suites::ReviewForm;
use axum::extract::{Form, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// A review round being served: the court, the store its records live on,
/// and the tasks shown and not yet answered.
pub struct Round {
    court: Court,
    store: Arc<dyn Store>,
    claims: Mutex<Claims>,
}

impl Round {
    /// A round over `court`, keeping records on `store`.
    pub fn new(court: Court, store: Arc<dyn Store>) -> Round {
        Round {
            court,
            store,
            claims: Mutex::new(Claims::default()),
        }
    }

    /// The court.
    pub fn court(&self) -> &Court {
        &self.court
    }
}

/// The order the artifacts of `task` are shown to `reviewer`: indices into
/// its artifacts, drawn from the sweep, task and reviewer.
pub fn shown_order(court: &Court, task: &CourtTask, reviewer: &str) -> Vec<usize> {
    if task.task.artifacts.len() != 2 {
        return vec![0];
    }
    let h = blake3::hash(format!("{}|{}|{reviewer}", court.sweep.id, task.task.id).as_bytes());
    if h.as_bytes()[0] & 1 == 0 {
        vec![0, 1]
    } else {
        vec![1, 0]
    }
}

/// The routes of a round.
pub fn router(round: Arc<Round>) -> Router {
    Router::new()
        .route("/", get(next))
        .route("/r/{token}", get(enter))
        .route("/review", post(submit))
        .route("/mine", get(mine))
        .route("/admin", get(dashboard))
        .route("/admin/invite", post(invite))
        .route("/court.css", get(css))
        .route("/court.js", get(js))
        .fallback(not_found)
        .layer(axum::middleware::map_response(harden))
        .with_state(round)
}

async fn harden(mut r: Response) -> Response {
    guard::harden(r.headers_mut());
    r
}

/// A refusal: status, title, reason.
struct Refused(StatusCode, &'static str, String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        (self.0, pages::refusal(self.1, &self.2)).into_response()
    }
}

impl From<ReviewError> for Refused {
    fn from(e: ReviewError) -> Refused {
        tracing::warn!(code = e.code(), "Review page failed: {e}");
        Refused(
            StatusCode::SERVICE_UNAVAILABLE,
            "Not available",
            "The review store could not be reached; try again shortly.".into(),
        )
    }
}

async fn not_found() -> Refused {
    Refused(StatusCode::NOT_FOUND, "Not found", "No such page.".into())
}

fn no_session() -> Refused {
    Refused(
        StatusCode::UNAUTHORIZED,
        "Sign in",
        "Open your personal review link to start.".into(),
    )
}

/// The reviewer behind the request's session cookie.
async fn who(round: &Round, headers: &HeaderMap) -> Result<Reviewer, Refused> {
    let token = guard::session_token(headers).ok_or_else(no_session)?;
    holder(round.store.as_ref(), &round.court.sweep.id, &token)
        .await?
        .ok_or_else(no_session)
}

async fn enter(State(round): State<Arc<Round>>, Path(token): Path<String>) -> Response {
    match holder(round.store.as_ref(), &round.court.sweep.id, &token).await {
        Ok(Some(r)) => {
            let to = if r.admin { "/admin" } else { "/" };
            (
                [(header::SET_COOKIE, guard::session_cookie(&token))],
                Redirect::to(to),
            )
                .into_response()
        }
        Ok(None) => Refused(
            StatusCode::FORBIDDEN,
            "Link not valid",
            "This review link is not valid for this sweep.".into(),
        )
        .into_response(),
        Err(e) => Refused::from(e).into_response(),
    }
}

async fn next(State(round): State<Arc<Round>>, headers: HeaderMap) -> Result<Response, Refused> {
    let me = who(&round, &headers).await?;
    if me.admin {
        return Ok(Redirect::to("/admin").into_response());
    }
    let reviews = records::reviews(round.store.as_ref(), &round.court.sweep.id).await?;
    let done = reviews
        .iter()
        .filter(|r| r.reviewer == me.id && round.court.task(&r.task).is_some())
        .count();
    let now = Instant::now();
    let mut claims = round.claims.lock().expect("claims lock is never poisoned");
    let open = open_tasks(&round.court, &reviews, &me.id, &claims, now);
    let Some(t) = open.first().copied() else {
        return Ok(pages::done(done).into_response());
    };
    let total = done + open.len();
    claims.claim(&t.task.id, &me.id, now);
    drop(claims);
    let shown = shown_order(&round.court, t, &me.id);
    Ok(pages::task(
        &round.court,
        t,
        &shown,
        &form_token(&me.token_hash),
        done + 1,
        total,
    )
    .into_response())
}

fn bad(field: &str, why: &str) -> Refused {
    Refused(
        StatusCode::BAD_REQUEST,
        "Form not accepted",
        format!("{field}: {why}"),
    )
}

/// The answers of a posted form, in terms of the marked artifact.
fn answers(
    form: &ReviewForm,
    shown: &[usize],
    fields: &HashMap<String, String>,
) -> Result<Answers, Refused> {
    let field = |name: &'static str| {
        fields
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| bad(name, "missing"))
    };
    match form {
        ReviewForm::Pair { rationale, .. } => {
            // Position 0 or 1 on the page → the artifact shown there.
            let at = |name: &'static str, v: &str| -> Result<Pick, Refused> {
                let pos = match v {
                    "A" => 0,
                    "B" => 1,
                    "tie" if name == "better" => return Ok(Pick::Tie),
                    _ => return Err(bad(name, "not one of the offered answers")),
                };
                Ok(if shown[pos] == 0 {
                    Pick::Marked
                } else {
                    Pick::Other
                })
            };
            let better = at("better", field("better")?)?;
            let guess = at("guess", field("guess")?)?;
            let confidence: u8 = field("confidence")?
                .parse()
                .ok()
                .filter(|c| pages::CONFIDENCE.iter().any(|(x, _)| x == c))
                .ok_or_else(|| bad("confidence", "one of 50, 60, 70, 80, 90 or 100"))?;
            let rationale_sound = if *rationale {
                Some(match field("rationale")? {
                    "yes" => true,
                    "no" => false,
                    _ => return Err(bad("rationale", "yes or no")),
                })
            } else {
                None
            };
            Ok(Answers::Pair {
                better,
                guess,
                confidence,
                rationale_sound,
            })
        }
        ReviewForm::Rating { questions } => {
            let mut values = std::collections::BTreeMap::new();
            for (qi, q) in questions.iter().enumerate() {
                let name = format!("q{qi}");
                let v = fields
                    .get(&name)
                    .and_then(|v| v.parse::<usize>().ok())
                    .and_then(|i| q.options.get(i))
                    .ok_or_else(|| {
                        Refused(
                            StatusCode::BAD_REQUEST,
                            "Form not accepted",
                            format!("{}: answer this question", q.text),
                        )
                    })?;
                values.insert(q.metric.clone(), v.value);
            }
            Ok(Answers::Rating { values })
        }
    }
}

/// The reviewer who sent a form: from this site's own page, signed in,
/// with the form token issued to them.
async fn poster(
    round: &Round,
    headers: &HeaderMap,
    fields: &HashMap<String, String>,
) -> Result<Reviewer, Refused> {
    if guard::cross_site(headers) {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            "Refused",
            "Forms are accepted from this site's own pages only.".into(),
        ));
    }
    let me = who(round, headers).await?;
    if fields.get("form_token").map(String::as_str) != Some(&form_token(&me.token_hash)) {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            "Refused",
            "This form was not issued to you; reload the page.".into(),
        ));
    }
    Ok(me)
}

async fn submit(
    State(round): State<Arc<Round>>,
    headers: HeaderMap,
    Form(fields): Form<HashMap<String, String>>,
) -> Result<Response, Refused> {
    let me = poster(&round, &headers, &fields).await?;
    let task_id = fields
        .get("task")
        .map(String::as_str)
        .ok_or_else(|| bad("task", "missing"))?;
    let t = round
        .court
        .task(task_id)
        .ok_or_else(|| bad("task", "no such task in this sweep"))?;
    let reviews = records::reviews(round.store.as_ref(), &round.court.sweep.id).await?;
    let offered = {
        let claims = round.claims.lock().expect("claims lock is never poisoned");
        open_tasks(&round.court, &reviews, &me.id, &claims, Instant::now())
            .iter()
            .any(|o| o.task.id == t.task.id)
    };
    if !offered {
        // Reviewed already (a form sent twice), or never this reviewer's.
        return Ok(Redirect::to("/").into_response());
    }
    let shown = shown_order(&round.court, t, &me.id);
    let answers = answers(round.court.form_of(t), &shown, &fields)?;
    let review = Review {
        task: t.task.id.clone(),
        reviewer: me.id.clone(),
        shown,
        answers,
        submitted_unix: records::now_unix(),
    };
    let stored = records::file(round.store.as_ref(), &round.court.sweep.id, &review).await?;
    if stored == Recorded::New {
        tracing::info!(task = %review.task, reviewer = %me.id, "Review stored.");
    }
    round
        .claims
        .lock()
        .expect("claims lock is never poisoned")
        .release(&t.task.id, &me.id);
    Ok(Redirect::to("/").into_response())
}

async fn mine(State(round): State<Arc<Round>>, headers: HeaderMap) -> Result<Response, Refused> {
    let me = who(&round, &headers).await?;
    let reviews = records::reviews(round.store.as_ref(), &round.court.sweep.id).await?;
    let own: Vec<&Review> = reviews.iter().filter(|r| r.reviewer == me.id).collect();
    Ok(pages::mine(&round.court, &own).into_response())
}

async fn dashboard(
    State(round): State<Arc<Round>>,
    headers: HeaderMap,
) -> Result<Response, Refused> {
    let me = who(&round, &headers).await?;
    if !me.admin {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            "Refused",
            "The dashboard needs the admin link.".into(),
        ));
    }
    let sweep = &round.court.sweep.id;
    let reviewers = records::reviewers(round.store.as_ref(), sweep).await?;
    let reviews = records::reviews(round.store.as_ref(), sweep).await?;
    let verdicts = records::pair_verdicts(round.store.as_ref(), sweep).await?;
    let rel = reliability(&round.court, &reviews);
    let cal = calibrate(&round.court, &reviews, &verdicts);
    Ok(pages::dashboard(
        &round.court,
        &reviewers,
        &reviews,
        &rel,
        &cal,
        &form_token(&me.token_hash),
    )
    .into_response())
}

/// Invites a reviewer from the dashboard (the embedded store is open in
/// this process only, so `adfarm review invite` cannot reach it while the
/// round is served).
async fn invite(
    State(round): State<Arc<Round>>,
    headers: HeaderMap,
    Form(fields): Form<HashMap<String, String>>,
) -> Result<Response, Refused> {
    let me = poster(&round, &headers, &fields).await?;
    if !me.admin {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            "Refused",
            "Invitations need the admin's own dashboard.".into(),
        ));
    }
    let name = fields.get("name").map(String::as_str).unwrap_or_default();
    let inv = match records::invite(round.store.as_ref(), &round.court.sweep.id, name, false).await
    {
        Err(ReviewError::Input(why)) => return Err(bad("name", &why)),
        other => other?,
    };
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1:8750");
    let link = format!("http://{host}/r/{}", inv.token);
    Ok(pages::invited(&inv.reviewer, &link).into_response())
}

async fn css() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("court.css"),
    )
        .into_response()
}

async fn js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("court.js"),
    )
        .into_response()
}
