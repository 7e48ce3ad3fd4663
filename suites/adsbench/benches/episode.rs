//! An agent's episode, model time excluded: a 14-day scenario (GSP, B =
//! 30, 4,000 searches a day) with a decision every 6 hours (56 decisions),
//! played by the rule baseline and by the function-calling model agent
//! whose "model" answers instantly from a script (at each decision: search
//! today's cost, set one keyword bid citing it, end the decision). What is
//! left is the market, the API, the agent loop and the harness.
//! Target: ≤ 0.5 s of CPU per episode. Prints a table.
//!
//! CPU is the process's (user + system, `/proc/self/stat`), since the
//! model agent's tool calls run on tokio's blocking pool.

use std::sync::Arc;
use std::time::Instant;

use adfarm_adsbench::sandbox::Sandbox;
use adfarm_adsbench::suite::harness::Harness;
use adfarm_adsbench::suite::model_agent::ModelAgent;
use adfarm_adsbench::suite::outcome::run;
use adfarm_adsbench::suite::rules::RuleAgent;
use adfarm_adsbench::suite::scenario::Scenario;
use adfarm_adsbench::suite::DEFAULT_TARGET_CPA_MICROS;
use adfarm_agent::{Limits, Protocol};
use adfarm_llm::{ChatRequest, Choice, Completion, LlmError, Provider, ToolCall};
use adfarm_proto::{Role, Usage, UsageSource};
use async_trait::async_trait;
use serde_json::json;

/// CPU seconds of every thread of the process, from each thread's
/// `/proc/self/task/*/schedstat` (nanoseconds; threads that already
/// ended are not counted, so each episode is measured while its threads
/// live).
fn process_cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map(|ns| ns as f64 / 1e9)
        .fold(0.0, |a, b| a + b)
}

/// A "model" that plays the same three turns at every decision.
struct Instant3 {
    keyword: String,
}

fn call(name: &str, args: serde_json::Value) -> Completion {
    Completion {
        text: String::new(),
        tool_calls: vec![ToolCall {
            id: String::new(),
            name: name.into(),
            arguments: args.to_string(),
        }],
        usage: Usage {
            model: "instant".into(),
            role: Role::Agent,
            input: 0,
            output: 0,
            cached: false,
            source: UsageSource::Counted,
            latency_ms: 0,
        },
    }
}

#[async_trait]
impl Provider for Instant3 {
    fn model(&self) -> &str {
        "instant"
    }

    async fn chat(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        Ok(match req.messages.len() {
            2 => call(
                "search",
                json!({"query": "SELECT metrics.cost_micros FROM customer WHERE segments.date DURING TODAY"}),
            ),
            4 => call(
                "mutate",
                json!({"operations": [{
                    "update": {"resource_name": self.keyword, "fields": {"cpc_bid_micros": 1_100_000}},
                    "note": "today's cost so far, read just now"
                }]}),
            ),
            _ => call("end_decision", json!({"summary": "done"})),
        })
    }

    async fn choose(&self, _: &ChatRequest, _: &[String]) -> Result<Choice, LlmError> {
        Err(LlmError::Config("not asked".into()))
    }
}

/// The default scenario at `searches` a day, a decision every 6 hours.
fn scenario(searches: f64) -> Scenario {
    Scenario {
        cadence: 6,
        opportunities_per_day: searches,
        ..Scenario::nth(0)
    }
}

fn main() {
    println!(
        "{:<26} {:>9} {:>9} {:>8} {:>8} {:>8}",
        "agent", "searches", "decisions", "changes", "cpu s", "wall s"
    );
    // The default scenario's market, and the market bench's (500k searches
    // over the 14 days).
    for searches in [4_000.0, 500_000.0 / 14.0] {
        one(&scenario(searches));
    }
}

fn one(s: &Scenario) {
    let s = s.clone();

    let (cpu0, wall) = (process_cpu_seconds(), Instant::now());
    let o = run(&s, &mut RuleAgent::new(DEFAULT_TARGET_CPA_MICROS), || true).expect("runs");
    let changes = o.changes.as_ref().map_or(0, Vec::len);
    println!(
        "{:<26} {:>9.0} {:>9} {:>8} {:>8.3} {:>8.3}",
        "rules",
        s.opportunities_per_day,
        o.decisions,
        changes,
        process_cpu_seconds() - cpu0,
        wall.elapsed().as_secs_f64()
    );

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let market = s.market().expect("a market");
    let a = market.account();
    let keyword = format!(
        "customers/{}/adGroupCriteria/{}~{}",
        a.customer_id, a.keywords[0].ad_group_id, a.keywords[0].id
    );
    let agent = ModelAgent {
        protocol: Protocol::FunctionCalling,
        limits: Limits {
            max_turns: 4,
            ..Limits::default()
        },
        max_tokens: 64,
        temperature: 0.0,
    };
    let llm = Instant3 { keyword };
    let (cpu0, wall) = (process_cpu_seconds(), Instant::now());
    let (_, run) = runtime
        .block_on(agent.episode(
            &llm,
            Sandbox::new(market),
            Harness::new(s.plan()),
            "Keep the account near its budget.",
            None,
            1,
            Arc::new(|| true),
        ))
        .expect("the episode runs");
    println!(
        "{:<26} {:>9.0} {:>9} {:>8} {:>8.3} {:>8.3}",
        "function-calling (instant)",
        s.opportunities_per_day,
        run.decisions.len(),
        run.api.changes.len(),
        process_cpu_seconds() - cpu0,
        wall.elapsed().as_secs_f64()
    );
}
