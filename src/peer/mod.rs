//! fc-solve, the peer solver, run on the same deals as castle, for `castle bench --peer`.
//!
//! [`run_fc_solve_capped`] hands a deal to Shlomi Fish's Freecell Solver in one of two
//! configurations ([`PeerPreset`]): its complete (exact) single-card search for this family,
//!
//! ```text
//! fc-solve -g beleaguered_castle -to 0AB -sp r:tf -p -t -sam -
//! ```
//!
//! or its heuristic "conspiracy theory" preset (23 searches side by side; it finds wins, it
//! proves nothing),
//!
//! ```text
//! fc-solve -g beleaguered_castle -l ct -p -t -sam -
//! ```
//!
//! (the board, as [`write_fcs`] prints it, goes to its standard input), kills it at a time
//! limit, and reads its verdict. `-to 0AB` restricts the complete search to the atomic moves
//! (a top card to the foundations, to an empty pile, to a pile one rank higher), so every
//! move it prints is one card, counted as castle counts them; the `ct` preset also moves
//! runs of cards through empty piles, which the replay expands into single moves (so its
//! lengths are in single-card moves too). `-l ct -to 0AB` is not offered: it took 24 GB on
//! one deal. When `ct` gives up ("I could not solve this game") that is
//! [`PeerVerdict::NoWin`], not a proof of loss. `-p -t -sam` prints every position of the
//! solution between the moves; [`replay_solution`] turns the printed moves into castle
//! [`Move`]s, plays them on the independent checker's [`Board`](crate::check::Board), compares each position with
//! the one fc-solve printed, and requires a won game at the end, so a peer solution length
//! is known to be a real, legal, winning line.
//!
//! Only the rules fc-solve's `beleaguered_castle` preset plays are run ([`supports`]):
//! eight piles built down regardless of suit, one card at a time, no cells, stock, second
//! deck or foundation return; that is beleaguered-castle, streets-and-alleys and citadel at
//! any start rank.
//!
//! The parts: `process` finds and runs the executable (time limit, memory cap, peak
//! memory), `output` reads what it prints ([`parse_output`]), `replay` checks its
//! solution on the checker ([`replay_solution`]); this file holds the shared types, the
//! rules it plays ([`supports`]) and the runs ([`run_fc_solve`]) that tie them together.

mod output;
mod process;
mod replay;

pub use output::{parse_output, FcBoard, FcMove, FcOutput, OutputError, OutputFault};
pub use process::fc_solve_path;
pub use replay::{replay_solution, Difference, ReplayError};

use crate::deal::Deal;
use crate::formats::write_fcs;
use crate::moves::Move;
use crate::rules::{Build, Rules, SequenceMoves, Variant};
use std::path::Path;
use std::time::Duration;

/// The arguments castle passes to fc-solve: the `beleaguered_castle` game preset, atomic
/// single-card moves only (`-to 0AB`), the safe-foundation-move pruning (`-sp r:tf`), and
/// parseable output with every position and move (`-p -t -sam`), board on standard input
/// (`-`).
pub const FC_SOLVE_ARGS: [&str; 10] = [
    "-g",
    "beleaguered_castle",
    "-to",
    "0AB",
    "-sp",
    "r:tf",
    "-p",
    "-t",
    "-sam",
    "-",
];

/// The arguments of fc-solve's heuristic preset: the `beleaguered_castle` game preset and
/// the "conspiracy theory" searches (`-l ct`), moves of whole runs allowed (with `-to 0AB` it
/// ran a 24 GB machine out of memory on one deal), output as for [`FC_SOLVE_ARGS`].
pub const FC_SOLVE_CT_ARGS: [&str; 8] = [
    "-g",
    "beleaguered_castle",
    "-l",
    "ct",
    "-p",
    "-t",
    "-sam",
    "-",
];

/// Which fc-solve configuration runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeerPreset {
    /// The complete single-card search ([`FC_SOLVE_ARGS`]): a win or a proof of loss.
    Complete,
    /// The heuristic `-l ct` preset ([`FC_SOLVE_CT_ARGS`]): a win, or it gives up
    /// ([`PeerVerdict::NoWin`]), which proves nothing.
    Heuristic,
}

