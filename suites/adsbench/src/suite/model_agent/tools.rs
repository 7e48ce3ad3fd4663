//! The Ads API as a model's tools: `search` (one GAQL page), `mutate`
//! (operations with a note each, partial failure, validate-only),
//! `change_history` (what the agent committed so far) and `end_decision`
//! (done until the next decision point).
//!
//! Whatever the model writes reaches the API only as a user's calls would:
//! arguments are read into a request, and anything the API refuses comes
//! back as Google's failure JSON in the observation (`QueryError.*`,
//! `RequestError.*`, `FieldError.*`, `QuotaError.*`), never a panic. An
//! argument this layer cannot read into a request at all is answered with
//! `FieldError.REQUIRED` (a missing query, operations or resource name) or
//! `FieldError.INVALID_VALUE` (an operation that is not exactly one of
//! create, update and remove, fields that are not an object), triggered by
//! the field's path.

use adfarm_agent::{Call, Observed, Toolbox};
use adfarm_llm::Tool;
use serde::Serialize;
use serde_json::{json, Value as Json};

use super::super::change_log::Change;
use super::operation::{self, invalid, required};
use crate::api::error::GoogleAdsFailure;
use crate::api::{MutateRequest, SearchRequest};
use crate::sandbox::{AdsClient, Sandbox};

/// Tool: one page of a GAQL query.
pub const SEARCH: &str = "search";
/// Tool: a mutate request.
pub const MUTATE: &str = "mutate";
/// Tool: the change set so far.
pub const CHANGE_HISTORY: &str = "change_history";
/// Tool: ends the decision.
pub const END_DECISION: &str = "end_decision";
/// Tool: the agent's diagnosis, offered on tasks that ask for one.
pub const REPORT_DIAGNOSIS: &str = "report_diagnosis";

/// Characters a turn and a call's arguments may be: room for a mutate of
/// Google's 10,000 operations at 200 characters each, so the API, not the
/// agent loop, answers a larger one (`TOO_MANY_MUTATE_OPERATIONS`).
pub const REQUEST_CHARS: usize = 2_000_000;

/// Rows of a search page shown to the model: the rest is counted, and the
/// model narrows its query (a 10,000-row page would flood any context).
pub const ROWS_SHOWN: usize = 200;

/// The agent's seat at the account during one decision: the sandbox, the
/// change set so far and whether the agent ended the decision.
#[derive(Debug)]
pub struct Desk {
    /// The market behind the API.
    pub sandbox: Sandbox,
    /// Every committed operation of the episode, in order.
    pub changes: Vec<Change>,
    /// Set by `end_decision`; cleared at each decision point.
    pub decided: bool,
    /// Mutate requests that committed at this decision point.
    pub committed: u32,
    /// API requests refused (errors in the observation), over the episode.
    pub refused: u32,
    /// The cause the agent reported last, on a task that asks for one.
    pub diagnosis: Option<String>,
}

impl Desk {
    /// A desk at `sandbox` with no changes yet.
    pub fn new(sandbox: Sandbox) -> Desk {
        Desk {
            sandbox,
            changes: Vec::new(),
            decided: false,
            committed: 0,
            refused: 0,
            diagnosis: None,
        }
    }
}

/// A call's answer: its JSON text and the API's error codes, if refused.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer {
    /// The tool called.
    pub tool: String,
    /// The JSON the model reads (before cutting).
    pub text: String,
    /// Google's error codes (`QueryError.BAD_FIELD_NAME`), empty on success.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

impl Observed for Answer {
    fn tool(&self) -> &str {
        &self.tool
    }

    fn shown(&self, max_chars: usize) -> String {
        const NOTE: &str = "\n...[cut: select fewer fields or add WHERE / LIMIT]";
        if self.text.chars().count() <= max_chars {
            return self.text.clone();
        }
        let keep = max_chars.saturating_sub(NOTE.chars().count());
        let mut out: String = self.text.chars().take(keep).collect();
        out.push_str(NOTE);
        out
    }
}

/// The four tools, and `report_diagnosis` on a task that asks for one.
#[derive(Debug, Clone)]
pub struct AdsTools {
    specs: Vec<Tool>,
}

impl Default for AdsTools {
    fn default() -> AdsTools {
        AdsTools { specs: specs() }
    }
}

