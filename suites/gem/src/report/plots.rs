//! The three GEM-Bench plots as data: quality vs cost per solution, the
//! per-metric means per solution, and the judges' Cohen's κ.

use super::ablation::METRICS;
use super::tables::{judge_metrics, Tables};
use adfarm_proto::report::{Axis, Bars, Chart, HeatMap, Plot, Point, Scatter};
use adfarm_suite::stats;

/// Mean of the defined values.
fn mean(v: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    stats::mean(v.into_iter().flatten())
}

/// Judge Overall (mean over judges and datasets) against cost Overall
/// (mean over datasets), for each solution that has both.
pub(crate) fn quality_vs_cost(t: &Tables) -> Plot {
    let points = t
        .solutions()
        .into_iter()
        .filter_map(|s| {
            let quality = mean(
                t.judge_scores
                    .iter()
                    .filter(|r| r.solution == s)
                    .map(|r| r.overall),
            )?;
            let cost = mean(
                t.cost
                    .iter()
                    .filter(|r| r.solution == s)
                    .map(|r| Some(r.overall)),
            )?;
            Some(Point {
                label: s,
                x: cost,
                y: quality,
            })
        })
        .collect();
    Plot {
        id: "quality-cost".into(),
        caption: format!(
            "Quality (judge Overall, mean over judges and datasets) vs cost ({}·ITTFT + OTTFT) per solution.",
            t.input_ratio
        ),
        chart: Chart::Scatter(Scatter {
            x: Axis {
                label: "cost Overall (tokens per response)".into(),
                min: 0.0,
                max: None,
            },
            y: Axis {
                label: "judge Overall (0–100)".into(),
                min: 0.0,
                max: Some(100.0),
            },
            points,
        }),
    }
}

/// Each judge metric's mean over judges and datasets, and each embedding
/// metric's over datasets, per solution.
pub(crate) fn metric_bars(t: &Tables) -> Plot {
    let solutions = t.solutions();
    let mut metrics: Vec<&str> = judge_metrics();
    metrics.extend(METRICS.iter().map(|(m, _)| *m));
    let values = metrics
        .iter()
        .map(|m| {
            solutions
                .iter()
                .map(|s| {
                    let judged = t
                        .judge_scores
                        .iter()
                        .filter(|r| &r.solution == s)
                        .map(|r| r.metrics.get(*m).and_then(|x| x.mean));
                    let measured = t
                        .effectiveness
                        .iter()
                        .filter(|r| &r.solution == s)
                        .map(|r| r.metrics.get(*m).and_then(|x| x.mean));
                    mean(judged.chain(measured))
                })
                .collect()
        })
        .collect();
    Plot {
        id: "metric-bars".into(),
        caption: "Per-metric means per solution (judge metrics averaged over judges and datasets; embedding metrics over datasets), 0–100.".into(),
        chart: Chart::Bars(Bars {
            y: Axis {
                label: "mean (0–100)".into(),
                min: 0.0,
                max: Some(100.0),
            },
            groups: metrics.iter().map(|m| m.to_string()).collect(),
            series: solutions,
            values,
        }),
    }
}

/// Cohen's κ of every pair of judges (1 on the diagonal).
pub(crate) fn agreement_heatmap(t: &Tables) -> Plot {
    let kappa = |a: &str, b: &str| -> Option<f64> {
        if a == b {
            return Some(1.0);
        }
        t.agreement
            .iter()
            .find(|x| (x.judge_a == a && x.judge_b == b) || (x.judge_a == b && x.judge_b == a))
            .and_then(|x| x.kappa)
    };
    Plot {
        id: "agreement-heatmap".into(),
        caption: "Cohen's κ between judges on the six metrics' verdicts (diagonal: 1).".into(),
        chart: Chart::HeatMap(HeatMap {
            rows: t.judges.clone(),
            columns: t.judges.clone(),
            values: t
                .judges
                .iter()
                .map(|a| t.judges.iter().map(|b| kappa(a, b)).collect())
                .collect(),
            symbol: "κ".into(),
            min: -1.0,
            max: 1.0,
        }),
    }
}
