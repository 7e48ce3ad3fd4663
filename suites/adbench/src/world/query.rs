//! Scoped, grouped sums over the world: the engine behind the daily and
//! hourly report tools. Each grouping reads only the level of the generator
//! it needs (ad-group days for time and entity keys, creative cells for
//! site sets and materials, audience splits for demographics).

use std::collections::BTreeMap;

use super::audience::Audience;
use super::calendar::Day;
use super::catalog::{CreativeType, SiteSet};
use super::counts::Counts;
use super::World;

/// Which rows a query reads: some accounts, optionally one ad group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// Account indices.
    pub accounts: Vec<usize>,
    /// Ad group index, when the query names one.
    pub adgroup: Option<usize>,
}

/// Groupings of the daily report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DailyGrouping {
    /// One total row.
    Sum,
    /// One row per day.
    Date,
    /// One row per calendar month.
    Month,
    /// One row per ISO week.
    Week,
    /// One row per site set.
    SiteSet,
    /// One row per ad group.
    AdGroup,
    /// One row per account.
    Account,
    /// One row per creative.
    Creative,
    /// One row per video material (video creatives only).
    MaterialVideo,
    /// One row per image material (image creatives only).
    MaterialImage,
    /// One row per promoted product.
    MarketingAsset,
    /// One row per gender.
    Gender,
    /// One row per age band.
    Age,
    /// One row per province.
    Region,
    /// One row per city.
    City,
}

impl DailyGrouping {
    /// Every grouping with its tool name.
    pub const ALL: [(DailyGrouping, &'static str); 15] = [
        (DailyGrouping::Sum, "SUM"),
        (DailyGrouping::Date, "DATE"),
        (DailyGrouping::Month, "MONTH"),
        (DailyGrouping::Week, "WEEK"),
        (DailyGrouping::SiteSet, "SITE_SET"),
        (DailyGrouping::AdGroup, "ADGROUP_ID"),
        (DailyGrouping::Account, "ACCOUNT_ID"),
        (DailyGrouping::Creative, "CREATIVE_ID"),
        (DailyGrouping::MaterialVideo, "MATERIAL_VIDEO"),
        (DailyGrouping::MaterialImage, "MATERIAL_IMAGE"),
        (DailyGrouping::MarketingAsset, "MARKETING_ASSET"),
        (DailyGrouping::Gender, "GENDER"),
        (DailyGrouping::Age, "AGE"),
        (DailyGrouping::Region, "REGION"),
        (DailyGrouping::City, "CITY"),
    ];

    /// Parses a tool name.
    pub fn parse(s: &str) -> Option<DailyGrouping> {
        DailyGrouping::ALL
            .iter()
            .find(|(_, n)| *n == s)
            .map(|(g, _)| *g)
    }
}

/// Groupings of the hourly report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HourlyGrouping {
    /// One total row.
    Sum,
    /// One row per hour.
    Hour,
    /// One row per account.
    Account,
    /// One row per ad group.
    AdGroup,
    /// One row per ad group and hour.
    AdGroupHour,
    /// One row per creative.
    Creative,
    /// One row per creative and hour.
    CreativeHour,
}

impl HourlyGrouping {
    /// Every grouping with its tool name.
    pub const ALL: [(HourlyGrouping, &'static str); 7] = [
        (HourlyGrouping::Sum, "SUM"),
        (HourlyGrouping::Hour, "HOUR"),
        (HourlyGrouping::Account, "ACCOUNT_ID"),
        (HourlyGrouping::AdGroup, "ADGROUP_ID"),
        (HourlyGrouping::AdGroupHour, "ADGROUP_ID_AND_HOUR"),
        (HourlyGrouping::Creative, "CREATIVE_ID"),
        (HourlyGrouping::CreativeHour, "CREATIVE_ID_AND_HOUR"),
    ];

    /// Parses a tool name.
    pub fn parse(s: &str) -> Option<HourlyGrouping> {
        HourlyGrouping::ALL
            .iter()
            .find(|(_, n)| *n == s)
            .map(|(g, _)| *g)
    }
}

/// The key of a result row. Indices refer to the world's tables; ordering
/// is the default row order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// The single total row.
    Sum,
    /// A day.
    Date(Day),
    /// A month, by its first day.
    Month(Day),
    /// An ISO week, by its Monday.
    Week(Day),
    /// A site set.
    Site(SiteSet),
    /// An account index.
    Account(usize),
    /// An ad group index.
    AdGroup(usize),
    /// A creative index.
    Creative(usize),
    /// A material id and its type.
    Material(CreativeType, u64),
    /// A marketing asset: account index and asset index.
    Asset(usize, usize),
    /// Gender index.
    Gender(usize),
    /// Age band index.
    Age(usize),
    /// Region index.
    Region(usize),
    /// City index.
    City(usize),
    /// Hour of day.
    Hour(u8),
    /// Ad group index and hour.
    AdGroupHour(usize, u8),
    /// Creative index and hour.
    CreativeHour(usize, u8),
}

impl World {
    /// Ad group indices in scope, in account then launch order.
    pub fn scoped_groups(&self, scope: &Scope) -> Vec<usize> {
        match scope.adgroup {
            Some(g) => vec![g],
            None => scope
                .accounts
                .iter()
                .flat_map(|&a| self.accounts()[a].groups.iter().copied())
                .collect(),
        }
    }

