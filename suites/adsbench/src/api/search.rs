//! `GoogleAdsService.Search`: a GAQL query answered in pages of 10,000 rows.
//!
//! The first request runs the query; when the result is longer than a page,
//! it is kept as a snapshot and each page carries a token for the next.
//! Later pages come from the snapshot, so a result does not shift while an
//! agent pages through it even if the market moves on. A token is bound to
//! its query and customer (another query with it is INVALID_PAGE_TOKEN) and
//! lives [`PAGE_TOKEN_TTL_MILLIS`] of simulated time (then EXPIRED_PAGE_TOKEN);
//! Google does not publish a lifetime, so the two hours are our choice.

use super::clock::SimTime;
use super::error::{ErrorCode, GoogleAdsError, GoogleAdsFailure, RequestError};
use crate::gaql::{self, Resource, ResultRow, RowSource, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Rows per page, fixed as in Google's API since v17.
pub const PAGE_SIZE: usize = 10_000;

/// How long a page token stays valid, in simulated milliseconds.
pub const PAGE_TOKEN_TTL_MILLIS: i64 = 2 * 3_600_000;

/// A search request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    /// The customer whose account is queried.
    pub customer_id: u64,
    /// The GAQL query.
    pub query: String,
    /// The token of the page wanted; none for the first.
    pub page_token: Option<String>,
}

impl SearchRequest {
    /// The first page of `query` for `customer_id`.
    pub fn new(customer_id: u64, query: impl Into<String>) -> SearchRequest {
        SearchRequest {
            customer_id,
            query: query.into(),
            page_token: None,
        }
    }

    /// The same query's page `token`.
    pub fn page(&self, token: impl Into<String>) -> SearchRequest {
        SearchRequest {
            page_token: Some(token.into()),
            ..self.clone()
        }
    }
}

/// One page of results.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResponse {
    /// The FROM resource (each row's implicit resource name is one of these).
    pub resource: Resource,
    /// The selected fields, in SELECT order (each row's values follow it).
    pub field_mask: Vec<&'static str>,
    /// This page's rows.
    pub results: Vec<ResultRow>,
    /// The token of the next page, if there is one.
    pub next_page_token: Option<String>,
    /// Rows in the whole result.
    pub total_results_count: usize,
}

impl SearchResponse {
    /// The value of `field` in row `row`, if both exist.
    pub fn value(&self, row: usize, field: &str) -> Option<&Value> {
        let col = self.field_mask.iter().position(|f| *f == field)?;
        self.results.get(row)?.values.get(col)
    }

    /// The values of `field` in every row of the page.
    pub fn column(&self, field: &str) -> Vec<Value> {
        (0..self.results.len())
            .filter_map(|i| self.value(i, field).cloned())
            .collect()
    }

    /// The page as Google's JSON: each row an object nested by field path
    /// with camelCase names (`{"campaign": {"name": …}, "metrics": {"costMicros": "…"}}`).
    pub fn to_json(&self) -> serde_json::Value {
        let rows = self.results.iter().map(|row| {
            let mut obj = serde_json::Map::new();
            for (field, value) in self.field_mask.iter().zip(&row.values) {
                insert_path(
                    &mut obj,
                    field,
                    serde_json::to_value(value).unwrap_or_default(),
                );
            }
            if let Some(name) = &row.resource_name {
                let path = format!("{}.resource_name", self.resource);
                insert_path(&mut obj, &path, serde_json::Value::String(name.clone()));
            }
            serde_json::Value::Object(obj)
        });
        let mut out = serde_json::json!({
            "results": rows.collect::<Vec<_>>(),
            "fieldMask": self.field_mask.iter().map(|f| camel_path(f)).collect::<Vec<_>>().join(","),
            "totalResultsCount": self.total_results_count.to_string(),
        });
        if let Some(token) = &self.next_page_token {
            out["nextPageToken"] = serde_json::Value::String(token.clone());
        }
        out
    }
}

