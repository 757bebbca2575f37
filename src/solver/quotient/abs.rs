//! Abstract positions, their moves, and their keys (see "The abstraction" and "The key" in
//! [`super`]).

use super::*;

/// A symbol: rank in the high bits, tag (a fixed card's suit, or [`UNFIXED`]) in the low 3.
#[inline]
pub(super) const fn sym(rank: u8, tag: u8) -> u8 {
    rank << 3 | tag
}

/// Marks a foundation move in [`AMove::to`].
pub(super) const FOUND: u8 = 0xF;
/// Marks "no branch" in [`AMove::bp`].
pub(super) const NO_BRANCH: u8 = 0xF;

/// An abstract move, packed in 32 bits: source pile, target pile (or [`FOUND`]), cards
/// moved, and for a foundation move the suit and the branch (pile and index of the card
/// that becomes fixed, or [`NO_BRANCH`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub(super) struct AMove(u32);

const _: () = assert!(std::mem::size_of::<AMove>() == 4);
const _: () = assert!(MAX_PILES < NO_BRANCH as usize && MAX_PILES < FOUND as usize);

impl AMove {
    #[inline]
    pub(super) fn tableau(from: usize, to: usize, count: usize) -> AMove {
        debug_assert!(from < MAX_PILES && to < MAX_PILES && (1..=CAP).contains(&count));
        AMove(from as u32 | (to as u32) << 4 | (count as u32) << 8)
    }
    #[inline]
    pub(super) fn home(from: usize, suit: u8, bp: u8, bq: u8) -> AMove {
        debug_assert!(from < MAX_PILES && suit < 4 && (bq as usize) < CAP);
        AMove(
            from as u32
                | u32::from(FOUND) << 4
                | 1 << 8
                | u32::from(suit) << 14
                | u32::from(bp) << 16
                | u32::from(bq) << 20,
        )
    }
    #[inline]
    pub(super) fn from(self) -> usize {
        (self.0 & 0xF) as usize
    }
    #[inline]
    pub(super) fn to(self) -> u8 {
        (self.0 >> 4 & 0xF) as u8
    }
    #[inline]
    pub(super) fn count(self) -> usize {
        (self.0 >> 8 & 0x3F) as usize
    }
    #[inline]
    pub(super) fn suit(self) -> u8 {
        (self.0 >> 14 & 3) as u8
    }
    #[inline]
    pub(super) fn bp(self) -> u8 {
        (self.0 >> 16 & 0xF) as u8
    }
    #[inline]
    pub(super) fn bq(self) -> usize {
        (self.0 >> 20 & 0x3F) as usize
    }
    /// The source pile's never-moved count before the move (set by [`Abs::apply`]).
    #[inline]
    pub(super) fn prefix(self) -> u8 {
        (self.0 >> 26) as u8
    }
    #[inline]
    pub(super) fn with_prefix(self, p: u8) -> AMove {
        debug_assert!((p as usize) <= CAP);
        AMove(self.0 & 0x03FF_FFFF | u32::from(p) << 26)
    }
}

/// The abstract position, mutated in place by `apply` / `undo`. Bytes above a pile's length
/// stay zero, so a pile's first eight bytes read as one word compare piles canonically.
#[derive(Clone)]
pub(super) struct Abs {
    pub(super) n: usize,
    pub(super) len: [u8; MAX_PILES],
    pub(super) pile: [[u8; CAP]; MAX_PILES],
    pub(super) f: [u8; 4],
    pub(super) home: u8,
    pub(super) k: u8,
    pub(super) unlimited: bool,
    /// Cards at the bottom of each pile never moved since the deal (pile `i` is where column
    /// `i` was dealt; piles never change places).
    pub(super) prefix: [u8; MAX_PILES],
    /// Where each card was dealt (pile, index), by card code.
    pub(super) dealt_at: [(u8, u8); 64],
    /// The dealt refinement is on.
    pub(super) dealt: bool,
    /// Cards fixed whatever the window ([`QuotientOptions::kept`]).
    pub(super) kept: u64,
}

