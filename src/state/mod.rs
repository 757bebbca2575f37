//! The search's position: fixed arrays mutated in place by `apply` / `undo`, with the
//! bookkeeping that makes the state key cheap, exact and independent of pile order.
//!
//! This file owns [`Position`] (its layout, its construction from a deal, what it shows) and
//! the moves played on it: [`Position::play`], [`Position::apply`] and [`Position::undo`],
//! with the per-pile key bookkeeping (`push`, `pop`) every move goes through; and the
//! switches of the search's reductions, [`Pruning`]; and the short search's lower bound,
//! [`Position::moves_left_bound`]. The rest of the position's work lives
//! in submodules, each an `impl Position` block over the same fields:
//! - `key`: the exact, pile-order-free state key ([`Position::key`]), its bit layout and
//!   bound, and the hash multiplier the solver's tables share;
//! - `movegen`: move generation ([`Position::generate`]) and its exact reductions;
//! - `safe`: the safe foundation moves ([`Position::safe_move`]) with the proofs that no
//!   win can regret them, and the quick phase's foundation moves;
//! - `order`: the heuristic move order ([`Position::generate`]'s sort) and its weights;
//! - `eval`: the counts the portfolio's best-first searches rank positions by
//!   ([`Position::features`]).
//!
//! How the key describes a position, which the bookkeeping here (`col`, `prefix`, `run`,
//! `frag`) serves, is in the `key` module's docs.

use crate::card::{Card, Suit};
use crate::deal::{Deal, MAX_PILE};
use crate::moves::{is_cell, is_tableau, Move, CELL, FOUNDATION, STOCK, WASTE};
use crate::rules::{Build, SequenceMoves};

mod eval;
mod key;
mod movegen;
mod order;
mod safe;

pub use eval::Features;
pub(crate) use key::{fold_key, Stir, KEY_HASH_MUL, KEY_HASH_MUL2, KEY_HASH_SEED};

/// Most tableau piles any variant uses.
pub const MAX_PILES: usize = 12;
/// Most reserve cells any variant uses.
pub const MAX_CELLS: usize = 4;
/// Most cards the stock and waste can hold together (two decks less one card per pile).
const MAX_SEQ: usize = 104;
const NONE: u8 = 0xFF;

/// Which safe reductions the move generator applies. Each is exact (see the comments at each
/// use); the switches exist so tests can prove that by solving with them on and off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pruning {
    /// Play cards to the foundations at once when no win can need them elsewhere.
    pub safe_autoplay: bool,
    /// Never move a card that is alone in its pile to an empty pile.
    pub skip_lone_to_empty: bool,
    /// Of several empty piles (or empty cells), offer only the first as a destination.
    pub one_empty_target: bool,
    /// Try the most promising moves first (a heuristic order; never changes a verdict).
    pub order_moves: bool,
    /// Also offer moves of a whole run through empty piles (each a chain of legal single
    /// moves, so they add shortcuts, never new positions).
    pub run_moves: bool,
    /// Never move the same card twice in a row (see [`Position::generate`]).
    pub no_repeat: bool,
}

impl Pruning {
    /// Every reduction on (the default).
    pub const ALL: Pruning = Pruning {
        safe_autoplay: true,
        skip_lone_to_empty: true,
        one_empty_target: true,
        order_moves: true,
        run_moves: true,
        no_repeat: true,
    };
    /// Every reduction off: the plain search, used as the reference in tests.
    pub const NONE: Pruning = Pruning {
        safe_autoplay: false,
        skip_lone_to_empty: false,
        one_empty_target: false,
        order_moves: false,
        run_moves: false,
        no_repeat: false,
    };
    /// Only the moves that reach the same position another move reaches are left out (a lone
    /// card to a second empty pile): every position stays reachable by single legal moves.
    pub const SAME_POSITIONS: Pruning = Pruning {
        skip_lone_to_empty: true,
        one_empty_target: true,
        ..Pruning::NONE
    };
}

