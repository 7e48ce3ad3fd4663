//! The benchmark's prompt protocol: the system prompts of both protocols,
//! what the agent is told after each turn, and the closing question. Every
//! word here changes what a model does, so a score names the version it
//! was measured under ([`REACT_PROMPT_VERSION`], [`FC_PROMPT_VERSION`]):
//! change the text, bump the version.

use std::fmt::Write as _;

use adfarm_llm::{ChatRequest, Speaker, Tool};

use super::{function_calling, react, Brief, Limits};
use crate::tools::spec::{GET_USER_ACCOUNT_LIST, SUMMARIZE_RESULTS};

/// Version of the ReAct prompt protocol (tags, system prompt, replies).
pub const REACT_PROMPT_VERSION: &str = "adbench-react-v2";

/// Version of the function-calling prompt protocol.
pub const FC_PROMPT_VERSION: &str = "adbench-fc-v2";

/// The request for the final answer, after `summarize_results`. Agents
/// (and scripted models) recognise the closing call by it: the last
/// message ends with it.
pub const FINAL_ANSWER: &str = "The episode has ended. Now write your final answer to the \
question in plain text, without tags or tool calls: give the answer itself (the number, the \
ids, yes or no, or the option), then one sentence on how you got it. Use only figures you \
read in tool results.";

/// What a ReAct agent is told after a reply without a call.
pub const REACT_NO_CALL: &str = "Your reply called no tool. Write <plan>…</plan> and a <tools> \
block with the calls you need; when you have the answer, call summarize_results.";

/// What a function-calling agent is told after a reply without a call.
pub const NO_CALL: &str = "Your reply called no tool. Call the tools you need; when you have \
the answer, call summarize_results.";

const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// True when `req` is an episode's closing call (asking for the final answer).
pub fn asks_final_answer(req: &ChatRequest) -> bool {
    req.messages
        .last()
        .is_some_and(|m| m.role == Speaker::User && m.content.ends_with(FINAL_ANSWER))
}

/// What every episode of a protocol is told alike: the role and the
/// platform's rules. It opens the system prompt, so every episode's prompt
/// starts with the same tokens (a local model prefills them once).
fn rules(out: &mut String, limits: &Limits) {
    let _ = write!(
        out,
        "You are an advertising analytics assistant. An advertiser asks you a question about \
their ads, and you answer it from the data of the ad platform, which you reach only through \
its tools.

# Rules
- Dates in the question are relative to today (given below). Write dates as YYYY-MM-DD.
- Data for today covers only the hours completed so far; full days end yesterday.
- A question that names no account is about all of the advertiser's accounts.
- Account ids come only from {list}: call it before any tool that takes an account id, and \
never guess an id.
- Every successful tool result gets an id (r1, r2, ...). In the calculator, earlier results \
are variables of those names, holding the parsed JSON. Do every computation with the \
calculator, never in your head, and print the value you need.
- Results longer than {chars} characters are cut; ask for a smaller page_size or the next \
page.
- You have at most {turns} turns. When you have the answer, call {summarize} with \
{{\"query\": \"Resolved\"}}; if the platform cannot provide what the question needs, call it \
with {{\"query\": \"Unresolved\"}}. You are then asked for your final answer.
",
        list = GET_USER_ACCOUNT_LIST,
        chars = limits.observation_chars,
        turns = limits.max_turns,
        summarize = SUMMARIZE_RESULTS,
    );
}

/// What differs per episode: who the agent works for and when it is. It
/// closes the system prompt.
fn situation(out: &mut String, brief: &Brief<'_>) {
    let today = brief.today;
    let monday = today.plus(-(today.weekday() as i32));
    let _ = write!(
        out,
        "
# Situation
- The advertiser's user_id is {user}. Pass it wherever a tool takes a user_id.
- Today is {today} ({weekday}) and it is {hour:02}:00: yesterday is {yesterday}, this week \
began on Monday {monday}, last week ran from {last_monday} to {last_sunday}.
",
        user = brief.user_id,
        today = today,
        weekday = WEEKDAYS[today.weekday()],
        hour = brief.hour,
        yesterday = today.plus(-1),
        monday = monday,
        last_monday = monday.plus(-7),
        last_sunday = monday.plus(-1),
    );
}

/// The ReAct system prompt: the rules, the tag protocol, every tool with
/// its JSON Schema, then the episode's situation.
pub fn react_system(brief: &Brief<'_>, limits: &Limits, tools: &[Tool]) -> String {
    let mut out = String::new();
    rules(&mut out, limits);
    react::instructions(&mut out, limits.max_calls_per_turn, tools);
    situation(&mut out, brief);
    out
}

/// The function-calling system prompt: the rules, then the episode's
/// situation; the tools travel as the request's `tools`.
pub fn function_calling_system(brief: &Brief<'_>, limits: &Limits) -> String {
    let mut out = String::new();
    rules(&mut out, limits);
    function_calling::instructions(&mut out, limits.max_calls_per_turn);
    situation(&mut out, brief);
    out
}

/// The question, as the first user message.
pub fn question(brief: &Brief<'_>) -> String {
    format!("Question: {}", brief.question)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::specs;
    use crate::world::Day;

    fn brief() -> Brief<'static> {
        Brief {
            question: "How much did I spend yesterday?",
            user_id: 4242,
            today: Day::parse("2026-07-25").expect("date"),
            hour: 12,
        }
    }

    #[test]
    fn the_react_prompt_states_the_user_dates_limits_and_every_schema() {
        let tools = specs();
        let p = react_system(&brief(), &Limits::default(), &tools);
        // 2026-07-25 is a Saturday.
        for needle in [
            "user_id is 4242",
            "Today is 2026-07-25 (Saturday) and it is 12:00: yesterday is 2026-07-24",
            "this week began on Monday 2026-07-20",
            "last week ran from 2026-07-13 to 2026-07-19",
            "cut",
            "6000 characters",
            "at most 12 turns",
            "At most 8 calls a turn",
            "<TOOL_NAME>",
            "TOOL_NAME: a tool's name",
            "names no account is about all of the advertiser's accounts",
        ] {
            assert!(p.contains(needle), "{needle:?} missing from:\n{p}");
        }
        for t in &tools {
            assert!(p.contains(&format!("## {}\n{}\n", t.name, t.description)));
            assert!(p.contains(&t.parameters.to_string()), "{}", t.name);
        }
        let fc = function_calling_system(&brief(), &Limits::default());
        assert!(fc.contains("user_id is 4242") && !fc.contains("<TOOL_NAME>"));
        assert!(fc.contains("names no account is about all of the advertiser's accounts"));
        // Episodes differ only after the shared part, so a local model
        // prefills that once for all of them.
        let other = Brief {
            user_id: 77,
            today: Day::parse("2026-09-08").expect("date"),
            ..brief()
        };
        let q = react_system(&other, &Limits::default(), &tools);
        let shared = p.bytes().zip(q.bytes()).take_while(|(a, b)| a == b).count();
        assert!(shared >= p.find("# Situation").expect("a situation"));
        assert!(
            shared as f64 > 0.9 * p.len() as f64,
            "{shared} of {}",
            p.len()
        );
    }
}
