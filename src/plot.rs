//! The pictures of `castle stats --plot`: one self-contained SVG file (plotters' SVG backend
//! writes the text as SVG text elements: no font files, no system libraries). A title names
//! the source files, the deals and the budget the rows show; six panels follow, one colour
//! per group (variant and options):
//!
//! - the outcome of every group as a stacked bar (won, unknown, lost), with the 95% Wilson
//!   interval of the win rate drawn over it and its point value and bounds written as numbers;
//! - the time per deal, sorted, on a log scale (deals under a millisecond cannot sit on it:
//!   they are counted in the panel, not drawn at 1 ms);
//! - the solution lengths of the won deals, the nodes per deal (log bins) and the lost deals'
//!   scores (cards home at best), each a histogram of bars, the groups side by side in a bin;
//! - a table: each group's name, counts, win rate with its interval, and budget.
//!
//! The budget is not a column of the batch rows: what the rows show of it is what stopped
//! their `unknown` deals (how many the clock stopped and after how long, how many the node
//! budget stopped and at how many nodes, how many ran out of memory), and the picture says
//! that, not a budget it cannot know.

use crate::batch::Row;
use crate::stats::{Merge, Summary};
use crate::{Error, InputError, InputKind};
use plotters::coord::Shift;
use plotters::prelude::*;
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

/// The colour of `unknown` in the outcome bars.
const UNKNOWN: RGBColor = RGBColor(170, 170, 170);

/// Bars of a histogram with a linear axis, about (the bins are whole numbers of moves).
const BINS: u64 = 40;

/// Bins per power of ten of the nodes histogram.
const NODE_BINS_PER_DECADE: f64 = 4.0;

/// The size of the picture, in pixels.
const SIZE: (u32, u32) = (1300, 1460);

fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

/// What the picture says about where its rows came from.
#[derive(Clone, Debug, Default)]
pub struct Source {
    /// The batch files read, as given.
    pub files: Vec<String>,
}

/// Any drawing error, as the library's error naming the file.
fn err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Plot {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Checks that `path` can take the picture before any work is done: a name that asks for a
/// bitmap (`.png`, `.jpg`, ...: castle draws SVG only) or a file that cannot be created (its
/// directory does not exist, say) is bad input. The file is created empty.
///
/// # Errors
/// [`InputError`] naming the file and the reason.
pub fn check_path(path: &Path) -> Result<(), Error> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if let Some(e) = ext.filter(|e| {
        [
            "png", "jpg", "jpeg", "gif", "bmp", "webp", "pdf", "tif", "tiff",
        ]
        .contains(&e.as_str())
    }) {
        return Err(InputError::new(
            InputKind::Usage,
            format!("castle draws SVG only (a .{e} file would need font files; any browser opens the SVG, and converters make a bitmap of it): give a name ending in .svg"),
        )
        .at(path)
        .with_flag("--plot")
        .into());
    }
    // The SVG backend writes the file when the drawing is presented: a directory that does
    // not exist would only fail then, with plotters' words.
    std::fs::File::create(path).map_err(|e| {
        InputError::new(InputKind::File, format!("cannot write: {e}"))
            .at(path)
            .with_flag("--plot")
    })?;
    Ok(())
}

