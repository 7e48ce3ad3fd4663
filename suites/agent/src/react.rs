//! The paper's ReAct tags, both ways: reading a reply's `<plan>` and its
//! `<tools>` block, writing a turn (scripted models), and writing the
//! `<tool_res>` entries and corrections the agent reads back.
//!
//! An entry of the block is written in either of two forms, mixed freely:
//! tagged, `<tool><TOOL_NAME>…</TOOL_NAME><INPUT>{…}</INPUT></tool>`, or the
//! paper's lines, `TOOL_NAME: name` then `INPUT: {…}` (the JSON may run
//! over several lines, up to the next entry or the block's end). Entries
//! count only inside the one `<tools>` block: the block is what tells a
//! call from prose, so an entry written outside it is a malformed turn
//! with a correction saying so, never silently a tool-less one.

use std::fmt::Write as _;

use adfarm_llm::Tool;

use crate::turn::{Call, FormatError, RawCall};
use crate::Observed;

/// Stop string of ReAct turns: a model that goes on to write the results
/// itself is cut there, before it invents them.
pub const STOP: &str = "<tool_res>";

/// A well-formed reply: its plan and the calls it writes (none for a
/// tool-less turn).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The text inside `<plan>`.
    pub plan: String,
    /// The `<tool>` entries, in order.
    pub calls: Vec<RawCall>,
}

/// The text between `open` and its `close` at or after `from`: (start of
/// the open tag, inner text, end of the close tag).
fn element<'t>(
    text: &'t str,
    from: usize,
    open: &str,
    close: &str,
) -> Option<Result<(usize, &'t str, usize), FormatError>> {
    let start = from + text[from..].find(open)?;
    let inner = start + open.len();
    Some(match text[inner..].find(close) {
        Some(n) => Ok((start, &text[inner..inner + n], inner + n + close.len())),
        None => Err(FormatError::Unclosed {
            tag: open.trim_matches(['<', '>']).to_string(),
        }),
    })
}

/// Opens an entry in the paper's line form.
const NAME_LINE: &str = "TOOL_NAME:";
/// Opens the arguments of a line-form entry.
const INPUT_LINE: &str = "INPUT:";

/// True when a line of `text` opens a call entry in either form.
fn has_entry(text: &str) -> bool {
    text.contains("<tool>") || text.lines().any(|l| l.trim_start().starts_with(NAME_LINE))
}

/// Where the entry after `from` in `body` starts: the first line opening
/// an entry, or the end of the body.
fn next_entry(body: &str, from: usize) -> usize {
    let mut at = from;
    while let Some(n) = body[at..].find('\n') {
        at += n + 1;
        let line = body[at..].trim_start_matches([' ', '\t']);
        if line.starts_with(NAME_LINE) || line.starts_with("<tool>") {
            return at;
        }
    }
    body.len()
}

/// Reads the line-form entry `n` starting at `at` in `body` (which starts
/// with [`NAME_LINE`] there): the call and where the next entry starts.
fn line_entry(body: &str, at: usize, n: usize) -> Result<(RawCall, usize), FormatError> {
    let name_at = at + NAME_LINE.len();
    let line_end = body[name_at..]
        .find('\n')
        .map_or(body.len(), |i| name_at + i);
    let name = body[name_at..line_end].trim().to_string();
    let end = next_entry(body, at);
    let rest = &body[line_end..end];
    let Some(input) = rest.trim_start().strip_prefix(INPUT_LINE) else {
        return Err(FormatError::MissingInput { entry: n, name });
    };
    Ok((
        RawCall {
            name,
            input: input.trim().to_string(),
        },
        end,
    ))
}

/// Reads one ReAct reply.
///
/// # Errors
/// A [`FormatError`]: no plan, an unclosed tag, `<tools>` before the plan
/// or twice, text between entries, an entry without its name or input, an
/// entry outside the `<tools>` block.
pub fn parse(text: &str) -> Result<Reply, FormatError> {
    let (plan_at, plan, after_plan) =
        element(text, 0, "<plan>", "</plan>").ok_or(FormatError::NoPlan)??;
    if text[..plan_at].contains("<tools>") {
        return Err(FormatError::ToolsBeforePlan);
    }
    let Some(block) = element(text, after_plan, "<tools>", "</tools>") else {
        if has_entry(&text[..plan_at]) || has_entry(&text[after_plan..]) {
            return Err(FormatError::EntriesOutsideTools);
        }
        return Ok(Reply {
            plan: plan.trim().to_string(),
            calls: Vec::new(),
        });
    };
    let (block_at, body, after_block) = block?;
    if text[after_block..].contains("<tools>") {
        return Err(FormatError::SecondTools);
    }
    if has_entry(&text[..plan_at])
        || has_entry(&text[after_plan..block_at])
        || has_entry(&text[after_block..])
    {
        return Err(FormatError::EntriesOutsideTools);
    }
    let mut calls = Vec::new();
    let mut at = 0;
    loop {
        let rest = &body[at..];
        let lead = rest.len() - rest.trim_start().len();
        if rest.trim().is_empty() {
            break;
        }
        let n = calls.len() + 1;
        if rest[lead..].starts_with(NAME_LINE) {
            let (call, end) = line_entry(body, at + lead, n)?;
            calls.push(call);
            at = end;
            continue;
        }
        if !rest[lead..].starts_with("<tool>") {
            return Err(FormatError::StrayText {
                text: rest.trim().chars().take(40).collect(),
            });
        }
        let (_, entry, end) =
            element(body, at + lead, "<tool>", "</tool>").expect("starts with <tool>")?;
        let field = |tag: &str| -> Result<String, FormatError> {
            let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
            match element(entry, 0, &open, &close) {
                None => Err(FormatError::MissingTag {
                    entry: n,
                    tag: tag.to_string(),
                }),
                Some(r) => r.map(|(_, inner, _)| inner.trim().to_string()),
            }
        };
        calls.push(RawCall {
            name: field("TOOL_NAME")?,
            input: field("INPUT")?,
        });
        at = end;
    }
    Ok(Reply {
        plan: plan.trim().to_string(),
        calls,
    })
}