impl Default for Pruning {
    fn default() -> Self {
        Pruning::ALL
    }
}

/// A position in the search.
#[derive(Clone)]
pub struct Position {
    n: usize,
    len: [u8; MAX_PILES],
    cards: [[Card; MAX_PILE]; MAX_PILES],
    /// Foundation pile heights (see [`Deal::foundations`]); with two decks the first pile of
    /// a suit is kept the higher, so equal positions have equal arrays.
    found: [u8; 8],
    /// `fit[s]` has bit `r` set when a card of rank `r` and suit `s` fits a foundation.
    fit: [u16; 4],
    home: u8,
    total: u8,
    build: Build,
    two_decks: bool,
    foundation_return: bool,
    unlimited: bool,
    /// Bits per run card in the key (2, 1 or 0 by build rule).
    card_bits: u32,
    // Reserve cells: card codes, 0 for empty.
    ncells: usize,
    cells: [u8; MAX_CELLS],
    // Stock and waste: `seq` is the waste (bottom to top) then the stock (next card first) as
    // dealt into this position; `sidx` cards of it have left the stock; the waste is a stack
    // of indices into `seq`, `wmask` the same set as bits; `gone` stacks the indices of waste
    // cards played elsewhere, so `undo` can put them back.
    has_stock: bool,
    seq: [Card; MAX_SEQ],
    seq_len: u8,
    sidx: u8,
    waste: [u8; MAX_SEQ],
    wlen: u8,
    wmask: u128,
    gone: [u8; MAX_SEQ],
    glen: u8,
    // Canonical-key bookkeeping, per physical pile.
    col: [u8; MAX_PILES],
    prefix: [u8; MAX_PILES],
    run: [u32; MAX_PILES],
    /// `low[i][k]`: index of the lowest-ranked card among `cards[i][..=k]` (for move order).
    low: [[u8; MAX_PILE]; MAX_PILES],
    /// Each pile's whole key field (header and run), kept up to date by `push` and `pop`.
    frag: [u64; MAX_PILES],
    frag_bits: [u8; MAX_PILES],
    slot_of_col: [u8; MAX_PILES],
    /// Bit `i` set when pile `i` is a refilled one (cards on it, no column: see the `key`
    /// module docs), so the key visits only those.
    refilled: u16,
    // What was dealt (fixed for the search).
    ncols: usize,
    dealt: [[Card; MAX_PILE]; MAX_PILES],
    dealt_len: [u8; MAX_PILES],
    bottom_of: [u8; Card::CODES],
    prefix_bits: u32,
}

