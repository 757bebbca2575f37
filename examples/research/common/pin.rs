//! Research code, never a verdict of castle's: courtyard abstracted by *pinning* card values,
//! refined from the replays of its wins (docs/design.md, "Courtyard: refining an
//! abstraction", has the measurements: it proves no numbered deal lost).
//!
//! # The goal
//! A courtyard position whose stock and waste are empty is won: of a suit's two foundations,
//! the lower one's next card can hold nothing (every card one rank below it is home on both
//! foundations), so it lies on top of its pile and goes home, and so on. A line of the game
//! wins exactly when it empties the stock and the waste, and that is the abstract goal.
//!
//! # The abstraction
//! A set `P` of card values is *pinned* (both copies of each). Every physical card has an id:
//! the waste's cards bottom first, then the stock's next first (so the waste's order is the
//! order of ids), then the tableau's. An abstract state holds `i` (stock cards dealt), a
//! status per id and `pend` (emptied piles not yet filled). A real position `c` is *covered*
//! by an abstract state `a` (written `c ≤ a`) when `i` agrees and:
//! - an id has status `WASTE` in `a` exactly when the card is in `c`'s stock or waste (which
//!   of the two, `i` says), so the waste is exact;
//! - the bottom card of every pile of `c` has status `BASE`, and no other card;
//! - an unpinned card that is in neither has status `OUT` (it lies in the tableau above a
//!   pile's bottom, or it is home: the abstraction does not say which);
//! - a pinned card home in `c` has status `HOME`; a pinned card in the tableau above its
//!   pile's bottom has status `ON0`/`ON1` when it lies directly on copy 0/1 of its parent
//!   value and that card is pinned or the bottom, and otherwise `ON*` or `FREE` (above no
//!   card the state names);
//! - the cards home in `c` form foundations: for each suit, copies of ranks `1..=h1` and
//!   `1..=h2`, which must contain the pinned `HOME` cards and lie within the `HOME`, `OUT` and
//!   initially home cards (`Game::info`'s `fit` lists the ranks some such pair lets home);
//! - `pend` is 0 (it only ever counts piles the abstraction left empty; see the greedy step).
//!
//! The abstract moves (`Game::kids_pre`):
//! - deal; a pinned waste top (or a pinned tableau card with nothing pinned `ON` it) goes
//!   home when its rank fits, or onto a copy of its parent: `ON` a copy that is pinned or a
//!   bottom with nothing pinned `ON` it, or `FREE` when an unpinned copy is `OUT`;
//! - an unpinned `BASE` with nothing pinned `ON` it is *released* (to `OUT`) when its rank
//!   fits home or a copy of its parent is in the tableau (`OUT`, `BASE`, `ON*`, `FREE`);
//! - a move that empties a pile (a released or moved `BASE`) fills it at once from the waste
//!   top, else the stock, or leaves it pending (below); a pending pile may be filled so later;
//! - the greedy step (below) moves an unpinned waste top `OUT`.
//!
//! # Simulation: every line of the game is a line of the abstraction
//! Let `c ≤ a` and `c -> c'` a move of the game. A deal is a deal. A card `x` leaving the
//! waste or a pile's top: if `x` goes home, its rank fits `c`'s foundations, and those are a
//! pair `h1, h2` as above, so `x` fits in `a`. If `x` goes onto a top `y` (its parent): `y` is
//! in `c`'s tableau, so in `a` it is `OUT`, `BASE`, `ON*` or `FREE`; nothing lies on `y`, so
//! nothing pinned is `ON` it; for pinned `x` the abstract move `ON y` (pinned `y` or a bottom)
//! or `FREE` (unpinned `y`, `OUT`) covers `c'`, and for unpinned `x` its status becomes or
//! stays `OUT`, which covers any place. A pinned card `x` that moves was a top, so nothing
//! pinned is `ON` it. A bottom that leaves is alone on its pile: nothing pinned is `ON` it,
//! and it is released (unpinned) or moved (pinned); the fill from the waste top or the stock
//! is the abstract fill. A move of an unpinned card between two tops changes nothing the
//! abstraction keeps. So some abstract move leads from `a` to an `a'` with `c' ≤ a'`, and a
//! winning line of the game, which ends with stock and waste empty, gives an abstract line
//! to a state whose stock and waste are empty: the abstract goal. If no abstract state
//! reached from the deal's is the goal, the deal is lost.
//!
//! # The greedy step, and pending fills
//! Only one move is offered from a state whose waste top `w` is unpinned and may leave
//! (its rank fits home, or a copy of its parent is in the tableau): `w` goes `OUT`; likewise
//! a pinned waste top with an unpinned parent `OUT` goes `FREE` (`Game::close`). This keeps
//! the abstraction small, and it loses no abstract win: let `A` be `B` with some unpinned
//! waste cards `D` moved `OUT` (pinned ones `FREE`). `A` can follow any line of `B`: a move
//! of a card of `D` from the waste is already made in `A` (an `OUT`/`FREE` card can still go
//! home or onto a parent, and it counts for more, not less, in every test above); a move
//! that needs `B`'s waste top, when that top is not in `D`, finds the same top in `A` (`A`'s
//! waste is `B`'s less `D`). The one thing `B` can do with a waste card that `A` cannot is
//! fill an emptied pile with it. There `A` leaves the pile *pending*, and fills it later from
//! its waste top at the moment `B` empties that pile again (`B`'s card of `D` then leaves
//! it); in between, what `B` puts on that card `A` puts on the card `FREE`, and a pending
//! pile blocks nothing. `B`'s goal is `A`'s (less waste). So `A` wins whenever `B` does. A
//! pile may be left pending only when a card dealt after the waste top has gone `OUT` or
//! `FREE` (`Game::pend_allowed`): `B`'s card of `D` lay above `A`'s waste top, and that is all
//! the argument uses. (Dropping pending fills makes the abstraction unsound in principle;
//! the test `tests/it/courtyard_pin.rs` did not catch that, while it does catch pinned cards
//! denied `FREE` parents.)
//!
//! # Refinement
//! An abstract win is replayed on the real game (`Real`): each abstract move is made with a
//! real one (an `OUT` card home if it fits, else onto a real top holding its parent, else
//! home after bringing up the cards below it from tops; `ON`/`FREE` onto the named copy or a
//! top). The first move the real game refuses names what the abstraction forgot (the card
//! covering a needed top, a parent that is nowhere on top, a card a pile's bottom holds, the
//! cards let out above the waste top when a pile was left pending), and those values are
//! pinned for the next round (`cegar`). A replay that empties stock and waste is a real win:
//! its moves, finished by sending every card home, are the checker's steps. With every value
//! pinned the abstraction is the game (no card is `OUT` or `FREE`, nothing is pending).

