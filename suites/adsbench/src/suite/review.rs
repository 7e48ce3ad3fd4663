//! What people review in an Ads-Bench sweep, built from its stored
//! episodes: `change-sets` (pair), two agents' management of the same
//! scenario and seed, each shown as its change set (the operations in
//! order, grouped by morning under the agent's note) and how the account
//! did. The reviewer says which management they would rather have had,
//! which change set came from the agent under test, and whether its notes
//! justify its changes.
//!
//! Design decision: the agent under test is paired against the baseline
//! (`fixed-bid`) when the sweep ran it, else against the first solution by
//! label; the baseline's own episodes are never the marked side of a pair
//! while it is the reference. The text is built from the stored outcome
//! alone, which does not name its solution (only an agent's own notes
//! may).

use super::change_log::Change;
use super::outcome::Outcome;
use super::FIXED_BID;
use adfarm_proto::SOLVE;
use adfarm_suite::{Artifact, ReportInput, ReviewForm, ReviewKind, ReviewTask, Reviewables};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The pair kind: two agents' change sets on one scenario.
pub const CHANGE_SETS: &str = "change-sets";

/// The kinds Ads-Bench declares.
pub fn kinds() -> Vec<ReviewKind> {
    vec![ReviewKind {
        id: CHANGE_SETS.into(),
        title: "Two agents managing the same account".into(),
        instructions: "Read the scenario, then what each agent did to the account (its \
                       changes, each morning's under the note it gave) and how the account \
                       fared. Say whose management you would rather have had, which change \
                       set came from the agent under test, and whether that agent's notes \
                       justify its changes."
            .into(),
        form: ReviewForm::Pair {
            better: "Which account management would you rather have had?".into(),
            marked: "Which change set came from the agent under test?".into(),
            rationale: true,
        },
    }]
}

/// The reviewables of a sweep's results.
pub fn reviewables(input: &ReportInput<'_>) -> Reviewables {
    // Episodes by scenario and seed, then solution label.
    let mut episodes: BTreeMap<(&str, u64), BTreeMap<&str, Outcome>> = BTreeMap::new();
    for r in input.results.iter().filter(|r| r.stage == SOLVE) {
        let (Some(item), Some(out)) = (input.item_of(r), &r.output) else {
            continue;
        };
        // The result's text names its agent: only the outcome is shown.
        let Ok(outcome) = serde_json::from_value::<Outcome>(out.meta.clone()) else {
            continue;
        };
        episodes
            .entry((item, r.cell.seed))
            .or_default()
            .insert(r.cell.solution.as_str(), outcome);
    }
    let mut baselines: BTreeSet<&str> = input
        .spec
        .solutions
        .iter()
        .filter(|s| s.suite.as_deref().is_none_or(|n| n == input.suite.name))
        .filter(|s| s.name == FIXED_BID)
        .map(|s| s.label())
        .collect();
    baselines.insert(FIXED_BID);
    let mut tasks = Vec::new();
    for ((item, seed), by_solution) in &episodes {
        let Some(reference) = baselines
            .iter()
            .copied()
            .find(|b| by_solution.contains_key(b))
            .or_else(|| by_solution.keys().next().copied())
        else {
            continue;
        };
        let base = &by_solution[reference];
        for (solution, outcome) in by_solution.iter().filter(|(s, _)| **s != reference) {
            tasks.push(ReviewTask {
                kind: CHANGE_SETS.into(),
                id: ReviewTask::id_of(CHANGE_SETS, item, solution, *seed),
                item: item.to_string(),
                solution: solution.to_string(),
                seed: *seed,
                context: brief(item, outcome),
                artifacts: vec![
                    Artifact {
                        source: solution.to_string(),
                        text: management(outcome),
                    },
                    Artifact {
                        source: reference.to_string(),
                        text: management(base),
                    },
                ],
                judged: vec![],
            });
        }
    }
    tasks.sort_by(|a, b| {
        (&a.kind, &a.item, &a.solution, a.seed).cmp(&(&b.kind, &b.item, &b.solution, b.seed))
    });
    Reviewables {
        kinds: kinds(),
        tasks,
    }
}

fn money(micros: i64) -> String {
    format!("{:.2}", micros as f64 / 1e6)
}