impl Abs {
    pub(super) fn new(deal: &Deal, k: u8, dealt: bool, kept: u64) -> Result<Abs, Refusal> {
        let r = &deal.rules;
        if r.build != Build::DownAnySuit {
            return Err(Refusal::Build);
        }
        if r.decks != 1 {
            return Err(Refusal::Decks);
        }
        if r.cells > 0 || !deal.reserve.is_empty() {
            return Err(Refusal::Cells);
        }
        if r.stock || !deal.stock.is_empty() || !deal.waste.is_empty() {
            return Err(Refusal::Stock);
        }
        if r.options.foundation_return {
            return Err(Refusal::FoundationReturn);
        }
        if deal.tableau.len() > MAX_PILES || deal.tableau.iter().any(|p| p.len() > CAP) {
            return Err(Refusal::TooLarge);
        }
        let k = k.clamp(1, KING);
        let mut f = [0u8; 4];
        f.copy_from_slice(&deal.foundations[..4]);
        let mut a = Abs {
            n: deal.tableau.len(),
            len: [0; MAX_PILES],
            pile: [[0; CAP]; MAX_PILES],
            f,
            home: f.iter().sum(),
            k,
            unlimited: r.options.sequence_moves == SequenceMoves::Unlimited,
            prefix: [0; MAX_PILES],
            dealt_at: [(NO_BRANCH, 0); 64],
            dealt,
            kept,
        };
        for (i, p) in deal.tableau.iter().enumerate() {
            for (q, c) in p.iter().enumerate() {
                a.pile[i][q] = a.symbol_of(c.rank(), c.suit_index() as u8);
                a.dealt_at[c.code() as usize] = (i as u8, q as u8);
            }
            a.len[i] = p.len() as u8;
            a.prefix[i] = p.len() as u8;
        }
        Ok(a)
    }

    /// The symbol of card `(suit, rank)` (not home) in this position.
    pub(super) fn symbol_of(&self, rank: u8, suit: u8) -> u8 {
        let f = self.f[suit as usize];
        if f < rank && (rank <= f + self.k || kept(self.kept, rank, suit)) {
            sym(rank, suit)
        } else {
            sym(rank, UNFIXED)
        }
    }

    #[inline]
    pub(super) fn top(&self, i: usize) -> u8 {
        let l = self.len[i] as usize;
        if l == 0 {
            0
        } else {
            self.pile[i][l - 1]
        }
    }

    #[inline]
    pub(super) fn won(&self) -> bool {
        self.home == 4 * KING
    }

    /// True if the top card of pile `i` fits its foundation (it is then fixed).
    #[inline]
    pub(super) fn fits(&self, c: u8) -> bool {
        let tag = c & 7;
        tag < UNFIXED && self.f[tag as usize] + 1 == c >> 3
    }

    /// The pile whose top card may go home at once (see "Safe autoplay" in the module docs).
    #[inline]
    pub(super) fn safe_pile(&self) -> Option<usize> {
        let low = *self.f.iter().min().expect("four foundations");
        (0..self.n).find(|&i| {
            let c = self.top(i);
            c != 0 && self.fits(c) && c >> 3 <= low + 2
        })
    }