impl Position {
    /// The position of a validated deal, before any move.
    pub fn new(deal: &Deal) -> Position {
        let filler = Card::new(1, Suit::Clubs);
        let rules = deal.rules;
        let n = deal.tableau.len();
        assert!(n <= MAX_PILES, "at most {MAX_PILES} piles");
        assert!(rules.cells <= MAX_CELLS, "at most {MAX_CELLS} cells");
        let two_decks = rules.decks == 2;
        let mut p = Position {
            n,
            len: [0; MAX_PILES],
            cards: [[filler; MAX_PILE]; MAX_PILES],
            found: deal.foundations,
            fit: [0; 4],
            home: deal.cards_home() as u8,
            total: rules.cards() as u8,
            build: rules.build,
            two_decks,
            foundation_return: rules.options.foundation_return,
            unlimited: rules.options.sequence_moves == SequenceMoves::Unlimited,
            card_bits: match rules.build {
                Build::DownAnySuit => 2,
                Build::UpDownSuit => 1,
                Build::DownSuit => 0,
            },
            ncells: rules.cells,
            cells: [0; MAX_CELLS],
            has_stock: rules.stock,
            seq: [filler; MAX_SEQ],
            seq_len: 0,
            sidx: 0,
            waste: [0; MAX_SEQ],
            wlen: 0,
            wmask: 0,
            gone: [0; MAX_SEQ],
            glen: 0,
            col: [NONE; MAX_PILES],
            prefix: [0; MAX_PILES],
            run: [0; MAX_PILES],
            low: [[0; MAX_PILE]; MAX_PILES],
            frag: [0; MAX_PILES],
            frag_bits: [0; MAX_PILES],
            slot_of_col: [NONE; MAX_PILES],
            refilled: 0,
            ncols: if two_decks { 0 } else { n },
            dealt: [[filler; MAX_PILE]; MAX_PILES],
            dealt_len: [0; MAX_PILES],
            bottom_of: [NONE; Card::CODES],
            prefix_bits: 0,
        };
        for (k, &c) in deal.reserve.iter().enumerate() {
            p.cells[k] = c.code();
        }
        for (k, &c) in deal.waste.iter().chain(&deal.stock).enumerate() {
            p.seq[k] = c;
        }
        p.seq_len = (deal.waste.len() + deal.stock.len()) as u8;
        for k in 0..deal.waste.len() {
            p.waste[k] = k as u8;
            p.wmask |= 1 << k;
        }
        p.wlen = deal.waste.len() as u8;
        p.sidx = p.wlen;
        for s in 0..4 {
            p.settle_foundation(s);
        }
        let mut max_len = 0;
        for (i, pile) in deal.tableau.iter().enumerate() {
            if two_decks {
                // Every pile is a base and a run (see the `key` module docs).
                for &c in pile {
                    p.push(i, c);
                }
                continue;
            }
            p.dealt_len[i] = pile.len() as u8;
            max_len = max_len.max(pile.len());
            for (k, &c) in pile.iter().enumerate() {
                p.dealt[i][k] = c;
                p.cards[i][k] = c;
                p.low[i][k] = if k > 0 && pile[p.low[i][k - 1] as usize].rank() < c.rank() {
                    p.low[i][k - 1]
                } else {
                    k as u8
                };
            }
            p.len[i] = pile.len() as u8;
            if let Some(&b) = pile.first() {
                p.bottom_of[b.code() as usize] = i as u8;
                p.col[i] = i as u8;
                p.prefix[i] = pile.len() as u8;
                p.slot_of_col[i] = i as u8;
            }
        }
        p.prefix_bits = usize::BITS - max_len.leading_zeros();
        for i in 0..n {
            p.refresh(i);
        }
        p
    }

    /// Puts the two piles of suit `s` in canonical order (two decks) and recomputes which
    /// ranks of the suit fit.
    #[inline]
    fn settle_foundation(&mut self, s: usize) {
        // Ordered first, then read: the order decides which pile is which.
        if self.two_decks && self.found[s + 4] > self.found[s] {
            self.found.swap(s, s + 4);
        }
        let mut fit = 1u16 << (self.found[s] + 1);
        if self.two_decks {
            fit |= 1 << (self.found[s + 4] + 1);
        }
        // Bit 14 (past the king) is harmless: no card has rank 14.
        self.fit[s] = fit;
    }

    /// Number of tableau piles.
    #[inline]
    pub fn piles(&self) -> usize {
        self.n
    }

    /// The cards of pile `i`, bottom to top.
    #[inline]
    pub fn pile(&self, i: usize) -> &[Card] {
        &self.cards[i][..self.len[i] as usize]
    }

    /// Top card of pile `i`.
    #[inline]
    pub fn top(&self, i: usize) -> Option<Card> {
        let l = self.len[i] as usize;
        (l > 0).then(|| self.cards[i][l - 1])
    }

    /// Foundation pile heights (see [`Deal::foundations`]).
    #[inline]
    pub fn foundations(&self) -> [u8; 8] {
        self.found
    }

    /// The cards in the reserve cells, in cell order (empty cells left out).
    pub fn reserve(&self) -> Vec<Card> {
        self.cells[..self.ncells]
            .iter()
            .filter_map(|&c| Card::from_code(c))
            .collect()
    }

