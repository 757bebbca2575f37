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
//! - **S4 twelve piles.** At every state exactly 12 cards are bottoms: a pile emptied in a
//!   gap was filled at once, because the stock or the waste still held a card (the gap's
//!   event's, at least), and each pile has one bottom. Counted with a sequential counter
//!   whose outputs are defined both ways, so that a refutation can count (without it,
//!   proofs that "too many cards need a pile" are pigeonhole arguments, which resolution
//!   finds only at exponential cost: measured, the counter makes them 4 to 10 times faster).
//! - **T1 one way.** Home is for good (no foundation return); a tableau card leaves only for
//!   home; a card that left the waste never comes back; dealt cards are a prefix of the stock
//!   and stay dealt.
//! - **T2 one event a gap, from the top.** Exactly one card leaves the waste in a gap, and no
//!   card dealt after it lies in the waste at the state after: it was the waste's top, and
//!   the cards dealt in the gap came before the event, so on top of it.
//! - **T3 fills.** A tableau card that is not a bottom never becomes one; a new bottom is the
//!   card of the gap's event; at most one bottom leaves and at most one arrives in a gap, and
//!   one leaves exactly when one arrives, in the last gap too (until its event the waste or
//!   the stock holds that event's card, which fills the emptied pile). (A pile empties when
//!   its bottom leaves, and is filled at once, by the next event; so the move that empties it
//!   is the gap's last move before its event, and a gap empties at most one pile.)
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
//! - **T10 home in order inside a gap.** A card that goes home in a gap needs a copy of
//!   the value below it home before its move: home at the state before, or sent home from
//!   the tableau earlier in the gap (the only cards that move in a gap besides the event's
//!   are tableau cards, there since the state before: cards enter the tableau only at
//!   events). For a card that was in the tableau that copy cannot be the event's card (the
//!   gap's last move), nor a bottom that leaves (its pile empties, and the fill is the
//!   event, at once: the stock or the waste still holds the event's card); both copies of a
//!   value sent home from the tableau in one gap need both copies below so (they go on two
//!   foundations).
//! - **T11 a leaving bottom holds nothing.** A bottom that left its pile in a gap and is
//!   still in the tableau after it has no card on it: it was a top when it moved, its move
//!   was the gap's last before the event (T3), and the event fills the emptied pile.
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

