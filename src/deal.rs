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
//!    Citadel: the aces go up first, start rank 1, then the other 48 cards).

use crate::card::{Card, Suit};
use crate::rules::{DealShape, Rules};
use rand::RngCore;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// A deal: the rules it is played by and the cards as dealt (before any move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal {
    /// The rules, options included.
    pub rules: Rules,
    /// The deal number, if the deal came from one.
    pub seed: Option<u64>,
    /// Tableau piles `t1..tN`, each bottom to top.
    pub tableau: Vec<Vec<Card>>,
    /// Foundation heights by suit (C, D, H, S): 0 empty, 13 complete.
    pub foundations: [u8; 4],
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
    /// A card appears twice.
    #[error("card {card} appears twice ({first} and {second})")]
    Duplicate {
        /// The card.
        card: Card,
        /// Where it was first seen.
        first: String,
        /// Where it was seen again.
        second: String,
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
}

fn list(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The most cards one tableau pile can hold in the search's packed position. A dealt pile of
/// this family has at most 7 cards and at most 12 more can be built on its top, so 32 is ample.
pub const MAX_PILE: usize = 32;

impl Deal {
    /// Deal number `seed` of `rules` (see the module docs for the shuffle).
    pub fn from_seed(rules: Rules, seed: u64) -> Deal {
        let start = rules.options.start_rank;
        let mut cards: Vec<Card> = Card::deck()
            .into_iter()
            .filter(|c| c.rank() > start)
            .collect();
        shuffle_v1(&mut cards, seed);
        let mut tableau = vec![Vec::new(); rules.piles];
        let mut foundations = [start; 4];
        match rules.shape {
            DealShape::RoundRobin => {
                for (k, c) in cards.into_iter().enumerate() {
                    tableau[k % rules.piles].push(c);
                }
            }
            DealShape::Citadel => {
                for (k, c) in cards.into_iter().enumerate() {
                    let s = c.suit().index();
                    if foundations[s] + 1 == c.rank() {
                        foundations[s] += 1;
                    } else {
                        tableau[k % rules.piles].push(c);
                    }
                }
            }
        }
        Deal {
            rules,
            seed: Some(seed),
            tableau,
            foundations,
        }
    }

    /// The cards on foundation `suit`, bottom (ace) to top.
    pub fn foundation_cards(&self, suit: Suit) -> Vec<Card> {
        (1..=self.foundations[suit.index()])
            .map(|r| Card::new(r, suit))
            .collect()
    }

    /// Number of cards on the foundations.
    pub fn cards_home(&self) -> usize {
        self.foundations.iter().map(|&h| h as usize).sum()
    }

    /// Checks that the deal is a legal position of its rules: the right pile count, and every
    /// card of the deck exactly once (foundation cards count as present).
    ///
    /// # Errors
    /// The first problem found, naming the card or pile at fault.
    pub fn validate(&self) -> Result<(), DealError> {
        if self.tableau.len() != self.rules.piles {
            return Err(DealError::PileCount {
                variant: self.rules.variant.name().to_string(),
                expected: self.rules.piles,
                found: self.tableau.len(),
            });
        }
        let mut seen: [Option<String>; Card::CODES] = std::array::from_fn(|_| None);
        for s in Suit::ALL {
            for c in self.foundation_cards(s) {
                seen[c.code() as usize] = Some("foundation".to_string());
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
                let slot = &mut seen[c.code() as usize];
                if let Some(first) = slot {
                    return Err(DealError::Duplicate {
                        card: c,
                        first: first.clone(),
                        second: name,
                    });
                }
                *slot = Some(name.clone());
            }
        }
        let missing: Vec<Card> = Card::deck()
            .into_iter()
            .filter(|c| seen[c.code() as usize].is_none())
            .collect();
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
            assert_eq!(bc.foundations, [1; 4]);
            let sa = Deal::from_seed(Variant::StreetsAndAlleys.rules(), seed);
            sa.validate().unwrap();
            let lens: Vec<usize> = sa.tableau.iter().map(Vec::len).collect();
            assert_eq!(lens, [7, 7, 7, 7, 6, 6, 6, 6]);
            let ci = Deal::from_seed(Variant::Citadel.rules(), seed);
            ci.validate().unwrap();
            // No dealt card fits its foundation's top at the end of the deal unless it was
            // dealt before that foundation reached it: a cheap property of the citadel rule.
            assert!(ci.tableau.iter().all(|p| p.len() <= 7));
        }
    }

    #[test]
    fn start_rank_moves_low_cards_home() {
        let r = Variant::BeleagueredCastle
            .rules()
            .with_start_rank(5)
            .unwrap();
        let d = Deal::from_seed(r, 3);
        d.validate().unwrap();
        assert_eq!(d.foundations, [5; 4]);
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
