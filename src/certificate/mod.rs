//! Certificates of lost deals, and their checker.
//!
//! A win is trusted because anyone can replay it ([`crate::check`]). A certificate does the
//! same for a loss: it is a set `S` of positions with three properties a small program can
//! check, and which together prove that no position reachable from the deal is won:
//!
//! 1. the deal's start (after the closure rules below) is in `S`;
//! 2. no member of `S` is won;
//! 3. every legal move from every member leads (after the closure rules) into `S`.
//!
//! So `S` is an inductive invariant of the game: every line from the start stays in it, and it
//! holds no won position. `castle solve --certificate FILE` writes one for an `unsolvable`
//! verdict ([`crate::solver::certify`] builds it with a search of its own), and `castle
//! check-certificate FILE` checks it with the code here, which shares nothing with the search:
//! its own move rules (written from `docs/rules.md`, as [`crate::check`] is), its own
//! abstraction, canonical forms and hashing. It imports nothing from `src/solver` or
//! `src/state`, nor even [`crate::card::Card`] or [`crate::rules::Rules`]: cards are bytes
//! (`rank * 4 + suit`, suits C, D, H, S) and the rules are the flags of [`Game`]. The solver
//! calls the encoders here to write its members (they must be byte for byte what the checker
//! computes); that direction shares code, the checker never calls the search.
//!
//! Two kinds ([`Kind`]):
//! - **exact** ([`exact`]): the members are positions, with the piles sorted (no rule names
//!   a pile, so pile order is forgotten) and the reserve cells sorted. Any variant and option.
//! - **quotient** ([`quotient`]): the members are positions of the suit-blind abstraction
//!   (games that build down regardless of suit, one deck, no cells, no stock, no foundation
//!   return): each suit keeps its next `k` cards with their suit, every other card is known by
//!   its rank, and (with the dealt refinement) a card never moved since the deal keeps its
//!   place. A foundation move then *branches* over every card that could be the next one to
//!   enter the window; the checker computes every branch itself. Every concrete line has its
//!   abstract image, so an abstract invariant with no won position proves the deal lost.
//!
//! The closure rules, each a rule the checker applies itself:
//! - **pile order**: a move's result is looked up in canonical form;
//! - **safe autoplay** (when the certificate says so, [`Certificate::autoplay`]): after a
//!   move, the cards that the safe-autoplay rule allows go home, and the members are the
//!   positions with none left (the rule and why it never loses a win are in `docs/design.md`,
//!   "Safe autoplay", one argument per build rule; the checker has its own implementation);
//! - **forced fills**: in a game with a stock, a pile emptied while the waste or stock holds
//!   cards is filled at once (the only legal move then), so the fill is part of the move;
//! - **null moves**: a move of a whole pile into an empty pile gives the same position up to
//!   pile order, and is not followed (no shortest win plays one). In the exact kind it would
//!   give the member back anyway; in the quotient's dealt refinement it would only relabel
//!   cards as moved.
//!
//! The argument that these rules keep the proof sound is in `docs/design.md`, "Certified
//! losses"; the format is in `docs/formats.md`, "Certificates".

pub mod check;
pub mod exact;
mod format;
pub mod lrat;
pub mod quotient;

pub use check::{check, Checked, Rejection};
pub use format::{read, write, ReadError, Written};

use std::fmt;

/// The first bytes of every certificate file.
pub const MAGIC: &[u8; 12] = b"castle-cert\n";
/// The format version written (and the only one read).
pub const VERSION: u8 = 1;
/// Most tableau piles a certificate describes.
pub const MAX_PILES: usize = 12;
/// Most reserve cells.
pub const MAX_CELLS: usize = 4;
/// Most cards in one pile of a member (more than any position of the family reaches).
pub const MAX_LEN: usize = 64;
/// Most cards the stock and waste hold together.
pub const MAX_SEQ: usize = 104;

