//! The rules of each variant as plain data.
//!
//! Every variant of the family is a [`Rules`] value: how the deal is laid out, how cards build
//! on the tableau, and the rule options of the seed texts. The search never branches on the
//! variant's name; it reads these fields (see `state.rs` for where they enter the hot loop).

use std::fmt;
use std::str::FromStr;

/// A named game of the family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Aces start on the foundations; 48 cards in 8 piles of 6; build down regardless of suit.
    BeleagueredCastle,
    /// Beleaguered Castle with the aces shuffled in: 52 cards in 8 piles (7,7,7,7,6,6,6,6).
    StreetsAndAlleys,
    /// Beleaguered Castle dealt so that a card that fits a foundation when dealt goes there.
    Citadel,
    /// 52 cards in 10 piles (6,6,5,...); build up or down in suit.
    Fortress,
    /// 50 cards in 10 piles of 5 and 2 reserve cells; build up or down in suit.
    Castile,
    /// Two decks: 12 piles of one card, a stock dealt one card at a time to a waste, empty
    /// piles filled at once from the waste (or the stock); build down in suit.
    Courtyard,
}

impl Variant {
    /// Every variant, in the order `castle variants` lists them.
    pub const ALL: [Variant; 6] = [
        Variant::BeleagueredCastle,
        Variant::StreetsAndAlleys,
        Variant::Citadel,
        Variant::Fortress,
        Variant::Castile,
        Variant::Courtyard,
    ];

    /// The name used on the command line and in every output.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::BeleagueredCastle => "beleaguered-castle",
            Variant::StreetsAndAlleys => "streets-and-alleys",
            Variant::Citadel => "citadel",
            Variant::Fortress => "fortress",
            Variant::Castile => "castile",
            Variant::Courtyard => "courtyard",
        }
    }

    /// True for the games that `--start-rank` applies to (the Beleaguered Castle family:
    /// eight piles, aces or more on the foundations, built down regardless of suit).
    pub const fn has_start_rank(self) -> bool {
        matches!(
            self,
            Variant::BeleagueredCastle | Variant::StreetsAndAlleys | Variant::Citadel
        )
    }

    /// Other names accepted on input.
    pub const fn aliases(self) -> &'static [&'static str] {
        match self {
            Variant::BeleagueredCastle => &["beleaguered-fortress", "bc"],
            Variant::StreetsAndAlleys => &["street-and-alley", "sa"],
            Variant::Citadel => &[],
            Variant::Fortress => &[],
            Variant::Castile => &["bastion"],
            Variant::Courtyard => &[],
        }
    }

    /// The rules with this variant's default options.
    pub fn rules(self) -> Rules {
        let base = Rules {
            variant: self,
            piles: 8,
            build: Build::DownAnySuit,
            shape: DealShape::RoundRobin,
            decks: 1,
            cells: 0,
            stock: false,
            options: Options {
                start_rank: 1,
                foundation_return: false,
                sequence_moves: SequenceMoves::Single,
            },
        };
        let with_start = |start_rank| Options {
            start_rank,
            ..base.options
        };
        match self {
            Variant::BeleagueredCastle => base,
            Variant::StreetsAndAlleys => Rules {
                options: with_start(0),
                ..base
            },
            Variant::Citadel => Rules {
                shape: DealShape::Citadel,
                ..base
            },
            Variant::Fortress => Rules {
                piles: 10,
                build: Build::UpDownSuit,
                options: with_start(0),
                ..base
            },
            Variant::Castile => Rules {
                piles: 10,
                build: Build::UpDownSuit,
                cells: 2,
                options: with_start(0),
                ..base
            },
            Variant::Courtyard => Rules {
                piles: 12,
                build: Build::DownSuit,
                shape: DealShape::OneEachThenStock,
                decks: 2,
                stock: true,
                options: with_start(0),
                ..base
            },
        }
    }

    /// One line on how the game is dealt and played, for `castle variants`.
    pub const fn summary(self) -> &'static str {
        match self {
            Variant::BeleagueredCastle => {
                "aces start on the 4 foundations; the other 48 cards dealt round-robin into 8 piles of 6"
            }
            Variant::StreetsAndAlleys => {
                "all 52 cards dealt round-robin into 8 piles (7,7,7,7,6,6,6,6); foundations start empty"
            }
            Variant::Citadel => {
                "aces start on the foundations; the other 48 cards dealt in turn to piles 1..8, and a card that fits a foundation when dealt goes there (that pile misses its card for the round)"
            }
            Variant::Fortress => {
                "all 52 cards dealt round-robin into 10 piles (6,6,5,5,5,5,5,5,5,5); foundations start empty"
            }
            Variant::Castile => {
                "50 cards dealt round-robin into 10 piles of 5, the last 2 one each into 2 reserve cells; foundations start empty"
            }
            Variant::Courtyard => {
                "two decks: 12 piles of one card, 92 cards in the stock (dealt one at a time to the waste, one pass); 8 foundations, any ace to an empty one; an emptied pile is filled at once from the waste, or from the stock when the waste is empty"
            }
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown variant name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant `{}` (known: beleaguered-castle, streets-and-alleys, citadel, fortress, castile, courtyard; `castle variants` lists them)", crate::text::Cut(.0))]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        let norm = s.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == norm || v.aliases().contains(&norm.as_str()))
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

/// How a tableau card may be placed on another tableau card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Build {
    /// On a card one rank higher, of any suit (the Beleaguered Castle family).
    DownAnySuit,
    /// On a card of the same suit one rank higher or one rank lower, no wrap (fortress,
    /// castile).
    UpDownSuit,
    /// On a card of the same suit one rank higher (courtyard).
    DownSuit,
}

