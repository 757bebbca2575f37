//! Moves: the packed [`Move`] of the search, the fixed-capacity [`MoveList`] it generates into,
//! and pile names (`t1..tN`, `f`) for notation.

use crate::card::Card;
use std::fmt;

/// Pile index that stands for "the foundations" in a [`Move`].
pub const FOUNDATION: u8 = 0xFF;

/// A move as the search records it: the card, the source and destination pile indices
/// (tableau 0-based, or [`FOUNDATION`]), and how many cards go (`card` is then the lowest
/// of the run). Solutions only ever hold single-card moves (`count == 1`): the search expands
/// a run move into the single moves that carry it through empty piles.
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
}

/// Name of pile index `p`: `t1..tN` or `f`.
pub fn pile_name(p: u8) -> String {
    if p == FOUNDATION {
        "f".to_string()
    } else {
        format!("t{}", p as usize + 1)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} -> {}",
            self.card,
            pile_name(self.from),
            pile_name(self.to)
        )
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Capacity of a [`MoveList`]: with 12 piles each top card has at most one foundation move
/// and 11 tableau destinations, and each pile's top run at most 11 run moves onto other piles
/// plus 12 into an empty pile: 12 * (12 + 23) = 420 bounds every position.
pub const MAX_MOVES: usize = 420;

/// A fixed-capacity list of moves, filled by move generation without allocating. Each move
/// may carry a sort key (its heuristic score) so the list sorts itself in place.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    keys: [i32; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            moves: [Move::single(Card::new(1, crate::Suit::Clubs), 0, 0); MAX_MOVES],
            keys: [0; MAX_MOVES],
            len: 0,
        }
    }
}

impl MoveList {
    /// Appends a move.
    ///
    /// # Panics
    /// In debug builds, if the list is full (the capacity bounds every legal position).
    #[inline]
    pub fn push(&mut self, m: Move) {
        debug_assert!(self.len < MAX_MOVES);
        self.moves[self.len] = m;
        self.len += 1;
    }

    /// Empties the list.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The moves.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
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
