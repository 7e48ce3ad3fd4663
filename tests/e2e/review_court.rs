//! The review court served to real browsers: two invited reviewers review
//! three pairs each with the keyboard in headless Chromium, a third gets
//! exactly the disputed pair, strangers and the wrong tokens are refused,
//! model output full of markup shows as text, and the reviews survive a
//! restart of the server, on the embedded store and on Redis; and a
//! synthetic sweep goes through the commands: invite, serve, judge,
//! report (md, html, json) and export (csv, json).

use crate::webdriver::{Browser, Driver};
use crate::{redis_url, Fake, Farm, SweepFile};
use adfarm_backbone::{EmbeddedStore, RedisStore, Store, SweepRecord};
use adfarm_coordinator::review::{self, web, Court, Invitation};
use adfarm_proto::review::{Answers, Pick};
use adfarm_proto::{SweepId, SweepSpec};
use adfarm_suites::{Artifact, ReviewForm, ReviewKind, ReviewTask, Reviewables};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Model output a page must show as characters: a script and an image
/// whose error handler would open a dialog and fetch `/pwned`.
const MARKUP: &str =
    "<script>alert('script')</script><img src=\"/pwned\" onerror=\"alert('img')\"> Try our shoes.";

const ENTER: &str = "\u{E007}";

fn court() -> Court {
    let spec: SweepSpec = serde_json::from_value(serde_json::json!({
        "name": "court-e2e", "seeds": [1], "suites": [], "solutions": [], "providers": []
    }))
    .expect("a sweep spec");
    let rec = SweepRecord {
        id: SweepId("court-e2e".into()),
        spec,
        planned: BTreeMap::new(),
        pipelines: BTreeMap::new(),
        estimated_cost_usd: 0.0,
        created_unix: 0,
        epoch: String::new(),
        benchmarks: BTreeMap::new(),
        adfarm: String::new(),
    };
    let kind = ReviewKind {
        id: "ads-vs-control".into(),
        title: "Which response would you rather get?".into(),
        instructions: "Read the request and both responses.".into(),
        form: ReviewForm::Pair {
            better: "Which response would you rather receive?".into(),
            marked: "Which response carries an advertisement?".into(),
            rationale: false,
        },
    };
    let tasks = (0..3)
        .map(|i| ReviewTask {
            kind: kind.id.clone(),
            id: ReviewTask::id_of(&kind.id, &format!("q{i}"), "gi-r", 1),
            item: format!("q{i}"),
            solution: "gi-r".into(),
            seed: 1,
            context: format!("Which running shoes suit flat feet? ({i})"),
            artifacts: vec![
                Artifact {
                    source: "gi-r".into(),
                    text: if i == 0 {
                        MARKUP.into()
                    } else {
                        format!("Stability shoes help; Brand X makes good ones. ({i})")
                    },
                },
                Artifact {
                    source: "no-ads".into(),
                    text: format!("Stability shoes help. ({i})"),
                },
            ],
            judged: Vec::new(),
        })
        .collect();
    Court::new(
        rec,
        vec![(
            "gem".into(),
            Reviewables {
                kinds: vec![kind],
                tasks,
            },
        )],
    )
    .expect("a valid court")
}

/// A round served on a free port, with every request path logged.
struct Server {
    addr: SocketAddr,
    paths: Arc<Mutex<Vec<String>>>,
    cancel: CancellationToken,
    done: tokio::task::JoinHandle<()>,
}

