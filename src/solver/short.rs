//! The search for a short win (`castle solve --short`).
//!
//! The depth-first search decides a deal, but the win it finds follows its move order and can
//! be hundreds of moves of shuffling even after [`crate::shorten`]. This search looks at the
//! same move graph best-first, with the weighted passes of `solver/bestfirst.rs`, ranking
//! positions by `f = g + w * h`: `g` the moves played from the deal and `h` =
//! [`Position::moves_left_bound`](crate::state::Position::moves_left_bound), a lower bound on the moves still needed.
//!
//! It runs as *restarted weighted A\**: passes with the weights 5, 3, 2 and 1.5 each stop at
//! their first win, and a final pass with weight 1 runs to the end. Every pass keeps only
//! positions with `g + h` below the length of the best win known (the depth-first one at the
//! start), so each pass can only return a shorter win. The passes share one node budget; a pass
//! the budget cuts short keeps any win it found, and the best win so far stands.
//!
//! The weights only change the order, never the set of positions a pass may expand, so any
//! pass that empties its queue proves the best length known the shortest, not only the last.
//!
//! **Why a finished final pass proves the shortest length.** `h` never overestimates, so a
//! position with `g + h >= best` lies on no win shorter than `best`, and dropping it loses no
//! shorter win. A position reached again by a line with a smaller `g` is searched again from
//! there, so every position on a shortest line is eventually expanded with its least `g`, in
//! any order; when the queue is empty no shorter win exists. The reductions in play keep this:
//! safe foundation moves (the argument in [`Position::safe_move`](crate::state::Position::safe_move) turns any win into one that
//! plays the card first and is no longer), one empty pile as the target, no lone card to an
//! empty pile, and no second move of the card just moved (the same position by one move fewer).

use super::bestfirst::{Pass, PassLimits};
use super::{End, Limit};
use crate::deal::Deal;
use crate::moves::Move;
use crate::state::Pruning;

/// Weights of the passes, in tenths; the last is plain A\*.
const WEIGHTS: [u32; 5] = [50, 30, 20, 15, 10];

/// What the search found.
#[derive(Clone, Debug, Default)]
pub struct Short {
    /// A win shorter than the one it was given, if it found one.
    pub moves: Option<Vec<Move>>,
    /// Positions expanded, all passes.
    pub nodes: u64,
    /// True when a pass emptied its queue: no win is shorter than the best known.
    pub optimal: bool,
    /// Otherwise, the budget that stopped it: its positions, the memory or the deadline.
    pub limit: Option<super::Limit>,
}

/// Looks for a win of fewer than `known` moves.
pub(super) fn search<const W: usize>(
    deal: &Deal,
    prune: Pruning,
    known: usize,
    limits: PassLimits<'_>,
) -> Short {
    let mut out = Short::default();
    let mut best = known;
    for (k, &w) in WEIGHTS.iter().enumerate() {
        let last_pass = k + 1 == WEIGHTS.len();
        let left = limits.nodes.saturating_sub(out.nodes);
        if left == 0 {
            out.limit = Some(super::Limit::Nodes);
            break;
        }
        let mut pass = Pass::<W>::new(deal, prune, w, best);
        let stop = pass.run(left, limits, !last_pass);
        out.nodes += pass.expanded;
        if let Some(line) = pass.win.take() {
            best = line.len();
            out.moves = Some(line);
        }
        out.limit = match stop {
            End::Exhausted => {
                out.optimal = true;
                break;
            }
            End::Cut(l @ (Limit::Seconds | Limit::Stopped)) => {
                out.limit = Some(l);
                break;
            }
            End::Cut(l) => Some(l),
            End::Won(()) => None,
        };
    }
    out
}
