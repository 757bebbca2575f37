//! The courtyard relaxation as CNF: a formula that every winning line of a position
//! satisfies, so that a proof of *unsatisfiable* proves the position lost.
//!
//! # The clock
//! A card leaves the waste at an *event* (a stock card dealt straight into an emptied pile
//! counts as dealt to the waste and leaving it at once). The waste and the stock hold `N`
//! cards, and in a won game each leaves the waste exactly once, so a win has exactly `N`
//! events. State `s` (1..=N) is the position right after event `s`; state 0 is the position
//! given. *Gap* `s` is everything between state `s - 1` and state `s`: any number of tableau
//! moves, moves home and deals from the stock, then event `s` (which ends the gap). Only the
//! states are variables; what happens inside a gap is constrained only through them.
//!
//! # Variables, per card and state
//! `x` dealt (stock cards), `w` in the waste, `h` home, `t` in the tableau, `b` a pile's bottom,
//! `p[q]` lying on card `q` (one of the two copies of its parent value, same suit one rank up);
//! per card and gap: `moved` (it left its place at some moment of the gap), `avail` (it lay
//! in the tableau with no card on it at some moment of the gap before its event).
//!
//! # The clauses, and why a winning line satisfies each
//! Take a winning line, set every variable from the positions it passes through, `moved` and
//! `avail` from what happens in each gap. Then:
//!
//! - **S1 place.** A dealt card is in exactly one of the waste, the tableau, home; an undealt
//!   one in none. (Positions are positions.)
//! - **S2 piles are runs.** A tableau card is a bottom or lies on exactly one copy of its
//!   parent value, itself in the tableau; a king is a bottom; a card holds at most one card.
//!   (A card goes on the same suit one rank higher, one card on a card.)
//! - **S3 foundations.** In each suit, the cards of rank `r` home are at most those of rank
//!   `r - 1`. (Each suit has two foundations, each built from its ace up.)
//! - **S4 twelve piles.** Before the last state exactly 12 cards are bottoms: the stock or
//!   the waste still holds a card, so an emptied pile has been filled at once, and each pile
//!   has one bottom. Counted with a sequential counter whose outputs are defined both ways,
//!   so that a refutation can count (without it, proofs that "too many cards need a pile"
//!   are pigeonhole arguments, which resolution finds only at exponential cost: measured,
//!   the counter makes them 4 to 10 times faster).
//! - **T1 one way.** Home is for good (no foundation return); a tableau card leaves only for
//!   home; a card that left the waste never comes back; dealt cards are a prefix of the stock
//!   and stay dealt.
//! - **T2 one event a gap, from the top.** Exactly one card leaves the waste in a gap, and no
//!   card dealt after it lies in the waste at the state after: it was the waste's top, and
//!   the cards dealt in the gap came before the event, so on top of it.
//! - **T3 fills.** A tableau card that is not a bottom never becomes one; a new bottom is the
//!   card of the gap's event; at most one bottom leaves and at most one arrives in a gap, and
//!   before the last state one leaves exactly when one arrives. (A pile empties when its
//!   bottom leaves, and is filled at once, by the next event; so the move that empties it is
//!   the gap's last move before its event, and a gap empties at most one pile.)
//! - **T4 only tops move.** A card whose place changed in a gap moved; a card that moved had
//!   the card on it (at the state before) move first.
//! - **T5 onto a top.** A card that lies on `q` after a gap and not before: the card on `q`
//!   before moved (it had left `q` when the new one arrived).
//! - **T6 available.** A card available in a gap was in the tableau before it, and the card
//!   on it before moved. (It is a top at that moment; cards enter the tableau only at events,
//!   the gap's last moment, after which nothing moves onto them in that gap.)
//! - **T7 somewhere to go.** A card that moved in a gap is home after it, or was once able to
//!   go onto a copy of its parent value other than the one it lay on: that copy was available.
//!   (Its first move took it home, for good, or onto such a copy, then a top.)
//! - **T8 nothing on a newcomer.** A card that lies on `q` after a gap has `q` in the tableau
//!   before it (a card the event brought in is the gap's last arrival).
//! - **T9 two on two.** If both copies of a value hold the two copies of the value below and
//!   one of those moves in a gap, one of them is home after it: the first of the two to move
//!   could only go home, the other copy of the value above being covered by the other.
//! - **Goal.** There are `N` states: every card of the waste and stock leaves the waste.
//!
//! Every clause holds on the winning line's assignment, so a formula with no model proves
//! that no winning line exists. The formula does not follow the cards inside a gap, so it
//! admits lines the game does not (a card may leave a run and come back in one gap, moves
//! need not be ordered consistently with the foundations' growth inside a gap): that is the
//! relaxation, and why a model is not a win.
//!
//! `tests/it/courtyard_sat.rs` holds the soundness test: positions whose verdict is known
//! from elsewhere (the exact layered search, and positions along replayed wins), never
//! refuted where a win exists.

