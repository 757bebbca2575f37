//! The search's position: fixed arrays mutated in place by `apply` / `undo`, with the
//! bookkeeping that makes the state key cheap, exact and independent of pile order.
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

use crate::card::{Card, Suit, KING};
use crate::deal::{Deal, MAX_PILE};
use crate::moves::{is_cell, is_tableau, Move, MoveList, CELL, FOUNDATION, STOCK, WASTE};
use crate::rules::{Build, SequenceMoves};

/// Most tableau piles any variant uses.
pub const MAX_PILES: usize = 12;
/// Most reserve cells any variant uses.
pub const MAX_CELLS: usize = 4;
/// Most cards the stock and waste can hold together (two decks less one card per pile).
const MAX_SEQ: usize = 104;
const NONE: u8 = 0xFF;

/// Bits in the key for one pile's run length (a run follows the build rule from the card
/// below it, one rank per card in one direction, so <= 12 cards).
const RUN_LEN_BITS: u32 = 4;
/// Bits for a refilled pile's base card or a cell's card (a packed card code, never zero).
const BASE_BITS: u32 = 6;

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
    /// Bit `i` set when pile `i` is a refilled one (cards on it, no column: see the module
    /// docs), so the key visits only those.
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
                // Every pile is a base and a run (see the module docs).
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

    /// Recomputes pile `i`'s key field from its descriptors: for a column pile the prefix
    /// length, run length and run bits; for a refilled pile its base card, run length and
    /// run bits (see the module docs).
    #[inline]
    fn refresh(&mut self, i: usize) {
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
        debug_assert!(u32::from(run) < 1 << RUN_LEN_BITS);
        let run_bits = self.card_bits * u32::from(run);
        self.frag[i] = (head << RUN_LEN_BITS | u64::from(run)) << run_bits | u64::from(self.run[i]);
        self.frag_bits[i] = (head_bits + RUN_LEN_BITS + run_bits) as u8;
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
            7 + u32::from(self.seq_len)
        } else {
            0
        };
        piles + self.ncells as u32 * BASE_BITS + stock
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

    /// Cards in the waste.
    pub fn waste_len(&self) -> u32 {
        u32::from(self.wlen)
    }

    /// The bits a card placed on `below` adds to its pile's run (see the module docs).
    #[inline]
    fn run_code(&self, c: Card, below: Card) -> u32 {
        match self.build {
            Build::DownAnySuit => c.suit() as u32,
            Build::UpDownSuit => u32::from(c.rank() > below.rank()),
            Build::DownSuit => 0,
        }
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

    #[inline]
    fn fits_foundation(&self, c: Card) -> bool {
        self.fit[c.suit_index()] >> c.rank() & 1 == 1
    }

    /// A move to the foundations that no win can regret, if one exists. None with foundation
    /// return: a card sent home can then come back, so home is not final and none of the
    /// arguments below applies (every other reduction stays sound).
    ///
    /// **Down regardless of suit, one deck.** Let `c` of rank `r` fit its foundation while
    /// every foundation already holds rank `r-2` (so every card of rank `r-2` or lower is home
    /// for good). On the tableau `c` can only ever serve as the parent of a card `x` of rank
    /// `r-1`; such an `x` fits its own foundation (which stands at `r-2`) and nothing can ever
    /// be built on `x` (its children, rank `r-2`, are home). Take any winning line from here;
    /// delete every move of `c` until `c` goes home, and turn every move of some `x` onto `c`
    /// into `x` going home, deleting that `x`'s later moves until its own foundation move. The
    /// tableau of the new line is always the old one minus cards that had nothing on them, so
    /// every card the old line moves is still on top where it was, every pile it fills is
    /// still empty or shows the same card, and every foundation move is still in order: the
    /// new line wins from the position after `c` goes home. (Horne's rule for this build;
    /// fc-solve's `-sp r:tf` uses it.)
    ///
    /// **Up or down in suit, one deck: every card that fits.** Let `c` fit. Take a winning
    /// line `L`; the new line plays `c` home, then follows `L`, except that a card `L` puts on
    /// a card already home in the new line goes home instead, and moves of cards already home
    /// are dropped. Call `R` the cards home in the new line but not in `L`. A card placed on a
    /// card `y` of `R` is `y`'s suit one rank above (it fits: everything of that suit up to
    /// `y` is home, and it is not) or one rank below (home already, as `y` is): so it joins
    /// `R`. Cards join `R` only while on top, and afterwards only `R` cards land on them, so
    /// each pile of the new line is `L`'s pile without a top segment of `R` cards, each cell
    /// holds `L`'s card or is empty, and every move `L` makes with a card outside `R` is legal
    /// in the new line: its source shows the same card, its target pile shows the same top or
    /// is empty (a non-`R` card never lands on an `R` card), and foundation moves stay in
    /// order. The new line wins.
    ///
    /// **Down in suit, two decks (courtyard).** `c` of rank `r` fits and both cards of rank
    /// `r-1` of its suit are home: nothing can ever be built on `c`, so deleting its moves
    /// until it (or its twin, the cards are alike) goes home changes nothing else. Only a
    /// tableau card with a card under it qualifies while the waste or stock holds cards:
    /// emptying a pile would fill it from the waste and change every later fill.
    #[inline]
    pub fn safe_move(&self) -> Option<Move> {
        if self.foundation_return {
            return None;
        }
        self.first_fitting(|c, len| self.safe_to_send(c, len))
    }

    /// The rule of [`Position::safe_move`] for one card `c` that fits its foundation, `len`
    /// its pile's length (0 for a cell card), by build rule (the arguments above); never true
    /// where no argument applies (two decks with another build rule). Without foundation
    /// return only.
    #[inline]
    fn safe_to_send(&self, c: Card, len: u8) -> bool {
        match (self.build, self.two_decks) {
            (Build::DownAnySuit, false) => {
                c.rank() <= *self.found[..4].iter().min().unwrap_or(&0) + 2
            }
            (Build::UpDownSuit, false) => true,
            (Build::DownSuit, _) => {
                let s = c.suit_index();
                let low = if self.two_decks {
                    self.found[s + 4]
                } else {
                    self.found[s]
                };
                low + 1 >= c.rank() && (len != 1 || !self.must_fill())
            }
            _ => false,
        }
    }

    /// [`Position::safe_move`] for a position just reached by `m` from one that had none
    /// (every position the search enters has had its safe moves played), without looking at
    /// every pile when it can tell. With one deck, no stock and no foundation return, a move
    /// between tableau piles and cells leaves the foundations as they were and uncovers at
    /// most one card, the new top of `m.from`: every other top or cell card was a top or cell
    /// card before, where it was not safe, and whether it is safe depends only on itself and
    /// the foundations ([`Position::safe_to_send`]: its pile-length clause needs a stock). So
    /// that card is the only candidate, and it is the one a full scan would find. Any other
    /// move scans.
    #[inline]
    pub fn safe_move_after(&self, m: Move) -> Option<Move> {
        let local = !self.two_decks
            && !self.has_stock
            && !self.foundation_return
            && (is_tableau(m.from) || is_cell(m.from))
            && (is_tableau(m.to) || is_cell(m.to));
        if !local {
            return self.safe_move();
        }
        if !is_tableau(m.from) {
            return None;
        }
        let i = m.from as usize;
        let c = self.top(i)?;
        (self.fits_foundation(c) && self.safe_to_send(c, self.len[i]))
            .then(|| Move::single(c, m.from, FOUNDATION))
    }

    /// Any move to the foundations (a tableau top, a cell card, then the waste top): the quick
    /// phase plays these at once, not caring whether a win needs the card elsewhere.
    pub fn foundation_move(&self) -> Option<Move> {
        if let Some(m) = self.first_fitting(|_, _| true) {
            return Some(m);
        }
        if self.wlen > 0 {
            let c = self.seq[self.waste[self.wlen as usize - 1] as usize];
            if self.fits_foundation(c) {
                return Some(Move::single(c, WASTE, FOUNDATION));
            }
        }
        None
    }

    /// The first tableau top (then cell card) that fits its foundation and passes `ok` (given
    /// the card and its pile's length; 0 for a cell), as a foundation move.
    #[inline]
    fn first_fitting(&self, ok: impl Fn(Card, u8) -> bool) -> Option<Move> {
        for i in 0..self.n {
            if let Some(c) = self.top(i) {
                if self.fits_foundation(c) && ok(c, self.len[i]) {
                    return Some(Move::single(c, i as u8, FOUNDATION));
                }
            }
        }
        for k in 0..self.ncells {
            if let Some(c) = Card::from_code(self.cells[k]) {
                if self.fits_foundation(c) && ok(c, 0) {
                    return Some(Move::single(c, CELL + k as u8, FOUNDATION));
                }
            }
        }
        None
    }

    /// The piles (bit mask) whose top card `c` may go on, `c`'s own pile `from` excluded.
    #[inline]
    fn parents(&self, c: Card, by_rank: &[u16; 16], by_code: &[u16; 64], from: u8) -> u16 {
        let code = c.code() as usize;
        let r = c.rank();
        let mask = match self.build {
            Build::DownAnySuit => by_rank[r as usize + 1],
            Build::UpDownSuit => {
                (if r < KING { by_code[code + 4] } else { 0 })
                    | (if r > 1 { by_code[code - 4] } else { 0 })
            }
            Build::DownSuit => {
                if r < KING {
                    by_code[code + 4]
                } else {
                    0
                }
            }
        };
        if is_tableau(from) {
            mask & !(1 << from)
        } else {
            mask
        }
    }

    /// Writes every legal move (after the reductions switched on in `prune`) into `out`, in
    /// the order the search tries them: foundation moves, moves onto other cards, moves to an
    /// empty pile, then moves of cell cards, the waste top and foundation tops, a deal from
    /// the stock, and run moves. The order is a heuristic only; the search tries all of them.
    ///
    /// `jitter` (0 for none) perturbs the heuristic order pseudo-randomly, so that restarted
    /// searches try different lines first; foundation moves stay first.
    ///
    /// `last` is the card the move into this position carried and the pile it lies on, if
    /// that was a single move from a tableau pile or a cell to the tableau or a cell, and
    /// nothing moved after it (no automatic move, no fill). With `no_repeat` that card's moves
    /// are not generated: a line `c: A -> B` then `c: B -> C` reaches exactly the position that
    /// `c: A -> C` reaches from the parent (the parent itself when `C` is `A`), and from a
    /// tableau pile or a cell the parent may move `c` wherever `B` may (or its equivalent under
    /// the empty-pile reductions); with nothing moved between, the two positions are identical
    /// card for card, and a foundation move of `c` here is the parent's own foundation move of
    /// `c`. So these moves only reach positions the parent's other moves reach. Only the card
    /// on pile `B` is left out: with two decks its twin elsewhere moves freely (leaving out the
    /// twin's moves too, as by card value, would lose positions: after `c: A -> B`, the twin's
    /// `c': D -> X` is not a move of the parent's that `c` repeats).
    ///
    /// Returns true when `no_repeat` left out at least one legal move. The position's moves
    /// then depend on the line into it: the positions those moves reach are searched from the
    /// parent, not from here (see the search's proof bookkeeping, `solver/search.rs`).
    pub fn generate(
        &self,
        prune: Pruning,
        jitter: u64,
        last: Option<(Card, u8)>,
        out: &mut MoveList,
    ) -> bool {
        out.clear();
        let n = self.n;
        // The empty piles (bit mask), the tops, read once; foundation moves; and the piles by
        // the rank (or the card) of their top card, so each card finds its parents at once.
        let mut empty = 0u16;
        let mut tops = [None; MAX_PILES];
        let mut by_rank = [0u16; 16];
        let mut by_code = [0u16; 64];
        for (i, top) in tops[..n].iter_mut().enumerate() {
            let l = self.len[i] as usize;
            if l == 0 {
                empty |= 1 << i;
                continue;
            }
            let c = self.cards[i][l - 1];
            *top = Some(c);
            if self.fits_foundation(c) {
                out.push(Move::single(c, i as u8, FOUNDATION));
            }
            if self.build == Build::DownAnySuit {
                by_rank[c.rank() as usize] |= 1 << i;
            } else {
                by_code[c.code() as usize] |= 1 << i;
            }
        }
        let first_empty = (empty != 0).then(|| empty.trailing_zeros() as usize);
        for (i, &top) in tops[..n].iter().enumerate() {
            let Some(c) = top else { continue };
            let mut parents = self.parents(c, &by_rank, &by_code, i as u8);
            while parents != 0 {
                let j = parents.trailing_zeros();
                parents &= parents - 1;
                out.push(Move::single(c, i as u8, j as u8));
            }
        }
        for (i, &top) in tops[..n].iter().enumerate() {
            let Some(c) = top else { continue };
            // A card alone in its pile moved to an empty pile gives the same position up to
            // pile order, which the key ignores: nothing new can be reached that way.
            if prune.skip_lone_to_empty && self.len[i] == 1 {
                continue;
            }
            self.push_to_empty(c, i as u8, first_empty, prune, out);
        }
        if self.ncells > 0 {
            self.generate_cells(prune, &by_rank, &by_code, first_empty, out);
        }
        if self.has_stock {
            if self.wlen > 0 {
                let c = self.seq[self.waste[self.wlen as usize - 1] as usize];
                if self.fits_foundation(c) {
                    out.push(Move::single(c, WASTE, FOUNDATION));
                }
                self.push_onto(c, WASTE, &by_rank, &by_code, first_empty, prune, out);
            }
            if self.sidx < self.seq_len {
                out.push(Move::single(self.seq[self.sidx as usize], STOCK, WASTE));
            }
        }
        if self.foundation_return {
            for s in 0..4 {
                let tops = [
                    self.found[s],
                    if self.two_decks { self.found[s + 4] } else { 0 },
                ];
                for (k, &r) in tops.iter().enumerate() {
                    if r == 0 || (k == 1 && r == tops[0]) {
                        continue;
                    }
                    let c = Card::new(r, Suit::from_index(s));
                    self.push_onto(c, FOUNDATION, &by_rank, &by_code, first_empty, prune, out);
                }
            }
        }
        if self.unlimited {
            self.generate_sequences(empty, prune, &by_rank, &by_code, out);
        } else if prune.run_moves {
            self.generate_runs(empty, &by_rank, &by_code, out);
        }
        // The last card's moves are generated with the rest and then dropped, so that the
        // answer says whether there were any.
        let repeat_left_out = match last {
            Some((c, at)) if prune.no_repeat => out.remove_from(c, at),
            _ => false,
        };
        if prune.order_moves {
            for k in 0..out.len() {
                let m = out.get(k);
                let mut score = self.score(m);
                if jitter != 0 {
                    let bits = u64::from(m.card.code()) << 24
                        | u64::from(m.from) << 16
                        | u64::from(m.to) << 8
                        | u64::from(m.count);
                    let mut h = (bits ^ jitter).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    h ^= h >> 31;
                    score += (h % 640) as i32;
                }
                out.set_key(k, score);
            }
            out.sort_by_key_desc();
        }
        repeat_left_out
    }

    /// Moves of `c` from `from` into empty piles: the first only with `one_empty_target` (all
    /// empty piles are alike: the key ignores pile order, so moving a card to any of them
    /// reaches one and the same position).
    #[inline]
    fn push_to_empty(
        &self,
        c: Card,
        from: u8,
        first_empty: Option<usize>,
        prune: Pruning,
        out: &mut MoveList,
    ) {
        let Some(first) = first_empty else { return };
        if prune.one_empty_target {
            out.push(Move::single(c, from, first as u8));
        } else {
            for e in first..self.n {
                if self.len[e] == 0 {
                    out.push(Move::single(c, from, e as u8));
                }
            }
        }
    }

    /// Moves of a card from outside the tableau (`from`: a cell, the waste or the
    /// foundations) onto its parents and into empty piles.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn push_onto(
        &self,
        c: Card,
        from: u8,
        by_rank: &[u16; 16],
        by_code: &[u16; 64],
        first_empty: Option<usize>,
        prune: Pruning,
        out: &mut MoveList,
    ) {
        let mut parents = self.parents(c, by_rank, by_code, from);
        while parents != 0 {
            let j = parents.trailing_zeros();
            parents &= parents - 1;
            out.push(Move::single(c, from, j as u8));
        }
        self.push_to_empty(c, from, first_empty, prune, out);
    }

    /// Reserve-cell moves: cell cards home, onto parents and into empty piles; tableau tops
    /// into an empty cell (the first only with `one_empty_target`: the key sorts the cells,
    /// so which empty cell takes a card does not matter).
    fn generate_cells(
        &self,
        prune: Pruning,
        by_rank: &[u16; 16],
        by_code: &[u16; 64],
        first_empty: Option<usize>,
        out: &mut MoveList,
    ) {
        let mut empty_cells = [0u8; MAX_CELLS];
        let mut ne = 0;
        for k in 0..self.ncells {
            let from = CELL + k as u8;
            match Card::from_code(self.cells[k]) {
                None => {
                    empty_cells[ne] = from;
                    ne += 1;
                }
                Some(c) => {
                    if self.fits_foundation(c) {
                        out.push(Move::single(c, from, FOUNDATION));
                    }
                    self.push_onto(c, from, by_rank, by_code, first_empty, prune, out);
                }
            }
        }
        if ne == 0 {
            return;
        }
        let targets = if prune.one_empty_target {
            &empty_cells[..1]
        } else {
            &empty_cells[..ne]
        };
        for i in 0..self.n {
            let Some(c) = self.top(i) else { continue };
            for &t in targets {
                out.push(Move::single(c, i as u8, t));
            }
        }
    }

    /// The length of the ordered run (by the build rule) at the top of pile `i`.
    #[inline]
    fn top_run(&self, i: usize) -> usize {
        let l = self.len[i] as usize;
        let pile = &self.cards[i][..l];
        let mut run = usize::from(l > 0);
        while run < l && self.build.builds_on(pile[l - run], pile[l - run - 1]) {
            run += 1;
        }
        run
    }

    /// Run moves under single-card rules: the top `k >= 2` cards of a pile, an ordered run,
    /// onto a card the run's bottom card builds on or into an empty pile, when enough other
    /// piles are empty to carry it (`2^e` cards with `e` spare empty piles). Each is a chain
    /// of legal single moves, so adding them changes no verdict.
    /// `empty`: the empty piles, as a bit mask.
    fn generate_runs(
        &self,
        empty: u16,
        by_rank: &[u16; 16],
        by_code: &[u16; 64],
        out: &mut MoveList,
    ) {
        if empty == 0 {
            return;
        }
        let empties = empty.count_ones();
        let cap_parent = 1usize << empties.min(6);
        let cap_empty = 1usize << (empties - 1).min(6);
        let first = Some(empty.trailing_zeros() as usize);
        self.push_runs(first, cap_parent, cap_empty, true, (by_rank, by_code), out);
    }

    /// Run moves under unlimited sequence moves: every ordered run at the top of a pile
    /// moves as one move onto a card its bottom builds on, or into an empty pile (into the
    /// first only with `one_empty_target`; the whole pile into an empty pile only without
    /// `skip_lone_to_empty`, as it reaches the same position).
    /// `empty`: the empty piles, as a bit mask.
    fn generate_sequences(
        &self,
        empty: u16,
        prune: Pruning,
        by_rank: &[u16; 16],
        by_code: &[u16; 64],
        out: &mut MoveList,
    ) {
        let (skip, parents) = (prune.skip_lone_to_empty, (by_rank, by_code));
        if prune.one_empty_target {
            let first = (empty != 0).then(|| empty.trailing_zeros() as usize);
            self.push_runs(first, MAX_PILE, MAX_PILE, skip, parents, out);
            return;
        }
        // Every empty pile as a target: one pass per empty pile.
        self.push_runs(None, MAX_PILE, MAX_PILE, skip, parents, out);
        let mut rest = empty;
        while rest != 0 {
            let e = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            self.push_runs_to_empty(e, MAX_PILE, skip, out);
        }
    }

    /// Pushes run moves of at most `cap_parent` cards onto parents and at most `cap_empty`
    /// into `empty` (if given); `skip_whole`: no whole pile into an empty pile. `parents`:
    /// the piles by their top's rank and by their top card, as [`Position::generate`] made
    /// them.
    fn push_runs(
        &self,
        empty: Option<usize>,
        cap_parent: usize,
        cap_empty: usize,
        skip_whole: bool,
        (by_rank, by_code): (&[u16; 16], &[u16; 64]),
        out: &mut MoveList,
    ) {
        for i in 0..self.n {
            let l = self.len[i] as usize;
            let run = self.top_run(i);
            if run < 2 {
                continue;
            }
            let pile = &self.cards[i][..l];
            // The piles each run card may go on (`parents[k]` for the run of the top `k`
            // cards), then the moves by target pile, then by run length.
            let most = run.min(cap_parent);
            let mut parents = [0u16; MAX_PILE + 1];
            let mut any = 0;
            for k in 2..=most {
                parents[k] = self.parents(pile[l - k], by_rank, by_code, i as u8);
                any |= parents[k];
            }
            while any != 0 {
                let j = any.trailing_zeros() as usize;
                any &= any - 1;
                for (k, &p) in parents.iter().enumerate().take(most + 1).skip(2) {
                    if p >> j & 1 == 1 {
                        out.push(Move {
                            card: pile[l - k],
                            from: i as u8,
                            to: j as u8,
                            count: k as u8,
                        });
                    }
                }
            }
            if let Some(e) = empty {
                for k in 2..=run.min(cap_empty) {
                    if k == l && skip_whole {
                        break; // the whole pile to an empty pile: the same position
                    }
                    out.push(Move {
                        card: pile[l - k],
                        from: i as u8,
                        to: e as u8,
                        count: k as u8,
                    });
                }
            }
        }
    }

    /// Run moves of at most `cap` cards into the empty pile `e`.
    fn push_runs_to_empty(&self, e: usize, cap: usize, skip_whole: bool, out: &mut MoveList) {
        for i in 0..self.n {
            let l = self.len[i] as usize;
            let run = self.top_run(i);
            for k in 2..=run.min(cap) {
                if k == l && skip_whole {
                    break;
                }
                out.push(Move {
                    card: self.cards[i][l - k],
                    from: i as u8,
                    to: e as u8,
                    count: k as u8,
                });
            }
        }
    }

    /// How promising a move looks (higher first). Only the order of the search depends on
    /// it, never a verdict: every generated move is tried.
    ///
    /// Foundation moves come first; then moves that expose a card that can go home or that
    /// empty a pile; moves that dig towards the lowest card of a pile rank above others;
    /// moving a card that already sits on its natural parent (a lateral shuffle) and filling
    /// an empty pile rank last. Cell cards leaving their cell rank high, cards entering a
    /// cell or coming back from the foundations low.
    #[inline]
    fn score(&self, m: Move) -> i32 {
        if m.to == FOUNDATION {
            return 10_000 - i32::from(m.card.rank());
        }
        let mut s = 0;
        if is_tableau(m.from) {
            let from = m.from as usize;
            // Cards left in the source pile after the move.
            let left = self.len[from] as usize - m.count as usize;
            if left == 0 {
                s += 300;
            } else {
                let below = self.cards[from][left - 1];
                if self.fits_foundation(below) {
                    s += 600;
                }
                if self.build.builds_on(m.card, below) {
                    s -= 200;
                }
                // Dig towards the pile's lowest card: the fewer cards above it, the better.
                // (Only when that card is not itself among the cards moved.)
                let at = self.low[from][self.len[from] as usize - 1] as usize;
                if at < left {
                    let depth = left - 1 - at;
                    let rank = self.cards[from][at].rank();
                    s += (i32::from(KING + 1 - rank) * 16) / (depth as i32 + 1);
                }
            }
        } else {
            s += match m.from {
                FOUNDATION => -400,
                STOCK => -50,
                WASTE => 100,
                _ => 250, // a cell
            };
        }
        if is_cell(m.to) {
            s -= 250;
        } else if is_tableau(m.to) && self.len[m.to as usize] == 0 {
            s -= 150;
        }
        s
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
            w.put(u64::from(self.sidx), 7);
            let mut lo = 0;
            while lo < u32::from(self.sidx) {
                let bits = (u32::from(self.sidx) - lo).min(32);
                w.put(((self.wmask >> lo) as u64) & ((1u64 << bits) - 1), bits);
                lo += bits;
            }
        }
        w.finish()
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
    #[inline]
    fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 40 && value >> bits == 0);
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
    use super::*;
    use crate::rules::Variant;

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
    fn every_rule_set() -> impl Iterator<Item = (Variant, crate::rules::Rules)> {
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

    /// `safe_move_after` finds what `safe_move` finds, from every position with no safe move
    /// left (as the search enters them), on random walks of every variant and option, with
    /// the start ranks that make the Beleaguered Castle family's safe moves common.
    #[test]
    fn the_safe_move_after_a_move_is_the_full_scans() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        let (mut checked, mut found) = (0, 0);
        let start_ranks = [None, Some(0), Some(5), Some(9)];
        for (v, rules) in every_rule_set() {
            for start in start_ranks {
                let rules = match start {
                    Some(k) => match rules.with_start_rank(k) {
                        Ok(r) => r,
                        Err(_) => continue, // not of the Beleaguered Castle family
                    },
                    None => rules,
                };
                for seed in 1..=16 {
                    let mut p = Position::new(&Deal::from_seed(rules, seed));
                    let mut list = MoveList::default();
                    let mut hist = Vec::new();
                    for _ in 0..600 {
                        while let Some(m) = p.safe_move() {
                            p.play(m, &mut hist);
                        }
                        p.generate(Pruning::NONE, 0, None, &mut list);
                        if list.is_empty() {
                            break;
                        }
                        let m = list.get(rng.gen_range(0..list.len()));
                        p.play(m, &mut hist);
                        let full = p.safe_move();
                        assert_eq!(p.safe_move_after(m), full, "{v:?} seed {seed}: after {m:?}");
                        checked += 1;
                        found += usize::from(full.is_some());
                    }
                }
            }
        }
        assert!(
            checked > 100_000 && found > 500,
            "{checked} moves, {found} safe moves"
        );
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
