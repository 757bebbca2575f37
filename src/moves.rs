//! Moves: the packed [`Move`] of the search, the fixed-capacity [`MoveList`] it generates into,
//! and the pile indices a move names (written as [`Pile`] names).
//!
//! The search keeps piles as packed `u8` indices in its hot loop (a [`Move`] is four bytes);
//! everywhere a pile is read or written for a person it is a [`Pile`], converted at the
//! boundary by [`Pile::from_index`] and [`Pile::index`] (docs/design.md, "Errors and piles").

use crate::card::Card;
use crate::pile::Pile;
use std::fmt;

// The pile indices are the piles' own (see [`crate::pile`]); moves name piles by them.
pub use crate::pile::{is_cell, is_tableau, CELL, FOUNDATION, STOCK, WASTE};

/// A move as the search records it: the card, the source and destination pile indices
/// (tableau 0-based, [`CELL`]` + k`, [`STOCK`], [`WASTE`] or [`FOUNDATION`]), and how many
/// cards go (`card` is then the bottom card of the run). Under single-card rules solutions
/// only hold single-card moves: the search expands a run move into the single moves that carry
/// it through empty piles. Under `--sequence-moves unlimited` a run move is one move.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// The card that moves (for a run, its bottom card).
    pub card: Card,
    /// Source pile.
    pub from: u8,
    /// Destination pile.
    pub to: u8,
    /// Cards moved: 1, or the length of a run moved through empty piles.
    pub count: u8,
}

const _: () = assert!(std::mem::size_of::<Move>() == 4);

impl Move {
    /// A single-card move.
    #[inline]
    pub const fn single(card: Card, from: u8, to: u8) -> Move {
        Move {
            card,
            from,
            to,
            count: 1,
        }
    }

    /// The move as one word (for [`MoveList`]'s storage).
    #[inline]
    pub(crate) const fn to_bits(self) -> u32 {
        u32::from_le_bytes([self.card.code(), self.from, self.to, self.count])
    }

    /// The move [`Move::to_bits`] packed.
    #[inline]
    pub(crate) const fn from_bits(bits: u32) -> Move {
        let [card, from, to, count] = bits.to_le_bytes();
        Move {
            card: Card::from_code_unchecked(card),
            from,
            to,
            count,
        }
    }
}

/// The card a move carried and the pile (tableau or cell) it now lies on, for
/// [`crate::state::Position::generate`]'s `last`: `m` was a single move from a tableau pile or
/// a cell to a tableau pile or a cell, and `played` (the moves it became, automatic ones
/// included) shows that nothing moved with it. The pile matters with two decks, where the
/// card's twin may lie elsewhere and is free to move.
#[inline]
pub fn moved_card(m: Move, played: usize) -> Option<(Card, u8)> {
    (m.count == 1
        && (is_tableau(m.from) || is_cell(m.from))
        && (is_tableau(m.to) || is_cell(m.to))
        && played == 1)
        .then_some((m.card, m.to))
}

/// Name of pile index `p`: `t1..tN`, `r1..rK`, `f`, `s` or `w`.
/// (The [`Pile`] of the index, written out.)
pub fn pile_name(p: u8) -> String {
    Pile::from_index(p).to_string()
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} -> {}",
            self.card,
            Pile::from_index(self.from),
            Pile::from_index(self.to)
        )
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Capacity of a [`MoveList`]. With 12 piles each top card has at most a foundation move, 11
/// tableau destinations, an empty pile and a cell (14); each pile's top run at most 2 run
/// moves per other pile and 12 into an empty pile (34); each cell card, the waste top and the
/// 8 foundation tops at most 13 more each; plus a stock deal: 12 * 48 + 12 * 13 + 1 = 733
/// bounds every position of every variant.
pub const MAX_MOVES: usize = 768;

/// A fixed-capacity list of moves, filled by move generation without allocating. Each move
/// may carry a sort key (its heuristic score) so the list sorts itself in place.
///
/// Moves are stored as single words: a [`Move`] built field by field is written with four
/// byte stores, and reading it back whole right after (as the scoring pass does) waits for
/// those stores to retire instead of forwarding them, which cost a sixth of the search's time.
#[derive(Clone)]
pub struct MoveList {
    moves: [u32; MAX_MOVES],
    keys: [i32; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            moves: [0; MAX_MOVES],
            keys: [0; MAX_MOVES],
            len: 0,
        }
    }
}

impl MoveList {
    /// Appends a move.
    ///
    /// # Panics
    /// If the list is full (the capacity bounds every legal position).
    #[inline]
    pub fn push(&mut self, m: Move) {
        self.moves[self.len] = m.to_bits();
        self.len += 1;
    }

    /// Empties the list.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Move `i`.
    ///
    /// # Panics
    /// If `i` is out of range.
    #[inline]
    pub fn get(&self, i: usize) -> Move {
        Move::from_bits(self.moves[..self.len][i])
    }

    /// The moves in order.
    #[inline]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Move> + '_ {
        self.moves[..self.len].iter().map(|&b| Move::from_bits(b))
    }

    /// Sets the sort key of move `i`.
    #[inline]
    pub fn set_key(&mut self, i: usize, key: i32) {
        self.keys[i] = key;
    }

    /// Sorts the moves by key, highest first (insertion sort: lists are short, and equal
    /// keys keep their generation order).
    #[inline]
    pub fn sort_by_key_desc(&mut self) {
        for i in 1..self.len {
            let (k, m) = (self.keys[i], self.moves[i]);
            let mut j = i;
            while j > 0 && self.keys[j - 1] < k {
                self.keys[j] = self.keys[j - 1];
                self.moves[j] = self.moves[j - 1];
                j -= 1;
            }
            self.keys[j] = k;
            self.moves[j] = m;
        }
    }

    /// Drops the moves of the card `c` from pile `from` (keeping the order of the rest);
    /// true if there were any.
    #[inline]
    pub fn remove_from(&mut self, c: Card, from: u8) -> bool {
        let mut kept = 0;
        for i in 0..self.len {
            let m = Move::from_bits(self.moves[i]);
            if m.card != c || m.from != from {
                self.moves[kept] = self.moves[i];
                kept += 1;
            }
        }
        let removed = kept != self.len;
        self.len = kept;
        removed
    }

    /// Number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if there are no moves.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
