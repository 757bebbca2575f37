//! `castle bench --coach`: how long a player waits for the coach. Positions along the wins of
//! the fixed benchmark sets (a quarter, half and three quarters of the way through each won
//! deal's line, as a game with those moves played), each asked of the coach of `castle
//! serve` with the server's default budget and an empty cache (no answer carried from the
//! position before: the coach's slowest case for a winnable position). Prints the answers
//! and the times' quantiles per set.

use super::coach::{coach, Budget, Cache, Mark};
use crate::bench::DealSet;
use crate::check::steps_of;
use crate::play::game::{Game, PlayError};
use crate::solver::{Solver, Verdict};
use crate::Error;
use std::io::Write;
use std::time::Instant;

/// The share of the way through a win at which positions are taken.
const AT: [f64; 3] = [0.25, 0.5, 0.75];

/// The `q` quantile (0..1) of sorted times, by the nearest rank.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let k = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[k - 1]
}

/// Runs the coach benchmark over `sets`: `finder` solves each deal for its win, `server` is
/// the solver of one `castle serve` request (its budgets and memory share).
///
/// # Errors
/// Writing `out`; a solve's internal error.
pub fn run(
    out: &mut impl Write,
    sets: &[DealSet],
    finder: &Solver,
    server: &Solver,
) -> Result<(), Error> {
    writeln!(
        out,
        "{:<18} {:>9} {:>5} {:>4} {:>5} {:>9} {:>9} {:>9} {:>9}",
        "set", "positions", "yes", "no", "unk", "p50 ms", "p90 ms", "p99 ms", "max ms"
    )?;
    let mut all = Vec::new();
    for set in sets {
        let mut times = Vec::new();
        let mut marks = [0usize; 3];
        for seed in set.first..=set.last {
            let deal = set.deal(seed)?;
            let mut f = finder.clone();
            if f.limits.max_seconds.is_none() {
                f.limits.max_seconds = set.max_seconds;
            }
            let won = f.solve(&deal)?;
            if won.verdict != Verdict::Solvable {
                continue;
            }
            let steps = steps_of(&won.moves);
            for at in AT {
                let k = (steps.len() as f64 * at) as usize;
                let mut game = Game::new(deal.clone(), false).numbered(set.numbering);
                // The game makes a stock game's fills itself: the line's own are skipped.
                let refused = steps[..k].iter().any(|s| match game.play_step(s) {
                    Ok(_) | Err(PlayError::MadeAutomatically { .. }) => false,
                    Err(_) => true,
                });
                if refused {
                    continue;
                }
                let cache = Cache::default();
                let mut budget = Budget::new(server);
                let t0 = Instant::now();
                let c = coach(&game, &cache, &mut budget, server);
                times.push(t0.elapsed().as_secs_f64() * 1000.0);
                match c.mark {
                    Mark::Yes | Mark::Won => marks[0] += 1,
                    Mark::No => marks[1] += 1,
                    Mark::Unknown => marks[2] += 1,
                }
            }
        }
        times.sort_by(f64::total_cmp);
        row(out, &crate::bench::set_name(set), &times, marks)?;
        all.extend(times);
    }
    all.sort_by(f64::total_cmp);
    row(out, "all", &all, [0; 3]).map(|_| ())
}

fn row(out: &mut impl Write, name: &str, t: &[f64], marks: [usize; 3]) -> Result<(), Error> {
    let m = |x: usize| {
        if name == "all" {
            String::new()
        } else {
            x.to_string()
        }
    };
    writeln!(
        out,
        "{:<18} {:>9} {:>5} {:>4} {:>5} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
        name,
        t.len(),
        m(marks[0]),
        m(marks[1]),
        m(marks[2]),
        quantile(t, 0.5),
        quantile(t, 0.9),
        quantile(t, 0.99),
        t.last().copied().unwrap_or(f64::NAN)
    )?;
    Ok(())
}