impl AdsTools {
    /// The four tools and `report_diagnosis`, whose `cause` is one of
    /// `causes`.
    pub fn diagnosing(causes: &[&str]) -> AdsTools {
        let mut specs = specs();
        specs.push(Tool {
            name: REPORT_DIAGNOSIS.into(),
            description: "Report what caused the account's problem the brief asks about, once \
you have read the evidence. You may report again; the last report counts."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {"cause": {"type": "string", "enum": causes}},
                "required": ["cause"],
                "additionalProperties": false
            }),
        });
        AdsTools { specs }
    }
}

/// The tools' schemas.
pub fn specs() -> Vec<Tool> {
    // Lists are an ad's texts (headlines, descriptions, final URLs).
    let value = json!({
        "type": ["string", "number", "integer", "boolean", "null", "array"],
        "items": {"type": "string"}
    });
    vec![
        Tool {
            name: SEARCH.into(),
            description: "Run a GAQL query (Google Ads Query Language) on the account: SELECT \
fields FROM a resource (customer, campaign_budget, campaign, campaign_criterion, ad_group, \
ad_group_ad, ad_group_criterion, keyword_view, search_term_view) [WHERE ...] [ORDER BY ...] \
[LIMIT n]. An ad (ad_group_ad) shows its text, final URL and policy review \
(policy_summary.approval_status, policy_summary.policy_topic_entries) but no metrics; \
search_term_view shows the searches behind an ad group's traffic, per day. Metrics (metrics.cost_micros, \
metrics.clicks, metrics.conversions, metrics.conversions_value, metrics.impressions) need a \
date filter such as segments.date = 'YYYY-MM-DD' or segments.date DURING LAST_7_DAYS; \
segments.hour splits a day by hour. Money is in micros (1,000,000 = 1.00). Returns one page \
of rows as Google's JSON."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "page_token": {"type": "string"}
                },
                "required": ["query"],
                "additionalProperties": false
            }),
        },
        Tool {
            name: MUTATE.into(),
            description: "Change the account in one request. Each operation is one of \
{\"update\": {\"resource_name\": \"customers/1/campaigns/2\", \"fields\": {\"status\": \"PAUSED\"}}}, \
{\"create\": {\"resource\": \"ad_group_criterion\", \"fields\": {...}}} or \
{\"remove\": \"customers/1/adGroups/3\"}, each with a \"note\" saying why, citing the metric \
and the value you observed. The request is atomic unless partial_failure is true; \
validate_only checks without committing."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "operations": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "update": {
                                    "type": "object",
                                    "properties": {
                                        "resource_name": {"type": "string"},
                                        "fields": {"type": "object", "additionalProperties": value}
                                    },
                                    "required": ["resource_name", "fields"]
                                },
                                "create": {
                                    "type": "object",
                                    "properties": {
                                        "resource": {"type": "string"},
                                        "fields": {"type": "object", "additionalProperties": value}
                                    },
                                    "required": ["resource", "fields"]
                                },
                                "remove": {"type": "string"},
                                "note": {"type": "string"}
                            },
                            "required": ["note"]
                        }
                    },
                    "partial_failure": {"type": "boolean"},
                    "validate_only": {"type": "boolean"}
                },
                "required": ["operations"],
                "additionalProperties": false
            }),
        },
        Tool {
            name: CHANGE_HISTORY.into(),
            description: "List the changes committed to the account in this episode, oldest \
first, with their dates and notes."
                .into(),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        },
        Tool {
            name: END_DECISION.into(),
            description: "End this decision: nothing more to change until the next decision \
point. Say in one sentence what you did and why."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {"summary": {"type": "string"}},
                "required": ["summary"],
                "additionalProperties": false
            }),
        },
    ]
}

fn refused(tool: &str, failure: &GoogleAdsFailure) -> Answer {
    Answer {
        tool: tool.into(),
        text: json!({ "error": failure }).to_string(),
        errors: failure
            .errors
            .iter()
            .map(|e| e.error_code.to_string())
            .collect(),
    }
}

