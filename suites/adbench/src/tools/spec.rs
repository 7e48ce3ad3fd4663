//! The published tool schemas: one JSON Schema per tool, served unchanged
//! to function-calling agents (as tools) and ReAct agents (in the prompt).

use adfarm_llm::Tool;
use serde_json::{json, Value};

use super::fields::Field;
use crate::world::catalog::{Industry, SiteSet};
use crate::world::query::{DailyGrouping, HourlyGrouping};

/// Lists a user's accounts.
pub const GET_USER_ACCOUNT_LIST: &str = "get_user_account_list";
/// Account details.
pub const GET_ACCOUNT_INFO: &str = "get_account_info";
/// Ad group details of one account.
pub const GET_ACCOUNT_ADGROUP_INFO: &str = "get_account_adgroup_info";
/// Daily report.
pub const DAILY_DATA: &str = "daily_data_by_group_and_field";
/// Hourly report.
pub const HOURLY_DATA: &str = "hourly_data_by_group_and_field";
/// Knowledge search.
pub const SEARCH: &str = "search";
/// Peers' best creatives.
pub const GET_TOP_GOOD_CREATIVE: &str = "get_top_good_creative";
/// Ends the episode.
pub const SUMMARIZE_RESULTS: &str = "summarize_results";

/// Longest `search` query, in characters.
pub const MAX_QUERY_CHARS: usize = 20;
/// Largest page.
pub const MAX_PAGE_SIZE: u64 = 100;

// Ids are published as integers, the type they have: one type per field
// is what every function-calling model (the local one's constrained
// decoder included) can write. The argument reader still accepts an id
// written as a numeric string.
fn id() -> Value {
    json!({"type": "integer", "description": "numeric id"})
}

fn id_list(what: &str) -> Value {
    json!({"type": "array", "items": {"type": "integer"}, "minItems": 1, "description": what})
}

fn page_size() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "description": "rows per page"})
}

fn page() -> Value {
    json!({"type": "integer", "minimum": 1, "description": "1-based page number; default 1"})
}

fn fields() -> Value {
    let names: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
    json!({"type": "array", "items": {"type": "string", "enum": names}, "minItems": 1, "description": "metrics to return"})
}

fn order_by() -> Value {
    json!({"type": "string", "description": "a requested field, optionally followed by asc or desc (default desc), e.g. \"cost desc\"; default order is by the group key"})
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

/// The schemas of the platform's own tools (the calculator plugs in separately).
pub fn specs() -> Vec<Tool> {
    let daily_groups: Vec<&str> = DailyGrouping::ALL.iter().map(|(_, n)| *n).collect();
    let hourly_groups: Vec<&str> = HourlyGrouping::ALL.iter().map(|(_, n)| *n).collect();
    let industries: Vec<&str> = Industry::ALL.iter().map(|i| i.name()).collect();
    let sites: Vec<&str> = SiteSet::ALL.iter().map(|s| s.name()).collect();
    vec![
        Tool {
            name: GET_USER_ACCOUNT_LIST.into(),
            description: "List the ad accounts of a user: id, name, industry and last consumption date (the last day before today on which the account spent; null if none in the data). The only source of account ids: call it before any account-scoped tool.".into(),
            parameters: object(json!({"user_id": id(), "page_size": page_size(), "page": page()}), &["user_id", "page_size"]),
        },
        Tool {
            name: GET_ACCOUNT_INFO.into(),
            description: "Details of accounts: industry, daily budget, audit status, ad group counts.".into(),
            parameters: object(json!({"user_id": id(), "account_id_list": id_list("account ids")}), &["user_id", "account_id_list"]),
        },
        Tool {
            name: GET_ACCOUNT_ADGROUP_INFO.into(),
            description: "Ad groups of one account: status, dates, bid, site sets, schedule, targeting, objective and creatives. Active groups first.".into(),
            parameters: object(
                json!({"user_id": id(), "account_id": id(), "adgroup_id_list": id_list("only these ad groups"), "page_size": page_size(), "page": page()}),
                &["user_id", "account_id"],
            ),
        },
        Tool {
            name: DAILY_DATA.into(),
            description: "Daily delivery report over begin..end (YYYY-MM-DD, inclusive), grouped. Full days up to yesterday; today covers the hours so far. Ratios are computed from summed counts.".into(),
            parameters: object(
                json!({
                    "user_id": id(),
                    "begin": {"type": "string", "format": "date"},
                    "end": {"type": "string", "format": "date"},
                    "group_by_type": {"type": "string", "enum": daily_groups},
                    "fields": fields(),
                    "account_id_list": id_list("accounts to report on"),
                    "page_size": page_size(),
                    "page": page(),
                    "adgroup_id": id(),
                    "order_by": order_by(),
                }),
                &["user_id", "begin", "end", "group_by_type", "fields", "account_id_list", "page_size"],
            ),
        },
        Tool {
            name: HOURLY_DATA.into(),
            description: "Hourly delivery report for one day (YYYY-MM-DD), grouped. Today has only the hours completed so far.".into(),
            parameters: object(
                json!({
                    "user_id": id(),
                    "date": {"type": "string", "format": "date"},
                    "group_by_type": {"type": "string", "enum": hourly_groups},
                    "fields": fields(),
                    "page_size": page_size(),
                    "page": page(),
                    "account_id_list": id_list("accounts to report on; default all of the user's accounts"),
                    "adgroup_id": id(),
                    "order_by": order_by(),
                }),
                &["user_id", "date", "group_by_type", "fields", "page_size"],
            ),
        },
        Tool {
            name: SEARCH.into(),
            description: "Search the platform knowledge base (metric definitions, rules, benchmarks); returns the 3 best passages in force today.".into(),
            parameters: object(json!({"query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS}}), &["query"]),
        },
        Tool {
            name: GET_TOP_GOOD_CREATIVE.into(),
            description: "Well-performing creatives of other advertisers over the last 3 days for an industry, site set and creative type, with the benchmark they beat.".into(),
            parameters: object(
                json!({
                    "industry": {"type": "string", "enum": industries},
                    "site_set": {"type": "string", "enum": sites},
                    "creative_type": {"type": "string", "enum": ["IMAGE", "VIDEO"]},
                }),
                &["industry", "site_set", "creative_type"],
            ),
        },
        Tool {
            name: SUMMARIZE_RESULTS.into(),
            description: "End the episode: Resolved when the request is answered, Unresolved otherwise. Write the answer in your reply.".into(),
            parameters: object(json!({"query": {"type": "string", "enum": ["Resolved", "Unresolved"]}}), &["query"]),
        },
    ]
}

/// Argument names a tool's schema declares.
pub fn argument_names(tool: &Tool) -> Vec<String> {
    tool.parameters["properties"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}
