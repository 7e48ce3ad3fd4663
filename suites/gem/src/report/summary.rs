//! The dataset summary the numbers rest on: counts of the sweep's
//! datasets and CA-Prod's known label conflicts, listed one by one, so a
//! reader of the CTR column knows which labels are ambiguous.

use super::layout::{section as empty_section, table, text};
use crate::caprod::Label;
use crate::summary::DatasetSummary;
use adfarm_proto::report::{Column, ColumnKind, Key, Section, Value};

fn label(l: Label) -> &'static str {
    match l {
        Label::Relevant => "relevant",
        Label::NotRelevant => "not relevant",
        Label::Conflict => "labelled both",
    }
}

/// The summary section of `suite` for its `datasets`.
pub(crate) fn section(suite: &str, s: &DatasetSummary, datasets: &[String]) -> Section {
    let count = |n: usize| Some(Value::Integer(i64::try_from(n).unwrap_or(i64::MAX)));
    let conflicting = s
        .ca_prod_duplicate_pairs
        .iter()
        .filter(|p| p.conflicting)
        .count();
    let all: [(&str, &str, usize); 9] = [
        ("mt-human", "prompts", s.mt_human),
        ("lm-market", "prompts", s.lm_market),
        ("lm-market", "distinct prompts", s.lm_market_distinct),
        ("ca-prod", "queries", s.ca_prod_queries),
        ("ca-prod", "query–product rows", s.ca_prod_rows),
        ("ca-prod", "rows labelled relevant", s.ca_prod_relevant_rows),
        (
            "ca-prod",
            "(query, product) pairs listed twice",
            s.ca_prod_duplicate_pairs.len(),
        ),
        (
            "ca-prod",
            "… of them labelled both relevant and not",
            conflicting,
        ),
        (
            "ca-prod",
            "same-title candidates with different labels",
            s.ca_prod_title_conflicts.len(),
        ),
    ];
    let rows = all
        .iter()
        .filter(|(d, _, _)| datasets.iter().any(|x| x == d))
        .map(|(d, what, n)| vec![text(d), text(what), count(*n)])
        .collect();
    let columns = vec![
        Column::key("dataset", "dataset", Key::Dataset),
        Column::new("what", "what", ColumnKind::Text),
        Column::new("count", "count", ColumnKind::Integer),
    ];
    let mut notes = vec![];
    if datasets.iter().any(|d| d == "ca-prod") {
        for p in s.ca_prod_duplicate_pairs.iter().filter(|p| p.conflicting) {
            notes.push(format!(
                "CA-Prod query {}: product {} is labelled both relevant and not relevant.",
                p.query_id, p.product_id
            ));
        }
        for c in &s.ca_prod_title_conflicts {
            let products: Vec<String> = c
                .products
                .iter()
                .map(|(id, l)| format!("{id} ({})", label(*l)))
                .collect();
            notes.push(format!(
                "CA-Prod query {}: candidates titled {:?} disagree: {}.",
                c.query_id,
                c.title,
                products.join(", ")
            ));
        }
    }
    Section {
        intro: Some(
            "What the tables rest on. Intervals are over distinct prompts: the seeds of an item \
             and LM-Market's repeated prompts are averaged first."
                .into(),
        ),
        tables: vec![table("dataset-summary", columns, rows)],
        notes,
        ..empty_section(suite, "dataset-summary", "GEM-Bench: datasets")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::{DuplicatePair, TitleConflict};

    #[test]
    fn ca_prod_label_conflicts_are_listed_in_the_report() {
        let s = DatasetSummary {
            mt_human: 10,
            lm_market: 100,
            lm_market_distinct: 93,
            categories: Default::default(),
            topics: 0,
            subtopics: 0,
            ads: 0,
            ads_distinct: 0,
            empty_ad_lists: vec![],
            ca_prod_queries: 120,
            ca_prod_products: 2215,
            ca_prod_rows: 2222,
            ca_prod_relevant_rows: 555,
            ca_prod_candidates_range: (6, 43),
            ca_prod_duplicate_pairs: vec![DuplicatePair {
                query_id: 7,
                product_id: 70,
                conflicting: true,
            }],
            ca_prod_title_conflicts: vec![TitleConflict {
                query_id: 8,
                title: "mug".into(),
                products: vec![(80, Label::Relevant), (81, Label::NotRelevant)],
            }],
        };
        let sec = section("gem", &s, &["lm-market".into(), "ca-prod".into()]);
        let t = &sec.tables[0];
        assert!(
            t.rows.iter().all(|r| r[0] != text("mt-human")),
            "only the sweep's datasets"
        );
        assert!(t.rows.contains(&vec![
            text("lm-market"),
            text("distinct prompts"),
            Some(Value::Integer(93))
        ]));
        assert_eq!(
            sec.notes,
            [
                "CA-Prod query 7: product 70 is labelled both relevant and not relevant.",
                "CA-Prod query 8: candidates titled \"mug\" disagree: 80 (relevant), 81 (not relevant)."
            ]
        );
        let none = section("gem", &s, &["mt-human".into()]);
        assert!(none.notes.is_empty());
    }
}
