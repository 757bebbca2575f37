//! Critical moves: the positions of a winning line where a player could go wrong, because
//! only one or two of its moves keep the deal winnable.
//!
//! A position's *choices* are its legal moves, with the moves that leave the same position up
//! to the order of the piles counted once (a card moved to any of three empty piles is one
//! choice, as `castle analyze` lists it). Each choice's position is solved by the exact
//! solver within a budget: it *keeps* the win (a win exists from it), *loses* it (no win
//! exists), or is *undecided* (the budget ran out). A position is **critical** when at least
//! one choice loses and at most two choices are not proved to lose: an undecided choice is
//! counted as one that keeps the win, so a mark is never a guess (a budget that runs out can
//! only take a mark away, never add one).
//!
//! Along a winning line the line's own move keeps the win without a search (the rest of the
//! line wins from it), and a position stops being examined as soon as three choices are not
//! proved lost: it cannot be critical then. The marks are used by `castle analyze` (the
//! position analysed), by the replay page (`castle solve --format html`) and by `castle
//! serve` (a solution replayed in the browser).

use crate::check::{Board, Step};
use crate::deal::Deal;
use crate::solver::{Limits, SolveError, Solver, Verdict};

/// What the exact solver said of a position's choices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Choices {
    /// Distinct choices (legal moves, those that leave the same position up to pile order
    /// counted once).
    pub total: usize,
    /// Choices proved to keep the win.
    pub keep: usize,
    /// Choices proved to lose it.
    pub lose: usize,
    /// Choices whose search ran out of budget (counted as keeping the win), or that were not
    /// looked at once the position could no longer be critical.
    pub undecided: usize,
    /// Nodes the choices' searches took.
    pub nodes: u64,
}

impl Choices {
    /// Critical: some choice loses, and at most two are not proved to lose.
    pub fn critical(&self) -> bool {
        self.lose > 0 && self.keep + self.undecided <= 2
    }

    /// Choices not proved to lose (what a critical mark says "only one or two" of).
    pub fn not_lost(&self) -> usize {
        self.keep + self.undecided
    }

    /// The choices from an analysis's verdicts: one verdict per legal move of `board`, in
    /// [`Board::legal_steps`] order (as `castle analyze` has them).
    pub fn of_verdicts(board: &Board, moves: &[(Step, Verdict)]) -> Choices {
        let mut seen: Vec<(String, Verdict)> = Vec::new();
        for (s, v) in moves {
            let mut next = board.clone();
            if next.play(s).is_err() {
                continue;
            }
            let key = shape_key(&next);
            match seen.iter_mut().find(|(k, _)| *k == key) {
                // Two moves to the same position: the better-known verdict stands.
                Some((_, w)) if *w == Verdict::Unknown => *w = *v,
                Some(_) => {}
                None => seen.push((key, *v)),
            }
        }
        let mut c = Choices {
            total: seen.len(),
            ..Choices::default()
        };
        for (_, v) in seen {
            match v {
                Verdict::Solvable => c.keep += 1,
                Verdict::Unsolvable => c.lose += 1,
                Verdict::Unknown => c.undecided += 1,
            }
        }
        c
    }
}

/// A position's key that does not depend on the order of the tableau piles or of the cells
/// (no rule of any variant tells one pile or cell from another once the cards are dealt).
pub fn shape_key(board: &Board) -> String {
    let mut d = board.to_deal();
    d.tableau.sort();
    d.reserve.sort();
    d.seed = None;
    format!("{:?}", d)
}

/// The solver the marks use by default: the exact search with `nodes` per choice, verdicts
/// only (no shortening of the wins it finds), a 256 MiB table.
pub fn marking_solver(nodes: u64) -> Solver {
    Solver {
        limits: Limits {
            max_nodes: Some(nodes),
            max_seconds: None,
            memory_bytes: 256 << 20,
        },
        shorten: false,
        short: None,
        ..Solver::default()
    }
}

/// Node budget of each choice's search in the marks of the replay page and `castle serve`:
/// most choices are decided in far fewer; one that is not stays undecided (no mark).
pub const MARK_NODES: u64 = 20_000;

/// The verdict of one position by `solver` and the nodes it took: a position the search
/// cannot hold is undecided.
fn verdict(solver: &Solver, board: &Board) -> Result<(Verdict, u64), SolveError> {
    if board.cards_out() == 0 {
        return Ok((Verdict::Solvable, 0));
    }
    let deal = board.to_deal();
    if deal.validate().is_err() {
        return Ok((Verdict::Unknown, 0));
    }
    let out = solver.solve(&deal)?;
    Ok((out.verdict, out.nodes))
}

