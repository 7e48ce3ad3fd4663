//! Plots as inline SVG for the HTML page: labelled scatter points, grouped
//! bars and a diverging heat map, each in a `<figure>` with its caption.
//! Marks carry a `<title>` (the browser's tooltip) with their values.

use super::html::esc;
use super::num;
use adfarm_proto::report::{Axis, Bars, Chart, HeatMap, Plot, Scatter};
use std::fmt::Write;

/// Series colours, cycled.
const COLOURS: [&str; 8] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];

fn colour(i: usize) -> &'static str {
    COLOURS[i % COLOURS.len()]
}

/// Draws `p` as `<svg id="{id}">` in a figure.
pub fn plot(out: &mut String, id: &str, p: &Plot) {
    out.push_str("<figure>");
    match &p.chart {
        Chart::Scatter(s) => scatter(out, id, s),
        Chart::Bars(b) => bars(out, id, b),
        Chart::HeatMap(h) => heat_map(out, id, h),
    }
    let _ = writeln!(
        out,
        "</svg><figcaption>{}</figcaption></figure>",
        esc(&p.caption)
    );
}

/// The highest value an axis draws: its own, else a tenth above the data
/// (and above `min + 1`, so an all-zero axis still has a length).
fn top(axis: &Axis, values: impl Iterator<Item = f64>) -> f64 {
    axis.max
        .unwrap_or_else(|| values.fold(axis.min + 1.0, f64::max) * 1.1)
}

/// Where `v` falls between `lo` and `hi`, as a fraction (0 for an empty
/// range).
fn frac(v: f64, lo: f64, hi: f64) -> f64 {
    if hi > lo {
        (v - lo) / (hi - lo)
    } else {
        0.0
    }
}

fn open(out: &mut String, id: &str, w: f64, h: f64, label: &str) {
    let _ = write!(
        out,
        "<svg id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" role=\"img\" aria-label=\"{}\">",
        esc(id),
        esc(label)
    );
}

fn scatter(out: &mut String, id: &str, s: &Scatter) {
    let (w, h, pad) = (560.0, 340.0, 50.0);
    let (x0, x1) = (s.x.min, top(&s.x, s.points.iter().map(|p| p.x)));
    let (y0, y1) = (s.y.min, top(&s.y, s.points.iter().map(|p| p.y)));
    open(out, id, w, h, &format!("{} vs {}", s.y.label, s.x.label));
    let _ = write!(
        out,
        "<line x1=\"{pad}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/><line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{}\" stroke=\"#333\"/>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">{}</text>\
         <text x=\"14\" y=\"{}\" font-size=\"12\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">{}</text>\
         <text x=\"{pad}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{x0:.0}</text><text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{x1:.0}</text>\
         <text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">{y0:.0}</text><text x=\"{}\" y=\"{pad}\" font-size=\"10\" text-anchor=\"end\">{y1:.0}</text>",
        h - pad,
        w - pad,
        h - pad,
        h - pad,
        w / 2.0,
        h - 10.0,
        esc(&s.x.label),
        h / 2.0,
        h / 2.0,
        esc(&s.y.label),
        h - pad + 14.0,
        w - pad,
        h - pad + 14.0,
        pad - 4.0,
        h - pad,
        pad - 4.0,
    );
    for (i, p) in s.points.iter().enumerate() {
        let x = pad + frac(p.x, x0, x1) * (w - 2.0 * pad);
        let y = h - pad - frac(p.y, y0, y1) * (h - 2.0 * pad);
        let _ = write!(
            out,
            "<circle class=\"point\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"5\" fill=\"{}\"><title>{}: {} {:.2}, {} {:.2}</title></circle><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{}</text>",
            colour(i),
            esc(&p.label),
            esc(&s.y.label),
            p.y,
            esc(&s.x.label),
            p.x,
            x + 7.0,
            // Alternate label sides so coinciding points stay readable.
            if i % 2 == 0 { y - 4.0 } else { y + 14.0 },
            esc(&p.label)
        );
    }
    if s.points.is_empty() {
        let _ = write!(out, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">no points to plot</text>", w / 2.0, h / 2.0);
    }
}

