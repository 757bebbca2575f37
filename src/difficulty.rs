//! The difficulty of a winnable deal: how often a stated simple player wins it, and the tiers
//! (easy, medium, hard) that grade cuts a table's winnable deals into.
//!
//! # The simple player
//! One *playout* plays the deal from its opening to a win or a dead end:
//!
//! 1. a card that fits its foundation goes there at once (the first such tableau top, then
//!    cell card), whether or not a win needs it elsewhere;
//! 2. otherwise the player picks uniformly at random among the legal single-card moves whose
//!    position is new to this playout (a move that undoes the last one, or comes back to any
//!    position seen before, is never picked; moves that leave the same position up to the
//!    order of the piles, as a card to any of several empty piles, count once);
//! 3. with no such move, or after [`MAX_MOVES`] moves, the playout is lost.
//!
//! The **grade** of a deal is the number of [`PLAYOUTS`] playouts won, each drawn from its own
//! random stream ([`PLAYOUT_SEED`] and the playout's index, never the deal's number: the
//! grade is a function of the cards alone, the same for a deal read from a file). Ties
//! between deals the player never wins are broken by how far it got: the mean share of the
//! cards it brought home ([`Grade::score`]).
//!
//! # Tiers
//! Over a table's winnable deals the score's tertiles are the cuts: a deal scoring above the
//! upper cut is *easy*, at or below the lower cut *hard*, the rest *medium*. The cuts are
//! stored with the table (`tiers.csv`), so a deal outside the table's range is graded on
//! the same scale. docs/difficulty.md has the measurements behind this choice (the grade's
//! stability under another playout seed, and what differs between tiers).
//!
//! # The tier file
//! `<table>.tiers` holds two bits a deal, deal `FIRST + i` at bits `2 * (i % 4)` and up of byte
//! `i / 4`: 0 not winnable (or not graded), 1 easy, 2 medium, 3 hard.

use crate::deal::Deal;
use crate::moves::{Move, MoveList};
use crate::state::{Position, Pruning};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

/// Playouts per grade.
pub const PLAYOUTS: u32 = 32;
/// The seed of the playouts' random streams (playout `k` uses `PLAYOUT_SEED + k`).
pub const PLAYOUT_SEED: u64 = 1;
/// Positions a playout looks at before it gives up (its patience).
pub const PATIENCE: u32 = 300;

/// The moves the simple player chooses among: single-card moves, with the moves that reach
/// the same position up to pile order counted once (a lone card to an empty pile, a card to
/// the second of two empty piles).
const PLAYER_MOVES: Pruning = Pruning::SAME_POSITIONS;

/// What the simple player did with a deal over its playouts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grade {
    /// Playouts won.
    pub wins: u32,
    /// Playouts played.
    pub playouts: u32,
    /// The patience the won playouts had left, summed: each won playout adds the positions
    /// it did not need (a lost playout adds none).
    pub spare: u64,
    /// The mean share of the cards (those not home at the deal) brought home, 0 to 1.
    pub home: f64,
}

impl Grade {
    /// The simple player's win rate.
    pub fn win_rate(&self) -> f64 {
        f64::from(self.wins) / f64::from(self.playouts.max(1))
    }

    /// The score the tiers cut: the patience left over by the won playouts, ties (as
    /// between deals never won) broken by the mean share brought home (`spare + home`; a
    /// position less needed always counts more than any share).
    pub fn score(&self) -> f64 {
        self.spare as f64 + self.home
    }
}

