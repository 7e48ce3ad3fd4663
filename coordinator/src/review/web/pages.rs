//! The pages, as maud templates: every artifact, context and name is
//! inserted as escaped text (maud escapes whatever is not marked
//! `PreEscaped`, and nothing here is), so model output shows as the
//! characters it is and never becomes markup.

use super::super::calibrate::Calibration;
use super::super::court::{Court, CourtTask};
use super::super::reliability::Reliability;
use adfarm_proto::review::{Answers, Review, Reviewer};
use adfarm_suites::ReviewForm;
use maud::{html, Markup, DOCTYPE};

/// Confidence offered for the identification question, with its key.
pub const CONFIDENCE: [(u8, &str); 6] = [
    (50, "5"),
    (60, "6"),
    (70, "7"),
    (80, "8"),
    (90, "9"),
    (100, "0"),
];

fn page(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                link rel="stylesheet" href="/court.css";
            }
            body { (body) script src="/court.js" {} }
        }
    }
}

/// A page saying why a request was refused.
pub fn refusal(title: &str, why: &str) -> Markup {
    page(title, html! { h1 { (title) } p.error { (why) } })
}

/// What is shown for artifact `i` of a pair, as letters A and B.
fn letter(position: usize) -> &'static str {
    if position == 0 {
        "A"
    } else {
        "B"
    }
}

/// The form for one task: the context, the artifacts in the order
/// `shown`, and the questions of its kind.
pub fn task(
    court: &Court,
    t: &CourtTask,
    shown: &[usize],
    form_token: &str,
    position: usize,
    total: usize,
) -> Markup {
    let kind = &court.kind_of(t).kind;
    let body = html! {
        header {
            h1 { (kind.title) }
            span.progress { "Task " (position) " of " (total) " · " a href="/mine" { "my reviews" } }
        }
        p { (kind.instructions) }
        h2 { "Request" }
        pre.context { (t.task.context) }
        form #review method="post" action="/review" {
            input type="hidden" name="task" value=(t.task.id);
            input type="hidden" name="form_token" value=(form_token);
            @match &kind.form {
                ReviewForm::Pair { better, marked, rationale } => {
                    div.pair {
                        @for (pos, &i) in shown.iter().enumerate() {
                            div.artifact {
                                h2 { "Response " (letter(pos)) }
                                pre.artifact-text { (t.task.artifacts[i].text) }
                            }
                        }
                    }
                    fieldset {
                        legend { (better) }
                        label { input type="radio" name="better" value="A" data-key="a" required; " A " kbd { "a" } }
                        label { input type="radio" name="better" value="B" data-key="b"; " B " kbd { "b" } }
                        label { input type="radio" name="better" value="tie" data-key="t"; " Tie " kbd { "t" } }
                    }
                    fieldset {
                        legend { (marked) }
                        label { input type="radio" name="guess" value="A" data-key="1" required; " A " kbd { "1" } }
                        label { input type="radio" name="guess" value="B" data-key="2"; " B " kbd { "2" } }
                    }
                    fieldset {
                        legend { "How sure are you of that?" }
                        @for (c, key) in CONFIDENCE {
                            label {
                                input type="radio" name="confidence" value=(c) data-key=(key) required[c == 50];
                                " " (c) "% " kbd { (key) }
                            }
                        }
                    }
                    @if *rationale {
                        fieldset {
                            legend { "Is the rationale of the response you took for the agent's sound?" }
                            label { input type="radio" name="rationale" value="yes" data-key="y" required; " Yes " kbd { "y" } }
                            label { input type="radio" name="rationale" value="no" data-key="n"; " No " kbd { "n" } }
                        }
                    }
                }
                ReviewForm::Rating { questions } => {
                    h2 { "Response" }
                    pre.artifact-text { (t.task.artifacts[0].text) }
                    @for (qi, q) in questions.iter().enumerate() {
                        fieldset.question {
                            legend { (q.text) }
                            @for (oi, o) in q.options.iter().enumerate() {
                                label {
                                    input type="radio" name=(format!("q{qi}")) value=(oi)
                                        data-key=(oi + 1) required[oi == 0];
                                    " " (o.label) " " kbd { (oi + 1) }
                                    " " span.meaning { (o.meaning) }
                                }
                                br;
                            }
                        }
                    }
                }
            }
            p {
                button type="submit" { "Submit" } " " kbd { "Enter" }
            }
        }
    };
    page(&kind.title, body)
}

