//! Move ordering: how promising each generated move looks ([`Position::generate`] sorts by
//! it when [`Pruning::order_moves`] is on) and the jitter that varies the order between
//! restarted searches. A heuristic only: the search tries every generated move, so nothing
//! here changes a verdict, only the nodes it takes. The weights are the named constants
//! below, all in one place.

use super::{Position, KEY_HASH_MUL};
use crate::card::KING;
use crate::moves::{is_cell, is_tableau, Move, MoveList, FOUNDATION, STOCK, WASTE};
#[cfg(doc)]
use crate::state::Pruning;

/// A foundation move's score, less the card's rank (lower cards first): above any other
/// move's, jitter included.
const FOUNDATION_FIRST: i32 = 10_000;
/// Bonus for a tableau move that empties its source pile.
const EMPTIES_PILE: i32 = 300;
/// Bonus for a tableau move that uncovers a card that fits its foundation.
const EXPOSES_HOME: i32 = 600;
/// Added (a penalty) when the moved card sits on a card it builds on: a lateral shuffle.
const LATERAL_SHUFFLE: i32 = -200;
/// Weight of digging towards a pile's lowest card: `(KING + 1 - rank) * DIG_WEIGHT`, divided
/// by one more than the cards left above it.
const DIG_WEIGHT: i32 = 16;
/// Added for a card taken back from the foundations.
const FROM_FOUNDATION: i32 = -400;
/// Added for a deal from the stock to the waste.
const FROM_STOCK: i32 = -50;
/// Added for a move of the waste's top card.
const FROM_WASTE: i32 = 100;
/// Added for a card leaving a reserve cell.
const FROM_CELL: i32 = 250;
/// Added for a card entering a reserve cell.
const TO_CELL: i32 = -250;
/// Added for a move into an empty tableau pile.
const TO_EMPTY_PILE: i32 = -150;
/// The jitter adds `0..JITTER_SPAN` to every move's score (foundation moves stay first).
const JITTER_SPAN: u64 = 640;

impl Position {
    /// How promising a move looks (higher first). Only the order of the search depends on
    /// it, never a verdict: every generated move is tried.
    ///
    /// Foundation moves come first; then moves that expose a card that can go home or that
    /// empty a pile; moves that dig towards the lowest card of a pile rank above others;
    /// moving a card that already sits on its natural parent (a lateral shuffle) and filling
    /// an empty pile rank last. Cell cards leaving their cell rank high, cards entering a
    /// cell or coming back from the foundations low.
    #[inline]
    fn score(&self, m: Move) -> i32 {
        if m.to == FOUNDATION {
            return FOUNDATION_FIRST - i32::from(m.card.rank());
        }
        let mut s = 0;
        if is_tableau(m.from) {
            let from = m.from as usize;
            // Cards left in the source pile after the move.
            let left = self.len[from] as usize - m.count as usize;
            if left == 0 {
                s += EMPTIES_PILE;
            } else {
                let below = self.cards[from][left - 1];
                if self.fits_foundation(below) {
                    s += EXPOSES_HOME;
                }
                if self.build.builds_on(m.card, below) {
                    s += LATERAL_SHUFFLE;
                }
                // Dig towards the pile's lowest card: the fewer cards above it, the better.
                // (Only when that card is not itself among the cards moved.)
                let at = self.low[from][self.len[from] as usize - 1] as usize;
                if at < left {
                    let depth = left - 1 - at;
                    let rank = self.cards[from][at].rank();
                    s += (i32::from(KING + 1 - rank) * DIG_WEIGHT) / (depth as i32 + 1);
                }
            }
        } else {
            s += match m.from {
                FOUNDATION => FROM_FOUNDATION,
                STOCK => FROM_STOCK,
                WASTE => FROM_WASTE,
                _ => FROM_CELL,
            };
        }
        if is_cell(m.to) {
            s += TO_CELL;
        } else if is_tableau(m.to) && self.len[m.to as usize] == 0 {
            s += TO_EMPTY_PILE;
        }
        s
    }

    /// Sorts `out` by [`Position::score`], highest first; with a nonzero `jitter`, each
    /// move's score first gains a pseudo-random `0..JITTER_SPAN` hashed from the move and
    /// `jitter`, so that restarted searches try different lines first.
    #[inline]
    pub(super) fn order(&self, jitter: u64, out: &mut MoveList) {
        for k in 0..out.len() {
            let m = out.get(k);
            let mut score = self.score(m);
            if jitter != 0 {
                let bits = u64::from(m.card.code()) << 24
                    | u64::from(m.from) << 16
                    | u64::from(m.to) << 8
                    | u64::from(m.count);
                let mut h = (bits ^ jitter).wrapping_mul(KEY_HASH_MUL);
                h ^= h >> 31;
                score += (h % JITTER_SPAN) as i32;
            }
            out.set_key(k, score);
        }
        out.sort_by_key_desc();
    }
}
