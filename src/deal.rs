//! Deals: the numbered shuffle (seed -> deal), and the checks every deal passes before play.
//!
//! # The project's deal numbering, version 1
//! Deal `N` of a variant is made like this, and golden tests pin it so it never changes
//! silently:
//! 1. The cards that start on the foundations (ranks `1..=start_rank`) are set aside; the rest
//!    are listed in the order suit C, D, H, S, each from low rank to king.
//! 2. A xoshiro256++ generator is seeded with the 32 bytes made of four SplitMix64 outputs
//!    started from `N` (each output little-endian). Integers in `0..=i` are drawn from its
//!    `next_u64` by Lemire's multiply-and-reject method.
//! 3. Fisher-Yates: for `i` from `len-1` down to 1, draw `j` in `0..=i` and swap cards `i`
//!    and `j`.
//! 4. The shuffled list is dealt in order: card `k` to pile `k mod piles` (round-robin), or,
//!    for citadel, to the next pile in turn unless it fits its foundation at that moment, in
//!    which case it goes there and that pile misses its card for that round (as PySolFC deals
//!    Citadel: the aces go up first, start rank 1, then the other 48 cards). Castile deals
//!    round-robin all but the last two cards, which go to the cells `r1`, `r2` in order.
//!    Courtyard (two decks: the list is the first deck in the order above, then the second)
//!    deals one card to each of the 12 piles, and the other 92 form the stock in list order,
//!    the next card to be dealt first.

use crate::card::{Card, Suit};
use crate::rules::{DealShape, Rules};
use rand::RngCore;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// A deal: the rules it is played by and the cards as dealt (before any move). A position
/// reached in play is a deal too (the solver starts from any of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal {
    /// The rules, options included.
    pub rules: Rules,
    /// The deal number, if the deal came from one.
    pub seed: Option<u64>,
    /// Tableau piles `t1..tN`, each bottom to top.
    pub tableau: Vec<Vec<Card>>,
    /// Foundation pile heights: index `s` is suit `s` (C, D, H, S) of the first deck, index
    /// `4 + s` the second pile of that suit in a two-deck game. 0 empty, 13 complete.
    pub foundations: [u8; 8],
    /// The cards in the reserve cells `r1..rK` (fewer than the cells when some are empty).
    pub reserve: Vec<Card>,
    /// The stock, next card to be dealt first.
    pub stock: Vec<Card>,
    /// The waste, bottom to top (its top card is playable).
    pub waste: Vec<Card>,
}

/// Why a deal is not a legal starting position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    /// The pile count does not match the variant.
    #[error("{variant} has {expected} tableau piles, but the deal has {found}")]
    PileCount {
        /// Variant name.
        variant: String,
        /// Piles the rules ask for.
        expected: usize,
        /// Piles found.
        found: usize,
    },
    /// A card appears more often than the decks hold it.
    #[error("card {card} appears {} ({first} and {second})", if *.decks == 1 { "twice".to_string() } else { format!("more than {} times", .decks) })]
    Duplicate {
        /// The card.
        card: Card,
        /// Where it was first seen.
        first: String,
        /// Where it was seen again.
        second: String,
        /// Decks in the game (each card appears this often).
        decks: u8,
    },
    /// Cards are missing.
    #[error("the deal is missing {} card{}: {}", .0.len(), if .0.len() == 1 { "" } else { "s" }, list(.0))]
    Missing(Vec<Card>),
    /// A pile is longer than the search's fixed pile capacity.
    #[error("pile {pile} holds {len} cards; at most {max} fit")]
    PileTooLong {
        /// Pile name.
        pile: String,
        /// Its length.
        len: usize,
        /// The capacity.
        max: usize,
    },
    /// More reserve cards than the variant has cells.
    #[error("{variant} has {cells} reserve cell{}, but the deal puts {found} cards there (from {card})", if *.cells == 1 { "" } else { "s" })]
    Reserve {
        /// Variant name.
        variant: String,
        /// Cells the rules give.
        cells: usize,
        /// Cards given.
        found: usize,
        /// The first card that does not fit.
        card: Card,
    },
    /// A stock or waste in a game without one.
    #[error("{variant} has no {what}, but the deal has one (starting {card})")]
    NoStock {
        /// Variant name.
        variant: String,
        /// `stock` or `waste`.
        what: &'static str,
        /// Its first card.
        card: Card,
    },
    /// A two-deck pile whose cards do not follow the build rule above its bottom card.
    #[error("in {variant} every pile is built by the rules above its bottom card, but {pile} has {card} on {under}")]
    Unordered {
        /// Variant name.
        variant: String,
        /// Pile name.
        pile: String,
        /// The card out of order.
        card: Card,
        /// The card under it.
        under: Card,
    },
    /// A foundation height outside 0..=13, or a second-deck foundation in a one-deck game.
    #[error("foundation {pile} cannot hold {height} cards in {variant}")]
    Foundation {
        /// Variant name.
        variant: String,
        /// The foundation (suit letter, and `2` for a second pile).
        pile: String,
        /// The height given.
        height: u8,
    },
}