/// One playout of the simple player (see the module's opening) with `rng`, looking at no
/// more than `patience` positions: whether it won, the positions it looked at, and the most
/// cards it had home.
pub fn playout<R: Rng>(deal: &Deal, patience: u32, rng: &mut R) -> (bool, u32, u32) {
    let root = Position::new(deal);
    let start = root.home();
    let key = |p: &Position| p.key::<4>().unwrap_or_default();
    let mut seen: HashSet<[u64; 4]> = HashSet::new();
    seen.insert(key(&root));
    let mut list = MoveList::default();
    let mut hist: Vec<Move> = Vec::new();
    // The line: each position with the moves from it not tried yet (in the order drawn).
    let mut line: Vec<(Position, Vec<Position>)> = Vec::new();
    let mut best = start;
    let mut looked = 0;
    let mut pos = root;
    loop {
        best = best.max(pos.home());
        if pos.is_won() {
            return (true, looked, u32::from(pos.home() - start));
        }
        if looked == patience {
            break;
        }
        looked += 1;
        // Rule 1: a card that fits its foundation goes there; nothing else is tried here.
        let mut next: Vec<Position> = Vec::new();
        if let Some(m) = pos.foundation_move() {
            let mut p = pos.clone();
            p.play(m, &mut hist);
            if seen.insert(key(&p)) {
                next.push(p);
            }
        } else {
            pos.generate(PLAYER_MOVES, 0, None, &mut list);
            for m in list.iter() {
                let mut p = pos.clone();
                p.play(m, &mut hist);
                if seen.insert(key(&p)) {
                    next.push(p);
                }
            }
            // Rule 2: in an order drawn at random.
            for i in (1..next.len()).rev() {
                next.swap(i, rng.gen_range(0..=i));
            }
        }
        hist.clear();
        line.push((pos, next));
        // Rule 3: the next untried position, backing up the line from a dead end.
        loop {
            let Some((_, untried)) = line.last_mut() else {
                return (false, patience, u32::from(best - start));
            };
            if let Some(p) = untried.pop() {
                pos = p;
                break;
            }
            line.pop();
        }
    }
    (false, patience, u32::from(best - start))
}

/// The grade of a deal: [`PLAYOUTS`] playouts of [`PATIENCE`] positions from [`PLAYOUT_SEED`].
pub fn grade(deal: &Deal) -> Grade {
    grade_with(deal, PLAYOUTS, PATIENCE, PLAYOUT_SEED)
}

/// The grade over `playouts` playouts of `patience` positions, playout `k` drawn from the
/// stream `seed + k`.
pub fn grade_with(deal: &Deal, playouts: u32, patience: u32, seed: u64) -> Grade {
    let cards = f64::from(cards_out(deal)).max(1.0);
    let mut wins = 0;
    let mut spare = 0;
    let mut home = 0.0;
    for k in 0..playouts {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed.wrapping_add(u64::from(k)));
        let (won, n, h) = playout(deal, patience, &mut rng);
        wins += u32::from(won);
        spare += u64::from(patience - n);
        home += f64::from(h) / cards;
    }
    Grade {
        wins,
        playouts,
        spare,
        home: home / f64::from(playouts.max(1)),
    }
}

/// A difficulty tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tier {
    /// The simple player wins it most often (the top third of a table's winnable deals).
    Easy = 1,
    /// The middle third.
    Medium = 2,
    /// The bottom third.
    Hard = 3,
}

impl Tier {
    /// Every tier, easiest first.
    pub const ALL: [Tier; 3] = [Tier::Easy, Tier::Medium, Tier::Hard];

    /// The tier's name.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Easy => "easy",
            Tier::Medium => "medium",
            Tier::Hard => "hard",
        }
    }

    /// The tier of a 2-bit code (0 and anything else: none).
    pub fn from_code(code: u8) -> Option<Tier> {
        match code {
            1 => Some(Tier::Easy),
            2 => Some(Tier::Medium),
            3 => Some(Tier::Hard),
            _ => None,
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A tier name that is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a difficulty (easy, medium or hard)")]
pub struct BadTier(pub String);

impl FromStr for Tier {
    type Err = BadTier;
    fn from_str(s: &str) -> Result<Tier, BadTier> {
        Tier::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| BadTier(s.to_string()))
    }
}

/// The cuts of a table's scores (see "Tiers").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuts {
    /// A score at or below this is hard.
    pub hard: f64,
    /// A score above this is easy.
    pub easy: f64,
}

impl Cuts {
    /// The tertiles of `scores` (empty: both 0).
    pub fn of(scores: &[f64]) -> Cuts {
        let mut s = scores.to_vec();
        s.sort_by(f64::total_cmp);
        let at = |q: usize| s.get((s.len() * q / 3).saturating_sub(1)).copied();
        Cuts {
            hard: at(1).unwrap_or(0.0),
            easy: at(2).unwrap_or(0.0),
        }
    }

