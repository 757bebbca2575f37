//! The search's position: fixed arrays mutated in place by `apply` / `undo`, with the
//! bookkeeping that makes the state key cheap, exact and independent of pile order.
//!
//! # The state key
//! A position of this family is fully described *relative to its deal*:
//! - a tableau card only ever leaves from the top, and only arrives on top, so every pile is
//!   either a *column pile* — a bottom run that is still exactly the first `prefix` cards dealt
//!   to some column `j` — or a *refilled pile* that was emptied and restarted with a base card;
//! - every card above that bottom part was placed there by the build rule, so (down regardless
//!   of suit) its rank is one less than the card below and only its suit needs storing: 2 bits.
//!
//! The key is: for each dealt column `j` in order, the prefix length of the pile that holds
//! column `j`'s bottom card (0 if none), then that pile's run length (4 bits) and run suits;
//! then the refilled piles sorted by base card, each as base (6 bits), run length and suits.
//! Foundations are not stored: they hold exactly the cards missing from the tableau.
//! Decoding this bit string gives back every pile's cards, so two different positions never
//! share a key (no collision can make the search call a winnable deal lost), while positions
//! that differ only by which physical pile is where do share one: the column a pile belongs to
//! is read from its bottom card, never from its physical index.
//!
//! Per move the bookkeeping (`col`, `prefix`, `run`) changes in O(1); a node assembles the key
//! from the per-pile descriptors in O(piles) without looking at the cards.

use crate::card::{Card, Suit, KING};
use crate::deal::{Deal, MAX_PILE};
use crate::moves::{Move, MoveList, FOUNDATION};
use crate::rules::Build;

/// Most tableau piles any variant uses.
pub const MAX_PILES: usize = 12;
const NONE: u8 = 0xFF;

/// Bits in the key for one pile's run length (a run descends by one rank, so <= 12 cards).
const RUN_LEN_BITS: u32 = 4;
/// Bits for a refilled pile's base card (a packed card code, never zero).
const BASE_BITS: u32 = 6;

/// Which safe reductions the move generator applies. Each is exact (see the comments at each
/// use); the switches exist so tests can prove that by solving with them on and off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pruning {
    /// Play cards to the foundations at once when no win can need them on the tableau.
    pub safe_autoplay: bool,
    /// Never move a card that is alone in its pile to an empty pile.
    pub skip_lone_to_empty: bool,
    /// Of several empty piles, offer only the first as a destination.
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
    found: [u8; 4],
    home: u8,
    total: u8,
    build: Build,
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
    // What was dealt (fixed for the search).
    dealt: [[Card; MAX_PILE]; MAX_PILES],
    dealt_len: [u8; MAX_PILES],
    bottom_of: [u8; Card::CODES],
    prefix_bits: u32,
}

impl Position {
    /// The position of a validated deal, before any move.
    pub fn new(deal: &Deal) -> Position {
        let filler = Card::new(1, Suit::Clubs);
        let n = deal.tableau.len();
        assert!(n <= MAX_PILES, "at most {MAX_PILES} piles");
        let mut p = Position {
            n,
            len: [0; MAX_PILES],
            cards: [[filler; MAX_PILE]; MAX_PILES],
            found: deal.foundations,
            home: deal.cards_home() as u8,
            total: 52,
            build: deal.rules.build,
            col: [NONE; MAX_PILES],
            prefix: [0; MAX_PILES],
            run: [0; MAX_PILES],
            low: [[0; MAX_PILE]; MAX_PILES],
            frag: [0; MAX_PILES],
            frag_bits: [0; MAX_PILES],
            slot_of_col: [NONE; MAX_PILES],
            dealt: [[filler; MAX_PILE]; MAX_PILES],
            dealt_len: [0; MAX_PILES],
            bottom_of: [NONE; Card::CODES],
            prefix_bits: 0,
        };
        let mut max_len = 0;
        for (i, pile) in deal.tableau.iter().enumerate() {
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

    /// Recomputes pile `i`'s key field from its descriptors: for a column pile the prefix
    /// length, run length and run suits; for a refilled pile its base card, run length and
    /// run suits (see the module docs).
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
        let run_bits = 2 * u32::from(run);
        self.frag[i] = (head << RUN_LEN_BITS | u64::from(run)) << run_bits | u64::from(self.run[i]);
        self.frag_bits[i] = (head_bits + RUN_LEN_BITS + run_bits) as u8;
    }

    /// Upper bound on the key's length in bits for this deal (see the module docs): each pile
    /// costs at most its prefix field plus, as a refilled pile, base and run length (10 bits),
    /// minus the 2 bits its base would have cost as a run card; each card 2 bits.
    pub fn key_bits_bound(&self) -> u32 {
        let cards = u32::from(self.total - self.home);
        self.n as u32 * (self.prefix_bits + RUN_LEN_BITS + BASE_BITS - 2) + 2 * cards
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

    /// Foundation height of each suit (C, D, H, S).
    #[inline]
    pub fn foundations(&self) -> [u8; 4] {
        self.found
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

    #[inline]
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
                self.run[i] = (self.run[i] << 2) | c.suit() as u32;
            }
        }
        self.refresh(i);
    }

