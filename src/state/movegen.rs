//! Move generation: [`Position::generate`] writes every legal move, after the exact
//! reductions switched on in [`Pruning`] (each with the reason it loses nothing beside it),
//! into a caller-owned [`MoveList`]: single-card moves between piles, cells, the waste, the
//! stock and the foundations, and run moves (through empty piles under single-card rules, as
//! one move under unlimited sequence moves). The order the search tries them in is
//! `order`'s.

use super::{Position, Pruning, MAX_CELLS, MAX_PILES};
use crate::card::{Card, Suit, KING};
use crate::deal::MAX_PILE;
use crate::moves::{is_tableau, Move, MoveList, CELL, FOUNDATION, STOCK, WASTE};
use crate::rules::Build;

impl Position {
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
            self.order(jitter, out);
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
}

impl Position {
    /// The relocation moves of the portfolio's relocating members, each a chain of legal
    /// moves written to `out` (chain `k` ends at `ends[k]`), in fc-solve's order of its
    /// meta-moves (its tests `0`, `3`, `4`, `6` and `8`), `e` the empty piles:
    /// - a pile's top card home;
    /// - a card home from under up to `e` cards, parked one to an empty pile first;
    /// - each whole ordered run of a pile, at any depth, onto an *open* card of another pile
    ///   (one with at most `e` cards above it, not already covered by a card that builds on
    ///   it), the cards above that card parked first, then the cards above the run, as long
    ///   as the empty piles left can carry the run;
    /// - a run into an empty pile: a pile's top run (not the whole pile) when the other empty
    ///   piles can carry it; a run lower down with the cards above it parked first, as much
    ///   of its top as the empty piles left can carry;
    /// - the part of a pile's top run above its lowest card onto an open card of another
    ///   pile, the cards above that card parked first (parents in fc-solve's suit order).
    ///
    /// This is not the complete move set: a single card to an empty pile, for one, is
    /// missing. It is a smaller graph of bigger steps, where a greedy or randomized search
    /// climbs far better than on single moves: a dig that takes several moves of no visible
    /// progress is one step here. The members only ever report a win, which the checker
    /// replays, so nothing here can change a verdict. Games with a stock have none (a parked
    /// card would change the fills).
    pub fn relocation_moves(&self, out: &mut Vec<Move>, ends: &mut Vec<u32>) {
        out.clear();
        ends.clear();
        if self.has_stock {
            return;
        }
        let n = self.n;
        let mut empties = [0u8; MAX_PILES];
        let mut ne = 0;
        for i in 0..n {
            if self.len[i] == 0 {
                empties[ne] = i as u8;
                ne += 1;
            }
        }
        let capacity = |left: usize| {
            if self.unlimited {
                MAX_PILE
            } else {
                1usize << left.min(6)
            }
        };
        // The cards a run may go onto, pile by pile, lowest first: those with at most `ne`
        // cards above them (which are parked, one to an empty pile), and not already covered
        // by a card that builds on them (taking a card off its parent to put another there
        // only swaps them).
        let mut parents = [(0u8, 0u8); MAX_PILES * (MAX_PILES + 1)];
        let mut np = 0;
        for j in 0..n {
            let lj = self.len[j] as usize;
            for d in lj.saturating_sub(ne + 1)..lj {
                if d + 1 == lj || !self.build.builds_on(self.cards[j][d + 1], self.cards[j][d]) {
                    parents[np] = (j as u8, d as u8);
                    np += 1;
                }
            }
        }
        let parents = &parents[..np];
        // The parents by rank (bit `k`: `parents[k]`; there are at most (n - e)(e + 1) <= 42
        // of them), so that a card looks only at the cards one rank above or below it (every
        // build rule builds by one rank).
        let mut by_rank = [0u128; 16];
        for (k, &(j, d)) in parents.iter().enumerate() {
            by_rank[usize::from(self.cards[usize::from(j)][usize::from(d)].rank())] |= 1 << k;
        }
        let candidates = |card: Card, i: usize| {
            let r = usize::from(card.rank());
            let mut m = by_rank[r + 1] | if r > 0 { by_rank[r - 1] } else { 0 };
            std::iter::from_fn(move || {
                while m != 0 {
                    let k = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let (j, d) = parents[k];
                    if usize::from(j) != i {
                        return Some((usize::from(j), usize::from(d)));
                    }
                }
                None
            })
        };
        // The height of the top card of the ordered run that starts at pile `i`'s card `c`.
        let run_end = |i: usize, c: usize| {
            let mut e = c;
            while e + 1 < self.len[i] as usize
                && self.build.builds_on(self.cards[i][e + 1], self.cards[i][e])
            {
                e += 1;
            }
            e
        };
        // Parks the top `k` cards of pile `i` one to an empty pile, from `empties[at]` on.
        let park = |out: &mut Vec<Move>, i: usize, k: usize, at: usize| {
            let l = self.len[i] as usize;
            for p in 0..k {
                out.push(Move::single(
                    self.cards[i][l - 1 - p],
                    i as u8,
                    empties[at + p],
                ));
            }
        };
        // A card home from the top of a pile.
        for i in 0..n {
            let l = self.len[i] as usize;
            if l > 0 && self.fits_foundation(self.cards[i][l - 1]) {
                out.push(Move::single(self.cards[i][l - 1], i as u8, FOUNDATION));
                ends.push(out.len() as u32);
            }
        }
        // A card home from under up to `ne` cards, parked first.
        for i in 0..n {
            let l = self.len[i] as usize;
            for c in (l.saturating_sub(ne + 1)..l.saturating_sub(1)).rev() {
                let card = self.cards[i][c];
                if self.fits_foundation(card) {
                    park(out, i, l - 1 - c, 0);
                    out.push(Move::single(card, i as u8, FOUNDATION));
                    ends.push(out.len() as u32);
                }
            }
        }
        // Each whole ordered run of a pile, at any depth, onto an open card of another pile:
        // the cards above that card parked first, then the cards above the run, as long as
        // the empty piles left can carry the run.
        for i in 0..n {
            let l = self.len[i] as usize;
            let mut c = 0;
            while c < l {
                let e = run_end(i, c);
                let above = l - 1 - e;
                let run = e + 1 - c;
                let card = self.cards[i][c];
                if above > ne {
                    c = e + 1;
                    continue;
                }
                for (j, d) in candidates(card, i) {
                    let parked = self.len[j] as usize - 1 - d;
                    if parked + above > ne
                        || !self.build.builds_on(card, self.cards[j][d])
                        || run > capacity(ne - parked - above)
                    {
                        continue;
                    }
                    park(out, j, parked, 0);
                    park(out, i, above, parked);
                    out.push(Move {
                        card,
                        from: i as u8,
                        to: j as u8,
                        count: run as u8,
                    });
                    ends.push(out.len() as u32);
                }
                c = e + 1;
            }
        }
        // A run into an empty pile: a pile's top run when the other empty piles can carry it
        // and it is not the whole pile; a run lower down, the cards above it parked first, as
        // much of its top as the empty piles left can carry.
        if ne > 0 {
            for i in 0..n {
                let l = self.len[i] as usize;
                let mut c = 0;
                while c < l {
                    let e = run_end(i, c);
                    if e + 1 == l {
                        if c > 0 && l - c <= capacity(ne - 1) {
                            out.push(Move {
                                card: self.cards[i][c],
                                from: i as u8,
                                to: empties[0],
                                count: (l - c) as u8,
                            });
                            ends.push(out.len() as u32);
                        }
                    } else {
                        let above = l - 1 - e;
                        if above < ne {
                            let start = (e + 1).saturating_sub(capacity(ne - above - 1)).max(c);
                            park(out, i, above, 0);
                            out.push(Move {
                                card: self.cards[i][start],
                                from: i as u8,
                                to: empties[above],
                                count: (e + 1 - start) as u8,
                            });
                            ends.push(out.len() as u32);
                        }
                    }
                    c = e + 1;
                }
            }
        }
        // The part of a pile's top run above its lowest card onto an open card of another
        // pile, the cards above that card parked first.
        for i in 0..n {
            let l = self.len[i] as usize;
            if l < 2 {
                continue;
            }
            let bottom = l - self.top_run(i);
            for c in bottom + 1..l {
                let card = self.cards[i][c];
                // In fc-solve's order of the parents' suits (a card has at most 16 parents:
                // two ranks, four suits, two decks).
                let mut fit = [(0u8, 0usize, 0usize); 16];
                let mut nf = 0;
                for (j, d) in candidates(card, i) {
                    let to = self.cards[j][d];
                    let parked = self.len[j] as usize - 1 - d;
                    if self.build.builds_on(card, to) && l - c <= capacity(ne - parked) {
                        fit[nf] = (FC_SUIT_RANK[to.suit_index()], j, d);
                        nf += 1;
                    }
                }
                fit[..nf].sort_unstable();
                for &(_, j, d) in &fit[..nf] {
                    park(out, j, self.len[j] as usize - 1 - d, 0);
                    out.push(Move {
                        card,
                        from: i as u8,
                        to: j as u8,
                        count: (l - c) as u8,
                    });
                    ends.push(out.len() as u32);
                }
            }
        }
    }
}