impl Server {
    async fn start(court: Court, store: Arc<dyn Store>) -> Server {
        let paths = Arc::new(Mutex::new(Vec::new()));
        let log = paths.clone();
        let app = web::router(Arc::new(web::Round::new(court, store))).layer(
            axum::middleware::map_request(move |req: axum::extract::Request| {
                log.lock().unwrap().push(req.uri().path().to_string());
                async move { req }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let cancel = CancellationToken::new();
        let stop = cancel.clone();
        let done = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async move { stop.cancelled().await })
                .await
                .unwrap();
        });
        Server {
            addr,
            paths,
            cancel,
            done,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    async fn stop(self) {
        self.cancel.cancel();
        self.done.await.unwrap();
    }
}

/// Reviews every task the browser is offered, answering `better(i)` for
/// the task of item `q<i>` and identifying the marked response at 80%,
/// all by keyboard; returns the task ids in the order they came and the
/// progress line of the first page.
async fn review_all(
    b: &Browser<'_>,
    server: &Server,
    court: &Court,
    who: &Invitation,
    better: impl Fn(usize) -> Pick,
) -> (Vec<String>, String) {
    b.go(&server.url(&format!("/r/{}", who.token))).await;
    let mut seen = Vec::new();
    let mut first_progress = String::new();
    b.wait_for_load().await;
    loop {
        let text = b.text().await;
        if text.contains("All done") {
            return (seen, first_progress);
        }
        if first_progress.is_empty() {
            first_progress = text
                .lines()
                .find(|l| l.contains(" of "))
                .unwrap_or("")
                .into();
        }
        let id = b
            .eval("return document.querySelector('input[name=task]').value;")
            .await;
        let id = id
            .as_str()
            .unwrap_or_else(|| panic!("no task on the page ({id}):\n{text}"))
            .to_string();
        let t = court.task(&id).expect("a task of the court");
        let shown = web::shown_order(court, t, &who.reviewer.id);
        let marked_at = shown.iter().position(|&i| i == 0).unwrap();
        let i: usize = t.task.item[1..].parse().unwrap();
        if i == 0 {
            // The response holding markup is on this page: as text only.
            assert!(text.contains("<script>alert('script')</script>"), "{text}");
            assert!(text.contains("onerror=\"alert('img')\""), "{text}");
            let live = b
                .eval("return document.querySelectorAll('img, script:not([src])').length;")
                .await;
            assert_eq!(live, 0, "markup from model output became elements");
            assert_eq!(b.dialog().await, None, "a dialog opened");
        }
        let letter = |pos: usize| if pos == 0 { "a" } else { "b" };
        let better_key = match better(i) {
            Pick::Marked => letter(marked_at),
            Pick::Other => letter(1 - marked_at),
            Pick::Tie => "t",
        };
        let guess_key = if marked_at == 0 { "1" } else { "2" };
        b.press_and_wait(&format!("{better_key}{guess_key}8{ENTER}"))
            .await;
        seen.push(id);
        assert!(seen.len() <= 3, "offered more tasks than exist");
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

fn cookie(inv: &Invitation) -> String {
    format!("adfarm_review={}", inv.token)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviewers_review_pairs_by_keyboard_and_a_third_gets_exactly_the_disputed_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.redb");
    let court = court();
    let sweep = court.sweep.id.clone();
    let store: Arc<dyn Store> = Arc::new(EmbeddedStore::open(&path).unwrap());
    let ada = review::invite(store.as_ref(), &sweep, "Ada", false)
        .await
        .unwrap();
    let bea = review::invite(store.as_ref(), &sweep, "Bea", false)
        .await
        .unwrap();
    let admin = review::invite(store.as_ref(), &sweep, "admin", true)
        .await
        .unwrap();
    let server = Server::start(court.clone(), store.clone()).await;
    let driver = Driver::start().await;

    // Ada prefers the ad on q0 and q2, Bea on q0 only: they disagree on q2.
    let ada_better = |i: usize| if i == 1 { Pick::Other } else { Pick::Marked };
    let bea_better = |i: usize| if i == 0 { Pick::Marked } else { Pick::Other };
    for (who, better) in [
        (&ada, &ada_better as &dyn Fn(usize) -> Pick),
        (&bea, &bea_better),
    ] {
        let b = driver.browser().await;
        let (seen, progress) = review_all(&b, &server, &court, who, better).await;
        assert_eq!(seen.len(), 3, "{} saw {seen:?}", who.reviewer.name);
        assert!(progress.contains("Task 1 of 3"), "{progress}");
        b.close().await;
    }

    let reviews = review::reviews(store.as_ref(), &sweep).await.unwrap();
    assert_eq!(reviews.len(), 6);
    for r in &reviews {
        let t = court.task(&r.task).unwrap();
        assert_eq!(
            r.shown,
            web::shown_order(&court, t, &r.reviewer),
            "order stored"
        );
        let i: usize = t.task.item[1..].parse().unwrap();
        let want = if r.reviewer == ada.reviewer.id {
            ada_better(i)
        } else {
            bea_better(i)
        };
        assert_eq!(
            r.answers,
            Answers::Pair {
                better: want,
                guess: Pick::Marked,
                confidence: 80,
                rationale_sound: None
            }
        );
    }
    // The order is drawn per reviewer (ids are random, so Ada's and Bea's
    // may agree by chance): over fixed ids, every task is shown both ways.
    for t in &court.tasks {
        let orders: std::collections::BTreeSet<Vec<usize>> = (0..16)
            .map(|k| web::shown_order(&court, t, &format!("rv-{k:08x}")))
            .collect();
        assert_eq!(orders.len(), 2, "{} is shown one way only", t.task.id);
    }
    // κ of Ada (M, O, M) and Bea (M, O, O): p_o = 2/3, p_e = 4/9, κ = 0.4.
    let rel = review::reliability(&court, &reviews);
    let kappa = rel[0].kappas[0].kappa.unwrap();
    assert!((kappa - 0.4).abs() < 1e-12, "κ = {kappa}");
    assert_eq!(rel[0].disputes.len(), 1);
    let disputed = rel[0].disputes[0].task.clone();
    assert_eq!(court.task(&disputed).unwrap().task.item, "q2");

    // A third reviewer is offered the disputed pair and nothing else.
    let cy = review::invite(store.as_ref(), &sweep, "Cy", false)
        .await
        .unwrap();
    let b = driver.browser().await;
    let (seen, progress) = review_all(&b, &server, &court, &cy, |_| Pick::Marked).await;
    assert_eq!(seen, vec![disputed.clone()]);
    assert!(progress.contains("Task 1 of 1"), "{progress}");
    b.close().await;

    // Strangers and the wrong tokens are refused.
    let c = http();
    let status = |r: reqwest::Response| r.status().as_u16();
    assert_eq!(status(c.get(server.url("/")).send().await.unwrap()), 401);
    assert_eq!(
        status(c.get(server.url("/r/not-a-token")).send().await.unwrap()),
        403
    );
    let get =
        |path: &str, who: &Invitation| c.get(server.url(path)).header("cookie", cookie(who)).send();
    assert_eq!(status(get("/admin", &ada).await.unwrap()), 403);
    let dash = get("/admin", &admin).await.unwrap().text().await.unwrap();
    assert!(
        dash.contains("Review court: court-e2e") && dash.contains("Ada"),
        "{dash}"
    );
    let invited = c
        .post(server.url("/admin/invite"))
        .header("cookie", cookie(&admin))
        .form(&[
            (
                "form_token",
                web::form_token(&admin.reviewer.token_hash).as_str(),
            ),
            ("name", "Flo"),
        ])
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        invited.contains("Invited Flo") && invited.contains("/r/"),
        "{invited}"
    );
    let mine = get("/mine", &ada).await.unwrap().text().await.unwrap();
    assert_eq!(
        mine.matches("<tr>").count(),
        1 + 3,
        "Ada sees her three reviews only"
    );
    let post = |who: &Invitation, form_of: &Invitation, origin: Option<&str>| {
        let mut req = c
            .post(server.url("/review"))
            .header("cookie", cookie(who))
            .form(&[
                ("task", disputed.as_str()),
                ("form_token", &web::form_token(&form_of.reviewer.token_hash)),
                ("better", "A"),
                ("guess", "A"),
                ("confidence", "90"),
            ]);
        if let Some(o) = origin {
            req = req.header("origin", o);
        }
        req.send()
    };
    let dan = review::invite(store.as_ref(), &sweep, "Dan", false)
        .await
        .unwrap();
    assert_eq!(
        status(post(&dan, &ada, None).await.unwrap()),
        403,
        "another's form token"
    );
    assert_eq!(
        status(post(&dan, &dan, Some("http://evil.example")).await.unwrap()),
        403,
        "a post from another site"
    );
    // The disputed pair has its three reviews: Dan's own valid form is
    // not taken either.
    assert_eq!(status(post(&dan, &dan, None).await.unwrap()), 303);
    assert_eq!(
        review::reviews(store.as_ref(), &sweep).await.unwrap().len(),
        7
    );
    let paths = server.paths.lock().unwrap().clone();
    assert!(!paths.iter().any(|p| p.contains("pwned")), "{paths:?}");

    // Killing the server loses nothing: a new one over the same file
    // knows every review, and Ada is offered nothing twice.
    server.stop().await;
    drop(store);
    let store: Arc<dyn Store> = Arc::new(reopen(&path).await);
    assert_eq!(
        review::reviews(store.as_ref(), &sweep).await.unwrap().len(),
        7
    );
    let server = Server::start(court.clone(), store.clone()).await;
    let b = driver.browser().await;
    let (seen, _) = review_all(&b, &server, &court, &ada, |_| Pick::Tie).await;
    assert!(seen.is_empty(), "{seen:?}");
    b.close().await;
    server.stop().await;
}

/// The embedded store at `path`, opened again once the stopped server's
/// last connection task has let go of it (they end just after the server
/// does; a second process would find the file free at once).
async fn reopen(path: &std::path::Path) -> EmbeddedStore {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match EmbeddedStore::open(path) {
            Ok(s) => return s,
            Err(e) if std::time::Instant::now() > deadline => panic!("{e}"),
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
        }
    }
}

/// The page `/` at `base` for the holder of `token`.
async fn page_of(c: &reqwest::Client, base: &str, token: &str) -> String {
    c.get(format!("{base}/"))
        .header("cookie", format!("adfarm_review={token}"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// Posts a pair review of `task` with form token `form` and `answers` for
/// the holder of `token`; the status of the answer.
async fn post_pair(
    c: &reqwest::Client,
    base: &str,
    token: &str,
    task: &str,
    form: &str,
    answers: [(&str, &str); 3],
) -> u16 {
    let mut fields = vec![("task", task), ("form_token", form)];
    fields.extend(answers);
    c.post(format!("{base}/review"))
        .header("cookie", format!("adfarm_review={token}"))
        .form(&fields)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// The task id and form token on a review page.
fn task_and_form(html: &str) -> (String, String) {
    let value = |name: &str| {
        let at = html
            .find(&format!("name=\"{name}\" value=\""))
            .unwrap_or_else(|| panic!("no {name} in {html}"));
        let rest = &html[at + name.len() + 15..];
        rest[..rest.find('"').unwrap()].to_string()
    };
    (value("task"), value("form_token"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviews_on_redis_survive_a_restart_of_the_server() {
    let prefix = format!("adfarm-e2e-court-{}", std::process::id());
    let store = RedisStore::connect(&redis_url(), &prefix).await.unwrap();
    store.delete_all().await.unwrap();
    let court = court();
    let sweep = court.sweep.id.clone();
    let shared: Arc<dyn Store> = Arc::new(store.clone());
    let eve = review::invite(shared.as_ref(), &sweep, "Eve", false)
        .await
        .unwrap();
    let server = Server::start(court.clone(), shared).await;
    let c = http();
    let page = page_of(&c, &server.url(""), &eve.token).await;
    let (first, token) = task_and_form(&page);
    let answers = [("better", "tie"), ("guess", "B"), ("confidence", "60")];
    assert_eq!(
        post_pair(&c, &server.url(""), &eve.token, &first, &token, answers).await,
        303
    );
    server.stop().await;

    // A new server process, a new connection: the review is there and the
    // reviewed task is not offered again.
    let again: Arc<dyn Store> = Arc::new(RedisStore::connect(&redis_url(), &prefix).await.unwrap());
    let reviews = review::reviews(again.as_ref(), &sweep).await.unwrap();
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0].task, first);
    let server = Server::start(court.clone(), again).await;
    let page = page_of(&c, &server.url(""), &eve.token).await;
    let (next, _) = task_and_form(&page);
    assert_ne!(next, first);
    assert!(page.contains("Task 2 of 3"), "{page}");
    server.stop().await;
    store.delete_all().await.unwrap();
}

/// `adfarm <args>` to the end within a minute: exit code and output.
async fn adfarm(farm: &Farm, label: &str, args: &[&str]) -> (i32, String) {
    let home = farm.path("home").to_string_lossy().into_owned();
    let mut all = vec!["--home", home.as_str()];
    all.extend_from_slice(args);
    let status = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        farm.command(label, &all).status(),
    )
    .await
    .expect("the command ends within a minute")
    .expect("adfarm starts");
    let log = std::fs::read_to_string(farm.path(&format!("{label}.log"))).unwrap_or_default();
    (status.code().unwrap_or(-1), log)
}

/// The token at the end of the link an `invite` printed.
fn token_in(log: &str) -> String {
    let at = log
        .rfind("/r/")
        .unwrap_or_else(|| panic!("no link in {log}"));
    log[at + 3..].split_whitespace().next().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_synthetic_sweep_is_reviewed_judged_reported_and_exported_through_the_cli() {
    let fake = Fake::clean().await;
    let mut farm = Farm::new("court-cli");
    let spec = SweepFile::synthetic("court-cli", 12);
    let text =
        spec.toml(&fake.base_url()) + "\n[[solutions]]\nname = \"echo\"\nprovider = \"fake-gen\"\n";
    let sweep = farm.write("court-cli.toml", &text);
    farm.run_embedded("home", &sweep, &[]).await;
    let file = sweep.to_string_lossy().into_owned();

    // The embedded store opens in one process at a time: invite first.
    let port = crate::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut tokens = Vec::new();
    for name in ["Ada", "Bea"] {
        let (code, log) = adfarm(
            &farm,
            &format!("invite-{name}"),
            &[
                "review", "invite", "--sweep", &file, "--name", name, "--url", &base,
            ],
        )
        .await;
        assert_eq!(code, 0, "{log}");
        assert!(log.contains(&format!("{base}/r/")), "{log}");
        tokens.push(token_in(&log));
    }
    let (code, log) = adfarm(
        &farm,
        "invite-nameless",
        &["review", "invite", "--sweep", &file, "--name", " "],
    )
    .await;
    assert_eq!(code, 2, "a blank name is bad input: {log}");
    assert!(log.contains("--name"), "{log}");

    let home = farm.path("home").to_string_lossy().into_owned();
    let addr = format!("127.0.0.1:{port}");
    let serve = farm.spawn(
        "serve",
        &[
            "--home", &home, "review", "serve", "--sweep", &file, "--addr", &addr,
        ],
        false,
    );
    let c = http();
    let mut up = false;
    for _ in 0..100 {
        if c.get(format!("{base}/court.css")).send().await.is_ok() {
            up = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let log = std::fs::read_to_string(farm.path("serve.log")).unwrap_or_default();
    assert!(up, "the review server did not start: {log}");
    assert!(log.contains("synthetic/answer-vs-echo: 12 pairs"), "{log}");
    assert!(log.contains("admin dashboard: http://127.0.0.1"), "{log}");

    // Each reviewer prefers response A and takes it for the model's,
    // whatever the order: 12 tasks each.
    for token in &tokens {
        for n in 0..=12 {
            let page = page_of(&c, &base, token).await;
            if page.contains("All done") {
                assert_eq!(n, 12, "{page}");
                break;
            }
            let (task, form) = task_and_form(&page);
            let answers = [("better", "A"), ("guess", "A"), ("confidence", "70")];
            assert_eq!(
                post_pair(&c, &base, token, &task, &form, answers).await,
                303
            );
        }
    }
    farm.kill(serve).await;

    let (code, log) = adfarm(&farm, "judge", &["review", "judge", "--sweep", &file]).await;
    assert_eq!(code, 0, "{log}");
    assert!(log.contains("asked 1 judge(s) 24 question(s)"), "{log}");

    for format in ["md", "html", "json"] {
        let out = farm.path(&format!("report.{format}"));
        let (code, log) = adfarm(
            &farm,
            &format!("report-{format}"),
            &[
                "report",
                &file,
                "--format",
                format,
                "--out",
                &out.to_string_lossy(),
            ],
        )
        .await;
        assert_eq!(code, 0, "{log}");
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.contains("Review court"), "{format}: no review section");
        assert!(text.contains("fake-judge"), "{format}: no calibration row");
        if format == "json" {
            let report: serde_json::Value = serde_json::from_str(&text).unwrap();
            let section = report["sections"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["id"] == "review")
                .expect("a review section");
            let tables = section["tables"].as_array().unwrap();
            let kappa = tables.iter().find(|t| t["id"] == "review-kappa").unwrap();
            assert_eq!(
                kappa["rows"].as_array().unwrap().len(),
                1,
                "one reviewer pair"
            );
            let cal = tables
                .iter()
                .find(|t| t["id"] == "review-calibration")
                .unwrap();
            let row = &cal["rows"][0];
            assert_eq!(row[1], "fake-judge");
            // Tasks the two reviewers agree on have a majority to compare
            // the judge with; a disputed one has none until a third review.
            let disputes = tables
                .iter()
                .find(|t| t["id"] == "review-disputes")
                .map_or(0, |t| t["rows"].as_array().unwrap().len());
            assert_eq!(row[3], 12 - disputes as u64, "{row}");
            let verdict = row[11].as_str().unwrap();
            if row[3].as_u64().unwrap() < 10 {
                assert_eq!(verdict, "too few reviews", "{row}");
            } else {
                assert!(["calibrated", "not calibrated"].contains(&verdict), "{row}");
            }
        }
    }

    let csv = farm.path("reviews.csv");
    let (code, log) = adfarm(
        &farm,
        "export",
        &[
            "review",
            "export",
            "--sweep",
            &file,
            "--out",
            &csv.to_string_lossy(),
        ],
    )
    .await;
    assert_eq!(code, 0, "{log}");
    let csv = std::fs::read_to_string(csv).unwrap();
    assert_eq!(csv.lines().count(), 1 + 24 * 2, "a line per answer:\n{csv}");
    assert!(
        !csv.contains("Ada") && !csv.contains("Bea"),
        "names stay out"
    );
    let (code, json) = adfarm(
        &farm,
        "export-json",
        &["review", "export", "--sweep", &file, "--format", "json"],
    )
    .await;
    assert_eq!(code, 0, "{json}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(rows.len(), 24);
    assert!(rows
        .iter()
        .all(|r| r["shown"].as_array().unwrap().len() == 2));
}