    /// The stock, next card first.
    pub fn stock(&self) -> &[Card] {
        &self.seq[self.sidx as usize..self.seq_len as usize]
    }

    /// The waste, bottom to top.
    pub fn waste(&self) -> Vec<Card> {
        self.waste[..self.wlen as usize]
            .iter()
            .map(|&k| self.seq[k as usize])
            .collect()
    }

    /// Cards on the foundations.
    #[inline]
    pub fn home(&self) -> u8 {
        self.home
    }

    /// True when every card is home.
    #[inline]
    pub fn is_won(&self) -> bool {
        self.home == self.total
    }

    /// The reserve cells' card codes in cell order, 0 for an empty cell.
    pub fn cell_codes(&self) -> &[u8] {
        &self.cells[..self.ncells]
    }

    /// Cards of the deal's sequence (its waste, bottom to top, then its stock, next card
    /// first) that have left the stock.
    pub fn stock_taken(&self) -> u8 {
        self.sidx
    }

    /// The waste as a set of that sequence's cards: bit `k` for its card `k`.
    pub fn waste_bits(&self) -> u128 {
        self.wmask
    }

    /// Cards in the waste.
    pub fn waste_len(&self) -> u32 {
        u32::from(self.wlen)
    }

    /// Puts `c` on pile `i` and updates the pile's key field. Always inlined, as are `pop`,
    /// `take` and `put`: every move played and taken back goes through them, and as calls
    /// they cost sa 1..40 2.1% more instructions (`valgrind --tool=callgrind castle batch -v
    /// sa --seeds 1..40 -j 1`) and sa 1..100 4% more time (1.86, 1.85, 1.86 s against 1.76,
    /// 1.78, 1.81 s, alternating, same nodes).
    #[inline(always)]
    fn push(&mut self, i: usize, c: Card) {
        let l = self.len[i] as usize;
        debug_assert!(l < MAX_PILE);
        self.cards[i][l] = c;
        self.len[i] += 1;
        self.low[i][l] = if l > 0 && self.cards[i][self.low[i][l - 1] as usize].rank() < c.rank() {
            self.low[i][l - 1]
        } else {
            l as u8
        };
        if l == 0 {
            let j = self.bottom_of[c.code() as usize];
            self.col[i] = j;
            self.run[i] = 0;
            if j != NONE {
                self.prefix[i] = 1;
                self.slot_of_col[j as usize] = i as u8;
            } else {
                self.prefix[i] = 0;
                self.refilled |= 1 << i;
            }
        } else {
            let j = self.col[i];
            if j != NONE
                && self.prefix[i] as usize == l
                && l < self.dealt_len[j as usize] as usize
                && self.dealt[j as usize][l] == c
            {
                // The card lands back where it was dealt: the pile is still a pure prefix.
                self.prefix[i] += 1;
            } else {
                let code = self.run_code(c, self.cards[i][l - 1]);
                self.run[i] = (self.run[i] << self.card_bits) | code;
            }
        }
        self.refresh(i);
    }

    #[inline(always)]
    fn pop(&mut self, i: usize) -> Card {
        let l = self.len[i] as usize;
        debug_assert!(l > 0);
        let c = self.cards[i][l - 1];
        self.len[i] -= 1;
        if l == 1 {
            let j = self.col[i];
            if j != NONE {
                self.slot_of_col[j as usize] = NONE;
            }
            self.col[i] = NONE;
            self.refilled &= !(1 << i);
            self.prefix[i] = 0;
            self.run[i] = 0;
        } else if self.col[i] != NONE && self.prefix[i] as usize == l {
            self.prefix[i] -= 1;
        } else {
            self.run[i] >>= self.card_bits;
        }
        self.refresh(i);
        c
    }

    /// True if an emptied tableau pile must be filled at once (a stock game whose waste or
    /// stock still holds cards).
    #[inline]
    fn must_fill(&self) -> bool {
        self.has_stock && (self.wlen > 0 || self.sidx < self.seq_len)
    }

