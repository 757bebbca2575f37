//! The exact, pile-order-free state key: how a position is written as a bit string
//! ([`Position::key`]), the bound on its length ([`Position::key_bits_bound`]), the per-pile
//! key fields that `push` and `pop` keep current (`refresh`, `run_code`), the `BitWriter`
//! that packs the fields, and [`KEY_HASH_MUL`] and [`KEY_HASH_SEED`], the multiplier and the
//! starting value of the key hashes.
//!
//! # The state key
//! A position of this family is fully described *relative to its deal*:
//! - a tableau card only ever leaves from the top, and only arrives on top, so every pile is
//!   either a *column pile* — a bottom run that is still exactly the first `prefix` cards dealt
//!   to some column `j` — or a *refilled pile* that was emptied and restarted with a base card;
//! - every card above that bottom part was placed there by the build rule, so it is fixed by
//!   the card below it and a few bits: its suit (2 bits) when building down regardless of
//!   suit, up-or-down (1 bit) when building up or down in suit, nothing when building down in
//!   suit.
//!
//! The key is: for each dealt column `j` in order, the prefix length of the pile that holds
//! column `j`'s bottom card (0 if none), then that pile's run length (4 bits) and run bits;
//! then the refilled piles sorted, each as base (6 bits), run length and run bits; then the
//! reserve cells as a sorted list of card codes (which cell holds a card does not matter);
//! then, with a stock, how many cards have left the stock (7 bits) and which of those are
//! still in the waste (one bit each: the waste is those cards in stock order).
//! Foundations are not stored: they hold exactly the cards missing elsewhere (with two decks,
//! the two piles of a suit hold each rank 0, 1 or 2 times, and those counts fix both heights).
//! Decoding this bit string gives back every pile's cards, so two different positions never
//! share a key (no collision can make the search call a winnable deal lost), while positions
//! that differ only by which physical pile is where do share one: the column a pile belongs to
//! is read from its bottom card, never from its physical index.
//!
//! With two decks a bottom card does not name its column, so there are no column piles: every
//! pile is keyed as a base card and a run, which needs the cards above each dealt bottom card
//! to follow the build rule ([`Deal::validate`] refuses other two-deck positions).
//!
//! Per move the bookkeeping (`col`, `prefix`, `run`) changes in O(1); a node assembles the key
//! from the per-pile descriptors in O(piles) without looking at the cards.

use super::{Position, MAX_PILES, NONE};
use crate::card::Card;
#[cfg(doc)]
use crate::deal::Deal;
use crate::rules::Build;

/// Bits in the key for one pile's run length (a run follows the build rule from the card
/// below it, one rank per card in one direction, so <= 12 cards).
const RUN_LEN_BITS: u32 = 4;
/// Bits for a refilled pile's base card or a cell's card (a packed card code, never zero).
const BASE_BITS: u32 = 6;
/// Bits for how many cards have left the stock (at most `MAX_SEQ`, 104, < 128).
const STOCK_COUNT_BITS: u32 = 7;

/// The multiplier of the crate's multiplicative hashes: 2^64 divided by the golden ratio,
/// rounded down (an odd number). The solver's table, open set and recent-key cache hash keys with it; the
/// move order's jitter hashes moves with it.
pub(crate) const KEY_HASH_MUL: u64 = 0x9E37_79B9_7F4A_7C15;

/// The starting value of the key hashes of the solver's table and open set: the first 64 bits
/// of the fraction of pi (a nothing-up-my-sleeve number; any value not zero would do).
pub(crate) const KEY_HASH_SEED: u64 = 0x243F_6A88_85A3_08D3;

/// A second odd multiplier for the key hashes that want one (the open set's fold, the
/// quotient's finish): any odd constant with well-spread bits would do.
pub(crate) const KEY_HASH_MUL2: u64 = 0xD6E8_FEB8_6659_FD93;

/// What [`fold_key`] does to the running hash after each word's multiply.
#[derive(Clone, Copy)]
pub(crate) enum Stir {
    /// Nothing: the recent-key cache's cheap hash, whose collisions cost one table probe.
    Not,
    /// `h ^= h >> s`: brings the high bits the multiply mixed down to the low ones.
    XorShift(u32),
    /// `h = h.rotate_left(r)`: the same for the spill's partitions.
    Rotate(u32),
}