fn bars(out: &mut String, id: &str, b: &Bars) {
    let group = (b.series.len().max(1) as f64) * 10.0 + 14.0;
    let (pad, h) = (40.0, 300.0);
    let w = pad * 2.0 + group * b.groups.len() as f64;
    let values = b.values.iter().flatten().flatten().copied();
    let (y0, y1) = (b.y.min, top(&b.y, values));
    open(out, id, w, h + 70.0, &b.y.label);
    let _ = write!(
        out,
        "<line x1=\"{pad}\" y1=\"{}\" x2=\"{:.0}\" y2=\"{}\" stroke=\"#333\"/><text x=\"{}\" y=\"{pad}\" font-size=\"10\" text-anchor=\"end\">{y1:.0}</text>\
         <text x=\"12\" y=\"{}\" font-size=\"11\" transform=\"rotate(-90 12 {})\" text-anchor=\"middle\">{}</text>",
        h - pad,
        w - pad,
        h - pad,
        pad - 4.0,
        h / 2.0,
        h / 2.0,
        esc(&b.y.label)
    );
    for (gi, g) in b.groups.iter().enumerate() {
        let x0 = pad + gi as f64 * group + 7.0;
        let row = b.values.get(gi).map_or(&[][..], Vec::as_slice);
        for (si, s) in b.series.iter().enumerate() {
            let Some(v) = row.get(si).copied().flatten() else {
                continue;
            };
            let bh = frac(v.clamp(y0, y1), y0, y1) * (h - 2.0 * pad);
            let _ = write!(
                out,
                "<rect class=\"bar\" x=\"{:.1}\" y=\"{:.1}\" width=\"9\" height=\"{bh:.1}\" fill=\"{}\"><title>{} {}: {v:.2}</title></rect>",
                x0 + si as f64 * 10.0,
                h - pad - bh,
                colour(si),
                esc(s),
                esc(g)
            );
        }
        let _ = write!(
            out,
            "<text x=\"{x0:.1}\" y=\"{:.1}\" font-size=\"10\" transform=\"rotate(45 {x0:.1} {:.1})\">{}</text>",
            h - pad + 12.0,
            h - pad + 12.0,
            esc(g)
        );
    }
    for (si, s) in b.series.iter().enumerate() {
        let _ = write!(
            out,
            "<rect x=\"{:.0}\" y=\"8\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.0}\" y=\"17\" font-size=\"11\">{}</text>",
            pad + si as f64 * 90.0,
            colour(si),
            pad + si as f64 * 90.0 + 13.0,
            esc(s)
        );
    }
}

/// Colour of `v` on a diverging scale over `[lo, hi]`: white at the
/// middle, blue towards `hi`, red towards `lo`.
fn heat(v: f64, lo: f64, hi: f64) -> String {
    let k = (2.0 * frac(v, lo, hi) - 1.0).clamp(-1.0, 1.0);
    let (r, g, b) = if k >= 0.0 {
        (255.0 * (1.0 - k), 255.0 * (1.0 - 0.6 * k), 255.0)
    } else {
        (255.0, 255.0 * (1.0 + k), 255.0 * (1.0 + k))
    };
    format!("rgb({r:.0},{g:.0},{b:.0})")
}

