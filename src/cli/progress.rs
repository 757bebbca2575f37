//! The spinner of `castle solve` and the progress bar of `castle batch` (indicatif), shown on
//! standard error when it is a terminal and `--quiet` is not given.

use castle::batch::Tally;
use castle::solver::{Progress, SolveError};
use castle::{Deal, Outcome, Solver};
use indicatif::{HumanDuration, ProgressBar, ProgressState, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// Solves, with a spinner on a terminal once the search has run for half a second.
pub fn solve_with_spinner(
    solver: &Solver,
    deal: &Deal,
    quiet: bool,
) -> Result<Outcome, SolveError> {
    let show = !quiet && std::io::stderr().is_terminal();
    let mut bar: Option<ProgressBar> = None;
    let result = solver.solve_with_progress(deal, &mut |p: &Progress| {
        if !show || p.seconds < 0.5 {
            return;
        }
        let b = bar.get_or_insert_with(|| {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("valid template"),
            );
            b.enable_steady_tick(Duration::from_millis(120));
            b
        });
        let mut msg = format!(
            "{} nodes, {} states, {:.2} M nodes/s",
            p.nodes,
            p.states,
            p.nodes as f64 / p.seconds / 1e6
        );
        if let Some(level) = p.level {
            msg += &format!(", level {level}");
        }
        if p.disk_bytes > 0 {
            msg += &format!(", {} MiB on disk", p.disk_bytes >> 20);
        }
        b.set_message(msg);
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    result
}

/// The progress bar of a batch of `total` deals (hidden with `quiet` or off a terminal).
pub fn batch_bar(total: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new(total);
    // The bar takes what the numbers leave of the line, so nothing wraps. The time left is
    // the batch's own projection (`batch_step`), not indicatif's rate of the last few deals,
    // which swings by orders of magnitude as a deal of minutes comes and goes.
    b.set_style(
        ProgressStyle::with_template("{pos}/{len} {rate} {msg} {wide_bar}")
            .expect("valid template")
            .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}/s", rate(s.per_sec()));
            }),
    );
    b
}

/// Deals a second, with as many digits as tell something (`0.25`, `3.1`, `42`).
fn rate(per_sec: f64) -> String {
    if per_sec >= 10.0 {
        format!("{per_sec:.0}")
    } else if per_sec >= 1.0 {
        format!("{per_sec:.1}")
    } else {
        format!("{per_sec:.2}")
    }
}

/// Where a batch's run started: its wall clock and the process's CPU time then.
pub struct BatchClock {
    t0: std::time::Instant,
    cpu0: f64,
}

impl BatchClock {
    /// Now.
    pub fn start() -> BatchClock {
        BatchClock {
            t0: std::time::Instant::now(),
            cpu0: castle::solver::cpu_seconds(false),
        }
    }
}

/// Moves the bar to the deals with a row so far, with the time left (projected from the
/// deals' CPU and the CPU the process gets: [`Tally::remaining_seconds`]) and the win rate so
/// far (and, in a later pass, the deals left for it).
pub fn batch_step(bar: &ProgressBar, clock: &BatchClock, tally: &Tally) {
    let left = bar.length().unwrap_or(0).saturating_sub(tally.deals());
    let eta = tally.remaining_seconds(
        left,
        castle::solver::cpu_seconds(false) - clock.cpu0,
        clock.t0.elapsed().as_secs_f64(),
    );
    let msg = match eta {
        Some(s) => format!(
            "{} left at {:.0} CPU ms a deal; {}",
            HumanDuration(Duration::from_secs_f64(s.min(1e9))),
            tally.cpu_ms as f64 / tally.deals().max(1) as f64,
            tally.progress()
        ),
        None => tally.progress(),
    };
    bar.set_message(msg);
    bar.set_position(tally.deals());
}

/// The line a batch ends with: the verdicts, the time taken and the win rate of this run's
/// deals; or, when every seed was done before, where they are. With `file` (the summary of
/// the whole `--csv` file, for a run that found rows there) the file's win rate follows: a
/// resumed run's own deals are only its part of the file.
pub fn batch_end(
    tally: &Tally,
    elapsed: Duration,
    csv: Option<&std::path::Path>,
    file: Option<&castle::stats::Summary>,
) -> String {
    let name = csv.map_or("the file".to_string(), |p| p.display().to_string());
    let whole = file.map_or(String::new(), |s| {
        format!(
            "; in {name}: {}, win rate {:.2}% [{:.2}, {:.2}], {} unknown",
            castle::render::count(s.deals, "deal"),
            100.0 * s.winnable as f64 / s.deals.max(1) as f64,
            100.0 * s.win_rate.0,
            100.0 * s.win_rate.1,
            s.unknown
        )
    });
    match tally.summary() {
        Some(summary) => format!(
            "{summary}; {:.1} s; {}{}{whole}",
            elapsed.as_secs_f64(),
            if file.is_some() { "this run's " } else { "" },
            tally.progress()
        ),
        None => format!(
            "nothing to do: all {} seeds are already in {name} (castle stats reads them){whole}",
            tally.done_before,
        ),
    }
}

/// The line of a batch stopped by a signal: the rows written, where, and how to go on; then
/// the deals that were in flight, the longest first, and what of them is lost.
pub fn batch_stopped(tally: &Tally, csv: Option<&std::path::Path>) -> String {
    let rows = castle::render::count(tally.deals(), "row");
    let mut line = match csv {
        Some(p) => format!(
            "stopped: {rows} saved to {} ({} in all); run the same command to go on",
            p.display(),
            tally.deals() + tally.done_before as u64
        ),
        None => format!(
            "stopped: {rows} written to standard output (with --csv FILE, running the same command again goes on where it stopped)"
        ),
    };
    let mut flight = tally.abandoned.clone();
    flight.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    if !flight.is_empty() {
        /// Deals named at most (the first pass has one in flight per worker).
        const NAMED: usize = 4;
        let named: Vec<String> = flight
            .iter()
            .take(NAMED)
            .map(|&(seed, d)| format!("{seed} after {}", HumanDuration(d)))
            .collect();
        let more = match flight.len().saturating_sub(NAMED) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let (pass, start) = match (tally.passes, tally.pass + 1) {
            (0 | 1, _) => (String::new(), "the start"),
            (all, i) if i == all => (
                " in the last pass".to_string(),
                "the start of that pass, after the deals tried less",
            ),
            (_, i) => (format!(" in pass {i}"), "the start of that pass"),
        };
        let (deals, them) = match flight.len() {
            1 => ("1 deal was".to_string(), "it"),
            n => (format!("{n} deals were"), "them"),
        };
        line.push_str(&format!(
            "\n{deals} in flight{pass} ({}{more}): the next run solves {them} again from {start}",
            named.join(", "),
        ));
    }
    line
}