/// The one loop of the key hashes: from `seed`, each word xored in, the sum multiplied by
/// `mul`, then stirred. Each user keeps its own seed, multiplier, stir and finish (the
/// table's tag bits, the open set's home slot, the quotient's parts, the spill's partition
/// byte, the cache's slot), because a hash decides where a key lies and so, in a table
/// that replaces entries when full, which keys survive: changing one would move node
/// counts, and none of them is wrong. Inlined with constant arguments, the `match` folds
/// away.
#[inline(always)]
pub(crate) fn fold_key(words: &[u64], seed: u64, mul: u64, stir: Stir) -> u64 {
    let mut h = seed;
    for &w in words {
        h = (h ^ w).wrapping_mul(mul);
        h = match stir {
            Stir::Not => h,
            Stir::XorShift(s) => h ^ (h >> s),
            Stir::Rotate(r) => h.rotate_left(r),
        };
    }
    h
}

impl Position {
    /// Recomputes pile `i`'s key field from its descriptors: for a column pile the prefix
    /// length, run length and run bits; for a refilled pile its base card, run length and
    /// run bits (see the module docs).
    #[inline]
    pub(super) fn refresh(&mut self, i: usize) {
        let len = self.len[i];
        if len == 0 {
            self.frag_bits[i] = 0;
            return;
        }
        let (head, head_bits, run) = if self.col[i] != NONE {
            (
                u64::from(self.prefix[i]),
                self.prefix_bits,
                len - self.prefix[i],
            )
        } else {
            (u64::from(self.cards[i][0].code()), BASE_BITS, len - 1)
        };
        // A longer run would spill into the pile's head field and merge two positions' keys
        // (a search that then calls a winnable deal lost): checked in every build. It cannot
        // happen in play (a run follows the build rule one rank per card, so it holds at
        // most 12), and a failure ends the solve with a panic, never a verdict.
        assert!(
            u32::from(run) < 1 << RUN_LEN_BITS,
            "a run of {run} cards outgrows its key field"
        );
        let run_bits = self.card_bits * u32::from(run);
        self.frag[i] = (head << RUN_LEN_BITS | u64::from(run)) << run_bits | u64::from(self.run[i]);
        self.frag_bits[i] = (head_bits + RUN_LEN_BITS + run_bits) as u8;
    }

    /// Words of the key the searches use for this deal: 3 when [`Position::key_bits_bound`]
    /// fits in 192 bits (every dealt game: a key of this family needs at most
    /// 8 * (6 + 8) + 2 * 52 = 216 bits with two decks' worth of cards), else 4.
    ///
    /// # Panics
    /// If even four words cannot hold the key (no board of the family is that large).
    pub fn key_words(&self) -> usize {
        let bits = self.key_bits_bound();
        assert!(bits <= 256, "deal too large for the state key");
        if bits <= 192 {
            3
        } else {
            4
        }
    }

    /// Upper bound on the key's length in bits for this deal (see the module docs): each pile
    /// costs at most its column field plus, as a refilled pile, base and run length (10 bits),
    /// minus the bits its base would have cost as a run card; each card its run bits; each
    /// cell 6 bits; the stock 7 bits and one per card of stock and waste.
    pub fn key_bits_bound(&self) -> u32 {
        let cards = u32::from(self.total - self.home);
        let cb = self.card_bits;
        let piles = self.n as u32 * (RUN_LEN_BITS + BASE_BITS - cb)
            + self.ncols as u32 * self.prefix_bits
            + cb * cards;
        let stock = if self.has_stock {
            STOCK_COUNT_BITS + u32::from(self.seq_len)
        } else {
            0
        };
        piles + self.ncells as u32 * BASE_BITS + stock
    }
    /// The bits a card placed on `below` adds to its pile's run (see the module docs).
    #[inline]
    pub(super) fn run_code(&self, c: Card, below: Card) -> u32 {
        match self.build {
            Build::DownAnySuit => c.suit() as u32,
            Build::UpDownSuit => u32::from(c.rank() > below.rank()),
            Build::DownSuit => 0,
        }
    }

