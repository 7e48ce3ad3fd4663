//! The agent loop against canned model replies: how ReAct turns are read
//! (parallel calls, malformed tags, bad JSON, unknown tools, too many
//! calls, tool-less turns), what function calling sends and answers, how
//! episodes end (summary, turn limit, context overflow) and that a run is
//! the same bytes twice. The calculator runs in its child process.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use adfarm_adbench::agent::{
    self, prompt, Brief, End, FormatError, Limits, Protocol, Run, Sampling,
};
use adfarm_adbench::replay::{reference_platform, replay};
use adfarm_adbench::scripted::{Script, ScriptedModel};
use adfarm_adbench::tasks::{load, reference_day, tasks_root, Split};
use adfarm_adbench::tools::{Outcome, Platform};
use adfarm_adbench::world::DEFAULT_HOUR;
use adfarm_llm::{
    ChatRequest, Choice, Completion, LlmError, Message, Provider, Speaker, ToolCall, ToolChoice,
};
use adfarm_proto::{Role, Usage, UsageSource};
use async_trait::async_trait;

use crate::no_tokens;

/// Replies in order, and the requests that got them.
struct Canned {
    replies: Mutex<VecDeque<Result<Completion, LlmError>>>,
    requests: Mutex<Vec<ChatRequest>>,
}

fn completion(text: &str, tool_calls: Vec<ToolCall>) -> Completion {
    Completion {
        text: text.into(),
        tool_calls,
        usage: Usage {
            input: 100,
            output: 10,
            source: UsageSource::Reported,
            ..no_tokens("canned", Role::Agent)
        },
    }
}

impl Canned {
    fn new(replies: Vec<Result<Completion, LlmError>>) -> Canned {
        Canned {
            replies: Mutex::new(replies.into()),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// ReAct texts, then the final answer.
    fn texts(turns: &[&str]) -> Canned {
        Canned::new(
            turns
                .iter()
                .map(|t| Ok(completion(t, Vec::new())))
                .collect(),
        )
    }

    fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().expect("lock").clone()
    }
}

#[async_trait]
impl Provider for Canned {
    fn model(&self) -> &str {
        "canned"
    }

    async fn chat(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        self.requests.lock().expect("lock").push(req.clone());
        self.replies
            .lock()
            .expect("lock")
            .pop_front()
            .unwrap_or_else(|| Err(LlmError::Config("no more canned replies".into())))
    }

    async fn choose(&self, _: &ChatRequest, _: &[String]) -> Result<Choice, LlmError> {
        Err(LlmError::Config("not used".into()))
    }
}

/// Another provider's replies as a cache serves them: flagged cached,
/// with the latency of the call that made them.
struct FromCache<'a>(&'a dyn Provider);

#[async_trait]
impl Provider for FromCache<'_> {
    fn model(&self) -> &str {
        self.0.model()
    }

    async fn chat(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let mut c = self.0.chat(req).await?;
        c.usage.cached = true;
        c.usage.latency_ms = 1234;
        Ok(c)
    }

    async fn choose(&self, req: &ChatRequest, options: &[String]) -> Result<Choice, LlmError> {
        self.0.choose(req, options).await
    }
}

fn child_platform() -> Arc<Platform> {
    Arc::new(crate::child_platform(Split::Public.seed(), reference_day()))
}

const SAMPLING: Sampling = Sampling {
    max_tokens: 256,
    temperature: 0.0,
    seed: 3,
};

async fn play(protocol: Protocol, llm: &dyn Provider, limits: Limits) -> Result<Run, LlmError> {
    let platform = child_platform();
    let user_id = platform.world().users()[0].id;
    let brief = Brief {
        question: "How much did I spend yesterday?",
        user_id,
        today: reference_day(),
        hour: DEFAULT_HOUR,
    };
    agent::run(protocol, llm, platform, brief, limits, SAMPLING).await
}

fn user_id() -> u64 {
    child_platform().world().users()[0].id
}