fn heat_map(out: &mut String, id: &str, m: &HeatMap) {
    let (cell, left, top) = (70.0, 150.0, 30.0);
    let w = left + cell * m.columns.len() as f64 + 10.0;
    let h = top + cell * m.rows.len() as f64 + 30.0;
    open(out, id, w, h, &format!("{} heat map", m.symbol));
    for (j, col) in m.columns.iter().enumerate() {
        let _ = write!(
            out,
            "<text x=\"{:.0}\" y=\"{:.0}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            left + j as f64 * cell + cell / 2.0,
            top - 8.0,
            esc(col)
        );
    }
    for (i, row) in m.rows.iter().enumerate() {
        let y = top + i as f64 * cell;
        let _ = write!(
            out,
            "<text x=\"{:.0}\" y=\"{:.0}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            y + cell / 2.0 + 4.0,
            esc(row)
        );
        let values = m.values.get(i).map_or(&[][..], Vec::as_slice);
        for (j, col) in m.columns.iter().enumerate() {
            let x = left + j as f64 * cell;
            let v = values.get(j).copied().flatten();
            let fill = v.map_or_else(|| "#eee".to_string(), |v| heat(v, m.min, m.max));
            let _ = write!(
                out,
                "<rect class=\"heat\" x=\"{x:.0}\" y=\"{y:.0}\" width=\"{cell}\" height=\"{cell}\" fill=\"{fill}\" stroke=\"#fff\"><title>{}({}, {}) = {}</title></rect>\
                 <text x=\"{:.0}\" y=\"{:.0}\" font-size=\"12\" text-anchor=\"middle\">{}</text>",
                esc(&m.symbol),
                esc(row),
                esc(col),
                num(v),
                x + cell / 2.0,
                y + cell / 2.0 + 4.0,
                num(v)
            );
        }
    }
    if m.rows.is_empty() {
        out.push_str("<text x=\"10\" y=\"20\" font-size=\"12\">nothing to plot</text>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::section;

    fn drawn(i: usize) -> String {
        let p = &section().plots[i];
        let mut out = String::new();
        plot(&mut out, &format!("demo-{}", p.id), p);
        out
    }

    #[test]
    fn heat_is_white_in_the_middle_blue_at_the_top_and_red_at_the_bottom() {
        assert_eq!(heat(0.0, -1.0, 1.0), "rgb(255,255,255)");
        assert_eq!(heat(1.0, -1.0, 1.0), "rgb(0,102,255)");
        assert_eq!(heat(-1.0, -1.0, 1.0), "rgb(255,0,0)");
        assert_eq!(heat(0.5, 0.0, 1.0), "rgb(255,255,255)");
    }

    #[test]
    fn a_scatter_places_each_point_on_its_axes() {
        let svg = drawn(0);
        // x: 300 of 0..330 (a tenth above the largest); y: 75 of 0..100.
        assert!(
            svg.contains("<circle class=\"point\" cx=\"468.2\" cy=\"110.0\""),
            "{svg}"
        );
        assert!(svg.contains("<title>agent&lt;x&gt;: quality 75.00, cost 300.00</title>"));
        assert!(svg.ends_with("</svg><figcaption>Quality vs cost.</figcaption></figure>\n"));
    }

    #[test]
    fn bars_skip_missing_values_and_clamp_into_the_axis() {
        let svg = drawn(1);
        assert_eq!(svg.matches("<rect class=\"bar\"").count(), 3, "{svg}");
        // 150 is drawn at the axis top: the whole 220 px.
        assert!(svg.contains(
            "height=\"220.0\" fill=\"#1f77b4\"><title>agent&lt;x&gt; coverage: 150.00</title>"
        ));
        assert!(svg.contains(
            "height=\"132.0\" fill=\"#1f77b4\"><title>agent&lt;x&gt; pass-at-1: 60.00</title>"
        ));
    }

    #[test]
    fn a_heat_map_greys_missing_values_and_names_each_cell() {
        let svg = drawn(2);
        assert_eq!(svg.matches("<rect class=\"heat\"").count(), 4, "{svg}");
        assert!(svg.contains("fill=\"#eee\" stroke=\"#fff\"><title>κ(s1, s2) = -</title>"));
        assert!(
            svg.contains("fill=\"rgb(255,0,0)\" stroke=\"#fff\"><title>κ(s2, s1) = -1.00</title>")
        );
    }
}