    /// Pushes the foundation move of pile `i`'s top card (which fits), one per branch.
    ///
    /// # Errors
    /// A broken invariant (see [`Broken`]): the card entering the window is not where the
    /// abstraction says it must be. Dropping the move instead would drop every position behind
    /// it, and a `Lost` would then prove nothing.
    #[inline]
    pub(super) fn push_home(&self, i: usize, out: &mut Vec<AMove>) -> Result<(), Broken> {
        let c = self.top(i);
        let (rank, suit) = (c >> 3, c & 7);
        let r = rank + self.k;
        // Past the king, or a kept card (fixed already): nothing enters the window unknown.
        if r > KING || kept(self.kept, r, suit) {
            out.push(AMove::home(i, suit, NO_BRANCH, 0));
            return Ok(());
        }
        let want = sym(r, UNFIXED);
        if self.dealt {
            // Never moved: the card is where it was dealt, the one branch.
            let (p, q) = self.dealt_at[usize::from(r) * 4 + usize::from(suit)];
            if p != NO_BRANCH && q < self.prefix[p as usize] {
                if self.pile[p as usize][q as usize] != want {
                    return Err(Broken::DealtPlace);
                }
                out.push(AMove::home(i, suit, p, q));
                return Ok(());
            }
        }
        let before = out.len();
        for p in 0..self.n {
            // With the refinement, a card moved: not one in a pile's never-moved bottom.
            let from = if self.dealt {
                self.prefix[p] as usize
            } else {
                0
            };
            for q in from..self.len[p] as usize {
                if self.pile[p][q] == want {
                    out.push(AMove::home(i, suit, p as u8, q as u8));
                }
            }
        }
        if out.len() == before {
            return Err(Broken::NoBranch);
        }
        Ok(())
    }

    /// Pushes every move of a position with no safe move. `last`: the pile whose single-card
    /// moves the no-repeat rule leaves out.
    ///
    /// # Errors
    /// A broken invariant met by a foundation move ([`Abs::push_home`]).
    pub(super) fn generate(&self, last: Option<usize>, out: &mut Vec<AMove>) -> Result<(), Broken> {
        let n = self.n;
        let mut by_rank = [0u16; 16];
        let mut first_empty = None;
        for i in 0..n {
            let c = self.top(i);
            if c == 0 {
                first_empty.get_or_insert(i);
                continue;
            }
            by_rank[(c >> 3) as usize] |= 1 << i;
            if self.fits(c) && last != Some(i) {
                self.push_home(i, out)?;
            }
        }
        for i in 0..n {
            let c = self.top(i);
            if c == 0 || last == Some(i) {
                continue;
            }
            let mut parents = by_rank[(c >> 3) as usize + 1] & !(1 << i);
            while parents != 0 {
                let j = parents.trailing_zeros() as usize;
                parents &= parents - 1;
                out.push(AMove::tableau(i, j, 1));
            }
        }
        if let Some(e) = first_empty {
            for i in 0..n {
                if self.len[i] > 1 && last != Some(i) {
                    out.push(AMove::tableau(i, e, 1));
                }
            }
        }
        if self.unlimited {
            for i in 0..n {
                let l = self.len[i] as usize;
                let p = &self.pile[i];
                let mut c = 2;
                while c <= l && p[l - c] >> 3 == (p[l - c + 1] >> 3) + 1 {
                    let bottom = p[l - c] >> 3;
                    let mut parents = by_rank[bottom as usize + 1] & !(1 << i);
                    while parents != 0 {
                        let j = parents.trailing_zeros() as usize;
                        parents &= parents - 1;
                        out.push(AMove::tableau(i, j, c));
                    }
                    if let Some(e) = first_empty {
                        if c < l {
                            out.push(AMove::tableau(i, e, c));
                        }
                    }
                    c += 1;
                }
            }
        }
        Ok(())
    }

    /// Plays `m` and returns it with the source pile's never-moved count before the move
    /// (which `undo` restores).
    #[inline]
    pub(super) fn apply(&mut self, m: AMove) -> AMove {
        let from = m.from();
        let m = m.with_prefix(self.prefix[from]);
        let left = self.len[from] as usize - m.count();
        if (self.prefix[from] as usize) > left {
            self.prefix[from] = left as u8;
        }
        if m.to() == FOUND {
            let l = self.len[from] as usize - 1;
            debug_assert!(self.fits(self.pile[from][l]));
            self.pile[from][l] = 0;
            self.len[from] = l as u8;
            let s = m.suit();
            self.f[s as usize] += 1;
            self.home += 1;
            if m.bp() != NO_BRANCH {
                let cell = &mut self.pile[m.bp() as usize][m.bq()];
                debug_assert_eq!(*cell & 7, UNFIXED);
                *cell = *cell & !7 | s;
            }
        } else {
            let to = m.to() as usize;
            let c = m.count();
            let (lf, lt) = (self.len[from] as usize, self.len[to] as usize);
            for q in 0..c {
                self.pile[to][lt + q] = self.pile[from][lf - c + q];
                self.pile[from][lf - c + q] = 0;
            }
            self.len[from] = (lf - c) as u8;
            self.len[to] = (lt + c) as u8;
        }
        m
    }