fn list(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whose deal numbers a seed means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Numbering {
    /// This project's numbered shuffle (the module docs).
    #[default]
    Castle,
    /// PySolFC's game numbers (see [`crate::pysol`]).
    Pysol,
}

impl Numbering {
    /// The name used on the command line and in batch rows.
    pub const fn name(self) -> &'static str {
        match self {
            Numbering::Castle => "castle",
            Numbering::Pysol => "pysol",
        }
    }
}

impl std::str::FromStr for Numbering {
    type Err = crate::InputError;

    fn from_str(s: &str) -> Result<Numbering, crate::InputError> {
        match s.trim() {
            "castle" => Ok(Numbering::Castle),
            "pysol" => Ok(Numbering::Pysol),
            _ => Err(crate::InputError::new(
                crate::InputKind::Rules,
                format!(
                    "`{}` is not a deal numbering (castle or pysol)",
                    crate::text::Cut(s)
                ),
            )),
        }
    }
}

/// The most cards one tableau pile can hold in the search's packed position. A dealt pile of
/// this family has at most 7 cards and at most 12 more can be built on its top, so 32 is ample.
pub const MAX_PILE: usize = 32;

impl Deal {
    /// An empty position of `rules` (no cards anywhere): the start for hand-built positions.
    pub fn empty(rules: Rules) -> Deal {
        Deal {
            rules,
            seed: None,
            tableau: vec![Vec::new(); rules.piles],
            foundations: [0; 8],
            reserve: Vec::new(),
            stock: Vec::new(),
            waste: Vec::new(),
        }
    }

    /// Deal number `seed` of `rules` (see the module docs for the shuffle).
    pub fn from_seed(rules: Rules, seed: u64) -> Deal {
        let start = rules.options.start_rank;
        let mut cards: Vec<Card> = Vec::with_capacity(rules.cards());
        for _ in 0..rules.decks {
            cards.extend(Card::deck().into_iter().filter(|c| c.rank() > start));
        }
        shuffle_v1(&mut cards, seed);
        let mut deal = Deal::empty(rules);
        deal.seed = Some(seed);
        for s in 0..4 * rules.decks as usize {
            deal.foundations[s] = start;
        }
        match rules.shape {
            DealShape::RoundRobin => {
                let reserve = cards.split_off(cards.len() - rules.cells);
                for (k, c) in cards.into_iter().enumerate() {
                    deal.tableau[k % rules.piles].push(c);
                }
                deal.reserve = reserve;
            }
            DealShape::Citadel => {
                for (k, c) in cards.into_iter().enumerate() {
                    let s = c.suit().index();
                    if deal.foundations[s] + 1 == c.rank() {
                        deal.foundations[s] += 1;
                    } else {
                        deal.tableau[k % rules.piles].push(c);
                    }
                }
            }
            DealShape::OneEachThenStock => {
                let stock = cards.split_off(rules.piles);
                for (k, c) in cards.into_iter().enumerate() {
                    deal.tableau[k].push(c);
                }
                deal.stock = stock;
            }
        }
        deal
    }

    /// Deal number `n` of `rules` in the given numbering.
    ///
    /// # Errors
    /// For PySolFC numbers: a variant PySolFC numbering is not matched for, game number 0,
    /// or a start rank other than the game's own (PySolFC deals each game one way).
    pub fn numbered(rules: Rules, numbering: Numbering, n: u64) -> Result<Deal, crate::InputError> {
        match numbering {
            Numbering::Castle => Ok(Deal::from_seed(rules, n)),
            Numbering::Pysol => {
                let own = rules.variant.rules().options.start_rank;
                if rules.options.start_rank != own {
                    return Err(crate::InputError::new(
                        crate::InputKind::Rules,
                        format!(
                            "PySolFC deals {} with start rank {own} only; drop the start rank option",
                            rules.variant
                        ),
                    ));
                }
                let (tableau, f) = crate::pysol::pysol_layout(rules.variant, n)
                    .map_err(|e| crate::InputError::new(crate::InputKind::Seeds, e.to_string()))?;
                let mut deal = Deal::empty(rules);
                deal.seed = Some(n);
                deal.tableau = tableau;
                deal.foundations[..4].copy_from_slice(&f);
                Ok(deal)
            }
        }
    }