use super::cnf::{Cnf, FALSE, TRUE};
use crate::deal::Deal;

/// Where a card is in the position given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// In the tableau, on card `parent` (an index into [`Model::cards`]) or a bottom.
    Tableau { parent: Option<usize> },
    /// In the waste, this many cards from its bottom.
    Waste(usize),
    /// In the stock, dealt `d`-th (from 1).
    Stock(usize),
}

/// A card of the model (the cards home at the start are left out: they stay there).
#[derive(Clone, Copy, Debug)]
struct Card {
    suit: usize,
    rank: u8,
    origin: Origin,
}

/// The formula of a position, and its variables (to read a model back).
pub struct Model {
    cards: Vec<Card>,
    /// The last state (`N`).
    last: usize,
    piles: usize,
    home0: [u8; 52],
    /// Per state, per card.
    x: Vec<Vec<i32>>,
    w: Vec<Vec<i32>>,
    h: Vec<Vec<i32>>,
    t: Vec<Vec<i32>>,
    b: Vec<Vec<i32>>,
    /// Per state, per card: (the card it may lie on, the variable).
    p: Vec<Vec<Vec<(usize, i32)>>>,
    /// The copies of each card's parent value.
    parents: Vec<Vec<usize>>,
    /// The cards of the waste and stock, in the order they reach the waste.
    order: Vec<usize>,
    /// The formula.
    pub cnf: Cnf,
}

/// The literal of a card lying on `q`, from its list of parent literals (false where it
/// cannot).
fn on(parents: &[(usize, i32)], q: usize) -> i32 {
    parents.iter().find(|y| y.0 == q).map_or(FALSE, |y| y.1)
}

/// The cards of `deal` outside the foundations, and the cards home (by value index).
fn cards_of(deal: &Deal) -> (Vec<Card>, [u8; 52]) {
    let mut cards = Vec::new();
    let mut home = [0u8; 52];
    for (f, &height) in deal.foundations.iter().enumerate() {
        for r in 1..=height {
            home[(r as usize - 1) * 4 + f % 4] += 1;
        }
    }
    for pile in &deal.tableau {
        let mut below = None;
        for c in pile {
            cards.push(Card {
                suit: c.suit_index(),
                rank: c.rank(),
                origin: Origin::Tableau { parent: below },
            });
            below = Some(cards.len() - 1);
        }
    }
    for (i, c) in deal.waste.iter().enumerate() {
        cards.push(Card {
            suit: c.suit_index(),
            rank: c.rank(),
            origin: Origin::Waste(i),
        });
    }
    for (i, c) in deal.stock.iter().enumerate() {
        cards.push(Card {
            suit: c.suit_index(),
            rank: c.rank(),
            origin: Origin::Stock(i + 1),
        });
    }
    (cards, home)
}