/// The scenario as the reviewer reads it: the market and the account.
fn brief(item: &str, o: &Outcome) -> String {
    let s = &o.scenario;
    let account = s.account();
    let keywords: Vec<String> = account
        .keywords
        .iter()
        .map(|(text, match_type, bid)| {
            format!(
                "\"{text}\" ({}, max CPC {})",
                match_type.as_str().to_lowercase(),
                money(*bid)
            )
        })
        .collect();
    let when = match s.cadence {
        24 => "each morning".to_string(),
        1 => "every hour".to_string(),
        h => format!("every {h} hours"),
    };
    format!(
        "Scenario {item}: {} days from {} in a {} auction market with about {:.0} searches a \
         day. The account: campaign \"{}\" with a daily budget of {} and one ad group \
         bidding on {}. The agent acts {when} through the Ads API; Google lets a \
         campaign spend up to twice its daily budget on one day and 30.4 times it in a month.",
        s.days,
        s.start_date,
        s.mechanism,
        s.opportunities_per_day,
        account.campaign_name,
        money(s.budget_micros),
        keywords.join(", ")
    )
}

/// One operation's line: what changed, and the new values (money in
/// currency units).
fn operation(c: &Change) -> String {
    let fields: Vec<String> = c
        .fields
        .iter()
        .map(
            |(k, v)| match (k.strip_suffix("_micros"), v.parse::<i64>()) {
                (Some(name), Ok(micros)) => format!("{name} = {}", money(micros)),
                _ => format!("{k} = {v}"),
            },
        )
        .collect();
    if fields.is_empty() {
        format!("{} {}", c.operation, c.resource)
    } else {
        format!("{} {}: {}", c.operation, c.resource, fields.join(", "))
    }
}

