//! The model agent end to end with a scripted model: a conversation per
//! decision point through the API's tools, its change set and transcript
//! in the solve's output, the same bytes on a second run; and what the
//! API answers to the calls a model gets wrong (Google's error codes in
//! the observation, never a panic).

use adfarm_adsbench::sandbox::Sandbox;
use adfarm_adsbench::suite::model_agent::tools::{AdsTools, Desk};
use adfarm_adsbench::suite::model_agent::{FUNCTION_CALLING, REACT};
use adfarm_adsbench::suite::scenario::Scenario;
use adfarm_adsbench::AdsBench;
use adfarm_agent::testing::{reply, Scripted};
use adfarm_agent::{Call, Observed, Toolbox};
use adfarm_llm::{Speaker, ToolChoice};
use adfarm_proto::{Item, Verdict};
use adfarm_suite::{Models, Suite};
use serde_json::json;

/// One day, a decision every 12 hours: two decision points.
fn scenario() -> Scenario {
    Scenario {
        days: 1,
        cadence: 12,
        opportunities_per_day: 2_000.0,
        ..Scenario::nth(0)
    }
}

fn item(s: &Scenario) -> Item {
    let params = json!({ "scenarios": [serde_json::to_value(s).expect("a scenario")] });
    AdsBench::default()
        .items("scenarios", &params)
        .expect("the dataset")
        .next()
        .expect("one item")
        .expect("a valid item")
}

/// The campaign's resource name in `s`'s account.
fn campaign(s: &Scenario) -> String {
    let market = s.market().expect("a market");
    let a = market.account();
    format!(
        "customers/{}/campaigns/{}",
        a.customer_id, a.campaigns[0].id
    )
}

fn spec(name: &str) -> adfarm_proto::SolutionSpec {
    adfarm_suite::solution_entry(name, "scripted", 256, json!({"max_turns": 4}))
}

