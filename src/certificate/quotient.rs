//! The quotient kind: members are positions of the suit-blind abstraction, with the checker's
//! own definition of it, its moves and its branches. Nothing here comes from the search.
//!
//! # The abstraction
//! The game builds down regardless of suit, with one deck, no cells, no stock and no
//! foundation return (beleaguered-castle, streets-and-alleys, citadel, any start rank, single
//! or unlimited sequence moves). Fix the window `k`. With `f[s]` the height of suit `s`'s
//! foundation, a card `(r, s)` not home is *fixed* when `f[s] < r <= f[s] + k`. The abstract
//! position `α(c)` of a position `c` keeps the foundations, every fixed card with its suit,
//! and every other card as its rank only (a *symbol*: `rank << 3 | tag`, the tag the suit
//! 0..4 of a fixed card, 4 for a card known by its rank). With the dealt refinement it also
//! keeps, for each pile `i` of the deal, how many cards at its bottom have never moved since
//! the deal (`p[i]`): those are the first `p[i]` cards dealt to pile `i`, so they keep their
//! suits (their symbols follow from the deal and the foundations), and piles with no such
//! card are interchangeable; without the refinement every pile is.
//!
//! A certificate may also name *kept* cards: each is fixed whatever the window (fixed when
//! `f[s] < r`), the refinement the solver reaches by keeping the cards its false wins got
//! wrong. The argument below holds unchanged: a kept card entering the window is fixed
//! already, at its place, and nothing branches.
//!
//! # The moves (the abstract image of every move of the game)
//! - A pile's top card (under unlimited sequence moves, or a run on top ordered by rank)
//!   onto a pile whose top is one rank above its bottom card, or into an empty pile. Moves
//!   on the tableau read ranks only, so these are exactly the moves of every `c` with
//!   `α(c) = a`. The source's never-moved count drops to the cards left below.
//! - A fixed card `(f[s] + 1, s)` on a pile top goes home; then `(f[s] + k, s)` (new `f[s]`),
//!   if it is a card, enters the window. It is not home and was not fixed, so it is on the
//!   tableau: with the refinement, at its dealt place if that place is still in its pile's
//!   never-moved part (one successor); otherwise among the cards of its rank known by rank
//!   only (outside the never-moved parts, with the refinement): one successor per such card,
//!   giving it the suit `s`. The real card is one of them, so `α` of the real successor is
//!   among them.
//!
//! So every line of the game has its image here, and a set of abstract positions closed
//! under these moves that holds the deal's image and no won position proves the deal lost.
//! With safe autoplay (the abstract form of Horne's rule: a fixed card `(r, s)` with
//! `r = f[s] + 1` on a pile top goes home at once when every foundation holds `r - 2`) the
//! argument is the induction in `docs/design.md`, "Certified losses".

use super::{Game, Malformed, Start, MAX_PILES};
use std::fmt::Write as _;

/// Most cards in one pile (a whole deck).
pub const CAP: usize = 52;
/// The tag of a card known by its rank only.
pub const UNFIXED: u8 = 4;

/// An abstract position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct APos {
    /// Cards in each pile.
    pub len: [u8; MAX_PILES],
    /// Each pile's symbols, bottom to top (`rank << 3 | tag`).
    pub piles: [[u8; CAP]; MAX_PILES],
    /// Cards at the bottom of each pile never moved since the deal (0 without the dealt
    /// refinement). Pile `i` is where column `i` was dealt.
    pub unmoved: [u8; MAX_PILES],
    /// Foundation heights by suit.
    pub found: [u8; 4],
}

/// A move of the abstract game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AStep {
    /// Source pile.
    pub from: u8,
    /// Target pile, or `None` for the foundations.
    pub to: Option<u8>,
    /// Cards moved.
    pub count: u8,
}

impl std::fmt::Display for AStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.to {
            Some(j) => write!(f, "t{} -> t{}", self.from + 1, j + 1)?,
            None => write!(f, "t{} -> f", self.from + 1)?,
        }
        if self.count > 1 {
            write!(f, " ({} cards)", self.count)?;
        }
        Ok(())
    }
}

#[inline]
fn rank(sym: u8) -> u8 {
    sym >> 3
}

#[inline]
fn tag(sym: u8) -> u8 {
    sym & 7
}