/// What the members of a certificate are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Positions (piles and cells sorted).
    Exact,
    /// Positions of the suit-blind abstraction with window `k` (1..=13), with or without the
    /// dealt refinement.
    Quotient {
        /// Cards of each suit kept with their suit, from the next one home.
        k: u8,
        /// Cards never moved since the deal keep their place (and so their suit).
        dealt: bool,
        /// Cards fixed whatever the window, bit `rank * 4 + suit` (0: none).
        kept: u64,
    },
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Exact => f.write_str("exact positions"),
            Kind::Quotient { k, dealt, kept } => {
                write!(f, "suit-blind quotient, k = {k}")?;
                if *dealt {
                    f.write_str(", dealt refinement")?;
                }
                match kept.count_ones() {
                    0 => Ok(()),
                    1 => f.write_str(", 1 card kept"),
                    n => write!(f, ", {n} cards kept"),
                }
            }
        }
    }
}

/// How a card goes on another on the tableau.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildRule {
    /// One rank lower, any suit.
    DownAnySuit,
    /// Same suit, one rank higher or lower.
    UpDownSuit,
    /// Same suit, one rank lower.
    DownSuit,
}

/// The rules a certificate is checked under: the game as `docs/rules.md` describes it, as
/// flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Game {
    /// The tableau's build rule (any card goes to an empty pile).
    pub build: BuildRule,
    /// 1, or 2 (every card twice, two foundation piles per suit).
    pub decks: u8,
    /// Tableau piles.
    pub piles: u8,
    /// Reserve cells (each takes one tableau card).
    pub cells: u8,
    /// A stock dealt to a waste, one pass; an emptied pile is filled at once from the waste,
    /// else the stock.
    pub stock: bool,
    /// A foundation's top card may go back to the tableau.
    pub foundation_return: bool,
    /// An ordered run moves as one move.
    pub unlimited: bool,
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let build = match self.build {
            BuildRule::DownAnySuit => "down any suit",
            BuildRule::UpDownSuit => "up or down in suit",
            BuildRule::DownSuit => "down in suit",
        };
        write!(f, "{} piles built {build}", self.piles)?;
        if self.decks == 2 {
            f.write_str(", two decks")?;
        }
        if self.cells > 0 {
            write!(f, ", {} cells", self.cells)?;
        }
        if self.stock {
            f.write_str(", stock and waste")?;
        }
        if self.foundation_return {
            f.write_str(", foundation return")?;
        }
        if self.unlimited {
            f.write_str(", unlimited sequence moves")?;
        }
        Ok(())
    }
}

/// The deal a certificate is about, as plain bytes (cards `rank * 4 + suit`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Start {
    /// Tableau piles, bottom to top, in the deal's order (the quotient's dealt refinement
    /// names piles by it).
    pub tableau: Vec<Vec<u8>>,
    /// Foundation heights: suit `s` at `s`, a second deck's pile of it at `4 + s`.
    pub foundations: [u8; 8],
    /// The reserve cells' cards (fewer than the cells when some are empty).
    pub cells: Vec<u8>,
    /// The stock, next card first.
    pub stock: Vec<u8>,
    /// The waste, bottom to top.
    pub waste: Vec<u8>,
}

/// What the certificate says about where it came from (printed, never used by the check).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Label {
    /// The variant's name.
    pub variant: String,
    /// The deal number, if the deal had one.
    pub seed: Option<u64>,
    /// Whose deal numbers the seed is (`castle` or `pysol`).
    pub numbering: String,
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.seed {
            Some(s) if self.numbering == "castle" || self.numbering.is_empty() => {
                write!(f, "{} deal {s}", self.variant)
            }
            Some(s) => write!(
                f,
                "{} deal {s} ({} numbering)",
                self.variant, self.numbering
            ),
            None => write!(f, "a {} position", self.variant),
        }
    }
}

/// The members of a certificate, sorted and distinct, in one byte array.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Members {
    data: Vec<u8>,
    /// Where each member ends in `data`.
    ends: Vec<u64>,
}