/// Draws the merge to an SVG file at `path`.
///
/// # Errors
/// As [`check_path`]; [`Error::Plot`] names the file when drawing fails.
pub fn plot(m: &Merge, source: &Source, path: &Path) -> Result<(), Error> {
    check_path(path)?;
    draw(m, source, path).map_err(|e| err(path, e))
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// The title line: the files, the deals and what the rows show of the budget.
fn title(m: &Merge, source: &Source) -> String {
    let deals: u64 = m.groups.values().map(|s| s.deals).sum();
    let files = match source.files.len() {
        0 => String::new(),
        1..=3 => source.files.join(", "),
        n => format!("{} and {} more files", source.files[..2].join(", "), n - 2),
    };
    let rows: Vec<&Row> = m.rows.values().flatten().collect();
    format!(
        "castle stats: {files} ({} deals; {})",
        thousands(deals),
        budget(&rows)
    )
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What `rows` show of the budget a deal had: how many deals each budget stopped and where
/// (the clock's range of times, the node budget's range of nodes). The rows do not record
/// the budget itself, so this is all a picture can say of it.
fn budget(rows: &[&Row]) -> String {
    let stopped = |limit: &str| -> Vec<&Row> {
        rows.iter()
            .copied()
            .filter(|r| r.verdict == "unknown" && r.limit == limit)
            .collect()
    };
    let range = |v: &[u64], show: &dyn Fn(u64) -> String| {
        let (lo, hi) = (v.iter().min(), v.iter().max());
        match (lo, hi) {
            (Some(&a), Some(&b)) if a == b => show(a),
            (Some(&a), Some(&b)) => format!("{} to {}", show(a), show(b)),
            _ => String::new(),
        }
    };
    let mut parts = Vec::new();
    let clock = stopped("seconds");
    if !clock.is_empty() {
        let ms: Vec<u64> = clock.iter().map(|r| r.ms).collect();
        parts.push(format!(
            "the clock stopped {} after {}",
            deals(clock.len()),
            range(&ms, &seconds)
        ));
    }
    let nodes = stopped("nodes");
    if !nodes.is_empty() {
        let n: Vec<u64> = nodes.iter().map(|r| r.nodes).collect();
        parts.push(format!(
            "the node budget stopped {} at {} nodes",
            deals(nodes.len()),
            range(&n, &thousands)
        ));
    }
    let memory = stopped("memory").len();
    if memory > 0 {
        parts.push(format!("memory stopped {}", deals(memory)));
    }
    if parts.is_empty() {
        "no deal reached its budget".to_string()
    } else {
        parts.join(", ")
    }
}

/// `n deals`, `1 deal`.
fn deals(n: usize) -> String {
    if n == 1 {
        "1 deal".to_string()
    } else {
        format!("{} deals", thousands(n as u64))
    }
}

/// Milliseconds as such below a second, then seconds, to a tenth below a minute.
fn seconds(ms: u64) -> String {
    if ms >= 60_000 {
        format!("{} s", (ms + 500) / 1000)
    } else if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// A group's win rate and its interval: `51.85% [50.87, 52.83]`.
pub fn rate_text(s: &Summary) -> String {
    format!(
        "{:.2}% [{:.2}, {:.2}]",
        100.0 * s.winnable as f64 / s.deals.max(1) as f64,
        100.0 * s.win_rate.0,
        100.0 * s.win_rate.1
    )
}

fn draw(m: &Merge, source: &Source, path: &Path) -> DrawResult {
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let body = root.titled(&title(m, source), ("sans-serif", 20))?;
    let panels = body.split_evenly((3, 2));
    let groups: Vec<(&String, &Summary, &Vec<Row>)> = m
        .groups
        .iter()
        .filter_map(|(g, s)| Some((g, s, m.rows.get(g)?)))
        .collect();
    outcomes(&panels[0], &groups)?;
    times(&panels[1], &groups)?;
    let lengths: Vec<Vec<u64>> = groups
        .iter()
        .map(|(_, _, rows)| {
            rows.iter()
                .filter(|r| r.verdict == "solvable")
                .map(|r| r.moves.unwrap_or(0) as u64)
                .collect()
        })
        .collect();
    linear_histogram(
        &panels[2],
        "solution length of the won deals",
        "moves of the solution printed",
        &lengths,
    )?;
    nodes(&panels[3], &groups)?;
    let scores: Vec<Vec<u64>> = groups
        .iter()
        .map(|(_, _, rows)| {
            rows.iter()
                .filter(|r| r.verdict == "unsolvable")
                .map(|r| u64::from(r.score))
                .collect()
        })
        .collect();
    linear_histogram(
        &panels[4],
        "lost deals: cards home at best",
        "cards home at best (score)",
        &scores,
    )?;
    table(&panels[5], &groups)?;
    root.present()?;
    Ok(())
}

/// The outcome bars: won, unknown and lost as shares of each group's deals, the interval
/// over them, its numbers above.
fn outcomes(area: &Area<'_>, groups: &[(&String, &Summary, &Vec<Row>)]) -> DrawResult {
    let n = groups.len().max(1) as f64;
    let mut c = ChartBuilder::on(area)
        .caption(
            "win rate and 95% Wilson interval (unknowns counted both ways)",
            ("sans-serif", 15),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(-0.5f64..n - 0.5, 0f64..112f64)?;
    c.configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .x_labels(groups.len().max(1))
        .x_label_formatter(&|x| format!("group {}", x.round() as i64 + 1))
        .y_labels(12)
        .y_label_formatter(&|y| {
            if *y <= 100.0 {
                format!("{y:.0}")
            } else {
                String::new()
            }
        })
        .x_desc("group (see the table)")
        .y_desc("% of deals: won, unknown (grey), lost (pale)")
        .draw()?;
    let w = 0.3;
    for (i, (_, s, _)) in groups.iter().enumerate() {
        let x = i as f64;
        let d = s.deals.max(1) as f64;
        let won = 100.0 * s.winnable as f64 / d;
        let unknown = 100.0 * s.unknown as f64 / d;
        let col = colour(i);
        let bars = [
            (0.0, won, col.filled()),
            (won, won + unknown, UNKNOWN.filled()),
            (won + unknown, 100.0, col.mix(0.25).filled()),
        ];
        c.draw_series(
            bars.into_iter()
                .filter(|(a, b, _)| b > a)
                .map(|(a, b, style)| Rectangle::new([(x - w, a), (x + w, b)], style)),
        )?;
        // The interval, a whisker over the bars.
        let (lo, hi) = (100.0 * s.win_rate.0, 100.0 * s.win_rate.1);
        let ink = BLACK.stroke_width(2);
        c.draw_series([
            PathElement::new(vec![(x, lo), (x, hi)], ink),
            PathElement::new(vec![(x - 0.08, lo), (x + 0.08, lo)], ink),
            PathElement::new(vec![(x - 0.08, hi), (x + 0.08, hi)], ink),
        ])?;
        c.draw_series(std::iter::once(Circle::new((x, won), 4, BLACK.filled())))?;
        let label = |y: f64, text: String| {
            Text::new(
                text,
                (x - w, y),
                ("sans-serif", 12).into_font().color(&BLACK),
            )
        };
        c.draw_series([
            label(111.0, rate_text(s)),
            label(
                105.5,
                format!(
                    "{} deals, {} unknown",
                    thousands(s.deals),
                    thousands(s.unknown)
                ),
            ),
        ])?;
    }
    Ok(())
}

/// The time per deal, sorted, on a log scale; the deals under a millisecond counted.
fn times(area: &Area<'_>, groups: &[(&String, &Summary, &Vec<Row>)]) -> DrawResult {
    let sorted: Vec<Vec<u64>> = groups
        .iter()
        .map(|(_, _, rows)| {
            let mut v: Vec<u64> = rows.iter().map(|r| r.ms).collect();
            v.sort_unstable();
            v
        })
        .collect();
    let top = sorted.iter().flatten().copied().max().unwrap_or(1).max(1) as f64 * 2.0;
    let mut c = ChartBuilder::on(area)
        .caption("time per deal, sorted", ("sans-serif", 15))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..100f64, (0.5f64..top).log_scale())?;
    c.configure_mesh()
        .light_line_style(WHITE)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| {
            if *y < 1.0 {
                format!("{y}")
            } else {
                thousands(y.round() as u64)
            }
        })
        .x_desc("% of the deals, fastest first")
        .y_desc("milliseconds (log scale)")
        .draw()?;
    let mut under = Vec::new();
    for (i, v) in sorted.iter().enumerate() {
        let n = v.len().max(2) as f64 - 1.0;
        // Deals of 0 ms have no place on a log scale: left out here, counted below.
        let points: Vec<(f64, f64)> = v
            .iter()
            .enumerate()
            .filter(|(_, &ms)| ms > 0)
            .map(|(k, &ms)| (100.0 * k as f64 / n, ms as f64))
            .collect();
        under.push(v.len() - points.len());
        c.draw_series(LineSeries::new(points, colour(i).stroke_width(2)))?;
    }
    let zero: usize = under.iter().sum();
    if zero > 0 {
        c.draw_series(std::iter::once(Text::new(
            format!("{zero} deals took under 1 ms (not drawn: no 0 on a log scale)"),
            (2.0, top / 1.6),
            ("sans-serif", 12).into_font(),
        )))?;
    }
    Ok(())
}

/// A histogram of whole numbers, about [`BINS`] bars wide; values past the 99th percentile
/// (when they would squash the rest) share the last bar, and the panel says so.
fn linear_histogram(area: &Area<'_>, caption: &str, x_desc: &str, data: &[Vec<u64>]) -> DrawResult {
    let mut all: Vec<u64> = data.iter().flatten().copied().collect();
    all.sort_unstable();
    let (lo, hi) = match (all.first(), all.last()) {
        (Some(&a), Some(&b)) => (a, b),
        _ => (0, 1),
    };
    let p99 = all
        .get((all.len().saturating_sub(1)) * 99 / 100)
        .copied()
        .unwrap_or(hi);
    // The top of the axis: the largest value, or the 99th percentile when the largest is far
    // beyond it (a wandering win of thousands of moves among lines of a hundred).
    let cap = if hi > 2 * p99.max(1) { p99 } else { hi };
    let width = ((cap - lo + 1).div_ceil(BINS)).max(1);
    let start = lo / width * width;
    let bins = ((cap - start) / width + 1) as usize;
    let counts: Vec<Vec<u64>> = data
        .iter()
        .map(|v| {
            let mut h = vec![0u64; bins];
            for &x in v {
                let b = ((x.min(cap) - start.min(x)) / width) as usize;
                h[b.min(bins - 1)] += 1;
            }
            h
        })
        .collect();
    let over = all.iter().filter(|&&x| x > cap).count();
    let y_max = counts.iter().flatten().copied().max().unwrap_or(0) + 1;
    let x_end = start + bins as u64 * width;
    let mut c = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 15))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(start as f64..x_end as f64, 0f64..(y_max as f64 * 1.12))?;
    c.configure_mesh()
        .light_line_style(WHITE)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .x_desc(if width > 1 {
            format!("{x_desc}, bars of {width}")
        } else {
            x_desc.to_string()
        })
        .y_desc("deals")
        .draw()?;
    bars(&mut c, &counts, |b| {
        let x0 = start + b as u64 * width;
        (x0 as f64, (x0 + width) as f64)
    })?;
    if over > 0 {
        c.draw_series(std::iter::once(Text::new(
            format!("{over} above {cap} (the longest {hi}) in the last bar",),
            (
                start as f64 + 0.02 * (x_end - start) as f64,
                y_max as f64 * 1.08,
            ),
            ("sans-serif", 12).into_font(),
        )))?;
    }
    if all.is_empty() {
        c.draw_series(std::iter::once(Text::new(
            "none".to_string(),
            (start as f64, y_max as f64 * 0.5),
            ("sans-serif", 14).into_font(),
        )))?;
    }
    Ok(())
}