/// The choices of `board`, each solved by `solver`; `keeps` is a move known to keep the win
/// (the next move of a winning line), counted without a search. Stops (leaving the rest
/// undecided) as soon as three choices are not proved lost.
///
/// # Errors
/// A solve's internal error.
pub fn choices(
    board: &Board,
    keeps: Option<&Step>,
    solver: &Solver,
) -> Result<Choices, SolveError> {
    // The distinct positions the legal moves leave, the known good one first.
    let mut next: Vec<(String, Board, bool)> = Vec::new();
    for (s, b) in board.successors() {
        let key = shape_key(&b);
        let good = keeps == Some(&s);
        match next.iter_mut().find(|(k, _, _)| *k == key) {
            Some(e) => e.2 |= good,
            None => next.push((key, b, good)),
        }
    }
    next.sort_by_key(|e| !e.2);
    let mut c = Choices {
        total: next.len(),
        ..Choices::default()
    };
    for (k, (_, b, good)) in next.iter().enumerate() {
        if c.not_lost() >= 3 {
            c.undecided += next.len() - k;
            break;
        }
        let (v, nodes) = if *good {
            (Verdict::Solvable, 0)
        } else {
            verdict(solver, b)?
        };
        c.nodes += nodes;
        match v {
            Verdict::Solvable => c.keep += 1,
            Verdict::Unsolvable => c.lose += 1,
            Verdict::Unknown => c.undecided += 1,
        }
    }
    Ok(c)
}

/// The marks of a winning line from `deal`: for each move, the choices of the position it
/// was made from, when that move is a player's (`player[k]`; a move the game makes by
/// itself gets `None`, and so does every move of a line that does not win).
///
/// # Errors
/// A solve's internal error.
pub fn mark_line(
    deal: &Deal,
    steps: &[Step],
    player: &[bool],
    solver: &Solver,
) -> Result<Vec<Option<Choices>>, SolveError> {
    let mut out = vec![None; steps.len()];
    if crate::check::check_win(deal, steps).is_err() {
        return Ok(out);
    }
    let mut board = Board::new(deal);
    for (k, s) in steps.iter().enumerate() {
        if player.get(k).copied().unwrap_or(true) {
            out[k] = Some(choices(&board, Some(s), solver)?);
        }
        if board.play(s).is_err() {
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Card;
    use crate::rules::Variant;

    fn c(s: &str) -> Card {
        s.parse().unwrap()
    }

    /// Beleaguered castle: the four kings, QS and JS out, four empty piles.
    fn endgame() -> Board {
        let mut tableau = vec![
            vec![c("KC")],
            vec![c("KD")],
            vec![c("KH"), c("JS")],
            vec![c("KS"), c("QS")],
        ];
        tableau.resize(8, vec![]);
        let deal = Deal {
            tableau,
            foundations: [12, 12, 12, 10, 0, 0, 0, 0],
            ..Deal::empty(Variant::BeleagueredCastle.rules())
        };
        deal.validate().unwrap();
        Board::new(&deal)
    }

    #[test]
    fn moves_to_empty_piles_are_one_choice_and_a_won_endgame_is_not_critical() {
        let board = endgame();
        let ch = choices(&board, None, &marking_solver(10_000)).unwrap();
        // 22 moves: KC and KD home or to one of the 4 empty piles; JS home, onto QS or to an
        // empty pile; QS onto KC, onto KD or to an empty pile. As choices: a lone king to an
        // empty pile leaves the same position (one choice for both kings and all 4 piles),
        // and so does any card to any of the empty piles: 9 choices, and every one wins.
        assert_eq!(board.legal_steps().len(), 22);
        assert_eq!(ch.total, 9, "{ch:?}");
        assert_eq!(ch.lose, 0);
        assert!(!ch.critical());
        // Three choices found winnable: the others are not searched.
        assert_eq!(ch.keep, 3);
        assert_eq!(ch.undecided, 6);
    }

    #[test]
    fn critical_needs_a_losing_choice_and_at_most_two_others() {
        let ch = |keep, lose, undecided| Choices {
            total: keep + lose + undecided,
            keep,
            lose,
            undecided,
            nodes: 0,
        };
        assert!(ch(1, 5, 0).critical());
        assert!(ch(1, 5, 1).critical());
        assert!(ch(2, 1, 0).critical());
        // An undecided choice counts as a good one: never a mark on a guess.
        assert!(!ch(1, 5, 2).critical());
        assert!(!ch(3, 5, 0).critical());
        // No wrong choice, nothing to get wrong.
        assert!(!ch(1, 0, 0).critical());
        assert!(!ch(2, 0, 0).critical());
    }

    #[test]
    fn of_verdicts_groups_like_choices() {
        let board = endgame();
        let moves: Vec<(Step, Verdict)> = board
            .legal_steps()
            .into_iter()
            .map(|s| (s, Verdict::Unsolvable))
            .collect();
        let ch = Choices::of_verdicts(&board, &moves);
        assert_eq!(ch.total, 9);
        assert_eq!(ch.lose, 9);
        assert!(ch.critical());
    }
}