    #[inline]
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
            self.prefix[i] = 0;
            self.run[i] = 0;
        } else if self.col[i] != NONE && self.prefix[i] as usize == l {
            self.prefix[i] -= 1;
        } else {
            self.run[i] >>= 2;
        }
        self.refresh(i);
        c
    }

    /// Plays a move that the search generated, appending the single-card moves it consists
    /// of to `hist` (a run move becomes the chain of single moves that carries it through the
    /// empty piles).
    #[inline]
    pub fn play(&mut self, m: Move, hist: &mut Vec<Move>) {
        if m.count <= 1 {
            self.apply(m);
            hist.push(m);
            return;
        }
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

    /// Plays a single-card move that the search generated (no legality check beyond debug
    /// asserts).
    #[inline]
    pub fn apply(&mut self, m: Move) {
        debug_assert_eq!(m.count, 1);
        let c = self.pop(m.from as usize);
        debug_assert_eq!(c, m.card);
        if m.to == FOUNDATION {
            debug_assert_eq!(self.found[c.suit().index()] + 1, c.rank());
            self.found[c.suit().index()] += 1;
            self.home += 1;
        } else {
            self.push(m.to as usize, c);
        }
    }

    /// Takes back a move made by [`Position::apply`].
    #[inline]
    pub fn undo(&mut self, m: Move) {
        if m.to == FOUNDATION {
            self.found[m.card.suit().index()] -= 1;
            self.home -= 1;
        } else {
            let c = self.pop(m.to as usize);
            debug_assert_eq!(c, m.card);
        }
        self.push(m.from as usize, m.card);
    }

    #[inline]
    fn fits_foundation(&self, c: Card) -> bool {
        self.found[c.suit().index()] + 1 == c.rank()
    }

    /// A move to the foundations that no win can regret, if one exists.
    ///
    /// Why it cannot lose a win (build down regardless of suit, no foundation return): let `c`
    /// of rank `r` fit its foundation while every foundation already holds rank `r-2` (so
    /// every card of rank `r-2` or lower is home for good). On the tableau `c` can only ever
    /// serve as the parent of a card `x` of rank `r-1`; such an `x` fits its own foundation
    /// (which stands at `r-2`) and nothing can ever be built on `x` (its children, rank `r-2`,
    /// are home). Take any winning line from here; delete every move of `c` until `c` goes
    /// home, and turn every move of some `x` onto `c` into `x` going home, deleting that
    /// `x`'s later moves until its own foundation move. The tableau of the new line is always
    /// the old one minus cards that had nothing on them, so every card the old line moves is
    /// still on top where it was, every pile it fills is still empty or shows the same card,
    /// and every foundation move is still in order: the new line wins from the position after
    /// `c` goes home. (This is Horne's rule for this build; fc-solve's `-sp r:tf` uses it.)
    #[inline]
    pub fn safe_move(&self) -> Option<Move> {
        let min = *self.found.iter().min().unwrap_or(&0);
        for i in 0..self.n {
            if let Some(c) = self.top(i) {
                if c.rank() <= min + 2 && self.fits_foundation(c) {
                    return Some(Move::single(c, i as u8, FOUNDATION));
                }
            }
        }
        None
    }

    /// Writes every legal move (after the reductions switched on in `prune`) into `out`, in
    /// the order the search tries them: foundation moves, moves onto other cards, moves to an
    /// empty pile. The order is a heuristic only; the search tries all of them.
    ///
    /// `jitter` (0 for none) perturbs the heuristic order pseudo-randomly, so that restarted
    /// searches try different lines first; foundation moves stay first.
    ///
    /// `last` is the card the move into this position carried, if that was a single move to
    /// the tableau and no automatic move followed it. With `no_repeat` that card's single
    /// moves are not generated: a line `c: A -> B` then `c: B -> C` reaches exactly the
    /// position that `c: A -> C` reaches from the parent (the parent itself when `C` is `A`),
    /// and the parent generates that move too (or its equivalent under the empty-pile
    /// reductions); with no automatic move between, the two positions are identical card for
    /// card, and a foundation move of `c` here is the parent's own foundation move of `c`.
    /// So these moves only reach positions the parent's other moves reach.
    pub fn generate(&self, prune: Pruning, jitter: u64, last: Option<Card>, out: &mut MoveList) {
        out.clear();
        let skip = if prune.no_repeat { last } else { None };
        let n = self.n;
        let mut first_empty = None;
        for i in 0..n {
            if self.len[i] == 0 && first_empty.is_none() {
                first_empty = Some(i);
            }
        }
        for i in 0..n {
            if let Some(c) = self.top(i) {
                if self.fits_foundation(c) && skip != Some(c) {
                    out.push(Move::single(c, i as u8, FOUNDATION));
                }
            }
        }
        // Piles by the rank of their top card, so each card finds its parents at once.
        let mut by_rank = [0u16; KING as usize + 2];
        for i in 0..n {
            if let Some(t) = self.top(i) {
                by_rank[t.rank() as usize] |= 1 << i;
            }
        }
        for i in 0..n {
            let Some(c) = self.top(i) else { continue };
            if skip == Some(c) {
                continue;
            }
            let mut parents = match self.build {
                Build::DownAnySuit => by_rank[c.rank() as usize + 1] & !(1 << i),
            };
            while parents != 0 {
                let j = parents.trailing_zeros();
                parents &= parents - 1;
                out.push(Move::single(c, i as u8, j as u8));
            }
        }
        for i in 0..n {
            let Some(c) = self.top(i) else { continue };
            if skip == Some(c) {
                continue;
            }
            // A card alone in its pile moved to an empty pile gives the same position up to
            // pile order, which the key ignores: nothing new can be reached that way.
            if prune.skip_lone_to_empty && self.len[i] == 1 {
                continue;
            }
            if prune.one_empty_target {
                // All empty piles are alike (the key ignores pile order), so the positions
                // reached by moving a card to any of them are one and the same.
                if let Some(e) = first_empty {
                    out.push(Move::single(c, i as u8, e as u8));
                }
            } else {
                for e in 0..n {
                    if self.len[e] == 0 {
                        out.push(Move::single(c, i as u8, e as u8));
                    }
                }
            }
        }
        if prune.run_moves {
            self.generate_runs(first_empty, out);
        }
        if prune.order_moves {
            for k in 0..out.len() {
                let m = out.as_slice()[k];
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
    }

    /// Run moves: the top `k >= 2` cards of a pile, a descending run, onto a card one rank
    /// above the run's bottom or into an empty pile, when enough other piles are empty to
    /// carry it (`2^e` cards with `e` spare empty piles). Each is a chain of legal single
    /// moves, so adding them changes no verdict.
    fn generate_runs(&self, first_empty: Option<usize>, out: &mut MoveList) {
        let empties = (0..self.n).filter(|&i| self.len[i] == 0).count() as u32;
        if empties == 0 {
            return;
        }
        for i in 0..self.n {
            let l = self.len[i] as usize;
            if l < 2 {
                continue;
            }
            let pile = &self.cards[i][..l];
            let mut run = 1;
            while run < l && pile[l - run - 1].rank() == pile[l - run].rank() + 1 {
                run += 1;
            }
            if run < 2 {
                continue;
            }
            let top_rank = pile[l - 1].rank();
            let cap_parent = 1usize << empties.min(6);
            for j in 0..self.n {
                if j == i || self.len[j] == 0 {
                    continue;
                }
                let t = self.cards[j][self.len[j] as usize - 1].rank();
                if t <= top_rank {
                    continue;
                }
                let k = usize::from(t - top_rank);
                if (2..=run.min(cap_parent)).contains(&k) {
                    out.push(Move {
                        card: pile[l - k],
                        from: i as u8,
                        to: j as u8,
                        count: k as u8,
                    });
                }
            }
            if let Some(e) = first_empty {
                let cap_empty = 1usize << (empties - 1).min(6);
                for k in 2..=run.min(cap_empty) {
                    if k == l {
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

    /// How promising a move looks (higher first). Only the order of the search depends on
    /// it, never a verdict: every generated move is tried.
    ///
    /// Foundation moves come first; then moves that expose a card that can go home or that
    /// empty a pile; moves that dig towards the lowest card of a pile rank above others;
    /// moving a card that already sits on its natural parent (a lateral shuffle) and filling
    /// an empty pile rank last.
    #[inline]
    fn score(&self, m: Move) -> i32 {
        if m.to == FOUNDATION {
            return 10_000 - i32::from(m.card.rank());
        }
        let from = m.from as usize;
        // Cards left in the source pile after the move.
        let left = self.len[from] as usize - m.count as usize;
        let mut s = 0;
        if left == 0 {
            s += 300;
        } else {
            let below = self.cards[from][left - 1];
            if self.fits_foundation(below) {
                s += 600;
            }
            if below.rank() == m.card.rank() + 1 {
                s -= 200;
            }
            // Dig towards the pile's lowest card: the fewer cards above it, the better. (Only
            // when that card is not itself among the cards moved.)
            let at = self.low[from][self.len[from] as usize - 1] as usize;
            if at < left {
                let depth = left - 1 - at;
                let rank = self.cards[from][at].rank();
                s += (i32::from(KING + 1 - rank) * 16) / (depth as i32 + 1);
            }
        }
        if self.len[m.to as usize] == 0 {
            s -= 150;
        }
        s
    }

    /// The exact, pile-order-independent key of this position (see the module docs), in `W`
    /// 64-bit words. Returns `None` if it does not fit; [`Position::key_bits_bound`] tells
    /// in advance which `W` is always enough.
    #[inline]
    pub fn key<const W: usize>(&self) -> Option<[u64; W]> {
        let mut w = BitWriter::<W>::default();
        for j in 0..self.n {
            let p = self.slot_of_col[j];
            if p == NONE {
                w.put(0, self.prefix_bits);
            } else {
                w.put(self.frag[p as usize], u32::from(self.frag_bits[p as usize]));
            }
        }
        // Refilled piles, sorted by base card (insertion sort of at most 12 entries).
        let mut bases = [(0u8, 0u8); MAX_PILES];
        let mut k = 0;
        for i in 0..self.n {
            if self.len[i] > 0 && self.col[i] == NONE {
                let b = self.cards[i][0].code();
                let mut at = k;
                while at > 0 && bases[at - 1].0 > b {
                    bases[at] = bases[at - 1];
                    at -= 1;
                }
                bases[at] = (b, i as u8);
                k += 1;
            }
        }
        for &(_, i) in &bases[..k] {
            w.put(self.frag[i as usize], u32::from(self.frag_bits[i as usize]));
        }
        w.finish()
    }

    /// The cards of every pile as owned vectors (for output and tests).
    pub fn tableau(&self) -> Vec<Vec<Card>> {
        (0..self.n).map(|i| self.pile(i).to_vec()).collect()
    }
}

/// Packs bit fields most-significant first into `W` words. Fields are at most 40 bits;
/// they collect in a 128-bit accumulator that hands over whole words.
struct BitWriter<const W: usize> {
    words: [u64; W],
    acc: u128,
    pending: u32,
    full: usize,
    overflow: bool,
}

impl<const W: usize> Default for BitWriter<W> {
    fn default() -> Self {
        BitWriter {
            words: [0; W],
            acc: 0,
            pending: 0,
            full: 0,
            overflow: false,
        }
    }
}

impl<const W: usize> BitWriter<W> {
    #[inline]
    fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 40 && (bits == 0 || value >> bits == 0));
        self.acc = (self.acc << bits) | u128::from(value);
        self.pending += bits;
        if self.pending >= 64 {
            self.pending -= 64;
            if self.full < W {
                self.words[self.full] = (self.acc >> self.pending) as u64;
            } else {
                self.overflow = true;
            }
            self.full += 1;
            self.acc &= (1u128 << self.pending) - 1;
        }
    }

    #[inline]
    fn finish(mut self) -> Option<[u64; W]> {
        if self.pending > 0 {
            if self.full < W {
                self.words[self.full] = (self.acc << (64 - self.pending)) as u64;
            } else {
                self.overflow = true;
            }
        }
        (!self.overflow).then_some(self.words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    /// The multiset of piles as sorted card lists, and the foundations.
    type SlowKey = (Vec<Vec<u8>>, [u8; 4]);

    /// Reference key: the multiset of piles as sorted card lists (slow, obviously
    /// order-independent).
    fn slow_key(p: &Position) -> SlowKey {
        let mut piles: Vec<Vec<u8>> = (0..p.piles())
            .map(|i| p.pile(i).iter().map(|c| c.code()).collect())
            .filter(|v: &Vec<u8>| !v.is_empty())
            .collect();
        piles.sort();
        (piles, p.foundations())
    }

    /// Random walks: the packed key equals for equal positions and differs for different
    /// ones, the bookkeeping survives undo, and the key bound holds.
    #[test]
    fn packed_key_agrees_with_the_slow_key_on_random_walks() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(99);
        let mut seen: std::collections::HashMap<[u64; 3], SlowKey> = Default::default();
        let mut canon: std::collections::HashMap<SlowKey, [u64; 3]> = Default::default();
        for v in Variant::ALL {
            for seed in 1..=30 {
                let deal = Deal::from_seed(v.rules(), seed);
                let mut p = Position::new(&deal);
                assert!(p.key_bits_bound() <= 192);
                let start_key = p.key::<3>().unwrap();
                let mut hist = Vec::new();
                let mut list = MoveList::default();
                for _ in 0..2000 {
                    p.generate(Pruning::NONE, 0, None, &mut list);
                    if list.is_empty() {
                        break;
                    }
                    let m = list.as_slice()[rng.gen_range(0..list.len())];
                    p.apply(m);
                    hist.push(m);
                    let k = p.key::<3>().unwrap();
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
                assert_eq!(p.key::<3>().unwrap(), start_key);
                assert_eq!(p.tableau(), deal.tableau);
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