impl Members {
    /// No members.
    pub fn new() -> Members {
        Members::default()
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True with no members.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Member `i`'s bytes.
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.data[start..self.ends[i] as usize]
    }

    /// Appends a member (callers keep them sorted, or call [`Members::sort`]).
    pub fn push(&mut self, bytes: &[u8]) {
        self.data.extend_from_slice(bytes);
        self.ends.push(self.data.len() as u64);
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.data.capacity() + self.ends.capacity() * 8
    }

    /// Sorts the members and drops repeats.
    pub fn sort(&mut self) {
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.get(a as usize).cmp(self.get(b as usize)));
        let mut out = Members {
            data: Vec::with_capacity(self.data.len()),
            ends: Vec::with_capacity(self.ends.len()),
        };
        for &i in &order {
            let m = self.get(i as usize);
            if out.is_empty() || out.get(out.len() - 1) != m {
                out.push(m);
            }
        }
        *self = out;
    }

    /// Member `i` removed (for tests that tamper with certificates).
    pub fn remove(&mut self, i: usize) {
        let mut out = Members::new();
        for j in (0..self.len()).filter(|&j| j != i) {
            out.push(self.get(j));
        }
        *self = out;
    }

    /// True if the members are strictly increasing.
    pub fn is_sorted(&self) -> bool {
        (1..self.len()).all(|i| self.get(i - 1) < self.get(i))
    }
}

/// A certificate of a lost deal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// What the members are.
    pub kind: Kind,
    /// The rules.
    pub game: Game,
    /// The safe-autoplay closure rule is on (see the module docs).
    pub autoplay: bool,
    /// Where the deal came from (printed only).
    pub label: Label,
    /// The deal.
    pub start: Start,
    /// The invariant's positions, each in its kind's canonical encoding.
    pub members: Members,
}

/// The rules of a certificate as flags, from the library's rules.
pub fn game_of(rules: &crate::rules::Rules) -> Game {
    use crate::rules::{Build, SequenceMoves};
    Game {
        build: match rules.build {
            Build::DownAnySuit => BuildRule::DownAnySuit,
            Build::UpDownSuit => BuildRule::UpDownSuit,
            Build::DownSuit => BuildRule::DownSuit,
        },
        decks: rules.decks,
        piles: rules.piles as u8,
        cells: rules.cells as u8,
        stock: rules.stock,
        foundation_return: rules.options.foundation_return,
        unlimited: rules.options.sequence_moves == SequenceMoves::Unlimited,
    }
}

/// A deal as a certificate's start (cards as bytes).
pub fn start_of(deal: &crate::deal::Deal) -> Start {
    let bytes =
        |cs: &[crate::card::Card]| -> Vec<u8> { cs.iter().map(|&c| card_byte(c)).collect() };
    Start {
        tableau: deal.tableau.iter().map(|p| bytes(p)).collect(),
        foundations: deal.foundations,
        cells: bytes(&deal.reserve),
        stock: bytes(&deal.stock),
        waste: bytes(&deal.waste),
    }
}

/// A card as a certificate's byte: `rank * 4 + suit`.
#[inline]
pub fn card_byte(c: crate::card::Card) -> u8 {
    c.rank() * 4 + c.suit_index() as u8
}

/// A card byte as text (`7C`), `??` for a byte that is not a card.
pub fn card_text(c: u8) -> String {
    let (r, s) = (c >> 2, c & 3);
    if !(1..=13).contains(&r) {
        return "??".to_string();
    }
    let rank = b"?A23456789TJQK"[r as usize] as char;
    let suit = b"CDHS"[s as usize] as char;
    format!("{rank}{suit}")
}

/// Why a certificate's position or setup is malformed (a member's bytes that do not decode, a
/// position that breaks the kind's invariants, a deal the kind cannot take): in words, for
/// the checker's rejection.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Malformed(pub String);

impl From<String> for Malformed {
    fn from(s: String) -> Malformed {
        Malformed(s)
    }
}

impl From<Malformed> for String {
    fn from(m: Malformed) -> String {
        m.0
    }
}
