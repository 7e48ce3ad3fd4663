//! The data seam: what the query engine needs from an account.
//!
//! A [`RowSource`] answers two questions: "which entities of resource R
//! exist, with which attributes" and "what did entity E accumulate, hour by
//! hour, within these dates". The engine does the rest (filters, segments,
//! sums, derived ratios, order, paging), so the market only has to expose
//! its counters. Ratios (ctr, average_cpc ...) are never stored: they are
//! computed from the summed counts of each output row, as Google does,
//! because an average of per-hour ratios is not the row's ratio.
//!
//! For the market's account model, implementing the seam means:
//!
//! - `entities(Campaign, fields)`: one [`EntityRow`] per campaign, in a
//!   fixed order (creation order is fine), with `resource_name`
//!   `customers/{c}/campaigns/{id}` and, for each name in `fields`, its
//!   value under the catalog's full name (`campaign.status` as
//!   `Value::Enum("ENABLED")`, money as `Value::Int64` micros, unset as
//!   absent or `Value::Null`); an ad group row also carries its campaign's and
//!   customer's fields, a keyword row its ad group's too;
//! - `stats(resource, name, dates)`: the counters the auction accumulated
//!   for that entity, one [`StatCell`] per (day, hour) with activity, within
//!   `dates`. Summing up the hierarchy is the model's choice (an ad group's
//!   stats are usually the sum of its keywords').

use super::catalog::Resource;
use super::date_range::DateSpan;
use super::value::Value;
use crate::market::Date;
use std::collections::BTreeMap;
use std::ops::AddAssign;

/// One entity (a campaign, an ad group ...) with its attributes and those
/// of the resources above it, keyed by full field name (`campaign.name`,
/// and on an ad group row also `campaign.status`, `customer.id` ...). A
/// field missing from the map reads as null.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EntityRow {
    /// The entity's resource name (`customers/1/campaigns/2`).
    pub resource_name: String,
    /// Attribute values by field name.
    pub attributes: BTreeMap<&'static str, Value>,
}

impl EntityRow {
    /// The attribute `field`, null when absent.
    pub fn get(&self, field: &str) -> Value {
        self.attributes.get(field).cloned().unwrap_or(Value::Null)
    }
}

/// The summable counters behind every metric. Money is in micros of the
/// account currency.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Counts {
    /// Impressions.
    pub impressions: i64,
    /// Clicks.
    pub clicks: i64,
    /// Cost, micros.
    pub cost_micros: i64,
    /// Conversions (fractional under data-driven attribution).
    pub conversions: f64,
    /// Conversion value, in currency units as Google reports it.
    pub conversions_value: f64,
}

impl AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.impressions += o.impressions;
        self.clicks += o.clicks;
        self.cost_micros += o.cost_micros;
        self.conversions += o.conversions;
        self.conversions_value += o.conversions_value;
    }
}

impl Counts {
    /// The metric `name` (`metrics.ctr` ...) over these counts; ratios with
    /// a zero denominator are 0, as Google reports them. `None` for a name
    /// that is not a metric.
    pub fn metric(&self, name: &str) -> Option<Value> {
        let ratio = |num: f64, den: f64| Value::Double(if den == 0.0 { 0.0 } else { num / den });
        let (imp, clk, cost) = (
            self.impressions as f64,
            self.clicks as f64,
            self.cost_micros as f64,
        );
        Some(match name {
            "metrics.impressions" => Value::Int64(self.impressions),
            "metrics.clicks" => Value::Int64(self.clicks),
            "metrics.cost_micros" => Value::Int64(self.cost_micros),
            "metrics.conversions" => Value::Double(self.conversions),
            "metrics.conversions_value" => Value::Double(self.conversions_value),
            "metrics.ctr" => ratio(clk, imp),
            "metrics.average_cpc" => ratio(cost, clk),
            "metrics.average_cpm" => ratio(cost * 1000.0, imp),
            "metrics.cost_per_conversion" => ratio(cost, self.conversions),
            "metrics.conversions_from_interactions_rate" => ratio(self.conversions, clk),
            "metrics.value_per_conversion" => ratio(self.conversions_value, self.conversions),
            _ => return None,
        })
    }
}

/// What one entity accumulated in one hour of one day.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StatCell {
    /// The day.
    pub date: Date,
    /// The hour of the day, 0–23.
    pub hour: u8,
    /// The counters.
    pub counts: Counts,
}

/// The account behind the API, as the query engine reads it. The market's
/// account model implements this; [`InMemoryAccount`](crate::api::memory::InMemoryAccount)
/// is a hand-built one for tests.
pub trait RowSource {
    /// The customer id (`customers/{id}`).
    fn customer_id(&self) -> u64;

    /// Every entity of `resource`, in a stable order (the engine's default
    /// order and its tie-break, so pages stay consistent). Removed entities
    /// are included: GAQL filters them only when asked to. Only the
    /// attributes named in `fields` are read (the query's selected, filtered
    /// and sorted ones); others may be left out, which keeps a 10,000-row
    /// page cheap. `resource` is never a view (`keyword_view`): the engine
    /// serves views from the resource they show.
    fn entities(&self, resource: Resource, fields: &[&'static str]) -> Vec<EntityRow>;

    /// The hourly stats of the entity `resource_name` of `resource` on the
    /// days of `dates` (inclusive; open ends are unbounded). Hours with
    /// nothing may be left out. An ad group's stats are its own (the sum of
    /// its keywords' in a keyword-only account), a customer's the account's.
    /// Cells may repeat a (date, hour): the engine sums them.
    fn stats(&self, resource: Resource, resource_name: &str, dates: DateSpan) -> Vec<StatCell>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_come_from_summed_counts() {
        let mut c = Counts {
            impressions: 100,
            clicks: 1,
            cost_micros: 500_000,
            conversions: 0.0,
            conversions_value: 0.0,
        };
        c += Counts {
            impressions: 100,
            clicks: 9,
            cost_micros: 1_500_000,
            conversions: 2.0,
            conversions_value: 30.0,
        };
        assert_eq!(c.metric("metrics.ctr"), Some(Value::Double(0.05)));
        assert_eq!(
            c.metric("metrics.average_cpc"),
            Some(Value::Double(200_000.0))
        );
        assert_eq!(
            c.metric("metrics.average_cpm"),
            Some(Value::Double(10_000_000.0))
        );
        assert_eq!(
            c.metric("metrics.cost_per_conversion"),
            Some(Value::Double(1_000_000.0))
        );
        assert_eq!(
            c.metric("metrics.value_per_conversion"),
            Some(Value::Double(15.0))
        );
        assert_eq!(
            Counts::default().metric("metrics.ctr"),
            Some(Value::Double(0.0))
        );
        assert_eq!(c.metric("metrics.nope"), None);
    }
}
