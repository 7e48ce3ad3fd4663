//! GEM-Bench items: what `items()` yields and what solutions and judges
//! read back from `Item.meta`.
//!
//! `Item.meta` fields: `dataset` (`mt-human` | `lm-market` | `ca-prod`),
//! `category`, for CA-Prod `query_id` and `candidates` (product ids, in
//! dataset order; products are looked up in the loaded data), and
//! `judge_protocol` when it is not the default `paper`.

use super::caprod::{CaQuery, Label};
use super::data::GemData;
use super::judge::Protocol;
use adfarm_proto::Item;
use adfarm_suite::DataError;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The three datasets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dataset {
    /// MT-Human (10 queries).
    MtHuman,
    /// LM-Market (100 queries).
    LmMarket,
    /// CA-Prod (120 queries with candidates).
    CaProd,
}

impl Dataset {
    /// Every dataset.
    pub const ALL: [Dataset; 3] = [Dataset::MtHuman, Dataset::LmMarket, Dataset::CaProd];

    /// Name in sweep files.
    pub fn as_str(self) -> &'static str {
        match self {
            Dataset::MtHuman => "mt-human",
            Dataset::LmMarket => "lm-market",
            Dataset::CaProd => "ca-prod",
        }
    }

    /// Parses [`Dataset::as_str`].
    pub fn parse(s: &str) -> Option<Dataset> {
        Dataset::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

/// An item's fields as solutions and judges use them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemView {
    /// Dataset.
    pub dataset: Dataset,
    /// Query text.
    pub query: String,
    /// CA-Prod query id.
    pub query_id: Option<u64>,
    /// CA-Prod candidate product ids.
    pub candidates: Vec<u64>,
    /// Judge protocol.
    pub protocol: Protocol,
}

fn meta_err(field: &str, reason: impl Into<String>) -> DataError {
    DataError::Param {
        field: format!("item.meta.{field}"),
        reason: reason.into(),
    }
}

impl ItemView {
    /// Reads `item.meta`.
    ///
    /// # Errors
    /// [`DataError::Param`] when a field is missing or malformed.
    pub fn parse(item: &Item) -> Result<ItemView, DataError> {
        let m = &item.meta;
        let ds = m
            .get("dataset")
            .and_then(|v| v.as_str())
            .ok_or_else(|| meta_err("dataset", "missing"))?;
        let dataset =
            Dataset::parse(ds).ok_or_else(|| meta_err("dataset", format!("unknown {ds:?}")))?;
        let protocol = match m.get("judge_protocol").and_then(|v| v.as_str()) {
            Some(p) => Protocol::parse(p)?,
            None => Protocol::default(),
        };
        let (query_id, candidates) = if dataset == Dataset::CaProd {
            let qid = m
                .get("query_id")
                .and_then(|v| v.as_u64())
                .ok_or_else(|| meta_err("query_id", "missing"))?;
            let cands = m
                .get("candidates")
                .and_then(|v| v.as_array())
                .ok_or_else(|| meta_err("candidates", "missing"))?
                .iter()
                .map(|v| {
                    v.as_u64()
                        .ok_or_else(|| meta_err("candidates", "not an id"))
                })
                .collect::<Result<Vec<u64>, _>>()?;
            (Some(qid), cands)
        } else {
            (None, vec![])
        };
        Ok(ItemView {
            dataset,
            query: item.input.clone(),
            query_id,
            candidates,
            protocol,
        })
    }

    /// The CA-Prod query of this item.
    ///
    /// # Errors
    /// [`DataError::Param`] when the item is not a known CA-Prod query.
    pub fn ca_query<'a>(&self, data: &'a GemData) -> Result<&'a CaQuery, DataError> {
        let id = self
            .query_id
            .ok_or_else(|| meta_err("query_id", "missing"))?;
        data.ca_prod
            .query(id)
            .ok_or_else(|| meta_err("query_id", format!("{id} is not a CA-Prod query")))
    }
}

/// The category of a CA-Prod query: the cluster most of its relevant
/// candidates belong to (ties: the lower cluster id).
pub fn ca_category(data: &GemData, q: &CaQuery) -> String {
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for c in q.candidates.iter().filter(|c| c.label == Label::Relevant) {
        *counts.entry(c.cluster_id).or_default() += 1;
    }
    let best = counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(id, _)| *id);
    best.and_then(|id| data.ca_prod.clusters.get(&id).cloned())
        .unwrap_or_else(|| "unknown".into())
}

/// Items of `dataset`, lazily, in dataset order.
pub fn items(
    data: Arc<GemData>,
    dataset: Dataset,
    protocol: Protocol,
) -> Box<dyn Iterator<Item = Result<Item, DataError>> + Send> {
    let len = match dataset {
        Dataset::MtHuman => data.mt_human.len(),
        Dataset::LmMarket => data.lm_market.len(),
        Dataset::CaProd => data.ca_prod.queries.len(),
    };
    Box::new((0..len).map(move |i| {
        let mut meta = serde_json::Map::new();
        meta.insert("dataset".into(), dataset.as_str().into());
        let (id, input) = match dataset {
            Dataset::MtHuman | Dataset::LmMarket => {
                let q = if dataset == Dataset::MtHuman {
                    &data.mt_human[i]
                } else {
                    &data.lm_market[i]
                };
                meta.insert("category".into(), q.category.clone().into());
                // Ids are indices: LM-Market repeats queries, and each
                // occurrence is an item of its own, as in the paper.
                (i.to_string(), q.text.clone())
            }
            Dataset::CaProd => {
                let q = &data.ca_prod.queries[i];
                meta.insert("category".into(), ca_category(&data, q).into());
                meta.insert("query_id".into(), q.query_id.into());
                let ids: Vec<u64> = q.candidates.iter().map(|c| c.product_id).collect();
                meta.insert("candidates".into(), ids.into());
                (q.query_id.to_string(), q.text.clone())
            }
        };
        if protocol != Protocol::default() {
            meta.insert("judge_protocol".into(), protocol.as_str().into());
        }
        Ok(Item {
            id,
            input,
            meta: serde_json::Value::Object(meta),
        })
    }))
}