/// An episode as the reviewer reads it: its change set, then the results.
fn management(o: &Outcome) -> String {
    let mut text = String::new();
    match &o.changes {
        None => text.push_str("Changes: not recorded for this episode.\n"),
        Some(changes) if changes.is_empty() => {
            text.push_str("Changes: none; the agent left the account as it was handed over.\n")
        }
        Some(changes) => {
            let days: BTreeSet<&str> = changes.iter().map(|c| c.date.as_str()).collect();
            let _ = writeln!(
                text,
                "Changes: {} operation(s) on {} morning(s).",
                changes.len(),
                days.len()
            );
            let mut heading: Option<(&str, Option<&str>)> = None;
            for c in changes {
                let this = (c.date.as_str(), c.note.as_deref());
                if heading != Some(this) {
                    let _ = writeln!(
                        text,
                        "{}, note: {}",
                        c.date,
                        c.note.as_deref().unwrap_or("(none given)")
                    );
                    heading = Some(this);
                }
                let _ = writeln!(text, "  {}", operation(c));
            }
        }
    }
    let t = o.totals();
    let ratio = |v: Option<f64>| v.map_or_else(|| "n/a".to_string(), |x| format!("{x:.2}"));
    let _ = write!(
        text,
        "\nResults over {} day(s): spent {} for {} impressions, {} clicks and {:.1} \
         conversions worth {}; CPA {}, ROAS {}. Budget caps bound {} time(s); the highest \
         day spent {:.2} times its budget, the highest month {:.2} of its cap. {} morning(s), \
         {} ending in an API error.",
        o.days.len(),
        money(t.spend_micros),
        t.impressions,
        t.clicks,
        t.conversions,
        money(t.value_micros),
        ratio(t.cpa()),
        ratio(t.roas()),
        o.budget_cap_hits,
        o.max_day_over_b(),
        o.max_month_over_cap(),
        o.decisions,
        o.failed_decisions
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::outcome::DailyRow;
    use crate::suite::scenario::Scenario;
    use crate::suite::PACING;
    use adfarm_proto::{Cell, JobId, JobResult, Output, SuiteSpec, SweepSpec};
    use serde_json::json;

    fn change(date: &str, bid: &str, note: Option<&str>) -> Change {
        Change {
            date: date.into(),
            operation: "update".into(),
            resource: "customers/1/adGroupCriteria/2~3".into(),
            fields: BTreeMap::from([("cpc_bid_micros".to_string(), bid.to_string())]),
            note: note.map(str::to_string),
            cites_observed: false,
            sent: None,
        }
    }

    fn outcome(changes: Option<Vec<Change>>, spend_micros: i64) -> Outcome {
        Outcome {
            scenario: Scenario::nth(0),
            days: vec![DailyRow {
                date: "2025-03-01".into(),
                spend_micros,
                impressions: 900,
                clicks: 30,
                conversions: 2.0,
                value_micros: 50_000_000,
                day_cap_micros: 60_000_000,
                credit_micros: 0,
                daily_cap_bound: false,
                monthly_cap_bound: false,
            }],
            months: BTreeMap::new(),
            budget_cap_hits: 1,
            digest: "d".into(),
            events: 10,
            decisions: 1,
            failed_decisions: 0,
            changes,
            kill_switch: None,
            policy_violations: None,
            reference_operations: None,
            bandit: None,
            red_team: None,
            audience: None,
            audience_ages: None,
        }
    }

    fn episode(solution: &str, item: &str, seed: u64, o: &Outcome) -> JobResult {
        JobResult {
            id: JobId(format!("{solution}-{item}-{seed}")),
            stage: SOLVE.into(),
            cell: Cell {
                suite: "adsbench".into(),
                dataset: "scenarios".into(),
                solution: solution.into(),
                seed,
            },
            item: item.into(),
            judge: None,
            output: Some(Output {
                text: format!("{solution} on {item}"),
                meta: serde_json::to_value(o).expect("an outcome serialises"),
            }),
            scores: vec![],
            usage: vec![],
        }
    }

    fn review(results: &[JobResult]) -> Reviewables {
        let spec: SweepSpec = serde_json::from_value(json!({
            "name": "s", "suites": [{"name": "adsbench", "datasets": ["scenarios"]}],
            "solutions": [
                {"name": "pacing", "provider": "none"},
                {"name": "pacing", "provider": "none", "label": "pacing-slow"},
                {"name": "fixed-bid", "provider": "none"}
            ],
            "providers": []
        }))
        .expect("a spec");
        let suite: SuiteSpec = spec.suites[0].clone();
        let input = ReportInput {
            spec: &spec,
            suite: &suite,
            cells: &[],
            results,
        };
        reviewables(&input)
    }

    fn pacing() -> Outcome {
        outcome(
            Some(vec![
                change(
                    "2025-03-02",
                    "1150000",
                    Some("pacing: yesterday spent 20.00 of 30.00"),
                ),
                change(
                    "2025-03-02",
                    "1040000",
                    Some("pacing: yesterday spent 20.00 of 30.00"),
                ),
            ]),
            20_000_000,
        )
    }

    fn fixed() -> Outcome {
        outcome(
            Some(vec![change("2025-03-01", "1000000", Some("fixed bid"))]),
            30_000_000,
        )
    }

    #[test]
    fn a_pair_puts_the_agent_under_test_first_and_the_fixed_bid_baseline_second() {
        let r = review(&[
            episode(FIXED_BID, "scenario-0", 1, &fixed()),
            episode(PACING, "scenario-0", 1, &pacing()),
        ]);
        assert_eq!(r.tasks.len(), 1);
        let t = &r.tasks[0];
        assert_eq!((t.solution.as_str(), t.seed), (PACING, 1));
        assert_eq!(
            t.id,
            ReviewTask::id_of(CHANGE_SETS, "scenario-0", PACING, 1)
        );
        let sources: Vec<&str> = t.artifacts.iter().map(|a| a.source.as_str()).collect();
        assert_eq!(sources, [PACING, FIXED_BID]);
        assert!(t
            .context
            .starts_with("Scenario scenario-0: 14 days from 2025-03-01"));
        assert!(t
            .context
            .contains("\"running shoes\" (broad, max CPC 1.20)"));
        let ReviewForm::Pair { rationale, .. } = &r.kinds[0].form else {
            panic!("a pair");
        };
        assert!(rationale);
    }

    #[test]
    fn a_change_set_reads_as_its_operations_under_each_mornings_note_then_the_results() {
        let text = management(&pacing());
        assert_eq!(
            text.lines().take(4).collect::<Vec<_>>(),
            [
                "Changes: 2 operation(s) on 1 morning(s).",
                "2025-03-02, note: pacing: yesterday spent 20.00 of 30.00",
                "  update customers/1/adGroupCriteria/2~3: cpc_bid = 1.15",
                "  update customers/1/adGroupCriteria/2~3: cpc_bid = 1.04",
            ]
        );
        assert!(text.contains("spent 20.00 for 900 impressions, 30 clicks"));
        assert!(text.contains("CPA 10.00, ROAS 2.50"));
        // Only the agent's own notes may say who it is.
        assert!(!management(&fixed()).contains(FIXED_BID));
        assert!(management(&outcome(None, 0)).starts_with("Changes: not recorded"));
        assert!(management(&outcome(Some(vec![]), 0)).starts_with("Changes: none"));
    }

    #[test]
    fn a_scenario_needs_two_agents_with_readable_episodes() {
        let mut unreadable = episode(PACING, "scenario-1", 1, &pacing());
        if let Some(out) = unreadable.output.as_mut() {
            out.meta = json!({"digest": "d"});
        }
        let r = review(&[
            // Alone on its scenario.
            episode(PACING, "scenario-0", 1, &pacing()),
            // Two agents, but one episode unreadable.
            episode(FIXED_BID, "scenario-1", 1, &fixed()),
            unreadable,
            // Two agents at different seeds.
            episode(FIXED_BID, "scenario-2", 1, &fixed()),
            episode(PACING, "scenario-2", 2, &pacing()),
        ]);
        assert!(r.tasks.is_empty());
        assert_eq!(r.kinds.len(), 1);
    }

    #[test]
    fn without_the_baseline_the_first_label_is_the_reference() {
        let r = review(&[
            episode("pacing-slow", "scenario-0", 1, &pacing()),
            episode(PACING, "scenario-0", 1, &pacing()),
            episode(PACING, "scenario-1", 1, &pacing()),
            episode("pacing-slow", "scenario-1", 1, &pacing()),
            episode(FIXED_BID, "scenario-1", 1, &fixed()),
        ]);
        let pairs: Vec<(&str, &str, &str)> = r
            .tasks
            .iter()
            .map(|t| {
                (
                    t.item.as_str(),
                    t.artifacts[0].source.as_str(),
                    t.artifacts[1].source.as_str(),
                )
            })
            .collect();
        assert_eq!(
            pairs,
            [
                ("scenario-0", "pacing-slow", PACING),
                ("scenario-1", PACING, FIXED_BID),
                ("scenario-1", "pacing-slow", FIXED_BID),
            ]
        );
    }

    #[test]
    fn an_episode_keeps_the_change_set_its_agent_committed() {
        use crate::suite::agents::{FixedBidAgent, PacingAgent};
        use crate::suite::outcome::run;
        use crate::suite::{DEFAULT_BID_MICROS, DEFAULT_TARGET_CPA_MICROS};

        let s = Scenario {
            days: 3,
            ..Scenario::nth(0)
        };
        let fixed = run(&s, &mut FixedBidAgent::new(DEFAULT_BID_MICROS), || true).expect("runs");
        let changes = fixed.changes.clone().expect("a change set");
        // Three of the four keywords bid otherwise than 1.00 at the start.
        assert_eq!(changes.len(), 3);
        for c in &changes {
            assert_eq!(
                (c.date.as_str(), c.operation.as_str()),
                ("2025-03-01", "update")
            );
            assert_eq!(c.note.as_deref(), Some("fixed bid"));
            assert_eq!(
                c.fields.get("cpc_bid_micros").map(String::as_str),
                Some("1000000")
            );
        }
        let pacing = run(&s, &mut PacingAgent::new(DEFAULT_TARGET_CPA_MICROS), || {
            true
        })
        .expect("runs");
        for c in pacing.changes.as_deref().unwrap_or_default() {
            assert!(
                c.date.as_str() > "2025-03-01",
                "no yesterday on the first morning"
            );
            assert!(c.note.as_deref().is_some_and(|n| n.starts_with("pacing: ")));
        }
        let r = review(&[
            episode(FIXED_BID, "scenario-0", 1, &fixed),
            episode(PACING, "scenario-0", 1, &pacing),
        ]);
        assert_eq!(r.tasks.len(), 1);
        assert!(r.tasks[0].artifacts[1]
            .text
            .contains("2025-03-01, note: fixed bid\n  update customers/"));
    }
}