fn camel(segment: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in segment.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn camel_path(path: &str) -> String {
    path.split('.').map(camel).collect::<Vec<_>>().join(".")
}

fn insert_path(
    obj: &mut serde_json::Map<String, serde_json::Value>,
    path: &str,
    value: serde_json::Value,
) {
    match path.split_once('.') {
        None => {
            obj.insert(camel(path), value);
        }
        Some((head, rest)) => {
            let child = obj
                .entry(camel(head))
                .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
            if let serde_json::Value::Object(map) = child {
                insert_path(map, rest, value);
            }
        }
    }
}

#[derive(Debug, Clone)]
struct Snapshot {
    fingerprint: u64,
    resource: Resource,
    field_mask: Vec<&'static str>,
    rows: Arc<Vec<ResultRow>>,
    created: SimTime,
}

/// The search endpoint's state: the snapshots of results being paged.
#[derive(Debug, Clone, Default)]
pub struct SearchService {
    snapshots: BTreeMap<u64, Snapshot>,
    next_id: u64,
}

impl SearchService {
    /// A service with no results kept.
    pub fn new() -> SearchService {
        SearchService::default()
    }

    /// Answers `request` from `source` at simulated time `now` (DURING
    /// resolves against `now`'s date).
    ///
    /// # Errors
    /// A query error (see [`gaql::parse`] and [`gaql::plan`]);
    /// INVALID_PAGE_TOKEN / EXPIRED_PAGE_TOKEN for a bad token;
    /// `AuthorizationError.USER_PERMISSION_DENIED` when `source` is not the
    /// request's customer.
    pub fn search(
        &mut self,
        source: &dyn RowSource,
        request: &SearchRequest,
        now: SimTime,
    ) -> Result<SearchResponse, GoogleAdsFailure> {
        if request.customer_id != source.customer_id() {
            return Err(GoogleAdsError::permission_denied(request.customer_id).into());
        }
        self.snapshots
            .retain(|_, s| now.millis_since(s.created) <= PAGE_TOKEN_TTL_MILLIS);
        let fingerprint = fingerprint(request.customer_id, &request.query);
        let Some(token) = &request.page_token else {
            let query = gaql::parse(&request.query)?;
            let plan = gaql::plan(&query, &request.query, now.date())?;
            let rows = gaql::execute(&plan, source);
            let snapshot = Snapshot {
                fingerprint,
                resource: plan.resource,
                field_mask: plan.select.iter().map(|f| f.name).collect(),
                rows: Arc::new(rows),
                created: now,
            };
            let id = self.next_id;
            self.next_id += 1;
            let response = page(id, &snapshot, 0);
            if response.next_page_token.is_some() {
                self.snapshots.insert(id, snapshot);
            }
            return Ok(response);
        };
        let (id, index, token_fingerprint) = parse_token(token).ok_or_else(|| invalid(token))?;
        if token_fingerprint != fingerprint {
            return Err(invalid(token).into());
        }
        let Some(snapshot) = self.snapshots.get(&id) else {
            return Err(if id < self.next_id {
                GoogleAdsError::new(
                    ErrorCode::RequestError(RequestError::ExpiredPageToken),
                    "The page token has expired; run the query again.",
                )
                .triggered_by(token.as_str())
                .into()
            } else {
                invalid(token).into()
            });
        };
        if index * PAGE_SIZE >= snapshot.rows.len() {
            return Err(invalid(token).into());
        }
        Ok(page(id, snapshot, index))
    }
}

fn page(id: u64, snapshot: &Snapshot, index: usize) -> SearchResponse {
    let start = index * PAGE_SIZE;
    let end = (start + PAGE_SIZE).min(snapshot.rows.len());
    SearchResponse {
        resource: snapshot.resource,
        field_mask: snapshot.field_mask.clone(),
        results: snapshot.rows[start..end].to_vec(),
        next_page_token: (end < snapshot.rows.len())
            .then(|| format!("{id:x}.{}.{:016x}", index + 1, snapshot.fingerprint)),
        total_results_count: snapshot.rows.len(),
    }
}

fn parse_token(token: &str) -> Option<(u64, usize, u64)> {
    let mut parts = token.split('.');
    let id = u64::from_str_radix(parts.next()?, 16).ok()?;
    let index = parts.next()?.parse().ok()?;
    let fp = u64::from_str_radix(parts.next()?, 16).ok()?;
    parts.next().is_none().then_some((id, index, fp))
}

fn invalid(token: &str) -> GoogleAdsError {
    GoogleAdsError::new(
        ErrorCode::RequestError(RequestError::InvalidPageToken),
        "The page token was not issued for this query and customer.",
    )
    .triggered_by(token)
}

/// FNV-1a over the customer and the query text: stable across runs.
fn fingerprint(customer_id: u64, query: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in customer_id.to_le_bytes().iter().chain(query.as_bytes()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