    /// The cards on foundation pile `pile` (0..4 per deck: suit `pile % 4`), ace to top.
    pub fn foundation_cards(&self, pile: usize) -> Vec<Card> {
        let suit = Suit::from_index(pile % 4);
        (1..=self.foundations[pile])
            .map(|r| Card::new(r, suit))
            .collect()
    }

    /// Number of cards on the foundations.
    pub fn cards_home(&self) -> usize {
        self.foundations.iter().map(|&h| h as usize).sum()
    }

    /// Checks that the deal is a legal position of its rules: the right pile count, cells,
    /// stock and foundations the variant has, and every card of the decks exactly as often
    /// as the decks hold it (foundation cards count as present).
    ///
    /// # Errors
    /// The first problem found, naming the card or pile at fault.
    pub fn validate(&self) -> Result<(), DealError> {
        let rules = &self.rules;
        let variant = rules.variant.name().to_string();
        if self.tableau.len() != rules.piles {
            return Err(DealError::PileCount {
                variant,
                expected: rules.piles,
                found: self.tableau.len(),
            });
        }
        if self.reserve.len() > rules.cells {
            return Err(DealError::Reserve {
                variant,
                cells: rules.cells,
                found: self.reserve.len(),
                card: self.reserve[rules.cells],
            });
        }
        if !rules.stock {
            for (what, cards) in [("stock", &self.stock), ("waste", &self.waste)] {
                if let Some(&card) = cards.first() {
                    return Err(DealError::NoStock {
                        variant,
                        what,
                        card,
                    });
                }
            }
        }
        for (i, &h) in self.foundations.iter().enumerate() {
            if h > 13 || (i >= rules.foundation_piles() && h > 0) {
                return Err(DealError::Foundation {
                    variant,
                    pile: format!(
                        "{}{}",
                        Suit::from_index(i % 4).letter(),
                        if i >= 4 { "2" } else { "" }
                    ),
                    height: h,
                });
            }
        }
        let decks = rules.decks;
        let mut seen: Vec<Vec<String>> = vec![Vec::new(); Card::CODES];
        let mut add = |c: Card, place: &str| -> Result<(), DealError> {
            let slot = &mut seen[c.code() as usize];
            if slot.len() >= decks as usize {
                return Err(DealError::Duplicate {
                    card: c,
                    first: slot[0].clone(),
                    second: place.to_string(),
                    decks,
                });
            }
            slot.push(place.to_string());
            Ok(())
        };
        for pile in 0..rules.foundation_piles() {
            for c in self.foundation_cards(pile) {
                add(c, "foundation")?;
            }
        }
        for (i, pile) in self.tableau.iter().enumerate() {
            let name = format!("t{}", i + 1);
            if pile.len() > MAX_PILE {
                return Err(DealError::PileTooLong {
                    pile: name,
                    len: pile.len(),
                    max: MAX_PILE,
                });
            }
            for &c in pile {
                add(c, &name)?;
            }
            // Two-deck positions are keyed as base card plus run (see `state.rs`): a pile
            // there only ever grows by the build rule, so any reachable position passes.
            if decks == 2 {
                if let Some(w) = pile.windows(2).find(|w| !rules.builds_on(w[1], w[0])) {
                    return Err(DealError::Unordered {
                        variant,
                        pile: name,
                        card: w[1],
                        under: w[0],
                    });
                }
            }
        }
        for (i, &c) in self.reserve.iter().enumerate() {
            add(c, &format!("r{}", i + 1))?;
        }
        for &c in &self.stock {
            add(c, "the stock")?;
        }
        for &c in &self.waste {
            add(c, "the waste")?;
        }
        let mut missing = Vec::new();
        for c in Card::deck() {
            for _ in seen[c.code() as usize].len()..decks as usize {
                missing.push(c);
            }
        }
        if !missing.is_empty() {
            return Err(DealError::Missing(missing));
        }
        Ok(())
    }
}

/// SplitMix64, used only to expand a deal number into a generator seed.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform integer in `0..=max` by Lemire's method (multiply, reject the biased low part).
fn below_inclusive(rng: &mut Xoshiro256PlusPlus, max: u64) -> u64 {
    let range = max + 1;
    let threshold = range.wrapping_neg() % range;
    loop {
        let m = (rng.next_u64() as u128) * (range as u128);
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
    }
}