impl Model {
    /// The formula of a courtyard position (`deal`: its tableau, foundations, waste and
    /// stock).
    pub fn new(deal: &Deal) -> Model {
        let (cards, home0) = cards_of(deal);
        let n = cards.len();
        let waste0 = deal.waste.len();
        let last = deal.stock.len() + waste0;
        let states = last + 1;
        let parents = (0..n)
            .map(|i| {
                (0..n)
                    .filter(|&j| {
                        cards[j].suit == cards[i].suit && cards[j].rank == cards[i].rank + 1
                    })
                    .collect()
            })
            .collect();
        let mut order: Vec<usize> = (0..n)
            .filter(|&i| !matches!(cards[i].origin, Origin::Tableau { .. }))
            .collect();
        order.sort_by_key(|&i| match cards[i].origin {
            Origin::Waste(j) => j,
            Origin::Stock(d) => waste0 + d,
            Origin::Tableau { .. } => 0,
        });
        let mut m = Model {
            cards,
            last,
            piles: deal.tableau.len(),
            home0,
            x: vec![vec![FALSE; n]; states],
            w: vec![vec![FALSE; n]; states],
            h: vec![vec![FALSE; n]; states],
            t: vec![vec![FALSE; n]; states],
            b: vec![vec![FALSE; n]; states],
            p: vec![vec![Vec::new(); n]; states],
            parents,
            order,
            cnf: Cnf::new(),
        };
        m.start();
        for s in 1..states {
            m.state(s, waste0);
        }
        for s in 1..states {
            m.gap(s);
        }
        m
    }

    /// State 0: the position given, as constants.
    fn start(&mut self) {
        for i in 0..self.cards.len() {
            match self.cards[i].origin {
                Origin::Tableau { parent } => {
                    self.x[0][i] = TRUE;
                    self.t[0][i] = TRUE;
                    match parent {
                        None => self.b[0][i] = TRUE,
                        Some(q) => self.p[0][i].push((q, TRUE)),
                    }
                }
                Origin::Waste(_) => {
                    self.x[0][i] = TRUE;
                    self.w[0][i] = TRUE;
                }
                Origin::Stock(_) => {}
            }
        }
    }

    /// The variables of state `s` and the clauses S1-S4 on them.
    fn state(&mut self, s: usize, waste0: usize) {
        let n = self.cards.len();
        let c = &mut self.cnf;
        for i in 0..n {
            let card = self.cards[i];
            // Dealt: by state s, s events have happened, each to a dealt card, so the first
            // s - waste0 stock cards are dealt; later ones may be.
            self.x[s][i] = match card.origin {
                Origin::Stock(d) if d + waste0 > s => c.var(),
                _ => TRUE,
            };
            let x = self.x[s][i];
            let (w, h, t, b) = (
                if matches!(card.origin, Origin::Tableau { .. }) {
                    FALSE
                } else {
                    c.var()
                },
                c.var(),
                c.var(),
                c.var(),
            );
            (self.w[s][i], self.h[s][i], self.t[s][i], self.b[s][i]) = (w, h, t, b);
            // S1
            c.add(&[-x, w, h, t]);
            for l in [w, h, t] {
                c.add(&[x, -l]);
            }
            c.add(&[-w, -h]);
            c.add(&[-w, -t]);
            c.add(&[-h, -t]);
            // S2: a bottom is in the tableau; a king is a bottom
            c.add(&[-b, t]);
            if card.rank == 13 {
                c.add(&[-t, b]);
            }
        }
        for i in 0..n {
            let mut opts = vec![self.b[s][i]];
            for k in 0..self.parents[i].len() {
                let q = self.parents[i][k];
                let v = c.var();
                c.add(&[-v, self.t[s][i]]);
                c.add(&[-v, self.t[s][q]]);
                self.p[s][i].push((q, v));
                opts.push(v);
            }
            // S2: a tableau card is a bottom or on exactly one parent
            let mut cl = vec![-self.t[s][i]];
            cl.extend(&opts);
            c.add(&cl);
            c.at_most_one(&opts);
        }
        // S2: one card on a card
        for q in 0..n {
            let kids: Vec<i32> = (0..n)
                .flat_map(|i| self.p[s][i].iter().filter(|y| y.0 == q).map(|y| y.1))
                .collect();
            c.at_most_one(&kids);
        }
        // S3
        for suit in 0..4 {
            let home = |rank: u8, h: &Vec<Vec<i32>>| -> Vec<i32> {
                let mut v: Vec<i32> = (0..n)
                    .filter(|&i| self.cards[i].suit == suit && self.cards[i].rank == rank)
                    .map(|i| h[s][i])
                    .collect();
                v.extend(
                    std::iter::repeat(TRUE)
                        .take(self.home0[(rank as usize - 1) * 4 + suit] as usize),
                );
                v
            };
            for r in 2..=13u8 {
                let (hi, lo) = (home(r, &self.h), home(r - 1, &self.h));
                debug_assert_eq!((hi.len(), lo.len()), (2, 2));
                for &y in &hi {
                    c.add(&[-y, lo[0], lo[1]]);
                }
                c.add(&[-hi[0], -hi[1], lo[0]]);
                c.add(&[-hi[0], -hi[1], lo[1]]);
            }
        }
        // S4
        if s < self.last {
            let bottoms: Vec<i32> = self.b[s].clone();
            c.exactly(&bottoms, self.piles);
        }
    }