impl PeerPreset {
    /// fc-solve's arguments for this preset.
    pub fn args(self) -> &'static [&'static str] {
        match self {
            PeerPreset::Complete => &FC_SOLVE_ARGS,
            PeerPreset::Heuristic => &FC_SOLVE_CT_ARGS,
        }
    }

    /// `complete` or `ct`, for reports.
    pub fn name(self) -> &'static str {
        match self {
            PeerPreset::Complete => "complete",
            PeerPreset::Heuristic => "ct",
        }
    }

    /// Whether "I could not solve this game" is a proof of loss under this preset.
    pub fn proves_losses(self) -> bool {
        self == PeerPreset::Complete
    }
}

/// The line fc-solve prints when it found a solution.
pub const SOLVED_LINE: &str = "This game is solveable.";
/// The line fc-solve prints when its search space is exhausted without a win.
pub const UNSOLVED_LINE: &str = "I could not solve this game.";
/// The line fc-solve prints when an iteration limit (`-mi`) stopped it.
pub const ITERATIONS_LINE: &str = "Iterations count exceeded.";

/// The environment variable that names the fc-solve executable (a path, or a name looked up
/// on `PATH`); set but empty, it means there is none.
pub const FC_SOLVE_ENV: &str = "CASTLE_FC_SOLVE";

/// What fc-solve said about a deal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerVerdict {
    /// It printed a solution, and the solution replays to a won game on castle's checker.
    Solvable,
    /// It exhausted its search without a win (the complete preset only: a proof of loss).
    Unsolvable,
    /// The heuristic preset stopped without a win ("I could not solve this game" from `-l
    /// ct`, whose searches are not complete): no verdict.
    NoWin,
    /// It was killed at the time limit.
    Timeout,
    /// No verdict: the rules are not fc-solve's, it could not be started, it died (a message
    /// starting `out of memory` when it died under the memory cap), or its output or
    /// solution did not check.
    Failed(String),
}

impl PeerVerdict {
    /// `solvable`, `unsolvable`, `no-win`, `timeout` or `failed`, for reports.
    pub fn name(&self) -> &'static str {
        match self {
            PeerVerdict::Solvable => "solvable",
            PeerVerdict::Unsolvable => "unsolvable",
            PeerVerdict::NoWin => "no-win",
            PeerVerdict::Timeout => "timeout",
            PeerVerdict::Failed(_) => "failed",
        }
    }
}

/// One fc-solve run on one deal.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerRun {
    /// The verdict.
    pub verdict: PeerVerdict,
    /// Single-card moves in its solution, foundation moves included (only when solvable).
    pub moves: Option<usize>,
    /// Wall-clock seconds from start to exit (or to the kill at the time limit).
    pub seconds: f64,
    /// fc-solve's own peak resident memory, if known: `ru_maxrss` from `wait4` when that is
    /// above this process's peak (below it, the figure may be this process's, inherited
    /// through the fork), else the last `VmHWM` sampled from `/proc` while it ran, every 20
    /// ms at most (`None` for a run too short to sample).
    pub peak_rss_bytes: Option<u64>,
    /// "Total number of states checked", as fc-solve reports it, if it did.
    pub states_checked: Option<u64>,
    /// Its solution as castle moves, checked by [`crate::check::check_win`] (only when solvable).
    pub solution: Option<Vec<Move>>,
}

impl PeerRun {
    fn failed(why: impl Into<String>) -> PeerRun {
        PeerRun {
            verdict: PeerVerdict::Failed(why.into()),
            moves: None,
            seconds: 0.0,
            peak_rss_bytes: None,
            states_checked: None,
            solution: None,
        }
    }
}

/// Rules fc-solve's `beleaguered_castle` preset does not play ([`supports`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("fc-solve cannot play {variant}: {what}")]
pub struct Unsupported {
    /// The variant asked for.
    pub variant: Variant,
    /// What the preset lacks.
    pub what: &'static str,
}

/// Whether fc-solve's `beleaguered_castle` preset plays these rules.
///
/// # Errors
/// What it cannot play.
pub fn supports(rules: &Rules) -> Result<(), Unsupported> {
    let no = |what: &'static str| {
        Err(Unsupported {
            variant: rules.variant,
            what,
        })
    };
    if rules.build != Build::DownAnySuit {
        return no("its beleaguered_castle preset builds down regardless of suit only");
    }
    if rules.piles != 8 {
        return no("its beleaguered_castle preset has 8 piles");
    }
    if rules.cells > 0 || rules.stock || rules.decks > 1 {
        return no("no reserve cells, stock or second deck");
    }
    if rules.options.foundation_return {
        return no("it has no foundation return");
    }
    if rules.options.sequence_moves != SequenceMoves::Single {
        return no("it is run with single-card moves only");
    }
    Ok(())
}

