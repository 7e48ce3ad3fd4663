//! How a typed table cell reads: as text in a Markdown or HTML table (its
//! column's decimals, `-` when missing), and as a raw value in CSV.

use adfarm_proto::report::{ColumnKind, Value};

/// Decimals a column of `kind` shows (two for kinds without a setting).
fn decimals(kind: ColumnKind) -> usize {
    match kind {
        ColumnKind::Number { decimals }
        | ColumnKind::Percent { decimals }
        | ColumnKind::Usd { decimals }
        | ColumnKind::Estimate { decimals } => usize::from(decimals),
        ColumnKind::Text | ColumnKind::Integer => 2,
    }
}

/// `v` as shown in a column of `kind`: an estimate as `mean ±ci`, a share
/// as a percentage, `-` for a missing value or an estimate without a mean.
pub fn display(kind: ColumnKind, v: Option<&Value>) -> String {
    let d = decimals(kind);
    match v {
        None => "-".to_string(),
        Some(Value::Text(s)) => s.clone(),
        Some(Value::Integer(i)) => i.to_string(),
        Some(Value::Number(x)) => match kind {
            ColumnKind::Percent { .. } => format!("{:.d$}%", x * 100.0),
            _ => format!("{x:.d$}"),
        },
        Some(Value::Estimate(e)) => match (e.mean, e.ci95) {
            (Some(m), Some(c)) => format!("{m:.d$} ±{c:.d$}"),
            (Some(m), None) => format!("{m:.d$}"),
            (None, _) => "-".to_string(),
        },
    }
}

/// `v` for a CSV value field: numbers at full precision (an estimate's
/// mean), empty for an estimate without a mean.
pub fn raw(v: &Value) -> String {
    match v {
        Value::Text(s) => s.clone(),
        Value::Integer(i) => i.to_string(),
        Value::Number(x) => x.to_string(),
        Value::Estimate(e) => e.mean.map_or(String::new(), |m| m.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adfarm_proto::report::Estimate;

    fn estimate(mean: Option<f64>, ci95: Option<f64>) -> Value {
        Value::Estimate(Estimate {
            mean,
            ci95,
            n: 3,
            unscored: 1,
        })
    }

    #[test]
    fn cells_show_their_columns_decimals_and_missing_values_as_a_dash() {
        let est = ColumnKind::Estimate { decimals: 2 };
        assert_eq!(
            display(est, Some(&estimate(Some(40.0), Some(0.5)))),
            "40.00 ±0.50"
        );
        assert_eq!(display(est, Some(&estimate(Some(13.125), None))), "13.12");
        assert_eq!(display(est, Some(&estimate(None, None))), "-");
        assert_eq!(display(est, None), "-");
        let usd = ColumnKind::Usd { decimals: 6 };
        assert_eq!(display(usd, Some(&Value::Number(0.0001234))), "0.000123");
        let pct = ColumnKind::Percent { decimals: 1 };
        assert_eq!(display(pct, Some(&Value::Number(0.4567))), "45.7%");
        assert_eq!(
            display(ColumnKind::Integer, Some(&Value::Integer(10))),
            "10"
        );
        let text = Value::Text("gi-r".into());
        assert_eq!(display(ColumnKind::Text, Some(&text)), "gi-r");
    }

    #[test]
    fn raw_values_keep_full_precision() {
        assert_eq!(raw(&Value::Number(0.0001234)), "0.0001234");
        assert_eq!(raw(&Value::Number(300.0)), "300");
        assert_eq!(raw(&estimate(Some(13.125), Some(0.5))), "13.125");
        assert_eq!(raw(&estimate(None, None)), "");
        assert_eq!(raw(&Value::Integer(4)), "4");
    }
}