    /// The clauses T1-T9 of gap `s`. (Cards are indexes into several parallel tables, so the
    /// loops count.)
    #[allow(clippy::needless_range_loop)]
    fn gap(&mut self, s: usize) {
        let n = self.cards.len();
        let stock: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|&i| matches!(self.cards[i].origin, Origin::Stock(_)))
            .collect();
        let c = &mut self.cnf;
        // T1: dealt cards are a prefix of the stock and stay dealt
        let mut dealt_now = vec![FALSE; n];
        for (k, &i) in stock.iter().enumerate() {
            let (now, before) = (self.x[s][i], self.x[s - 1][i]);
            if k > 0 {
                c.add(&[-now, self.x[s][stock[k - 1]]]);
            }
            c.add(&[-before, now]);
            dealt_now[i] = c.and(&[now, -before]);
        }
        // T1, T2: the waste
        let mut leaves = Vec::with_capacity(self.order.len());
        for &i in &self.order {
            let (now, before) = (self.w[s][i], self.w[s - 1][i]);
            c.add(&[-now, before, dealt_now[i]]);
            let was = c.or(&[before, dealt_now[i]]);
            leaves.push(c.and(&[was, -now]));
        }
        c.add(&leaves);
        c.at_most_one(&leaves);
        let mut above = FALSE;
        for k in (0..self.order.len()).rev() {
            c.add(&[-leaves[k], -above]);
            above = c.or(&[above, self.w[s][self.order[k]]]);
        }
        let mut left = vec![FALSE; n];
        for (k, &i) in self.order.iter().enumerate() {
            left[i] = leaves[k];
        }
        // T3: fills
        let gone: Vec<i32> = (0..n)
            .map(|i| c.and(&[self.b[s - 1][i], -self.b[s][i]]))
            .collect();
        let new: Vec<i32> = (0..n)
            .map(|i| c.and(&[-self.b[s - 1][i], self.b[s][i]]))
            .collect();
        c.at_most_one(&gone);
        c.at_most_one(&new);
        let (any_gone, any_new) = (c.or(&gone), c.or(&new));
        if s < self.last {
            c.add(&[-any_gone, any_new]);
        }
        c.add(&[-any_new, any_gone]);
        let moved: Vec<i32> = (0..n).map(|_| c.var()).collect();
        let avail: Vec<i32> = (0..n).map(|_| c.var()).collect();
        for i in 0..n {
            let (h, t, b) = (self.h[s][i], self.t[s][i], self.b[s][i]);
            let (ph, pt, pb) = (self.h[s - 1][i], self.t[s - 1][i], self.b[s - 1][i]);
            // T1
            c.add(&[-ph, h]);
            c.add(&[-pt, t, h]);
            // T3
            c.add(&[-pt, pb, -b]);
            c.add(&[-b, pb, left[i]]);
            // T4: a change of place is a move
            c.add(&[-pt, t, moved[i]]);
            c.add(&[-pb, b, moved[i]]);
            for &(q, v) in &self.p[s - 1][i] {
                let now = on(&self.p[s][i], q);
                c.add(&[-v, now, moved[i]]);
            }
            // T6
            c.add(&[-avail[i], pt]);
        }
        for i in 0..n {
            for k in 0..n {
                let kid = on(&self.p[s - 1][k], i);
                if kid == FALSE {
                    continue;
                }
                // T4: the card on a mover moved
                c.add(&[-moved[i], -kid, moved[k]]);
                // T6: the card on an available card moved
                c.add(&[-avail[i], -kid, moved[k]]);
            }
            for &(q, v) in &self.p[s][i] {
                let before = on(&self.p[s - 1][i], q);
                // T8
                c.add(&[-v, self.t[s - 1][q]]);
                // T5
                for k in 0..n {
                    if k == i {
                        continue;
                    }
                    let kid = on(&self.p[s - 1][k], q);
                    if kid != FALSE {
                        c.add(&[-v, before, -kid, moved[k]]);
                    }
                }
            }
            // T7
            if self.t[s - 1][i] != FALSE {
                let mut cl = vec![-moved[i], -self.b[s - 1][i], self.h[s][i]];
                cl.extend(self.parents[i].iter().map(|&q| avail[q]));
                c.add(&cl);
                for &(q, on) in &self.p[s - 1][i] {
                    let mut cl = vec![-moved[i], -on, self.h[s][i]];
                    cl.extend(
                        self.parents[i]
                            .iter()
                            .filter(|&&o| o != q)
                            .map(|&o| avail[o]),
                    );
                    c.add(&cl);
                }
            }
        }
        // T9
        for c1 in 0..n {
            for c2 in 0..n {
                let (a, b) = (self.cards[c1], self.cards[c2]);
                if c1 == c2 || a.suit != b.suit || a.rank != b.rank {
                    continue;
                }
                for &(q1, on1) in &self.p[s - 1][c1] {
                    for &(q2, on2) in &self.p[s - 1][c2] {
                        if q1 != q2 {
                            c.add(&[-on1, -on2, -moved[c1], self.h[s][c1], self.h[s][c2]]);
                        }
                    }
                }
            }
        }
    }

    /// The number of events (`N`, the last state).
    pub fn events(&self) -> usize {
        self.last
    }

    /// A model read back as the card each event takes out of the waste and where it goes,
    /// one line an event (for the research programs and the "first rule it breaks").
    pub fn describe(&self, value: &dyn Fn(i32) -> bool) -> Vec<String> {
        let val = |l: i32| l == TRUE || (l != FALSE && value(l));
        let name = |i: usize| {
            let c = self.cards[i];
            let r = b"A23456789TJQK"[c.rank as usize - 1] as char;
            let s = b"CDHS"[c.suit] as char;
            match c.origin {
                Origin::Stock(d) => format!("{r}{s}#{d}"),
                _ => format!("{r}{s}"),
            }
        };
        let place = |s: usize, i: usize| -> String {
            if val(self.h[s][i]) {
                "home".into()
            } else if val(self.w[s][i]) {
                "waste".into()
            } else if val(self.t[s][i]) {
                if val(self.b[s][i]) {
                    "bottom".into()
                } else {
                    match self.p[s][i].iter().find(|y| val(y.1)) {
                        Some(&(q, _)) => format!("on {}", name(q)),
                        None => "?".into(),
                    }
                }
            } else {
                "stock".into()
            }
        };
        (1..=self.last)
            .map(|s| {
                let changes: Vec<String> = (0..self.cards.len())
                    .filter_map(|i| {
                        let (a, b) = (place(s - 1, i), place(s, i));
                        (a != b && b != "stock").then(|| format!("{}: {a} -> {b}", name(i)))
                    })
                    .collect();
                format!("event {s}: {}", changes.join("; "))
            })
            .collect()
    }
}