/// Each suit's place in fc-solve's order of the suits (hearts, clubs, diamonds, spades), by
/// castle's suit index (clubs, diamonds, hearts, spades).
const FC_SUIT_RANK: [u8; 4] = [1, 2, 0, 3];

#[cfg(test)]
mod tests {
    use super::super::tests::every_rule_set;
    use crate::check::{steps_of, Board};
    use crate::deal::Deal;
    use crate::moves::{MoveList, FOUNDATION};
    use crate::state::{Position, Pruning};

    /// Random walks in every rule set: each relocation chain, expanded into the single moves
    /// `play` makes of it, replays on the checker (the rules written apart from the search),
    /// changes the position, and a chain ending with a foundation move sends a card home.
    #[test]
    fn every_relocation_chain_is_legal_on_the_checker() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let (mut chains, mut ends, mut hist) = (Vec::new(), Vec::new(), Vec::new());
        let mut list = MoveList::default();
        let mut checked = 0;
        for (v, rules) in every_rule_set() {
            for seed in 1..=6 {
                let deal = Deal::from_seed(rules, seed);
                let mut pos = Position::new(&deal);
                let mut board = Board::new(&deal);
                for _ in 0..300 {
                    pos.relocation_moves(&mut chains, &mut ends);
                    assert!(
                        !rules.stock || ends.is_empty(),
                        "{v}: a stock game has none"
                    );
                    let mut from = 0;
                    for &end in &ends {
                        let chain = &chains[from as usize..end as usize];
                        from = end;
                        let (before, home) = (pos.key::<4>(), pos.home());
                        let mut h = Vec::new();
                        for &m in chain {
                            pos.play(m, &mut h);
                        }
                        let mut b = board.clone();
                        for step in steps_of(&h) {
                            b.play(&step).unwrap_or_else(|e| {
                                panic!("{v} deal {seed}: chain {chain:?} -> {h:?}: {e}")
                            });
                        }
                        assert_ne!(pos.key::<4>(), before, "{v}: a chain that changes nothing");
                        if chain.last().is_some_and(|m| m.to == FOUNDATION) {
                            assert_eq!(pos.home(), home + 1);
                        }
                        for &u in h.iter().rev() {
                            pos.undo(u);
                        }
                        assert_eq!(pos.key::<4>(), before);
                        checked += 1;
                    }
                    // On with a random move of the complete set.
                    pos.generate(Pruning::NONE, 0, None, &mut list);
                    if list.is_empty() {
                        break;
                    }
                    hist.clear();
                    pos.play(list.get(rng.gen_range(0..list.len())), &mut hist);
                    for step in steps_of(&hist) {
                        board.play(&step).expect("the walk's own move is legal");
                    }
                }
            }
        }
        assert!(checked > 10_000, "only {checked} chains checked");
    }
}