impl AdsTools {
    fn search(&self, desk: &mut Desk, args: &Json) -> Result<Answer, GoogleAdsFailure> {
        let query = args
            .get("query")
            .and_then(Json::as_str)
            .ok_or_else(|| required("query"))?;
        let mut request = SearchRequest::new(desk.sandbox.customer_id(), query);
        if let Some(token) = args.get("page_token").and_then(Json::as_str) {
            request = request.page(token);
        }
        let mut page = desk.sandbox.search_page(&request)?;
        let hidden = page.results.len().saturating_sub(ROWS_SHOWN);
        page.results.truncate(ROWS_SHOWN);
        let mut out = page.to_json();
        if hidden > 0 {
            out["rowsNotShown"] = json!(hidden);
        }
        Ok(Answer {
            tool: SEARCH.into(),
            text: out.to_string(),
            errors: Vec::new(),
        })
    }

    fn mutate(&self, desk: &mut Desk, args: &Json) -> Result<Answer, GoogleAdsFailure> {
        let ops = args
            .get("operations")
            .and_then(Json::as_array)
            .ok_or_else(|| required("operations"))?;
        let operations = ops
            .iter()
            .enumerate()
            .map(|(i, op)| operation::read(i, op))
            .collect::<Result<Vec<_>, _>>()?;
        let flag = |name: &str| args.get(name).and_then(Json::as_bool).unwrap_or(false);
        let request = MutateRequest {
            customer_id: desk.sandbox.customer_id(),
            operations,
            partial_failure: flag("partial_failure"),
            validate_only: flag("validate_only"),
        };
        let made: Vec<Change> = request
            .operations
            .iter()
            .map(|op| Change::made(&desk.sandbox, op, desk.committed))
            .collect();
        let response = desk.sandbox.mutate_request(&request)?;
        if !request.validate_only && response.results.iter().any(Option::is_some) {
            desk.committed += 1;
        }
        if !request.validate_only {
            // With partial failure only the operations that got a result committed.
            for (change, result) in made.into_iter().zip(&response.results) {
                if result.is_some() {
                    desk.changes.push(change);
                }
            }
        }
        let mut out = json!({
            "results": response.results.iter().map(|r| json!({"resourceName": r})).collect::<Vec<_>>(),
        });
        if let Some(partial) = &response.partial_failure_error {
            out["partialFailureError"] = json!(partial);
        }
        Ok(Answer {
            tool: MUTATE.into(),
            text: out.to_string(),
            errors: response
                .partial_failure_error
                .iter()
                .flat_map(|f| f.errors.iter().map(|e| e.error_code.to_string()))
                .collect(),
        })
    }

    fn history(&self, desk: &Desk) -> Answer {
        Answer {
            tool: CHANGE_HISTORY.into(),
            // What was changed and why; how it was sent is the patch's.
            text: json!({ "changes": desk.changes.iter().map(|c| Change { sent: None, ..c.clone() }).collect::<Vec<_>>() })
                .to_string(),
            errors: Vec::new(),
        }
    }
}

impl Toolbox for AdsTools {
    type State = Desk;
    type Observation = Answer;

    fn specs(&self) -> &[Tool] {
        &self.specs
    }

    fn call(&self, desk: &mut Desk, call: &Call) -> Answer {
        let answer = match call.tool.as_str() {
            SEARCH => self.search(desk, &call.args),
            MUTATE => self.mutate(desk, &call.args),
            CHANGE_HISTORY => Ok(self.history(desk)),
            REPORT_DIAGNOSIS if self.specs.iter().any(|t| t.name == REPORT_DIAGNOSIS) => {
                match call.args.get("cause").and_then(Json::as_str) {
                    Some(cause) => {
                        desk.diagnosis = Some(cause.to_string());
                        Ok(Answer {
                            tool: REPORT_DIAGNOSIS.into(),
                            text: json!({"recorded": cause}).to_string(),
                            errors: Vec::new(),
                        })
                    }
                    None => Err(required("cause")),
                }
            }
            END_DECISION => {
                desk.decided = true;
                Ok(Answer {
                    tool: END_DECISION.into(),
                    text: json!({"ok": true}).to_string(),
                    errors: Vec::new(),
                })
            }
            // The loop offers only the tools above.
            other => Err(invalid("tool", format!("{other} is not a tool"))),
        };
        answer.unwrap_or_else(|failure| {
            desk.refused += 1;
            refused(&call.tool, &failure)
        })
    }

    fn ended(&self, desk: &Desk) -> bool {
        desk.decided
    }
}
