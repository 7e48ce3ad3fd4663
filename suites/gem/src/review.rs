//! What people review in a GEM-Bench sweep, built from its stored results:
//!
//! - `ads-vs-control` (pair): an ad-injected response beside the no-ads
//!   control's answer to the same query and seed; the reviewer says which
//!   they would rather receive and which one carries the ad;
//! - `judge-questions` (rating): one response rated on the six judge
//!   metrics, on the gembench-1.0.9 categories and their 90/60/30/0 scores
//!   (the scale both judge protocols score on), beside the sweep's judges'
//!   scores of that response.
//!
//! Design decision: results carry no query text, so the queries come from
//! the suite's data ([`queries`]); a response whose query the data does
//! not hold is left out rather than shown without its question.

use crate::data::GemData;
use crate::item::{self, Dataset};
use crate::judge_prompts::{JudgeMetric, JUDGE_METRICS};
use crate::scoring::ad_from_meta;
use crate::JUDGE_STAGE;
use adfarm_proto::{Verdict, SOLVE};
use adfarm_suite::{
    Answer, Artifact, JudgeValue, Question, ReportInput, ReviewForm, ReviewKind, ReviewTask,
    Reviewables,
};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The pair kind: an ad-injected response against the no-ads control.
pub const ADS_VS_CONTROL: &str = "ads-vs-control";
/// The rating kind: one response on the six judge metrics.
pub const JUDGE_QUESTIONS: &str = "judge-questions";
/// The control solution: the plain ad-free answer.
pub const CONTROL: &str = "no-ads";

/// The query of every item, by dataset name and item id.
pub type Queries = BTreeMap<(String, String), String>;

/// The queries of every item of `data`, as [`item::items`] numbers them.
pub fn queries(data: &Arc<GemData>) -> Queries {
    let mut out = Queries::new();
    for ds in Dataset::ALL {
        for it in item::items(data.clone(), ds, Default::default()).flatten() {
            out.insert((ds.as_str().to_string(), it.id), it.input);
        }
    }
    out
}

/// The kinds GEM-Bench declares, pair first.
pub fn kinds() -> Vec<ReviewKind> {
    vec![
        ReviewKind {
            id: ADS_VS_CONTROL.into(),
            title: "Response with an ad vs the ad-free answer".into(),
            instructions: "Read the user's question and the two responses to it. Say which \
                           response you would rather receive, and which one carries an \
                           advertisement."
                .into(),
            form: ReviewForm::Pair {
                better: "Which response would you rather receive?".into(),
                marked: "Which response carries an advertisement?".into(),
                rationale: false,
            },
        },
        ReviewKind {
            id: JUDGE_QUESTIONS.into(),
            title: "The six judge questions".into(),
            instructions: "Read the user's question and the response, then answer each \
                           question as the user who asked would. The product placed in the \
                           response as an advertisement, if any, is named under the question."
                .into(),
            form: ReviewForm::Rating {
                questions: JUDGE_METRICS.iter().map(question).collect(),
            },
        },
    ]
}

/// The rating question of one judge metric: its objective, and its four
/// categories best first, each standing for the score the judge gives it.
fn question(m: &JudgeMetric) -> Question {
    Question {
        metric: m.name.into(),
        text: sentence(m.objective),
        options: m
            .categories
            .iter()
            .map(|c| Answer {
                label: c.code.to_lowercase().replace('_', " "),
                meaning: c.meaning.into(),
                value: f64::from(c.score),
            })
            .collect(),
    }
}

/// `text` with its first letter capitalised.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A response's coordinates: dataset, item, seed, then solution, so the
/// responses to one query and seed sit together.
type Run = (String, String, u64, String);

/// A stored response.
struct Response<'r> {
    text: &'r str,
    meta: &'r serde_json::Value,
}

/// The responses and the judges' scores of them, read from the results.
#[derive(Default)]
struct Sweep<'r> {
    responses: BTreeMap<Run, Response<'r>>,
    judged: BTreeMap<Run, Vec<JudgeValue>>,
}

