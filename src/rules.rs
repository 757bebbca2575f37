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
}

impl Variant {
    /// Every variant, in the order `castle variants` lists them.
    pub const ALL: [Variant; 3] = [
        Variant::BeleagueredCastle,
        Variant::StreetsAndAlleys,
        Variant::Citadel,
    ];

    /// The name used on the command line and in every output.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::BeleagueredCastle => "beleaguered-castle",
            Variant::StreetsAndAlleys => "streets-and-alleys",
            Variant::Citadel => "citadel",
        }
    }

    /// Other names accepted on input.
    pub const fn aliases(self) -> &'static [&'static str] {
        match self {
            Variant::BeleagueredCastle => &["beleaguered-fortress", "bc"],
            Variant::StreetsAndAlleys => &["street-and-alley", "sa"],
            Variant::Citadel => &[],
        }
    }

    /// The rules with this variant's default options.
    pub fn rules(self) -> Rules {
        let (start_rank, shape) = match self {
            Variant::BeleagueredCastle => (1, DealShape::RoundRobin),
            Variant::StreetsAndAlleys => (0, DealShape::RoundRobin),
            Variant::Citadel => (1, DealShape::Citadel),
        };
        Rules {
            variant: self,
            piles: 8,
            build: Build::DownAnySuit,
            shape,
            options: Options {
                start_rank,
                foundation_return: false,
                sequence_moves: SequenceMoves::Single,
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
#[error("unknown variant `{0}` (known: beleaguered-castle, streets-and-alleys, citadel; `castle variants` lists them)")]
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
}

/// How many cards one move may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SequenceMoves {
    /// One card per move (runs move through empty piles as several single moves).
    #[default]
    Single,
}

impl SequenceMoves {
    /// The name used in the JSON `options` object.
    pub const fn name(self) -> &'static str {
        match self {
            SequenceMoves::Single => "single",
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
    /// The rule options.
    pub options: Options,
}

/// A rule option that does not apply.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// `--start-rank` out of range.
    #[error("--start-rank must be between 0 and 12, not {0}")]
    StartRank(u8),
}

impl Rules {
    /// Sets the start rank (0..=12).
    ///
    /// # Errors
    /// If `rank` is above 12 (a foundation holding every king leaves nothing to play).
    pub fn with_start_rank(mut self, rank: u8) -> Result<Rules, OptionError> {
        if rank > 12 {
            return Err(OptionError::StartRank(rank));
        }
        self.options.start_rank = rank;
        Ok(self)
    }

    /// True if `card` may be placed on `below` on the tableau.
    #[inline]
    pub fn builds_on(&self, card: crate::Card, below: crate::Card) -> bool {
        match self.build {
            Build::DownAnySuit => below.rank() == card.rank() + 1,
        }
    }

    /// A multi-line description for `castle variants`.
    pub fn describe(&self) -> String {
        let build = match self.build {
            Build::DownAnySuit => "down by one rank regardless of suit; any card to an empty pile",
        };
        format!(
            "{}\n  deal:  {}\n  build: {}\n  moves: one card at a time; foundations up in suit from the ace\n  options: --start-rank (default {})",
            self.variant,
            self.variant.summary(),
            build,
            self.options.start_rank
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
    }
}
