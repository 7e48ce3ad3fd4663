//! A conversion-tracking outage: from a moment of the market's clock on,
//! the API reports no conversions and no conversion value for the hours
//! it covers, as Google Ads shows nothing a broken tag never sent. The
//! market still records every conversion (its reports and an episode's
//! KPIs keep them); only what searches return hides them, so an agent
//! sees the symptom (clicks and cost, no conversions) in its data.

use crate::gaql::{EntityRow, Resource, RowSource, StatCell};
use crate::market::{Date, Market, TICKS_PER_DAY};

/// The outage: every hour from its start to the episode's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrackingOutage {
    /// The first day it covers.
    pub date: Date,
    /// Its first hour that day, 0–23 (the hour its tick falls in).
    pub hour: u8,
}

impl TrackingOutage {
    /// The outage starting at tick `tick` of day `date`.
    pub fn at(date: Date, tick: u32) -> TrackingOutage {
        let ticks_per_hour = TICKS_PER_DAY / 24;
        TrackingOutage {
            date,
            hour: u8::try_from(tick / ticks_per_hour).map_or(23, |h| h.min(23)),
        }
    }

    /// Whether it covers the hour `hour` of `date`.
    pub fn covers(&self, date: Date, hour: u8) -> bool {
        (date, hour) >= (self.date, self.hour)
    }
}

/// The market as searches read it under an optional outage.
pub(super) struct Tracked<'a> {
    pub(super) market: &'a Market,
    pub(super) outage: Option<TrackingOutage>,
}

impl RowSource for Tracked<'_> {
    fn customer_id(&self) -> u64 {
        self.market.customer_id()
    }

    fn entities(&self, resource: Resource, fields: &[&'static str]) -> Vec<EntityRow> {
        self.market.entities(resource, fields)
    }

    fn stats(
        &self,
        resource: Resource,
        resource_name: &str,
        dates: crate::gaql::DateSpan,
    ) -> Vec<StatCell> {
        let mut cells = self.market.stats(resource, resource_name, dates);
        if let Some(outage) = self.outage {
            for c in cells.iter_mut().filter(|c| outage.covers(c.date, c.hour)) {
                c.counts.conversions = 0.0;
                c.counts.conversions_value = 0.0;
            }
        }
        cells
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outage_covers_its_hour_and_everything_after() {
        let day = Date::new(2025, 5, 13).expect("a date");
        let o = TrackingOutage::at(day, 18);
        assert_eq!(o.hour, 9);
        assert!(!o.covers(day, 8));
        assert!(o.covers(day, 9) && o.covers(day, 23));
        assert!(o.covers(day.plus_days(1), 0));
        assert!(!o.covers(day.plus_days(-1), 23));
        assert_eq!(TrackingOutage::at(day, 47).hour, 23);
    }
}
