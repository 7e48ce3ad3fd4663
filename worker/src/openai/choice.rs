//! Closed choice over an OpenAI-compatible server: constrain the reply to
//! the options where the server can, map the reply to an option where it
//! cannot, and re-ask once before answering "none of them".

use super::client::{sum_usage, OpenAiClient};
use super::wire::Constraint;
use adfarm_llm::{ChatRequest, Choice, Completion, LlmError, Message};
use serde_json::Value;

impl OpenAiClient {
    /// Asks with `guided_choice` and a JSON-schema enum of `options`, maps
    /// the reply to an option (see [`match_option`]), and re-asks once with
    /// the options listed if nothing matched. A server that rejects
    /// `guided_choice` with 400/422 (OpenAI) is asked again with the schema
    /// alone. Never picks an option the model did not name. A choice is
    /// text: tool calls of its replies are dropped.
    ///
    /// # Errors
    /// As one chat call; [`LlmError::Config`] for no options.
    pub(super) async fn choose_among(
        &self,
        req: &ChatRequest,
        options: &[String],
    ) -> Result<Choice, LlmError> {
        if options.is_empty() {
            return Err(LlmError::Config("choose needs at least one option".into()));
        }
        let mut constraint = Constraint::Full;
        let mut first = match self.complete(req, options, constraint).await {
            Err(LlmError::Status {
                status: 400 | 422, ..
            }) => {
                tracing::debug!(model = %self.model(), "Server rejected guided_choice; asking with the JSON schema alone.");
                constraint = Constraint::SchemaOnly;
                self.complete(req, options, constraint).await?
            }
            other => other?,
        };
        first.tool_calls.clear();
        if let Some(index) = match_option(&first.text, options) {
            return Ok(Choice {
                index: Some(index),
                completion: first,
            });
        }
        let mut again = req.clone();
        again.messages.push(Message::assistant(first.text.clone()));
        again
            .messages
            .push(Message::user(corrective_prompt(options)));
        let second = self.complete(&again, options, constraint).await?;
        Ok(Choice {
            index: match_option(&second.text, options),
            completion: Completion {
                text: second.text,
                tool_calls: vec![],
                usage: sum_usage(&first.usage, &second.usage),
            },
        })
    }
}

fn corrective_prompt(options: &[String]) -> String {
    let list: Vec<String> = options.iter().map(|o| format!("- {o}")).collect();
    format!(
        "Your answer did not name one of the options. Answer with exactly one of these options and nothing else:\n{}",
        list.join("\n")
    )
}

/// Maps a reply to an option: the `choice` of a JSON reply or the reply
/// itself, compared exactly, then case-insensitively after trimming spaces,
/// quotes and final punctuation, then as the one option the reply contains
/// (as whole words).
/// `None` when nothing or more than one option fits.
pub fn match_option(reply: &str, options: &[String]) -> Option<usize> {
    let answer = match serde_json::from_str::<Value>(reply.trim()) {
        Ok(Value::String(s)) => s,
        Ok(Value::Object(o)) => match o.get("choice") {
            Some(Value::String(s)) => s.clone(),
            _ => reply.to_string(),
        },
        _ => reply.to_string(),
    };
    if let Some(i) = options.iter().position(|o| *o == answer) {
        return Some(i);
    }
    let norm = |s: &str| {
        s.trim()
            .trim_matches(|c: char| c == '"' || c == '\'' || c == '`')
            .trim_end_matches(['.', '!', ','])
            .trim()
            .to_lowercase()
    };
    let unique = |hits: Vec<usize>| (hits.len() == 1).then(|| hits[0]);
    let wanted = norm(&answer);
    let equal: Vec<usize> = (0..options.len())
        .filter(|&i| norm(&options[i]) == wanted)
        .collect();
    if let Some(i) = unique(equal) {
        return Some(i);
    }
    let haystack = answer.to_lowercase();
    let contained: Vec<usize> = (0..options.len())
        .filter(|&i| {
            let o = norm(&options[i]);
            !o.is_empty() && contains_words(&haystack, &o)
        })
        .collect();
    unique(contained)
}

/// Whether `needle` occurs in `haystack` on word boundaries, so that "no"
/// is not found inside "not sure".
fn contains_words(haystack: &str, needle: &str) -> bool {
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    haystack.match_indices(needle).any(|(i, m)| {
        boundary(haystack[..i].chars().next_back())
            && boundary(haystack[i + m.len()..].chars().next())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn match_option_tries_exact_then_loose_then_substring() {
        let o = opts(&["Yes", "No", "Not sure"]);
        assert_eq!(match_option("No", &o), Some(1));
        assert_eq!(match_option(r#"{"choice": "Not sure"}"#, &o), Some(2));
        assert_eq!(match_option(r#""Yes""#, &o), Some(0));
        assert_eq!(match_option("  yes. ", &o), Some(0));
        assert_eq!(match_option("I'd say it is not sure at all", &o), Some(2));
        // "no" and "not sure" are both inside: ambiguous, so no answer.
        assert_eq!(match_option("no, not sure", &o), None);
        assert_eq!(match_option("banana", &o), None);
    }
}
