//! The suite's report sections, in the paper's layouts:
//! - Table 2: Pass@1 and Pass@3, overall and per tier, the average length
//!   in interaction steps (turns) and tool calls per episode;
//! - Table 3: failure labels (TE PE IF CE Hal LC) over the wrong episodes,
//!   the wrong episodes (#Err) and their labels in all (TotE), overall and
//!   per tier; the same labels over every episode in a table of its own;
//! - the paper's coverage per tier (whole trajectory reproduced, no TE, PE
//!   or IF), the share of reference steps matched, pass^k for every k, and
//!   each agent's tokens and cost per episode.
//!
//! An agent's row names what a score belongs to: the solution (protocol
//! and prompt version) and the model behind it.

use std::collections::{BTreeMap, BTreeSet};

use adfarm_proto::report::{Column, ColumnKind, Key, Section, Table, Value};
use adfarm_proto::{JobResult, SOLVE};
use adfarm_suite::stats::mean;
use adfarm_suite::ReportInput;
use serde::Deserialize;

use super::judge::{Judged, JUDGE};
use super::stages::{Runs, Scored, PASS_AT_K, REPLAY, SCORE};
use crate::agent::Run;
use crate::scoring::agreement::agreement;
use crate::scoring::{passk, Label};
use crate::tasks::Tier;

/// The section's id.
pub const SECTION: &str = "adbench";

const TIERS: [Tier; 3] = [Tier::L1, Tier::L2, Tier::L3];

fn meta<T: for<'de> Deserialize<'de>>(r: &JobResult) -> Option<T> {
    serde_json::from_value(r.output.as_ref()?.meta.clone()).ok()
}

/// One agent's results.
#[derive(Default)]
struct Agent {
    scored: Vec<Scored>,
    runs: Vec<Runs>,
    /// Per episode: prompt tokens, completion tokens, model calls.
    tokens: Vec<(u64, u64, u64)>,
    protocol: Option<String>,
}

fn pct(x: f64) -> Option<Value> {
    Some(Value::Number(x))
}

fn counts(runs: &[&Runs]) -> Vec<passk::Counts> {
    runs.iter().map(|r| (r.n, r.c)).collect()
}

/// Pass@k over `runs`, when every task has at least k runs.
fn pass_at(runs: &[&Runs], k: u32) -> Option<Value> {
    if runs.is_empty() || runs.iter().any(|r| r.n < k) {
        return None;
    }
    pct(passk::pass_at_k(&counts(runs), k))
}

/// Label counts over `episodes`, then the error count, labels in all and
/// the row's episodes, as Table 3's cells.
fn label_counts(episodes: &[&Scored], err: usize, in_row: usize) -> Vec<Option<Value>> {
    let int = |n: usize| Some(Value::Integer(n as i64));
    let mut cells: Vec<Option<Value>> = Label::ALL
        .iter()
        .map(|l| int(episodes.iter().filter(|s| s.labels.contains(l)).count()))
        .collect();
    cells.push(int(err));
    cells.push(int(episodes.iter().map(|s| s.labels.len()).sum()));
    cells.push(int(in_row));
    cells
}

