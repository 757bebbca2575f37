//! Cards, suits and ranks: the packed `Card(u8)` used everywhere, and its text form.
//!
//! A card packs as `rank * 4 + suit` with ranks 1 (ace) ..= 13 (king) and suits in the order
//! clubs, diamonds, hearts, spades. The packed value is therefore 4..=55 and never zero, which
//! the state key relies on (a zero field marks "nothing here").

use std::fmt;
use std::str::FromStr;

/// A suit. The order (C, D, H, S) is the order of the foundations in every output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Suit {
    /// Clubs.
    Clubs = 0,
    /// Diamonds.
    Diamonds = 1,
    /// Hearts.
    Hearts = 2,
    /// Spades.
    Spades = 3,
}

impl Suit {
    /// All suits in foundation order.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];
    /// Number of suits.
    pub const NUM: usize = 4;

    /// Index 0..4 in foundation order.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The suit with index `i` (0..4).
    ///
    /// # Panics
    /// If `i >= 4`.
    pub const fn from_index(i: usize) -> Suit {
        Suit::ALL[i]
    }

    /// The one-letter name: `C`, `D`, `H` or `S`.
    pub const fn letter(self) -> char {
        ['C', 'D', 'H', 'S'][self as usize]
    }

    /// The suit symbol used on a terminal.
    pub const fn symbol(self) -> char {
        ['♣', '♦', '♥', '♠'][self as usize]
    }

    /// True for diamonds and hearts.
    pub const fn is_red(self) -> bool {
        matches!(self, Suit::Diamonds | Suit::Hearts)
    }

    /// Parses one suit letter (either case).
    pub fn from_letter(c: char) -> Option<Suit> {
        match c.to_ascii_uppercase() {
            'C' => Some(Suit::Clubs),
            'D' => Some(Suit::Diamonds),
            'H' => Some(Suit::Hearts),
            'S' => Some(Suit::Spades),
            _ => None,
        }
    }
}

/// Rank letters indexed by rank (index 0 unused).
const RANK_CHARS: [char; 14] = [
    '?', 'A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K',
];

/// Highest rank (king).
pub const KING: u8 = 13;

/// A playing card, packed as `rank * 4 + suit`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Card(u8);

const _: () = assert!(std::mem::size_of::<Card>() == 1);

impl Card {
    /// Number of distinct cards in one deck.
    pub const NUM: usize = 52;
    /// One more than the largest packed value; tables indexed by `Card::code` use this size.
    pub const CODES: usize = 56;

    /// Builds a card from a rank (1..=13) and a suit.
    #[inline]
    pub const fn new(rank: u8, suit: Suit) -> Card {
        debug_assert!(rank >= 1 && rank <= KING);
        Card(rank * 4 + suit as u8)
    }

    /// Rebuilds a card from [`Card::code`], if the code is a valid card.
    pub const fn from_code(code: u8) -> Option<Card> {
        if code >= 4 && code < 56 {
            Some(Card(code))
        } else {
            None
        }
    }

    /// Rebuilds a card from a code known to come from [`Card::code`] (the move lists'
    /// packed storage).
    #[inline]
    pub(crate) const fn from_code_unchecked(code: u8) -> Card {
        debug_assert!(code >= 4 && code < 56);
        Card(code)
    }

    /// The packed value, 4..=55.
    #[inline]
    pub const fn code(self) -> u8 {
        self.0
    }

    /// Rank 1 (ace) ..= 13 (king).
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 >> 2
    }

    /// The suit.
    #[inline]
    pub const fn suit(self) -> Suit {
        Suit::ALL[(self.0 & 3) as usize]
    }

    /// `self.suit().index()` without the detour through [`Suit`] (which the hot loop paid
    /// as a table load).
    #[inline]
    pub const fn suit_index(self) -> usize {
        (self.0 & 3) as usize
    }

    /// Index 0..52 in the order C, D, H, S within each rank (ace clubs first).
    #[inline]
    pub const fn index(self) -> usize {
        (self.0 - 4) as usize
    }

    /// The 52 cards of one deck in the order suit C, D, H, S, each from ace to king.
    pub fn deck() -> Vec<Card> {
        let mut v = Vec::with_capacity(52);
        for s in Suit::ALL {
            for r in 1..=KING {
                v.push(Card::new(r, s));
            }
        }
        v
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            RANK_CHARS[self.rank() as usize],
            self.suit().letter()
        )
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a card could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{}` is not a card (expected a rank A 2..9 T J Q K or 10, then a suit C D H S, like `TH` or `10h`)", crate::text::Cut(text))]
pub struct CardParseError {
    /// The text that was not a card.
    pub text: String,
}

/// Parses a rank: `A`, `2`..`9`, `T`, `10`, `J`, `Q`, `K` (any case). `0` is not a rank.
pub fn parse_rank(s: &str) -> Option<u8> {
    let up = s.to_ascii_uppercase();
    match up.as_str() {
        "A" | "1" => Some(1),
        "T" | "10" => Some(10),
        "J" => Some(11),
        "Q" => Some(12),
        "K" => Some(13),
        _ => {
            let mut ch = up.chars();
            match (ch.next(), ch.next()) {
                (Some(c @ '2'..='9'), None) => Some(c as u8 - b'0'),
                _ => None,
            }
        }
    }
}

impl FromStr for Card {
    type Err = CardParseError;

    fn from_str(s: &str) -> Result<Card, CardParseError> {
        let err = || CardParseError {
            text: s.to_string(),
        };
        let t = s.trim();
        let mut chars: Vec<char> = t.chars().collect();
        let suit_char = chars.pop().ok_or_else(err)?;
        let suit = Suit::from_letter(suit_char).ok_or_else(err)?;
        let rank_text: String = chars.into_iter().collect();
        // "1" alone is accepted as an ace only by parse_rank's callers that want it; a card
        // spelled `1X` fails on the suit, and `1C` is refused here to keep `10C` unambiguous.
        if rank_text == "1" {
            return Err(err());
        }
        let rank = parse_rank(&rank_text).ok_or_else(err)?;
        Ok(Card::new(rank, suit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_round_trips_through_text_and_code() {
        let deck = Card::deck();
        assert_eq!(deck.len(), 52);
        for (i, c) in deck.iter().enumerate() {
            let text = c.to_string();
            assert_eq!(text.parse::<Card>().unwrap(), *c);
            assert_eq!(Card::from_code(c.code()), Some(*c));
            assert_eq!(c.suit().index(), i / 13);
            assert_eq!(c.suit_index(), i / 13);
            assert_eq!(c.rank() as usize, i % 13 + 1);
        }
    }

    #[test]
    fn ten_is_accepted_both_ways_and_junk_is_refused() {
        assert_eq!(
            "10h".parse::<Card>().unwrap(),
            "TH".parse::<Card>().unwrap()
        );
        for bad in ["1X", "", "ZZ", "0C", "1C", "11D", "KX", "K"] {
            assert!(bad.parse::<Card>().is_err(), "{bad} parsed");
        }
    }
}