/// Nothing left for this reviewer.
pub fn done(reviewed: usize) -> Markup {
    page(
        "All done",
        html! {
            h1 { "All done" }
            p { "You have reviewed " (reviewed) " tasks. Thank you." }
            p { a href="/mine" { "See my reviews" } }
        },
    )
}

/// The reviewer's own reviews.
pub fn mine(court: &Court, reviews: &[&Review]) -> Markup {
    page(
        "My reviews",
        html! {
            h1 { "My reviews" }
            p { a href="/" { "Back to reviewing" } }
            table {
                tr { th { "Task" } th { "Kind" } th { "Answers" } }
                @for r in reviews {
                    tr {
                        td { (r.task) }
                        td { (court.task(&r.task).map_or("", |t| t.task.kind.as_str())) }
                        td { (answers(&r.answers)) }
                    }
                }
            }
        },
    )
}

fn answers(a: &Answers) -> String {
    match a {
        Answers::Pair {
            better,
            guess,
            confidence,
            rationale_sound,
        } => {
            let mut s = format!(
                "better: {}; marked: {} ({confidence}%)",
                better.as_str(),
                guess.as_str()
            );
            if let Some(r) = rationale_sound {
                s.push_str(&format!("; rationale sound: {r}"));
            }
            s
        }
        Answers::Rating { values } => values
            .iter()
            .map(|(m, v)| format!("{m}: {v}"))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// What the admin sees: tasks and reviews per kind, the reviewers'
/// progress, reliability and the judges' verdicts.
pub fn dashboard(
    court: &Court,
    reviewers: &[Reviewer],
    reviews: &[Review],
    reliability: &[Reliability],
    calibration: &[Calibration],
    form_token: &str,
) -> Markup {
    let pct = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{:.1}%", v * 100.0));
    let num = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.2}"));
    page(
        "Review court",
        html! {
            h1 { "Review court: " (court.sweep.spec.name) }
            h2 { "Tasks" }
            table {
                tr { th { "Suite" } th { "Kind" } th { "Form" } th { "Tasks" } th { "Reviews" } }
                @for (k, n) in court.count_by_kind() {
                    tr {
                        td { (k.suite) } td { (k.kind.id) }
                        td { (if k.kind.form.is_pair() { "pair" } else { "rating" }) }
                        td { (n) }
                        td { (reviews.iter().filter(|r| court.task(&r.task).is_some_and(|t| t.suite == k.suite && t.task.kind == k.kind.id)).count()) }
                    }
                }
            }
            h2 { "Reviewers" }
            form method="post" action="/admin/invite" {
                input type="hidden" name="form_token" value=(form_token);
                label { "Invite " input type="text" name="name" required placeholder="name"; }
                button type="submit" { "Invite" }
            }
            table {
                tr { th { "Id" } th { "Name" } th { "Reviews" } }
                @for r in reviewers.iter().filter(|r| !r.admin) {
                    tr { td { (r.id) } td { (r.name) } td { (reviews.iter().filter(|x| x.reviewer == r.id).count()) } }
                }
            }
            h2 { "Reliability" }
            table {
                tr { th { "Kind" } th { "Reviews" } th { "Agreement" } th { "Disputes" } th { "Identified" } }
                @for r in reliability {
                    tr {
                        td { (r.kind) } td { (r.reviews) } td { (pct(r.agreement)) }
                        td { (r.disputes.len()) } td { (pct(r.identified.map(|p| p.share))) }
                    }
                }
            }
            table {
                tr { th { "Kind" } th { "Reviewers" } th { "Shared" } th { "κ" } }
                @for r in reliability {
                    @for k in &r.kappas {
                        tr { td { (r.kind) } td { (k.a) " · " (k.b) } td { (k.shared) } td { (num(k.kappa)) } }
                    }
                }
            }
            h2 { "Judges" }
            table {
                tr { th { "Kind" } th { "Judge" } th { "Metric" } th { "Tasks" } th { "Gap" } th { "Verdict" } }
                @for c in calibration {
                    tr {
                        td { (c.kind) } td { (c.judge) } td { (c.metric) } td { (c.tasks) }
                        td { (num(c.gap)) } td { (c.standing.as_str()) }
                    }
                }
            }
        },
    )
}

/// A new reviewer's link, shown once.
pub fn invited(reviewer: &Reviewer, link: &str) -> Markup {
    page(
        "Invited",
        html! {
            h1 { "Invited " (reviewer.name) }
            p { "Give " (reviewer.name) " (" (reviewer.id) ") this personal link; it is shown once:" }
            pre { (link) }
            p { a href="/admin" { "Back to the dashboard" } }
        },
    )
}
