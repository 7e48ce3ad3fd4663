//! The non-report tools: knowledge `search`, `get_top_good_creative` (peers'
//! creatives that beat the benchmark in force) and `summarize_results`,
//! which ends the episode.

use serde_json::{json, Value};

use super::args::Args;
use super::episode::Outcome;
use super::error::ToolError;
use super::fields::Field;
use super::spec::MAX_QUERY_CHARS;
use crate::knowledge::thresholds::benchmark;
use crate::knowledge::KnowledgeBase;
use crate::world::catalog::{CreativeType, Industry, SiteSet};
use crate::world::World;

/// Passages `search` returns.
pub const SEARCH_RESULTS: usize = 3;
/// Creatives `get_top_good_creative` returns.
pub const TOP_CREATIVES: usize = 5;

/// `search`.
///
/// # Errors
/// A bad `query` (empty or longer than 20 characters).
pub fn search(w: &World, a: &Args<'_>) -> Result<Value, ToolError> {
    let q = a.string("query")?;
    let n = q.chars().count();
    if q.trim().is_empty() {
        return Err(ToolError::bad("query", "must not be empty"));
    }
    if n > MAX_QUERY_CHARS {
        return Err(ToolError::bad(
            "query",
            format!("must be at most {MAX_QUERY_CHARS} characters, got {n}"),
        ));
    }
    let hits = KnowledgeBase::get().search(q, w.today(), SEARCH_RESULTS);
    let rows: Vec<Value> = hits
        .iter()
        .map(|(p, _)| json!({"ID": p.id, "Title": p.title, "Text": p.text}))
        .collect();
    Ok(json!({"query": q, "rows": rows}))
}

/// `get_top_good_creative`.
///
/// # Errors
/// A bad `industry`, `site_set` or `creative_type`.
pub fn top_good_creative(w: &World, a: &Args<'_>) -> Result<Value, ToolError> {
    let i = a.string("industry")?;
    let industry = Industry::parse(i)
        .ok_or_else(|| ToolError::bad("industry", format!("unknown industry {i:?}")))?;
    let s = a.string("site_set")?;
    let site = SiteSet::parse(s)
        .ok_or_else(|| ToolError::bad("site_set", format!("unknown site set {s:?}")))?;
    let t = a.string("creative_type")?;
    let kind = CreativeType::parse(t).ok_or_else(|| {
        ToolError::bad(
            "creative_type",
            format!("must be IMAGE or VIDEO, got {t:?}"),
        )
    })?;
    let bench = benchmark(industry, kind, w.today());
    let mut good: Vec<_> = w
        .peer_creatives(industry, site, kind)
        .into_iter()
        .filter(|p| {
            let ctr = Field::Ctr.number(&p.counts).unwrap_or(0.0);
            let cvr = Field::ConversionsRate.number(&p.counts).unwrap_or(0.0);
            ctr >= bench.ctr_pct
                && cvr >= bench.cvr_pct
                && p.counts.cost as f64 / 100.0 >= bench.min_cost_cny
        })
        .collect();
    good.sort_by(|x, y| {
        y.counts
            .conversions
            .cmp(&x.counts.conversions)
            .then(y.counts.clicks.cmp(&x.counts.clicks))
            .then(x.id.cmp(&y.id))
    });
    let shown = [
        Field::Cost,
        Field::ViewCount,
        Field::Ctr,
        Field::ConversionsCount,
        Field::ConversionsRate,
        Field::ConversionsCost,
    ];
    let rows: Vec<Value> = good
        .iter()
        .take(TOP_CREATIVES)
        .map(|p| {
            let mut m = serde_json::Map::new();
            m.insert("Creative ID".into(), p.id.into());
            m.insert("Description".into(), p.description.clone().into());
            for f in shown {
                m.insert(f.label().into(), f.value(&p.counts));
            }
            Value::Object(m)
        })
        .collect();
    Ok(json!({
        "industry": industry.name(),
        "site_set": site.name(),
        "creative_type": kind.name(),
        "window": format!("{} to {}", w.today().plus(-3), w.today().plus(-1)),
        "benchmark": {"CTR (%)": bench.ctr_pct, "Conversion rate (%)": bench.cvr_pct, "Min cost (CNY)": bench.min_cost_cny},
        "good_creatives": good.len(),
        "rows": rows,
    }))
}

/// `summarize_results`.
///
/// # Errors
/// A bad `query` (not Resolved or Unresolved).
pub fn summarize(a: &Args<'_>) -> Result<(Outcome, Value), ToolError> {
    let q = a.string("query")?;
    let outcome = match q {
        "Resolved" => Outcome::Resolved,
        "Unresolved" => Outcome::Unresolved,
        other => {
            return Err(ToolError::bad(
                "query",
                format!("must be Resolved or Unresolved, got {other:?}"),
            ))
        }
    };
    Ok((outcome, json!({"status": q, "message": "Episode ended."})))
}
