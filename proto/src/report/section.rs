//! Report sections: what a suite adds to a sweep's report, as data. A
//! section holds tables of typed cells and plots; the coordinator renders
//! any of them as Markdown, CSV, JSON or HTML without knowing the suite.
//!
//! Design decision: a table says what its values are (columns typed as
//! counts, numbers, percentages, USD or mean ± 95% CI) and where each sits
//! in the farm's coordinates (dataset, solution, scorer), never how it is
//! drawn. So the same table is a Markdown grid, HTML, and the long form of
//! the CSV (one line per value), and JSON readers find values by column id.

use crate::report::CellRow;
use serde::{Deserialize, Serialize};

/// A part of the report that a suite builds: a heading, an introduction,
/// tables, notes and plots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// The suite that built it (sweep-file name).
    pub suite: String,
    /// Stable id, unique among the suite's sections: the `section` column of
    /// the CSV long form.
    pub id: String,
    /// Heading.
    pub title: String,
    /// Paragraph under the heading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intro: Option<String>,
    /// Tables, in reading order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<Table>,
    /// Sentences after the tables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Plots, drawn in HTML only (their numbers are in the tables).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plots: Vec<Plot>,
}

/// A table of typed cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Stable id, unique among the suite's tables and plots; the HTML
    /// element id is `<suite>-<id>`.
    pub id: String,
    /// Sub-heading, for a section with several tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The scorer every value of the table belongs to (one judge's table),
    /// for the long form; see [`Column::scorer`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scorer: Option<String>,
    /// Columns, in display order.
    pub columns: Vec<Column>,
    /// Rows: one cell per column, `None` where the value is missing.
    pub rows: Vec<Vec<Option<Value>>>,
    /// Sentences under the table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One column: what its values are and where they sit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    /// Stable name (a metric name, `overall`...): the `column` of the CSV
    /// long form, and how JSON readers find a value.
    pub id: String,
    /// Heading shown.
    pub header: String,
    /// Type of its cells and how they are shown.
    pub kind: ColumnKind,
    /// Set when the column identifies the row rather than holding values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<Key>,
    /// The scorer its values belong to, when a table has a column per
    /// judge or embedder. A value's scorer is this, else its row's
    /// [`Key::Scorer`] cells joined by `~` (a pair of judges), else the
    /// table's [`Table::scorer`], else none (`-`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scorer: Option<String>,
}

impl Column {
    /// A column of values.
    pub fn new(id: impl Into<String>, header: impl Into<String>, kind: ColumnKind) -> Column {
        Column {
            id: id.into(),
            header: header.into(),
            kind,
            key: None,
            scorer: None,
        }
    }

    /// A text column that gives its rows coordinate `key`.
    pub fn key(id: impl Into<String>, header: impl Into<String>, key: Key) -> Column {
        Column {
            key: Some(key),
            ..Column::new(id, header, ColumnKind::Text)
        }
    }

    /// This column, its values belonging to `scorer`.
    pub fn scored_by(self, scorer: impl Into<String>) -> Column {
        Column {
            scorer: Some(scorer.into()),
            ..self
        }
    }
}

/// Which coordinate a key column gives its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Key {
    /// The dataset.
    Dataset,
    /// The solution (or agent).
    Solution,
    /// A scorer (judge, embedder); two in a row name a pair.
    Scorer,
}

/// The type of a column's cells, with how many decimals to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ColumnKind {
    /// Text ([`Value::Text`]).
    Text,
    /// A count ([`Value::Integer`]).
    Integer,
    /// A number ([`Value::Number`]).
    Number {
        /// Decimals shown.
        decimals: u8,
    },
    /// A share in [0, 1] ([`Value::Number`]), shown as a percentage.
    Percent {
        /// Decimals of the percentage shown.
        decimals: u8,
    },
    /// An amount of US dollars ([`Value::Number`]).
    Usd {
        /// Decimals shown.
        decimals: u8,
    },
    /// A mean with its 95% CI ([`Value::Estimate`]), shown `mean ±ci`.
    Estimate {
        /// Decimals of mean and half-width.
        decimals: u8,
    },
}

/// One cell's value; its column's [`ColumnKind`] says which variant it is.
/// Untagged in JSON: a string, an integer, a number or an estimate object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A count. Listed before `Number` so that JSON integers read back as
    /// counts and JSON floats as numbers.
    Integer(i64),
    /// A number, share or amount.
    Number(f64),
    /// Text.
    Text(String),
    /// A mean with its interval and counts.
    Estimate(Estimate),
}

/// A metric's mean over scored values, with its 95% CI half-width and how
/// many values were scored and left unscored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Mean; `None` when nothing was scored.
    pub mean: Option<f64>,
    /// 95% CI half-width; `None` below two scored values.
    pub ci95: Option<f64>,
    /// Scored values.
    pub n: i64,
    /// Values left unscored (every reason).
    pub unscored: i64,
}