    /// Plays a move that the search generated, appending the moves it consists of to `hist`:
    /// under single-card rules a run move becomes the chain of single moves that carries it
    /// through the empty piles; a pile emptied in a stock game is then filled from the waste
    /// (or the stock), as a move of its own.
    #[inline]
    pub fn play(&mut self, m: Move, hist: &mut Vec<Move>) {
        if m.count <= 1 || self.unlimited {
            self.apply(m);
            hist.push(m);
        } else {
            let mut temps = [0u8; MAX_PILES];
            let mut nt = 0;
            for i in 0..self.n {
                if self.len[i] == 0 && i != m.to as usize {
                    temps[nt] = i as u8;
                    nt += 1;
                }
            }
            debug_assert!(u32::from(m.count) <= 1 << nt);
            self.play_run(m.from, m.to, u32::from(m.count), &temps[..nt], hist);
        }
        if is_tableau(m.from) && self.len[m.from as usize] == 0 && self.must_fill() {
            let fill = if self.wlen > 0 {
                Move::single(
                    self.seq[self.waste[self.wlen as usize - 1] as usize],
                    WASTE,
                    m.from,
                )
            } else {
                Move::single(self.seq[self.sidx as usize], STOCK, m.from)
            };
            self.apply(fill);
            hist.push(fill);
        }
    }

    /// Moves the top `count` cards of `from` (a run) onto `to` using the empty piles `temps`:
    /// half the run to a spare pile, the rest to `to`, then the half on top: `2^temps` cards
    /// at most.
    fn play_run(&mut self, from: u8, to: u8, count: u32, temps: &[u8], hist: &mut Vec<Move>) {
        if count == 1 {
            let c = self.top(from as usize).expect("run card present");
            let m = Move::single(c, from, to);
            self.apply(m);
            hist.push(m);
            return;
        }
        let (&spare, rest) = temps.split_last().expect("enough empty piles for the run");
        let half = count / 2;
        self.play_run(from, spare, half, rest, hist);
        self.play_run(from, to, count - half, rest, hist);
        self.play_run(spare, to, half, rest, hist);
    }

    /// Takes `m.card` (or the run starting at it) from its source.
    #[inline(always)]
    fn take(&mut self, from: u8, m: Move) {
        match from {
            FOUNDATION => self.unfound(m.card),
            WASTE => {
                self.wlen -= 1;
                let k = self.waste[self.wlen as usize];
                self.wmask &= !(1 << k);
                self.gone[self.glen as usize] = k;
                self.glen += 1;
            }
            STOCK => self.sidx += 1,
            _ if is_cell(from) => self.cells[(from - CELL) as usize] = 0,
            _ => {
                let c = self.pop(from as usize);
                debug_assert_eq!(c, m.card);
            }
        }
    }

    /// Puts `m.card` on its destination (`back`: the reverse of a move being undone).
    #[inline(always)]
    fn put(&mut self, to: u8, m: Move, back: bool) {
        match to {
            FOUNDATION => {
                let s = m.card.suit_index();
                debug_assert!(self.fit[s] >> m.card.rank() & 1 == 1);
                if self.found[s] + 1 == m.card.rank() {
                    self.found[s] += 1;
                } else {
                    self.found[s + 4] += 1;
                }
                self.home += 1;
                self.settle_foundation(s);
            }
            WASTE => {
                let k = if back {
                    self.glen -= 1;
                    self.gone[self.glen as usize]
                } else {
                    self.sidx - 1
                };
                self.waste[self.wlen as usize] = k;
                self.wlen += 1;
                self.wmask |= 1 << k;
            }
            STOCK => {
                // Undoing a deal: the card is the waste's top (or, for a fill straight from
                // the stock, already off the tableau); the stock takes it back.
                self.sidx -= 1;
            }
            _ if is_cell(to) => self.cells[(to - CELL) as usize] = m.card.code(),
            _ => self.push(to as usize, m.card),
        }
    }

