//! How the player names piles and moves in `castle play`: [`Target`] (a pile by key, click
//! or word, `f:5H` for a foundation card), the board's [`Shape`] that bounds them, the pile
//! keys, and the checker's [`Step`]s built from names. Pile names themselves are
//! [`crate::pile::Pile`]'s.

use crate::card::{Card, CardParseError};
use crate::check::{Board, Step};
use crate::pile::Pile;

/// A pile word that names no pile of the board ([`Target::parse`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// Not a pile of this board.
    #[error("`{word}` is not a pile ({piles})")]
    NotAPile {
        /// The word as typed.
        word: String,
        /// The board's pile names.
        piles: String,
    },
    /// `f:` and something that is not a card.
    #[error("`{word}`: {err}")]
    Card {
        /// The word as typed.
        word: String,
        /// Why the card does not read.
        err: CardParseError,
    },
}

/// A step of the checker, made in one place so that a new field of [`Step`] is added here
/// only.
pub fn step(card: Card, from: Pile, to: Pile) -> Step {
    Step::single(card, from, to)
}

/// The piles a board has, for reading pile names and keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Tableau piles.
    pub piles: usize,
    /// Reserve cells.
    pub cells: usize,
    /// A stock and a waste.
    pub stock: bool,
}

impl Shape {
    /// The shape of `board`.
    pub fn of(board: &Board) -> Shape {
        Shape {
            piles: board.tableau.len(),
            cells: board.reserve.len(),
            stock: board.rules().stock,
        }
    }

    /// The pile names, for messages: `t1..t8 (or 1..8), r1..r2, f, s, w`.
    pub fn names(&self) -> String {
        let all = Pile::ranges(self.piles, self.cells, self.stock);
        let n = self.piles;
        all.replacen(&format!("t1..t{n}"), &format!("t1..t{n} (or 1..{n})"), 1)
    }

    /// True if the board has `pile`.
    pub fn has(&self, pile: Pile) -> bool {
        match pile {
            Pile::Tableau(i) => usize::from(i) < self.piles,
            Pile::Reserve(k) => usize::from(k) < self.cells,
            Pile::Foundation => true,
            Pile::Stock | Pile::Waste => self.stock,
        }
    }
}

/// A pile the player names by key, click or word: a [`Pile`], or a card on the
/// foundations as a source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A pile. [`Pile::Foundation`] as a destination lets the card pick the pile; as a
    /// source (foundation return) it stands for the one top card that can go where asked.
    /// [`Pile::Stock`] deals to the waste; [`Pile::Waste`]'s top card plays.
    At(Pile),
    /// This card on top of a foundation, as a source (foundation return): `f:5H`.
    Home(Card),
}

/// The keys of the tableau piles, in order: the top row of the keyboard.
pub const PILE_KEYS: [char; 12] = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '='];

impl Target {
    /// The pile name used in moves: `t3`, `r1`, `f`, `f:5H`, `s`, `w`.
    pub fn name(self) -> String {
        match self {
            Target::Home(c) => format!("f:{c}"),
            Target::At(p) => p.to_string(),
        }
    }

    /// The pile this target is (a foundation card stands for the foundations).
    pub fn pile(self) -> Pile {
        match self {
            Target::At(p) => p,
            Target::Home(_) => Pile::Foundation,
        }
    }

    /// True for the foundations, named as a pile or by a card on them.
    pub fn is_foundation(self) -> bool {
        self.pile() == Pile::Foundation
    }

    /// The keys that pick this pile in the full-screen game: `3`, `r1`, `f`, `s`, `w`.
    pub fn keys(self) -> Option<String> {
        match self {
            Target::At(Pile::Tableau(i)) => PILE_KEYS.get(usize::from(i)).map(char::to_string),
            Target::At(Pile::Reserve(k)) if k >= 9 => None,
            t => Some(t.pile().to_string()),
        }
    }

    /// The pile that keys pick on a board of this shape: `1`..`9`, `0`, `-`, `=` for
    /// t1..t12, `r1`.. for the cells, `f` for the foundations, `s` and `w` for the stock
    /// and the waste.
    pub fn of_keys(keys: &str, shape: Shape) -> Option<Target> {
        let mut chars = keys.chars();
        let first = chars.next()?;
        let rest = chars.as_str();
        match (first, rest) {
            ('f', "") => Some(Target::At(Pile::Foundation)),
            ('s', "") if shape.stock => Some(Target::At(Pile::Stock)),
            ('w', "") if shape.stock => Some(Target::At(Pile::Waste)),
            ('r', _) => match keys.parse::<Pile>() {
                Ok(p @ Pile::Reserve(k)) if usize::from(k) < shape.cells.min(9) => {
                    Some(Target::At(p))
                }
                _ => None,
            },
            (c, "") => PILE_KEYS
                .iter()
                .position(|&k| k == c)
                .filter(|&i| i < shape.piles)
                .map(|i| Target::At(Pile::Tableau(i as u8))),
            _ => None,
        }
    }

    /// Reads a pile word: `t3` or `3`, `r1`, `f`, `f:5H` (a foundation card), `s`, `w`
    /// (any case).
    ///
    /// # Errors
    /// What the word should have been.
    pub fn parse(word: &str, shape: Shape) -> Result<Target, TargetError> {
        let w = word.trim().to_ascii_lowercase();
        if let Some(card) = w.strip_prefix("f:") {
            return card
                .parse::<Card>()
                .map(Target::Home)
                .map_err(|err| TargetError::Card {
                    word: word.to_string(),
                    err,
                });
        }
        // `Pile` reads the names, and the bare number of a tableau pile.
        match w.parse::<Pile>() {
            Ok(p) if shape.has(p) => Ok(Target::At(p)),
            _ => Err(TargetError::NotAPile {
                word: word.to_string(),
                piles: shape.names(),
            }),
        }
    }

    /// True if `s` moves a card from this pile (the foundations stand for any foundation
    /// top).
    pub fn is_source_of(self, s: &Step) -> bool {
        match self {
            Target::Home(c) => s.from == Pile::Foundation && s.card == c,
            Target::At(p) => s.from == p,
        }
    }

    /// The pile a move goes to (a foundation card stands for the foundations).
    pub fn destination(self) -> Pile {
        self.pile()
    }
}

/// The source of a step as a [`Target`] names it: `f:5H` for a foundation card.
pub fn source_name(s: &Step) -> String {
    if s.from == Pile::Foundation {
        format!("f:{}", s.card)
    } else {
        s.from.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pile_name_reads_back_and_non_ascii_words_are_refused() {
        let shape = Shape {
            piles: 8,
            cells: 2,
            stock: true,
        };
        for p in Pile::all(8, 2, true) {
            assert_eq!(
                Target::parse(&p.to_string(), shape).map(Target::pile),
                Ok(p)
            );
            assert_eq!(Target::At(p).pile(), p);
        }
        for bad in [
            "é",
            "Ｔ1",
            "ｔ１",
            "t１",
            "\u{200b}t1",
            "r\u{200b}",
            "1\u{200b}",
            "🂡",
            "f:é",
            "r3",
            "t9",
        ] {
            let e = Target::parse(bad, shape).unwrap_err();
            assert!(e.to_string().contains(bad), "{e}");
            assert_eq!(Target::of_keys(bad, shape), None, "{bad:?}");
        }
    }
}