/// The sections, or none before any episode is scored.
pub fn sections(input: &ReportInput<'_>) -> Vec<Section> {
    // Cells name a solution entry by its label (two models on `react` are
    // two entries, two rows).
    let order = |label: &str| {
        input
            .spec
            .solutions
            .iter()
            .position(|s| s.label() == label)
            .unwrap_or(usize::MAX)
    };
    let mut agents: BTreeMap<(usize, String), Agent> = BTreeMap::new();
    // Per judge: each verdict with the agent (solution label) it judged.
    let mut judged: BTreeMap<String, Vec<(String, Judged)>> = BTreeMap::new();
    let mut truths: Vec<(&str, String)> = Vec::new();
    for r in input.results {
        let key = (order(&r.cell.solution), r.cell.solution.clone());
        match r.stage.as_str() {
            REPLAY => {
                if let Some(o) = &r.output {
                    truths.push((r.item.as_str(), o.meta.to_string()));
                }
            }
            JUDGE => {
                if let (Some(j), Some(judge)) = (meta::<Judged>(r), &r.judge) {
                    judged
                        .entry(judge.clone())
                        .or_default()
                        .push((r.cell.solution.clone(), j));
                }
            }
            SCORE => {
                if let Some(s) = meta::<Scored>(r) {
                    agents.entry(key).or_default().scored.push(s);
                }
            }
            PASS_AT_K => {
                if let Some(s) = meta::<Runs>(r) {
                    agents.entry(key).or_default().runs.push(s);
                }
            }
            SOLVE => {
                if let Some(run) = meta::<Run>(r) {
                    let a = agents.entry(key).or_default();
                    a.tokens.push((
                        run.usage.input,
                        run.usage.output,
                        u64::from(run.usage.model_calls),
                    ));
                    a.protocol.get_or_insert(run.prompt_version.clone());
                }
            }
            _ => {}
        }
    }
    agents.retain(|_, a| !a.scored.is_empty() || !a.runs.is_empty());
    if agents.is_empty() {
        return Vec::new();
    }
    // The provider an agent runs on: its model names the row, its prices
    // cost the episodes.
    let provider_of = |label: &str| {
        input
            .spec
            .solutions
            .get(order(label))
            .and_then(|s| input.spec.provider(&s.provider))
    };
    let n_max = agents
        .values()
        .flat_map(|a| a.runs.iter().map(|r| r.n))
        .min()
        .unwrap_or(0);
    let id = |name: &str, model: &str, protocol: &Option<String>| {
        vec![
            Some(Value::Text(name.into())),
            Some(Value::Text(model.into())),
            Some(Value::Text(protocol.clone().unwrap_or_else(|| "-".into()))),
        ]
    };
    let id_columns = || {
        vec![
            Column::key("solution", "Agent", Key::Solution),
            Column::new("model", "Model", ColumnKind::Text),
            Column::new("protocol", "Prompt protocol", ColumnKind::Text),
        ]
    };
    let p = ColumnKind::Percent { decimals: 1 };

    // Table 2: Pass@1 / Pass@3 overall and per tier, average length.
    let mut t2_cols = id_columns();
    for scope in ["overall", "l1", "l2", "l3"] {
        t2_cols.push(Column::new(
            format!("{scope}-pass@1"),
            format!("{} Pass@1", scope.to_uppercase()),
            p,
        ));
        t2_cols.push(Column::new(
            format!("{scope}-pass@3"),
            format!("{} Pass@3", scope.to_uppercase()),
            p,
        ));
    }
    t2_cols.push(Column::new(
        "avg-length",
        "Avg. length",
        ColumnKind::Number { decimals: 2 },
    ));
    t2_cols.push(Column::new(
        "tool-calls",
        "Tool calls / episode",
        ColumnKind::Number { decimals: 2 },
    ));
    t2_cols.push(Column::new(
        "ambiguous",
        "Answers ambiguous to the rules",
        ColumnKind::Integer,
    ));
    let mut t2_rows = Vec::new();
    // Table 3: failure labels over the wrong episodes, overall and per
    // tier; the same over every episode.
    let label_columns = |err: &str, tote: &str| {
        let mut cols = id_columns();
        cols.push(Column::new("tier", "Tier", ColumnKind::Text));
        for l in Label::ALL {
            cols.push(Column::new(
                format!("{l:?}"),
                format!("{l:?}"),
                ColumnKind::Integer,
            ));
        }
        cols.push(Column::new("err", err, ColumnKind::Integer));
        cols.push(Column::new("tote", tote, ColumnKind::Integer));
        cols.push(Column::new("episodes", "Episodes", ColumnKind::Integer));
        cols
    };
    let mut t3_cols = label_columns("#Err", "TotE");
    t3_cols.push(Column::new(
        "unlabelled",
        "Wrong, no label",
        ColumnKind::Integer,
    ));
    let mut t3_rows = Vec::new();
    let all_labels_cols = label_columns("With a label", "Labels");
    let mut all_labels_rows = Vec::new();
    // Coverage, pass^k and cost.
    let mut t4_cols = id_columns();
    for scope in ["overall", "l1", "l2", "l3"] {
        t4_cols.push(Column::new(
            format!("{scope}-coverage"),
            format!("{} coverage", scope.to_uppercase()),
            p,
        ));
    }
    for scope in ["overall", "l1", "l2", "l3"] {
        t4_cols.push(Column::new(
            format!("{scope}-step-share"),
            format!("{} steps matched", scope.to_uppercase()),
            p,
        ));
    }
    for k in 1..=n_max {
        t4_cols.push(Column::new(format!("pass^{k}"), format!("pass^{k}"), p));
    }
    t4_cols.extend(
        [
            (
                "input-tokens",
                "Prompt tokens / episode",
                ColumnKind::Number { decimals: 0 },
            ),
            (
                "output-tokens",
                "Output tokens / episode",
                ColumnKind::Number { decimals: 0 },
            ),
            (
                "model-calls",
                "Model calls / episode",
                ColumnKind::Number { decimals: 2 },
            ),
            ("usd", "USD / episode", ColumnKind::Usd { decimals: 4 }),
        ]
        .map(|(id, header, kind)| Column::new(id, header, kind)),
    );
    let mut t4_rows = Vec::new();

    for ((_, name), a) in &agents {
        let model = provider_of(name)
            .map(|p| p.model.clone())
            .unwrap_or_default();
        let all_runs: Vec<&Runs> = a.runs.iter().collect();
        let tier_runs = |t: Tier| -> Vec<&Runs> { a.runs.iter().filter(|r| r.tier == t).collect() };
        let tier_scored = |t: Option<Tier>| -> Vec<&Scored> {
            a.scored
                .iter()
                .filter(|s| t.is_none_or(|t| s.tier == t))
                .collect()
        };

        let mut row = id(name, &model, &a.protocol);
        row.push(pass_at(&all_runs, 1));
        row.push(pass_at(&all_runs, 3));
        for t in TIERS {
            let runs = tier_runs(t);
            row.push(pass_at(&runs, 1));
            row.push(pass_at(&runs, 3));
        }
        row.push(mean(a.scored.iter().map(|s| s.turns as f64)).map(Value::Number));
        row.push(mean(a.scored.iter().map(|s| s.calls as f64)).map(Value::Number));
        let ambiguous = a.scored.iter().filter(|s| s.ambiguous).count();
        row.push(Some(Value::Integer(ambiguous as i64)));
        t2_rows.push(row);

        for (label, tier) in [("All", None)].into_iter().chain(TIERS.map(|t| {
            (
                match t {
                    Tier::L1 => "L1",
                    Tier::L2 => "L2",
                    Tier::L3 => "L3",
                },
                Some(t),
            )
        })) {
            let scored = tier_scored(tier);
            let wrong: Vec<&Scored> = scored.iter().copied().filter(|s| !s.correct).collect();
            let mut row = id(name, &model, &a.protocol);
            row.push(Some(Value::Text(label.into())));
            row.extend(label_counts(&wrong, wrong.len(), scored.len()));
            let unlabelled = wrong.iter().filter(|s| s.labels.is_empty()).count();
            row.push(Some(Value::Integer(unlabelled as i64)));
            t3_rows.push(row);
            let mut row = id(name, &model, &a.protocol);
            row.push(Some(Value::Text(label.into())));
            let labelled = scored.iter().filter(|s| !s.labels.is_empty()).count();
            row.extend(label_counts(&scored, labelled, scored.len()));
            all_labels_rows.push(row);
        }

        let mut row = id(name, &model, &a.protocol);
        let covered = |s: &&Scored| if s.covered { 1.0 } else { 0.0 };
        row.push(mean(a.scored.iter().map(|s| covered(&s))).and_then(pct));
        for t in TIERS {
            row.push(mean(tier_scored(Some(t)).iter().map(covered)).and_then(pct));
        }
        row.push(mean(a.scored.iter().map(|s| s.step_share)).and_then(pct));
        for t in TIERS {
            row.push(mean(tier_scored(Some(t)).iter().map(|s| s.step_share)).and_then(pct));
        }
        for k in 1..=n_max {
            row.push(if all_runs.is_empty() {
                None
            } else {
                pct(passk::pass_hat_k(&counts(&all_runs), k))
            });
        }
        row.push(mean(a.tokens.iter().map(|t| t.0 as f64)).map(Value::Number));
        row.push(mean(a.tokens.iter().map(|t| t.1 as f64)).map(Value::Number));
        row.push(mean(a.tokens.iter().map(|t| t.2 as f64)).map(Value::Number));
        row.push(
            provider_of(name).and_then(|p| {
                mean(a.tokens.iter().map(|t| p.cost_usd(t.0, t.1))).map(Value::Number)
            }),
        );
        t4_rows.push(row);
    }

    let n_note = if n_max >= 3 {
        format!("n = {n_max} runs (seeds) per task and agent; Pass@k = mean over tasks of 1 − C(n−c,k)/C(n,k).")
    } else {
        format!("n = {n_max} run(s) per task and agent: Pass@3 needs at least 3 seeds and is left empty.")
    };
    let mut tables = vec![
        Table {
            id: "pass-at-k".into(),
            title: Some("Pass@k by tier (the paper's Table 2 layout)".into()),
            scorer: None,
            columns: t2_cols,
            rows: t2_rows,
            notes: vec![
                n_note,
                "Avg. length: the paper's interaction steps, the agent's turns in the tool \
                 phase (the closing answer call not counted); tool calls per episode beside it."
                    .into(),
            ],
        },
        Table {
            id: "failures".into(),
            title: Some("Failure labels by tier (the paper's Table 3 layout)".into()),
            scorer: None,
            columns: t3_cols,
            rows: t3_rows,
            notes: vec![
                "Counted over the wrong episodes, as the paper counts its failed cases. TE \
                 tool error (a step not reached with its tool never called, a stray tool, a \
                 dependency violation); PE parameter error; IF a turn without a tool call; CE \
                 computation error; Hal a number found in no observation; LC context overflow \
                 or long repetitive episode. #Err: wrong episodes; TotE: their labels in all; \
                 Episodes: every episode in the row; Wrong, no label: wrong episodes the checks \
                 found no reason for."
                    .into(),
            ],
        },
        Table {
            id: "labels-all-episodes".into(),
            title: Some("Failure labels over every episode".into()),
            scorer: None,
            columns: all_labels_cols,
            rows: all_labels_rows,
            notes: vec![
                "The labels of right and wrong episodes alike: a right answer reached with \
                 a tool-less turn or a dependency violation still carries its label here."
                    .into(),
            ],
        },
        Table {
            id: "coverage-cost".into(),
            title: Some("Trajectory coverage, pass^k and cost".into()),
            scorer: None,
            columns: t4_cols,
            rows: t4_rows,
            notes: vec![
                "Coverage as the paper counts it: the share of episodes that reproduce the \
                 whole reference trajectory (every step matched, by its call or by the data \
                 obtained) with no TE, PE or IF label. Steps matched: the mean share of the \
                 reference's steps matched. pass^k = mean over tasks of C(c,k)/C(n,k): all \
                 k runs right (τ-bench). Tokens and cost are per episode, at the agent \
                 provider's prices."
                    .into(),
            ],
        },
    ];
    if !judged.is_empty() {
        tables.push(judge_agreement(input, &judged));
        tables.push(llm_grader(input, &judged));
    }
    vec![Section {
        suite: input.suite.name.clone(),
        id: SECTION.into(),
        title: "AD-Bench: agents on the simulated ad platform".into(),
        intro: Some(
            "Every episode is graded against its task's reference trajectory replayed on the same \
             world date: numbers equal after rounding to 2 decimals, id lists as sets, yes/no and \
             choices by name. A reference step is matched by a call with the same tool and key \
             arguments in an order the step graph allows, or by the data the agent obtained. A \
             failed episode counts as a wrong run."
                .into(),
        ),
        tables,
        notes: vec![ground_truth_note(truths)],
        plots: Vec::new(),
    }]
}