use ahash::HashSet;
use castle::check::Step;
use castle::{Card, Deal};

pub const N: usize = 104;
pub const WASTE: u8 = 0; // or stock, by id
pub const OUT: u8 = 1;
pub const HOME: u8 = 2;
pub const BASE: u8 = 3;
pub const FREE: u8 = 4;
pub const ON0: u8 = 5; // on copy 0 of the parent value
pub const ON1: u8 = 6; // on copy 1

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    No,
    Now,
    Pend,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mv {
    Deal,
    WasteHome,
    /// waste top onto a status (FREE, ON0, ON1)
    WastePut(u8),
    Home(u8, Fill),
    Put(u8, u8, Fill),
    Release(u8, Fill),
    FillPending,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct St {
    pub i: u8,
    pub pend: u8,
    pub st: [u8; N],
}

pub struct Game {
    pub n: usize,
    pub card: [u8; N],
    pub w0: usize,
    pub s0: usize,
    pub pinned: [bool; 52],
    pub home0: [u8; 52],
    pub copies: [[u8; 2]; 52],
    pub pend_ok: bool,
    pub keep: bool,
    pub root0: St,
    pub kept: std::cell::RefCell<Vec<St>>,
}

fn rank(v: usize) -> usize {
    v / 4 + 1
}

/// Per-state facts computed once per expansion.
pub struct Info {
    /// ids with a pinned card on them
    pub blocked: u128,
    /// copies of each value in the tableau
    pub intab: [u8; 52],
    /// ranks (bit r) of each suit that fit a foundation
    pub fit: [u16; 4],
    pub top: Option<usize>,
}

impl Game {
    pub fn new(deal: &Deal, pinned: [bool; 52]) -> (Game, St) {
        let mut card = [0u8; N];
        let mut st = [0u8; N];
        let mut n = 0;
        for c in deal.waste.iter().chain(&deal.stock) {
            card[n] = c.index() as u8;
            n += 1;
        }
        let w0 = deal.waste.len();
        let s0 = deal.stock.len();
        let mut piles_ids = Vec::new();
        for pile in &deal.tableau {
            let mut ids = Vec::new();
            for c in pile {
                card[n] = c.index() as u8;
                ids.push(n);
                n += 1;
            }
            piles_ids.push(ids);
        }
        let mut copies = [[255u8; 2]; 52];
        for id in 0..n {
            let c = &mut copies[card[id] as usize];
            if c[0] == 255 {
                c[0] = id as u8;
            } else {
                c[1] = id as u8;
            }
        }
        for ids in &piles_ids {
            for (k, &id) in ids.iter().enumerate() {
                let v = card[id] as usize;
                st[id] = if k == 0 {
                    BASE
                } else if !pinned[v] {
                    OUT
                } else {
                    let below = ids[k - 1];
                    if k - 1 == 0 || pinned[card[below] as usize] {
                        if copies[v + 4][0] as usize == below {
                            ON0
                        } else {
                            ON1
                        }
                    } else {
                        FREE
                    }
                };
            }
        }
        let mut home0 = [0u8; 52];
        for s in 0..4 {
            for f in [s, s + 4] {
                for r in 1..=deal.foundations[f] as usize {
                    home0[(r - 1) * 4 + s] += 1;
                }
            }
        }
        let g = Game {
            n,
            card,
            w0,
            s0,
            pinned,
            home0,
            copies,
            pend_ok: pinned.iter().any(|&p| !p),
            keep: std::env::var_os("PIN_STATS").is_some(),
            kept: Default::default(),
            root0: St { i: 0, pend: 0, st },
        };
        let mut s = St { i: 0, pend: 0, st };
        g.close(&mut s);
        (g, s)
    }

    pub fn waste_top(&self, s: &St) -> Option<usize> {
        s.st[..self.w0 + s.i as usize]
            .iter()
            .rposition(|&c| c == WASTE)
    }

    pub fn in_tableau(c: u8) -> bool {
        c == OUT || c >= BASE
    }

    /// The id a pinned card with status ON0/ON1 lies on.
    pub fn below(&self, id: usize, c: u8) -> usize {
        self.copies[self.card[id] as usize + 4][(c - ON0) as usize] as usize
    }

    pub fn info(&self, s: &St) -> Info {
        let mut blocked = 0u128;
        let mut intab = [0u8; 52];
        let mut av = self.home0;
        let mut must = self.home0;
        for id in 0..self.n {
            let c = s.st[id];
            let v = self.card[id] as usize;
            if c >= ON0 {
                blocked |= 1 << self.below(id, c);
            }
            if Game::in_tableau(c) {
                intab[v] += 1;
            }
            if c == OUT {
                av[v] += 1;
            } else if c == HOME {
                av[v] += 1;
                must[v] += 1;
            }
        }
        let mut fit = [0u16; 4];
        for (su, f) in fit.iter_mut().enumerate() {
            // A1/A2: highest h with >= 1 / >= 2 available copies of every rank up to h;
            // M1/M2: highest rank with >= 1 / >= 2 copies that must be home.
            let (mut a1, mut a2, mut m1, mut m2) = (0, 0, 0, 0);
            let (mut go1, mut go2) = (true, true);
            for r in 1..=13 {
                let v = (r - 1) * 4 + su;
                go1 &= av[v] >= 1;
                go2 &= av[v] >= 2;
                if go1 {
                    a1 = r;
                }
                if go2 {
                    a2 = r;
                }
                if must[v] >= 1 {
                    m1 = r;
                }
                if must[v] >= 2 {
                    m2 = r;
                }
            }
            for r in 1..=13usize {
                let x = r - 1;
                let as_high = x >= m1 && x <= a1 && m2 <= a2.min(x);
                let as_low = x >= m2 && x <= a2 && m1.max(x) <= a1;
                if as_high || as_low {
                    *f |= 1 << r;
                }
            }
        }
        Info {
            blocked,
            intab,
            fit,
            top: self.waste_top(s),
        }
    }

    pub fn fits(&self, inf: &Info, v: usize) -> bool {
        inf.fit[v % 4] & (1 << rank(v)) != 0
    }

    fn can_leave(&self, inf: &Info, v: usize) -> bool {
        self.fits(inf, v) || (rank(v) < 13 && inf.intab[v + 4] > 0)
    }

    /// Greedy: unpinned waste tops that can leave go out.
    pub fn close(&self, s: &mut St) {
        loop {
            let inf = self.info(s);
            let Some(t) = inf.top else { return };
            let v = self.card[t] as usize;
            if !self.pinned[v] && self.can_leave(&inf, v) {
                s.st[t] = OUT;
            } else if self.pinned[v] && self.free_target(s, v) {
                s.st[t] = FREE;
            } else {
                return;
            }
        }
    }

    /// Whether a pinned card of value v may go FREE (an unpinned copy of its parent is out).
    fn free_target(&self, s: &St, v: usize) -> bool {
        rank(v) < 13
            && !self.pinned[v + 4]
            && self.copies[v + 4]
                .iter()
                .any(|&y| y != 255 && s.st[y as usize] == OUT)
    }

    pub fn won(&self, s: &St) -> bool {
        s.i as usize == self.s0 && self.waste_top(s).is_none()
    }

    /// Targets for pinned value v: FREE, ON0, ON1.
    fn targets(&self, s: &St, inf: &Info, v: usize, out: &mut Vec<u8>) {
        out.clear();
        if rank(v) == 13 {
            return;
        }
        let p = v + 4;
        for (k, &y) in self.copies[p].iter().enumerate() {
            if y == 255 {
                continue;
            }
            let c = s.st[y as usize];
            let free = inf.blocked & (1 << y) == 0;
            if (c == BASE || (self.pinned[p] && Game::in_tableau(c))) && free {
                out.push(ON0 + k as u8);
            } else if c == OUT && !out.contains(&FREE) {
                out.push(FREE);
            }
        }
    }

    /// Whether a slot may be left pending: only when an unpinned card dealt after the waste
    /// top went out (the greedy step's dominance needs no more).
    pub fn pend_allowed(&self, s: &St, top: Option<usize>) -> bool {
        let from = top.map_or(0, |t| t + 1);
        (from..self.w0 + s.i as usize).any(|id| s.st[id] == OUT || s.st[id] == FREE)
    }

    fn fills(&self, k: St, top: Option<usize>, out: &mut Vec<(Mv, St)>, mk: impl Fn(Fill) -> Mv) {
        let mut now = k;
        if let Some(t) = top {
            now.st[t] = BASE;
        } else if (now.i as usize) < self.s0 {
            now.st[self.w0 + now.i as usize] = BASE;
            now.i += 1;
        }
        out.push((mk(Fill::Now), now));
        if self.pend_ok && (top.is_some() || (k.i as usize) < self.s0) && self.pend_allowed(&k, top)
        {
            let mut p = k;
            p.pend += 1;
            out.push((mk(Fill::Pend), p));
        }
    }

    /// The children before the greedy step, the moves to try first first.
    pub fn kids_pre(&self, s: &St, out: &mut Vec<(Mv, St)>) {
        out.clear();
        let inf = self.info(s);
        let mut tg = Vec::new();
        if let Some(t) = inf.top {
            let v = self.card[t] as usize;
            if self.pinned[v] {
                if self.fits(&inf, v) {
                    let mut k = *s;
                    k.st[t] = HOME;
                    out.push((Mv::WasteHome, k));
                }
                self.targets(s, &inf, v, &mut tg);
                for &g in &tg {
                    let mut k = *s;
                    k.st[t] = g;
                    out.push((Mv::WastePut(g), k));
                }
            }
        }
        for id in 0..self.n {
            let c = s.st[id];
            if c < BASE || inf.blocked & (1 << id) != 0 {
                continue;
            }
            let v = self.card[id] as usize;
            let base = c == BASE;
            if self.pinned[v] {
                if self.fits(&inf, v) {
                    let mut k = *s;
                    k.st[id] = HOME;
                    if base {
                        self.fills(k, inf.top, out, |f| Mv::Home(id as u8, f));
                    } else {
                        out.push((Mv::Home(id as u8, Fill::No), k));
                    }
                }
                self.targets(s, &inf, v, &mut tg);
                for &g in &tg {
                    if g == c {
                        continue;
                    }
                    let mut k = *s;
                    k.st[id] = g;
                    if base {
                        self.fills(k, inf.top, out, |f| Mv::Put(id as u8, g, f));
                    } else {
                        out.push((Mv::Put(id as u8, g, Fill::No), k));
                    }
                }
            } else if base && self.can_leave(&inf, v) {
                let mut k = *s;
                k.st[id] = OUT;
                self.fills(k, inf.top, out, |f| Mv::Release(id as u8, f));
            }
        }
        if s.pend > 0 {
            let mut k = *s;
            k.pend -= 1;
            if let Some(t) = inf.top {
                k.st[t] = BASE;
                out.push((Mv::FillPending, k));
            } else if (k.i as usize) < self.s0 {
                k.st[self.w0 + k.i as usize] = BASE;
                k.i += 1;
                out.push((Mv::FillPending, k));
            }
        }
        if (s.i as usize) < self.s0 {
            let mut k = *s;
            k.i += 1;
            out.push((Mv::Deal, k));
        }
        out.reverse();
    }

    pub fn kids(&self, s: &St, out: &mut Vec<(Mv, St)>) {
        self.kids_pre(s, out);
        for (_, k) in out.iter_mut() {
            self.close(k);
        }
    }

    /// `PIN_STATS=1`: what varies among the states searched (kept as they were entered):
    /// the cards dealt, the pinned cards' statuses, the unpinned ones'.
    fn stats(&self) {
        let mut pinned: HashSet<Vec<u8>> = HashSet::default();
        let mut unpinned: HashSet<Vec<u8>> = HashSet::default();
        let kept = self.kept.borrow();
        let mut by_i = [0usize; 100];
        for st in kept.iter() {
            by_i[st.i as usize] += 1;
            let mut a = vec![st.i, st.pend];
            let mut b = vec![st.i];
            for id in 0..self.n {
                if self.pinned[self.card[id] as usize] {
                    a.push(st.st[id]);
                } else {
                    b.push(st.st[id]);
                }
            }
            pinned.insert(a);
            unpinned.insert(b);
        }
        eprintln!(
            "states {}: pinned projections {}, unpinned {}",
            kept.len(),
            pinned.len(),
            unpinned.len()
        );
        eprintln!("by i: {:?}", &by_i[..93]);
    }

    fn key(&self, s: &St) -> [u64; 7] {
        let mut k = [0u64; 7];
        k[6] = u64::from(s.i) << 48 | u64::from(s.pend) << 40;
        for id in 0..self.n {
            k[id / 16] |= u64::from(s.st[id]) << (4 * (id % 16));
        }
        k
    }

    /// Ok(Some(path)) won (each state with the move into it), Ok(None) lost, Err over
    /// `max` states; with the states stored.
    #[allow(clippy::type_complexity)]
    pub fn solve(&self, root: &St, max: usize) -> (Result<Option<Vec<(Mv, St)>>, ()>, usize) {
        let mut seen: HashSet<[u64; 7]> = HashSet::default();
        seen.insert(self.key(root));
        if self.won(root) {
            return (Ok(Some(vec![(Mv::Deal, *root)])), 1);
        }
        let mut kids = Vec::new();
        self.kids(root, &mut kids);
        let mut stack: Vec<(Mv, St, Vec<(Mv, St)>)> = vec![(Mv::Deal, *root, kids)];
        while let Some((_, _, ks)) = stack.last_mut() {
            let Some((m, k)) = ks.pop() else {
                stack.pop();
                continue;
            };
            if !seen.insert(self.key(&k)) {
                continue;
            }
            if self.keep {
                self.kept.borrow_mut().push(k);
            }
            if seen.len() > max {
                if std::env::var_os("PIN_STATS").is_some() {
                    self.stats();
                }
                return (Err(()), seen.len());
            }
            if self.won(&k) {
                let mut path: Vec<(Mv, St)> = stack.iter().map(|(m, s, _)| (*m, *s)).collect();
                path.push((m, k));
                return (Ok(Some(path)), seen.len());
            }
            let mut kk = Vec::new();
            self.kids(&k, &mut kk);
            stack.push((m, k, kk));
        }
        (Ok(None), seen.len())
    }
}

/// The real game on the same ids, for replaying abstract lines. It records every move it
/// plays as the checker's steps.
pub struct Real {
    pub piles: Vec<Vec<usize>>,
    pub waste: Vec<usize>,
    pub i: usize,
    pub found: [[u8; 2]; 4],
    pub steps: Vec<Step>,
    card: Vec<Card>,
}

/// Why a replay failed: values to pin.
pub type Pins = Vec<usize>;

/// Where a card goes.
#[derive(Clone, Copy)]
enum Dest {
    Home(usize),
    Pile(usize),
}

impl Real {
    pub fn new(g: &Game, deal: &Deal) -> Real {
        let mut piles = Vec::new();
        let mut id = g.w0 + g.s0;
        for p in &deal.tableau {
            piles.push((id..id + p.len()).collect());
            id += p.len();
        }
        let mut found = [[0u8; 2]; 4];
        for (s, f) in found.iter_mut().enumerate() {
            *f = [deal.foundations[s], deal.foundations[s + 4]];
        }
        let card = deal
            .waste
            .iter()
            .chain(&deal.stock)
            .chain(deal.tableau.iter().flatten())
            .copied()
            .collect();
        Real {
            piles,
            waste: (0..g.w0).collect(),
            i: 0,
            found,
            steps: Vec::new(),
            card,
        }
    }

    fn fits(&self, v: usize) -> Option<usize> {
        let (su, r) = (v % 4, rank(v) as u8);
        (0..2).find(|&f| self.found[su][f] == r - 1)
    }

    fn pile_of(&self, id: usize) -> Option<(usize, usize)> {
        for (p, pile) in self.piles.iter().enumerate() {
            if let Some(k) = pile.iter().position(|&x| x == id) {
                return Some((p, k));
            }
        }
        None
    }

    fn top_with(&self, g: &Game, v: usize, not: Option<usize>) -> Option<usize> {
        (0..self.piles.len()).find(|&p| {
            Some(p) != not
                && self.piles[p]
                    .last()
                    .is_some_and(|&t| g.card[t] as usize == v)
        })
    }

    fn record(&mut self, id: usize, from: String, to: String) {
        let pile = |name: &str| name.parse().expect("a pile name made here");
        self.steps
            .push(Step::single(self.card[id], pile(&from), pile(&to)));
    }

    /// Brings unpinned cards of `v`'s suit home from the tops (never a pile's last card, and
    /// never from pile `keep`) until `v` fits. Err: the values in the way.
    fn raise(&mut self, g: &Game, v: usize, keep: Option<usize>) -> Result<usize, Pins> {
        if let Some(f) = self.fits(v) {
            return Ok(f);
        }
        let (su, r) = (v % 4, rank(v) as u8);
        let cand: Vec<usize> = (0..2).filter(|&f| self.found[su][f] < r - 1).collect();
        let Some(&f) = cand.iter().max_by_key(|&&f| self.found[su][f]) else {
            return Err(vec![]);
        };
        while self.found[su][f] < r - 1 {
            let need = self.found[su][f] as usize * 4 + su;
            let p = (0..self.piles.len()).find(|&p| {
                let l = self.piles[p].len();
                Some(p) != keep && l > 1 && g.card[self.piles[p][l - 1]] as usize == need
            });
            match p {
                Some(p) if !g.pinned[need] => {
                    let x = self.piles[p].pop().unwrap();
                    self.found[su][f] += 1;
                    self.record(x, format!("t{}", p + 1), "f".into());
                }
                _ => {
                    let mut pins = vec![need];
                    for pile in &self.piles {
                        if let Some(k) = pile.iter().position(|&x| g.card[x] as usize == need) {
                            if k + 1 < pile.len() {
                                pins.push(g.card[pile[k + 1]] as usize);
                            }
                        }
                    }
                    return Err(pins);
                }
            }
        }
        Ok(f)
    }

    /// Fills pile `p` if it is empty (from the waste, else the stock).
    fn fill(&mut self, g: &Game, p: usize) {
        if self.piles[p].is_empty() {
            if let Some(t) = self.waste.pop() {
                self.piles[p].push(t);
                self.record(t, "w".into(), format!("t{}", p + 1));
            } else if self.i < g.s0 {
                let t = g.w0 + self.i;
                self.piles[p].push(t);
                self.i += 1;
                self.record(t, "s".into(), format!("t{}", p + 1));
            }
        }
    }

    /// Where card `id` (still in its place; `from`: its pile, if in the tableau) goes for
    /// the abstract status `to`: home, onto a real top parent, or onto a given copy. Cards
    /// may go home first to make room. `why`: why the abstraction let an unpinned card out
    /// (it fits home, a parent is present).
    fn dest(
        &mut self,
        g: &Game,
        id: usize,
        from: Option<usize>,
        to: u8,
        why: (bool, bool),
    ) -> Result<Dest, Pins> {
        let v = g.card[id] as usize;
        match to {
            HOME => Ok(Dest::Home(self.raise(g, v, from)?)),
            ON0 | ON1 => {
                if rank(v) == 13 {
                    return Err(vec![v]);
                }
                let y = g.copies[v + 4][(to - ON0) as usize] as usize;
                let (p, k) = self.pile_of(y).ok_or(vec![v + 4])?;
                if k + 1 != self.piles[p].len() {
                    return Err(vec![g.card[self.piles[p][k + 1]] as usize, v + 4]);
                }
                Ok(Dest::Pile(p))
            }
            FREE => Ok(Dest::Pile(
                self.top_with(g, v + 4, from).ok_or(vec![v + 4, v])?,
            )),
            _ => {
                // OUT: home, else onto a parent, else home after others.
                if let Some(f) = self.fits(v) {
                    return Ok(Dest::Home(f));
                }
                if rank(v) < 13 {
                    if let Some(p) = self.top_with(g, v + 4, from) {
                        return Ok(Dest::Pile(p));
                    }
                }
                let (fits, present) = why;
                if present {
                    return Err(vec![v + 4, v]);
                }
                if fits {
                    return Ok(Dest::Home(self.raise(g, v, from)?));
                }
                Err(vec![v])
            }
        }
    }

    /// Moves card `id`, already taken from `from` (a pile name), to `d`.
    fn put(&mut self, id: usize, from: String, d: Dest) {
        match d {
            Dest::Home(f) => {
                let v = self.card[id].index();
                self.found[v % 4][f] += 1;
                self.record(id, from, "f".into());
            }
            Dest::Pile(p) => {
                self.piles[p].push(id);
                self.record(id, from, format!("t{}", p + 1));
            }
        }
    }

    /// Moves the top card `id` of a pile to the abstract status `to` (filling its pile if
    /// it empties; a pending fill fails, naming the cards the abstraction let out above the
    /// waste top).
    fn move_top(
        &mut self,
        g: &Game,
        a: &St,
        id: usize,
        to: u8,
        why: (bool, bool),
        fill: Fill,
    ) -> Result<(), Pins> {
        let (p, k) = self.pile_of(id).ok_or(vec![g.card[id] as usize])?;
        if k + 1 != self.piles[p].len() {
            return Err(vec![
                g.card[self.piles[p][k + 1]] as usize,
                g.card[id] as usize,
            ]);
        }
        let d = self.dest(g, id, Some(p), to, why)?;
        if self.piles[p].len() == 1 && fill == Fill::Pend {
            let from = g.waste_top(a).map_or(0, |t| t + 1);
            return Err((from..g.w0 + a.i as usize)
                .filter(|&x| a.st[x] == OUT || a.st[x] == FREE)
                .map(|x| g.card[x] as usize)
                .collect());
        }
        self.piles[p].pop();
        self.put(id, format!("t{}", p + 1), d);
        self.fill(g, p);
        Ok(())
    }

    /// Moves the waste's top card to the abstract status `to`.
    fn move_waste_top(&mut self, g: &Game, to: u8, why: (bool, bool)) -> Result<(), Pins> {
        let t = *self.waste.last().ok_or(vec![])?;
        let d = self.dest(g, t, None, to, why)?;
        self.waste.pop();
        self.put(t, "w".into(), d);
        Ok(())
    }

    /// Replays one abstract step `a -> b` by `mv`; Err(values to pin).
    pub fn step(&mut self, g: &Game, a: &St, mv: Mv, b: &St) -> Result<(), Pins> {
        let inf = g.info(a);
        let why = |v: usize| (g.fits(&inf, v), rank(v) < 13 && inf.intab[v + 4] > 0);
        match mv {
            Mv::Deal => {
                let t = g.w0 + self.i;
                self.waste.push(t);
                self.i += 1;
                self.record(t, "s".into(), "w".into());
            }
            Mv::FillPending => return Err(vec![]),
            Mv::WasteHome => self.move_waste_top(g, HOME, (false, false))?,
            Mv::WastePut(to) => self.move_waste_top(g, to, (false, false))?,
            Mv::Home(id, f) => self.move_top(g, a, id as usize, HOME, (false, false), f)?,
            Mv::Put(id, to, f) => self.move_top(g, a, id as usize, to, (false, false), f)?,
            Mv::Release(id, f) => {
                let id = id as usize;
                let v = g.card[id] as usize;
                let (p, _) = self.pile_of(id).ok_or(vec![v])?;
                if self.piles[p].len() > 1 {
                    return Err(vec![g.card[self.piles[p][1]] as usize, v]);
                }
                self.move_top(g, a, id, OUT, why(v), f)?;
            }
        }
        self.outs(g, a, b)
    }

    /// Plays the greedy step's outs of the abstract step `a -> b` (the waste tops that
    /// went out).
    pub fn outs(&mut self, g: &Game, a: &St, b: &St) -> Result<(), Pins> {
        while let Some(&t) = self.waste.last() {
            if b.st[t] != OUT && b.st[t] != FREE {
                break;
            }
            let mid = {
                let mut m = *b;
                for id in 0..g.n {
                    if id <= t && a.st[id] == WASTE && (b.st[id] == OUT || b.st[id] == FREE) {
                        m.st[id] = WASTE;
                    }
                }
                m
            };
            let i2 = g.info(&mid);
            let v = g.card[t] as usize;
            let why = (g.fits(&i2, v), rank(v) < 13 && i2.intab[v + 4] > 0);
            self.move_waste_top(g, b.st[t], why)?;
        }
        Ok(())
    }

    /// With stock and waste empty, every card goes home (the lowest foundation's next
    /// card always lies on top); the whole line, for the checker.
    pub fn finish(mut self, g: &Game) -> Vec<Step> {
        while self.waste.is_empty() && self.i == g.s0 {
            let mut moved = false;
            for p in 0..self.piles.len() {
                if let Some(&t) = self.piles[p].last() {
                    let v = self.card[t].index();
                    if let Some(f) = self.fits(v) {
                        self.piles[p].pop();
                        self.found[v % 4][f] += 1;
                        self.record(t, format!("t{}", p + 1), "f".into());
                        moved = true;
                    }
                }
            }
            if !moved {
                break;
            }
        }
        self.steps
    }
}

/// How a refinement loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// An abstraction has no win: the deal is lost.
    Lost,
    /// An abstract line replayed to a real one that empties stock and waste.
    Won,
    /// The abstract search ran past its state budget.
    Limit,
}

