//! A summary of the loaded GEM-Bench data: counts, and CA-Prod's known
//! label problems, so reports can state what the numbers rest on.

use super::caprod::Label;
use super::data::GemData;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// A (query, product) pair listed more than once in CA-Prod.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DuplicatePair {
    /// Query id.
    pub query_id: u64,
    /// Product id.
    pub product_id: u64,
    /// Whether the rows disagree on the label.
    pub conflicting: bool,
}

/// Candidates of one query sharing a title but not a label: a selection
/// scored by title (as the reference does) is ambiguous for them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TitleConflict {
    /// Query id.
    pub query_id: u64,
    /// The shared title (lower-cased, trimmed).
    pub title: String,
    /// Product ids with that title and their labels.
    pub products: Vec<(u64, Label)>,
}

/// Counts and known issues of the loaded data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DatasetSummary {
    /// MT-Human prompts.
    pub mt_human: usize,
    /// LM-Market prompts.
    pub lm_market: usize,
    /// Distinct LM-Market prompts.
    pub lm_market_distinct: usize,
    /// Items per category, per dataset.
    pub categories: BTreeMap<String, BTreeMap<String, usize>>,
    /// Top-level topics.
    pub topics: usize,
    /// Subtopics.
    pub subtopics: usize,
    /// Ads in the chatbot database.
    pub ads: usize,
    /// Ads with distinct retrieval text.
    pub ads_distinct: usize,
    /// Database keys with no ads.
    pub empty_ad_lists: Vec<String>,
    /// CA-Prod queries.
    pub ca_prod_queries: usize,
    /// CA-Prod products.
    pub ca_prod_products: usize,
    /// CA-Prod query–product rows.
    pub ca_prod_rows: usize,
    /// CA-Prod rows labelled relevant.
    pub ca_prod_relevant_rows: usize,
    /// Fewest and most candidates of a query.
    pub ca_prod_candidates_range: (usize, usize),
    /// (query, product) pairs listed twice.
    pub ca_prod_duplicate_pairs: Vec<DuplicatePair>,
    /// Same-title candidates of one query with different labels.
    pub ca_prod_title_conflicts: Vec<TitleConflict>,
}

/// Summarises `data`, including CA-Prod's label conflicts.
pub fn dataset_summary(data: &GemData) -> DatasetSummary {
    let ca = &data.ca_prod;
    let mut categories: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for (name, qs) in [("mt-human", &data.mt_human), ("lm-market", &data.lm_market)] {
        let m = categories.entry(name.into()).or_default();
        for q in qs {
            *m.entry(q.category.clone()).or_default() += 1;
        }
    }
    let m = categories.entry("ca-prod".into()).or_default();
    for q in &ca.queries {
        *m.entry(super::item::ca_category(data, q)).or_default() += 1;
    }

    let mut dup_pairs = Vec::new();
    let mut title_conflicts = Vec::new();
    let (mut lo, mut hi) = (usize::MAX, 0);
    for q in &ca.queries {
        lo = lo.min(q.rows);
        hi = hi.max(q.rows);
        for &pid in &q.duplicates {
            let conflicting = q
                .candidates
                .iter()
                .any(|c| c.product_id == pid && c.label == Label::Conflict);
            dup_pairs.push(DuplicatePair {
                query_id: q.query_id,
                product_id: pid,
                conflicting,
            });
        }
        let mut by_title: BTreeMap<String, Vec<(u64, Label)>> = BTreeMap::new();
        for c in &q.candidates {
            if let Some(p) = ca.products.get(&c.product_id) {
                by_title
                    .entry(p.title.trim().to_lowercase())
                    .or_default()
                    .push((c.product_id, c.label));
            }
        }
        for (title, products) in by_title {
            let labels: HashSet<Label> = products.iter().map(|(_, l)| *l).collect();
            if products.len() > 1 && labels.len() > 1 {
                title_conflicts.push(TitleConflict {
                    query_id: q.query_id,
                    title,
                    products,
                });
            }
        }
    }

    DatasetSummary {
        mt_human: data.mt_human.len(),
        lm_market: data.lm_market.len(),
        lm_market_distinct: data
            .lm_market
            .iter()
            .map(|q| &q.text)
            .collect::<HashSet<_>>()
            .len(),
        categories,
        topics: data.ads.topics.len(),
        subtopics: data.ads.topics.iter().map(|(_, s)| s.len()).sum(),
        ads: data.ads.all().count(),
        ads_distinct: data.ads.retrieval_pool().len(),
        empty_ad_lists: data
            .ads
            .lists
            .iter()
            .filter(|(_, a)| a.is_empty())
            .map(|(k, _)| k.clone())
            .collect(),
        ca_prod_queries: ca.queries.len(),
        ca_prod_products: ca.products.len(),
        ca_prod_rows: ca.queries.iter().map(|q| q.rows).sum(),
        ca_prod_relevant_rows: ca.queries.iter().map(|q| q.relevant_rows).sum(),
        ca_prod_candidates_range: (if lo == usize::MAX { 0 } else { lo }, hi),
        ca_prod_duplicate_pairs: dup_pairs,
        ca_prod_title_conflicts: title_conflicts,
    }
}