/// The model behind judge `judge`, as its provider names it.
fn judge_model(input: &ReportInput<'_>, judge: &str) -> String {
    input
        .spec
        .provider(judge)
        .map(|p| p.model.clone())
        .unwrap_or_default()
}

/// The judges' answers against the checks' labels: per judge and label
/// (and all labels pooled), agreement and Cohen's κ over the episodes with
/// a readable verdict.
fn judge_agreement(
    input: &ReportInput<'_>,
    judged: &BTreeMap<String, Vec<(String, Judged)>>,
) -> Table {
    let int = |n: usize| Some(Value::Integer(n as i64));
    let mut rows = Vec::new();
    let mut versions = BTreeSet::new();
    for (judge, all) in judged {
        versions.extend(all.iter().map(|(_, j)| j.prompt_version.clone()));
        let readable: Vec<(&BTreeSet<Label>, &BTreeSet<Label>)> = all
            .iter()
            .filter_map(|(_, j)| j.verdict.as_ref().map(|v| (v, &j.checks)))
            .collect();
        let unreadable = all.len() - readable.len();
        let scopes = Label::ALL
            .iter()
            .map(|l| (format!("{l:?}"), vec![*l]))
            .chain([("All".to_string(), Label::ALL.to_vec())]);
        for (name, labels) in scopes {
            let pairs = readable
                .iter()
                .flat_map(|(v, c)| labels.iter().map(move |l| (v.contains(l), c.contains(l))));
            let a = agreement(pairs);
            rows.push(vec![
                Some(Value::Text(judge.clone())),
                Some(Value::Text(judge_model(input, judge))),
                Some(Value::Text(name)),
                int(a.map_or(0, |a| a.n)),
                int(a.map_or(0, |a| a.first_yes)),
                int(a.map_or(0, |a| a.second_yes)),
                a.map(|a| Value::Number(a.observed)),
                a.and_then(|a| a.kappa).map(Value::Number),
                int(unreadable),
            ]);
        }
    }
    let versions: Vec<String> = versions.into_iter().collect();
    Table {
        id: "judge-agreement".into(),
        title: Some("LLM judge against the deterministic labels (Cohen's κ)".into()),
        scorer: None,
        columns: vec![
            Column::new("judge", "Judge", ColumnKind::Text),
            Column::new("model", "Model", ColumnKind::Text),
            Column::new("label", "Label", ColumnKind::Text),
            Column::new("pairs", "Pairs", ColumnKind::Integer),
            Column::new("judge-yes", "Judge yes", ColumnKind::Integer),
            Column::new("checks-yes", "Checks yes", ColumnKind::Integer),
            Column::new(
                "agreement",
                "Agreement",
                ColumnKind::Percent { decimals: 1 },
            ),
            Column::new("kappa", "κ", ColumnKind::Number { decimals: 2 }),
            Column::new("unreadable", "Unreadable verdicts", ColumnKind::Integer),
        ],
        rows,
        notes: vec![format!(
            "The judge answers six yes/no questions per episode, one per label, with the \
             definitions the checks implement (prompt {}); the checks remain the score. \
             All pools the six labels. κ is empty where both raters gave one and the same \
             answer throughout.",
            versions.join(", ")
        )],
    }
}