    /// The exact, pile-order-independent key of this position (see the module docs), in `W`
    /// 64-bit words. Returns `None` if it does not fit; [`Position::key_bits_bound`] tells
    /// in advance which `W` is always enough.
    ///
    /// Always inlined: returned through memory, the words were stored one at a time and
    /// read back 16 bytes at a time by the caller (measured: sa 1..100 about 2% faster
    /// inlined, three runs each, alternating, same nodes).
    #[inline(always)]
    pub fn key<const W: usize>(&self) -> Option<[u64; W]> {
        let mut w = BitWriter::<W>::default();
        for j in 0..self.ncols {
            let p = self.slot_of_col[j];
            if p == NONE {
                w.put(0, self.prefix_bits);
            } else {
                w.put(self.frag[p as usize], u32::from(self.frag_bits[p as usize]));
            }
        }
        // Refilled piles in a canonical order: by base card, then by the whole field (with
        // two decks two piles may share a base). Insertion sort of at most 12 entries.
        let mut bases = [(0u64, 0u8); MAX_PILES];
        let mut k = 0;
        let mut refilled = self.refilled;
        debug_assert_eq!(
            refilled,
            (0..self.n)
                .filter(|&i| self.len[i] > 0 && self.col[i] == NONE)
                .fold(0, |m, i| m | 1 << i)
        );
        while refilled != 0 {
            let i = refilled.trailing_zeros() as usize;
            refilled &= refilled - 1;
            let b = u64::from(self.cards[i][0].code()) << 46
                | u64::from(self.frag_bits[i]) << 40
                | self.frag[i];
            let mut at = k;
            while at > 0 && bases[at - 1].0 > b {
                bases[at] = bases[at - 1];
                at -= 1;
            }
            bases[at] = (b, i as u8);
            k += 1;
        }
        for &(_, i) in &bases[..k] {
            w.put(self.frag[i as usize], u32::from(self.frag_bits[i as usize]));
        }
        if self.ncells > 0 {
            let mut cells = self.cells;
            cells[..self.ncells].sort_unstable();
            for &c in &cells[..self.ncells] {
                w.put(u64::from(c), BASE_BITS);
            }
        }
        if self.has_stock {
            w.put(u64::from(self.sidx), STOCK_COUNT_BITS);
            let mut lo = 0;
            while lo < u32::from(self.sidx) {
                let bits = (u32::from(self.sidx) - lo).min(32);
                w.put(((self.wmask >> lo) as u64) & ((1u64 << bits) - 1), bits);
                lo += bits;
            }
        }
        w.finish()
    }
}

/// Packs bit fields most-significant first into `W` words. Fields are at most 40 bits; each
/// goes into the word being filled, from its top down, and a field that does not fit spills
/// its low bits into the next word. (In 64-bit words: a 128-bit accumulator cost the key a
/// third more instructions under `callgrind`.)
struct BitWriter<const W: usize> {
    words: [u64; W],
    /// The word being filled.
    cur: u64,
    /// Bits of `cur` still free, 1..=64.
    free: u32,
    full: usize,
    overflow: bool,
}

impl<const W: usize> Default for BitWriter<W> {
    fn default() -> Self {
        BitWriter {
            words: [0; W],
            cur: 0,
            free: 64,
            full: 0,
            overflow: false,
        }
    }
}