/// A turn in the paper's form: the plan, then the calls (no `<tools>`
/// block when there are none).
pub fn write(plan: &str, calls: &[Call]) -> String {
    let mut out = format!("<plan>{plan}</plan>");
    if !calls.is_empty() {
        out.push_str("\n<tools>\n");
        for c in calls {
            let _ = writeln!(
                out,
                "<tool><TOOL_NAME>{}</TOOL_NAME><INPUT>{}</INPUT></tool>",
                c.tool, c.args
            );
        }
        out.push_str("</tools>");
    }
    out
}

/// Appends the tag protocol to a system prompt: how to write a turn, then
/// every tool with its JSON Schema (a `# Tools` section).
pub fn instructions(out: &mut String, max_calls: u32, tools: &[Tool]) {
    let _ = write!(
        out,
        "
# How to reply
Each turn, write your plan, then the tool calls to make now, exactly in this form:
<plan>what you know so far and what you do next</plan>
<tools>
<tool><TOOL_NAME>a tool's name</TOOL_NAME><INPUT>{{\"argument\": \"value\"}}</INPUT></tool>
</tools>
- INPUT is one JSON object holding the tool's arguments, as its schema below says.
- Inside <tools>, an entry may also be written as two lines, TOOL_NAME: a tool's name, then \
INPUT: the JSON object (which may run over several lines). Entries outside <tools> do not run.
- The calls of one <tools> block run together, in order, before you see any result: put \
in one turn only calls that do not need each other's results. At most {max_calls} calls a turn.
- The results come back in one message of <tool_res> entries, one per call, in the order of \
your calls, each with its result id.
- A reply that breaks this form runs nothing and still uses a turn.

# Tools
",
    );
    for t in tools {
        let _ = write!(
            out,
            "\n## {}\n{}\nINPUT schema: {}\n",
            t.name, t.description, t.parameters
        );
    }
}

/// The user message answering a turn's calls: one `<tool_res>` per call,
/// in order, each observation cut to `max_chars`.
pub fn results<O: Observed>(observations: &[O], max_chars: usize) -> String {
    let mut out = String::new();
    for o in observations {
        let _ = writeln!(
            out,
            "<tool_res><TOOL_NAME>{}</TOOL_NAME><RESULT_ID>{}</RESULT_ID><OUTPUT>{}</OUTPUT></tool_res>",
            o.tool(),
            o.result_id().unwrap_or("none"),
            o.shown(max_chars)
        );
    }
    out.pop();
    out
}

/// The user message answering a malformed turn.
pub fn rejected(e: &FormatError) -> String {
    format!(
        "<format_error>{e}</format_error>\nNothing was run. Reply with <plan>…</plan> and one \
<tools> block of <tool><TOOL_NAME>…</TOOL_NAME><INPUT>{{…}}</INPUT></tool> entries, or of \
entries written as a TOOL_NAME: line then an INPUT: line."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_written_turn_reads_back_as_its_calls() {
        let calls = vec![
            Call {
                tool: "search".into(),
                args: json!({"query": "ctr <plan>"}),
            },
            Call {
                tool: "get_user_account_list".into(),
                args: json!({"user_id": 7, "page_size": 100}),
            },
        ];
        let r = parse(&write("look it up", &calls)).expect("well-formed");
        assert_eq!(r.plan, "look it up");
        let back: Vec<Call> = r
            .calls
            .iter()
            .map(|c| Call {
                tool: c.name.clone(),
                args: serde_json::from_str(&c.input).expect("json"),
            })
            .collect();
        assert_eq!(back, calls);
        let none = parse(&write("think first", &[])).expect("well-formed");
        assert!(none.calls.is_empty());
    }

    #[test]
    fn line_entries_read_up_to_the_next_entry_or_the_blocks_end() {
        let text =
            "<plan>p</plan>\n<tools>\nTOOL_NAME: calculator\nINPUT: {\"code\":\n  \"print(1)\"}\n\
<tool><TOOL_NAME>search</TOOL_NAME><INPUT>{}</INPUT></tool>\n\tTOOL_NAME:  summarize_results \n\n\
INPUT:\n{\"query\": \"Resolved\"}\n</tools>";
        let r = parse(text).expect("well-formed");
        let got: Vec<(&str, &str)> = r
            .calls
            .iter()
            .map(|c| (c.name.as_str(), c.input.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("calculator", "{\"code\":\n  \"print(1)\"}"),
                ("search", "{}"),
                ("summarize_results", "{\"query\": \"Resolved\"}"),
            ]
        );
        assert_eq!(
            parse("<plan>p</plan><tools>TOOL_NAME: search</tools>"),
            Err(FormatError::MissingInput {
                entry: 1,
                name: "search".into()
            })
        );
        assert_eq!(
            parse("TOOL_NAME: search\nINPUT: {}\n<plan>p</plan>"),
            Err(FormatError::EntriesOutsideTools)
        );
    }
}
