//! The safe moves: foundation moves that no win can regret ([`Position::safe_move`]), each
//! build rule's proof beside its rule, the cheap check after one move
//! ([`Position::safe_move_after`]), and the quick phase's foundation moves
//! ([`Position::foundation_move`]), which play any card that fits.

use super::Position;
use crate::card::Card;
use crate::moves::{is_cell, is_tableau, Move, CELL, FOUNDATION, WASTE};

impl Position {
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
        // The rule itself lives once, in `Build::safe_home` (the game uses it too).
        let decks = if self.two_decks { 2 } else { 1 };
        self.build.safe_home(
            decks,
            c.rank(),
            || *self.found[..4].iter().min().unwrap_or(&0),
            || {
                let s = c.suit_index();
                if self.two_decks {
                    self.found[s + 4]
                } else {
                    self.found[s]
                }
            },
            || len == 1 && self.must_fill(),
        )
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
}

#[cfg(test)]
mod tests {
    use super::super::tests::every_rule_set;
    use crate::deal::Deal;
    use crate::moves::MoveList;
    use crate::state::{Position, Pruning};

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
}