/// The version-1 shuffle of the module docs.
pub fn shuffle_v1<T>(items: &mut [T], seed: u64) {
    let mut sm = seed;
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_exact_mut(8) {
        chunk.copy_from_slice(&splitmix64(&mut sm).to_le_bytes());
    }
    let mut rng = Xoshiro256PlusPlus::from_seed(bytes);
    for i in (1..items.len()).rev() {
        let j = below_inclusive(&mut rng, i as u64) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    #[test]
    fn dealt_shapes_match_the_rule_book() {
        for seed in 1..50 {
            let bc = Deal::from_seed(Variant::BeleagueredCastle.rules(), seed);
            bc.validate().unwrap();
            assert!(bc.tableau.iter().all(|p| p.len() == 6));
            assert_eq!(bc.foundations, [1, 1, 1, 1, 0, 0, 0, 0]);
            let sa = Deal::from_seed(Variant::StreetsAndAlleys.rules(), seed);
            sa.validate().unwrap();
            let lens: Vec<usize> = sa.tableau.iter().map(Vec::len).collect();
            assert_eq!(lens, [7, 7, 7, 7, 6, 6, 6, 6]);
            let ci = Deal::from_seed(Variant::Citadel.rules(), seed);
            ci.validate().unwrap();
            // No dealt card fits its foundation's top at the end of the deal unless it was
            // dealt before that foundation reached it: a cheap property of the citadel rule.
            assert!(ci.tableau.iter().all(|p| p.len() <= 7));
            let fo = Deal::from_seed(Variant::Fortress.rules(), seed);
            fo.validate().unwrap();
            let lens: Vec<usize> = fo.tableau.iter().map(Vec::len).collect();
            assert_eq!(lens, [6, 6, 5, 5, 5, 5, 5, 5, 5, 5]);
            assert_eq!(fo.cards_home(), 0);
            let ca = Deal::from_seed(Variant::Castile.rules(), seed);
            ca.validate().unwrap();
            assert!(ca.tableau.iter().all(|p| p.len() == 5));
            assert_eq!(ca.reserve.len(), 2);
            let co = Deal::from_seed(Variant::Courtyard.rules(), seed);
            co.validate().unwrap();
            assert!(co.tableau.iter().all(|p| p.len() == 1));
            assert_eq!((co.tableau.len(), co.stock.len()), (12, 92));
        }
    }

    #[test]
    fn validation_names_what_is_wrong() {
        let mut ca = Deal::from_seed(Variant::Castile.rules(), 1);
        let extra = ca.tableau[0].pop().unwrap();
        ca.reserve.push(extra);
        let e = ca.validate().unwrap_err().to_string();
        assert!(
            e.contains("2 reserve cells") && e.contains(&extra.to_string()),
            "{e}"
        );
        let mut bc = Deal::from_seed(Variant::BeleagueredCastle.rules(), 1);
        bc.stock.push(bc.tableau[0].pop().unwrap());
        assert!(bc.validate().unwrap_err().to_string().contains("no stock"));
        let mut fo = Deal::from_seed(Variant::Fortress.rules(), 1);
        let c = fo.tableau[0][0];
        fo.tableau[1].push(c);
        let e = fo.validate().unwrap_err().to_string();
        assert!(e.contains(&format!("card {c} appears twice")), "{e}");
        let mut co = Deal::from_seed(Variant::Courtyard.rules(), 1);
        let c = co.stock[0];
        co.stock.push(c);
        co.stock.push(c);
        let e = co.validate().unwrap_err().to_string();
        assert!(e.contains("more than 2 times"), "{e}");
    }

    #[test]
    fn start_rank_moves_low_cards_home() {
        let r = Variant::BeleagueredCastle
            .rules()
            .with_start_rank(5)
            .unwrap();
        let d = Deal::from_seed(r, 3);
        d.validate().unwrap();
        assert_eq!(d.foundations, [5, 5, 5, 5, 0, 0, 0, 0]);
        assert_eq!(d.tableau.iter().map(Vec::len).sum::<usize>(), 32);
    }

    #[test]
    fn lemire_draws_stay_in_range_and_cover_it() {
        let mut rng = Xoshiro256PlusPlus::from_seed([7; 32]);
        let mut hit = [false; 5];
        for _ in 0..1000 {
            let x = below_inclusive(&mut rng, 4) as usize;
            hit[x] = true;
        }
        assert!(hit.iter().all(|&h| h));
    }
}
