//! The pictures of `castle stats --plot`: one SVG file, four panels, one colour per group
//! (variant and options): the win rate with its 95% Wilson interval, the solution lengths of
//! the won deals (a histogram drawn as lines), the scores of the lost deals (cards home at
//! best), and the time per deal (sorted, on a log scale). plotters' SVG backend writes the
//! text as SVG text elements: no font files, no system libraries.

use crate::stats::Merge;
use crate::Error;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// The colours of the groups, in order (then again).
const COLOURS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Width of a bin of the solution-length histogram, in moves.
const LENGTH_BIN: u64 = 10;

fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

/// Any drawing error, as the library's error naming the file.
fn err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Plot {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Draws the merge to an SVG file at `path`.
///
/// # Errors
/// [`Error::Plot`] naming the file when it cannot be written.
pub fn plot(m: &Merge, path: &Path) -> Result<(), Error> {
    draw(m, path).map_err(|e| err(path, e))
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn draw(m: &Merge, path: &Path) -> DrawResult {
    let root = SVGBackend::new(path, (1200, 900)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, bottom) = root.split_vertically(450);
    let (rate, lengths) = top.split_horizontally(600);
    let (scores, times) = bottom.split_horizontally(600);
    let groups: Vec<&String> = m.groups.keys().collect();

    // Win rate with its interval, one column per group.
    {
        let n = groups.len().max(1) as f64;
        let mut c = ChartBuilder::on(&rate)
            .caption("win rate, 95% Wilson interval", ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(30)
            .y_label_area_size(45)
            .build_cartesian_2d(-0.5f64..n - 0.5, 0f64..100f64)?;
        c.configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc("% of deals")
            .draw()?;
        for (i, g) in groups.iter().enumerate() {
            let s = &m.groups[*g];
            let x = i as f64;
            let p = 100.0 * s.winnable as f64 / s.deals.max(1) as f64;
            let (lo, hi) = (100.0 * s.win_rate.0, 100.0 * s.win_rate.1);
            let col = colour(i);
            c.draw_series(std::iter::once(PathElement::new(
                vec![(x, lo), (x, hi)],
                col.stroke_width(2),
            )))?;
            c.draw_series([(x - 0.1, lo), (x - 0.1, hi)].map(|(x0, y)| {
                PathElement::new(vec![(x0, y), (x0 + 0.2, y)], col.stroke_width(2))
            }))?;
            c.draw_series(std::iter::once(Circle::new((x, p), 5, col.filled())))?
                .label(format!("{g}: {p:.1}% of {}", s.deals))
                .legend(move |(x, y)| Circle::new((x, y), 4, col.filled()));
        }
        c.configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 11))
            .position(SeriesLabelPosition::LowerLeft)
            .draw()?;
    }

    // Solution lengths of won deals, bins of LENGTH_BIN moves.
    let bins: Vec<BTreeMap<u64, u64>> = groups
        .iter()
        .map(|g| {
            let mut h = BTreeMap::new();
            for r in &m.rows[*g] {
                if r.verdict == "solvable" {
                    *h.entry(r.moves.unwrap_or(0) as u64 / LENGTH_BIN * LENGTH_BIN)
                        .or_insert(0) += 1;
                }
            }
            h
        })
        .collect();
    lines(
        &lengths,
        "solution length of won deals",
        "moves",
        "deals",
        &bins,
        LENGTH_BIN,
    )?;

    // Scores of lost deals.
    let lost: Vec<BTreeMap<u64, u64>> = groups
        .iter()
        .map(|g| {
            m.groups[*g]
                .lost_scores
                .iter()
                .map(|(&k, &v)| (u64::from(k), v))
                .collect()
        })
        .collect();
    lines(
        &scores,
        "lost deals: cards home at best",
        "cards home",
        "deals",
        &lost,
        1,
    )?;

    // Time per deal, sorted.
    {
        let sorted: Vec<Vec<f64>> = groups
            .iter()
            .map(|g| {
                let mut v: Vec<f64> = m.rows[*g].iter().map(|r| r.ms.max(1) as f64).collect();
                v.sort_by(f64::total_cmp);
                v
            })
            .collect();
        let top = sorted.iter().flatten().copied().fold(1.0, f64::max) * 2.0;
        let mut c = ChartBuilder::on(&times)
            .caption("time per deal, sorted", ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(30)
            .y_label_area_size(55)
            .build_cartesian_2d(0f64..100f64, (1f64..top).log_scale())?;
        c.configure_mesh()
            .x_desc("% of deals")
            .y_desc("ms (log)")
            .draw()?;
        for (i, v) in sorted.iter().enumerate() {
            let n = v.len().max(2) as f64 - 1.0;
            c.draw_series(LineSeries::new(
                v.iter()
                    .enumerate()
                    .map(|(k, &ms)| (100.0 * k as f64 / n, ms)),
                colour(i).stroke_width(2),
            ))?;
        }
    }
    root.present()?;
    Ok(())
}

/// A panel of one line per group through `(bin, count)` points.
fn lines(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    caption: &str,
    x_desc: &str,
    y_desc: &str,
    data: &[BTreeMap<u64, u64>],
    step: u64,
) -> DrawResult {
    let all = || data.iter().flat_map(|h| h.iter());
    let x_max = all().map(|(&k, _)| k).max().unwrap_or(0) + step;
    let x_min = all().map(|(&k, _)| k).min().unwrap_or(0);
    let y_max = all().map(|(_, &v)| v).max().unwrap_or(0) + 1;
    let mut c = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(45)
        .build_cartesian_2d(x_min..x_max, 0u64..y_max)?;
    c.configure_mesh().x_desc(x_desc).y_desc(y_desc).draw()?;
    for (i, h) in data.iter().enumerate() {
        let col = colour(i);
        // Each bin from its start to the next, zero between bins with no deals.
        let mut pts = Vec::new();
        let mut at = x_min;
        while at < x_max {
            pts.push((at, h.get(&at).copied().unwrap_or(0)));
            at += step;
        }
        c.draw_series(LineSeries::new(pts.iter().copied(), col.stroke_width(2)))?;
        c.draw_series(
            pts.iter()
                .filter(|p| p.1 > 0)
                .map(|&p| Circle::new(p, 3, col.filled())),
        )?;
    }
    Ok(())
}
