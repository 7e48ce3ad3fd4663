//! The optional LLM judge: stage `judge`, one job per scored episode and
//! judge, on the model lane, declared when the sweep lists `judges`.
//!
//! The prompt asks six yes/no questions of our own wording, not the
//! paper's, one per failure label of its taxonomy (TE PE IF CE Hal LC),
//! and the judge answers with one forced `record_verdict` call (so a
//! local model's constrained decoder always writes a readable verdict; a
//! remote model gets the provider's one re-ask, then its verdict counts as
//! unreadable). The deterministic checks stay the score: the judge is a
//! second opinion, and the report sets its answers against the checks'
//! labels with Cohen's κ.
//!
//! The judge also says whether the final answer is right: the LLM grader
//! of correctness. The rules' grade stays the score (Pass@k); where the
//! rules found an answer ambiguous (the reference beside a conflicting
//! candidate), the report shows a second accuracy in which the judge
//! decides those answers, recorded under the judge's name.

use std::collections::BTreeSet;

use adfarm_llm::{ChatRequest, Completion, Message, Provider, Tool, ToolChoice};
use adfarm_proto::{Stage, SOLVE};
use adfarm_suite::{JobError, StageOutput};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::dataset::Setting;
use super::stages::{data, read, score, to_output, Job, Scored, REPLAY, SCORE};
use crate::agent::{End, Run};
use crate::replay::Replay;
use crate::scoring::Label;
use crate::tasks::Tier;
use crate::tools::Call;

/// The stage's name.
pub const JUDGE: &str = "judge";

/// Version of the judge prompt, kept with every verdict.
pub const JUDGE_PROMPT_VERSION: &str = "adbench-judge-v2";

/// Score metric: the judge gave a readable verdict (100) or not (0).
pub const JUDGED: &str = "judged";

/// The tool the judge answers with.
const VERDICT_TOOL: &str = "record_verdict";

/// The verdict's field for the answer's correctness.
const CORRECT_FIELD: &str = "Correct";

/// Its question.
pub(super) const CORRECT_QUESTION: &str =
    "Correct: the final answer gives the reference answer (the \
same value, sign, ids or choice, in any wording); an answer listing many candidates is not \
correct.";

/// Score metric: the judge says the answer is right (100) or not (0).
pub const JUDGE_CORRECT: &str = "judge-correct";

/// Characters of each observation the judge sees: enough for the numbers
/// of a small result, short enough that a long episode fits a small
/// model's context.
const OBSERVATION_CHARS: usize = 300;

/// Calls of the agent's episode shown; the rest are counted.
const MAX_CALLS_SHOWN: usize = 24;

/// Characters of the agent's final answer shown.
const ANSWER_CHARS: usize = 600;

/// The judge's metric for `label`: 100 when it says the episode shows it.
pub fn judge_metric(label: Label) -> String {
    format!("judge-{label:?}")
}

/// The stage for `judges`: it reads the replay, the episode and its score.
pub fn stage(judges: &[String]) -> Stage {
    let mut s = Stage::per_judge(JUDGE, judges);
    s.after = vec![REPLAY.into(), SOLVE.into(), SCORE.into()];
    s
}

/// What `judge` keeps: the judge's labels beside the checks' labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    /// Task id.
    pub task: String,
    /// Its tier.
    pub tier: Tier,
    /// The prompt the judge answered.
    pub prompt_version: String,
    /// Labels the judge says the episode shows; `None` when its reply held
    /// no readable verdict.
    pub verdict: Option<BTreeSet<Label>>,
    /// Labels the deterministic checks gave.
    pub checks: BTreeSet<Label>,
    /// The judge's grade of the answer, with a readable verdict.
    #[serde(default)]
    pub correct: Option<bool>,
    /// The rules' grade of the answer.
    #[serde(default)]
    pub rules_correct: bool,
    /// The rules found the answer ambiguous.
    #[serde(default)]
    pub ambiguous: bool,
}

/// What a readable verdict says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Labels the episode shows.
    pub labels: BTreeSet<Label>,
    /// The answer is right.
    pub correct: bool,
}