impl From<&CellRow> for Estimate {
    fn from(c: &CellRow) -> Estimate {
        Estimate {
            mean: c.mean,
            ci95: c.ci95,
            n: c.n,
            unscored: c.unscored.values().sum(),
        }
    }
}

/// A plot, drawn from data in the HTML report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plot {
    /// Stable id, unique among the suite's tables and plots; the HTML
    /// element id is `<suite>-<id>`.
    pub id: String,
    /// Sentence under the plot: what is drawn and how it was reduced.
    pub caption: String,
    /// What is drawn.
    pub chart: Chart,
}

/// The kinds of plot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Chart {
    /// Labelled points (quality vs cost per solution).
    Scatter(Scatter),
    /// Grouped bars (a metric per group, a solution per bar).
    Bars(Bars),
    /// A coloured grid (agreement of judge pairs).
    HeatMap(HeatMap),
}

/// An axis of a scatter or bar plot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    /// Label.
    pub label: String,
    /// Lowest value drawn.
    pub min: f64,
    /// Highest value drawn; `None`: a tenth above the largest value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
}

/// Labelled points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scatter {
    /// Horizontal axis.
    pub x: Axis,
    /// Vertical axis.
    pub y: Axis,
    /// Points.
    pub points: Vec<Point>,
}

/// One point of a scatter plot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// What it stands for (a solution).
    pub label: String,
    /// Horizontal value.
    pub x: f64,
    /// Vertical value.
    pub y: f64,
}

/// Grouped bars: one group per entry of `groups`, one bar per series in
/// each, each series in its own colour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bars {
    /// Vertical axis (values are clamped into it).
    pub y: Axis,
    /// Group names along the horizontal axis (metrics).
    pub groups: Vec<String>,
    /// Series names, the legend (solutions).
    pub series: Vec<String>,
    /// `values[group][series]`; `None` draws no bar.
    pub values: Vec<Vec<Option<f64>>>,
}

/// A grid coloured on a diverging scale: white at the middle of
/// `[min, max]`, blue towards `max`, red towards `min`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeatMap {
    /// Row names.
    pub rows: Vec<String>,
    /// Column names.
    pub columns: Vec<String>,
    /// `values[row][column]`; `None` is drawn grey.
    pub values: Vec<Vec<Option<f64>>>,
    /// Name of the value in tooltips, e.g. `κ`.
    pub symbol: String,
    /// Value at the red end.
    pub min: f64,
    /// Value at the blue end.
    pub max: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn values_round_trip_untagged_and_integers_stay_counts() {
        let row = vec![
            Some(Value::Text("gi-r".into())),
            Some(Value::Integer(10)),
            Some(Value::Number(300.0)),
            Some(Value::Estimate(Estimate {
                mean: Some(40.0),
                ci95: None,
                n: 3,
                unscored: 1,
            })),
            None,
        ];
        let json = serde_json::to_string(&row).expect("serialises");
        assert_eq!(
            json,
            r#"["gi-r",10,300.0,{"mean":40.0,"ci95":null,"n":3,"unscored":1},null]"#
        );
        let back: Vec<Option<Value>> = serde_json::from_str(&json).expect("parses");
        assert_eq!(back, row);
    }

    #[test]
    fn column_kinds_and_charts_are_tagged_by_type() {
        let kind = serde_json::to_value(ColumnKind::Percent { decimals: 1 }).expect("JSON");
        assert_eq!(kind, serde_json::json!({"type": "percent", "decimals": 1}));
        let plot = Plot {
            id: "p".into(),
            caption: "c".into(),
            chart: Chart::HeatMap(HeatMap {
                rows: vec!["a".into()],
                columns: vec!["a".into()],
                values: vec![vec![Some(1.0)]],
                symbol: "κ".into(),
                min: -1.0,
                max: 1.0,
            }),
        };
        let json = serde_json::to_value(&plot).expect("JSON");
        assert_eq!(json["chart"]["type"], "heat-map");
        assert_eq!(serde_json::from_value::<Plot>(json).expect("parses"), plot);
    }

    #[test]
    fn an_estimate_counts_every_unscored_reason() {
        let cell = CellRow {
            suite: "s".into(),
            dataset: "d".into(),
            solution: "x".into(),
            judge: "-".into(),
            metric: "m".into(),
            n: 4,
            unscored: BTreeMap::from([("a".to_string(), 2), ("b".to_string(), 1)]),
            mean: Some(1.5),
            std: Some(0.1),
            ci95: Some(0.2),
        };
        let e = Estimate::from(&cell);
        assert_eq!(
            (e.n, e.unscored, e.mean, e.ci95),
            (4, 3, Some(1.5), Some(0.2))
        );
    }
}