impl Build {
    /// The safe-home rule, the one rule the solver and the game share: whether a card of
    /// `rank` that fits its foundation may be sent there at once without losing any win,
    /// with `decks` decks and no foundation return (with return, nothing is safe: the caller
    /// asks only without it). The solver plays these moves as its reduction, the game as its
    /// automatic moves. The arguments, one per arm, are in `src/state/safe.rs`
    /// (`Position::safe_move`). The inputs are asked for only where the arm needs them:
    /// `least`, the lowest foundation height of the four suits; `suit_low`, the lower height
    /// of the card's suit's piles (an unstarted pile counts 0); `fill_blocks`, whether the
    /// card is the last of its tableau pile while the waste or stock can still fill it.
    #[inline(always)]
    pub fn safe_home(
        self,
        decks: u8,
        rank: u8,
        least: impl FnOnce() -> u8,
        suit_low: impl FnOnce() -> u8,
        fill_blocks: impl FnOnce() -> bool,
    ) -> bool {
        match (self, decks) {
            (Build::DownAnySuit, 1) => rank <= least() + 2,
            (Build::UpDownSuit, 1) => true,
            (Build::DownSuit, _) => rank <= suit_low() + 1 && !fill_blocks(),
            _ => false,
        }
    }
}

/// How the deal is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DealShape {
    /// Cards of rank <= start rank go to the foundations; the rest are dealt card k to pile
    /// k mod piles.
    RoundRobin,
    /// Dealt in turn to the piles; a card that fits its foundation when dealt goes there and
    /// that pile misses its card for the round.
    Citadel,
    /// One card to each pile, the rest to the stock, next card first (courtyard).
    OneEachThenStock,
}

impl Build {
    /// True if `card` may be placed on `below` on the tableau.
    #[inline]
    pub fn builds_on(self, card: crate::Card, below: crate::Card) -> bool {
        match self {
            Build::DownAnySuit => below.rank() == card.rank() + 1,
            Build::UpDownSuit => {
                below.suit() == card.suit() && below.rank().abs_diff(card.rank()) == 1
            }
            Build::DownSuit => below.suit() == card.suit() && below.rank() == card.rank() + 1,
        }
    }
}

/// How many cards one move may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SequenceMoves {
    /// One card per move (runs move through empty piles as several single moves).
    #[default]
    Single,
    /// An ordered run (by the build rule) moves as one move, whatever the empty piles.
    Unlimited,
}

impl SequenceMoves {
    /// The name used in the JSON `options` object.
    pub const fn name(self) -> &'static str {
        match self {
            SequenceMoves::Single => "single",
            SequenceMoves::Unlimited => "unlimited",
        }
    }
}

impl FromStr for SequenceMoves {
    type Err = crate::InputError;

    fn from_str(s: &str) -> Result<SequenceMoves, crate::InputError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "single" => Ok(SequenceMoves::Single),
            "unlimited" => Ok(SequenceMoves::Unlimited),
            _ => Err(crate::InputError::new(
                crate::InputKind::Rules,
                format!(
                    "`{}` is not a sequence-moves rule (single or unlimited)",
                    crate::text::Cut(s)
                ),
            )),
        }
    }
}