    /// Takes back a move as [`Abs::apply`] returned it.
    #[inline]
    pub(super) fn undo(&mut self, m: AMove) {
        let from = m.from();
        self.prefix[from] = m.prefix();
        if m.to() == FOUND {
            let s = m.suit();
            if m.bp() != NO_BRANCH {
                let cell = &mut self.pile[m.bp() as usize][m.bq()];
                *cell = *cell & !7 | UNFIXED;
            }
            let rank = self.f[s as usize];
            self.f[s as usize] -= 1;
            self.home -= 1;
            let l = self.len[from] as usize;
            self.pile[from][l] = sym(rank, s);
            self.len[from] += 1;
        } else {
            let to = m.to() as usize;
            let c = m.count();
            let (lf, lt) = (self.len[from] as usize, self.len[to] as usize);
            for q in 0..c {
                self.pile[from][lf + q] = self.pile[to][lt - c + q];
                self.pile[to][lt - c + q] = 0;
            }
            self.len[from] = (lf + c) as u8;
            self.len[to] = (lt - c) as u8;
        }
    }
}

/// The code of every symbol under the foundations `f` (see "The key" in the module docs):
/// `(value, bits)` with the rank in the value's high part.
pub(super) struct Codes {
    pub(super) f: [u8; 4],
    pub(super) code: [(u32, u32); 128],
}

impl Codes {
    pub(super) fn new() -> Codes {
        Codes {
            f: [0xFF; 4],
            code: [(0, 0); 128],
        }
    }

    #[inline]
    pub(super) fn update(&mut self, f: [u8; 4], k: u8, kept_cards: u64) {
        if f == self.f {
            return;
        }
        self.f = f;
        let fixed = |s: u8, r: u8| {
            let h = f[s as usize];
            h < r && (r <= h + k || kept(kept_cards, r, s))
        };
        for r in 1..=KING {
            let mut options = 0u32;
            let mut index = [0u32; 5];
            for s in 0..4u8 {
                if fixed(s, r) {
                    index[s as usize] = options;
                    options += 1;
                }
            }
            let unfixed = (0..4u8).any(|s| f[s as usize] + k < r && !kept(kept_cards, r, s));
            index[UNFIXED as usize] = options;
            if unfixed {
                options += 1;
            }
            let bits = 32 - options.saturating_sub(1).leading_zeros();
            for tag in 0..5u8 {
                // A symbol no position under `f` can hold (a suit not fixed at this rank, or
                // "unfixed" where every card is fixed) gets a value too wide for its field:
                // `Bits::put` flags it, and the key is refused (see `Broken::Code`).
                let valid = if tag == UNFIXED {
                    unfixed
                } else {
                    fixed(tag, r)
                };
                self.code[sym(r, tag) as usize] = if valid {
                    (u32::from(r) << bits | index[tag as usize], 4 + bits)
                } else {
                    (u32::MAX, 4 + bits)
                };
            }
        }
    }
}

/// Writes bits most significant first into a fixed buffer.
pub(super) struct Bits {
    pub(super) words: [u64; LONG_WORDS + 1],
    pub(super) at: usize,
    pub(super) acc: u64,
    pub(super) used: u32,
    /// A value wider than its field was put: its high bits would have run into the field
    /// before and merged two positions' keys (see `Broken::Code`).
    pub(super) wide: bool,
}