    /// Removes the top card `c` from a foundation pile of its suit.
    #[inline]
    fn unfound(&mut self, c: Card) {
        let s = c.suit_index();
        if self.found[s] == c.rank() {
            self.found[s] -= 1;
        } else {
            debug_assert_eq!(self.found[s + 4], c.rank());
            self.found[s + 4] -= 1;
        }
        self.home -= 1;
        self.settle_foundation(s);
    }

    /// Plays a move that the search generated (no legality check beyond debug asserts). A
    /// run (`count > 1`) moves as one only under unlimited sequence moves; see
    /// [`Position::play`] for the single-card expansion.
    #[inline]
    pub fn apply(&mut self, m: Move) {
        if m.count > 1 {
            let (from, to, k) = (m.from as usize, m.to as usize, m.count as usize);
            let l = self.len[from] as usize;
            let mut buf = [m.card; 16];
            buf[..k].copy_from_slice(&self.cards[from][l - k..l]);
            for _ in 0..k {
                self.pop(from);
            }
            for &c in &buf[..k] {
                self.push(to, c);
            }
            return;
        }
        if m.from == STOCK && m.to == WASTE {
            self.sidx += 1;
            self.put(WASTE, m, false);
            return;
        }
        self.take(m.from, m);
        self.put(m.to, m, false);
    }

    /// Takes back a move made by [`Position::apply`].
    #[inline]
    pub fn undo(&mut self, m: Move) {
        if m.count > 1 {
            let back = Move {
                from: m.to,
                to: m.from,
                ..m
            };
            self.apply(back);
            return;
        }
        if m.from == STOCK && m.to == WASTE {
            self.wlen -= 1;
            self.wmask &= !(1 << self.waste[self.wlen as usize]);
            self.sidx -= 1;
            return;
        }
        match m.to {
            FOUNDATION => self.unfound(m.card),
            _ if is_cell(m.to) => self.cells[(m.to - CELL) as usize] = 0,
            _ => {
                let c = self.pop(m.to as usize);
                debug_assert_eq!(c, m.card);
            }
        }
        self.put(m.from, m, true);
    }

    /// True when `c` fits a foundation of its suit (read by the safe moves, move generation
    /// and the move order).
    #[inline]
    fn fits_foundation(&self, c: Card) -> bool {
        self.fit[c.suit_index()] >> c.rank() & 1 == 1
    }

    /// A lower bound on the moves (as the solution counts them) still needed to win, for the
    /// short-solution search: every card not home needs its own foundation move; a card of the
    /// stock needs one more to leave the stock (dealt to the waste or filling a pile); and with
    /// one deck and one-card moves, a tableau card with a lower card of its suit under it in
    /// the same pile needs one more to uncover that card, which must go home first. (With two
    /// decks the lower card's twin may go home instead, and an unlimited sequence move carries
    /// many cards at once, so neither counts there.) One move lowers the bound by at most one
    /// except an unlimited sequence move, which moves no card home.
    pub fn moves_left_bound(&self) -> u32 {
        let mut bound = u32::from(self.total - self.home);
        if self.has_stock {
            bound += u32::from(self.seq_len - self.sidx);
        }
        if self.two_decks || self.unlimited {
            return bound;
        }
        for i in 0..self.n {
            let mut low = [u8::MAX; 4];
            for &c in &self.cards[i][..self.len[i] as usize] {
                let s = c.suit_index();
                if c.rank() > low[s] {
                    bound += 1;
                } else {
                    low[s] = c.rank();
                }
            }
        }
        bound
    }