/// The abstraction of one deal: the window, the switches and the deal's columns.
#[derive(Clone, Debug)]
pub struct Quotient {
    k: u8,
    dealt: bool,
    /// Cards fixed whatever the window: bit `rank * 4 + suit`.
    kept: u64,
    autoplay: bool,
    unlimited: bool,
    n: usize,
    /// The cards dealt to each pile (bytes `rank * 4 + suit`).
    deal: [[u8; CAP]; MAX_PILES],
    deal_len: [u8; MAX_PILES],
    /// Where each card was dealt, by card byte: (pile, index), or `None`.
    dealt_at: [Option<(u8, u8)>; 56],
}

impl Quotient {
    /// The abstraction of `start` under `game` with window `k` and the `kept` cards (bit
    /// `rank * 4 + suit`; 0 for none).
    ///
    /// # Errors
    /// If the game is not one the abstraction applies to, or the deal is malformed.
    pub fn new(
        game: Game,
        start: &Start,
        k: u8,
        dealt: bool,
        kept: u64,
        autoplay: bool,
    ) -> Result<Quotient, Malformed> {
        if game.build != super::BuildRule::DownAnySuit
            || game.decks != 1
            || game.cells != 0
            || game.stock
            || game.foundation_return
        {
            return Err(
                format!("the suit-blind quotient does not apply to these rules ({game})").into(),
            );
        }
        if !(1..=13).contains(&k) {
            return Err(format!("window k = {k}").into());
        }
        // Bits 4..56: ranks 1..=13, four suits each.
        if kept & !(((1u64 << 56) - 1) & !0xF) != 0 {
            return Err(format!("kept cards {kept:#x} name bytes that are not cards").into());
        }
        let n = usize::from(game.piles);
        if n == 0 || n > MAX_PILES || start.tableau.len() != n {
            return Err(format!("{} piles", start.tableau.len()).into());
        }
        if !start.cells.is_empty() || !start.stock.is_empty() || !start.waste.is_empty() {
            return Err("cards in cells, stock or waste".to_string().into());
        }
        let mut q = Quotient {
            k,
            dealt,
            kept,
            autoplay,
            unlimited: game.unlimited,
            n,
            deal: [[0; CAP]; MAX_PILES],
            deal_len: [0; MAX_PILES],
            dealt_at: [None; 56],
        };
        for (i, p) in start.tableau.iter().enumerate() {
            if p.len() > CAP {
                return Err(format!("pile {} holds {} cards", i + 1, p.len()).into());
            }
            for (j, &c) in p.iter().enumerate() {
                if !(1..=13).contains(&(c >> 2)) {
                    return Err(format!("byte {c} in the deal is not a card").into());
                }
                q.deal[i][j] = c;
                q.dealt_at[usize::from(c)] = Some((i as u8, j as u8));
            }
            q.deal_len[i] = p.len() as u8;
        }
        Ok(q)
    }

    /// True if card `(r, s)` is fixed when suit `s`'s foundation holds `h` cards.
    #[inline]
    fn fixed(&self, r: u8, s: u8, h: u8) -> bool {
        h < r && (r <= h + self.k || self.kept >> (r * 4 + s) & 1 != 0)
    }

    /// The symbol of card `c` (a byte `rank * 4 + suit`) under foundations `f`.
    #[inline]
    fn symbol(&self, c: u8, f: &[u8; 4]) -> u8 {
        let (r, s) = (c >> 2, c & 3);
        if self.fixed(r, s, f[usize::from(s)]) {
            r << 3 | s
        } else {
            r << 3 | UNFIXED
        }
    }

    /// The deal's abstract position (before safe moves).
    ///
    /// # Errors
    /// If the deal's foundations are out of range.
    pub fn start(&self, start: &Start) -> Result<APos, Malformed> {
        let mut f = [0u8; 4];
        f.copy_from_slice(&start.foundations[..4]);
        if f.iter().any(|&h| h > 13) || start.foundations[4..].iter().any(|&h| h > 0) {
            return Err("foundation heights out of range".to_string().into());
        }
        let mut a = APos {
            len: self.deal_len,
            piles: [[0; CAP]; MAX_PILES],
            unmoved: [0; MAX_PILES],
            found: f,
        };
        for i in 0..self.n {
            for j in 0..usize::from(self.deal_len[i]) {
                a.piles[i][j] = self.symbol(self.deal[i][j], &f);
            }
            if self.dealt {
                a.unmoved[i] = self.deal_len[i];
            }
        }
        self.well_formed(&a)?;
        Ok(a)
    }

