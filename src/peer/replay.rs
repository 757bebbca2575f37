//! Checking fc-solve's solution ([`replay_solution`]): its moves become castle [`Move`]s
//! played on the independent checker's [`Board`], each position it printed is compared with
//! the checker's, and the line must win; any failure is a [`ReplayError`].

use super::output::{FcBoard, FcMove, FcOutput};
use crate::check::{self, Board, CheckError, Step, StepError};
use crate::deal::Deal;
use crate::moves::{Move, FOUNDATION};
use crate::pile::Pile;
use std::fmt;

/// Where the checker's position and one fc-solve printed differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// The foundation heights (C, D, H, S).
    Foundations {
        /// The checker's heights.
        castle: Vec<usize>,
        /// fc-solve's.
        fc_solve: Vec<usize>,
    },
    /// The first tableau pile that differs (0-based: fc-solve's stack number).
    Pile(usize),
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::Foundations { castle, fc_solve } => write!(
                f,
                "foundation heights (C, D, H, S) {castle:?}, fc-solve printed {fc_solve:?}"
            ),
            Difference::Pile(k) => write!(
                f,
                "pile {} differs from fc-solve's stack {k}",
                Pile::Tableau(*k as u8)
            ),
        }
    }
}

/// Why fc-solve's solution does not check. `n` is fc-solve's 1-based move number; stacks
/// are numbered from 0, as it prints them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The positions printed do not match the moves one for one.
    #[error("{moves} moves but {boards} positions printed")]
    Positions {
        /// Moves read.
        moves: usize,
        /// Positions read.
        boards: usize,
    },
    /// The first position printed is not the deal.
    #[error("the start position: {0}")]
    Start(Difference),
    /// A move to a stack the board does not have.
    #[error("move {n}: no stack {stack}")]
    NoStack {
        /// Move number.
        n: usize,
        /// The stack.
        stack: usize,
    },
    /// A run longer than its stack.
    #[error("move {n}: stack {stack} has fewer than {cards} cards or is missing")]
    ShortStack {
        /// Move number.
        n: usize,
        /// The stack.
        stack: usize,
        /// Cards in the run.
        cards: usize,
    },
    /// A move from an empty or missing stack.
    #[error("move {n}: stack {stack} is empty or missing")]
    EmptyStack {
        /// Move number.
        n: usize,
        /// The stack.
        stack: usize,
    },
    /// A single move the checker refuses.
    #[error("move {n} ({step}) is illegal: {why}")]
    Illegal {
        /// Move number.
        n: usize,
        /// The single move.
        step: Step,
        /// The checker's reason.
        why: StepError,
    },
    /// A run with too few empty piles to carry it.
    #[error("move {n}: a run of {cards} cards from stack {stack} needs more empty piles")]
    NeedsEmpties {
        /// Move number.
        n: usize,
        /// Cards in the run.
        cards: usize,
        /// The stack.
        stack: usize,
    },
    /// The position after a move is not the one fc-solve printed.
    #[error("after move {n} ({step}): {diff}")]
    Differs {
        /// Move number.
        n: usize,
        /// The first single move it became.
        step: Step,
        /// The difference.
        diff: Difference,
    },
    /// Every move played, but the line does not win.
    #[error(transparent)]
    NotWon(#[from] CheckError),
}

/// Where the checker's board and a position fc-solve printed differ, if they do.
fn differs(board: &Board, fc: &FcBoard) -> Option<Difference> {
    let heights: Vec<usize> = board.foundations.iter().map(Vec::len).collect();
    let want: Vec<usize> = fc.foundations.iter().map(|&h| usize::from(h)).collect();
    if heights != want {
        return Some(Difference::Foundations {
            castle: heights,
            fc_solve: want,
        });
    }
    if board.tableau != fc.tableau {
        let k = (0..board.tableau.len().max(fc.tableau.len()))
            .find(|&k| board.tableau.get(k) != fc.tableau.get(k))
            .unwrap_or(0);
        return Some(Difference::Pile(k));
    }
    None
}