/// Side-by-side bars, one per group in each bin: `span(b)` is bin `b`'s extent on the x axis.
fn bars<X: Ranged<ValueType = f64>>(
    c: &mut ChartContext<
        '_,
        SVGBackend<'_>,
        Cartesian2d<X, plotters::coord::types::RangedCoordf64>,
    >,
    counts: &[Vec<u64>],
    span: impl Fn(usize) -> (f64, f64),
) -> DrawResult {
    let groups = counts.len().max(1);
    for (i, h) in counts.iter().enumerate() {
        let col = colour(i);
        c.draw_series(h.iter().enumerate().filter(|(_, &n)| n > 0).map(|(b, &n)| {
            let (x0, x1) = span(b);
            // Each group's share of the bin, with a gap at the bin's end.
            let w = (x1 - x0) * 0.9 / groups as f64;
            let a = x0 + w * i as f64;
            Rectangle::new([(a, 0.0), (a + w, n as f64)], col.filled())
        }))?;
    }
    Ok(())
}

/// The nodes per deal, in bins of a quarter of a power of ten.
fn nodes(area: &Area<'_>, groups: &[(&String, &Summary, &Vec<Row>)]) -> DrawResult {
    let bin = |n: u64| ((n.max(1) as f64).log10() * NODE_BINS_PER_DECADE).floor() as usize;
    let edge = |b: usize| 10f64.powf(b as f64 / NODE_BINS_PER_DECADE);
    let top = groups
        .iter()
        .flat_map(|(_, _, rows)| rows.iter().map(|r| r.nodes))
        .max()
        .unwrap_or(1);
    let bins = bin(top) + 1;
    let counts: Vec<Vec<u64>> = groups
        .iter()
        .map(|(_, _, rows)| {
            let mut h = vec![0u64; bins];
            for r in rows.iter() {
                h[bin(r.nodes)] += 1;
            }
            h
        })
        .collect();
    let y_max = counts.iter().flatten().copied().max().unwrap_or(0) + 1;
    let mut c = ChartBuilder::on(area)
        .caption("nodes per deal (all deals)", ("sans-serif", 15))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d((1f64..edge(bins)).log_scale(), 0f64..(y_max as f64 * 1.12))?;
    c.configure_mesh()
        .light_line_style(WHITE)
        .x_label_formatter(&|x| thousands(x.round() as u64))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .x_desc("nodes searched (log scale, 4 bars a power of ten)")
        .y_desc("deals")
        .draw()?;
    bars(&mut c, &counts, |b| (edge(b), edge(b + 1)))?;
    Ok(())
}