/// The verdict tool: one required boolean per label.
fn verdict_tool() -> Tool {
    let mut properties = Map::new();
    for (l, question) in Label::ALL.iter().zip(QUESTIONS) {
        properties.insert(
            format!("{l:?}"),
            json!({"type": "boolean", "description": question}),
        );
    }
    properties.insert(
        CORRECT_FIELD.into(),
        json!({"type": "boolean", "description": CORRECT_QUESTION}),
    );
    let required: Vec<String> = Label::ALL
        .iter()
        .map(|l| format!("{l:?}"))
        .chain([CORRECT_FIELD.to_string()])
        .collect();
    Tool {
        name: VERDICT_TOOL.into(),
        description: "Record whether the agent's episode shows each failure, and whether its \
                      answer is right."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        }),
    }
}

/// One question per label, in [`Label::ALL`] order: the same definitions
/// the deterministic checks implement, so κ compares like with like.
pub(super) const QUESTIONS: [&str; 6] = [
    "Tool error: a needed tool was never called, a tool the question does not need was \
     called, or an account-scoped tool ran before get_user_account_list gave the ids.",
    "Parameter error: a call was rejected for its arguments, or its key arguments (ids, \
     dates, grouping, fields) are not what the question needs.",
    "Instruction error: a turn ended without a tool call before the episode ended, or a \
     constraint stated in the question was ignored.",
    "Computation error: the calculator failed, or the agent had the right data and still \
     reached a wrong result.",
    "Hallucination: the final answer states a number found in no tool result.",
    "Long context: the conversation ran out of context, or the episode is over twice the \
     reference's length with repeated calls.",
];

const SYSTEM: &str = "You review one episode of an advertising-analytics agent. The agent \
answered a user's question by calling the ad platform's tools; an expert's reference \
trajectory for the same question on the same data is shown for comparison. A different \
but valid path is not an error. Judge only what the episode shows, then call \
record_verdict once with true for each failure the episode shows and false for the others, \
and with Correct true when the final answer gives the reference answer.";

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push('…');
    out
}

fn call_line(i: usize, c: &Call) -> String {
    format!("{}. {}({})", i + 1, c.tool, c.args)
}

/// The question with the day and hour it was asked on.
pub fn question_line(date: &str, hour: u8, question: &str) -> String {
    format!("Question (asked on {date}, data up to hour {hour} of that day): {question}")
}

/// The case's opening: the question as the agent was asked it, the
/// reference trajectory and the reference answer.
pub fn case_opening(date: &str, hour: u8, question: &str, reference: &Replay) -> String {
    let mut case = format!(
        "{}\n\nReference trajectory:\n",
        question_line(date, hour, question)
    );
    for (i, c) in reference.calls.iter().enumerate() {
        case.push_str(&call_line(i, c));
        case.push('\n');
    }
    case.push_str(&format!(
        "Reference answer: {}\n",
        crate::scripted::answer_text(reference.answer.as_ref())
    ));
    case
}

/// The agent's episode as the judge reads it: its calls with their cut
/// observations, how it ended, and its final answer.
pub fn episode_text(run: &Run) -> String {
    let ep = &run.episode;
    let mut case = format!(
        "Agent's episode: {} calls, {} turn(s) without a tool call{}.\n",
        ep.calls.len(),
        ep.toolless_turns,
        match run.end {
            End::ContextOverflow => ", ran out of context",
            End::TurnLimit => ", stopped at the turn limit",
            End::StoreLimit => ", stopped at the episode's size limit",
            End::Summarized => "",
        }
    );
    for (i, (c, o)) in ep
        .calls
        .iter()
        .zip(&ep.observations)
        .enumerate()
        .take(MAX_CALLS_SHOWN)
    {
        case.push_str(&call_line(i, c));
        match &o.error_code {
            Some(code) => case.push_str(&format!(" -> error {code}: ")),
            None => case.push_str(" -> "),
        }
        case.push_str(&cut(&o.text, OBSERVATION_CHARS));
        for f in &o.flags {
            case.push_str(&format!(" [flagged: {}]", f.detail));
        }
        case.push('\n');
    }
    if ep.calls.len() > MAX_CALLS_SHOWN {
        case.push_str(&format!(
            "... {} more calls\n",
            ep.calls.len() - MAX_CALLS_SHOWN
        ));
    }
    case.push_str(&format!(
        "Agent's final answer: {}\n",
        cut(&ep.final_text, ANSWER_CHARS)
    ));
    case
}

