//! The knowledge base the `search` tool reads: handwritten metric
//! definitions and platform rules (`entries`), the effective-dated
//! good-creative benchmarks (`thresholds`), ranked by BM25 (`bm25`).
//! Rules carry effective dates, so the same query can answer differently
//! on dates either side of a rule change.

pub mod bm25;
pub mod entries;
pub mod thresholds;

use std::sync::OnceLock;

use crate::world::catalog::{CreativeType, Industry};
use crate::world::Day;

/// One searchable passage, with its effective range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    /// Stable id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Text.
    pub text: String,
    /// First day in force.
    pub from: Option<Day>,
    /// First day no longer in force.
    pub until: Option<Day>,
}

impl Passage {
    /// True when the passage is in force on `day`.
    pub fn in_force(&self, day: Day) -> bool {
        self.from.is_none_or(|f| f <= day) && self.until.is_none_or(|u| day < u)
    }
}

/// The passages and their index, built once per process.
pub struct KnowledgeBase {
    passages: Vec<Passage>,
    index: bm25::Index,
}

impl KnowledgeBase {
    /// The shared knowledge base.
    pub fn get() -> &'static KnowledgeBase {
        static KB: OnceLock<KnowledgeBase> = OnceLock::new();
        KB.get_or_init(KnowledgeBase::build)
    }

    fn build() -> KnowledgeBase {
        let mut passages: Vec<Passage> = entries::ENTRIES
            .iter()
            .map(|e| Passage {
                id: e.id.to_string(),
                title: e.title.to_string(),
                text: e.text.to_string(),
                from: e.from.and_then(Day::parse),
                until: e.until.and_then(Day::parse),
            })
            .collect();
        let rev = thresholds::revision_day();
        let mut n = 0;
        for industry in Industry::ALL {
            for kind in [CreativeType::Image, CreativeType::Video] {
                for (from, until, probe) in
                    [(None, Some(rev), rev.plus(-1)), (Some(rev), None, rev)]
                {
                    n += 1;
                    let b = thresholds::benchmark(industry, kind, probe);
                    passages.push(Passage {
                        id: format!("T{n:02}"),
                        title: format!("Good creative benchmark: {} {}", industry.name(), kind.name()),
                        text: format!(
                            "Benchmark for {} {} creatives: a good creative has CTR >= {:.2}% and conversion rate >= {:.2}% with at least {:.0} CNY cost over the last 3 days.{}",
                            industry.name().to_lowercase(),
                            kind.name().to_lowercase(),
                            b.ctr_pct,
                            b.cvr_pct,
                            b.min_cost_cny,
                            if from.is_some() { " Revised 2026-07-01." } else { "" }
                        ),
                        from,
                        until,
                    });
                }
            }
        }
        let docs: Vec<String> = passages
            .iter()
            .map(|p| format!("{} {}", p.title, p.text))
            .collect();
        let index = bm25::Index::new(&docs);
        KnowledgeBase { passages, index }
    }

    /// Every passage.
    pub fn passages(&self) -> &[Passage] {
        &self.passages
    }

    /// The `k` best passages in force on `day` for `query`.
    pub fn search(&self, query: &str, day: Day, k: usize) -> Vec<(&Passage, f64)> {
        self.index
            .search(query, |i| self.passages[i].in_force(day))
            .into_iter()
            .take(k)
            .map(|(i, s)| (&self.passages[i], s))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_change_changes_the_answer() {
        let kb = KnowledgeBase::get();
        let before = kb.search("minimum budget", Day::parse("2025-12-31").expect("date"), 1);
        let after = kb.search("minimum budget", Day::parse("2026-01-01").expect("date"), 1);
        assert_eq!(before[0].0.id, "R03");
        assert_eq!(after[0].0.id, "R04");
        assert!(kb.passages().len() >= 60);
    }
}