/// Where a card is at a state, as a model says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Not dealt yet.
    Stock,
    /// In the waste.
    Waste,
    /// On a foundation.
    Home,
    /// A tableau pile's bottom card.
    Bottom,
    /// In the tableau, on this card (an index into the model's cards).
    On(usize),
    /// Dealt but nowhere (no model of the formula says so).
    Nowhere,
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
            m.home_in_order(s);
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
        let bottoms: Vec<i32> = self.b[s].clone();
        c.exactly(&bottoms, self.piles);
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
        c.add(&[-any_gone, any_new]);
        c.add(&[-any_new, any_gone]);
        // T11
        for k in 0..n {
            for &(q, v) in &self.p[s][k] {
                c.add(&[-gone[q], -v]);
            }
        }
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

    /// T10: home in order inside a gap (see the module's opening).
    fn home_in_order(&mut self, s: usize) {
        let n = self.cards.len();
        let c = &mut self.cnf;
        // Home before the gap, or on the way home from the tableau before the event
        // (`early`: not a leaving bottom, whose move is the last before the event).
        let mut early = vec![FALSE; n];
        let mut late = vec![FALSE; n];
        for j in 0..n {
            let (ph, pt, pb, h) = (
                self.h[s - 1][j],
                self.t[s - 1][j],
                self.b[s - 1][j],
                self.h[s][j],
            );
            let any = c.and(&[pt, h]);
            let not_bottom = c.and(&[pt, -pb, h]);
            late[j] = c.or(&[ph, any]);
            early[j] = c.or(&[ph, not_bottom]);
        }
        for i in 0..n {
            let card = self.cards[i];
            if card.rank == 1 {
                continue;
            }
            let value = |rank: u8| (rank as usize - 1) * 4 + card.suit;
            let home_below = self.home0[value(card.rank - 1)];
            if home_below == 2 {
                continue;
            }
            let copies = |rank: u8| -> Vec<usize> {
                (0..n)
                    .filter(|&j| self.cards[j].suit == card.suit && self.cards[j].rank == rank)
                    .collect()
            };
            let below = copies(card.rank - 1);
            let (h, ph, pt) = (self.h[s][i], self.h[s - 1][i], self.t[s - 1][i]);
            if home_below == 0 {
                let mut cl = vec![-h, ph];
                cl.extend(below.iter().map(|&j| late[j]));
                c.add(&cl);
                if pt != FALSE {
                    let mut cl = vec![-pt, -h];
                    cl.extend(below.iter().map(|&j| early[j]));
                    c.add(&cl);
                }
            }
            // The other copy of this value home before this one's move from the tableau
            // (home at the start, or `late`): then both copies below were home by it.
            if pt == FALSE {
                continue;
            }
            let mut others: Vec<i32> = copies(card.rank)
                .into_iter()
                .filter(|&o| o != i)
                .map(|o| late[o])
                .collect();
            if self.home0[value(card.rank)] > 0 {
                others.push(TRUE);
            }
            for &other in &others {
                for &j in &below {
                    c.add(&[-pt, -h, -other, early[j]]);
                }
            }
        }
    }

    /// The number of events (`N`, the last state).
    pub fn events(&self) -> usize {
        self.last
    }

    /// The cards of the model (those home at the start are left out).
    pub fn cards(&self) -> usize {
        self.cards.len()
    }

    /// Card `i` as a playing card.
    pub fn card(&self, i: usize) -> crate::card::Card {
        let c = self.cards[i];
        crate::card::Card::new(c.rank, crate::card::Suit::from_index(c.suit))
    }

    /// Card `i`'s name in a model's description: its value, and `#d` for the `d`-th card
    /// the stock deals (the two copies of a value are told apart by where they start).
    pub fn name(&self, i: usize) -> String {
        match self.cards[i].origin {
            Origin::Stock(d) => format!("{}#{d}", self.card(i)),
            _ => self.card(i).to_string(),
        }
    }

    /// Where a model puts card `i` at state `s`.
    pub fn place(&self, s: usize, i: usize, value: &dyn Fn(i32) -> bool) -> Place {
        let val = |l: i32| l == TRUE || (l != FALSE && value(l));
        if val(self.h[s][i]) {
            Place::Home
        } else if val(self.w[s][i]) {
            Place::Waste
        } else if val(self.t[s][i]) {
            if val(self.b[s][i]) {
                Place::Bottom
            } else {
                self.p[s][i]
                    .iter()
                    .find(|y| val(y.1))
                    .map_or(Place::Nowhere, |y| Place::On(y.0))
            }
        } else if val(self.x[s][i]) {
            Place::Nowhere
        } else {
            Place::Stock
        }
    }

    /// The literals that say card `i` is at `place` at state `s` (all true exactly when it
    /// is): to pin a line's states on the formula.
    pub fn literals(&self, s: usize, i: usize, place: Place) -> Vec<i32> {
        let (x, w, h, t, b) = (
            self.x[s][i],
            self.w[s][i],
            self.h[s][i],
            self.t[s][i],
            self.b[s][i],
        );
        let mut v = match place {
            Place::Stock => vec![-x],
            Place::Waste => vec![x, w],
            Place::Home => vec![x, h],
            Place::Bottom => vec![x, t, b],
            Place::On(q) => vec![x, t, -b, on(&self.p[s][i], q)],
            Place::Nowhere => vec![x, -w, -h, -t],
        };
        if let Place::On(q) = place {
            v.extend(self.p[s][i].iter().filter(|y| y.0 != q).map(|y| -y.1));
        }
        v
    }

    /// A model read back as the card each event takes out of the waste and where it goes,
    /// one line an event (for the research programs and the "first rule it breaks").
    pub fn describe(&self, value: &dyn Fn(i32) -> bool) -> Vec<String> {
        (1..=self.last)
            .map(|s| {
                let changes: Vec<String> = (0..self.cards.len())
                    .filter_map(|i| {
                        let (a, b) = (self.place(s - 1, i, value), self.place(s, i, value));
                        (a != b && b != Place::Stock).then(|| {
                            format!("{}: {} -> {}", self.name(i), self.show(a), self.show(b))
                        })
                    })
                    .collect();
                format!("event {s}: {}", changes.join("; "))
            })
            .collect()
    }

    /// A place in words.
    pub fn show(&self, place: Place) -> String {
        match place {
            Place::Stock => "stock".into(),
            Place::Waste => "waste".into(),
            Place::Home => "home".into(),
            Place::Bottom => "bottom".into(),
            Place::On(q) => format!("on {}", self.name(q)),
            Place::Nowhere => "?".into(),
        }
    }
}