/// Decision 1: read today's metrics, pause the campaign citing them, end;
/// decision 2: read the change history, end.
fn replies(s: &Scenario) -> Vec<adfarm_llm::Completion> {
    let query = json!({"query": "SELECT campaign.id, campaign.status, metrics.cost_micros FROM campaign WHERE segments.date DURING TODAY"}).to_string();
    let pause = json!({"operations": [{
        "update": {"resource_name": campaign(s), "fields": {"status": "PAUSED"}},
        "note": "today's cost 0.00 before the first auction: pausing to test the switch"
    }]})
    .to_string();
    vec![
        reply("", &[("search", &query)]),
        reply("", &[("mutate", &pause)]),
        reply("", &[("end_decision", r#"{"summary": "paused"}"#)]),
        reply("", &[("change_history", "{}")]),
        reply("", &[("end_decision", r#"{"summary": "nothing more"}"#)]),
    ]
}

async fn solve(s: &Scenario, llm: &Scripted) -> adfarm_suite::Solved {
    let suite = AdsBench::default();
    let solution = suite
        .solution(&spec(FUNCTION_CALLING))
        .expect("a model agent");
    solution
        .solve(
            &item(s),
            Models {
                llm,
                embedder: None,
            },
            7,
        )
        .await
        .expect("the episode runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_agent_decides_at_each_point_through_the_api_and_replays_byte_for_byte() {
    let s = scenario();
    let llm = Scripted::new(replies(&s));
    let solved = solve(&s, &llm).await;
    let meta = &solved.output.meta;
    let changes = meta["changes"].as_array().expect("a change set");
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0]["fields"]["status"], "PAUSED");
    assert!(changes[0]["note"]
        .as_str()
        .is_some_and(|n| n.contains("today's cost 0.00")));
    let decisions = meta["transcript"]["decisions"]
        .as_array()
        .expect("decisions");
    assert_eq!(decisions.len(), 2);
    assert!(decisions.iter().all(|d| d["end"] == "closed"));
    assert_eq!(decisions[0]["at"], "2025-03-01 00:00");
    assert_eq!(decisions[1]["at"], "2025-03-01 12:00");
    assert_eq!(meta["transcript"]["usage"]["model_calls"], 5);
    assert_eq!(meta["transcript"]["prompt_version"], "adsbench-fc-v1");
    let score = |m: &str| {
        solved
            .scores
            .iter()
            .find(|x| x.metric == m)
            .map(|x| x.verdict.clone())
    };
    assert_eq!(score("decisions-closed"), Some(Verdict::Score(1.0)));
    assert_eq!(score("api-refusals"), Some(Verdict::Score(0.0)));
    // Paused from midnight: nothing spent.
    assert_eq!(score("spend"), Some(Verdict::Score(0.0)));

    let seen = llm.requests();
    assert_eq!(seen.len(), 5);
    assert!(seen
        .iter()
        .all(|r| r.tool_choice == Some(ToolChoice::Required) && r.tools.len() == 4));
    // Each decision opens a fresh conversation with its time.
    let opening = |i: usize| seen[i].messages[1].content.clone();
    assert!(opening(0).starts_with("Decision 1 of 2. It is 2025-03-01 (Saturday), 00:00."));
    assert!(opening(3).starts_with("Decision 2 of 2. It is 2025-03-01 (Saturday), 12:00."));
    assert_eq!(seen[3].messages.len(), 2);
    // The search's rows came back as Google's JSON.
    let result = seen[1]
        .messages
        .iter()
        .find(|m| m.role == Speaker::Tool)
        .expect("the search's result");
    assert!(result.content.contains("\"results\""), "{}", result.content);

    let again = solve(&s, &Scripted::new(replies(&s))).await;
    assert_eq!(
        serde_json::to_vec(&again.output.meta).expect("json"),
        serde_json::to_vec(meta).expect("json")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_react_agent_that_never_ends_its_decision_is_cut_at_its_turns() {
    let s = scenario();
    let plan = "<plan>look</plan>";
    let llm = Scripted::new(vec![reply(plan, &[]); 8]);
    let suite = AdsBench::default();
    let solved = suite
        .solution(&spec(REACT))
        .expect("a model agent")
        .solve(
            &item(&s),
            Models {
                llm: &llm,
                embedder: None,
            },
            7,
        )
        .await
        .expect("the episode runs");
    let decisions = solved.output.meta["transcript"]["decisions"]
        .as_array()
        .expect("decisions")
        .clone();
    assert_eq!(decisions.len(), 2);
    assert!(decisions
        .iter()
        .all(|d| d["end"] == "turn-limit" && d["turns"] == 4));
    let seen = llm.requests();
    // A tool-less reply is told to call a tool, naming end_decision.
    assert!(seen[1]
        .messages
        .last()
        .is_some_and(|m| m.content.contains("call end_decision")));
    assert!(seen[0].messages[0].content.contains("<TOOL_NAME>"));
}

/// What the tools answer `tool` with `args` on a fresh account.
fn answer(tool: &str, args: serde_json::Value) -> (String, Vec<String>) {
    let s = scenario();
    let tools = AdsTools::default();
    let mut desk = Desk::new(Sandbox::new(s.market().expect("a market")));
    let a = tools.call(
        &mut desk,
        &Call {
            tool: tool.into(),
            args,
        },
    );
    (a.shown(100_000), a.errors)
}

#[test]
fn calls_a_model_gets_wrong_get_googles_errors_in_the_observation() {
    let s = scenario();
    let c = campaign(&s);
    let cases = [
        (
            "search",
            json!({"query": "SELEC campaign.id FROM campaign"}),
            "QueryError.",
        ),
        (
            "search",
            json!({"query": "SELECT campaign.nope FROM campaign"}),
            "QueryError.UNRECOGNIZED_FIELD",
        ),
        ("search", json!({}), "FieldError.REQUIRED"),
        (
            "mutate",
            json!({"operations": [{"update": {"resource_name": c, "fields": {"status": "EXPLODED"}}, "note": "x"}]}),
            "RequestError.INVALID_ENUM_VALUE",
        ),
        (
            "mutate",
            json!({"operations": [{"update": {"resource_name": "campaigns/1", "fields": {"status": "PAUSED"}}, "note": "x"}]}),
            "RequestError.RESOURCE_NAME_MALFORMED",
        ),
        (
            "mutate",
            json!({"operations": [{"update": {"resource_name": "customers/1/campaigns/999", "fields": {"status": "PAUSED"}}, "note": "x"}]}),
            "MutateError.RESOURCE_NOT_FOUND",
        ),
        (
            "mutate",
            json!({"operations": [{"note": "no kind"}]}),
            "FieldError.INVALID_VALUE",
        ),
        (
            "mutate",
            json!({"operations": []}),
            "RequestError.OPERATION_REQUIRED",
        ),
        (
            "mutate",
            json!({"operations": [{"create": {"resource": "ad", "fields": {}}, "note": "x"}]}),
            "FieldError.INVALID_VALUE",
        ),
    ];
    for (tool, args, code) in cases {
        let (text, errors) = answer(tool, args.clone());
        assert!(
            errors.iter().any(|e| e.starts_with(code)),
            "{tool} {args}: {errors:?} {text}"
        );
        assert!(text.contains("\"error\""), "{text}");
    }
    // Absurd and negative values, and more operations than a request holds.
    let market = s.market().expect("a market");
    let a = market.account();
    let budget = format!(
        "customers/{}/campaignBudgets/{}",
        a.customer_id, a.campaigns[0].id
    );
    for (fields, what) in [
        (
            json!({"status": "PAUSED", "name": 7}),
            "a number for a name",
        ),
        (json!({"start_date": -5}), "an immutable field"),
    ] {
        let (text, errors) = answer(
            "mutate",
            json!({"operations": [{"update": {"resource_name": c, "fields": fields}, "note": "x"}]}),
        );
        assert!(!errors.is_empty(), "{what}: {text}");
    }
    let (text, errors) = answer(
        "mutate",
        json!({"operations": [{"update": {"resource_name": budget, "fields": {"amount_micros": -1_000_000}}, "note": "x"}]}),
    );
    assert!(!errors.is_empty(), "a negative budget: {text}");
    let many: Vec<serde_json::Value> = (0..10_001)
        .map(|_| json!({"remove": c, "note": "x"}))
        .collect();
    let (_, errors) = answer("mutate", json!({ "operations": many }));
    assert_eq!(errors, ["RequestError.TOO_MANY_MUTATE_OPERATIONS"]);
    // Every resource can be queried, and a page shows a bounded number of rows.
    for resource in [
        "customer",
        "campaign_budget",
        "campaign",
        "campaign_criterion",
        "ad_group",
        "ad_group_criterion",
        "keyword_view",
    ] {
        let field = if resource == "keyword_view" {
            "ad_group_criterion.criterion_id"
        } else {
            "customer.id"
        };
        let (text, errors) = answer(
            "search",
            json!({"query": format!("SELECT {field} FROM {resource}")}),
        );
        assert!(errors.is_empty(), "{resource}: {text}");
        assert!(text.contains("\"results\""), "{resource}: {text}");
    }
}

/// The gauntlet item `id`.
fn task_item(id: &str) -> Item {
    AdsBench::default()
        .items("gauntlet", &json!({}))
        .expect("the gauntlet")
        .map(|i| i.expect("a valid task"))
        .find(|i| i.id == id)
        .expect("a shipped task")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_agent_is_told_a_tasks_brief_and_its_diagnosis_is_graded() {
    // analysis-easy-01: 2 days, one decision a day; the cause is budget-limited.
    let item = task_item("analysis-easy-01");
    let diagnose = |cause: &str| {
        vec![
            reply(
                "",
                &[("report_diagnosis", &json!({"cause": cause}).to_string())],
            ),
            reply("", &[("end_decision", r#"{"summary": "reported"}"#)]),
            reply(
                "",
                &[("end_decision", r#"{"summary": "nothing to change"}"#)],
            ),
        ]
    };
    let suite = AdsBench::default();
    let solution = suite
        .solution(&spec(FUNCTION_CALLING))
        .expect("a model agent");
    let mut verdicts = Vec::new();
    for cause in ["budget-limited", "bid-too-low"] {
        let llm = Scripted::new(diagnose(cause));
        let solved = solution
            .solve(
                &item,
                Models {
                    llm: &llm,
                    embedder: None,
                },
                7,
            )
            .await
            .expect("the episode runs");
        let seen = llm.requests();
        // The brief is the task's, and the diagnosis tool lists the causes.
        assert!(seen[0].messages[1].content.contains("Find the cause"));
        let tool = seen[0]
            .tools
            .iter()
            .find(|t| t.name == "report_diagnosis")
            .expect("the diagnosis tool on an analysis task");
        assert_eq!(
            tool.parameters["properties"]["cause"]["enum"][4],
            "invalid-traffic"
        );
        assert_eq!(solved.output.meta["transcript"]["diagnosis"], cause);
        let score = |m: &str| {
            solved
                .scores
                .iter()
                .find(|x| x.metric == m)
                .map(|x| x.verdict.clone())
        };
        verdicts.push((score("diagnosis-correct"), score("task-passed")));
    }
    assert_eq!(
        verdicts,
        [
            (Some(Verdict::Score(1.0)), Some(Verdict::Score(1.0))),
            (Some(Verdict::Score(0.0)), Some(Verdict::Score(0.0))),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripted_agent_solves_a_gauntlet_task_and_is_graded() {
    let item = task_item("control-easy-02");
    let suite = AdsBench::default();
    let llm = Scripted::new(Vec::new());
    let solved = suite
        .solution(&adfarm_suite::solution_entry(
            "fixed-bid",
            "none",
            64,
            json!({}),
        ))
        .expect("a scripted agent")
        .solve(
            &item,
            Models {
                llm: &llm,
                embedder: None,
            },
            1,
        )
        .await
        .expect("the episode runs");
    let verdict = &solved.output.meta["verdict"];
    assert!(
        verdict["predicates"]
            .as_array()
            .is_some_and(|p| !p.is_empty()),
        "{verdict}"
    );
    let passed = solved
        .scores
        .iter()
        .find(|x| x.metric == "task-passed")
        .expect("a task score");
    assert_eq!(
        passed.verdict,
        Verdict::Score(f64::from(u8::from(verdict["passed"] == true)))
    );
    assert!(llm.requests().is_empty(), "a scripted agent calls no model");
}

#[test]
fn a_model_agents_estimate_follows_the_items_horizon_and_cadence() {
    use adfarm_proto::SOLVE;
    let suite = AdsBench::default();
    let calls = |max_turns: u32, item: &Item| {
        let spec =
            adfarm_suite::solution_entry(REACT, "scripted", 256, json!({ "max_turns": max_turns }));
        suite.estimate(SOLVE, &spec, item).calls
    };
    // One day decided every 12 hours: two decisions of three turns.
    assert_eq!(calls(6, &item(&scenario())), 6);
    // Fourteen days decided every 6 hours: 56 decisions.
    let long = Scenario {
        days: 14,
        cadence: 6,
        ..scenario()
    };
    assert_eq!(calls(6, &item(&long)), 56 * 3);
    // A lower turn limit caps each decision's turns.
    assert_eq!(calls(2, &item(&long)), 56 * 2);
    // analysis-easy-01: two days, one decision a day.
    assert_eq!(calls(6, &task_item("analysis-easy-01")), 2 * 3);
    // A scripted agent calls no model.
    let rules = adfarm_suite::solution_entry("rules", "scripted", 256, json!({}));
    assert_eq!(suite.estimate(SOLVE, &rules, &item(&long)).calls, 0);
}