/// The judge's request for one episode.
pub fn request(setting: &Setting, reference: &Replay, run: &Run) -> ChatRequest {
    let case = format!(
        "{}\n{}",
        case_opening(
            &setting.date.to_string(),
            setting.hour,
            &setting.task.question,
            reference
        ),
        episode_text(run)
    );
    let mut req = ChatRequest::new(vec![Message::system(SYSTEM), Message::user(case)]);
    req.max_tokens = 96;
    req.tools = vec![verdict_tool()];
    req.tool_choice = Some(ToolChoice::Tool(VERDICT_TOOL.into()));
    req
}

/// What a reply says of the episode: from the verdict call, or from a
/// JSON object in the text when a server ignored `tool_choice`. `None`
/// unless every label and `Correct` has a boolean.
pub fn verdict(reply: &Completion) -> Option<Verdict> {
    let args = reply
        .tool_calls
        .iter()
        .find(|c| c.name == VERDICT_TOOL)
        .map(|c| c.arguments.as_str())
        .unwrap_or(reply.text.trim());
    let v: Map<String, Value> = serde_json::from_str(args).ok()?;
    let mut shown = BTreeSet::new();
    for l in Label::ALL {
        if v.get(&format!("{l:?}"))?.as_bool()? {
            shown.insert(l);
        }
    }
    Some(Verdict {
        labels: shown,
        correct: v.get(CORRECT_FIELD)?.as_bool()?,
    })
}