    /// Checks that `a` is an abstract position of this deal: every rank has as many cards
    /// on the tableau as it has suits not home, exactly one symbol per card in a window,
    /// none fixed outside one, and the never-moved parts as dealt.
    ///
    /// # Errors
    /// What is wrong.
    pub fn well_formed(&self, a: &APos) -> Result<(), Malformed> {
        let mut by_rank = [0u16; 14];
        let mut fixed = [[0u16; 4]; 14];
        for i in 0..self.n {
            let l = usize::from(a.len[i]);
            if l > CAP || a.unmoved[i] > a.len[i] || a.unmoved[i] > self.deal_len[i] {
                return Err(format!("pile {} has bad lengths", i + 1).into());
            }
            if !self.dealt && a.unmoved[i] > 0 {
                return Err("never-moved counts without the dealt refinement"
                    .to_string()
                    .into());
            }
            for (j, &x) in a.piles[i][..l].iter().enumerate() {
                let (r, t) = (rank(x), tag(x));
                if !(1..=13).contains(&r) || t > UNFIXED {
                    return Err(format!("byte {x} is not a symbol").into());
                }
                if j < usize::from(a.unmoved[i]) && x != self.symbol(self.deal[i][j], &a.found) {
                    return Err(format!("pile {} does not hold its dealt card", i + 1).into());
                }
                by_rank[usize::from(r)] += 1;
                if t < UNFIXED {
                    fixed[usize::from(r)][usize::from(t)] += 1;
                }
            }
        }
        for r in 1..=13u8 {
            let out = (0..4).filter(|&s| a.found[s] < r).count() as u16;
            if by_rank[usize::from(r)] != out {
                return Err(format!(
                    "{} cards of rank {r} on the tableau, {out} not home",
                    by_rank[usize::from(r)]
                )
                .into());
            }
            for (s, (&h, &got)) in a.found.iter().zip(&fixed[usize::from(r)]).enumerate() {
                let want = u16::from(self.fixed(r, s as u8, h));
                if got != want {
                    return Err(
                        format!("{got} symbols of the fixed card of rank {r}, suit {s}").into(),
                    );
                }
            }
        }
        Ok(())
    }

    /// True when every card is home.
    pub fn won(&self, a: &APos) -> bool {
        a.found.iter().all(|&h| h == 13)
    }

    /// The pile whose top the abstract safe rule sends home now, if any.
    fn safe(&self, a: &APos) -> Option<usize> {
        if !self.autoplay {
            return None;
        }
        let low = *a.found.iter().min().expect("four suits");
        (0..self.n).find(|&i| {
            let l = usize::from(a.len[i]);
            l > 0 && {
                let x = a.piles[i][l - 1];
                let t = tag(x);
                t < UNFIXED && a.found[usize::from(t)] + 1 == rank(x) && rank(x) <= low + 2
            }
        })
    }

    /// Sends pile `i`'s top card home (a fixed card that fits) and calls `f` with every
    /// branch for the card entering the window.
    ///
    /// # Errors
    /// `f`'s error, or (a broken invariant, never met on a well-formed position) no place
    /// for the card entering the window.
    fn home<E: From<String>>(
        &self,
        a: &APos,
        i: usize,
        f: &mut dyn FnMut(APos) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut b = a.clone();
        let l = usize::from(b.len[i]) - 1;
        let s = usize::from(tag(b.piles[i][l]));
        b.piles[i][l] = 0;
        b.len[i] = l as u8;
        b.unmoved[i] = b.unmoved[i].min(l as u8);
        b.found[s] += 1;
        let r = b.found[s] + self.k;
        if r > 13 || self.kept >> (r * 4 + s as u8) & 1 != 0 {
            // Past the king, or a kept card: fixed already, nothing enters unknown.
            return f(b);
        }
        let card = r << 2 | s as u8;
        if self.dealt {
            if let Some((p, q)) = self.dealt_at[usize::from(card)] {
                if q < b.unmoved[usize::from(p)] {
                    b.piles[usize::from(p)][usize::from(q)] = r << 3 | s as u8;
                    return f(b);
                }
            }
        }
        let want = r << 3 | UNFIXED;
        let mut found = false;
        for p in 0..self.n {
            for q in usize::from(b.unmoved[p])..usize::from(b.len[p]) {
                if b.piles[p][q] == want {
                    found = true;
                    let mut c = b.clone();
                    c.piles[p][q] = r << 3 | s as u8;
                    f(c)?;
                }
            }
        }
        if found {
            Ok(())
        } else {
            Err(E::from(format!(
                "no place for {} entering the window",
                super::card_text(card)
            )))
        }
    }

