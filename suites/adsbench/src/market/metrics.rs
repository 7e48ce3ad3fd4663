//! Performance metrics the Ads API reports: impressions, clicks, cost,
//! conversions and conversion value per keyword × date × hour, rolled up to
//! ad groups and campaigns on demand. Conversions land with their lag but
//! are attributed to the click's date and hour, as Google reports them.
//! A second table, per keyword × search term × date, backs a search-terms
//! report (which queries a keyword actually served on).

use std::collections::BTreeMap;
use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

use super::calendar::Date;

/// One row of metrics (Google's `metrics.*` fields, money in micros).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricRow {
    pub impressions: u64,
    pub clicks: u64,
    pub cost_micros: i64,
    pub conversions: f64,
    pub conversions_value_micros: i64,
}

impl MetricRow {
    /// `metrics.conversions_value` in currency units.
    pub fn conversions_value(&self) -> f64 {
        self.conversions_value_micros as f64 / 1e6
    }

    /// Cost per conversion in currency units, `None` without conversions.
    pub fn cpa(&self) -> Option<f64> {
        (self.conversions > 0.0).then(|| self.cost_micros as f64 / 1e6 / self.conversions)
    }

    /// Return on ad spend, `None` without cost.
    pub fn roas(&self) -> Option<f64> {
        (self.cost_micros > 0)
            .then(|| self.conversions_value_micros as f64 / self.cost_micros as f64)
    }
}

impl AddAssign for MetricRow {
    fn add_assign(&mut self, o: MetricRow) {
        self.impressions += o.impressions;
        self.clicks += o.clicks;
        self.cost_micros += o.cost_micros;
        self.conversions += o.conversions;
        self.conversions_value_micros += o.conversions_value_micros;
    }
}

/// Which resource a row belongs to and when (`segments.date`, `segments.hour`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct MetricKey {
    pub campaign_id: u64,
    pub ad_group_id: u64,
    pub criterion_id: u64,
    pub date: Date,
    pub hour: u8,
}

/// A search-terms row's key: the query (an id into the market's query
/// catalogue) that triggered a keyword, per date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SearchTermKey {
    pub campaign_id: u64,
    pub ad_group_id: u64,
    pub criterion_id: u64,
    pub query: u32,
    pub date: Date,
}

impl SearchTermKey {
    fn of(key: &MetricKey, query: u32) -> SearchTermKey {
        SearchTermKey {
            campaign_id: key.campaign_id,
            ad_group_id: key.ad_group_id,
            criterion_id: key.criterion_id,
            query,
            date: key.date,
        }
    }
}

/// Level of a roll-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Level {
    Campaign,
    AdGroup,
    Keyword,
}

/// Keyword-level rows, ordered by (campaign, ad group, keyword, date, hour).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics {
    rows: BTreeMap<MetricKey, MetricRow>,
    search_terms: BTreeMap<SearchTermKey, MetricRow>,
}

impl Metrics {
    /// An impression of the keyword at `key` on search `query`.
    pub fn record_auction(&mut self, key: MetricKey, query: u32, clicked: bool, cost_micros: i64) {
        for r in [
            self.rows.entry(key).or_default(),
            self.search_terms
                .entry(SearchTermKey::of(&key, query))
                .or_default(),
        ] {
            r.impressions += 1;
            r.clicks += u64::from(clicked);
            r.cost_micros += cost_micros;
        }
    }

    /// A conversion of a click at `key` on search `query`.
    pub fn record_conversion(&mut self, key: MetricKey, query: u32, value_micros: i64) {
        for r in [
            self.rows.entry(key).or_default(),
            self.search_terms
                .entry(SearchTermKey::of(&key, query))
                .or_default(),
        ] {
            r.conversions += 1.0;
            r.conversions_value_micros += value_micros;
        }
    }

    /// Every keyword × search term × date row (query text: the market's
    /// `catalog().text(query)`).
    pub fn search_terms(&self) -> impl Iterator<Item = (&SearchTermKey, &MetricRow)> {
        self.search_terms.iter()
    }

