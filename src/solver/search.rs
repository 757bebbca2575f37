//! Depth-first search with an explicit stack: no recursion (wins can be thousands of moves
//! deep), no allocation per node (moves go into one growing stack of move lists).

use super::table::{Entry, Table};
use super::{Limit, Outcome, Progress, Solver, Verdict};
use crate::moves::{is_cell, is_tableau, Move, MoveList};
use crate::state::{Position, Pruning};
use std::time::Instant;

/// One position on the search path.
struct Frame {
    /// Its untried moves are `moves[next..end]`.
    next: u32,
    end: u32,
    /// The start of its moves in the move stack (truncate to here on leaving).
    start: u32,
    /// History length before the edge into this position was played.
    hist: u32,
    /// Its table slot, valid while the table epoch is `epoch`.
    slot: u32,
    epoch: u32,
}

/// Plays every safe foundation move (if that reduction is on), recording each.
#[inline]
fn autoplay(pos: &mut Position, prune: Pruning, hist: &mut Vec<Move>) {
    if !prune.safe_autoplay {
        return;
    }
    while let Some(m) = pos.safe_move() {
        pos.play(m, hist);
    }
}

#[inline]
fn undo_to(pos: &mut Position, hist: &mut Vec<Move>, len: usize) {
    while hist.len() > len {
        let m = hist.pop().expect("history longer than len");
        pos.undo(m);
    }
}

/// The search's growing buffers, kept from one attempt to the next so that a restart does
/// not fault in fresh pages for them again.
#[derive(Default)]
pub(super) struct Scratch {
    hist: Vec<Move>,
    stack: Vec<Move>,
    frames: Vec<Frame>,
}

/// What distinguishes one attempt of a solve from another.
pub(super) struct Attempt {
    /// When the solve started (for `--max-seconds`).
    pub t0: Instant,
    /// This attempt's node budget (`Limit::Nodes` when hit).
    pub budget: Option<u64>,
    /// Nodes of earlier attempts (for the progress figures).
    pub done: u64,
    /// Varies the move order (0: the plain heuristic order).
    pub jitter: u64,
}

/// One depth-first search from `pos`. Whatever the order, an attempt that ends without
/// hitting a budget has entered every reachable position, so its verdict is exact.
pub(super) fn dfs<const W: usize>(
    pos: &mut Position,
    cfg: &Solver,
    table: &mut Table<W>,
    scratch: &mut Scratch,
    attempt: &Attempt,
    progress: &mut dyn FnMut(&Progress),
) -> Outcome {
    let Attempt {
        t0,
        budget,
        done,
        jitter,
    } = *attempt;
    let prune = cfg.pruning;
    let limits = cfg.limits;
    let Scratch {
        hist,
        stack,
        frames,
    } = scratch;
    hist.clear();
    stack.clear();
    frames.clear();
    let mut list = MoveList::default();
    let mut nodes: u64 = 0;

    autoplay(pos, prune, hist);
    let mut best_home = pos.home();
    // Ends the search with this verdict (everything else is read from the search state).
    macro_rules! finish {
        ($verdict:expr, $moves:expr, $limit:expr) => {
            return Outcome {
                verdict: $verdict,
                moves: $moves,
                nodes,
                states: table.len() as u64,
                peak_states: table.peak_len() as u64,
                seconds: t0.elapsed().as_secs_f64(),
                limit: $limit,
                best_home,
                table_bytes: table.bytes(),
                replaced: table.replaced(),
                attempts: 1,
            }
        };
    }
    if pos.is_won() {
        finish!(Verdict::Solvable, hist.clone(), None)
    }

    // Enters the position `pos` stands in: stores its key and pushes its frame.
    macro_rules! enter {
        ($hist_before:expr, $last:expr) => {{
            let key = pos
                .key::<W>()
                .expect("key width chosen from key_bits_bound");
            match table.enter(&key) {
                Entry::Present => false,
                Entry::NoRoom => {
                    finish!(Verdict::Unknown, Vec::new(), Some(Limit::Memory))
                }
                Entry::Stored(slot) => {
                    nodes += 1;
                    pos.generate(prune, jitter, $last, &mut list);
                    let start = stack.len() as u32;
                    stack.extend_from_slice(list.as_slice());
                    frames.push(Frame {
                        next: start,
                        end: stack.len() as u32,
                        start,
                        hist: $hist_before as u32,
                        slot: slot as u32,
                        epoch: table.epoch(),
                    });
                    true
                }
            }
        }};
    }

    enter!(0, None);

    loop {
        let Some(f) = frames.last_mut() else {
            finish!(Verdict::Unsolvable, Vec::new(), None)
        };
        if f.next == f.end {
            // Every move of this position was tried: leave it (unpin; it stays stored, so a
            // later visit by another path is answered from the table).
            let f = frames.pop().expect("frame present");
            if f.epoch == table.epoch() {
                table.unpin(f.slot as usize);
            } else {
                let key = pos.key::<W>().expect("key fits");
                if let Some(s) = table.find(&key) {
                    table.unpin(s);
                }
            }
            stack.truncate(f.start as usize);
            undo_to(pos, hist, f.hist as usize);
            continue;
        }
        let m = stack[f.next as usize];
        f.next += 1;
        let before = hist.len();
        pos.play(m, hist);
        autoplay(pos, prune, hist);
        // The card just moved, if nothing else moved with it (see `Position::generate`).
        let last = (m.count == 1
            && (is_tableau(m.from) || is_cell(m.from))
            && (is_tableau(m.to) || is_cell(m.to))
            && hist.len() == before + 1)
            .then_some(m.card);
        if pos.home() > best_home {
            best_home = pos.home();
        }
        if pos.is_won() {
            finish!(Verdict::Solvable, hist.clone(), None)
        }
        if !enter!(before, last) {
            undo_to(pos, hist, before);
            continue;
        }
        if let Some(max) = budget {
            if nodes >= max {
                finish!(Verdict::Unknown, Vec::new(), Some(Limit::Nodes))
            }
        }
        if nodes & 0xFFFF == 0 {
            let seconds = t0.elapsed().as_secs_f64();
            if limits.max_seconds.is_some_and(|s| seconds >= s) {
                finish!(Verdict::Unknown, Vec::new(), Some(Limit::Seconds))
            }
            progress(&Progress {
                nodes: done + nodes,
                states: table.len() as u64,
                seconds,
            });
        }
    }
}