/// The rule options of the seed texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    /// The foundations start holding A..=start_rank of every suit (0: empty; 1: the aces).
    pub start_rank: u8,
    /// The top card of a foundation may move back to the tableau.
    pub foundation_return: bool,
    /// Whether runs move as one move.
    pub sequence_moves: SequenceMoves,
}

/// The complete rules of a game: data the dealer, the search and the checker all read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The variant these rules were made from (its name is printed with every result).
    pub variant: Variant,
    /// Number of tableau piles.
    pub piles: usize,
    /// The building rule on the tableau.
    pub build: Build,
    /// How the deal is laid out.
    pub shape: DealShape,
    /// Decks of cards (1, or 2 for courtyard: every card twice, 8 foundations).
    pub decks: u8,
    /// Reserve cells, each holding one card (castile: 2).
    pub cells: usize,
    /// Whether the game has a stock and a waste (and fills emptied piles from them).
    pub stock: bool,
    /// The rule options.
    pub options: Options,
}

/// A rule option that does not apply.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// `--start-rank` out of range.
    #[error("--start-rank must be between 0 and 12, not {0}")]
    StartRank(u8),
    /// `--start-rank` given for a game outside the Beleaguered Castle family.
    #[error("--start-rank applies to beleaguered-castle, streets-and-alleys and citadel, not {0}")]
    StartRankVariant(Variant),
}

impl Rules {
    /// Sets the start rank (0..=12).
    ///
    /// # Errors
    /// If `rank` is above 12 (a foundation holding every king leaves nothing to play).
    pub fn with_start_rank(mut self, rank: u8) -> Result<Rules, OptionError> {
        if !self.variant.has_start_rank() {
            return Err(OptionError::StartRankVariant(self.variant));
        }
        if rank > 12 {
            return Err(OptionError::StartRank(rank));
        }
        self.options.start_rank = rank;
        Ok(self)
    }

    /// Turns foundation return on or off.
    pub fn with_foundation_return(mut self, on: bool) -> Rules {
        self.options.foundation_return = on;
        self
    }

    /// Sets how many cards one move may carry.
    pub fn with_sequence_moves(mut self, s: SequenceMoves) -> Rules {
        self.options.sequence_moves = s;
        self
    }

    /// Cards in the game (52 per deck).
    pub const fn cards(&self) -> usize {
        52 * self.decks as usize
    }

    /// Foundation piles (4 per deck).
    pub const fn foundation_piles(&self) -> usize {
        4 * self.decks as usize
    }

    /// True if `card` may be placed on `below` on the tableau.
    #[inline]
    pub fn builds_on(&self, card: crate::Card, below: crate::Card) -> bool {
        self.build.builds_on(card, below)
    }

    /// A multi-line description for `castle variants`.
    pub fn describe(&self) -> String {
        let build = match self.build {
            Build::DownAnySuit => "down by one rank regardless of suit",
            Build::UpDownSuit => "up or down by one rank in suit (no wrap)",
            Build::DownSuit => "down by one rank in suit",
        };
        let empty = if self.stock {
            "an emptied pile is filled at once from the waste, else the stock; once both are empty, any card"
        } else if self.cells > 0 {
            "any tableau or cell card to an empty pile; any tableau card to an empty cell"
        } else {
            "any card to an empty pile"
        };
        let start = if self.variant.has_start_rank() {
            format!("--start-rank K (default {}), ", self.options.start_rank)
        } else {
            String::new()
        };
        format!(
            "{}\n  deal:  {}\n  build: {}; {}\n  moves: one card at a time; foundations up in suit from the ace\n  options: {}--foundation-return, --sequence-moves single|unlimited",
            self.variant,
            self.variant.summary(),
            build,
            empty,
            start
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_parse() {
        for v in Variant::ALL {
            assert_eq!(v.name().parse::<Variant>().unwrap(), v);
            for a in v.aliases() {
                assert_eq!(a.parse::<Variant>().unwrap(), v);
            }
        }
        assert_eq!(
            "Beleaguered Fortress".parse::<Variant>().unwrap(),
            Variant::BeleagueredCastle
        );
        assert!("klondike".parse::<Variant>().is_err());
    }

    #[test]
    fn start_rank_is_bounded() {
        let r = Variant::BeleagueredCastle.rules();
        assert!(r.with_start_rank(12).is_ok());
        assert!(r.with_start_rank(13).is_err());
        for v in [Variant::Fortress, Variant::Castile, Variant::Courtyard] {
            assert_eq!(
                v.rules().with_start_rank(0),
                Err(OptionError::StartRankVariant(v))
            );
        }
    }
}