/// Turns fc-solve's solution into castle moves and checks it: each move is played on the
/// independent checker's [`Board`] (the card is the source pile's top card), every position
/// fc-solve printed must equal the checker's, and the whole line must win
/// ([`check::check_win`], as `castle verify` replays).
///
/// fc-solve's own searches (not the `-to 0AB` one castle runs) move a run of cards through
/// empty piles as one move. Such a move is played as the single moves it stands for, the
/// usual halving: the top half to an empty pile, the rest to the target through the other
/// empty piles, the half back on top; `n` cards need `n <= 2^e` with `e` empty piles
/// besides the source and target, which is also the most fc-solve moves at once without
/// cells. Each single move is checked like any other, so the expansion cannot let an illegal
/// run through; the position fc-solve printed is compared after the whole run.
///
/// # Errors
/// The first move that cannot be read or played, the first position that differs, or a
/// line that does not win.
pub fn replay_solution(deal: &Deal, out: &FcOutput) -> Result<Vec<Move>, ReplayError> {
    if !out.boards.is_empty() && out.boards.len() != out.moves.len() + 1 {
        return Err(ReplayError::Positions {
            moves: out.moves.len(),
            boards: out.boards.len(),
        });
    }
    let mut board = Board::new(deal);
    if let Some(d) = out.boards.first().and_then(|fc| differs(&board, fc)) {
        return Err(ReplayError::Start(d));
    }
    let mut moves = Vec::with_capacity(out.moves.len());
    for (i, fm) in out.moves.iter().enumerate() {
        let n = i + 1;
        let first = moves.len();
        match *fm {
            FcMove::Foundation { from } => single(&mut board, &mut moves, n, from, FOUNDATION)?,
            FcMove::Stack { from, to, cards } => {
                let piles = board.tableau.len();
                if to >= piles {
                    return Err(ReplayError::NoStack { n, stack: to });
                }
                if cards == 0 || board.tableau.get(from).map_or(0, Vec::len) < cards {
                    return Err(ReplayError::ShortStack {
                        n,
                        stack: from,
                        cards,
                    });
                }
                let empties: Vec<usize> = (0..piles)
                    .filter(|&k| k != from && k != to && board.tableau[k].is_empty())
                    .collect();
                run(&mut board, &mut moves, n, cards, from, to, &empties)?;
            }
        }
        if let Some(d) = out.boards.get(n).and_then(|fc| differs(&board, fc)) {
            let step = check::steps_of(&moves[first..]).remove(0);
            return Err(ReplayError::Differs { n, step, diff: d });
        }
    }
    check::check_win(deal, &check::steps_of(&moves))?;
    Ok(moves)
}

/// Plays the top card of stack `from` to `to` (a pile index or [`FOUNDATION`]) on `board`
/// and records it; `n` numbers fc-solve's move in messages.
fn single(
    board: &mut Board,
    moves: &mut Vec<Move>,
    n: usize,
    from: usize,
    to: u8,
) -> Result<(), ReplayError> {
    let card = board
        .tableau
        .get(from)
        .and_then(|p| p.last().copied())
        .ok_or(ReplayError::EmptyStack { n, stack: from })?;
    let m = Move::single(card, from as u8, to);
    let step: Step = check::steps_of(&[m]).remove(0);
    board
        .play(&step)
        .map_err(|why| ReplayError::Illegal { n, step, why })?;
    moves.push(m);
    Ok(())
}

/// Moves the top `cards` of stack `from` to stack `to` one card at a time through the empty
/// piles `empties` (see [`replay_solution`]).
fn run(
    board: &mut Board,
    moves: &mut Vec<Move>,
    n: usize,
    cards: usize,
    from: usize,
    to: usize,
    empties: &[usize],
) -> Result<(), ReplayError> {
    if cards == 1 {
        return single(board, moves, n, from, to as u8);
    }
    let Some((&e, rest)) = empties.split_first() else {
        return Err(ReplayError::NeedsEmpties {
            n,
            cards,
            stack: from,
        });
    };
    let half = cards / 2;
    run(board, moves, n, half, from, e, rest)?;
    run(board, moves, n, cards - half, from, to, rest)?;
    run(board, moves, n, half, e, to, rest)
}
