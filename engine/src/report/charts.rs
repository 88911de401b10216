//! The report's charts, drawn by `plotters` into SVG strings embedded in the page. The
//! background is left transparent and the text is coloured by the page's style sheet, so a
//! chart reads in light and in dark mode.

use plotters::coord::Shift;
use plotters::prelude::*;

/// Bars, and the lines of estimates.
const BAR: RGBColor = RGBColor(0x3b, 0x82, 0xc4);
const SECOND: RGBColor = RGBColor(0xe0, 0x7a, 0x1f);
const MARK: RGBColor = RGBColor(0xc0, 0x39, 0x2b);
const GRID: RGBColor = RGBColor(0x9a, 0x9a, 0x9a);

const SIZE: (u32, u32) = (720, 300);

/// Draws a chart's grid and axes in the report's style, with the axes' descriptions.
macro_rules! mesh {
    ($chart:expr, $x:expr, $y:expr) => {
        $chart
            .configure_mesh()
            .x_desc($x)
            .y_desc($y)
            .light_line_style(GRID.mix(0.15))
            .bold_line_style(GRID.mix(0.3))
            .axis_style(GRID)
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 14))
            // Few enough ticks that 14 px labels never touch on a 300 px axis (a log axis
            // over a small range would label every integer), shown as whole counts.
            .y_labels(6)
            .y_label_formatter(&|v: &f64| tick(*v))
            .draw()
            .map_err(err)?
    };
}

/// A chart failed to draw: plotters' error, as text (the page says so in the chart's place).
pub(crate) type Drawn = Result<String, String>;

fn draw(f: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String>) -> Drawn {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        f(&root)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// A y-axis tick: a count as a whole number, a share or a similarity with two decimals.
fn tick(v: f64) -> String {
    match v.fract().abs() < 1e-9 || v.abs() >= 10.0 {
        true => format!("{v:.0}"),
        false => format!("{v:.2}"),
    }
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Bars of `counts` over equal bins from `from` to `to` (a count per bin), with the
/// threshold marked; `log` draws the counts on a log scale (plus one).
pub fn histogram(
    counts: &[(f64, u64)],
    from: f64,
    to: f64,
    width: f64,
    x_label: &str,
    mark: Option<f64>,
) -> Drawn {
    let top = counts.iter().map(|&(_, c)| c).max().unwrap_or(0).max(1);
    draw(|root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(from..to, (0.8f64..(top as f64 * 1.5)).log_scale())
            .map_err(err)?;
        mesh!(chart, x_label, "documents (log)");
        chart
            .draw_series(
                counts
                    .iter()
                    .filter(|&&(_, c)| c > 0)
                    .map(|&(x, c)| Rectangle::new([(x, 0.8), (x + width, c as f64)], BAR.filled())),
            )
            .map_err(err)?;
        if let Some(t) = mark {
            chart
                .draw_series(LineSeries::new(
                    [(t, 0.8), (t, top as f64 * 1.5)],
                    MARK.stroke_width(2),
                ))
                .map_err(err)?;
        }
        Ok(())
    })
}

/// The threshold curve from `from` to 1: for each threshold, documents dropped as observed
/// and as estimated (with an error band), the chosen threshold marked.
pub fn curve(points: &[(f64, f64, f64, f64)], chosen: f64, from: f64) -> Drawn {
    let top = points
        .iter()
        .map(|&(_, o, e, d)| o.max(e + d))
        .fold(1.0f64, f64::max);
    draw(|root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(from.min(0.99)..1.0, 0.0..top * 1.08)
            .map_err(err)?;
        mesh!(chart, "threshold", "documents dropped");
        let band: Vec<(f64, f64)> = points
            .iter()
            .map(|&(t, _, e, d)| (t, e + d))
            .chain(
                points
                    .iter()
                    .rev()
                    .map(|&(t, _, e, d)| (t, (e - d).max(0.0))),
            )
            .collect();
        chart
            .draw_series([Polygon::new(band, SECOND.mix(0.2).filled())])
            .map_err(err)?;
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|&(t, _, e, _)| (t, e)),
                SECOND.stroke_width(2),
            ))
            .map_err(err)?
            .label("estimated")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], SECOND.stroke_width(2)));
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|&(t, o, _, _)| (t, o)),
                BAR.stroke_width(2),
            ))
            .map_err(err)?
            .label("found")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BAR.stroke_width(2)));
        chart
            .draw_series(LineSeries::new(
                [(chosen, 0.0), (chosen, top * 1.08)],
                MARK.stroke_width(2),
            ))
            .map_err(err)?
            .label("this run's threshold")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], MARK.stroke_width(2)));
        chart
            .configure_series_labels()
            .border_style(GRID)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(err)?;
        Ok(())
    })
}

/// Groups by size, both axes on a log scale: (size, groups of that size).
pub fn sizes(sizes: &[(u64, u64)]) -> Drawn {
    let largest = sizes.iter().map(|&(s, _)| s).max().unwrap_or(1).max(2);
    let most = sizes.iter().map(|&(_, n)| n).max().unwrap_or(1).max(1);
    draw(|root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(
                (0.8f64..largest as f64 * 1.5).log_scale(),
                (0.8f64..most as f64 * 1.5).log_scale(),
            )
            .map_err(err)?;
        mesh!(chart, "group size (documents, log)", "groups (log)");
        chart
            .draw_series(
                sizes
                    .iter()
                    .map(|&(s, n)| Circle::new((s as f64, n as f64), 4, BAR.filled())),
            )
            .map_err(err)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_are_svg_with_their_marks() {
        let h = histogram(
            &[(0.8, 3), (0.9, 10), (0.99, 1)],
            0.8,
            1.0,
            0.01,
            "similarity",
            Some(0.8),
        )
        .unwrap();
        assert!(h.starts_with("<svg") && h.contains("<rect") && h.contains("similarity"));
        let c = curve(
            &[
                (0.3, 10.0, 12.0, 1.0),
                (0.8, 5.0, 5.0, 0.0),
                (1.0, 1.0, 1.0, 0.0),
            ],
            0.8,
            0.3,
        )
        .unwrap();
        assert!(c.contains("<polyline") && c.contains("estimated"));
        let s = sizes(&[(1, 100), (2, 10), (40, 1)]).unwrap();
        assert!(s.contains("<circle"));
        // Nothing to draw is still a chart.
        assert!(sizes(&[]).unwrap().starts_with("<svg"));
        assert!(
            histogram(&[], 0.0, 0.8, 0.01, "s", None)
                .unwrap()
                .starts_with("<svg")
        );
    }
}