    /// The tier of a score.
    pub fn tier(&self, score: f64) -> Tier {
        if score <= self.hard {
            Tier::Hard
        } else if score > self.easy {
            Tier::Easy
        } else {
            Tier::Medium
        }
    }
}

/// The tier file's bytes for `tiers[i]`, deal `FIRST + i` (see "The tier file").
pub fn pack(tiers: &[Option<Tier>]) -> Vec<u8> {
    let mut out = vec![0u8; tiers.len().div_ceil(4)];
    for (i, t) in tiers.iter().enumerate() {
        if let Some(t) = t {
            out[i / 4] |= (*t as u8) << (2 * (i % 4));
        }
    }
    out
}

/// The tier of deal `seed` in a tier file of `first..=last` (`None`: outside it, or not
/// winnable).
pub fn tier_at(bytes: &[u8], first: u64, last: u64, seed: u64) -> Option<Tier> {
    if seed < first || seed > last {
        return None;
    }
    let i = usize::try_from(seed - first).ok()?;
    Tier::from_code((bytes.get(i / 4)? >> (2 * (i % 4))) & 3)
}

/// The tiers of a range of a table's deals: every winnable deal (`winnable(seed)`) graded,
/// the range's cuts, and each deal's tier (`None`: not winnable), in parallel.
pub fn grade_range(
    rules: crate::Rules,
    numbering: crate::deal::Numbering,
    first: u64,
    last: u64,
    winnable: impl Fn(u64) -> bool + Sync,
) -> Result<(Vec<Option<Tier>>, Cuts), crate::InputError> {
    use rayon::prelude::*;
    let scores: Vec<Option<f64>> = (first..=last)
        .into_par_iter()
        .map(|s| {
            if !winnable(s) {
                return Ok(None);
            }
            let deal = Deal::numbered(rules, numbering, s)?;
            Ok(Some(grade(&deal).score()))
        })
        .collect::<Result<_, crate::InputError>>()?;
    let graded: Vec<f64> = scores.iter().flatten().copied().collect();
    let cuts = Cuts::of(&graded);
    Ok((
        scores.iter().map(|s| s.map(|x| cuts.tier(x))).collect(),
        cuts,
    ))
}

/// The number of cards of a deal not on the foundations at the start (the share
/// [`Grade::home`] is of).
pub fn cards_out(deal: &Deal) -> u32 {
    (deal.rules.cards() as u32).saturating_sub(u32::from(Position::new(deal).home()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    #[test]
    fn tiers_pack_and_read_back() {
        let t = [
            None,
            Some(Tier::Easy),
            Some(Tier::Hard),
            Some(Tier::Medium),
            None,
        ];
        let b = pack(&t);
        assert_eq!(b.len(), 2);
        for (i, want) in t.iter().enumerate() {
            assert_eq!(tier_at(&b, 10, 14, 10 + i as u64), *want);
        }
        assert_eq!(tier_at(&b, 10, 14, 9), None);
        assert_eq!(tier_at(&b, 10, 14, 15), None);
    }

    #[test]
    fn cuts_are_tertiles() {
        let s: Vec<f64> = (1..=9).map(f64::from).collect();
        let c = Cuts::of(&s);
        assert_eq!((c.hard, c.easy), (3.0, 6.0));
        assert_eq!(c.tier(3.0), Tier::Hard);
        assert_eq!(c.tier(4.0), Tier::Medium);
        assert_eq!(c.tier(7.0), Tier::Easy);
    }

    #[test]
    fn a_deal_with_only_kings_left_is_always_won() {
        let rules = Variant::BeleagueredCastle
            .rules()
            .with_start_rank(12)
            .unwrap();
        let g = grade(&Deal::from_seed(rules, 1));
        assert_eq!((g.wins, g.playouts), (PLAYOUTS, PLAYOUTS));
        assert!((g.home - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_grade_depends_on_the_cards_alone() {
        let d = Deal::from_seed(Variant::Citadel.rules(), 5);
        assert_eq!(grade(&d), grade(&d.clone()));
    }
}
