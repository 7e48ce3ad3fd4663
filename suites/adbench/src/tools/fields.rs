//! Report fields: their tool names, display labels and how each is computed
//! from summed counters. Ratios use summed numerators and denominators, and
//! are null where the denominator is zero rather than a misleading 0.

use serde_json::Value;

use crate::world::Counts;

/// A metric a report can return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Field {
    /// Cost in CNY.
    Cost,
    /// Valid clicks.
    ValidClickCount,
    /// Impressions.
    ViewCount,
    /// Clicks / impressions, percent.
    Ctr,
    /// Cost / clicks, CNY.
    Cpc,
    /// Conversions.
    ConversionsCount,
    /// Conversions / clicks, percent.
    ConversionsRate,
    /// Cost / conversions, CNY.
    ConversionsCost,
    /// Deep conversions.
    DeepConversionsCount,
    /// Deep conversions / conversions, percent.
    DeepConversionsRate,
    /// Cost / deep conversions, CNY.
    DeepConversionsCost,
}

impl Field {
    /// Every field, in tool-name order.
    pub const ALL: [Field; 11] = [
        Field::Cost,
        Field::ValidClickCount,
        Field::ViewCount,
        Field::Ctr,
        Field::Cpc,
        Field::ConversionsCount,
        Field::ConversionsRate,
        Field::ConversionsCost,
        Field::DeepConversionsCount,
        Field::DeepConversionsRate,
        Field::DeepConversionsCost,
    ];

    /// Name in tool arguments.
    pub fn name(self) -> &'static str {
        match self {
            Field::Cost => "cost",
            Field::ValidClickCount => "valid_click_count",
            Field::ViewCount => "view_count",
            Field::Ctr => "ctr",
            Field::Cpc => "cpc",
            Field::ConversionsCount => "conversions_count",
            Field::ConversionsRate => "conversions_rate",
            Field::ConversionsCost => "conversions_cost",
            Field::DeepConversionsCount => "deep_conversions_count",
            Field::DeepConversionsRate => "deep_conversions_rate",
            Field::DeepConversionsCost => "deep_conversions_cost",
        }
    }

    /// Parses a tool-argument name.
    pub fn parse(s: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.name() == s)
    }

    /// Column label in result rows.
    pub fn label(self) -> &'static str {
        match self {
            Field::Cost => "Cost (CNY)",
            Field::ValidClickCount => "Valid clicks",
            Field::ViewCount => "Impressions",
            Field::Ctr => "CTR (%)",
            Field::Cpc => "CPC (CNY)",
            Field::ConversionsCount => "Conversions",
            Field::ConversionsRate => "Conversion rate (%)",
            Field::ConversionsCost => "Cost per conversion (CNY)",
            Field::DeepConversionsCount => "Deep conversions",
            Field::DeepConversionsRate => "Deep conversion rate (%)",
            Field::DeepConversionsCost => "Cost per deep conversion (CNY)",
        }
    }

    /// The field's value for summed counters, as a number (None when undefined).
    pub fn number(self, c: &Counts) -> Option<f64> {
        let cny = c.cost as f64 / 100.0;
        let ratio = |num: f64, den: u64, scale: f64| {
            if den == 0 {
                None
            } else {
                Some(round2(num / den as f64 * scale))
            }
        };
        match self {
            Field::Cost => Some(round2(cny)),
            Field::ValidClickCount => Some(c.clicks as f64),
            Field::ViewCount => Some(c.views as f64),
            Field::Ctr => ratio(c.clicks as f64, c.views, 100.0),
            Field::Cpc => ratio(cny, c.clicks, 1.0),
            Field::ConversionsCount => Some(c.conversions as f64),
            Field::ConversionsRate => ratio(c.conversions as f64, c.clicks, 100.0),
            Field::ConversionsCost => ratio(cny, c.conversions, 1.0),
            Field::DeepConversionsCount => Some(c.deep as f64),
            Field::DeepConversionsRate => ratio(c.deep as f64, c.conversions, 100.0),
            Field::DeepConversionsCost => ratio(cny, c.deep, 1.0),
        }
    }

    /// The field's value as JSON: integers for counts, 2-decimal numbers
    /// for money and percentages, null when undefined.
    pub fn value(self, c: &Counts) -> Value {
        match self {
            Field::ValidClickCount => c.clicks.into(),
            Field::ViewCount => c.views.into(),
            Field::ConversionsCount => c.conversions.into(),
            Field::DeepConversionsCount => c.deep.into(),
            _ => self.number(c).map_or(Value::Null, Value::from),
        }
    }
}

/// Rounds to cents / hundredths of a percent, as the platform displays.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_come_from_counts() {
        let c = Counts {
            views: 1000,
            clicks: 20,
            cost: 5000,
            conversions: 4,
            deep: 0,
        };
        assert_eq!(Field::Ctr.value(&c), Value::from(2.0));
        assert_eq!(Field::Cpc.value(&c), Value::from(2.5));
        assert_eq!(Field::ConversionsCost.value(&c), Value::from(12.5));
        assert_eq!(Field::DeepConversionsCost.value(&c), Value::Null);
        assert!(Field::ALL
            .iter()
            .all(|f| Field::parse(f.name()) == Some(*f)));
    }
}