    /// Every keyword × date × hour row.
    pub fn rows(&self) -> impl Iterator<Item = (&MetricKey, &MetricRow)> {
        self.rows.iter()
    }

    /// Rows summed to `level`; ids below the level are zero in the keys,
    /// and `by_hour: false` also folds hours (hour 0 in the keys).
    pub fn rollup(&self, level: Level, by_hour: bool) -> BTreeMap<MetricKey, MetricRow> {
        let mut out: BTreeMap<MetricKey, MetricRow> = BTreeMap::new();
        for (k, r) in &self.rows {
            let mut key = *k;
            if level != Level::Keyword {
                key.criterion_id = 0;
            }
            if level == Level::Campaign {
                key.ad_group_id = 0;
            }
            if !by_hour {
                key.hour = 0;
            }
            *out.entry(key).or_default() += *r;
        }
        out
    }

    /// One campaign's totals on one date.
    pub fn campaign_day(&self, campaign_id: u64, date: Date) -> MetricRow {
        self.campaign_where(campaign_id, |k| k.date == date)
    }

    /// One campaign's totals over rows passing `keep`.
    pub fn campaign_where(&self, campaign_id: u64, keep: impl Fn(&MetricKey) -> bool) -> MetricRow {
        let mut total = MetricRow::default();
        let lo = MetricKey {
            campaign_id,
            ad_group_id: 0,
            criterion_id: 0,
            date: Date {
                year: i32::MIN,
                month: 0,
                day: 0,
            },
            hour: 0,
        };
        for (k, r) in self.rows.range(lo..) {
            if k.campaign_id != campaign_id {
                break;
            }
            if keep(k) {
                total += *r;
            }
        }
        total
    }

    /// The whole account's totals on one date.
    pub fn account_day(&self, date: Date) -> MetricRow {
        let mut total = MetricRow::default();
        for (_, r) in self.rows.iter().filter(|(k, _)| k.date == date) {
            total += *r;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rollups_sum_keywords_into_groups_and_campaigns() {
        let date = Date::new(2025, 5, 1).unwrap();
        let key = |c, g, k, hour| MetricKey {
            campaign_id: c,
            ad_group_id: g,
            criterion_id: k,
            date,
            hour,
        };
        let mut m = Metrics::default();
        m.record_auction(key(1, 10, 100, 9), 7, true, 500);
        m.record_auction(key(1, 10, 101, 9), 7, false, 0);
        m.record_auction(key(1, 11, 102, 10), 8, true, 700);
        m.record_auction(key(2, 20, 200, 9), 7, true, 900);
        m.record_auction(key(2, 20, 200, 11), 7, false, 0);
        m.record_conversion(key(1, 10, 100, 9), 7, 30_000_000);
        let camp = m.rollup(Level::Campaign, false);
        let c1 = camp[&key(1, 0, 0, 0)];
        assert_eq!(
            (c1.impressions, c1.clicks, c1.cost_micros, c1.conversions),
            (3, 2, 1200, 1.0)
        );
        assert_eq!(m.rollup(Level::AdGroup, true).len(), 4);
        assert_eq!(m.campaign_day(1, date), c1);
        assert_eq!(m.campaign_day(2, date).cost_micros, 900);
        assert_eq!(m.campaign_day(2, date).impressions, 2);
        assert_eq!(m.account_day(date).impressions, 5);
        let terms: Vec<(u64, u32, u64, f64)> = m
            .search_terms()
            .map(|(k, r)| (k.criterion_id, k.query, r.impressions, r.conversions))
            .collect();
        assert_eq!(
            terms,
            vec![
                (100, 7, 1, 1.0),
                (101, 7, 1, 0.0),
                (102, 8, 1, 0.0),
                (200, 7, 2, 0.0)
            ]
        );
        assert_eq!(c1.cpa(), Some(0.0012));
        assert!((c1.roas().unwrap() - 25_000.0).abs() < 1e-9);
    }
}