impl Bits {
    #[inline]
    pub(super) fn new() -> Bits {
        Bits {
            words: [0; LONG_WORDS + 1],
            at: 0,
            acc: 0,
            used: 0,
            wide: false,
        }
    }

    /// Puts the low `bits` (at most 32) of `value`; a `value` with more bits set marks the
    /// key as broken ([`Bits::finish`]), in every build.
    #[inline]
    pub(super) fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 32);
        self.wide |= value >> bits != 0;
        let value = value & ((1u64 << bits) - 1);
        if self.used + bits <= 64 {
            self.acc = if bits == 0 {
                self.acc
            } else {
                self.acc << bits | value
            };
            self.used += bits;
        } else {
            let fit = 64 - self.used;
            let rest = bits - fit;
            let head = value >> rest;
            self.words[self.at] = if fit == 0 {
                self.acc
            } else {
                self.acc << fit | head
            };
            self.at += 1;
            self.acc = value & ((1u64 << rest) - 1);
            self.used = rest;
        }
    }

    /// The words and the number of bits written.
    ///
    /// # Errors
    /// [`Broken::Code`] if a value was wider than its field.
    #[inline]
    pub(super) fn finish(mut self) -> Result<([u64; LONG_WORDS + 1], usize), Broken> {
        if self.wide {
            return Err(Broken::Code);
        }
        let bits = self.at * 64 + self.used as usize;
        if self.used > 0 {
            self.words[self.at] = self.acc << (64 - self.used);
        }
        Ok((self.words, bits))
    }
}

/// The position's key: its words and its length in bits.
///
/// # Errors
/// [`Broken::Code`]: a symbol the foundations do not allow, whose code would merge keys.
#[inline]
pub(super) fn key_of(a: &Abs, codes: &mut Codes) -> Result<([u64; LONG_WORDS + 1], usize), Broken> {
    codes.update(a.f, a.k, a.kept);
    let n = a.n;
    // Piles sorted by (length, cards): the first eight bytes as one word decide almost
    // every comparison.
    let mut head = [0u64; MAX_PILES];
    let mut order = [0u8; MAX_PILES];
    let mut free = 0;
    for i in 0..n {
        if a.dealt && a.prefix[i] > 0 {
            continue;
        }
        let b: [u8; 8] = a.pile[i][..8].try_into().expect("eight bytes");
        head[i] = u64::from(a.len[i]) << 56 | u64::from_be_bytes(b) >> 8;
        let mut at = free;
        while at > 0 && Search::less(a, &head, i, order[at - 1] as usize) {
            order[at] = order[at - 1];
            at -= 1;
        }
        order[at] = i as u8;
        free += 1;
    }
    let mut w = Bits::new();
    w.put(1, 1);
    for s in 0..4 {
        w.put(u64::from(a.f[s]), 4);
    }
    if a.dealt {
        // Each column's never-moved count, then what lies on it (see the module docs).
        for i in 0..n {
            w.put(u64::from(a.prefix[i]), 6);
        }
        for i in 0..n {
            let p = a.prefix[i] as usize;
            if p == 0 {
                continue;
            }
            let l = a.len[i] as usize;
            w.put((l - p) as u64, 6);
            for &c in &a.pile[i][p..l] {
                let (v, b) = codes.code[c as usize];
                w.put(u64::from(v), b);
            }
        }
    }
    let mut prev = 0;
    for &i in &order[..free] {
        let l = u32::from(a.len[i as usize]);
        // `l - prev` zeros, then a one (at most 52 zeros: two puts).
        let gap = l - prev;
        if gap > 31 {
            w.put(0, gap - 31);
            w.put(1, 32);
        } else {
            w.put(1, gap + 1);
        }
        prev = l;
    }
    for &i in &order[..free] {
        let i = i as usize;
        for &c in &a.pile[i][..a.len[i] as usize] {
            let (v, b) = codes.code[c as usize];
            w.put(u64::from(v), b);
        }
    }
    w.finish()
}