/// The table: one block of lines per group, in its colour.
fn table(area: &Area<'_>, groups: &[(&String, &Summary, &Vec<Row>)]) -> DrawResult {
    let area = area.margin(14, 10, 14, 10);
    area.draw_text(
        "groups (variant and options)",
        &("sans-serif", 15).into_font().color(&BLACK),
        (0, 0),
    )?;
    let mut y = 28;
    for (i, (g, s, rows)) in groups.iter().enumerate() {
        if y > 400 {
            area.draw_text(
                &format!("... and {} more groups", groups.len() - i),
                &("sans-serif", 12).into_font().color(&BLACK),
                (0, y),
            )?;
            break;
        }
        area.draw(&Rectangle::new([(0, y), (12, y + 12)], colour(i).filled()))?;
        let font = ("sans-serif", 12).into_font().color(&BLACK);
        area.draw_text(&format!("group {}: {g}", i + 1), &font, (18, y))?;
        let rows: Vec<&Row> = rows.iter().collect();
        let lines = [
            format!(
                "{} deals: {} won, {} lost, {} unknown",
                thousands(s.deals),
                thousands(s.winnable),
                thousands(s.unsolvable),
                thousands(s.unknown)
            ),
            format!("win rate {}", rate_text(s)),
            budget(&rows),
        ];
        for (k, l) in lines.iter().enumerate() {
            area.draw_text(l, &font, (18, y + 16 * (k as i32 + 1)))?;
        }
        y += 16 * 5;
    }
    Ok(())
}