/// One round's record: pinned values, abstract states searched, line length, where it failed.
pub struct Round {
    pub pinned: usize,
    pub states: usize,
    pub line: usize,
    pub failed_at: Option<usize>,
    pub new: Vec<usize>,
}

/// The refinement loop from nothing pinned.
#[allow(clippy::type_complexity)]
pub fn cegar(
    deal: &Deal,
    max: usize,
    mut log: impl FnMut(&Round),
) -> (End, Vec<Round>, Option<Vec<Step>>) {
    let mut pinned = [false; 52];
    let mut rounds = Vec::new();
    loop {
        let (g, root) = Game::new(deal, pinned);
        let (r, n) = g.solve(&root, max);
        let np = pinned.iter().filter(|&&p| p).count();
        let path = match r {
            Err(()) => return (End::Limit, rounds, None),
            Ok(None) => return (End::Lost, rounds, None),
            Ok(Some(path)) => path,
        };
        let mut real = Real::new(&g, deal);
        let mut fail = real.outs(&g, &g.root0, &path[0].1).err().map(|p| (0, p));
        if fail.is_none() {
            for k in 1..path.len() {
                if let Err(p) = real.step(&g, &path[k - 1].1, path[k].0, &path[k].1) {
                    fail = Some((k, p));
                    break;
                }
            }
        }
        let Some((k, p)) = fail else {
            let r = Round {
                pinned: np,
                states: n,
                line: path.len(),
                failed_at: None,
                new: vec![],
            };
            log(&r);
            rounds.push(r);
            return (End::Won, rounds, Some(real.finish(&g)));
        };
        if std::env::var_os("PIN_DEBUG").is_some() {
            eprintln!("fail at {k}: move {:?} pins {:?}", path[k].0, p);
            eprintln!(
                "  real waste top {:?} piles {:?}",
                real.waste.last().map(|&t| g.card[t]),
                real.piles
                    .iter()
                    .map(|p| p.iter().map(|&x| g.card[x]).collect::<Vec<_>>())
                    .collect::<Vec<_>>()
            );
            eprintln!("  found {:?}", real.found);
            let a = &path[k - 1].1;
            eprintln!("  abstract top {:?}", g.waste_top(a).map(|t| g.card[t]));
        }
        let mut new: Vec<usize> = p.into_iter().filter(|&v| !pinned[v]).collect();
        new.sort_unstable();
        new.dedup();
        if new.is_empty() {
            // Nothing named: pin the real waste's cards from the top, then any value.
            new = real
                .waste
                .iter()
                .rev()
                .map(|&id| g.card[id] as usize)
                .chain(0..52)
                .filter(|&v| !pinned[v])
                .take(1)
                .collect();
        }
        if new.is_empty() {
            return (End::Limit, rounds, None);
        }
        for &v in &new {
            pinned[v] = true;
        }
        let r = Round {
            pinned: np,
            states: n,
            line: path.len(),
            failed_at: Some(k),
            new,
        };
        log(&r);
        rounds.push(r);
    }
}