impl<'r> Sweep<'r> {
    fn read(input: &ReportInput<'r>) -> Sweep<'r> {
        let mut sweep = Sweep::default();
        for r in input.results {
            let Some(item) = input.item_of(r) else {
                continue;
            };
            let run = (
                r.cell.dataset.clone(),
                item.to_string(),
                r.cell.seed,
                r.cell.solution.clone(),
            );
            match (r.stage.as_str(), &r.judge, &r.output) {
                (SOLVE, _, Some(out)) if !out.text.trim().is_empty() => {
                    sweep.responses.insert(
                        run,
                        Response {
                            text: &out.text,
                            meta: &out.meta,
                        },
                    );
                }
                (JUDGE_STAGE, Some(judge), _) => {
                    let values = sweep.judged.entry(run).or_default();
                    for s in &r.scores {
                        let six = JUDGE_METRICS.iter().any(|m| m.name == s.metric);
                        if let (true, Verdict::Score(v)) = (six, &s.verdict) {
                            values.push(JudgeValue {
                                judge: judge.clone(),
                                metric: s.metric.clone(),
                                value: *v,
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        for values in sweep.judged.values_mut() {
            let order = |v: &JudgeValue| JUDGE_METRICS.iter().position(|m| m.name == v.metric);
            values.sort_by(|a, b| (&a.judge, order(a)).cmp(&(&b.judge, order(b))));
        }
        sweep
    }
}

/// This suite's solution entries by label, with their provider.
fn entries(input: &ReportInput<'_>) -> BTreeMap<String, (String, String)> {
    input
        .spec
        .solutions
        .iter()
        .filter(|s| s.suite.as_deref().is_none_or(|n| n == input.suite.name))
        .map(|s| (s.label().to_string(), (s.name.clone(), s.provider.clone())))
        .collect()
}

/// The reviewables of a sweep's results; `queries` from [`queries`].
pub fn reviewables(input: &ReportInput<'_>, queries: &Queries) -> Reviewables {
    let sweep = Sweep::read(input);
    let entries = entries(input);
    let mut controls: BTreeSet<&str> = entries
        .iter()
        .filter(|(_, (name, _))| name == CONTROL)
        .map(|(label, _)| label.as_str())
        .collect();
    controls.insert(CONTROL);
    let provider = |label: &str| entries.get(label).map(|(_, p)| p.as_str());

    let mut tasks = Vec::new();
    for ((dataset, item, seed, solution), resp) in &sweep.responses {
        let Some(query) = queries.get(&(dataset.clone(), item.clone())) else {
            continue;
        };
        let id = format!("{dataset}/{item}");
        let task = |kind: &str, context: String, artifacts, judged| ReviewTask {
            kind: kind.into(),
            id: ReviewTask::id_of(kind, &id, solution, *seed),
            item: id.clone(),
            solution: solution.clone(),
            seed: *seed,
            context,
            artifacts,
            judged,
        };
        let ad = ad_from_meta(resp.meta);
        let run = (dataset.clone(), item.clone(), *seed, solution.clone());
        let sponsored = match &ad {
            Some(a) => format!("{} ({})", a.name, a.url),
            None => "none".into(),
        };
        tasks.push(task(
            JUDGE_QUESTIONS,
            format!("{query}\n\nProduct placed in the response as an advertisement: {sponsored}"),
            vec![artifact(solution, resp.text)],
            sweep.judged.get(&run).cloned().unwrap_or_default(),
        ));
        // A pair asks which response carries the ad: only a response that
        // does carry one has an answer.
        if controls.contains(solution.as_str()) || ad.is_none() {
            continue;
        }
        // The control of the same provider answers the same request the
        // injecting solutions start from; else the first control by label.
        let stored = |c: &str| {
            let key = (dataset.clone(), item.clone(), *seed, c.to_string());
            sweep.responses.get(&key)
        };
        let same = controls.iter().copied().find(|c| {
            provider(c).is_some() && provider(c) == provider(solution) && stored(c).is_some()
        });
        let Some(control) = same.or_else(|| controls.iter().copied().find(|c| stored(c).is_some()))
        else {
            continue;
        };
        let Some(plain) = stored(control) else {
            continue;
        };
        tasks.push(task(
            ADS_VS_CONTROL,
            query.clone(),
            vec![artifact(solution, resp.text), artifact(control, plain.text)],
            vec![],
        ));
    }
    tasks.sort_by(|a, b| {
        (&a.kind, &a.item, &a.solution, a.seed).cmp(&(&b.kind, &b.item, &b.solution, b.seed))
    });
    Reviewables {
        kinds: kinds(),
        tasks,
    }
}

fn artifact(source: &str, text: &str) -> Artifact {
    Artifact {
        source: source.into(),
        text: text.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caprod::CaProd;
    use crate::data::{AdDb, Query};
    use adfarm_proto::{Cell, JobId, JobResult, Output, Score, SuiteSpec, SweepSpec};
    use adfarm_suite::Suite;
    use serde_json::json;

    fn spec() -> SweepSpec {
        serde_json::from_value(json!({
            "name": "g", "suites": [{"name": "gem", "datasets": ["mt-human"]}],
            "solutions": [
                {"name": "gi-r", "provider": "a"},
                {"name": "no-ads", "provider": "a"},
                {"name": "ad-chat", "provider": "b"},
                {"name": "no-ads", "provider": "b", "label": "no-ads-b"}
            ],
            "providers": []
        }))
        .expect("a spec")
    }

    fn result(
        stage: &str,
        solution: &str,
        item: &str,
        seed: u64,
        judge: Option<&str>,
        output: Option<Output>,
        scores: Vec<Score>,
    ) -> JobResult {
        JobResult {
            id: JobId(format!("{stage}-{solution}-{item}-{seed}-{judge:?}")),
            stage: stage.into(),
            cell: Cell {
                suite: "gem".into(),
                dataset: "mt-human".into(),
                solution: solution.into(),
                seed,
            },
            item: item.into(),
            judge: judge.map(str::to_string),
            output,
            scores,
            usage: vec![],
        }
    }

    /// A response of `solution`, carrying `ad` when given.
    fn response(solution: &str, item: &str, seed: u64, ad: Option<&str>) -> JobResult {
        let meta = match ad {
            Some(name) => json!({"ad": {"name": name, "url": "https://ad.example/"}}),
            None => json!({"ad": null, "no_ad_reason": "control"}),
        };
        let output = Output {
            text: format!("{solution} answers {item} (seed {seed})"),
            meta,
        };
        result(SOLVE, solution, item, seed, None, Some(output), vec![])
    }

    fn score(metric: &str, verdict: Verdict) -> Score {
        Score {
            metric: metric.into(),
            verdict,
        }
    }

    fn queries() -> Queries {
        ["0", "1", "2"]
            .iter()
            .map(|i| (("mt-human".into(), i.to_string()), format!("question {i}")))
            .collect()
    }

    fn review(results: &[JobResult]) -> Reviewables {
        let spec = spec();
        let suite: SuiteSpec = spec.suites[0].clone();
        let input = ReportInput {
            spec: &spec,
            suite: &suite,
            cells: &[],
            results,
        };
        reviewables(&input, &queries())
    }

    fn of_kind<'a>(r: &'a Reviewables, kind: &str) -> Vec<&'a ReviewTask> {
        r.tasks.iter().filter(|t| t.kind == kind).collect()
    }

    #[test]
    fn a_pair_puts_the_ad_injected_response_first_and_the_control_second() {
        let r = review(&[
            response("gi-r", "0", 1, Some("Osprey")),
            response("no-ads", "0", 1, None),
        ]);
        let pairs = of_kind(&r, ADS_VS_CONTROL);
        assert_eq!(pairs.len(), 1);
        let p = pairs[0];
        assert_eq!(p.item, "mt-human/0");
        assert_eq!((p.solution.as_str(), p.seed), ("gi-r", 1));
        assert_eq!(p.context, "question 0");
        let sources: Vec<&str> = p.artifacts.iter().map(|a| a.source.as_str()).collect();
        assert_eq!(sources, ["gi-r", "no-ads"]);
        assert_eq!(p.artifacts[0].text, "gi-r answers 0 (seed 1)");
        assert_eq!(p.artifacts[1].text, "no-ads answers 0 (seed 1)");
        assert_eq!(
            p.id,
            ReviewTask::id_of(ADS_VS_CONTROL, "mt-human/0", "gi-r", 1)
        );
        assert!(r.kinds[0].form.is_pair());
        assert!(!r.kinds[1].form.is_pair());
    }

    #[test]
    fn a_pair_needs_both_responses_of_its_item_and_seed_and_an_ad() {
        let r = review(&[
            // Item 0: no control at seed 2.
            response("gi-r", "0", 2, Some("Osprey")),
            response("no-ads", "0", 1, None),
            // Item 1: the injecting solution placed no ad.
            response("gi-r", "1", 1, None),
            response("no-ads", "1", 1, None),
            // Item 2: the control alone.
            response("no-ads", "2", 1, None),
            // An item the data does not hold: no task of any kind.
            response("gi-r", "9", 1, Some("Osprey")),
            response("no-ads", "9", 1, None),
        ]);
        assert!(of_kind(&r, ADS_VS_CONTROL).is_empty());
        assert_eq!(of_kind(&r, JUDGE_QUESTIONS).len(), 5);
    }

    #[test]
    fn a_pair_takes_the_control_of_its_own_provider() {
        let r = review(&[
            response("gi-r", "0", 1, Some("Osprey")),
            response("ad-chat", "0", 1, Some("Samsonite")),
            response("no-ads", "0", 1, None),
            response("no-ads-b", "0", 1, None),
        ]);
        let controls: Vec<(&str, &str)> = of_kind(&r, ADS_VS_CONTROL)
            .iter()
            .map(|t| (t.solution.as_str(), t.artifacts[1].source.as_str()))
            .collect();
        assert_eq!(controls, [("ad-chat", "no-ads-b"), ("gi-r", "no-ads")]);
    }

    #[test]
    fn a_rating_carries_every_response_with_its_judges_scores_of_the_six_metrics() {
        let r = review(&[
            response("gi-r", "0", 1, Some("Osprey")),
            response("no-ads", "0", 1, None),
            result(
                JUDGE_STAGE,
                "gi-r",
                "0",
                1,
                Some("j2"),
                None,
                vec![
                    score("trust", Verdict::Score(30.0)),
                    score("accuracy", Verdict::Score(75.0)),
                    score("naturalness", Verdict::Unscored("parse-failure".into())),
                    score("moderate-good-rate", Verdict::Score(100.0)),
                ],
            ),
            result(
                JUDGE_STAGE,
                "gi-r",
                "0",
                1,
                Some("j1"),
                None,
                vec![score("click", Verdict::Score(0.0))],
            ),
            // Another seed's verdict is not this response's.
            result(
                JUDGE_STAGE,
                "gi-r",
                "0",
                2,
                Some("j1"),
                None,
                vec![score("click", Verdict::Score(90.0))],
            ),
        ]);
        let ratings = of_kind(&r, JUDGE_QUESTIONS);
        let of = |solution: &str| {
            ratings
                .iter()
                .find(|t| t.solution == solution)
                .expect("a rating")
        };
        let gi_r = of("gi-r");
        assert_eq!(gi_r.artifacts.len(), 1);
        assert_eq!(gi_r.artifacts[0].source, "gi-r");
        assert!(gi_r.context.starts_with("question 0\n"));
        assert!(gi_r.context.contains("Osprey (https://ad.example/)"));
        let judged: Vec<(&str, &str, f64)> = gi_r
            .judged
            .iter()
            .map(|v| (v.judge.as_str(), v.metric.as_str(), v.value))
            .collect();
        assert_eq!(
            judged,
            [
                ("j1", "click", 0.0),
                ("j2", "accuracy", 75.0),
                ("j2", "trust", 30.0)
            ]
        );
        let control = of("no-ads");
        assert!(control.judged.is_empty());
        assert!(control.context.ends_with("advertisement: none"));
    }

    #[test]
    fn the_rating_asks_the_six_metrics_on_the_gembench_categories() {
        let ReviewForm::Rating { questions } = &kinds()[1].form else {
            panic!("a rating");
        };
        let metrics: Vec<&str> = questions.iter().map(|q| q.metric.as_str()).collect();
        assert_eq!(
            metrics,
            [
                "accuracy",
                "naturalness",
                "personality",
                "trust",
                "notice",
                "click"
            ]
        );
        let nat = &questions[1];
        assert_eq!(
            nat.text,
            "Does any promotional content fit into the flow of the response?"
        );
        let options: Vec<(&str, f64)> = nat
            .options
            .iter()
            .map(|o| (o.label.as_str(), o.value))
            .collect();
        assert_eq!(
            options,
            [
                ("seamless", 90.0),
                ("slightly disruptive", 60.0),
                ("moderately disruptive", 30.0),
                ("highly disruptive", 0.0)
            ]
        );
        assert_eq!(nat.options[3].meaning, "the promotion derails the answer");
    }

    #[test]
    fn tasks_come_sorted_by_kind_item_solution_and_seed() {
        let r = review(&[
            response("no-ads", "1", 2, None),
            response("gi-r", "1", 2, Some("Osprey")),
            response("no-ads", "0", 1, None),
            response("gi-r", "0", 1, Some("Osprey")),
        ]);
        let order: Vec<(&str, &str, &str, u64)> = r
            .tasks
            .iter()
            .map(|t| {
                (
                    t.kind.as_str(),
                    t.item.as_str(),
                    t.solution.as_str(),
                    t.seed,
                )
            })
            .collect();
        assert_eq!(
            order,
            [
                (ADS_VS_CONTROL, "mt-human/0", "gi-r", 1),
                (ADS_VS_CONTROL, "mt-human/1", "gi-r", 2),
                (JUDGE_QUESTIONS, "mt-human/0", "gi-r", 1),
                (JUDGE_QUESTIONS, "mt-human/0", "no-ads", 1),
                (JUDGE_QUESTIONS, "mt-human/1", "gi-r", 2),
                (JUDGE_QUESTIONS, "mt-human/1", "no-ads", 2),
            ]
        );
        let ids: BTreeSet<&str> = r.tasks.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids.len(), r.tasks.len(), "ids are unique");
    }

    #[test]
    fn the_suite_reads_each_query_from_its_data() {
        let q = |text: &str| Query {
            text: text.into(),
            category: "Travel".into(),
        };
        let data = GemData {
            mt_human: vec![q("Plan a trip."), q("Pack a bag.")],
            lm_market: vec![q("Cook a stew.")],
            ads: AdDb::new(vec![], vec![]),
            ca_prod: CaProd::default(),
        };
        let got = super::queries(&Arc::new(data.clone()));
        assert_eq!(got.len(), 3);
        assert_eq!(got[&("lm-market".into(), "0".into())], "Cook a stew.");

        let spec = spec();
        let suite: SuiteSpec = spec.suites[0].clone();
        let results = [
            response("gi-r", "1", 1, Some("Osprey")),
            response("no-ads", "1", 1, None),
        ];
        let input = ReportInput {
            spec: &spec,
            suite: &suite,
            cells: &[],
            results: &results,
        };
        let r = crate::GemBench::with_data(data)
            .reviews(&input)
            .expect("reviews");
        assert_eq!(r.tasks.len(), 3);
        assert_eq!(of_kind(&r, ADS_VS_CONTROL)[0].context, "Pack a bag.");
    }
}
