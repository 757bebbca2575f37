//! Lines of the abstraction played on the deal: a branch win that is a real win, a false
//! line's last real position, and the cards its branches got wrong (see "Refining by the cards
//! a branch got wrong" in [`super`]).

use super::*;

/// The abstract `line` of a branch win played on `deal` itself: its moves, if every one is
/// legal there and the deal ends won. A branch that gave a card the wrong suit makes a
/// foundation move illegal (the card on that pile is another suit's), and the answer is
/// `None`. Played on the checker's board, so a line returned is a checked win (the solver
/// replays it once more before returning it, as every win).
pub fn concrete_line(deal: &Deal, line: &[AbstractMove]) -> Option<Vec<Move>> {
    let (out, board) = play_prefix(deal, line);
    (out.len() == line.len() && board.cards_out() == 0).then_some(out)
}

/// The longest prefix of a branch win's `line` that is legal on `deal`, and the position it
/// reaches there, as a deal to solve: a real position of the game, reached by the moves
/// returned (checked on the checker's board). A false line's prefix ends just before its
/// first wrong branch.
pub fn concrete_prefix(deal: &Deal, line: &[AbstractMove]) -> (Vec<Move>, Deal) {
    let (out, board) = play_prefix(deal, line);
    (out, board.to_deal())
}

pub(super) fn play_prefix(deal: &Deal, line: &[AbstractMove]) -> (Vec<Move>, Board) {
    let mut board = Board::new(deal);
    let mut out = Vec::with_capacity(line.len());
    for m in line {
        let Some(pile) = board.tableau.get(usize::from(m.from)) else {
            break;
        };
        let Some(&card) = pile
            .len()
            .checked_sub(usize::from(m.count))
            .and_then(|i| pile.get(i))
        else {
            break;
        };
        let mv = Move {
            card,
            from: m.from,
            to: m.to.unwrap_or(FOUNDATION),
            count: m.count,
        };
        let Some(step) = steps_of(&[mv]).pop() else {
            break;
        };
        if board.play(&step).is_err() {
            break;
        }
        out.push(mv);
    }
    (out, board)
}

/// The cards a branch win's `line` sent home under a suit they do not have on `deal`, in
/// the line's order, as card codes (`rank * 4 + suit`, the bits of
/// [`QuotientOptions::kept`]): each is a card `(s, r)` the abstraction placed wrongly when
/// suit `s`'s window reached rank `r` (the card it sent home as `(s, r)` was another suit's).
/// Keeping one makes every line through its wrong branches impossible (see "Refining by the
/// cards a branch got wrong" in the module docs). Empty if the line wins on the deal.
///
/// The line is followed on the deal's cards by place: its tableau moves are moves on ranks,
/// legal on the deal whatever the suits, and a foundation move takes the pile's top card,
/// whose rank is the abstraction's; only the suit can differ.
pub fn wrong_branches(deal: &Deal, line: &[AbstractMove]) -> Vec<u8> {
    wrong_branch_places(deal, line)
        .into_iter()
        .map(|(_, c)| c)
        .collect()
}

/// [`wrong_branches`] with the index in `line` of each foundation move that got its card
/// wrong.
pub fn wrong_branch_places(deal: &Deal, line: &[AbstractMove]) -> Vec<(usize, u8)> {
    let mut piles: Vec<Vec<crate::card::Card>> = deal.tableau.clone();
    let mut wrong = Vec::new();
    for (i, m) in line.iter().enumerate() {
        let Some(from) = piles.get_mut(usize::from(m.from)) else {
            break;
        };
        let n = usize::from(m.count);
        if n == 0 || from.len() < n {
            break;
        }
        let moved = from.split_off(from.len() - n);
        match (m.to, m.suit) {
            (Some(to), _) => match piles.get_mut(usize::from(to)) {
                Some(p) => p.extend(moved),
                None => break,
            },
            (None, Some(suit)) => {
                let card = moved[0];
                if card.suit_index() != usize::from(suit) {
                    wrong.push((i, card.rank() * 4 + suit));
                }
            }
            (None, None) => break,
        }
    }
    wrong
}

/// The kept cards of the run after a false branch win: `kept` and the first card `line` got
/// wrong that `kept` does not hold yet (the refinement's step; see [`wrong_branches`]).
/// `None` if it names no such card (a line that fails on the deal always does: a kept card
/// is never branched).
pub fn next_kept(deal: &Deal, line: &[AbstractMove], kept: u64) -> Option<u64> {
    wrong_branches(deal, line)
        .into_iter()
        .map(|c| 1u64 << c)
        .find(|b| b & kept == 0)
        .map(|b| kept | b)
}

/// True if card `(suit, rank)` is one of the `kept` cards ([`QuotientOptions::kept`]).
#[inline]
pub(super) const fn kept(kept: u64, rank: u8, suit: u8) -> bool {
    kept >> (rank * 4 + suit) & 1 != 0
}