/// `get_user_account_list`'s arguments for the episode's user.
fn list_args() -> String {
    format!(r#"{{"user_id": {}, "page_size": 10}}"#, user_id())
}

/// A ReAct tool entry listing the user's accounts.
fn list_accounts() -> String {
    tool("get_user_account_list", &list_args())
}

fn tool(name: &str, input: &str) -> String {
    format!("<tool><TOOL_NAME>{name}</TOOL_NAME><INPUT>{input}</INPUT></tool>")
}

fn summarize() -> String {
    format!(
        "<plan>done</plan><tools>{}</tools>",
        tool("summarize_results", r#"{"query": "Resolved"}"#)
    )
}

fn last_user(req: &ChatRequest) -> &str {
    let m = req.messages.last().expect("a message");
    assert_eq!(m.role, Speaker::User);
    &m.content
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_calls_in_one_tools_block_run_in_order_in_one_turn() {
    let u = user_id();
    let first = format!(
        "<plan>List the accounts, look up CTR and compute.</plan>\n<tools>\n{}\n{}\n{}\n</tools>",
        list_accounts(),
        tool("search", r#"{"query": "ctr"}"#),
        tool("calculator", r#"{"code": "print(len(r1['rows']) * 2)"}"#),
    );
    let llm = Canned::texts(&[&first, &summarize(), "It is 4."]);
    let run = play(Protocol::React, &llm, Limits::default())
        .await
        .expect("run");
    assert_eq!(run.end, End::Summarized);
    assert_eq!(run.turns.len(), 2);
    assert_eq!(run.turns[0].calls, vec![0, 1, 2]);
    assert_eq!(run.turns[1].calls, vec![3]);
    let tools: Vec<&str> = run.episode.calls.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(
        tools,
        [
            "get_user_account_list",
            "search",
            "calculator",
            "summarize_results"
        ]
    );
    // The calculator read r1, fetched earlier in the same turn, in its child.
    let calc = &run.episode.observations[2];
    assert!(calc.ok(), "{}", calc.text);
    assert_eq!(calc.result_id.as_deref(), Some("r3"));
    assert_eq!(run.episode.outcome, Some(Outcome::Resolved));
    assert_eq!(run.episode.final_text, "It is 4.");
    assert_eq!(run.episode.toolless_turns, 0);
    assert_eq!(run.usage.model_calls, 3);
    assert_eq!((run.usage.input, run.usage.output), (300, 30));

    let reqs = llm.requests();
    assert_eq!(reqs.len(), 3);
    let results = last_user(&reqs[1]);
    assert_eq!(results.matches("<tool_res>").count(), 3, "{results}");
    for id in ["r1", "r2", "r3"] {
        assert!(
            results.contains(&format!("<RESULT_ID>{id}</RESULT_ID>")),
            "{results}"
        );
    }
    assert!(results.find("get_user_account_list") < results.find("<TOOL_NAME>search"));
    assert!(reqs[..2]
        .iter()
        .all(|r| r.tools.is_empty() && r.stop == ["<tool_res>"]));
    // The system prompt documents the protocol, the user and today.
    let system = &reqs[0].messages[0].content;
    assert!(system.contains(&format!("user_id is {u}")));
    assert!(system.contains("Today is 2026-07-25"));
    assert!(system.contains("## calculator"));
    assert!(prompt::asks_final_answer(&reqs[2]));
    assert!(reqs[2].stop.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_papers_tool_name_and_input_lines_run_like_tagged_entries() {
    // Two line-form entries (the second's JSON over several lines) and a
    // tagged one in the same block, in that order.
    let first = format!(
        "<plan>List the accounts, look up CTR, count.</plan>\n<tools>\n\
TOOL_NAME: get_user_account_list\nINPUT: {}\n\
  TOOL_NAME: search\nINPUT: {{\n  \"query\": \"ctr\"\n}}\n{}\n</tools>",
        list_args(),
        tool("calculator", r#"{"code": "print(len(r1['rows']) * 2)"}"#),
    );
    let lines_only = "<plan>done</plan>\n<tools>\nTOOL_NAME: summarize_results\n\
INPUT: {\"query\": \"Resolved\"}\n</tools>";
    let llm = Canned::texts(&[&first, lines_only, "It is 4."]);
    let run = play(Protocol::React, &llm, Limits::default())
        .await
        .expect("run");
    assert!(
        run.turns.iter().all(|t| t.format_error.is_none()),
        "{:?}",
        run.turns
    );
    assert_eq!(run.end, End::Summarized);
    assert_eq!(run.turns[0].calls, vec![0, 1, 2]);
    let tools: Vec<&str> = run.episode.calls.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(
        tools,
        [
            "get_user_account_list",
            "search",
            "calculator",
            "summarize_results"
        ]
    );
    assert_eq!(
        run.episode.calls[1].args,
        serde_json::json!({"query": "ctr"})
    );
    assert!(run.episode.observations.iter().all(|o| o.ok()));
    assert_eq!(run.episode.outcome, Some(Outcome::Resolved));
    assert_eq!(run.episode.toolless_turns, 0);
    // Prose in the plan that quotes the form is not a call.
    let quoted = "<plan>I will write TOOL_NAME: search\nINPUT: {} next turn.</plan>";
    let llm = Canned::texts(&[quoted, &summarize(), "Unknown."]);
    let run = play(Protocol::React, &llm, Limits::default())
        .await
        .expect("run");
    assert_eq!(run.turns[0].format_error, None);
    assert_eq!(run.episode.toolless_turns, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_turns_run_nothing_and_name_the_fault() {
    let list = list_accounts();
    let nine: String = (0..9).map(|_| list.clone()).collect();
    let cases: Vec<(String, &str, &str)> = vec![
        ("The answer is 5.".into(), "no-plan", "no <plan>"),
        (
            "<plan>list them".into(),
            "unclosed-tag",
            "<plan> is never closed",
        ),
        (
            format!("<plan>x</plan><tools>{list}"),
            "unclosed-tag",
            "<tools> is never closed",
        ),
        (
            "<plan>x</plan><tools><tool><TOOL_NAME>search</TOOL_NAME><INPUT>{}</tool></tools>"
                .into(),
            "unclosed-tag",
            "<INPUT> is never closed",
        ),
        (
            format!("<tools>{list}</tools><plan>x</plan>"),
            "tools-before-plan",
            "before <plan>",
        ),
        (
            format!("<plan>x</plan><tools>{list}</tools><tools>{list}</tools>"),
            "second-tools",
            "more than one <tools>",
        ),
        (
            format!("<plan>x</plan><tools>call {list}</tools>"),
            "stray-text",
            "outside its <tool> entries",
        ),
        (
            "<plan>x</plan><tools><tool><TOOL_NAME>search</TOOL_NAME></tool></tools>".into(),
            "missing-tag",
            "entry 1 has no <INPUT>",
        ),
        (
            format!(
                "<plan>x</plan><tools>{list}{}</tools>",
                tool("search", r#"{"query": "ctr""#)
            ),
            "bad-json",
            "INPUT of call 2 (search) is not valid JSON",
        ),
        (
            format!("<plan>x</plan><tools>{}</tools>", tool("search", "[1]")),
            "not-an-object",
            "must be a JSON object",
        ),
        (
            format!("<plan>x</plan><tools>{}</tools>", tool("get_weather", "{}")),
            "unknown-tool",
            "\"get_weather\", which is not a tool",
        ),
        (
            format!("<plan>x</plan><tools>{nine}</tools>"),
            "too-many-calls",
            "9 calls in one turn; at most 8",
        ),
        (
            "<plan>x</plan><tools>\nTOOL_NAME: search\n</tools>".into(),
            "missing-input",
            "entry 1 (TOOL_NAME: search) has no INPUT: line",
        ),
        (
            format!(
                "<plan>x</plan><tools>\nTOOL_NAME: get_user_account_list\nINPUT: {}\n\
TOOL_NAME: search\nINPUT: {{\"query\": \"ctr\"\n</tools>",
                list_args()
            ),
            "bad-json",
            "INPUT of call 2 (search) is not valid JSON",
        ),
        (
            format!(
                "<plan>x</plan>\nTOOL_NAME: get_user_account_list\nINPUT: {}",
                list_args()
            ),
            "entries-outside-tools",
            "outside <tools>",
        ),
        (
            format!("<plan>x</plan><tools>{list}</tools>\n{list}"),
            "entries-outside-tools",
            "only entries inside the block run",
        ),
    ];
    for (reply, code, says) in cases {
        let llm = Canned::texts(&[&reply, &summarize(), "Unknown."]);
        let run = play(Protocol::React, &llm, Limits::default())
            .await
            .expect("run");
        let e: &FormatError = run.turns[0]
            .format_error
            .as_ref()
            .unwrap_or_else(|| panic!("{reply:?} was accepted"));
        assert_eq!(e.code(), code, "{reply:?}: {e}");
        assert!(run.turns[0].calls.is_empty());
        assert_eq!(run.turns[0].text, reply);
        // Only the summary ran; the bad turn counts, and as tool-less.
        assert_eq!(run.episode.calls.len(), 1, "{reply:?}");
        assert_eq!(run.episode.toolless_turns, 1);
        assert_eq!(run.end, End::Summarized);
        let told = last_user(&llm.requests()[1]).to_string();
        assert!(told.contains("<format_error>"), "{told}");
        assert!(told.contains(says), "{reply:?}: {told}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_without_calls_is_toolless_and_the_agent_is_nudged() {
    for reply in [
        "<plan>Let me think first.</plan>",
        "<plan>x</plan><tools>\n</tools>",
    ] {
        let llm = Canned::texts(&[reply, &summarize(), "Done."]);
        let run = play(Protocol::React, &llm, Limits::default())
            .await
            .expect("run");
        assert_eq!(run.episode.toolless_turns, 1);
        assert_eq!(run.turns[0].format_error, None);
        assert!(run.turns[0].calls.is_empty());
        assert!(last_user(&llm.requests()[1]).contains("called no tool"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_turn_limit_ends_the_episode_without_a_final_answer() {
    let limits = Limits {
        max_turns: 2,
        ..Limits::default()
    };
    let llm = Canned::texts(&["<plan>a</plan>", "<plan>b</plan>", "never asked"]);
    let run = play(Protocol::React, &llm, limits).await.expect("run");
    assert_eq!(run.end, End::TurnLimit);
    assert_eq!(llm.requests().len(), 2);
    assert_eq!(run.turns.len(), 2);
    assert_eq!(run.episode.outcome, None);
    assert_eq!(run.episode.final_text, "");
    assert!(!run.episode.context_overflow);
    assert!(run.episode.calls.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_overflow_ends_the_episode_and_other_failures_are_errors() {
    let overflows = [
        LlmError::Config(
            "local model: inference: prompt of 8300 tokens does not fit the model context of 8192"
                .into(),
        ),
        LlmError::Status {
            status: 400,
            message: "This model's maximum context length is 8192 tokens.".into(),
            retry_after: None,
        },
    ];
    let first = format!("<plan>list</plan><tools>{}</tools>", list_accounts());
    for e in overflows {
        let llm = Canned::new(vec![Ok(completion(&first, vec![])), Err(e.clone())]);
        let run = play(Protocol::React, &llm, Limits::default())
            .await
            .unwrap_or_else(|err| panic!("{e} should end the episode, not fail it: {err}"));
        assert_eq!(run.end, End::ContextOverflow, "{e}");
        assert!(run.episode.context_overflow);
        assert_eq!(run.episode.calls.len(), 1);
        assert_eq!(run.turns.len(), 1);
        assert_eq!(run.usage.model_calls, 1);
    }
    // Overflow at the closing question still ends as overflow.
    let llm = Canned::new(vec![
        Ok(completion(&summarize(), vec![])),
        Err(LlmError::Status {
            status: 400,
            message: "context_length_exceeded".into(),
            retry_after: None,
        }),
    ]);
    let run = play(Protocol::React, &llm, Limits::default())
        .await
        .expect("run");
    assert_eq!(run.end, End::ContextOverflow);
    assert_eq!(run.episode.outcome, Some(Outcome::Resolved));
    for e in [
        LlmError::Status {
            status: 500,
            message: "upstream".into(),
            retry_after: None,
        },
        LlmError::Budget { budget_usd: 1.0 },
    ] {
        let llm = Canned::new(vec![Ok(completion(&first, vec![])), Err(e.clone())]);
        let got = play(Protocol::React, &llm, Limits::default()).await;
        assert_eq!(
            got.map(|r| r.end).map_err(|e| e.code()),
            Err(e.code()),
            "{e}"
        );
    }
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn function_calling_offers_the_schemas_and_answers_each_call_by_id() {
    let list = list_args();
    let llm = Canned::new(vec![
        // A reply with a bad call: nothing runs, each call is answered.
        Ok(completion(
            "",
            vec![
                call("a", "get_user_account_list", &list),
                call("b", "search", "{\"query\": "),
            ],
        )),
        // Text only: a tool-less turn.
        Ok(completion("I think it is 5.", vec![])),
        // Two calls in one reply, one without an id.
        Ok(completion(
            "Listing and searching.",
            vec![
                call("c", "get_user_account_list", &list),
                call("", "search", r#"{"query": "ctr"}"#),
            ],
        )),
        Ok(completion(
            "",
            vec![call("d", "summarize_results", r#"{"query": "Unresolved"}"#)],
        )),
        Ok(completion("I could not tell.", vec![])),
    ]);
    let run = play(Protocol::FunctionCalling, &llm, Limits::default())
        .await
        .expect("run");
    assert_eq!(run.end, End::Summarized);
    assert_eq!(run.turns.len(), 4);
    assert_eq!(
        run.turns[0].format_error.as_ref().map(FormatError::code),
        Some("bad-json")
    );
    assert_eq!(run.turns[2].calls, vec![0, 1]);
    assert_eq!(run.turns[2].text, "Listing and searching.");
    assert_eq!(run.episode.toolless_turns, 2);
    assert_eq!(run.episode.outcome, Some(Outcome::Unresolved));
    assert_eq!(run.episode.final_text, "I could not tell.");

    let reqs = llm.requests();
    let platform = child_platform();
    for r in &reqs[..4] {
        assert_eq!(r.tools, platform.specs());
        assert_eq!(r.tool_choice, Some(ToolChoice::Required));
    }
    assert!(reqs[4].tools.is_empty() && reqs[4].tool_choice.is_none());
    assert!(prompt::asks_final_answer(&reqs[4]));
    assert!(!reqs[0].messages[0].content.contains("<TOOL_NAME>"));
    // The rejected turn: one tool message per call, each saying why.
    let answered: Vec<&Message> = reqs[1].messages.iter().rev().take(2).collect();
    for (m, id) in answered.iter().rev().zip(["a", "b"]) {
        assert_eq!(m.role, Speaker::Tool);
        assert_eq!(m.tool_call_id.as_deref(), Some(id));
        assert!(m.content.contains("bad-json"), "{}", m.content);
    }
    assert_eq!(last_user(&reqs[2]), prompt::NO_CALL);
    // The parallel turn: the id-less call got one, and each result its id.
    let turn: Vec<&Message> = reqs[3].messages.iter().rev().take(3).collect();
    let assistant = turn[2];
    assert_eq!(assistant.tool_calls[1].id, "call_3");
    assert_eq!(turn[1].tool_call_id.as_deref(), Some("c"));
    assert!(turn[1].content.contains("\"result_id\":\"r1\""));
    assert_eq!(turn[0].tool_call_id.as_deref(), Some("call_3"));
    assert!(turn[0].content.contains("\"result_id\":\"r2\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_is_the_same_bytes_twice_and_from_the_cache_and_reads_back() {
    let tasks = load(&tasks_root(), Split::Public).expect("tasks");
    let reference =
        reference_platform(Split::Public.seed(), reference_day(), DEFAULT_HOUR).expect("platform");
    // A task with a calculator step, so the child process is in the run.
    let task = tasks
        .iter()
        .find(|t| t.steps.iter().any(|s| s.tool == "calculator"))
        .expect("a calculator task");
    let r = replay(task, &reference).expect("replay");
    for protocol in [Protocol::React, Protocol::FunctionCalling] {
        let mut bytes = Vec::new();
        // Twice, and once more served from a cache.
        for cached in [false, false, true] {
            let scripted =
                ScriptedModel::new(Script::Oracle, task, &r, &reference).expect("oracle");
            let from_cache = FromCache(&scripted);
            let model: &dyn Provider = if cached { &from_cache } else { &scripted };
            let platform = child_platform();
            let brief = Brief {
                question: &task.question,
                user_id: platform.world().users()[task.user].id,
                today: reference_day(),
                hour: DEFAULT_HOUR,
            };
            let run = agent::run(
                protocol,
                model,
                platform,
                brief,
                Limits::default(),
                SAMPLING,
            )
            .await
            .expect("run");
            assert_eq!(run.prompt_version, agent::prompt_version(protocol));
            let b = serde_json::to_vec(&run).expect("serialise");
            let back: Run = serde_json::from_slice(&b).expect("read back");
            assert_eq!(back, run);
            bytes.push(b);
        }
        assert_eq!(bytes[0], bytes[1], "{protocol:?}");
        assert_eq!(bytes[0], bytes[2], "{protocol:?} from the cache");
    }
    let p = serde_json::to_string(&Protocol::FunctionCalling).expect("json");
    assert_eq!(p, "\"function-calling\"");
}

fn request_bytes(req: &ChatRequest) -> usize {
    serde_json::to_vec(&req.messages).expect("json").len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_inputs_are_refused_and_cut_output_keeps_its_reason_inside_the_limit() {
    let five_mb = format!("print(1)\n{}", "#".repeat(5 << 20));
    let huge = format!(
        "<plan>compute</plan><tools>{}</tools>",
        tool(
            "calculator",
            &serde_json::json!({ "code": five_mb }).to_string()
        )
    );
    let past_limit = format!("print(1){}", " ".repeat(adfarm_calculator::CODE_CHARS));
    let long_code = format!(
        "<plan>compute</plan><tools>{}{}</tools>",
        list_accounts(),
        tool(
            "calculator",
            &serde_json::json!({ "code": past_limit }).to_string()
        )
    );
    let chatty = format!(
        "<plan>print</plan><tools>{}</tools>",
        tool(
            "calculator",
            r#"{"code": "for i in range(2000):\n    print('row', i, 'x' * 8)"}"#
        )
    );
    let llm = Canned::texts(&[&huge, &long_code, &chatty, &summarize(), "Done."]);
    let limits = Limits::default();
    let run = play(Protocol::React, &llm, limits).await.expect("run");
    assert_eq!(run.end, End::Summarized);

    // 5 MB in one reply: nothing runs, the agent reads the limits, and the
    // reply rides on in the conversation and the record only cut.
    assert_eq!(
        run.turns[0].format_error.as_ref().map(FormatError::code),
        Some("reply-too-long")
    );
    assert!(run.turns[0].text.chars().count() <= agent::turn::MAX_REPLY_CHARS);
    let reqs = llm.requests();
    let refusal = last_user(&reqs[1]);
    assert!(
        refusal.contains(&format!("at most {}", agent::turn::MAX_REPLY_CHARS))
            && refusal.contains("calculator code at most 4000"),
        "{refusal}"
    );
    for r in &reqs {
        assert!(request_bytes(r) < 200_000, "{} bytes", request_bytes(r));
    }

    // A snippet past the calculator's limit is refused unrun, in its observation.
    let refused = &run.episode.observations[1];
    assert_eq!(refused.error_code.as_deref(), Some("tool-failed"));
    assert!(
        refused.text.contains("[refused]") && refused.text.contains("at most 4000"),
        "{}",
        refused.text
    );

    // 34 KB printed: the calculator cuts at 16 KiB, the observation at
    // observation_chars, and the reason is inside what the agent reads.
    let shown = last_user(&reqs[3]);
    let output =
        &shown[shown.find("<OUTPUT>").expect("output") + 8..shown.find("</OUTPUT>").expect("end")];
    assert!(
        output.chars().count() <= limits.observation_chars,
        "{}",
        output.len()
    );
    assert!(
        output.contains("[output cut] output passed 16 KiB"),
        "{output}"
    );
    assert!(output.contains("[observation cut]"), "{output}");

    let stored = serde_json::to_vec(&run).expect("json").len();
    assert!(stored < agent::EPISODE_BYTES, "{stored} bytes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_function_call_is_refused_and_echoed_cut() {
    let five_mb = serde_json::json!({ "code": "#".repeat(5 << 20) }).to_string();
    let llm = Canned::new(vec![
        Ok(completion("", vec![call("a", "calculator", &five_mb)])),
        Ok(completion(
            "",
            vec![call("d", "summarize_results", r#"{"query": "Unresolved"}"#)],
        )),
        Ok(completion("No.", vec![])),
    ]);
    let run = play(Protocol::FunctionCalling, &llm, Limits::default())
        .await
        .expect("run");
    assert_eq!(
        run.turns[0].format_error.as_ref().map(FormatError::code),
        Some("reply-too-long")
    );
    let reqs = llm.requests();
    let echoed = &reqs[1].messages[reqs[1].messages.len() - 2];
    assert_eq!(echoed.tool_calls.len(), 1);
    assert!(echoed.tool_calls[0].arguments.chars().count() <= agent::turn::MAX_ARGUMENT_CHARS);
    let answer = &reqs[1].messages[reqs[1].messages.len() - 1];
    assert!(
        answer.content.contains("reply-too-long"),
        "{}",
        answer.content
    );
    assert!(request_bytes(&reqs[1]) < 100_000);
    assert!(serde_json::to_vec(&run).expect("json").len() < agent::EPISODE_BYTES);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_episode_that_stores_past_its_bound_ends_at_the_store_limit() {
    let long = format!("<plan>{}</plan>", "thinking ".repeat(6_000));
    let turns: Vec<&str> = (0..40).map(|_| long.as_str()).collect();
    let llm = Canned::texts(&turns);
    let limits = Limits {
        max_turns: 40,
        ..Limits::default()
    };
    let run = play(Protocol::React, &llm, limits).await.expect("run");
    assert_eq!(run.end, End::StoreLimit);
    assert!(run.turns.len() < 40);
    assert_eq!(run.episode.final_text, "");
    let stored = serde_json::to_vec(&run).expect("json").len();
    assert!(
        stored > agent::EPISODE_BYTES && stored < 2 * agent::EPISODE_BYTES,
        "{stored} bytes"
    );
}