    /// Calls `f` with every position the safe moves from `a` lead to (all branches; `a`
    /// itself if it has none).
    ///
    /// # Errors
    /// `f`'s, or [`Quotient::home`]'s.
    pub fn settle<E: From<String>>(
        &self,
        a: APos,
        f: &mut dyn FnMut(APos) -> Result<(), E>,
    ) -> Result<(), E> {
        match self.safe(&a) {
            None => f(a),
            Some(i) => self.home(&a, i, &mut |b| self.settle(b, f)),
        }
    }

    /// True if `a` has no safe move left.
    pub fn settled(&self, a: &APos) -> bool {
        self.safe(a).is_none()
    }

    /// Calls `f` with every move from `a` and every settled position it leads to (each
    /// branch). Moves into an empty pile go to the first one (the others give the same
    /// position up to order), and a whole pile never moves into an empty pile (the same
    /// position, its cards only counted as moved).
    ///
    /// # Errors
    /// `f`'s, or [`Quotient::home`]'s.
    pub fn successors<E: From<String>>(
        &self,
        a: &APos,
        f: &mut dyn FnMut(&AStep, APos) -> Result<(), E>,
    ) -> Result<(), E> {
        let n = self.n;
        let first_empty = (0..n).find(|&i| a.len[i] == 0);
        for i in 0..n {
            let l = usize::from(a.len[i]);
            if l == 0 {
                continue;
            }
            let top = a.piles[i][l - 1];
            let t = tag(top);
            if t < UNFIXED && a.found[usize::from(t)] + 1 == rank(top) {
                let m = AStep {
                    from: i as u8,
                    to: None,
                    count: 1,
                };
                self.home(a, i, &mut |b| self.settle(b, &mut |c| f(&m, c)))?;
            }
            let mut count = 1;
            loop {
                let bottom = rank(a.piles[i][l - count]);
                for j in 0..n {
                    let lj = usize::from(a.len[j]);
                    let ok = j != i
                        && if lj == 0 {
                            Some(j) == first_empty && count < l
                        } else {
                            rank(a.piles[j][lj - 1]) == bottom + 1
                        };
                    if !ok {
                        continue;
                    }
                    let mut b = a.clone();
                    for q in 0..count {
                        b.piles[j][lj + q] = a.piles[i][l - count + q];
                        b.piles[i][l - count + q] = 0;
                    }
                    b.len[i] -= count as u8;
                    b.len[j] += count as u8;
                    b.unmoved[i] = b.unmoved[i].min((l - count) as u8);
                    let m = AStep {
                        from: i as u8,
                        to: Some(j as u8),
                        count: count as u8,
                    };
                    self.settle(b, &mut |c| f(&m, c))?;
                }
                if !self.unlimited || count == l || rank(a.piles[i][l - count - 1]) != bottom + 1 {
                    break;
                }
                count += 1;
            }
        }
        Ok(())
    }

    /// Writes the canonical form of `a` into `out` (cleared first): the four foundation
    /// heights; with the dealt refinement each pile's never-moved count, then for each pile
    /// with such cards the number of cards above them and their symbols; then the other piles
    /// sorted by (length, symbols), each as its length and its symbols bottom to top.
    pub fn encode(&self, a: &APos, out: &mut Vec<u8>) {
        self.encode_parts(&a.found, &a.len, &a.piles, &a.unmoved, out);
    }