/// The judge as a grader of correctness, per judge and agent: how often it
/// agrees with the rules, and the accuracy when it decides the answers the
/// rules found ambiguous. The rules' accuracy stays the score.
fn llm_grader(input: &ReportInput<'_>, judged: &BTreeMap<String, Vec<(String, Judged)>>) -> Table {
    let int = |n: usize| Some(Value::Integer(n as i64));
    let share = |n: usize, of: usize| (of > 0).then(|| Value::Number(n as f64 / of as f64));
    let mut rows = Vec::new();
    for (judge, all) in judged {
        let mut agents: Vec<&str> = all.iter().map(|(a, _)| a.as_str()).collect();
        agents.sort_unstable();
        agents.dedup();
        for agent in agents {
            let of_agent: Vec<&Judged> = all
                .iter()
                .filter(|(a, _)| a == agent)
                .map(|(_, j)| j)
                .collect();
            let graded: Vec<(bool, &Judged)> = of_agent
                .iter()
                .filter_map(|j| j.correct.map(|c| (c, *j)))
                .collect();
            let clear: Vec<(bool, bool)> = graded
                .iter()
                .filter(|(_, j)| !j.ambiguous)
                .map(|(c, j)| (*c, j.rules_correct))
                .collect();
            let a = agreement(clear.iter().copied());
            let ambiguous = of_agent.iter().filter(|j| j.ambiguous).count();
            let decided = graded.iter().filter(|(_, j)| j.ambiguous).count();
            let rules_right = of_agent.iter().filter(|j| j.rules_correct).count();
            // The judge's grade where the rules were unsure and it answered.
            let with_judge = of_agent
                .iter()
                .filter(|j| match (j.ambiguous, j.correct) {
                    (true, Some(c)) => c,
                    _ => j.rules_correct,
                })
                .count();
            rows.push(vec![
                Some(Value::Text(judge.clone())),
                Some(Value::Text(judge_model(input, judge))),
                Some(Value::Text(agent.to_string())),
                int(of_agent.len()),
                int(graded.len()),
                a.map(|a| Value::Number(a.observed)),
                a.and_then(|a| a.kappa).map(Value::Number),
                int(ambiguous),
                int(decided),
                share(rules_right, of_agent.len()),
                share(with_judge, of_agent.len()),
            ]);
        }
    }
    let p = ColumnKind::Percent { decimals: 1 };
    Table {
        id: "llm-grader".into(),
        title: Some("LLM judge as a grader of correctness".into()),
        scorer: None,
        columns: vec![
            Column::new("judge", "Judge", ColumnKind::Text),
            Column::new("model", "Model", ColumnKind::Text),
            Column::key("solution", "Agent", Key::Solution),
            Column::new("episodes", "Episodes", ColumnKind::Integer),
            Column::new("graded", "Graded", ColumnKind::Integer),
            Column::new("agreement", "Agrees with the rules", p),
            Column::new("kappa", "κ", ColumnKind::Number { decimals: 2 }),
            Column::new("ambiguous", "Ambiguous to the rules", ColumnKind::Integer),
            Column::new("decided", "Decided by the judge", ColumnKind::Integer),
            Column::new("rules", "Right (rules)", p),
            Column::new("with-judge", "Right (judge decides ambiguous)", p),
        ],
        rows,
        notes: vec![
            "The rules' grade is the score (Pass@k). Agreement and κ compare the judge's \
             grade with the rules' on the answers the rules were sure of; the last column \
             lets the judge decide the answers the rules found ambiguous (the reference \
             beside a conflicting candidate), over the same episodes."
                .into(),
        ],
    }
}

/// Names the ground truth the episodes were graded against: how many
/// replays and a digest of them all, so two reports (two runs, embedded and
/// distributed, two machines) show at a glance whether they graded against
/// the same bytes.
fn ground_truth_note(mut truths: Vec<(&str, String)>) -> String {
    truths.sort_unstable();
    let mut h = blake3::Hasher::new();
    for (item, meta) in &truths {
        h.update(item.as_bytes());
        h.update(b"\0");
        h.update(meta.as_bytes());
        h.update(b"\0");
    }
    format!(
        "Ground truth: {} reference replays (task × date), digest {}.",
        truths.len(),
        &h.finalize().to_hex()[..16]
    )
}
