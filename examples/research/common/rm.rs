//! A relaxed courtyard, for measurement: the stock, the waste and the foundations are exact,
//! the tableau is not. Every card in the tableau is free (it may go home whatever lies on it);
//! a waste card may go to the tableau when a copy of the card it would be built on (same suit,
//! one rank up) is in the tableau or home, however many cards that copy already holds; and a
//! pile's place is refilled from the waste (or the stock, the waste empty) when its bottom card
//! could leave: home, or onto a copy of its parent card in the tableau or home.
//!
//! Every line of the game is a line of the relaxation (a move of the game is a move here, or
//! changes nothing the relaxation keeps: a pile-to-pile move of a card that is not a bottom),
//! so a deal the relaxation cannot win is lost. Within it three moves lose nothing and are made
//! at once (`close`): a free tableau card home, the waste's top card home, and the waste's top
//! card to the tableau. What lies in the tableau or home only ever grows, and a card home or
//! in the tableau can do all that it could do from the waste (be built on, go home; a waste
//! card that would have refilled a pile could have gone to the tableau and been released at
//! once), so a state after them can do whatever the state before could.
//!
//! Cards are indices 0..52, `(rank - 1) * 4 + suit` ([`castle::Card::index`]).

use castle::state::Position;
use castle::Deal;
use std::collections::HashSet;

/// An empty pile's place (only once the stock and the waste are empty).
pub const NONE: u8 = 255;

/// A relaxed position: cards dealt, the waste (bottom to top), the foundation heights (the
/// higher of a suit's two first) and the piles' bottom cards, sorted. The tableau is every
/// card found nowhere else.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct St {
    pub i: u8,
    pub waste: Vec<u8>,
    pub found: [u8; 8],
    pub bottoms: [u8; 12],
}

impl St {
    /// The dealt position.
    pub fn of_deal(deal: &Deal) -> St {
        St::of_position(&Position::new(deal), deal.stock.len())
    }

    /// A position of the game, `dealt0` the stock's size at the deal.
    pub fn of_position(p: &Position, dealt0: usize) -> St {
        let mut bottoms = [NONE; 12];
        for (j, b) in bottoms.iter_mut().enumerate().take(p.piles()) {
            if let Some(c) = p.pile(j).first() {
                *b = c.index() as u8;
            }
        }
        bottoms.sort_unstable();
        let mut found = p.foundations();
        for su in 0..4 {
            if found[su] < found[4 + su] {
                found.swap(su, 4 + su);
            }
        }
        St {
            i: (dealt0 - p.stock().len()) as u8,
            waste: p.waste().iter().map(|c| c.index() as u8).collect(),
            found,
            bottoms,
        }
    }
}

/// The deal's stock, next card first.
pub struct Game {
    pub stock: Vec<u8>,
}

fn rank(c: u8) -> u8 {
    c / 4 + 1
}

fn suit(c: u8) -> usize {
    (c % 4) as usize
}

impl Game {
    pub fn of(deal: &Deal) -> Game {
        Game {
            stock: deal.stock.iter().map(|c| c.index() as u8).collect(),
        }
    }

    fn home_count(&self, s: &St, c: u8) -> u8 {
        let (su, r) = (suit(c), rank(c));
        u8::from(s.found[su] >= r) + u8::from(s.found[4 + su] >= r)
    }

    /// Copies of `c` in the tableau, bottoms included.
    fn tab_count(&self, s: &St, c: u8) -> u8 {
        let out = self.stock[s.i as usize..]
            .iter()
            .filter(|&&x| x == c)
            .count()
            + s.waste.iter().filter(|&&x| x == c).count();
        2 - self.home_count(s, c) - out as u8
    }

    /// The foundation `c` fits, if any.
    fn fits(&self, s: &St, c: u8) -> Option<usize> {
        let (su, r) = (suit(c), rank(c));
        if s.found[su] == r - 1 {
            Some(su)
        } else if s.found[4 + su] == r - 1 {
            Some(4 + su)
        } else {
            None
        }
    }

    fn go_home(&self, s: &mut St, f: usize) {
        s.found[f] += 1;
        let su = f % 4;
        if s.found[su] < s.found[4 + su] {
            s.found.swap(su, 4 + su);
        }
    }

    /// Whether a copy of `c`'s parent (same suit, one rank up) is in the tableau or home.
    fn parent(&self, s: &St, c: u8) -> bool {
        rank(c) < 13 && self.tab_count(s, c + 4) + self.home_count(s, c + 4) > 0
    }

    /// The moves that lose nothing (module docs), to a fixed point.
    fn close(&self, s: &mut St) {
        loop {
            let mut changed = false;
            for c in 0..52u8 {
                let bottoms = s.bottoms.iter().filter(|&&b| b == c).count() as u8;
                while self.tab_count(s, c) > bottoms {
                    let Some(f) = self.fits(s, c) else { break };
                    self.go_home(s, f);
                    changed = true;
                }
            }
            if let Some(&c) = s.waste.last() {
                if let Some(f) = self.fits(s, c) {
                    s.waste.pop();
                    self.go_home(s, f);
                    changed = true;
                } else if self.parent(s, c) {
                    s.waste.pop();
                    changed = true;
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// Won once the stock and the waste are empty: every tableau card is free to go home.
    fn won(&self, s: &St) -> bool {
        s.i as usize == self.stock.len() && s.waste.is_empty()
    }

    /// The other moves: deal a card, or release a pile's bottom card (home if it fits, else
    /// onto its parent) and refill its place.
    fn kids(&self, s: &St, out: &mut Vec<St>) {
        out.clear();
        if (s.i as usize) < self.stock.len() {
            let mut k = s.clone();
            k.waste.push(self.stock[s.i as usize]);
            k.i += 1;
            out.push(k);
        }
        for j in 0..12 {
            let b = s.bottoms[j];
            if b == NONE || (j > 0 && s.bottoms[j - 1] == b) {
                continue;
            }
            let home = self.fits(s, b);
            if home.is_none() && !self.parent(s, b) {
                continue;
            }
            let mut k = s.clone();
            if let Some(f) = home {
                self.go_home(&mut k, f);
            }
            k.bottoms[j] = if let Some(t) = k.waste.pop() {
                t
            } else if (k.i as usize) < self.stock.len() {
                k.i += 1;
                self.stock[k.i as usize - 1]
            } else {
                NONE
            };
            k.bottoms.sort_unstable();
            out.push(k);
        }
    }

    /// `Some(true)`: the relaxation can win from `root`; `Some(false)`: it cannot, so neither
    /// can the game; `None`: more than `max` states. With the states searched.
    pub fn solve(&self, mut root: St, max: usize) -> (Option<bool>, usize) {
        self.close(&mut root);
        let mut seen: HashSet<St> = HashSet::new();
        let mut stack = vec![root.clone()];
        seen.insert(root);
        let mut kids = Vec::new();
        while let Some(s) = stack.pop() {
            if self.won(&s) {
                return (Some(true), seen.len());
            }
            if seen.len() > max {
                return (None, seen.len());
            }
            self.kids(&s, &mut kids);
            for mut k in kids.drain(..) {
                self.close(&mut k);
                if seen.insert(k.clone()) {
                    stack.push(k);
                }
            }
        }
        (Some(false), seen.len())
    }
}