    /// The cards of every pile as owned vectors (for output and tests).
    pub fn tableau(&self) -> Vec<Vec<Card>> {
        (0..self.n).map(|i| self.pile(i).to_vec()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::MoveList;
    use crate::rules::Variant;

    /// Taking moves back restores everything move generation reads: on random walks of every
    /// variant and option that sometimes take back a few moves, the position walked to
    /// offers exactly the moves (and the same key and bound) as the same line played on a
    /// fresh position from the deal. (It once did not: with two decks, taking a card back
    /// from a suit's two equal foundation piles left the suit's record of which ranks fit
    /// one rank short, and courtyard's searches missed foundation moves.)
    #[test]
    fn taking_moves_back_restores_the_moves_offered() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let (mut walked, mut fresh) = (MoveList::default(), MoveList::default());
        for (_, rules) in every_rule_set() {
            for seed in 1..=6 {
                let deal = Deal::from_seed(rules, seed);
                let mut p = Position::new(&deal);
                let mut hist = Vec::new();
                for step in 0..1500 {
                    if step % 7 == 6 {
                        for _ in 0..rng.gen_range(1..=4) {
                            if let Some(m) = hist.pop() {
                                p.undo(m);
                            }
                        }
                    } else {
                        p.generate(Pruning::NONE, 0, None, &mut walked);
                        if walked.is_empty() {
                            break;
                        }
                        p.play(walked.get(rng.gen_range(0..walked.len())), &mut hist);
                    }
                    let mut q = Position::new(&deal);
                    for &m in &hist {
                        q.apply(m);
                    }
                    p.generate(Pruning::NONE, 0, None, &mut walked);
                    q.generate(Pruning::NONE, 0, None, &mut fresh);
                    let what = format!("{:?} deal {seed} step {step}", rules.variant);
                    assert!(walked.iter().eq(fresh.iter()), "{what}: moves differ");
                    assert_eq!(p.key::<4>(), q.key::<4>(), "{what}");
                    assert_eq!(p.moves_left_bound(), q.moves_left_bound(), "{what}");
                    assert_eq!(p.foundations(), q.foundations(), "{what}");
                }
            }
        }
    }

    /// Every variant with its default options, with foundation return, and with unlimited
    /// sequence moves.
    pub(super) fn every_rule_set() -> impl Iterator<Item = (Variant, crate::rules::Rules)> {
        let options = [
            (false, SequenceMoves::Single),
            (true, SequenceMoves::Single),
            (false, SequenceMoves::Unlimited),
        ];
        Variant::ALL.into_iter().flat_map(move |v| {
            options.map(|(ret, seq)| {
                let rules = v
                    .rules()
                    .with_foundation_return(ret)
                    .with_sequence_moves(seq);
                (v, rules)
            })
        })
    }

    /// `moves_left_bound` is consistent, as the short search's proof of the shortest needs: on
    /// random walks of every variant and option, no move (with the moves it sets off) lowers
    /// the bound by more than the moves it counts, and a won position's bound is zero.
    #[test]
    fn the_moves_left_bound_is_consistent() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let mut steps = 0;
        for (v, rules) in every_rule_set() {
            for seed in 1..=8 {
                let mut p = Position::new(&Deal::from_seed(rules, seed));
                let mut list = MoveList::default();
                let mut hist = Vec::new();
                for _ in 0..1000 {
                    // Foundation moves first when there are any, so walks get near the end.
                    let m = match p.foundation_move() {
                        Some(m) if rng.gen_bool(0.7) => m,
                        _ => {
                            p.generate(Pruning::NONE, 0, None, &mut list);
                            if list.is_empty() {
                                break;
                            }
                            list.get(rng.gen_range(0..list.len()))
                        }
                    };
                    let before = p.moves_left_bound();
                    hist.clear();
                    p.play(m, &mut hist);
                    let after = p.moves_left_bound();
                    assert!(
                        before <= hist.len() as u32 + after,
                        "{v:?} seed {seed}: {m:?} took the bound from {before} to {after} in {} moves",
                        hist.len()
                    );
                    steps += 1;
                    if p.is_won() {
                        assert_eq!(after, 0, "{v:?} seed {seed}: won with bound {after}");
                        break;
                    }
                }
            }
        }
        assert!(steps > 10_000, "only {steps} moves were checked");
    }
}