    /// [`Quotient::encode`] of the position with these fields (as [`APos`]'s), borrowed: the
    /// quotient search keeps its positions' members without copying each into an `APos`.
    pub fn encode_parts(
        &self,
        found: &[u8; 4],
        len: &[u8; MAX_PILES],
        piles: &[[u8; CAP]; MAX_PILES],
        unmoved: &[u8; MAX_PILES],
        out: &mut Vec<u8>,
    ) {
        out.clear();
        out.extend_from_slice(found);
        if self.dealt {
            out.extend_from_slice(&unmoved[..self.n]);
            for i in 0..self.n {
                let p = usize::from(unmoved[i]);
                if p > 0 {
                    let l = usize::from(len[i]);
                    out.push((l - p) as u8);
                    out.extend_from_slice(&piles[i][p..l]);
                }
            }
        }
        let mut order = [0u8; MAX_PILES];
        let mut m = 0;
        for i in (0..self.n).filter(|&i| unmoved[i] == 0) {
            let key = |j: usize| (len[j], &piles[j][..usize::from(len[j])]);
            let mut at = m;
            while at > 0 && key(usize::from(order[at - 1])) > key(i) {
                order[at] = order[at - 1];
                at -= 1;
            }
            order[at] = i as u8;
            m += 1;
        }
        for &i in &order[..m] {
            let l = usize::from(len[usize::from(i)]);
            out.push(l as u8);
            out.extend_from_slice(&piles[usize::from(i)][..l]);
        }
    }

    /// The abstract position a member's bytes describe, its never-moved cards filled in from
    /// the deal (the other piles in canonical order). The caller checks that encoding it gives
    /// the bytes back.
    ///
    /// # Errors
    /// Bytes too short or too long, or counts out of range.
    pub fn decode(&self, bytes: &[u8]) -> Result<APos, Malformed> {
        let short = || "the member's bytes end early".to_string();
        let mut a = APos {
            len: [0; MAX_PILES],
            piles: [[0; CAP]; MAX_PILES],
            unmoved: [0; MAX_PILES],
            found: [0; 4],
        };
        a.found.copy_from_slice(bytes.get(..4).ok_or_else(short)?);
        if a.found.iter().any(|&h| h > 13) {
            return Err("foundation heights out of range".to_string().into());
        }
        let mut at = 4;
        let take = |at: &mut usize, len: usize| -> Result<&[u8], Malformed> {
            let s = bytes.get(*at..*at + len).ok_or_else(short)?;
            *at += len;
            Ok(s)
        };
        if self.dealt {
            a.unmoved[..self.n].copy_from_slice(take(&mut at, self.n)?);
            for i in 0..self.n {
                let p = usize::from(a.unmoved[i]);
                if p == 0 {
                    continue;
                }
                if p > usize::from(self.deal_len[i]) {
                    return Err(format!("pile {} never moved {p} cards", i + 1).into());
                }
                for j in 0..p {
                    a.piles[i][j] = self.symbol(self.deal[i][j], &a.found);
                }
                let above = usize::from(take(&mut at, 1)?[0]);
                if p + above > CAP {
                    return Err(format!("pile {} too long", i + 1).into());
                }
                a.piles[i][p..p + above].copy_from_slice(take(&mut at, above)?);
                a.len[i] = (p + above) as u8;
            }
        }
        for i in (0..self.n).filter(|&i| a.unmoved[i] == 0) {
            let l = usize::from(take(&mut at, 1)?[0]);
            if l > CAP {
                return Err(format!("a pile of {l} cards").into());
            }
            a.piles[i][..l].copy_from_slice(take(&mut at, l)?);
            a.len[i] = l as u8;
        }
        if at != bytes.len() {
            return Err("the member's bytes go on past its last pile"
                .to_string()
                .into());
        }
        Ok(a)
    }

    /// The position as text: foundations, then each pile with its never-moved cards before a
    /// `|`; a card known by rank only shows `?` for its suit.
    pub fn show(&self, a: &APos) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "  foundations: C{} D{} H{} S{}",
            a.found[0], a.found[1], a.found[2], a.found[3]
        );
        for i in 0..self.n {
            let _ = write!(s, "  t{}:", i + 1);
            for (j, &x) in a.piles[i][..usize::from(a.len[i])].iter().enumerate() {
                if j > 0 && j == usize::from(a.unmoved[i]) {
                    s.push_str(" |");
                }
                let r = b"?A23456789TJQK"
                    .get(usize::from(rank(x)))
                    .copied()
                    .unwrap_or(b'?') as char;
                let t = b"CDHS?".get(usize::from(tag(x))).copied().unwrap_or(b'?') as char;
                let _ = write!(s, " {r}{t}");
            }
            if a.unmoved[i] > 0 && a.unmoved[i] == a.len[i] {
                s.push_str(" |");
            }
            s.push('\n');
        }
        s
    }
}