/// Runs one judge job: inputs are the replay, the episode and its score.
///
/// # Errors
/// No provider for the job, unreadable inputs, or the judge's call failing.
pub async fn run(job: &Job, llm: Option<&dyn Provider>) -> Result<StageOutput, JobError> {
    let llm = llm.ok_or_else(|| data("judges", "the judge stage has no provider".into()))?;
    let setting = Setting::of(&job.item)?;
    let reference: Replay = read(job, 0)?;
    let run: Run = read(job, 1)?;
    let scored: Scored = read(job, 2)?;
    let reply = llm
        .chat(&request(&setting, &reference, &run))
        .await
        .map_err(JobError::Llm)?;
    let verdict = verdict(&reply);
    let mut scores = vec![score(JUDGED, if verdict.is_some() { 100.0 } else { 0.0 })];
    if let Some(v) = &verdict {
        scores.extend(Label::ALL.iter().map(|l| {
            score(
                &judge_metric(*l),
                if v.labels.contains(l) { 100.0 } else { 0.0 },
            )
        }));
        scores.push(score(JUDGE_CORRECT, if v.correct { 100.0 } else { 0.0 }));
    }
    let kept = Judged {
        task: scored.task,
        tier: scored.tier,
        prompt_version: JUDGE_PROMPT_VERSION.into(),
        correct: verdict.as_ref().map(|v| v.correct),
        verdict: verdict.map(|v| v.labels),
        checks: scored.labels.into_iter().collect(),
        rules_correct: scored.correct,
        ambiguous: scored.ambiguous,
    };
    Ok(StageOutput {
        output: to_output(reply.text, &kept),
        scores,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use adfarm_llm::ToolCall;
    use adfarm_proto::{Role, Usage, UsageSource};

    fn reply(text: &str, call: Option<&str>) -> Completion {
        Completion {
            text: text.into(),
            tool_calls: call
                .map(|args| ToolCall {
                    id: "c1".into(),
                    name: VERDICT_TOOL.into(),
                    arguments: args.into(),
                })
                .into_iter()
                .collect(),
            usage: Usage {
                model: "judge".into(),
                role: Role::Judge,
                input: 0,
                output: 0,
                cached: false,
                source: UsageSource::Counted,
                latency_ms: 0,
            },
        }
    }

    #[test]
    fn a_verdict_names_the_labels_answered_true() {
        let args = r#"{"TE": true, "PE": false, "IF": false, "CE": false, "Hal": true, "LC": false, "Correct": false}"#;
        let v = verdict(&reply("", Some(args))).expect("readable");
        assert_eq!(v.labels, BTreeSet::from([Label::TE, Label::Hal]));
        assert!(!v.correct);
        // A server that ignored tool_choice and answered in text.
        assert_eq!(verdict(&reply(args, None)), Some(v));
    }

    #[test]
    fn a_verdict_missing_a_label_or_not_boolean_is_unreadable() {
        let missing = r#"{"TE": true, "PE": false, "IF": false, "CE": false, "Hal": true}"#;
        assert_eq!(verdict(&reply("", Some(missing))), None);
        let no_grade =
            r#"{"TE": true, "PE": false, "IF": false, "CE": false, "Hal": true, "LC": false}"#;
        assert_eq!(verdict(&reply("", Some(no_grade))), None);
        let text =
            r#"{"TE": "yes", "PE": false, "IF": false, "CE": false, "Hal": true, "LC": false}"#;
        assert_eq!(verdict(&reply("", Some(text))), None);
        assert_eq!(verdict(&reply("TE: yes", None)), None);
    }

    #[test]
    fn the_verdict_tool_asks_every_label_and_the_grade_once() {
        let t = verdict_tool();
        let required = t.parameters["required"].as_array().expect("required");
        assert_eq!(required.len(), 7);
        assert_eq!(t.parameters["properties"][CORRECT_FIELD]["type"], "boolean");
        for l in Label::ALL {
            assert_eq!(
                t.parameters["properties"][format!("{l:?}")]["type"],
                "boolean"
            );
        }
    }

    #[test]
    fn the_judge_reads_the_question_and_reference_then_the_episode() {
        use crate::agent::{Protocol, Tokens};
        use crate::replay::Answer;
        use crate::scoring::Episode;
        use crate::tasks::Split;
        use crate::tools::{Call, Observation};
        use crate::world::Day;

        let task = super::super::dataset::Params::read(&json!({"tasks": ["L1-001"]}))
            .and_then(|p| p.select())
            .expect("a shipped task")
            .remove(0);
        let question = task.question.clone();
        let setting = Setting {
            task,
            split: Split::Public,
            date: Day::parse("2026-07-25").expect("a date"),
            hour: 12,
            strict: false,
        };
        let call = Call {
            tool: "get_report".into(),
            args: json!({"date": "yesterday"}),
        };
        let reference = Replay {
            task: "L1-001".into(),
            calls: vec![call.clone()],
            observations: vec![],
            outcome: None,
            answer: Some(Answer::Number(42.5)),
        };
        let run = Run {
            protocol: Protocol::React,
            prompt_version: "v".into(),
            episode: Episode {
                calls: vec![call],
                observations: vec![Observation {
                    tool: "get_report".into(),
                    result_id: None,
                    text: r#"{"spend": 40}"#.into(),
                    error_code: None,
                    flags: vec![],
                    ended: false,
                }],
                flags: vec![],
                outcome: None,
                final_text: "We spent 40.".into(),
                toolless_turns: 0,
                context_overflow: false,
            },
            turns: vec![],
            usage: Tokens::default(),
            end: End::TurnLimit,
        };
        let req = request(&setting, &reference, &run);
        assert_eq!(
            req.messages[1].content,
            format!(
                "Question (asked on 2026-07-25, data up to hour 12 of that day): {question}\n\n\
                 Reference trajectory:\n1. get_report({{\"date\":\"yesterday\"}})\n\
                 Reference answer: The answer is 42.5.\n\n\
                 Agent's episode: 1 calls, 0 turn(s) without a tool call, stopped at the turn \
                 limit.\n1. get_report({{\"date\":\"yesterday\"}}) -> {{\"spend\": 40}}\n\
                 Agent's final answer: We spent 40.\n"
            )
        );
    }
}
