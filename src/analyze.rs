//! `castle analyze`: every legal move from a position with the verdict after it — the hint a
//! player wants when stuck — and the position's own difficulty.

use crate::check::{Board, Step};
use crate::deal::Deal;
use crate::solver::{Outcome, Solver};

/// A position's verdict and each legal move's verdict.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The position as a deal.
    pub position: Deal,
    /// The solve of the position itself (nodes to decide, a solution).
    pub whole: Outcome,
    /// Each legal move (from the rule book's checker, not the search) and the solve of the
    /// position after it.
    pub moves: Vec<(Step, Outcome)>,
}

/// Analyses `board` with `solver`.
pub fn analyze(board: &Board, solver: &Solver) -> Analysis {
    let position = board.to_deal();
    let whole = solver.solve(&position);
    let moves = board
        .legal_steps()
        .into_iter()
        .map(|step| {
            let mut next = board.clone();
            next.play(&step).expect("legal_steps yields legal moves");
            let out = solver.solve(&next.to_deal());
            (step, out)
        })
        .collect();
    Analysis {
        position,
        whole,
        moves,
    }
}