impl<const W: usize> BitWriter<W> {
    /// Puts the low `bits` (at most 40) of `value`. A value with more bits set would run into
    /// the field before and merge two keys: it makes [`BitWriter::finish`] answer `None`
    /// (every caller then stops: the key never stands for another position), in every build.
    #[inline]
    fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 40);
        self.overflow |= value >> bits != 0;
        if bits < self.free {
            self.free -= bits;
            // `free` may be 64 only when `bits` is 0, and then `value` is 0 too.
            self.cur |= value.wrapping_shl(self.free);
        } else {
            let spill = bits - self.free;
            self.cur |= value >> spill;
            self.flush();
            self.free = 64 - spill;
            // Shifted in two steps: with no spill, `free` is 64 and nothing is left over.
            self.cur = (value << 1) << (self.free - 1);
        }
    }

    #[inline]
    fn flush(&mut self) {
        // Every word by a constant index (a select each), never `words[full]`. Indexed by a
        // variable, the words lived on the stack, written 8 bytes at a time and copied out
        // 16 at a time, and `perf annotate` put 40% of the key's samples on those copies
        // (`castle bench --variant sa`); like this they stay in registers, and the key went
        // from 20% of that run's samples to 10% (sa 1..100 about 5% faster, same nodes).
        for (k, w) in self.words.iter_mut().enumerate() {
            if k == self.full {
                *w = self.cur;
            }
        }
        self.overflow |= self.full >= W;
        self.full += 1;
        self.cur = 0;
    }

    #[inline]
    fn finish(mut self) -> Option<[u64; W]> {
        if self.free < 64 {
            self.flush();
        }
        (!self.overflow).then_some(self.words)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::every_rule_set;
    use super::*;
    use crate::deal::Deal;
    use crate::moves::{Move, MoveList};
    use crate::rules::Variant;
    use crate::state::Pruning;

    /// The multiset of piles as sorted card lists, the cells as a sorted list, the stock,
    /// the waste and the foundations.
    type SlowKey = (Vec<Vec<u8>>, Vec<Card>, Vec<Card>, Vec<Card>, [u8; 8]);

    /// The bit writer against a bit-at-a-time one, on random fields of 0 to 40 bits: the
    /// same words, and `None` exactly when the fields outgrow the words.
    #[test]
    fn the_bit_writer_packs_like_a_bit_list() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        for _ in 0..20_000 {
            let mut w = BitWriter::<3>::default();
            let mut bits_list = Vec::new();
            for _ in 0..rng.gen_range(0..9) {
                let bits = rng.gen_range(0..=40u32);
                let value = if bits == 0 {
                    0
                } else {
                    rng.gen::<u64>() >> (64 - bits)
                };
                w.put(value, bits);
                bits_list.extend((0..bits).rev().map(|b| value >> b & 1 == 1));
            }
            let expect = (bits_list.len() <= 192).then(|| {
                let mut words = [0u64; 3];
                for (k, &b) in bits_list.iter().enumerate() {
                    words[k / 64] |= u64::from(b) << (63 - k % 64);
                }
                words
            });
            assert_eq!(w.finish(), expect);
        }
    }

    /// Reference key (slow, obviously order-independent).
    fn slow_key(p: &Position) -> SlowKey {
        let mut piles: Vec<Vec<u8>> = (0..p.piles())
            .map(|i| p.pile(i).iter().map(|c| c.code()).collect())
            .filter(|v: &Vec<u8>| !v.is_empty())
            .collect();
        piles.sort();
        let mut cells = p.reserve();
        cells.sort();
        (piles, cells, p.stock().to_vec(), p.waste(), p.foundations())
    }

    /// Random walks: the packed key equals for equal positions and differs for different
    /// ones, the bookkeeping survives undo, and the key bound holds.
    #[test]
    fn packed_key_agrees_with_the_slow_key_on_random_walks() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(99);
        let mut seen: std::collections::HashMap<[u64; 4], SlowKey> = Default::default();
        let mut canon: std::collections::HashMap<SlowKey, [u64; 4]> = Default::default();
        for (v, rules) in every_rule_set() {
            for seed in 1..=12 {
                let deal = Deal::from_seed(rules, seed);
                let mut p = Position::new(&deal);
                // Every one-deck game fits three words; courtyard, four.
                assert!(p.key_bits_bound() <= if v == Variant::Courtyard { 256 } else { 192 });
                let start_key = p.key::<4>().unwrap();
                let mut hist = Vec::new();
                let mut list = MoveList::default();
                for _ in 0..2000 {
                    p.generate(Pruning::NONE, 0, None, &mut list);
                    if list.is_empty() {
                        break;
                    }
                    let m = list.get(rng.gen_range(0..list.len()));
                    p.play(m, &mut hist);
                    let k = p.key::<4>().unwrap();
                    let slow = slow_key(&p);
                    if let Some(prev) = seen.insert(k, slow.clone()) {
                        assert_eq!(prev, slow, "two positions share a key");
                    }
                    if let Some(prev) = canon.insert(slow, k) {
                        assert_eq!(prev, k, "one position has two keys");
                    }
                }
                while let Some(m) = hist.pop() {
                    p.undo(m);
                }
                assert_eq!(p.key::<4>().unwrap(), start_key);
                assert_eq!(p.tableau(), deal.tableau);
                assert_eq!(
                    (p.stock(), p.reserve()),
                    (&deal.stock[..], deal.reserve.clone())
                );
                seen.clear();
                canon.clear();
            }
        }
    }

    /// The same piles in other physical places give the same key: a refilled pile (9C on its
    /// own) in t2 or in t3, and a column pile (t1's dealt bottom) moved to an empty pile.
    #[test]
    fn pile_order_does_not_change_the_key() {
        let mut deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 5);
        let mut moved: Vec<Card> = std::mem::take(&mut deal.tableau[1]);
        moved.append(&mut deal.tableau[2]);
        // Empty t2 and t3 by piling their cards onto t4 (a position, not a dealt shape: the key
        // only needs every card placed once). Then t4's top goes to t2 in one copy and to t3
        // in the other: the same piles in different places.
        deal.tableau[3].extend(moved);
        let top4 = *deal.tableau[3].last().unwrap();
        let mut a = Position::new(&deal);
        let mut b = Position::new(&deal);
        a.apply(Move::single(top4, 3, 1));
        b.apply(Move::single(top4, 3, 2));
        assert_eq!(a.key::<3>(), b.key::<3>());
        // A lone dealt bottom card moved between empty piles keeps its key.
        let mut lone = deal.clone();
        lone.tableau[1] = vec![];
        let bottom = lone.tableau[0][0];
        let rest: Vec<Card> = lone.tableau[0].drain(1..).collect();
        lone.tableau[3].extend(rest);
        let mut c = Position::new(&lone);
        let before = c.key::<3>();
        c.apply(Move::single(bottom, 0, 1));
        assert_eq!(c.key::<3>(), before);
    }
}