    /// Daily report: sums over days `begin..=end` (clipped to the history
    /// and to today) of the scoped ad groups, grouped. Rows with no delivery
    /// are dropped, except the single `Sum` row.
    pub fn daily(
        &self,
        scope: &Scope,
        begin: Day,
        end: Day,
        grouping: DailyGrouping,
    ) -> Vec<(Key, Counts)> {
        let mut rows: BTreeMap<Key, Counts> = BTreeMap::new();
        let begin = begin.max(self.history_start());
        let end = end.min(self.today());
        let mut cells = Vec::new();
        let mut parts = Vec::new();
        let mut pending: Option<(Key, Counts)> = None;
        for g in self.scoped_groups(scope) {
            let group = &self.groups()[g];
            let from = begin.max(group.launch);
            let to = end.min(group.end.plus(-1));
            let mut day = from;
            while day <= to {
                match grouping {
                    DailyGrouping::SiteSet
                    | DailyGrouping::Creative
                    | DailyGrouping::MaterialVideo
                    | DailyGrouping::MaterialImage => {
                        self.day_cells(g, day, &mut cells);
                        for c in &cells {
                            let cr = &self.creatives()[c.creative];
                            let key = match grouping {
                                DailyGrouping::SiteSet => Key::Site(c.site),
                                DailyGrouping::Creative => Key::Creative(c.creative),
                                _ => Key::Material(cr.kind, cr.material),
                            };
                            let wanted = match grouping {
                                DailyGrouping::MaterialVideo => cr.kind == CreativeType::Video,
                                DailyGrouping::MaterialImage => cr.kind == CreativeType::Image,
                                _ => true,
                            };
                            if wanted {
                                *rows.entry(key).or_default() += c.counts;
                            }
                        }
                    }
                    DailyGrouping::Gender
                    | DailyGrouping::Age
                    | DailyGrouping::Region
                    | DailyGrouping::City => {
                        let total = self.group_day(g, day);
                        if !total.is_zero() {
                            let (dim, make): (Audience, fn(usize) -> Key) = match grouping {
                                DailyGrouping::Gender => (Audience::Gender, Key::Gender),
                                DailyGrouping::Age => (Audience::Age, Key::Age),
                                DailyGrouping::Region => (Audience::Region, Key::Region),
                                _ => (Audience::City, Key::City),
                            };
                            self.audience_split(g, day, total, dim, &mut parts);
                            for (i, p) in parts.iter().enumerate() {
                                *rows.entry(make(i)).or_default() += *p;
                            }
                        }
                    }
                    _ => {
                        let total = self.group_day(g, day);
                        let key = match grouping {
                            DailyGrouping::Date => Key::Date(day),
                            DailyGrouping::Month => Key::Month(day.month_start()),
                            DailyGrouping::Week => Key::Week(day.week_start()),
                            DailyGrouping::AdGroup => Key::AdGroup(g),
                            DailyGrouping::Account => Key::Account(group.account),
                            DailyGrouping::MarketingAsset => Key::Asset(group.account, group.asset),
                            _ => Key::Sum,
                        };
                        // Consecutive days mostly share a key: add locally, flush on change.
                        match &mut pending {
                            Some((k, acc)) if *k == key => *acc += total,
                            _ => {
                                if let Some((k, acc)) = pending.replace((key, total)) {
                                    *rows.entry(k).or_default() += acc;
                                }
                            }
                        }
                    }
                }
                day = day.plus(1);
            }
        }
        if let Some((k, acc)) = pending {
            *rows.entry(k).or_default() += acc;
        }
        finish(rows, grouping == DailyGrouping::Sum)
    }

    /// Hourly report for one day of the scoped ad groups. On today only the
    /// hours before the world's hour have data.
    pub fn hourly(&self, scope: &Scope, day: Day, grouping: HourlyGrouping) -> Vec<(Key, Counts)> {
        let mut rows: BTreeMap<Key, Counts> = BTreeMap::new();
        let mut cells = Vec::new();
        let mut hours = Vec::new();
        let last_hour = if day == self.today() { self.hour() } else { 24 };
        let in_history = day >= self.history_start() && day <= self.today();
        let groups = if in_history {
            self.scoped_groups(scope)
        } else {
            Vec::new()
        };
        for g in groups {
            let group = &self.groups()[g];
            if day < group.launch || day >= group.end {
                continue;
            }
            self.day_cells_full(g, day, &mut cells);
            for c in &cells {
                self.cell_hours(g, day, c, &mut hours);
                for (h, counts) in hours.iter().enumerate().take(last_hour as usize) {
                    let h8 = h as u8;
                    let key = match grouping {
                        HourlyGrouping::Sum => Key::Sum,
                        HourlyGrouping::Hour => Key::Hour(h8),
                        HourlyGrouping::Account => Key::Account(group.account),
                        HourlyGrouping::AdGroup => Key::AdGroup(g),
                        HourlyGrouping::AdGroupHour => Key::AdGroupHour(g, h8),
                        HourlyGrouping::Creative => Key::Creative(c.creative),
                        HourlyGrouping::CreativeHour => Key::CreativeHour(c.creative, h8),
                    };
                    *rows.entry(key).or_default() += *counts;
                }
            }
        }
        finish(rows, grouping == HourlyGrouping::Sum)
    }
}

fn finish(rows: BTreeMap<Key, Counts>, is_sum: bool) -> Vec<(Key, Counts)> {
    if is_sum {
        return vec![(Key::Sum, rows.values().copied().sum())];
    }
    rows.into_iter().filter(|(_, c)| !c.is_zero()).collect()
}