/// Runs fc-solve's complete search on `deal` with no memory cap: [`run_fc_solve_capped`]
/// with [`PeerPreset::Complete`] and `None` (only for deals known to be small).
pub fn run_fc_solve(exe: &Path, deal: &Deal, timeout: Duration) -> PeerRun {
    run_fc_solve_capped(exe, deal, PeerPreset::Complete, timeout, None)
}

/// Runs fc-solve (`exe`, with `preset`'s [`PeerPreset::args`]) on `deal`, killing it after
/// `timeout`. With `max_memory_bytes`, its address space is capped there (`RLIMIT_AS`), so a
/// deal it cannot decide fails with `out of memory ...` instead of taking the machine down
/// (fc-solve needs more address space than resident memory; allow some slack). A solution
/// it prints is replayed with [`replay_solution`]; one that does not check makes the run
/// `Failed`. Under the heuristic preset, "I could not solve this game" is
/// [`PeerVerdict::NoWin`].
pub fn run_fc_solve_capped(
    exe: &Path,
    deal: &Deal,
    preset: PeerPreset,
    timeout: Duration,
    max_memory_bytes: Option<u64>,
) -> PeerRun {
    if let Err(e) = supports(&deal.rules) {
        return PeerRun::failed(e.to_string());
    }
    let board = match write_fcs(deal) {
        Ok(b) => b,
        Err(e) => return PeerRun::failed(e.to_string()),
    };
    let child = match process::run(exe, preset.args(), &board, timeout, max_memory_bytes) {
        Ok(c) => c,
        Err(e) => return PeerRun::failed(format!("cannot run {}: {e}", exe.display())),
    };
    let mut run = PeerRun {
        verdict: PeerVerdict::Timeout,
        moves: None,
        seconds: child.seconds,
        peak_rss_bytes: child.peak_rss_bytes,
        states_checked: None,
        solution: None,
    };
    if child.timed_out {
        return run;
    }
    let stderr_tail = child
        .stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string();
    let cap = |m: u64| format!("the {m}-byte address-space cap");
    match child.exit {
        process::Exit::Signal(sig) => {
            run.verdict = PeerVerdict::Failed(match max_memory_bytes {
                // Under the cap fc-solve 5.0 dies by SIGSEGV when an allocation fails.
                Some(m) => format!(
                    "out of memory: fc-solve died by signal {sig} under {}",
                    cap(m)
                ),
                None => format!("fc-solve died by signal {sig}"),
            });
            return run;
        }
        process::Exit::Code(code) if code != 0 => {
            let lower = child.stderr.to_ascii_lowercase();
            run.verdict = PeerVerdict::Failed(match max_memory_bytes {
                Some(m) if lower.contains("memory") || lower.contains("alloc") => {
                    format!(
                        "out of memory: fc-solve exited with code {code} under {} ({stderr_tail})",
                        cap(m)
                    )
                }
                _ => format!("fc-solve exited with code {code} without a verdict ({stderr_tail})"),
            });
            return run;
        }
        process::Exit::Code(_) => {}
    }
    let out = match parse_output(&child.stdout) {
        Ok(out) => out,
        Err(e) => {
            run.verdict = PeerVerdict::Failed(format!("unreadable fc-solve output: {e}"));
            return run;
        }
    };
    run.states_checked = out.states_checked;
    run.verdict = match out.verdict {
        None => PeerVerdict::Failed(format!("fc-solve printed no verdict ({stderr_tail})")),
        Some(PeerVerdict::Solvable) => match replay_solution(deal, &out) {
            Ok(moves) => {
                run.moves = Some(moves.len());
                run.solution = Some(moves);
                PeerVerdict::Solvable
            }
            Err(e) => PeerVerdict::Failed(format!(
                "fc-solve says solvable, but its solution does not check: {e}"
            )),
        },
        Some(PeerVerdict::Unsolvable) if !preset.proves_losses() => PeerVerdict::NoWin,
        Some(v) => v,
    };
    run
}

#[cfg(test)]
mod tests;
